#include "GpuTrace.hpp"

#include "TextFields.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "YamlReader.hpp"
#include "racktwin/core/Error.hpp"

namespace racktwin::scenarios::detail {
namespace {

bool parseNumber(std::string_view text, double& value) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() && std::isfinite(value);
}

/// nvidia-smi's 'YYYY/MM/DD hh:mm:ss.fff' (TextFields.hpp).
std::optional<Stamp> parseStamp(std::string_view text) {
  return parseDateTime(text);
}

std::string_view trim(std::string_view s, std::size_t& offset) {
  std::size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t'))
    ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t'))
    --b;
  offset = a;
  return s.substr(a, b - a);
}

std::vector<Field> splitWhitespace(std::string_view line) {
  std::vector<Field> fields;
  std::size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t'))
      ++pos;
    if (pos == line.size()) break;
    const std::size_t start = pos;
    while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t')
      ++pos;
    fields.push_back(Field{line.substr(start, pos - start), static_cast<int>(start) + 1});
  }
  return fields;
}

/// Samples per GPU index, in file order.
using Samples = std::map<std::uint32_t, std::vector<std::pair<double, double>>>;

GpuTrace flatten(const Samples& samples) {
  GpuTrace trace;
  trace.sample_begin.push_back(0);
  for (const auto& [index, list] : samples) {
    for (const auto& [t, P] : list) {
      trace.times.push_back(t);
      trace.power.push_back(P);
    }
    trace.sample_begin.push_back(trace.times.size());
  }
  return trace;
}

core::InputError traceError(const std::string& file, int line, int column, std::string_view key,
                            const std::string& message) {
  return core::InputError(core::SourceLocation{file, line, column}, std::string(key), message);
}

}  // namespace

GpuTrace parseNvidiaSmiTrace(std::string_view text, const std::string& file) {
  enum { kTimestamp, kIndex, kPower, kColumns };
  constexpr std::string_view kNames[kColumns] = {"timestamp", "index", "power.draw"};
  int index[kColumns] = {-1, -1, -1};
  std::vector<std::string> units;  // per field: the unit in the header's brackets
  std::size_t columns = 0;
  int header_line = 0;
  Samples samples;
  std::optional<Stamp> first;
  std::size_t rows = 0;

  forEachLine(text, [&](int line_number, std::string_view line) {
    const std::size_t first_char = line.find_first_not_of(" \t");
    if (first_char == std::string_view::npos || line[first_char] == '#') return;
    const std::vector<Field> fields = splitCommas(line);
    const auto error = [&](int column, std::string_view key, const std::string& message) {
      return traceError(file, line_number, column, key, message);
    };
    if (columns == 0) {
      header_line = line_number;
      for (std::size_t k = 0; k < fields.size(); ++k) {
        std::string_view name = fields[k].text;
        std::string unit;
        const std::size_t bracket = name.find(" [");
        if (bracket != std::string_view::npos && name.back() == ']') {
          unit = std::string(name.substr(bracket + 2, name.size() - bracket - 3));
          name = name.substr(0, bracket);
        }
        units.push_back(unit);
        for (int c = 0; c < kColumns; ++c) {
          if (name != kNames[c]) continue;
          if (index[c] >= 0) {
            throw error(fields[k].column, kNames[c], "this column appears twice");
          }
          index[c] = static_cast<int>(k);
        }
      }
      for (int c = 0; c < kColumns; ++c) {
        if (index[c] < 0) {
          throw error(1, kNames[c],
                      "the header row has no '" + std::string(kNames[c])
                          + "' column; expected the CSV of nvidia-smi "
                            "--query-gpu=timestamp,index,utilization.gpu,power.draw --format=csv");
        }
      }
      columns = fields.size();
      return;
    }
    if (fields.size() != columns) {
      const std::size_t at = std::min(fields.size(), columns) - (fields.size() < columns ? 1 : 0);
      throw error(fields[at].column, "",
                  "expected " + std::to_string(columns) + " values per row, one per header column, "
                      + "got " + std::to_string(fields.size()));
    }
    const Field& ts = fields[static_cast<std::size_t>(index[kTimestamp])];
    const std::optional<Stamp> stamp = parseStamp(ts.text);
    if (!stamp) {
      throw error(
          ts.column, kNames[kTimestamp],
          "expected a time 'YYYY/MM/DD hh:mm:ss[.fraction]', got " + describeField(ts.text));
    }
    const Field& ix = fields[static_cast<std::size_t>(index[kIndex])];
    std::uint32_t gpu = 0;
    if (!parseWhole(ix.text, gpu)) {
      throw error(ix.column, kNames[kIndex],
                  "expected a GPU index (a whole number >= 0), got " + describeField(ix.text));
    }
    const std::size_t power_field = static_cast<std::size_t>(index[kPower]);
    const Field& pw = fields[power_field];
    std::string_view value = pw.text;
    const std::string& unit = units[power_field];
    if (!unit.empty() && value.size() > unit.size()
        && value.substr(value.size() - unit.size()) == unit) {
      value.remove_suffix(unit.size());
      std::size_t offset = 0;
      value = trim(value, offset);
    }
    double P = 0.0;
    if (!parseNumber(value, P) || P < 0.0) {
      throw error(pw.column, kNames[kPower],
                  "expected a power draw in watts (a number >= 0), got " + describeField(pw.text));
    }
    if (!first) first = stamp;
    const double t =
        static_cast<double>(stamp->seconds - first->seconds) + (stamp->fraction - first->fraction);
    auto& list = samples[gpu];
    if (!list.empty() && t < list.back().first) {
      throw error(ts.column, kNames[kTimestamp],
                  "times of GPU " + std::to_string(gpu)
                      + " must not decrease; this sample is earlier than its previous one");
    }
    list.emplace_back(t, P);
    ++rows;
  });
  if (columns == 0) {
    throw traceError(file, 0, 0, "",
                     "no header row; an nvidia-smi trace starts with "
                     "'timestamp, index, utilization.gpu [%], power.draw [W]'");
  }
  if (rows == 0) throw traceError(file, header_line, 1, "", "no samples after the header row");
  return flatten(samples);
}

GpuTrace parseDcgmTrace(std::string_view text, const std::string& file, double interval) {
  if (!(std::isfinite(interval) && interval > 0.0)) {
    throw traceError(file, 0, 0, "interval",
                     "a DCGM dmon trace needs a positive sample interval (dmon prints no times)");
  }
  std::vector<std::string> names;  // value columns after the entity
  int power = -1;
  Samples samples;
  std::size_t rows = 0;

  forEachLine(text, [&](int line_number, std::string_view line) {
    const std::vector<Field> fields = splitWhitespace(line);
    if (fields.empty()) return;
    const auto error = [&](int column, std::string_view key, const std::string& message) {
      return traceError(file, line_number, column, key, message);
    };
    if (fields[0].text.front() == '#') {
      // '#Entity POWER GPUTL' or '# Entity POWER GPUTL'.
      std::size_t k = fields[0].text == "#" ? 1 : 0;
      const std::string_view entity =
          k == 1 ? (fields.size() > 1 ? fields[1].text : std::string_view())
                 : fields[0].text.substr(1);
      if (entity != "Entity") return;  // a comment
      std::vector<std::string> header;
      int found = -1;
      for (k += 1; k < fields.size(); ++k) {
        if (fields[k].text == "POWER") found = static_cast<int>(header.size());
        header.emplace_back(fields[k].text);
      }
      if (found < 0) {
        throw error(fields[0].column, "POWER",
                    "the dmon header has no POWER field; record it with dcgmi dmon -e 155");
      }
      if (!names.empty() && header != names) {
        throw error(fields[0].column, "", "a repeated dmon header names other fields");
      }
      names = std::move(header);
      power = found;
      return;
    }
    if (fields[0].text == "ID") return;  // the units line
    if (names.empty()) {
      throw error(fields[0].column, "",
                  "no '#Entity' header line before the first row of the dmon output");
    }
    if (fields[0].text != "GPU") {
      throw error(fields[0].column, "",
                  "expected a row 'GPU <index> <values>', got an entity that is "
                      + describeField(fields[0].text));
    }
    if (fields.size() != names.size() + 2) {
      const std::size_t at = std::min(fields.size(), names.size() + 2) - 1;
      throw error(fields[at].column, "",
                  "expected 'GPU <index>' and " + std::to_string(names.size())
                      + " values, one per header field, got "
                      + std::to_string(fields.size() >= 2 ? fields.size() - 2 : 0) + " values");
    }
    std::uint32_t gpu = 0;
    if (!parseWhole(fields[1].text, gpu)) {
      throw error(
          fields[1].column, "",
          "expected a GPU index (a whole number >= 0), got " + describeField(fields[1].text));
    }
    const Field& pw = fields[static_cast<std::size_t>(power) + 2];
    double P = 0.0;
    if (!parseNumber(pw.text, P) || P < 0.0) {
      throw error(pw.column, "POWER",
                  "expected a power in watts (a number >= 0), got " + describeField(pw.text));
    }
    auto& list = samples[gpu];
    list.emplace_back(static_cast<double>(list.size()) * interval, P);
    ++rows;
  });
  if (rows == 0) throw traceError(file, 0, 0, "", "no GPU rows in the dmon output");
  return flatten(samples);
}

GpuTrace readGpuTrace(const std::string& path, std::string_view format, double interval) {
  if (format == "nvidia-smi") return parseNvidiaSmiTrace(readFileBytes(path), path);
  if (format == "dcgm") return parseDcgmTrace(readFileBytes(path), path, interval);
  throw traceError(
      path, 0, 0, "format",
      "unknown GPU trace format '" + std::string(format) + "'; supported: nvidia-smi, dcgm");
}

}  // namespace racktwin::scenarios::detail
