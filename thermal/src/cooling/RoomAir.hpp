#pragma once
// The room air: one lumped node heated by the air-cooled loads, PSU and distribution losses and
// pump motor losses, cooled by the CRAH units (a conductance to their supply air, capped at their
// capacity), advanced implicitly.
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::core {
class StateArchive;
}

namespace racktwin::thermal::cooling {

struct RoomAir {
  core::RoomSpec spec;
  double T = 0.0, T_old = 0.0;  // K
  double Q_crah = 0.0;          // W removed by the CRAH units in the last step
  double crah_P_fan = 0.0;      // W

  void initialise() { T = spec.T_supply_air; }
  /// One implicit step of length h with Q_room (W) into the room air.
  void advance(double Q_room, double h);
  void addStored(double& E) const { E += spec.heat_capacity * (T - core::kZeroCelsius_K); }
  void visitState(core::StateArchive& archive);
};

}  // namespace racktwin::thermal::cooling
