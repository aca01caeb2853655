#include "WeatherFile.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "EpwWeather.hpp"
#include "InputPaths.hpp"
#include "Plausibility.hpp"
#include "WeatherCsv.hpp"
#include "YamlReader.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::scenarios::detail {
namespace {

/// Linear interpolation of y(t) at `at` within [t.front(), t.back()].
double valueAt(const std::vector<double>& t, const std::vector<double>& y, double at) {
  if (at <= t.front()) return y.front();
  if (at >= t.back()) return y.back();
  const auto i = static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), at) - t.begin());
  const double w = (at - t[i - 1]) / (t[i] - t[i - 1]);
  return y[i - 1] + w * (y[i] - y[i - 1]);
}

}  // namespace

core::AmbientSpec readWeatherEntry(const MapReader& m, double duration) {
  m.restrictTo({"weather", "weather_start"},
               "with a weather file (the file gives the dry and wet bulb)");
  const std::filesystem::path path = resolveInputPath(
      m, "weather", m.string("weather", "the path of a weather file (CSV or EPW)"), "weather file");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    m.fail("weather", "no weather file '" + path.string()
                          + "' (a relative path starts at the scenario file's folder)");
  }
  // Simulation time 0 is `weather_start` in the file's time.
  const double start = m.quantityOr("weather_start", core::Dimension::Time, 0.0);
  core::AmbientSpec a = readWeatherFile(path.string(), start);
  if (!(a.period > 0.0) && (a.time.front() > 0.0 || a.time.back() < duration)) {
    const core::SourceLocation at = m.whereValue("weather");
    addWarning(at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column)
                   + ": key '" + m.keyPath("weather") + "'",
               "the run (0 to " + formatNumber(duration) + " s) reaches beyond the file's records ("
                   + formatNumber(a.time.front()) + " to " + formatNumber(a.time.back())
                   + " s on the run's clock, weather_start included): its first and last values "
                     "hold there");
  }
  return a;
}

bool isEpwPath(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& c : ext)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return ext == ".epw";
}

core::AmbientSpec readWeatherFile(const std::string& path, double start) {
  core::AmbientSpec ambient = isEpwPath(path) ? readEpw(path).ambient : readWeatherCsv(path);
  return startAt(std::move(ambient), start);
}

core::AmbientSpec startAt(core::AmbientSpec a, double start) {
  a.file_time_at_start = start;
  if (!(a.period > 0.0)) {
    for (double& t : a.time)
      t -= start;
    return a;
  }
  // A whole year: its records lie in (0, period], the last one also standing for time 0.
  const double P = a.period;
  const double s = start - P * std::floor(start / P);  // in [0, P)
  // The periodic series on [0, P] with time 0 = the last record.
  std::vector<double> t{0.0}, dry{a.T_dry_bulb_series.back()}, wet{a.T_wet_bulb_series.back()};
  t.insert(t.end(), a.time.begin(), a.time.end());
  dry.insert(dry.end(), a.T_dry_bulb_series.begin(), a.T_dry_bulb_series.end());
  wet.insert(wet.end(), a.T_wet_bulb_series.begin(), a.T_wet_bulb_series.end());
  core::AmbientSpec r = a;
  r.time.clear();
  r.T_dry_bulb_series.clear();
  r.T_wet_bulb_series.clear();
  const auto push = [&](double time, double T_dry, double T_wet) {
    r.time.push_back(time);
    r.T_dry_bulb_series.push_back(T_dry);
    r.T_wet_bulb_series.push_back(T_wet);
  };
  const double dry_s = valueAt(t, dry, s), wet_s = valueAt(t, wet, s);
  push(0.0, dry_s, wet_s);
  for (std::size_t k = 1; k < t.size(); ++k)  // after s to the year's end
    if (t[k] > s) push(t[k] - s, dry[k], wet[k]);
  for (std::size_t k = 1; k < t.size(); ++k)  // from the year's start up to s
    if (t[k] < s) push(t[k] + P - s, dry[k], wet[k]);
  if (r.time.back() < P) push(P, dry_s, wet_s);
  r.T_dry_bulb = dry_s;
  r.T_wet_bulb = wet_s;
  return r;
}

}  // namespace racktwin::scenarios::detail
