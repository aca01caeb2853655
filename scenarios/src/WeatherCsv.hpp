#pragma once
// Weather files for the outdoor ambient of the facility loop (docs/scenario-format.md, "Weather
// files"): comma-separated text with a header row that names each column with its unit,
//
//   # comments start with '#', anywhere on a line
//   time_h,dry_bulb_degC,wet_bulb_degC
//   0,26.0,21.3
//   1,25.3,21.0
//
// Columns, in any order: one time column (time_s, time_min, time_h), one dry-bulb column and one
// wet-bulb column (dry_bulb_K, dry_bulb_degC, dry_bulb_degF and the same for wet_bulb). Times
// increase strictly, every temperature lies within the range of outdoor air on Earth, and the wet
// bulb never exceeds the dry bulb of its row. Every problem is a core::InputError naming the file,
// the 1-based line and column, and the column name as the key.
#include <string>
#include <string_view>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::scenarios::detail {

/// Lowest and highest outdoor dry or wet bulb a weather value may have, degC: a little beyond the
/// records measured on Earth (-89.2 degC at Vostok, 56.7 degC in Death Valley), so a kelvin or
/// Fahrenheit value in a Celsius column is caught.
inline constexpr double kOutdoorAirMin_degC = -100.0;
inline constexpr double kOutdoorAirMax_degC = 70.0;

/// Parses weather CSV text into SI: AmbientSpec::time (s, as written in the file),
/// T_dry_bulb_series and T_wet_bulb_series (K); T_dry_bulb and T_wet_bulb hold the first row.
/// `file` names the text in messages and goes into AmbientSpec::weather_path.
core::AmbientSpec parseWeatherCsv(std::string_view text, const std::string& file);

/// Reads and parses a weather file; a file that cannot be read is an InputError without a line.
core::AmbientSpec readWeatherCsv(const std::string& path);

}  // namespace racktwin::scenarios::detail
