#include "EpwWeather.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "Plausibility.hpp"
#include "TextFields.hpp"
#include "YamlReader.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/thermal/Psychrometrics.hpp"

namespace racktwin::scenarios::detail {
namespace {

namespace psy = thermal::psychrometrics;

constexpr double kDay_s = 86400.0;
constexpr double kHour_s = 3600.0;

// The header records in their order (EnergyPlus Auxiliary Programs, "EnergyPlus Weather File (EPW)
// Data Dictionary"); the holidays record is spelt with and without the final S in the wild.
constexpr std::array<std::string_view, 8> kHeaders = {"LOCATION",
                                                      "DESIGN CONDITIONS",
                                                      "TYPICAL/EXTREME PERIODS",
                                                      "GROUND TEMPERATURES",
                                                      "HOLIDAYS/DAYLIGHT SAVING",
                                                      "COMMENTS 1",
                                                      "COMMENTS 2",
                                                      "DATA PERIODS"};

// Fields of a data record used here: their position (0-based) and name for messages.
enum Column : std::size_t {
  kMonth = 1,
  kDay = 2,
  kHour = 3,
  kMinute = 4,
  kDryBulb = 6,
  kDewPoint = 7,
  kRelativeHumidity = 8,
  kPressure = 9,
  kUsedColumns = 10,
};

std::string fieldName(std::size_t column) {
  switch (column) {
    case kMonth:
      return "month (field 2)";
    case kDay:
      return "day (field 3)";
    case kHour:
      return "hour (field 4)";
    case kMinute:
      return "minute (field 5)";
    case kDryBulb:
      return "dry bulb temperature (field 7)";
    case kDewPoint:
      return "dew point temperature (field 8)";
    case kRelativeHumidity:
      return "relative humidity (field 9)";
    case kPressure:
      return "atmospheric station pressure (field 10)";
    default:
      return "field " + std::to_string(column + 1);
  }
}

// Missing-value codes of the dictionary: a value at or above them is missing.
constexpr double kMissingTemperature_degC = 99.9;
constexpr double kMissingHumidity_percent = 999.0;
constexpr double kMissingPressure_Pa = 999999.0;

// Physical ranges of the dictionary (exclusive where it says minimum> / maximum<).
constexpr double kTemperatureMin_degC = -70.0;
constexpr double kTemperatureMax_degC = 70.0;
constexpr double kPressureMin_Pa = 31000.0;
constexpr double kPressureMax_Pa = 120000.0;
constexpr double kHumidityMax_percent = 110.0;
constexpr double kElevationMin_m = -1000.0;
constexpr double kElevationMax_m = 9999.9;

// Engineering ranges (docs/references/weather.md).
constexpr double kDryBulbUsualMin_degC = -50.0;
constexpr double kDryBulbUsualMax_degC = 50.0;
constexpr double kDewPointUsualMax_degC = 35.0;
constexpr double kPressureUsualDeviation = 0.10;

constexpr std::array<int, 12> kDaysInMonth = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

int daysBeforeMonth(int month) {
  int days = 0;
  for (int m = 1; m < month; ++m)
    days += kDaysInMonth[static_cast<std::size_t>(m - 1)];
  return days;
}

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

/// Where a value came from, for its messages.
struct Place {
  int line = 0;
  int column = 0;
};

/// A count of records with one kind of unusual value, reported as one warning.
struct Tally {
  int count = 0;
  Place first;
  std::size_t field = 0;
  void add(Place where, std::size_t column) {
    if (count++ == 0) {
      first = where;
      field = column;
    }
  }
};

class EpwParser {
 public:
  EpwParser(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  EpwWeather parse() {
    forEachLine(text_, [this](int line_number, std::string_view line) {
      if (line_number <= static_cast<int>(kHeaders.size())) {
        header(line_number, line);
      } else if (line.find_first_not_of(" \t") != std::string_view::npos) {
        record(line_number, line);
      }
    });
    if (headers_seen_ < static_cast<int>(kHeaders.size())) {
      throw error(headers_seen_ + 1, 1, "",
                  "the file ends inside its header; an EPW file starts with 8 header lines ("
                      + std::string(kHeaders[static_cast<std::size_t>(headers_seen_)])
                      + " is missing)");
    }
    if (times_.empty()) {
      throw error(static_cast<int>(kHeaders.size()), 1, "",
                  "no data records after the 8 header lines");
    }
    fillDryBulb();
    fillDewPoint();
    fillPressure();
    checkRanges();
    return result();
  }

 private:
  core::InputError error(int line, int column, const std::string& key,
                         const std::string& message) const {
    return core::InputError(core::SourceLocation{file_, line, column}, key, message);
  }

  void warn(const Tally& tally, const std::string& message) const {
    if (tally.count == 0) return;
    addWarning(file_ + ":" + std::to_string(tally.first.line) + ":"
                   + std::to_string(tally.first.column) + ": key '" + fieldName(tally.field) + "'",
               std::to_string(tally.count) + (tally.count == 1 ? " record" : " records") + " "
                   + message + " (the first at this line)");
  }

  // ---- Header -------------------------------------------------------------------------------

  void header(int line_number, std::string_view line) {
    headers_seen_ = line_number;
    const std::vector<Field> fields = splitCommas(line);
    const std::string_view want = kHeaders[static_cast<std::size_t>(line_number - 1)];
    const std::string name = upper(fields.front().text);
    const bool plural = line_number == 5 && name == std::string(want) + "S";  // SAVINGS
    if (name != want && !plural) {
      throw error(line_number, 1, "",
                  "expected the " + std::string(want) + " header record here (got "
                      + describeField(fields.front().text)
                      + "); an EPW file starts with 8 header lines: LOCATION, DESIGN CONDITIONS, "
                        "TYPICAL/EXTREME PERIODS, GROUND TEMPERATURES, HOLIDAYS/DAYLIGHT "
                        "SAVINGS, COMMENTS 1, COMMENTS 2, DATA PERIODS");
    }
    if (line_number == 1) location(line_number, fields);
    if (line_number == 8) dataPeriods(line_number, fields);
  }

  void location(int line_number, const std::vector<Field>& fields) {
    // LOCATION, city, state, country, source, WMO, latitude, longitude, time zone, elevation
    constexpr std::size_t kElevation = 9;
    if (fields.size() <= kElevation) {
      throw error(line_number, fields.back().column, "elevation (LOCATION field 10)",
                  "missing; the LOCATION record ends with latitude, longitude, time zone and "
                  "elevation (m)");
    }
    const Field& f = fields[kElevation];
    const std::optional<double> z = parseDecimal(f.text);
    if (!z) {
      throw error(line_number, f.column, "elevation (LOCATION field 10)",
                  "expected a number of metres, got " + describeField(f.text));
    }
    if (!(*z >= kElevationMin_m && *z < kElevationMax_m)) {
      throw error(
          line_number, f.column, "elevation (LOCATION field 10)",
          "the elevation is " + formatNumber(*z) + " m, outside the EPW range -1000 to 9999.9 m");
    }
    elevation_ = *z;
  }

  void dataPeriods(int line_number, const std::vector<Field>& fields) {
    // DATA PERIODS, number of periods, records per hour, name, start weekday, start, end
    constexpr std::size_t kPerHour = 2;
    if (fields.size() <= kPerHour) {
      throw error(line_number, fields.back().column, "records per hour (DATA PERIODS field 3)",
                  "missing; DATA PERIODS gives the number of data periods and the records per "
                  "hour");
    }
    const Field& f = fields[kPerHour];
    int n = 0;
    if (!parseWhole(f.text, n) || n < 1 || n > 60 || 60 % n != 0) {
      throw error(line_number, f.column, "records per hour (DATA PERIODS field 3)",
                  "expected a whole number from 1 to 60 that divides an hour into whole minutes, "
                  "got "
                      + describeField(f.text));
    }
    per_hour_ = n;
  }

  // ---- Records ------------------------------------------------------------------------------

  int wholeField(const std::vector<Field>& fields, int line, std::size_t column, int lo, int hi) {
    const Field& f = fields[column];
    int v = 0;
    if (!parseWhole(f.text, v) || v < lo || v > hi) {
      throw error(line, f.column, fieldName(column),
                  "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi)
                      + ", got " + describeField(f.text));
    }
    return v;
  }

  double numberField(const std::vector<Field>& fields, int line, std::size_t column) {
    const Field& f = fields[column];
    const std::optional<double> v = parseDecimal(f.text);
    if (!v) {
      throw error(line, f.column, fieldName(column),
                  "expected a number, got " + describeField(f.text));
    }
    return *v;
  }

  [[noreturn]] void outside(int line, const Field& f, std::size_t column,
                            const std::string& what) const {
    throw error(line, f.column, fieldName(column), what);
  }

  void record(int line, std::string_view text) {
    const std::vector<Field> fields = splitCommas(text);
    if (fields.size() < kUsedColumns) {
      throw error(line, fields.back().column, fieldName(fields.size()),
                  "a data record of " + std::to_string(fields.size())
                      + " fields; expected year, month, day, hour, minute, data source flags, dry "
                        "bulb, dew point, relative humidity and station pressure first (35 "
                        "fields in a complete record)");
    }
    const int month = wholeField(fields, line, kMonth, 1, 12);
    const int day_max = month == 2 ? 29 : kDaysInMonth[static_cast<std::size_t>(month - 1)];
    const int day = wholeField(fields, line, kDay, 1, day_max);
    const int hour = wholeField(fields, line, kHour, 1, 24);
    const int minute = wholeField(fields, line, kMinute, 0, 60);
    recordTime(line, fields, month, day, hour, minute);

    const auto temperature = [&](std::size_t column) {
      const double v = numberField(fields, line, column);
      if (v >= kMissingTemperature_degC) return std::numeric_limits<double>::quiet_NaN();
      if (!(v > kTemperatureMin_degC && v < kTemperatureMax_degC)) {
        outside(line, fields[column], column,
                "the value is " + formatNumber(v)
                    + " degC, outside the EPW range above -70 and below 70 degC (99.9 marks a "
                      "missing value)");
      }
      return core::fromCelsius(v);
    };
    dry_.push_back(temperature(kDryBulb));
    dew_.push_back(temperature(kDewPoint));
    given_.push_back(std::isnan(dry_.back()) || std::isnan(dew_.back()) ? 0 : 1);
    const double rh = numberField(fields, line, kRelativeHumidity);
    if (rh >= kMissingHumidity_percent) {
      rh_.push_back(std::numeric_limits<double>::quiet_NaN());
    } else if (!(rh >= 0.0 && rh <= kHumidityMax_percent)) {
      outside(line, fields[kRelativeHumidity], kRelativeHumidity,
              "the value is " + formatNumber(rh)
                  + " %, outside the EPW range 0 to 110 % (999 marks a missing value)");
    } else {
      rh_.push_back(rh / 100.0);
    }
    const double p = numberField(fields, line, kPressure);
    if (p >= kMissingPressure_Pa) {
      p_.push_back(std::numeric_limits<double>::quiet_NaN());
    } else if (!(p > kPressureMin_Pa && p < kPressureMax_Pa)) {
      outside(line, fields[kPressure], kPressure,
              "the value is " + formatNumber(p)
                  + " Pa, outside the EPW range above 31000 and below 120000 Pa (the station "
                    "pressure in pascals; 999999 marks a missing value)");
    } else {
      p_.push_back(p);
    }
    lines_.push_back(line);
    columns_.push_back(
        {fields[kDryBulb].column, fields[kDewPoint].column, fields[kPressure].column});
  }

  /// The record's time (s since 00:00 on 1 January of the first record's year) from its calendar
  /// fields; it must be one interval after the previous record's.
  void recordTime(int line, const std::vector<Field>& fields, int month, int day, int hour,
                  int minute) {
    const double interval = kHour_s / per_hour_;
    double within_hour = kHour_s;  // hourly records: the hour ending at hour:00 (minute ignored)
    if (per_hour_ > 1) {
      const int step = 60 / per_hour_;
      if (minute == 0 || minute % step != 0) {
        throw error(line, fields[kMinute].column, fieldName(kMinute),
                    "with " + std::to_string(per_hour_)
                        + " records per hour (DATA PERIODS) the minute ends an interval: "
                        + std::to_string(step) + ", " + std::to_string(2 * step) + ", ... 60");
      }
      within_hour = minute * 60.0;
    }
    // A new year when the calendar goes back (31 December to 1 January).
    if (!times_.empty() && (month < month_ || (month == month_ && day < day_))) {
      year_start_ += (leap_ ? 366.0 : 365.0) * kDay_s;
      leap_ = false;
      wrapped_ = true;
    }
    const int day_of_year = daysBeforeMonth(month) + (leap_ && month > 2 ? 1 : 0) + day - 1;
    const double t = year_start_ + day_of_year * kDay_s + (hour - 1) * kHour_s + within_hour;
    if (month == 2 && day == 29) leap_ = true;
    if (!times_.empty() && std::abs(t - (times_.back() + interval)) > 1e-6) {
      throw error(line, fields[kMonth].column, fieldName(kMonth),
                  "this record (month " + std::to_string(month) + ", day " + std::to_string(day)
                      + ", hour " + std::to_string(hour) + ") does not follow the previous one "
                      + "(line " + std::to_string(lines_.back()) + ") by "
                      + formatNumber(interval / 60.0)
                      + " min; records follow one another without gaps, repeats or reordering");
    }
    month_ = month;
    day_ = day;
    times_.push_back(t);
  }

  // ---- Missing values -----------------------------------------------------------------------

  /// Fills the NaN runs of `v` by linear interpolation (held at the ends); a run longer than
  /// kMaxGap_h is an error at its first record.
  void fillGaps(std::vector<double>& v, std::size_t column, Tally& filled) {
    const std::size_t n = v.size();
    const auto max_gap = static_cast<std::size_t>(kMaxGap_h * per_hour_);
    std::size_t i = 0;
    while (i < n) {
      if (!std::isnan(v[i])) {
        ++i;
        continue;
      }
      std::size_t end = i;
      while (end < n && std::isnan(v[end]))
        ++end;
      const Place at{lines_[i], columnOf(i, column)};
      if (end - i > max_gap || (i == 0 && end == n)) {
        throw error(at.line, at.column, fieldName(column),
                    std::to_string(end - i) + " records in a row from here have no value "
                        + "(missing); at most " + formatNumber(kMaxGap_h)
                        + " h of missing values are filled by interpolation");
      }
      for (std::size_t k = i; k < end; ++k) {
        filled.add(Place{lines_[k], columnOf(k, column)}, column);
        if (i == 0) {
          v[k] = v[end];
        } else if (end == n) {
          v[k] = v[i - 1];
        } else {
          const double w = static_cast<double>(k - i + 1) / static_cast<double>(end - i + 1);
          v[k] = v[i - 1] + w * (v[end] - v[i - 1]);
        }
      }
      i = end;
    }
  }

  int columnOf(std::size_t record, std::size_t column) const {
    const auto& c = columns_[record];
    return column == kDryBulb ? c[0] : column == kDewPoint ? c[1] : c[2];
  }

  void fillDryBulb() {
    Tally filled;
    fillGaps(dry_, kDryBulb, filled);
    warn(filled, "had no dry bulb (missing): filled by linear interpolation");
  }

  void fillDewPoint() {
    // From the relative humidity where a record has one: p_w = RH p_ws(T).
    Tally from_humidity;
    for (std::size_t k = 0; k < dew_.size(); ++k) {
      if (!std::isnan(dew_[k]) || std::isnan(rh_[k]) || !(rh_[k] > 0.0)) continue;
      const double p_w = std::min(rh_[k], 1.0) * psy::saturationPressure(dry_[k]);
      try {
        dew_[k] = psy::dewPointFromVapourPressure(p_w);
      } catch (const std::invalid_argument&) {
        continue;  // a vapour pressure below the equations' range: filled from its neighbours
      }
      from_humidity.add(Place{lines_[k], columnOf(k, kDewPoint)}, kDewPoint);
    }
    warn(from_humidity, "had no dew point (missing): taken from the relative humidity");
    Tally filled;
    fillGaps(dew_, kDewPoint, filled);
    warn(filled,
         "had no dew point or relative humidity (missing): filled by linear "
         "interpolation");
  }

  void fillPressure() {
    Tally filled;
    const double standard = psy::standardPressure(elevation_);
    for (std::size_t k = 0; k < p_.size(); ++k) {
      if (!std::isnan(p_[k])) continue;
      p_[k] = standard;
      filled.add(Place{lines_[k], columnOf(k, kPressure)}, kPressure);
    }
    warn(filled,
         "had no station pressure (missing): the standard atmosphere at the LOCATION "
         "elevation ("
             + formatNumber(standard) + " Pa) is used");
  }

  // ---- Ranges -------------------------------------------------------------------------------

  void checkRanges() {
    Tally hot_cold, humid, saturated, pressure;
    const double standard = psy::standardPressure(elevation_);
    for (std::size_t k = 0; k < dry_.size(); ++k) {
      const Place dry_at{lines_[k], columnOf(k, kDryBulb)};
      const Place dew_at{lines_[k], columnOf(k, kDewPoint)};
      const double t = core::toCelsius(dry_[k]);
      if (t < kDryBulbUsualMin_degC || t > kDryBulbUsualMax_degC) hot_cold.add(dry_at, kDryBulb);
      if (core::toCelsius(dew_[k]) > kDewPointUsualMax_degC) humid.add(dew_at, kDewPoint);
      // Beyond rounding an error where the file gives both; a filled value is only clamped.
      if (dew_[k] > dry_[k] + kDewPointRounding_K && given_[k] != 0) {
        throw error(dew_at.line, dew_at.column, fieldName(kDewPoint),
                    "the dew point (" + formatNumber(core::toCelsius(dew_[k]))
                        + " degC) is more than " + formatNumber(kDewPointRounding_K)
                        + " K above the dry bulb (" + formatNumber(t)
                        + " degC) of the record; air holds no more water than at saturation");
      }
      if (dew_[k] > dry_[k]) {
        dew_[k] = dry_[k];
        saturated.add(dew_at, kDewPoint);
      }
      if (std::abs(p_[k] - standard) > kPressureUsualDeviation * standard) {
        pressure.add(Place{lines_[k], columnOf(k, kPressure)}, kPressure);
      }
    }
    warn(hot_cold,
         "have a dry bulb outside -50 to 50 degC, beyond the design conditions of "
         "nearly every site");
    warn(humid, "have a dew point above 35 degC, about the highest ever observed");
    warn(saturated, "have a dew point up to " + formatNumber(kDewPointRounding_K)
                        + " K above the dry bulb (rounding): taken as saturated air");
    warn(pressure,
         "have a station pressure more than 10 % away from the standard atmosphere at "
         "the LOCATION elevation ("
             + formatNumber(standard) + " Pa); check the elevation and the unit (Pa)");
  }

  EpwWeather result() {
    EpwWeather w;
    w.elevation = elevation_;
    w.records_per_hour = per_hour_;
    core::AmbientSpec& a = w.ambient;
    a.weather_path = file_;
    a.time = times_;
    a.T_dry_bulb_series = dry_;
    a.T_wet_bulb_series.resize(dry_.size());
    for (std::size_t k = 0; k < dry_.size(); ++k) {
      try {
        a.T_wet_bulb_series[k] = psy::wetBulbFromDewPoint(dry_[k], dew_[k], p_[k]);
      } catch (const std::invalid_argument&) {
        throw error(lines_[k], columnOf(k, kDryBulb), fieldName(kDryBulb),
                    "the dry bulb, dew point and station pressure of this record have no wet "
                    "bulb (the air would boil at this pressure)");
      }
    }
    a.T_dry_bulb = dry_.front();
    a.T_wet_bulb = a.T_wet_bulb_series.front();
    // One whole year from 1 January, 00:00 to 31 December, 24:00: it repeats.
    const double interval = kHour_s / per_hour_;
    const double span = static_cast<double>(times_.size()) * interval;
    const bool from_new_year = std::abs(times_.front() - interval) < 1e-6;
    if (from_new_year && !wrapped_
        && (std::abs(span - 365.0 * kDay_s) < 1e-6 || std::abs(span - 366.0 * kDay_s) < 1e-6)) {
      a.period = span;
    }
    a.calendar_year = true;
    w.T_dew_point = std::move(dew_);
    w.p_station = std::move(p_);
    return w;
  }

  std::string_view text_;
  const std::string& file_;
  int headers_seen_ = 0;
  double elevation_ = 0.0;
  int per_hour_ = 1;
  // Calendar of the previous record.
  int month_ = 0, day_ = 0;
  bool leap_ = false, wrapped_ = false;
  double year_start_ = 0.0;
  std::vector<double> times_, dry_, dew_, rh_, p_;
  std::vector<char> given_;  // 1: the record gives its dry bulb and dew point (none filled)
  std::vector<int> lines_;
  std::vector<std::array<int, 3>> columns_;  // dry bulb, dew point, pressure
};

}  // namespace

EpwWeather parseEpw(std::string_view text, const std::string& file) {
  return EpwParser(text, file).parse();
}

EpwWeather readEpw(const std::string& path) {
  return parseEpw(readFileBytes(path), path);
}

}  // namespace racktwin::scenarios::detail
