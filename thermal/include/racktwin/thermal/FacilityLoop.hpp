#pragma once
// FacilityLoop: the facility water (primary) loop between the CDUs and outdoor air.
//
// Network (core::FlowNetwork, solved by HydraulicSolver; the expansion tank is the pressure
// reference at the plant pumps' suction):
//   tank -> duty pumps in parallel -> heat rejection units (one link, `units` in parallel, each
//   at V/units) -> trim chiller evaporator (no link without a chiller) -> plant pipe -> supply
//   main: one tap per CDU in order, header segments between taps -> per CDU: control valve in
//   series with the exchanger's primary side -> return main taps (direct return: the return
//   main flows back toward the plant) -> plant pipe -> tank.
// The pumps sit upstream of the rejection so that their hydraulic power, which enters the water
// as heat, is rejected before the plant outlet where the supply set-point is held, and so that
// the tank sits at their suction, the usual place for the point of no pressure change.
//
// Controls, sampled every sub-step (at most kControlStep seconds, so 300 s steps behave like
// short ones): each CDU valve's actuator strokes toward its command (strokeValve) unless stuck;
// the plant pump speed is a PI on dp_set across the most remote (last) CDU's branch (valve and
// exchanger, supply tap to return tap), with anti-windup and clamped to [pump_speed_min, 1]
// (dp_set <= 0: the pumps run at PumpSpec::speed), reading between solves the last solved dp
// scaled by (speed / solved speed)^2 (affinity laws) so that the solve threshold below is no dead
// band for it to cycle in. The hydraulics are solved again when an opening or the speed has moved
// by more than kResolveThreshold since the last solve, when the pumps running change, and when the
// loop's mean temperature has moved more than 2 K (the viscosity follows it; density and heat
// capacity stay at the set-point values so stored heat is exact). A re-solve that keeps the
// pattern of flowing links reuses the sweep order and allocates nothing.
//
// Heat: the transport is implicit upwind (cells in pipes, PipeSpec::cells; one cell per
// component), solved exactly in O(cells) by an affine sweep in flow order and the loop closure at
// the tank (as the secondary loops in CoolingModel); monotone at any step. Each CDU's heat enters
// the cell of its exchanger. The rejection is a conductance G to the ambient (dry bulb for dry
// coolers, wet bulb for towers) on its inlet temperature, fixed for the sub-step: the fan speed is
// chosen from the previous sub-step's inlet temperature and flow so that the leaving water meets
// the set-point (full speed when it cannot). The trim chiller then removes what is left above the
// set-point, up to its capacity: its removal, clamp(C_w (T_in - T_set), 0, capacity), is
// piecewise linear and monotone in its inlet temperature, and the sweep is repeated (at most
// three more times) until the branch used agrees with the solution, so the chiller never cools
// below the set-point nor exceeds its capacity. Energy: stored change = sum Q_cdu h + pump heat -
// rejected - chiller heat, to round-off.
//
// Weather: the ambient dry and wet bulb follow core::AmbientSpec's series, interpolated linearly
// at the end of each sub-step and repeated with its period (a weather year); the interval is kept
// from the last sub-step, so reading the weather costs O(1) per sub-step, not a search.
//
// Plant hours (the weather year's figures, at sub-step resolution), with the supply counted as
// held up to kSetpointHeld_K above its set-point (the dead band of the plant's controls):
//  - free-cooling (economiser) time: the water leaving the heat rejection is held, so the heat
//    rejection alone holds the supply. The model's chiller also trims an excess within the dead
//    band (its small energy is in the chiller energy), which a plant's controls would not start a
//    chiller for: that time counts as free cooling;
//  - chiller time: the water leaving the heat rejection is above the dead band and the chiller
//    removes heat; with a chiller the two add up to the run time;
//  - time above the set-point: the plant's supply is above the dead band (no chiller, or the
//    chiller at its capacity).
#include <cstddef>
#include <memory>
#include <span>

#include "racktwin/core/FlowNetwork.hpp"
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::core {
class StateArchive;
class Summary;
}  // namespace racktwin::core

namespace racktwin::thermal {

class HydraulicSolver;

class FacilityLoop {
 public:
  /// Longest control sub-step, s.
  static constexpr double kControlStep = 2.0;
  /// A valve opening or the pump speed (fractions) moving by more than this since the last
  /// hydraulic solve triggers a new solve: flows then lag by at most ~0.4 % (an equal-percentage
  /// valve of rangeability 50 changes its flow by ln(50) x 1e-3), dp by ~0.2 %.
  static constexpr double kResolveThreshold = 1e-3;
  /// The supply counts as held while it is at most this far above its set-point, K: the dead band
  /// of a plant's supply-temperature control (an engineering estimate; controls hold the supply
  /// within some tenths of a kelvin).
  static constexpr double kSetpointHeld_K = 0.5;

  /// Throws std::invalid_argument when the loop is not present, has no CDU, or a spec is out of
  /// range (a CDU without a facility valve flow coefficient or exchanger pressure-drop law, pumps,
  /// pipes, rejection or chiller data that cannot work, an ambient series that is not increasing).
  FacilityLoop(const core::FacilityWaterSpec& facility, std::span<const core::CduSpec> cdus,
               const core::AmbientSpec& ambient);
  ~FacilityLoop();
  FacilityLoop(FacilityLoop&&) noexcept;
  FacilityLoop& operator=(FacilityLoop&&) noexcept;

  /// All water at T_initial (K), valves at `valve_opening` (commands too), duty pumps running;
  /// the pump speed starts where the dp PI would settle for these openings (bisection on solves),
  /// so the run starts without a pump transient. Run totals restart.
  void initialize(double T_initial, double valve_opening = 0.5);

  /// Valve command 0..1 from the CDU's PI (clamped); the actuator strokes toward it in advance().
  /// Throws std::invalid_argument for a command that is not a finite number.
  void setValveCommand(std::size_t cdu, double command);

  /// Advances h seconds ending at t with Q_cdu[i] W from each CDU exchanger into its branch
  /// (one value per CDU, held over the step). Throws std::invalid_argument for a heat flow that is
  /// not finite, core::RuntimeError when a hydraulic solve fails.
  void advance(double t, double h, std::span<const double> Q_cdu);

  // ---- Faults and events (take effect at once; the hydraulics are solved again). ----
  /// One duty pump trips for good; a healthy standby starts standby_switchover_time after it.
  void tripPump();
  void setSupplySetpoint(double T);  // K, at the plant outlet
  /// Fraction of the rejection units whose fans can run, [0, 1].
  void setFanAvailability(double fraction);
  /// A stuck valve holds its position whatever its command.
  void setValveStuck(std::size_t cdu, bool stuck);

  // ---- Per CDU, now. ----
  std::size_t cduCount() const noexcept;
  double cduFlow(std::size_t cdu) const;               // m3/s through the exchanger (+: forward)
  double cduCapacityRate(std::size_t cdu) const;       // W/K = rho cp |V|
  double cduSupplyTemperature(std::size_t cdu) const;  // K entering the exchanger
  double cduReturnTemperature(std::size_t cdu) const;  // K, the exchanger's cell (its outflow)
  double valveOpening(std::size_t cdu) const;
  double valveCommand(std::size_t cdu) const;

  // ---- Plant, now (of the last sub-step). ----
  double supplyTemperature() const;  // K at the plant outlet (after the chiller)
  double returnTemperature() const;  // K at the tank (pump suction)
  double supplySetpoint() const;     // K
  double plantFlow() const;          // m3/s through the pumps
  double pumpSpeed() const;          // fraction
  int pumpsRunning() const;
  double pumpHead() const;                    // Pa, rise across the pumps
  double pumpHydraulicPower() const;          // W, rise x flow: enters the water as heat
  double pumpElectricPower() const;           // W
  double remoteDifferentialPressure() const;  // Pa, supply tap - return tap of the last CDU
  double fanSpeed() const;                    // fraction (below the minimum: cycling fraction)
  double fanPower() const;                    // W
  double heatRejected() const;                // W, by the rejection units
  double rejectionConductance() const;        // W/K, G of the last sub-step
  double chillerHeat() const;                 // W removed from the water by the chiller
  double chillerElectricPower() const;        // W
  double chillerCondenserHeat() const;        // W to ambient air: heat + electric power
  double chillerCOP() const;
  double waterUseRate() const;    // m3/s make-up water (towers)
  double ambientDryBulb() const;  // K at the end of the last sub-step
  double ambientWetBulb() const;  // K

  // ---- Run totals since initialize (J, m3). ----
  double heatInput() const;       // sum Q_cdu h
  double pumpHeat() const;        // hydraulic power into the water
  double energyRejected() const;  // by the rejection units
  double chillerEnergy() const;   // heat removed by the chiller
  double pumpElectricEnergy() const;
  double fanEnergy() const;
  double chillerElectricEnergy() const;
  double waterUsed() const;     // m3
  double storedEnergy() const;  // J in the water, relative to 0 degC
  /// stored change - (heat input + pump heat - rejected - chiller heat), J.
  double energyBalanceResidual() const;

  // ---- Plant hours since initialize (s; see the file comment). ----
  double chillerTime() const;
  double freeCoolingTime() const;
  double aboveSetpointTime() const;
  /// Adds the plant hours of a site's loops to a run's summary (chiller, free-cooling and
  /// above-set-point time): with several loops, their sum (loop hours).
  static void summarise(std::span<const std::unique_ptr<FacilityLoop>> loops,
                        core::Summary& summary);

  // ---- Diagnostics. ----
  int hydraulicSolves() const;  // since construction
  int orderBuilds() const;      // sweep-order rebuilds (flow pattern changes) since construction
  /// Largest junction imbalance over every solve since construction, relative to the plant flow.
  double largestRelativeImbalance() const;
  double minTemperature() const;  // K over every cell now
  double maxTemperature() const;  // K over every cell now
  const core::FlowNetwork& network() const;
  const HydraulicSolver& hydraulics() const;
  /// Saves or restores the loop's run state (after initialize()) for a checkpoint.
  void visitState(core::StateArchive& archive);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace racktwin::thermal
