#pragma once
// The rack electrical model: chip and tray loads on the ~50 V busbar, fed by the rack's power
// shelves, whose PSUs convert AC to DC with the loss of their efficiency curve. A fast model: the
// engine advances it in every sub-step, after the workload executor has written the demands.
//
// Load sharing: the busbar load is split equally among the shelves that have at least one healthy
// PSU, and a shelf's load equally among its healthy PSUs (current sharing on a common bus). A
// rack with no healthy PSU left is unpowered: its chips and tray loads draw nothing.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "racktwin/core/Model.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/power/PsuEfficiency.hpp"

namespace racktwin::power {

class ElectricalModel final : public core::Model {
 public:
  /// `layout` must outlive the model. Throws std::invalid_argument for a rack without shelves or
  /// PSUs, or with an invalid PSU efficiency curve.
  ElectricalModel(const core::SiteSpec& site, const core::SiteLayout& layout);

  std::string_view name() const override { return "electrical"; }
  /// Computes the instantaneous powers from the current demands (no energy is accumulated).
  void initialize(core::SiteState& state) override;
  void advance(double t, double dt, core::SiteState& state) override;
  void declareChannels(core::Recorder& recorder) override;
  void summarise(core::Summary& summary) const override;

  /// Marks one PSU failed (false) or repaired (true); the new sharing applies from the next
  /// advance.
  void setPsuHealthy(std::size_t rack, std::size_t shelf, std::size_t psu, bool healthy);
  bool psuHealthy(std::size_t rack, std::size_t shelf, std::size_t psu) const;
  std::size_t shelfCount(std::size_t rack) const;
  std::size_t psuCount(std::size_t rack, std::size_t shelf) const;
  /// DC output of one PSU now, W (0 for a failed PSU).
  double psuOutput(std::size_t rack, std::size_t shelf, std::size_t psu) const;
  /// DC output of one shelf now, W.
  double shelfOutput(std::size_t rack, std::size_t shelf) const;
  const PsuEfficiency& psuCurve(std::size_t rack) const;

  /// Run totals since initialize(), J: AC input of all power shelves (the IT energy), PSU losses
  /// and DC busbar energy. it = dc + psu_loss up to round-off.
  double itEnergy() const noexcept { return it_energy_.value(); }
  double psuLossEnergy() const noexcept { return psu_loss_energy_.value(); }
  double dcEnergy() const noexcept { return dc_energy_.value(); }
  /// Sum of the racks' AC input now, W.
  double siteItPower() const noexcept { return site_P_it_; }

 private:
  /// Neumaier-compensated running sum: run totals over 1e8+ sub-steps stay exact to round-off.
  class CompensatedSum {
   public:
    void add(double x) noexcept;
    double value() const noexcept { return sum_ + compensation_; }
    void reset() noexcept { sum_ = compensation_ = 0.0; }

   private:
    double sum_ = 0.0;
    double compensation_ = 0.0;
  };

  std::size_t shelfIndex(std::size_t rack, std::size_t shelf) const;
  std::size_t psuIndex(std::size_t rack, std::size_t shelf, std::size_t psu) const;
  /// Instantaneous powers of every rack from the demands; accumulates energies when dt > 0.
  void solve(double dt, core::SiteState& state);

  const core::SiteLayout& layout_;
  std::vector<PsuEfficiency> curves_;             // per rack
  std::vector<std::uint32_t> rack_shelf_begin_;   // shelves of rack r: [begin[r], begin[r+1])
  std::vector<std::uint32_t> shelf_psu_begin_;    // PSUs of shelf s: [begin[s], begin[s+1])
  std::vector<std::uint8_t> psu_healthy_;         // per PSU
  std::vector<std::uint32_t> shelf_healthy_;      // healthy PSUs per shelf
  std::vector<std::uint32_t> rack_live_shelves_;  // shelves with a healthy PSU, per rack
  std::vector<double> shelf_P_out_;               // W, per shelf, now

  // Recorder views: sized once in the constructor, never resized.
  std::vector<double> rack_P_ac_;
  std::vector<double> rack_P_ac_mean_;  // W, mean since the macro step began
  std::vector<double> rack_P_dc_;
  std::vector<double> rack_P_psu_loss_;
  std::vector<double> rack_psu_efficiency_;
  std::vector<double> gpu_P_;
  double site_P_it_ = 0.0;
  double site_P_it_mean_ = 0.0;  // W, mean since the macro step began

  CompensatedSum it_energy_;
  CompensatedSum psu_loss_energy_;
  CompensatedSum dc_energy_;
};

}  // namespace racktwin::power
