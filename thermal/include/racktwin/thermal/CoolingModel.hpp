#pragma once
// CoolingModel: the liquid and air cooling of the site as one slow (macro-step) model.
//
// Per CDU, one secondary loop (or one loop shared by the CDUs of a secondary ring, below):
// expansion tank (pressure reference, pump suction) -> pump -> plate heat exchanger (hot side) ->
// optional strainer -> supply hose -> rack supply manifold -> per tray: quick disconnect, cold
// plates in parallel, quick disconnect -> return manifold (direct return) -> return hose -> tank.
// The racks' hoses join the CDU directly (racks in parallel at the CDU) or tap row supply and
// return headers, with direct or reverse return (core::RowHeaderSpec); header segments carry heat
// like other pipes. Several CDUs may share a secondary ring (core::SecondaryRingSpec): supply and
// return ring mains through one tap per CDU or rack, the expansion tank at the first CDU's suction;
// each CDU pumps from its return tap through its exchanger into its supply tap.
//
// Flows come from the hydraulic solver, solved again when a pump changes and when the mean loop
// temperature (mean of supply and return) has moved more than 2 K since the last solve: the
// coolant's viscosity follows it (density and heat capacity stay at the set-point values).
//
// Pumps: the CDU's duty pumps run in parallel. A trip stops one for good; a standby pump, if the
// CDU has a healthy one, starts after the standby switch-over time (checked at the start of each
// step, so the switch happens at the first step that begins at or after it).
//
// Heat transport: every link is split into upwind volumes ("cells"), advanced with implicit Euler,
// which is unconditionally stable and free of overshoot at any step. Each chip is a case node with
// heat capacity on its cold plate; the plate passes (T_case - T_inlet)/R(V_flow) into its cell, so
// at steady state T_case = T_inlet + P R, the OCP definition of cold-plate resistance. The CDU
// hot side removes Q = eps C_min (T_in - T_facility) (counter-flow eps-NTU, UA ~ flow^0.8).
// The implicit system is solved exactly in O(cells x CDUs of the loop): a sweep in flow order
// expresses every temperature as an affine function of the CDU suction temperatures (every flow
// cycle passes a pump), and the closure at the suction nodes, a small diagonally dominant system,
// gives them. Energy is conserved to round-off; summarise() reports the balance.
//
// Room air: one lumped node heated by the air-cooled tray loads, PSU losses and pump motor losses,
// cooled by CRAH units (conductance to supply air, capped at capacity).
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "racktwin/core/Model.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"

namespace racktwin::thermal {

class FacilityLoop;

class CoolingModel : public core::Model {
 public:
  CoolingModel(const core::SiteSpec& site, const core::SiteLayout& layout);
  ~CoolingModel() override;

  std::string_view name() const override { return "cooling"; }
  /// Writes the GPUs' junctions, throttle, speed and shutdown and the server fans' power; reads
  /// the step's energies (chips, rack air, hall air) and each GPU's highest sub-step power.
  core::CouplingFields couplingFields() const override {
    using F = core::CouplingField;
    return core::CouplingFields::of(
        {F::GpuJunction, F::GpuThrottled, F::GpuSpeed, F::GpuShutdown, F::RackFanPower},
        {F::GpuEnergyStep, F::GpuPowerStepMax, F::CpuEnergyStep, F::SwitchEnergyStep,
         F::RackAirEnergyStep, F::HallAirEnergyStep});
  }
  void initialize(core::SiteState& state) override;
  void advance(double t, double dt, core::SiteState& state) override;
  bool applyEvent(const core::EventSpec& event, core::SiteState& state) override;
  void declareChannels(core::Recorder& recorder) override;
  void summarise(core::Summary& summary) const override;
  /// A CDU whose supply hunts about its set-point (cooling::HuntingWatch): one line each.
  void runWarnings(std::vector<std::string>& lines) const override;
  void visitState(core::StateArchive& archive, const core::SiteState& state) override;
  /// The coolant loops' sweeps and audits and the chips' junctions run on these threads.
  void useThreads(core::ThreadPool& pool) override;

  // Figures for tests and reports (SI).
  double storedEnergy() const;          // J, relative to 0 degC
  double heatInput() const;             // J since initialize
  double heatRejected() const;          // J since initialize
  double largestMassImbalance() const;  // m3/s, over every junction of every loop
  double cduSupplyTemperature(std::size_t cdu) const;
  double cduReturnTemperature(std::size_t cdu) const;     // K, at the pump suction
  double cduHeatFlow(std::size_t cdu) const;              // W, secondary to facility water
  double cduSecondaryFlow(std::size_t cdu) const;         // m3/s
  int cduPumpsRunning(std::size_t cdu) const;             // secondary pumps running now
  double cduHydraulicTemperature(std::size_t cdu) const;  // K, of the last solve's viscosity
  double cduPumpHydraulicPower(std::size_t cdu) const;    // W, rise x flow
  double cduPumpHead(std::size_t cdu) const;              // Pa, pressure rise across the pumps
  int hydraulicSolves() const;                            // since construction
  /// Size of the thermal network: coolant cells, chip (case) nodes and coolant loops.
  std::size_t coolantCells() const;
  std::size_t chipNodes() const;
  std::size_t coolantLoops() const;
  /// Coolant temperature at a network node by its id (e.g. "row1/rack01/supply_manifold/tap01"),
  /// K; nullopt for an unknown id. A linear search: for tests and viewers, not for step loops.
  std::optional<double> nodeTemperature(std::string_view node_id) const;
  /// Piezometric pressure at a node above its loop's expansion tank after the last hydraulic
  /// solve, Pa; and the flow through a link from its port a to its port b, m3/s. By id, nullopt
  /// for an unknown one; linear searches for tests and viewers.
  std::optional<double> nodePressure(std::string_view node_id) const;
  std::optional<double> linkFlow(std::string_view link_id) const;
  double maxGpuJunctionTemperature() const;   // K, over the run so far
  std::span<const double> trayFlows() const;  // m3/s per tray, trays of all racks in order
  std::span<const double> rackFlows() const;  // m3/s per rack (supply hose), site order
  std::span<const double> rackDifferentialPressures() const;  // Pa across each rack's manifolds
  double cduPumpSpeed(std::size_t cdu) const;                 // fraction of full speed
  double cduValveOpening(std::size_t cdu) const;              // facility valve, fraction
  double cduFacilityFlow(std::size_t cdu) const;              // m3/s of facility water
  /// Facility water as a boundary with valve data: the valve's authority at the nominal flow and
  /// the boundary's dp (Pa); nullopt otherwise (a facility loop, or flow = nominal x opening).
  std::optional<double> cduValveAuthority(std::size_t cdu) const;
  std::optional<double> cduFacilityBoundaryDp(std::size_t cdu) const;
  std::span<const double> gpuColdPlateFlows() const;  // m3/s per GPU, layout order
  /// The facility water loops the site models, in the scenario's order (for their plant hours);
  /// empty when facility water is a boundary.
  std::span<const std::unique_ptr<FacilityLoop>> facilityLoops() const noexcept;

  /// Validation of the single-CDU sweep: with `on`, every loop takes the general sweep (call
  /// before initialize). Both solve the same implicit step; results agree to round-off.
  void useGeneralSweepOnly(bool on);
  /// Validation of the energy audit: the single-CDU sweep puts (1 + relative) times the plates'
  /// heat into their coolant cells, the class of defect the audit exists to catch (call before
  /// initialize; 0 by default).
  void injectPlateHeatErrorForValidation(double relative);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace racktwin::thermal
