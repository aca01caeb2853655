#pragma once
// The air side's plant: the heat the CRAH units take from the room goes into chilled water, which
// a water-side economiser (a plate exchanger from cooling-tower water) and staged electric
// chillers cool back to its supply temperature; a cooling tower rejects the heat and the chillers'
// work outdoors. Quasi-steady each thermal cycle (the chilled-water loop's own storage is left
// out: minutes against the hours this plant is studied over):
//  - chilled-water flow at the design rise, V = Q / (rho cp dT); pump power V dp / eta;
//  - tower water at T_wb + approach; the economiser carries the share of the load that cools the
//    return water down to tower water + its approach, f = (T_return - T_econ) / dT in [0, 1];
//  - the chillers carry the rest, staged so that each runs at PLR = Q / (n Q_nominal) <= 1;
//    full-load COP follows the lift from a reference point, COP = COP_ref (T_e / (T_c - T_e)) /
//    (T_e,ref / (T_c,ref - T_e,ref)) (a constant fraction of Carnot, capped), and the power at part
//    load follows EnergyPlus's electric EIR chiller: P = n Q_nominal EIR(PLR) / COP, with
//    EIR(PLR) = a + b PLR + c PLR^2 from the data (the DOE-2 centrifugal reference chiller);
//  - the tower rejects the load, the chillers' work and the pump's heat; its fans and the
//    condenser-water pumps draw a fraction of that; it evaporates Q / h_fg of water plus
//    blow-down.
// Load the chillers cannot carry is counted (unmet time), not hidden.
#include <cstdint>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/thermal/AmbientConditions.hpp"

namespace racktwin::core {
class Recorder;
class StateArchive;
class Summary;
}  // namespace racktwin::core

namespace racktwin::thermal {

class ChilledWaterPlant {
 public:
  ChilledWaterPlant(const core::AirPlantSpec& spec, const core::AmbientSpec& ambient);

  /// Carries Q (W, >= 0) from the CRAH coils over the cycle of length h ending at t.
  void advance(double t, double h, double Q);
  /// W of electricity in the last cycle (chillers, pumps, tower fans).
  double electricPower() const noexcept { return P_electric_; }

  /// Full-load COP of one chiller at leaving chilled water T_e and entering condenser water T_c
  /// (K); the reference COP at the reference temperatures.
  double fullLoadCop(double T_e, double T_c) const;
  /// EIR(PLR) / EIR(1): the part-load curve.
  double partLoadFactor(double PLR) const;

  void declareChannels(core::Recorder& recorder);
  /// The values recorded as interval means (the owner averages them over a step of several
  /// cycles).
  void meanViews(std::vector<double*>& out) {
    for (double* v : {&Q_, &Q_economiser_, &P_chillers_, &P_chw_pump_, &P_tower_fans_, &P_cw_pumps_,
                      &P_electric_, &water_rate_})
      out.push_back(v);
  }
  void summarise(core::Summary& summary) const;
  void visitState(core::StateArchive& archive);

  double electricEnergy() const noexcept { return E_electric_; }  // J
  double waterUsed() const noexcept { return water_m3_; }         // m3
  // The last cycle, W (m3/s for water).
  double economiserHeat() const noexcept { return Q_economiser_; }
  double chillerHeat() const noexcept { return Q_chillers_; }
  double chillerPower() const noexcept { return P_chillers_; }
  double chilledWaterPumpPower() const noexcept { return P_chw_pump_; }
  double heatRejected() const noexcept { return Q_rejected_; }
  double chillersRunning() const noexcept { return chillers_running_; }
  double waterRate() const noexcept { return water_rate_; }
  double unmetTime() const noexcept { return t_unmet_; }  // s

 private:
  core::AirPlantSpec spec_;
  AmbientConditions outdoor_;
  // The last cycle (recorder views).
  double Q_ = 0.0, Q_economiser_ = 0.0, Q_chillers_ = 0.0, Q_rejected_ = 0.0;
  double P_chillers_ = 0.0, P_chw_pump_ = 0.0, P_tower_fans_ = 0.0, P_cw_pumps_ = 0.0;
  double P_electric_ = 0.0, COP_ = 0.0, chillers_running_ = 0.0, water_rate_ = 0.0;
  double T_wet_bulb_ = 0.0;
  // Run totals.
  double E_electric_ = 0.0, E_chillers_ = 0.0, E_economiser_ = 0.0, E_load_ = 0.0;
  double t_chillers_ = 0.0, t_free_ = 0.0, t_unmet_ = 0.0, water_m3_ = 0.0;
};

}  // namespace racktwin::thermal
