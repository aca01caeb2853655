#include "WeatherCsv.hpp"

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "TextFields.hpp"
#include "YamlReader.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::scenarios::detail {
namespace {

enum class Quantity : std::uint8_t { Time, DryBulb, WetBulb };

/// One accepted column name: what it holds and how a value converts to SI (s or K).
struct ColumnKind {
  std::string_view name;
  Quantity quantity;
  double scale;   // SI = scale * (value + offset)
  double offset;  // for temperatures: degC -> K, degF -> degR
};

constexpr double kDegFToK = 5.0 / 9.0;
constexpr double kDegFOffset = 459.67;  // degF -> degR

constexpr std::array<ColumnKind, 9> kColumns = {{
    {"time_s", Quantity::Time, 1.0, 0.0},
    {"time_min", Quantity::Time, 60.0, 0.0},
    {"time_h", Quantity::Time, 3600.0, 0.0},
    {"dry_bulb_K", Quantity::DryBulb, 1.0, 0.0},
    {"dry_bulb_degC", Quantity::DryBulb, 1.0, core::kZeroCelsius_K},
    {"dry_bulb_degF", Quantity::DryBulb, kDegFToK, kDegFOffset},
    {"wet_bulb_K", Quantity::WetBulb, 1.0, 0.0},
    {"wet_bulb_degC", Quantity::WetBulb, 1.0, core::kZeroCelsius_K},
    {"wet_bulb_degF", Quantity::WetBulb, kDegFToK, kDegFOffset},
}};

std::string acceptedColumns() {
  std::string text;
  for (const ColumnKind& c : kColumns)
    text += (text.empty() ? "" : ", ") + std::string(c.name);
  return text;
}

std::string_view quantityName(Quantity q) {
  switch (q) {
    case Quantity::Time:
      return "time";
    case Quantity::DryBulb:
      return "dry-bulb";
    case Quantity::WetBulb:
      return "wet-bulb";
  }
  return "";
}

std::string_view quantityColumns(Quantity q) {
  switch (q) {
    case Quantity::Time:
      return "time_s, time_min or time_h";
    case Quantity::DryBulb:
      return "dry_bulb_K, dry_bulb_degC or dry_bulb_degF";
    case Quantity::WetBulb:
      return "wet_bulb_K, wet_bulb_degC or wet_bulb_degF";
  }
  return "";
}

std::string degC(double T) {
  return formatNumber(core::toCelsius(T)) + " degC";
}

struct Column {
  const ColumnKind* kind = nullptr;
  int column = 1;  // of the header field
};

}  // namespace

core::AmbientSpec parseWeatherCsv(std::string_view text, const std::string& file) {
  const auto error = [&file](int line, int column, std::string_view key,
                             const std::string& message) {
    return core::InputError(core::SourceLocation{file, line, column}, std::string(key), message);
  };
  constexpr std::string_view kBom = "\xEF\xBB\xBF";  // spreadsheets often start CSV files with it
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());

  core::AmbientSpec ambient;
  ambient.weather_path = file;
  std::vector<Column> header;
  int index[3] = {-1, -1, -1};  // header position of the time, dry-bulb and wet-bulb columns
  int header_line = 0;
  forEachLine(text, [&](int line_number, std::string_view line) {
    line = line.substr(0, line.find('#'));
    if (line.find_first_not_of(" \t") == std::string_view::npos) return;
    const std::vector<Field> fields = splitCommas(line);

    if (header.empty()) {
      header_line = line_number;
      for (const Field& f : fields) {
        const ColumnKind* kind = nullptr;
        for (const ColumnKind& c : kColumns) {
          if (c.name == f.text) kind = &c;
        }
        if (kind == nullptr) {
          throw error(line_number, f.column, "",
                      "unknown column (" + describeField(f.text)
                          + "); the header row names each column with its unit, one of: "
                          + acceptedColumns());
        }
        int& slot = index[static_cast<int>(kind->quantity)];
        if (slot >= 0) {
          throw error(line_number, f.column, kind->name,
                      "a second " + std::string(quantityName(kind->quantity)) + " column (column '"
                          + std::string(header[static_cast<std::size_t>(slot)].kind->name)
                          + "' came first); give each quantity once");
        }
        slot = static_cast<int>(header.size());
        header.push_back(Column{kind, f.column});
      }
      for (const Quantity q : {Quantity::Time, Quantity::DryBulb, Quantity::WetBulb}) {
        if (index[static_cast<int>(q)] < 0) {
          throw error(line_number, 1, "",
                      "the header row has no " + std::string(quantityName(q))
                          + " column; expected one of " + std::string(quantityColumns(q))
                          + " (for example 'time_h,dry_bulb_degC,wet_bulb_degC')");
        }
      }
      return;
    }

    if (fields.size() != header.size()) {
      const std::size_t n = header.size();
      const std::string expected = "expected " + std::to_string(n) + " values per row, one per "
                                   + "header column, got " + std::to_string(fields.size());
      if (fields.size() < n) {
        throw error(line_number, fields.back().column, header[fields.size()].kind->name,
                    "missing value; " + expected);
      }
      throw error(line_number, fields[n].column, "column " + std::to_string(n + 1),
                  "a value beyond the last header column; " + expected);
    }
    double si[3] = {0.0, 0.0, 0.0};
    for (std::size_t k = 0; k < fields.size(); ++k) {
      const ColumnKind& kind = *header[k].kind;
      const std::optional<double> v = parseDecimal(fields[k].text);
      if (!v) {
        throw error(line_number, fields[k].column, kind.name,
                    "expected a number, got " + describeField(fields[k].text));
      }
      const double value = kind.scale * (*v + kind.offset);
      if (kind.quantity != Quantity::Time) {
        const double T_degC = core::toCelsius(value);
        if (!(T_degC >= kOutdoorAirMin_degC && T_degC <= kOutdoorAirMax_degC)) {
          throw error(line_number, fields[k].column, kind.name,
                      "the value is " + degC(value) + ", outside the range of outdoor air ("
                          + formatNumber(kOutdoorAirMin_degC) + " to "
                          + formatNumber(kOutdoorAirMax_degC) + " degC); check the column's unit");
        }
      }
      si[static_cast<int>(kind.quantity)] = value;
    }
    const auto at = [&](Quantity q) {
      const auto k = static_cast<std::size_t>(index[static_cast<int>(q)]);
      return std::pair<std::string_view, int>(header[k].kind->name, fields[k].column);
    };
    const double t = si[0], T_dry = si[1], T_wet = si[2];
    if (!ambient.time.empty() && !(t > ambient.time.back())) {
      const auto [name, column] = at(Quantity::Time);
      throw error(line_number, column, name,
                  "times must increase strictly from row to row; this row's time is not after "
                  "the previous row's");
    }
    if (T_wet > T_dry) {
      const auto [name, column] = at(Quantity::WetBulb);
      throw error(line_number, column, name,
                  "the wet bulb (" + degC(T_wet) + ") is above the dry bulb (" + degC(T_dry)
                      + ") of the same row; a wet bulb never exceeds its dry bulb");
    }
    ambient.time.push_back(t);
    ambient.T_dry_bulb_series.push_back(T_dry);
    ambient.T_wet_bulb_series.push_back(T_wet);
  });
  if (header.empty()) {
    throw error(0, 0, "",
                "no header row; a weather file starts with a header such as "
                "'time_h,dry_bulb_degC,wet_bulb_degC'");
  }
  if (ambient.time.empty()) {
    throw error(header_line, 1, "", "no data rows after the header row");
  }
  ambient.T_dry_bulb = ambient.T_dry_bulb_series.front();
  ambient.T_wet_bulb = ambient.T_wet_bulb_series.front();
  return ambient;
}

core::AmbientSpec readWeatherCsv(const std::string& path) {
  return parseWeatherCsv(readFileBytes(path), path);
}

}  // namespace racktwin::scenarios::detail
