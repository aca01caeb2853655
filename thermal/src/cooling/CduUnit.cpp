#include "cooling/CduUnit.hpp"

#include <algorithm>
#include <cmath>

#include "racktwin/core/StateArchive.hpp"
#include "racktwin/thermal/CrossFlowCoil.hpp"
#include "racktwin/thermal/FacilityLoop.hpp"

namespace racktwin::thermal::cooling {
namespace {

/// A PI with gain Kp and integral time Ti (<= 0: none) solved for the end of a step of h
/// (backward Euler) on a plant whose error moves by `gain` per unit of output from u0:
/// e(u) = e0 + gain (u - u0), u = Kp e(u) + I, dI/dt = Kp / Ti e. The output is clamped to
/// [low, 1]; `integral` goes on, back-calculated where a clamp holds the output (anti-windup).
double solvePiForStepEnd(double Kp, double Ti, double h, double e0, double gain, double u0,
                         double low, double& integral) {
  const double a = Ti > 0.0 ? Kp * (1.0 + h / Ti) : Kp;
  double u = (a * (e0 - gain * u0) + integral) / (1.0 - a * gain);
  const double e1 = e0 + gain * (std::clamp(u, low, 1.0) - u0);
  if (u > 1.0 || u < low) {
    u = std::clamp(u, low, 1.0);
    integral = u - Kp * e1;
  } else if (Ti > 0.0) {
    integral += Kp / Ti * e1 * h;
  }
  return u;
}

}  // namespace

void CduUnit::configure(const core::SiteSpec& site, const CoolantProperties& coolant,
                        double T_facility) {
  const core::CduSpec& spec = *cdu;
  T_supply_set = spec.T_supply_set;
  pump_speed = spec.pump.speed;
  pump_drive.tau = CriticallyDampedFilter::timeConstant(spec.pump_rise_time);
  pumps_running = spec.pumps_duty;
  pumps_healthy = spec.pumps_installed;
  T_facility_supply = T_facility;
  if (spec.rejection == core::CduSpec::Rejection::RoomAir) {
    // The loader has checked that the coil can be rated with this coolant.
    air_coil = findCoolantComponentKind("air-coil");
    air_coil_p = ComponentParameters{spec.air_coil, spec.air_coil_dp};
    air_coil->prepare(air_coil_p, coolant.rho * coolant.cp);
    return;
  }
  const CoolantProperties water = Coolant::water().at(T_facility);
  facility_C_nominal = spec.facility_V_flow_nominal * water.rho * water.cp;
  if (!site.facility.modelled() && spec.facility_valve.A_v > 0.0) {
    facility_branch.emplace(spec.facility_valve, spec.hx_facility_dp, spec.facility_V_flow_nominal,
                            spec.facility_dp_boundary, FluidState{water.rho, water.mu});
  }
  const double C_secondary_nominal = spec.secondary_V_flow_nominal * coolant.rho * coolant.cp;
  hx = CounterFlowHeatExchanger::fromRating(spec.Q_flow_nominal, C_secondary_nominal,
                                            facility_C_nominal, spec.approach_nominal);
}

void CduUnit::initialise(double T0) {
  T_supply = T0;
  T_return = T0;
  valve_opening = 0.5;
  valve_integral = 0.5;
  valve_command = 0.5;
  pump_integral = pump_speed;  // the dp PI starts from the data's speed
  pump_command = pump_speed;   // the drive at rest at that speed
  pump_drive.reset(pump_speed);
}

void CduUnit::setPumpLaw(LinkLaw& pump) const {
  pump.pump.speed = pumps_running > 0 ? pump_speed : 0.0;
  pump.pumps_parallel = std::max(pumps_running, 1);
  // A CDU's pumps discharge through check valves: a stopped CDU on a ring, where the other
  // CDUs' pumps could drive flow backwards through it, passes none.
  pump.status = pumps_running > 0 ? LinkStatus::Open : LinkStatus::Closed;
}

void CduUnit::takeSolve(double dp_pump, double V_pump, HeatCoupling& pump) {
  // The hydraulic power enters the coolant as heat; the motor loss goes to room air.
  pump_dp = dp_pump;
  pump_P_hydraulic = std::max(0.0, pump_dp * V_pump);
  pump_P_electric = pump_P_hydraulic / cdu->pump.efficiency;
  V_secondary = V_pump;
  pump.q = pump_P_hydraulic;
}

bool CduUnit::startPendingStandby(double t) {
  if (pending_switches > 0 && t >= switch_time - 1e-9 * std::max(1.0, switch_time)) {
    pumps_running += pending_switches;
    pending_switches = 0;
    switch_time = kNever;
    return true;
  }
  return false;
}

void CduUnit::controlValve(double dt, FacilityLoops plants) {
  FacilityLoop* facility = plantOf(plants);
  const core::CduSpec& spec = *cdu;
  if (valve_stuck) return;
  // PI on the secondary supply temperature (measured at the end of the last step): too warm ->
  // open. Anti-windup: the integral does not grow while the output is saturated that way.
  const double error = T_supply - T_supply_set;
  const double proportional = spec.valve_gain * error;
  const double integral_rate = spec.valve_gain / spec.valve_integral_time * error;
  double wanted = proportional + valve_integral + integral_rate * dt;
  const bool saturated_high = wanted > 1.0 && error > 0.0;
  const bool saturated_low = wanted < spec.valve_opening_min && error < 0.0;
  if (!saturated_high && !saturated_low) valve_integral += integral_rate * dt;
  wanted = std::clamp(proportional + valve_integral, spec.valve_opening_min, 1.0);
  commandValve(wanted, dt, facility);
}

void CduUnit::commandValve(double command, double dt, FacilityLoop* facility) {
  valve_command = command;
  if (facility != nullptr && facility_index >= 0) {
    // The facility unit's valve actuator strokes toward the command (its own stroke time).
    const auto u = static_cast<std::size_t>(facility_index);
    facility->setValveCommand(u, command);
    valve_opening = facility->valveOpening(u);
    return;
  }
  // The actuator moves at most dt / stroke_time per step.
  const core::CduSpec& spec = *cdu;
  const double max_move = spec.valve_stroke_time > 0.0 ? dt / spec.valve_stroke_time : 1.0;
  valve_opening += std::clamp(command - valve_opening, -max_move, max_move);
}

double CduUnit::supplyGain(double C_coolant) const {
  // Steady state: the exchanger rejects the loop's heat Q, so T_supply = T_facility +
  // Q (1/G - 1/C_coolant) and dT_supply/du = -Q G'(u) / G^2. The facility flow's sensitivity to
  // the opening is the valve's inherent characteristic (equal-percentage: ln R per unit opening),
  // an upper bound of the installed one, so the gain errs large and the solve errs slow.
  constexpr double du = 1e-2;
  const double Q = std::max(Q_hx, 0.0);
  if (!(Q > 0.0) || !(C_coolant > 0.0)) return 0.0;
  double G0 = G_hx, G1 = G_hx;
  if (air_coil != nullptr) {
    const double u = std::clamp(valve_opening, 0.0, 1.0 - du);
    G0 = air_coil->conductance(air_coil_p, C_coolant,
                               air_coil->airFlow(air_coil_p, u) * kAirCapacityPerFlow);
    G1 = air_coil->conductance(air_coil_p, C_coolant,
                               air_coil->airFlow(air_coil_p, u + du) * kAirCapacityPerFlow);
  } else {
    const core::ControlValveSpec& valve = cdu->facility_valve;
    const bool equal_percentage =
        valve.A_v > 0.0
        && valve.characteristic == core::ControlValveSpec::Characteristic::EqualPercentage;
    const double u = std::max(valve_opening, 1e-3);
    const double ratio = equal_percentage ? std::pow(valve.rangeability, du) : (u + du) / u;
    G1 = hx->conductance(C_coolant, C_facility * ratio);
  }
  if (!(G0 > 0.0) || !(G1 > 0.0)) return 0.0;
  return -Q * (1.0 / G0 - 1.0 / G1) / du;
}

void CduUnit::controlValveQuasiSteady(double h, FacilityLoops plants, double C_coolant) {
  FacilityLoop* facility = plantOf(plants);
  const core::CduSpec& spec = *cdu;
  if (valve_stuck) return;
  const double K = std::min(supplyGain(C_coolant), 0.0);
  // The error measured answers the opening of the last sweep; the opening commanded since moves
  // it by K per unit (the actuator reaches a command within a long cycle).
  const double u0 = valve_command;
  const double e0 = T_supply - T_supply_set + K * (u0 - valve_opening_swept);
  commandValve(solvePiForStepEnd(spec.valve_gain, spec.valve_integral_time, h, e0, K, u0,
                                 spec.valve_opening_min, valve_integral),
               h, facility);
}

bool CduUnit::controlPumpQuasiSteady(double h, double rack_dp_min) {
  const core::CduSpec& spec = *cdu;
  if (pumps_running == 0) return false;
  if (spec.pump_dp_set > 0.0) {
    // dp = dp_solved (s / s_solved)^2 at speed s: the error e = dp_set - dp falls by
    // K = 2 dp0 / s0 per unit of speed (more speed, more dp).
    const double s0 = std::max(pump_speed, 1e-9);
    const double ratio = s0 / std::max(pump_speed_solved, 1e-9);
    const double dp0 = rack_dp_min * ratio * ratio;
    const double K = std::max(2.0 * dp0 / s0, 0.0);
    pump_command =
        solvePiForStepEnd(spec.pump_dp_gain, spec.pump_dp_integral_time, h, spec.pump_dp_set - dp0,
                          -K, s0, spec.pump_speed_min, pump_integral);
  }
  return followDrive(h);
}

bool CduUnit::controlPump(double dt, double rack_dp_min) {
  const core::CduSpec& spec = *cdu;
  if (pumps_running == 0) return false;
  if (spec.pump_dp_set > 0.0) {
    // The dp now, from the last solve by the affinity laws (dp ~ speed^2 on a fixed system) at
    // the drive's actual speed, so the re-solve threshold below is no dead band for the
    // controller to cycle in, and the drive's lag is inside the loop the PI closes.
    const double ratio = pump_speed / std::max(pump_speed_solved, 1e-9);
    const double dp = rack_dp_min * ratio * ratio;
    const double error = spec.pump_dp_set - dp;  // too little dp: speed up
    const double proportional = spec.pump_dp_gain * error;
    const double integral_rate = spec.pump_dp_gain / spec.pump_dp_integral_time * error;
    const double wanted = proportional + pump_integral + integral_rate * dt;
    // Anti-windup: the integral does not grow while the command is saturated that way.
    const bool saturated =
        (wanted > 1.0 && error > 0.0) || (wanted < spec.pump_speed_min && error < 0.0);
    if (!saturated) pump_integral += integral_rate * dt;
    pump_command = std::clamp(proportional + pump_integral, spec.pump_speed_min, 1.0);
  }
  return followDrive(dt);
}

bool CduUnit::followDrive(double dt) {
  // The drive follows the command with its rise time; a settled drive does not move.
  if (pump_speed != pump_command || pump_drive.stage != pump_command)
    pump_speed = pump_drive.advance(pump_command, dt);
  // Solve again once the speed has moved a tenth of a percent: dp then lags by at most ~0.2 %.
  return std::abs(pump_speed - pump_speed_solved) > 1e-3;
}

void CduUnit::prepareExchanger(FacilityLoops plants, double C_coolant, double T_room,
                               HeatCoupling& exchanger) {
  FacilityLoop* facility = plantOf(plants);
  if (air_coil != nullptr) {
    // The fans run at the PI's output; the coil draws room air.
    C_air = air_coil->airFlow(air_coil_p, valve_opening) * kAirCapacityPerFlow;
    fan_P = air_coil->fanPower(air_coil_p, valve_opening);
    G_hx = air_coil->conductance(air_coil_p, C_coolant, C_air);
    exchanger.G = G_hx;
    exchanger.T_other = T_room;
    T_facility_supply = T_room;
    valve_opening_swept = valve_opening;
    return;
  }
  if (facility != nullptr && facility_index >= 0) {
    const auto u = static_cast<std::size_t>(facility_index);
    C_facility = facility->cduCapacityRate(u);
    T_facility_supply = facility->cduSupplyTemperature(u);
  } else if (facility_branch) {
    V_facility = facility_branch->flow(valve_opening);
    C_facility = V_facility * (facility_C_nominal / cdu->facility_V_flow_nominal);
  } else {
    V_facility = valve_opening * cdu->facility_V_flow_nominal;
    C_facility = valve_opening * facility_C_nominal;
  }
  G_hx = hx->conductance(C_coolant, C_facility);
  valve_opening_swept = facility != nullptr && facility_index >= 0
                            ? facility->valveOpening(static_cast<std::size_t>(facility_index))
                            : valve_opening;
  exchanger.G = G_hx;
  exchanger.T_other = T_facility_supply;
}

void CduUnit::takeSweep(const HeatCoupling& exchanger, double T_supply_now, double T_return_now,
                        FacilityLoops plants) {
  FacilityLoop* facility = plantOf(plants);
  Q_hx = exchanger.Q_out;
  T_supply = T_supply_now;
  T_return = T_return_now;
  if (air_coil != nullptr) {
    // The "facility" side of an air coil is its air: the temperature leaving the coil.
    T_facility_return = C_air > 0.0 ? T_facility_supply + Q_hx / C_air : T_facility_supply;
    return;
  }
  if (facility != nullptr && facility_index >= 0)
    V_facility = facility->cduFlow(static_cast<std::size_t>(facility_index));
  T_facility_return = C_facility > 0.0 ? T_facility_supply + Q_hx / C_facility : T_facility_supply;
}

bool CduUnit::tripPump(double now) {
  if (pumps_running == 0) return false;
  // A duty pump trips for good. A healthy pump that is not running (a standby) starts after the
  // switch-over time; meanwhile the CDU runs on the remaining duty pumps.
  --pumps_running;
  --pumps_healthy;
  const int standby = pumps_healthy - pumps_running - pending_switches;
  if (standby > 0) {
    if (pending_switches == 0) switch_time = now + cdu->standby_switchover_time;
    ++pending_switches;
  }
  return true;
}

void CduUnit::lose() {
  pumps_running = pumps_healthy = pending_switches = 0;
  switch_time = kNever;
}

bool CduUnit::commandPumpSpeed(double speed) {
  // The drive ramps to the new speed with its rise time (at once without one).
  pump_command = speed;
  pump_integral = speed;  // a dp PI goes on from the new speed
  if (pump_drive.tau > 0.0) return false;
  pump_speed = speed;
  pump_drive.reset(speed);
  return true;
}

void CduUnit::visitState(core::StateArchive& b) {
  b(pump_speed, pumps_running, pumps_healthy, pending_switches, switch_time, valve_opening,
    valve_integral, pump_integral, pump_speed_solved, pump_command, pump_drive.tau,
    pump_drive.stage, pump_drive.output, valve_stuck, T_facility_supply, T_supply_set,
    facility_C_nominal, C_facility, G_hx, C_air, fan_P);
  b(Q_hx, T_supply, T_return, V_secondary, V_facility, T_facility_return, pump_dp, pump_P_hydraulic,
    pump_P_electric);
  supply_watch.visit(b);
  b(valve_command, valve_opening_swept);
}

}  // namespace racktwin::thermal::cooling
