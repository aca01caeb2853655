#pragma once
// Outdoor air at the plants (the facility loop's heat rejection, the air side's chilled-water
// plant): constant, or the site's weather series (core::AmbientSpec) interpolated linearly in
// time, held beyond its ends or repeated with its period (a whole weather year). A cursor kept
// between calls makes each update O(1) as time moves forward by a step or a sub-step.
#include <cstddef>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::core {
class StateArchive;
}

namespace racktwin::thermal {

class AmbientConditions {
 public:
  explicit AmbientConditions(const core::AmbientSpec& spec = {}) : spec_(spec) {}

  /// The dry and wet bulb at time t (s).
  void update(double t);
  double dryBulb() const noexcept { return T_dry_; }  // K
  double wetBulb() const noexcept { return T_wet_; }  // K
  const core::AmbientSpec& spec() const noexcept { return spec_; }
  void visitState(core::StateArchive& archive);

 private:
  core::AmbientSpec spec_;
  double T_dry_ = 0.0, T_wet_ = 0.0;
  std::size_t cursor_ = 1;  // interval of the weather series at the last update
};

}  // namespace racktwin::thermal
