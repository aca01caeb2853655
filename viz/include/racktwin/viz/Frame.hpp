#pragma once
// Frame: the value of every Quantity for every entity of a SiteGeometry at one time (NaN where a
// quantity does not apply or the source does not record it). Sized once for its geometry;
// filling it again allocates nothing.
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include "racktwin/viz/Quantity.hpp"
#include "racktwin/viz/SiteGeometry.hpp"

namespace racktwin::viz {

struct Frame {
  double time = 0.0;  // s
  std::size_t entity_count = 0;
  /// values[q * entity_count + e]: quantity q (in kAllQuantities order) of entity e.
  std::vector<double> values;

  Frame() = default;
  explicit Frame(const SiteGeometry& geometry)
      : entity_count(geometry.entityCount()),
        values(kQuantityCount * geometry.entityCount(), std::numeric_limits<double>::quiet_NaN()) {}

  double value(Quantity q, std::size_t entity) const noexcept {
    return values[static_cast<std::size_t>(q) * entity_count + entity];
  }
  double& value(Quantity q, std::size_t entity) noexcept {
    return values[static_cast<std::size_t>(q) * entity_count + entity];
  }
  /// Smallest and largest finite value of q; {NaN, NaN} when there is none.
  std::pair<double, double> range(Quantity q) const noexcept;
};

}  // namespace racktwin::viz
