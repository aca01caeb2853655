#pragma once
// EnergyPlus weather files (EPW) for the outdoor ambient of the facility loop
// (docs/scenario-format.md, "Weather files"; the format: docs/references/weather.md). Eight header
// lines (LOCATION, DESIGN CONDITIONS, TYPICAL/EXTREME PERIODS, GROUND TEMPERATURES,
// HOLIDAYS/DAYLIGHT SAVINGS, COMMENTS 1, COMMENTS 2, DATA PERIODS), then one comma-separated record
// per interval: year, month, day, hour (1-24, the hour ending at that time), minute, data source
// flags, dry bulb (degC), dew point (degC), relative humidity (%), station pressure (Pa) and 25
// more fields this reader does not use.
//
// What the reader takes: the dry bulb, the dew point and the station pressure of every record, at
// the end of its interval (hour h of a day is h:00); the wet bulb of each record from those three
// (thermal/Psychrometrics). The year field is ignored (typical years mix years month by month):
// records must follow one another at the file's interval (DATA PERIODS: records per hour), the
// calendar given by month, day and hour, across the new year and a 29 February.
//
// Missing values (the EPW codes: 99.9 degC for the temperatures, 999 % for humidity, 999999 Pa for
// pressure, or anything at or above them) are filled and reported as warnings: a dry bulb by linear
// interpolation over a gap of at most kMaxGap_h hours (held at the file's ends); a dew point from
// the record's relative humidity when it has one, else as the dry bulb; a pressure from the
// standard atmosphere at the LOCATION elevation. Longer gaps are errors.
//
// Ranges: physical (an InputError naming file, line, column and field): the EPW dictionary's own,
// dry bulb and dew point above -70 and below 70 degC, pressure above 31 and below 120 kPa, relative
// humidity 0 to 110 %, elevation -1000 to 9999.9 m; a dew point more than kDewPointRounding_K above
// its dry bulb (both given: a filled one is clamped to its dry bulb). Engineering (a warning per
// field with the count and the first line): dry bulb outside -50 to 50 degC, dew point above 35
// degC, a station pressure more than 10 % away from the standard atmosphere at the elevation, a dew
// point up to kDewPointRounding_K above its dry bulb (taken as saturated). Messages never quote the
// file's text (InputPaths.hpp).
#include <string>
#include <string_view>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::scenarios::detail {

/// Longest gap of missing dry bulbs or dew points filled by interpolation, hours.
inline constexpr double kMaxGap_h = 6.0;
/// A dew point this far above its dry bulb is rounding in the file (saturated air); beyond, an
/// error.
inline constexpr double kDewPointRounding_K = 1.0;

struct EpwWeather {
  /// time (s since 00:00 on 1 January of the first record's year, at each record's end),
  /// T_dry_bulb_series and T_wet_bulb_series (K); T_dry_bulb and T_wet_bulb hold the first record;
  /// weather_path the file; period the length of the year when the file is one whole year from
  /// 1 January (8760 or 8784 hourly records, or as many at its interval), else 0.
  core::AmbientSpec ambient;
  std::vector<double> T_dew_point;  // K per record, after filling
  std::vector<double> p_station;    // Pa per record, after filling
  double elevation = 0.0;           // m, LOCATION
  int records_per_hour = 1;
};

/// Parses EPW text; `file` names it in messages and goes into AmbientSpec::weather_path.
EpwWeather parseEpw(std::string_view text, const std::string& file);

/// Reads and parses an EPW file; a file that cannot be read is an InputError without a line.
EpwWeather readEpw(const std::string& path);

}  // namespace racktwin::scenarios::detail
