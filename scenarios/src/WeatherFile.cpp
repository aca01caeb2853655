#include "WeatherFile.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "EpwWeather.hpp"
#include "WeatherCsv.hpp"

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
