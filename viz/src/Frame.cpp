#include "racktwin/viz/Frame.hpp"

#include <algorithm>

namespace racktwin::viz {

std::pair<double, double> Frame::range(Quantity q) const noexcept {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  const std::size_t begin = static_cast<std::size_t>(q) * entity_count;
  for (std::size_t e = begin; e < begin + entity_count; ++e) {
    const double v = values[e];
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (lo > hi)
    return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  return {lo, hi};
}

}  // namespace racktwin::viz
