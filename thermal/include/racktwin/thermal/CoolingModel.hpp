#pragma once
// CoolingModel: the liquid and air cooling of the site as one slow (macro-step) model.
//
// Per CDU, one secondary loop: expansion tank (pressure reference, pump suction) -> pump -> plate
// heat exchanger (hot side) -> supply hose -> rack supply manifold -> per tray: quick disconnect,
// cold plates in parallel, quick disconnect -> return manifold (direct return) -> return hose ->
// tank. Flows come from the hydraulic solver (re-solved when a pump changes). The racks' hoses
// join the CDU directly (racks in parallel at the CDU) or tap row supply and return headers, with
// direct or reverse return (core::RowHeaderSpec); header segments carry heat like other pipes.
//
// Heat transport: every link is split into upwind volumes ("cells"), advanced with implicit Euler,
// which is unconditionally stable and free of overshoot at any step. Each chip is a case node with
// heat capacity on its cold plate; the plate passes (T_case - T_inlet)/R(V_flow) into its cell, so
// at steady state T_case = T_inlet + P R, the OCP definition of cold-plate resistance. The CDU
// hot side removes Q = eps C_min (T_in - T_facility) (counter-flow eps-NTU, UA ~ flow^0.8).
// The implicit system is solved exactly in O(cells): a sweep in flow order expresses every
// temperature as an affine function of the tank temperature, and the loop closure gives that one
// unknown. Energy is conserved to round-off; summarise() reports the balance.
//
// Room air: one lumped node heated by the air-cooled tray loads, PSU losses and pump motor losses,
// cooled by CRAH units (conductance to supply air, capped at capacity).
#include <memory>
#include <span>

#include "racktwin/core/Model.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"

namespace racktwin::thermal {

class CoolingModel : public core::Model {
 public:
  CoolingModel(const core::SiteSpec& site, const core::SiteLayout& layout);
  ~CoolingModel() override;

  std::string_view name() const override { return "cooling"; }
  void initialize(core::SiteState& state) override;
  void advance(double t, double dt, core::SiteState& state) override;
  bool applyEvent(const core::EventSpec& event, core::SiteState& state) override;
  void declareChannels(core::Recorder& recorder) override;
  void summarise(core::Summary& summary) const override;

  // Figures for tests and reports (SI).
  double storedEnergy() const;          // J, relative to 0 degC
  double heatInput() const;             // J since initialize
  double heatRejected() const;          // J since initialize
  double largestMassImbalance() const;  // m3/s, over every junction of every loop
  double cduSupplyTemperature(std::size_t cdu) const;
  double cduSecondaryFlow(std::size_t cdu) const;     // m3/s
  double maxGpuJunctionTemperature() const;           // K, over the run so far
  std::span<const double> trayFlows() const;          // m3/s per tray, trays of all racks in order
  std::span<const double> rackFlows() const;          // m3/s per rack (supply hose), site order
  std::span<const double> gpuColdPlateFlows() const;  // m3/s per GPU, layout order

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace racktwin::thermal
