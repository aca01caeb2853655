#include "racktwin/thermal/AmbientConditions.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "racktwin/core/StateArchive.hpp"

namespace racktwin::thermal {
namespace {

/// The interval of a weather series holding `at`: the first index i with t[i] > at (as
/// std::upper_bound), walked to from the previous step's index. Time moves forward by a step or a
/// sub-step between calls, so this costs O(1) per call rather than a search (a jump, such as the
/// wrap of a periodic year, walks once). Requires t.front() < at < t.back().
std::size_t intervalFrom(const std::vector<double>& t, double at, std::size_t cursor) {
  std::size_t i = std::clamp<std::size_t>(cursor, 1, t.size() - 1);
  while (t[i] <= at)
    ++i;
  while (t[i - 1] > at)
    --i;
  return i;
}

/// Linear interpolation of y(t) at `at`, held beyond the ends; `cursor` is the interval of the
/// last call and becomes this one's.
double interpolate(const std::vector<double>& t, const std::vector<double>& y, double at,
                   std::size_t& cursor) {
  if (at <= t.front()) return y.front();
  if (at >= t.back()) return y.back();
  const std::size_t i = cursor = intervalFrom(t, at, cursor);
  const double w = (at - t[i - 1]) / (t[i] - t[i - 1]);
  return y[i - 1] + w * (y[i] - y[i - 1]);
}

}  // namespace

void AmbientConditions::update(double t) {
  if (spec_.time.empty()) {
    T_dry_ = spec_.T_dry_bulb;
    T_wet_ = spec_.T_wet_bulb;
    return;
  }
  // A whole weather year repeats: the series spans [0, period] (scenarios/WeatherFile).
  const double at = spec_.period > 0.0 ? t - spec_.period * std::floor(t / spec_.period) : t;
  std::size_t cursor = cursor_;
  T_dry_ = interpolate(spec_.time, spec_.T_dry_bulb_series, at, cursor);
  if (!spec_.T_wet_bulb_series.empty()) {
    std::size_t same = cursor_;  // the same times: the same interval
    T_wet_ = interpolate(spec_.time, spec_.T_wet_bulb_series, at, same);
  } else {
    T_wet_ = spec_.T_wet_bulb;
  }
  cursor_ = cursor;
}

void AmbientConditions::visitState(core::StateArchive& a) {
  a(T_dry_, T_wet_, cursor_);
}

}  // namespace racktwin::thermal
