#include "RequestTrace.hpp"

#include "TextFields.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "YamlReader.hpp"
#include "racktwin/core/Error.hpp"

namespace racktwin::scenarios::detail {
namespace {

constexpr std::array<std::string_view, 3> kColumns = {"TIMESTAMP", "ContextTokens",
                                                      "GeneratedTokens"};

/// A calendar date-time (TextFields.hpp), or plain seconds.
std::optional<Stamp> parseStamp(std::string_view text) {
  if (const auto stamp = parseDateTime(text)) return stamp;
  double v = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)
      || std::fabs(v) > 1e15) {
    return std::nullopt;
  }
  const double whole = std::floor(v);
  return Stamp{static_cast<std::int64_t>(whole), v - whole};
}

}  // namespace

std::vector<core::InferenceRequest> parseRequestTrace(std::string_view text,
                                                      const std::string& file) {
  const auto error = [&file](int line, int column, std::string_view key,
                             const std::string& message) {
    return core::InputError(core::SourceLocation{file, line, column}, std::string(key), message);
  };
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());

  std::vector<core::InferenceRequest> requests;
  // One row per line: reserve from the line count so the vector is allocated once.
  std::size_t lines = 1;
  for (const char c : text)
    lines += c == '\n' ? 1 : 0;
  requests.reserve(lines);

  int index[3] = {-1, -1, -1};  // field position of each column
  std::size_t columns = 0;
  int header_line = 0;
  Stamp first, previous;
  forEachLine(text, [&](int line_number, std::string_view line) {
    line = line.substr(0, line.find('#'));
    if (line.find_first_not_of(" \t") == std::string_view::npos) return;
    const std::vector<Field> fields = splitCommas(line);

    if (columns == 0) {
      header_line = line_number;
      for (std::size_t k = 0; k < fields.size(); ++k) {
        int which = -1;
        for (std::size_t c = 0; c < kColumns.size(); ++c) {
          if (fields[k].text == kColumns[c]) which = static_cast<int>(c);
        }
        if (which < 0) {
          throw error(line_number, fields[k].column, "",
                      "unknown column (" + describeField(fields[k].text)
                          + "); expected the header 'TIMESTAMP,ContextTokens,GeneratedTokens' "
                            "(Azure LLM inference trace format)");
        }
        if (index[which] >= 0) {
          throw error(line_number, fields[k].column, kColumns[static_cast<std::size_t>(which)],
                      "this column appears twice");
        }
        index[which] = static_cast<int>(k);
      }
      for (std::size_t c = 0; c < kColumns.size(); ++c) {
        if (index[c] < 0) {
          throw error(line_number, 1, kColumns[c],
                      "the header row has no '" + std::string(kColumns[c])
                          + "' column; expected 'TIMESTAMP,ContextTokens,GeneratedTokens'");
        }
      }
      columns = fields.size();
      return;
    }

    if (fields.size() != columns) {
      const std::size_t at = std::min(fields.size(), columns) - (fields.size() < columns ? 1 : 0);
      throw error(line_number, fields[at].column, "",
                  "expected " + std::to_string(columns) + " values per row, one per header column, "
                      + "got " + std::to_string(fields.size()));
    }
    const Field& ts = fields[static_cast<std::size_t>(index[0])];
    const std::optional<Stamp> stamp = parseStamp(ts.text);
    if (!stamp) {
      throw error(line_number, ts.column, kColumns[0],
                  "expected a time 'YYYY-MM-DD hh:mm:ss[.fraction]' or a number of seconds, got "
                      + describeField(ts.text));
    }
    core::InferenceRequest request;
    for (std::size_t c = 1; c < 3; ++c) {
      const Field& f = fields[static_cast<std::size_t>(index[c])];
      std::uint32_t tokens = 0;
      if (!parseWhole(f.text, tokens)) {
        throw error(
            line_number, f.column, kColumns[c],
            "expected a whole number of tokens (0 to 4294967295), got " + describeField(f.text));
      }
      (c == 1 ? request.context_tokens : request.generated_tokens) = tokens;
    }
    if (requests.empty()) {
      first = *stamp;
    } else if (stamp->seconds < previous.seconds
               || (stamp->seconds == previous.seconds && stamp->fraction < previous.fraction)) {
      throw error(line_number, ts.column, kColumns[0],
                  "times must not decrease from row to row; this request arrives before the "
                  "previous one");
    }
    previous = *stamp;
    request.time =
        static_cast<double>(stamp->seconds - first.seconds) + (stamp->fraction - first.fraction);
    requests.push_back(request);
  });
  if (columns == 0) {
    throw error(0, 0, "",
                "no header row; an inference trace starts with "
                "'TIMESTAMP,ContextTokens,GeneratedTokens'");
  }
  if (requests.empty()) throw error(header_line, 1, "", "no requests after the header row");
  return requests;
}

std::vector<core::InferenceRequest> readRequestTrace(const std::string& path) {
  return parseRequestTrace(readFileBytes(path), path);
}

}  // namespace racktwin::scenarios::detail
