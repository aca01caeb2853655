#include "racktwin/viz/ColorMap.hpp"

#include <algorithm>
#include <cmath>

namespace racktwin::viz {
namespace {

// Moreland's "cool to warm" diverging map (Moreland 2009, Diverging Color Maps for Scientific
// Visualization), sampled at five points and interpolated in RGB: blue for cool, red for hot,
// a light grey middle that stays apart from the darker NaN grey.
struct ControlPoint {
  double s;
  double r, g, b;
};
constexpr ControlPoint kPoints[] = {
    {0.00, 59, 76, 192},   {0.25, 141, 176, 254}, {0.50, 221, 221, 221},
    {0.75, 244, 154, 123}, {1.00, 180, 4, 38},
};

}  // namespace

void ColorMap::setRange(double min, double max) noexcept {
  if (!std::isfinite(min) || !std::isfinite(max)) {
    min = std::isfinite(min) ? min : (std::isfinite(max) ? max : 0.0);
    max = min;
  }
  if (max <= min) {
    const double middle = 0.5 * (min + max);
    min = middle - 0.5;
    max = middle + 0.5;
  }
  min_ = min;
  max_ = max;
}

std::size_t ColorMap::index(double value) const noexcept {
  if (!(value > min_)) return 0;  // also NaN; callers test NaN first
  if (value >= max_) return kEntries - 1;
  const double s = (value - min_) / (max_ - min_);
  return std::min(kEntries - 1, static_cast<std::size_t>(s * static_cast<double>(kEntries)));
}

Rgb ColorMap::colour(double value) const noexcept {
  if (std::isnan(value)) return nanColour();
  return entry(index(value));
}

Rgb ColorMap::entry(std::size_t i) noexcept {
  const double s =
      static_cast<double>(std::min(i, kEntries - 1)) / static_cast<double>(kEntries - 1);
  std::size_t k = 1;
  while (k + 1 < std::size(kPoints) && kPoints[k].s < s)
    ++k;
  const ControlPoint& a = kPoints[k - 1];
  const ControlPoint& b = kPoints[k];
  const double w = (s - a.s) / (b.s - a.s);
  const auto mix = [w](double x, double y) {
    return static_cast<std::uint8_t>(std::lround(x + w * (y - x)));
  };
  return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

}  // namespace racktwin::viz
