#pragma once
// A CDU and its controllers: the secondary pumps (duty and standby, the drive's lag, the speed PI
// on the least favoured rack's dp), the exchanger to facility water (counter-flow eps-NTU) and
// the facility-side valve with its PI on the secondary supply temperature. The unit owns its
// control state; its pump and exchanger are links of a coolant loop (CoolantLoop), through which
// it puts heat into the coolant (the pump's hydraulic power, a HeatSource coupling) and takes it
// out (the exchanger, an Exchanger coupling).
#include <cstddef>
#include <memory>
#include <optional>
#include <span>

#include "cooling/Common.hpp"
#include "cooling/HuntingWatch.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/thermal/ActuatorFilter.hpp"
#include "racktwin/thermal/Coolant.hpp"
#include "racktwin/thermal/FacilityValveBranch.hpp"
#include "racktwin/thermal/HeatExchanger.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::core {
class StateArchive;
}

namespace racktwin::thermal {
class FacilityLoop;
}

namespace racktwin::thermal::cooling {

/// The site's facility loops (CoolingModel::Impl::facilities): a unit works with its own,
/// CduUnit::facility_loop.
using FacilityLoops = std::span<const std::unique_ptr<FacilityLoop>>;

struct CduUnit {
  const core::CduSpec* cdu = nullptr;
  std::uint32_t loop = 0;
  std::uint32_t tear = 0;  // index of its suction node among the loop's tears
  Index suction = 0, supply = 0, pump_link = 0, hx_link = 0;
  std::optional<Index> strainer_link;
  std::uint32_t pump_coupling = 0, hx_coupling = 0;  // its slots in the model's HeatCouplings
  std::optional<CounterFlowHeatExchanger> hx;        // set once the fluid is known
  /// Its facility loop (among FacilityLoops) and its index among that loop's CDUs; -1 when it is
  /// not on a facility loop (facility water is a boundary, or it rejects to room air).
  std::int32_t facility_loop = -1, facility_index = -1;
  /// A liquid-to-air CDU (CduSpec::Rejection::RoomAir): its air coil's kind and prepared
  /// parameters; the valve PI's output is the fan speed. nullptr for a liquid-to-liquid CDU.
  const CoolantComponentKind* air_coil = nullptr;
  ComponentParameters air_coil_p;
  double C_air = 0.0, fan_P = 0.0;  // the coil's air side in the step
  double pump_speed = 0.0;
  // Pumps: `pumps_running` duty pumps run in parallel; after a trip with a healthy standby, the
  // standby starts at `switch_time` (pending_switches of them).
  int pumps_running = 0, pumps_healthy = 0, pending_switches = 0;
  double switch_time = kNever;
  double valve_opening = 1.0, valve_integral = 0.0;
  // Pump speed PI on the least favoured rack's dp (CduSpec::pump_dp_set > 0): the integral,
  // and the speed of the last hydraulic solve.
  double pump_integral = 0.0, pump_speed_solved = 0.0;
  // The drive: pump_speed is the filter's output, following pump_command (the PI's output or
  // the data's / an event's speed) with the CDU's rise time.
  double pump_command = 0.0;
  CriticallyDampedFilter pump_drive;
  double valve_command = 0.5;  // the valve PI's last output
  bool valve_stuck = false;    // a stuck valve holds its opening
  /// The secondary supply about its set-point, for a valve PI that hunts at the control step.
  HuntingWatch supply_watch;
  double T_facility_supply = 0.0;
  double T_supply_set = 0.0;        // K, may change by event
  double facility_C_nominal = 0.0;  // W/K at a fully open valve
  // Facility water as a boundary, with valve data: the valve and exchanger primary side in
  // series across the boundary's dp set the flow. Without valve data the flow is nominal x
  // opening.
  std::optional<FacilityValveBranch> facility_branch;
  // Facility side of the exchanger during the step being swept, and the valve opening it
  // follows from (the supply measured after the sweep answers that opening).
  double C_facility = 0.0, G_hx = 0.0, valve_opening_swept = 0.0;
  // Outputs of the last step.
  double Q_hx = 0.0, T_supply = 0.0, T_return = 0.0, V_secondary = 0.0, V_facility = 0.0,
         T_facility_return = 0.0, pump_dp = 0.0, pump_P_hydraulic = 0.0, pump_P_electric = 0.0;

  /// The exchanger rating, pumps and valve branch for the loop's coolant (`coolant` at the
  /// set-point) and facility water at `T_facility` (its facility loop's or the site's supply).
  void configure(const core::SiteSpec& site, const CoolantProperties& coolant, double T_facility);
  /// Its facility loop, or nullptr.
  FacilityLoop* plantOf(FacilityLoops facility) const {
    return facility_loop >= 0 ? facility[static_cast<std::size_t>(facility_loop)].get() : nullptr;
  }
  /// At rest at T0 (initialize): valve half open, the PIs and the drive at the data's speed.
  void initialise(double T0);

  /// The pump link's law for the next solve: the running pumps in parallel at the speed.
  void setPumpLaw(LinkLaw& pump) const;
  /// After a solve: the pumps' head, hydraulic and electrical power, the secondary flow.
  void takeSolve(double dp_pump, double V_pump, HeatCoupling& pump);
  /// A standby whose switch-over time has come starts; true when pumps started.
  bool startPendingStandby(double t);

  bool rejectsToAir() const noexcept { return air_coil != nullptr; }
  /// PI on the secondary supply temperature; the actuator strokes toward the command (the
  /// facility loop's actuator when the CDU is on one; the fans of an air coil).
  void controlValve(double dt, FacilityLoops facility);
  /// The valve PI over a quasi-steady cycle of h seconds (a fast-forward step): solved with the
  /// error at the cycle's end, from the steady-state gain of the supply on the opening
  /// (supplyGain), so it is stable at any h. `C_coolant` is the exchanger link's capacity rate.
  void controlValveQuasiSteady(double h, FacilityLoops facility, double C_coolant);
  /// K per unit opening: the steady-state change of the secondary supply temperature with the
  /// valve opening at the present heat, flows and opening (negative: opening cools).
  double supplyGain(double C_coolant) const;
  /// The dp PI and the drive; true when the speed has moved enough to solve again.
  bool controlPump(double dt, double rack_dp_min);
  /// The valve PI's output as the command: the facility loop's actuator takes it, or the
  /// unit's own strokes toward it over dt.
  void commandValve(double command, double dt, FacilityLoop* facility);
  /// The drive over dt toward pump_command; true when the speed has moved enough to solve again.
  bool followDrive(double dt);
  /// controlPump over a quasi-steady cycle of h seconds: the dp PI solved with the error at the
  /// cycle's end, dp following the speed squared from the last solve (stable at any h).
  bool controlPumpQuasiSteady(double h, double rack_dp_min);
  /// The other side of the exchanger for the coming sweep and its coupling: from the facility
  /// loop's last state, or the boundary (the valve branch's flow at the opening; nominal x
  /// opening without valve data), or for an air coil the room air at T_room through its fans.
  /// `C_coolant` is the exchanger link's capacity rate.
  void prepareExchanger(FacilityLoops facility, double C_coolant, double T_room,
                        HeatCoupling& exchanger);
  /// After the sweep: the exchanger's heat and the temperatures around the unit.
  void takeSweep(const HeatCoupling& exchanger, double T_supply_now, double T_return_now,
                 FacilityLoops facility);

  /// A duty pump trips for good at `now`; true when the hydraulics must be solved again.
  bool tripPump(double now);
  /// The whole CDU is lost: no pumps from now on.
  void lose();
  /// A set_pump_speed event; true when the speed changes at once (no drive lag).
  bool commandPumpSpeed(double speed);

  void visitState(core::StateArchive& archive);
};

}  // namespace racktwin::thermal::cooling
