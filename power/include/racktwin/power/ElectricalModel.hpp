#pragma once
// The site electrical model: chip and tray loads on each rack's ~50 V busbar, fed by the rack's
// power shelves, whose PSUs convert AC to DC with the loss of their efficiency curve. A fast
// model: the engine advances it in every sub-step, after the workload executor has written the
// demands.
//
// Load sharing: the busbar load is split equally among the shelves that have at least one live
// PSU, and a shelf's load equally among its live PSUs (current sharing on a common bus). A rack
// with no live PSU left is unpowered: its chips and tray loads draw nothing (the thermal model
// sees no heat, the workload's GPUs draw zero).
//
// Without an electrical section (site.electrical.present == false) a PSU is live when healthy
// and the shelves are fed from an ideal source: facility power is the IT power.
//
// With one, every step also runs (see Distribution, PowerSmoothing):
//  1. the GPU power management of each rack: profile and cap limits, and the GB300 smoothing
//     floor and ramps (gpu power = what the GPU draws, burner included);
//  2. the busbar: trays' load plus the busbar's I^2 R at the nominal busbar voltage;
//  3. the PSU energy storage between busbar and grid (smoothing);
//  4. the PSUs: a PSU is live when healthy and its feed (A or B, see core::FeedSplit) is live;
//     each feed's AC load is its live PSUs' input at the PSUs' power factor;
//  5. the load flow of the distribution tree, UPS batteries, breakers, sources.
// Losses heat where they occur: PSU, busbar and feed (whip) losses go to the rack's room-air
// energy (SiteState::rack_air_E_step); the losses of the elements above are reported per room
// (roomLossPower) for a thermal model of those rooms.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "racktwin/core/Model.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/power/CompensatedSum.hpp"
#include "racktwin/power/Distribution.hpp"
#include "racktwin/power/FabricPower.hpp"
#include "racktwin/power/PowerSmoothing.hpp"
#include "racktwin/power/PsuEfficiency.hpp"
#include "racktwin/power/Spectrum.hpp"

namespace racktwin::power {

class ElectricalModel final : public core::Model {
 public:
  /// `layout` must outlive the model. Throws std::invalid_argument for a rack without shelves or
  /// PSUs, or with an invalid PSU efficiency curve, and for an invalid electrical section.
  ElectricalModel(const core::SiteSpec& site, const core::SiteLayout& layout);
  ~ElectricalModel() override;

  std::string_view name() const override { return "electrical"; }
  /// Writes what the chips draw and its energies, the racks' powers, losses and limits; reads
  /// the demands and an air-cooled rack's server fans.
  core::CouplingFields couplingFields() const override {
    using F = core::CouplingField;
    return core::CouplingFields::of(
        {F::GpuPower, F::GpuEnergyStep, F::GpuPowerStepMax, F::CpuPower, F::CpuEnergyStep,
         F::SwitchPower, F::SwitchEnergyStep, F::RackPowerDc, F::RackPowerAc, F::RackPsuLoss,
         F::RackAirEnergyStep, F::RackAcEnergyStep, F::HallAirEnergyStep, F::RackGpuPowerLimit,
         F::RackPowered},
        {F::GpuPowerDemand, F::CpuPowerDemand, F::SwitchPowerDemand, F::RackAirDemand,
         F::RackFanPower, F::RackDemandVersion});
  }
  /// Computes the instantaneous powers from the current demands (no energy is accumulated).
  void initialize(core::SiteState& state) override;
  void advance(double t, double dt, core::SiteState& state) override;
  /// FeedLoss, FeedRestore, UtilityOutage, UtilityRestore and SetPowerCap, with an electrical
  /// section. Throws core::RuntimeError for a target that names no rack or a feed that does not
  /// exist.
  bool applyEvent(const core::EventSpec& event, core::SiteState& state) override;
  void declareChannels(core::Recorder& recorder) override;
  void finalize(core::SiteState& state) override;
  void summarise(core::Summary& summary) const override;

  /// Marks one PSU failed (false) or repaired (true); the new sharing applies from the next
  /// advance.
  void setPsuHealthy(std::size_t rack, std::size_t shelf, std::size_t psu, bool healthy);
  bool psuHealthy(std::size_t rack, std::size_t shelf, std::size_t psu) const;
  std::size_t shelfCount(std::size_t rack) const;
  std::size_t psuCount(std::size_t rack, std::size_t shelf) const;
  /// Feed of a PSU (Distribution::kFeedA or kFeedB); always A without an electrical section.
  int psuFeed(std::size_t rack, std::size_t shelf, std::size_t psu) const;
  /// DC output of one PSU now, W (0 for a failed PSU or one whose feed is dead).
  double psuOutput(std::size_t rack, std::size_t shelf, std::size_t psu) const;
  /// DC output of one shelf now, W.
  double shelfOutput(std::size_t rack, std::size_t shelf) const;
  const PsuEfficiency& psuCurve(std::size_t rack) const;

  /// Run totals since initialize(), J: AC input of all power shelves and of the fabric's switches
  /// (the IT energy), PSU losses and DC energy delivered by the shelves (busbar load and, with an
  /// electrical section, its I^2 R and the storage's charging). it = dc + psu_loss + fabric up to
  /// round-off.
  double itEnergy() const noexcept { return it_energy_.value(); }
  double psuLossEnergy() const noexcept { return psu_loss_energy_.value(); }
  double dcEnergy() const noexcept { return dc_energy_.value(); }
  /// AC input of the fabric's switches since initialize(), J (0 without a fabric).
  double fabricEnergy() const noexcept { return fabric_energy_.value(); }
  /// The fabric's switches now, W (0 without a fabric, or while their elements are dead).
  double fabricPower() const noexcept { return fabric_P_; }
  const FabricPower& fabric() const noexcept { return fabric_; }
  /// Sum of the racks' AC input and the fabric's switches now, W.
  double siteItPower() const noexcept { return site_P_it_; }

  // Site-level results (both modes).
  /// Electrical input of the site now, W: the MV bus (utility and generators) with an electrical
  /// section, else the IT power.
  double facilityPower() const noexcept { return site_P_facility_; }
  /// Energy into the site's electrical system since initialize(), J.
  double facilityEnergy() const noexcept { return facility_energy_.value(); }
  /// All electrical losses since initialize(), J (PSU, busbar, distribution, UPS).
  double lossEnergy() const noexcept;
  /// |input - (load + losses + stored change)| / input over the run.
  double energyBalanceRelativeError() const noexcept;
  std::size_t gpusUnpowered() const noexcept { return gpus_unpowered_; }
  std::size_t gpusUnpoweredMax() const noexcept { return gpus_unpowered_max_; }
  /// The spectrum of facility power (computed in finalize()).
  const SpectralPeak& facilityPowerPeak() const noexcept { return peak_; }
  bool rackPowered(std::size_t rack) const noexcept { return rack_powered_[rack] != 0; }

  // With an electrical section (nullptr / empty without).
  const Distribution* distribution() const noexcept { return dist_.get(); }
  const PowerManagement* powerManagement() const noexcept { return pm_.get(); }
  /// Heat released at a rack now, W: PSU, busbar and feed losses.
  double rackLossPower(std::size_t rack) const noexcept { return rack_P_loss_[rack]; }
  /// Grid-facing DC power of a rack's PSUs (after the storage) now, W.
  double rackGridDcPower(std::size_t rack) const noexcept { return rack_P_grid_dc_[rack]; }
  /// AC input of a rack's PSUs on one feed now, W.
  double rackFeedPower(std::size_t rack, int side) const noexcept {
    return rack_feed_P_[2 * rack + static_cast<std::size_t>(side)];
  }
  /// Losses of the elements above the racks by room now, W (see Distribution::roomNames()).
  double roomLossPower(std::size_t room) const noexcept;
  /// Change of energy stored in the PSUs' smoothing storage since initialize(), J.
  double storageEnergyChange() const noexcept { return storage_change_.value(); }
  double busbarLossEnergy() const noexcept { return busbar_loss_energy_.value(); }
  /// Busbar load energy (chips and tray air loads) since initialize(), J.
  double loadEnergy() const noexcept { return load_energy_.value(); }
  /// The distribution's and the racks' events as text, in time order of recording.
  std::vector<std::string> eventLog() const;

  void visitState(core::StateArchive& archive, const core::SiteState& state) override;
  /// The racks' powers and losses are computed on these threads, in blocks of racks.
  void useThreads(core::ThreadPool& pool) override;

 private:
  // Racks are computed in blocks of this many (a fixed size: the work of a block does not depend
  // on the number of threads; a rack's computation writes only that rack's values and its chips'
  // state, and the site's sums are added afterwards in rack order).
  static constexpr std::size_t kRackBlock = 32;
  static constexpr std::size_t kElementBlock = 512;  // the tree's elements, for their views
  core::ThreadPool* pool_ = nullptr;
  /// One rack's part of solve(): its powers, losses and energies.
  void solveRack(std::size_t r, double dt, double elapsed, core::SiteState& state);
  std::size_t shelfIndex(std::size_t rack, std::size_t shelf) const;
  std::size_t psuIndex(std::size_t rack, std::size_t shelf, std::size_t psu) const;
  /// Ideal source: instantaneous powers of every rack from the demands; accumulates energies
  /// when dt > 0.
  void solve(double dt, core::SiteState& state);
  /// With an electrical section (ElectricalModelTree.cpp).
  void buildTree(const core::SiteSpec& site);
  void solveTree(double t, double dt, core::SiteState& state);
  /// The per-element, UPS and room recorder views from the solved tree (the racks' are
  /// publishRackViews').
  void publishTreeViews();
  /// Rack r's views that only the recorder reads (macro-step mean, PSU efficiency, feed currents,
  /// utilisation and breaker states, stored energy and burner power), from the sub-step just
  /// committed, `elapsed` s into the
  /// macro step (every sub-step: the recorder integrates the rates over sub-steps). Part of the
  /// rack's commit task, while its values are in that thread's cache.
  void publishRackViews(std::size_t r, const core::SiteState& state, double elapsed);
  /// At the macro step's last sub-step (`inv_elapsed` = 1 / the step's length, else 0): each GPU
  /// of rack r gets its mean power over the step, its energy over the step's length (the gpu/P
  /// record, a macro-step mean: exact energies without integrating every GPU at every sub-step).
  /// Called where the rack flushed its energies.
  void publishGpuMeans(std::size_t r, const core::SiteState& state, double inv_elapsed);
  /// 1 / the macro step's length at its last sub-step (of length dt), else 0: no GPU means yet.
  static double gpuMeansFactor(const core::SiteState& state, double dt) noexcept;
  void computeRack(std::size_t r, double t, double dt, const core::SiteState& state);
  /// computeRack for every rack and its feed loads into the tree (on the threads, by block).
  void computeRacks(double t, double dt, const core::SiteState& state);
  struct StepSums {
    double P_ac = 0.0, P_grid_dc = 0.0, P_psu_loss = 0.0, P_load = 0.0, P_busbar_loss = 0.0,
           P_storage = 0.0;
    double feed_use_max = 0.0;  // highest rack feed utilisation
    double P_ac_mean = 0.0;     // the racks' AC input, mean over the macro step so far
    std::size_t gpus_off = 0;
    void add(const StepSums& block) noexcept;
  };
  /// A block of racks' part of a sub-step's commit, formed by its task.
  struct BlockSums {
    StepSums sums;
    double P_burner = 0.0, P_deficit = 0.0;  // W, the smoothing's burners and ramp deficit
    bool powered_changed = false;            // a rack lost or regained power
  };
  std::vector<BlockSums> block_sums_;              // per block of kRackBlock racks
  std::vector<std::uint8_t> block_loads_changed_;  // per block: a feed's load changed
  /// Commits every rack's sub-step: the blocks of racks side by side (commitRack, with their
  /// views, GPU means and the block's sums in rack order), then what is shared (the site's sums,
  /// the smoothing's run totals, the events of racks that lost or regained power) in block order.
  void commitRacks(double t, double dt, core::SiteState& state, StepSums& sums);
  void commitRack(std::size_t r, double dt, core::SiteState& state);
  void declareTreeChannels(core::Recorder& recorder);
  void summariseTree(core::Summary& summary) const;
  /// Per-step site statistics shared by both modes.
  void recordSite(double t, double dt, double P_facility, double P_it);
  std::size_t rackIndex(const core::EventSpec& event) const;
  /// Books the fabric's draw over the sub-step [state.time, + dt): energies, the hall's air heat,
  /// the views. Returns the power drawn, W.
  double bookFabric(double dt, core::SiteState& state);

  const core::SiteLayout& layout_;
  bool present_ = false;
  double min_max_from_ = 60.0;                    // s: the min/max statistics skip the first minute
  std::vector<PsuEfficiency> curves_;             // the distinct curves of the racks' types
  std::vector<std::uint32_t> rack_curve_;         // per rack: its curve in curves_
  std::vector<double> rack_tan_phi_;              // per rack, PSU input
  std::vector<std::uint32_t> rack_shelf_begin_;   // shelves of rack r: [begin[r], begin[r+1])
  std::vector<std::uint32_t> shelf_psu_begin_;    // PSUs of shelf s: [begin[s], begin[s+1])
  std::vector<std::uint8_t> psu_healthy_;         // per PSU
  std::vector<std::uint8_t> psu_feed_;            // per PSU: 0 = A, 1 = B
  std::vector<std::uint32_t> shelf_healthy_;      // healthy PSUs per shelf
  std::vector<std::uint32_t> shelf_healthy_on_;   // healthy PSUs per shelf and feed (2 per shelf)
  std::vector<std::uint32_t> shelf_live_;         // live PSUs per shelf, last step
  std::vector<std::uint32_t> rack_live_shelves_;  // shelves with a healthy PSU, per rack
  std::vector<double> shelf_P_out_;               // W, per shelf, now

  // Recorder views: sized once in the constructor, never resized.
  std::vector<double> rack_P_ac_;
  std::vector<double> rack_P_ac_mean_;  // W, mean since the macro step began (see below)
  std::vector<double> rack_P_dc_;
  std::vector<double> rack_P_psu_loss_;
  std::vector<double> rack_psu_efficiency_;
  std::vector<double> gpu_P_;            // also the scratch of the GPU powers in a tree step
  std::vector<double> gpu_P_step_mean_;  // W, recorder view: mean over the last macro step
  double site_P_it_ = 0.0;
  double site_P_it_mean_ = 0.0;  // W, mean since the macro step began (every sub-step)

  // The fabric's switches (FabricPower.hpp): constant loads on the tree or an ideal source.
  FabricPower fabric_;
  double fabric_P_ = 0.0;             // W now (recorder view)
  double fabric_P_mean_ = 0.0;        // W, mean since the macro step began (recorder view)
  double fabric_E_macro_ = 0.0;       // J since the macro step began
  double fabric_macro_start_ = -1.0;  // s, the macro step fabric_E_macro_ belongs to
  CompensatedSum fabric_energy_;

  CompensatedSum it_energy_;
  CompensatedSum psu_loss_energy_;
  CompensatedSum dc_energy_;

  // Site statistics (both modes).
  double site_P_facility_ = 0.0;
  CompensatedSum facility_energy_;
  CompensatedSum load_energy_;
  std::size_t gpus_unpowered_ = 0;
  std::size_t gpus_unpowered_max_ = 0;
  double gpus_unpowered_value_ = 0.0;  // recorder view
  double facility_min_ = 0.0, facility_max_ = 0.0, it_min_ = 0.0, it_max_ = 0.0;
  double facility_min_all_ = 0.0, facility_max_all_ = 0.0, it_min_all_ = 0.0, it_max_all_ = 0.0;
  bool have_min_max_ = false, have_min_max_all_ = false;
  DecimatingSeries facility_series_;
  double series_start_ = 0.0;  // s, time of the first sample in the series
  bool series_started_ = false;
  // Fast-forward varies the step: the series is then not uniformly sampled and no spectrum is
  // taken from it (the dominant oscillation is null).
  bool uniform_series_ = true;
  SpectralPeak peak_;
  std::vector<std::uint8_t> rack_powered_;
  // Without an electrical section: a rack whose demands and shelves did not change since the last
  // sub-step keeps its powers. In both modes a rack's chips' energies are added once for the time
  // their powers were held, when they change or at the macro step's last sub-step: the GPUs'
  // (rack_held_dt_) apart from the CPUs' and switches' (rack_chips_held_dt_), which change less.
  std::vector<double> rack_held_dt_;                // s
  std::vector<double> rack_chips_held_dt_;          // s
  std::vector<double> rack_P_air_;                  // W, air-cooled load when last solved
  std::vector<std::uint32_t> rack_solved_shelves_;  // live shelves when last solved; ~0u: solve
  // Per rack, the version of the demands (SiteState::rack_demand_version) its drawn powers were
  // last found equal to: without a tree all its chips', with one its CPUs' and switches' (the
  // GPUs' are the power management's); 0: unknown, compare. Valid for the state at versions_of_.
  std::vector<std::uint64_t> rack_demand_version_;
  const std::uint64_t* versions_of_ = nullptr;
  /// Forgets the versions noted when `state` is not the one they were noted of.
  void checkVersionsOf(const core::SiteState& state) noexcept;
  void flushRackEnergy(std::size_t r, core::SiteState& state) noexcept;
  void flushGpuEnergy(std::size_t r, core::SiteState& state) noexcept;
  void flushChipEnergy(std::size_t r, core::SiteState& state) noexcept;

  // With an electrical section.
  std::unique_ptr<Distribution> dist_;
  std::unique_ptr<PowerManagement> pm_;
  /// Index of the room "hall" among the distribution's rooms, or -1.
  int hall_room_ = -1;
  static constexpr const char* kHallRoom = "hall";
  void publishLimits(core::SiteState& state) noexcept;
  /// The limits array they were last published into (nullptr: publish at the next advance).
  const double* limits_of_ = nullptr;
  double busbar_k_ = 0.0;  // 4 R / V^2 of the busbar, 1/W
  struct RackStep {        // scratch of the current step
    bool powered = false;
    double P_load = 0.0;  // W, busbar load (chips and air)
    double P_air = 0.0;   // W
    double P_busbar_loss = 0.0;
    double P_grid_dc = 0.0;  // W, PSU DC side after storage
    double P_psu_loss = 0.0;
    double P_ac_a = 0.0, P_ac_b = 0.0;
    bool chips_same = false;  // the CPUs' and switches' demands are their committed powers
  };
  std::vector<RackStep> rack_step_;
  struct RackReuse {          // per rack: what a step reuses while the rack's loads do not change
    bool sums_valid = false;  // the sums are those of the committed CPU and switch powers
    double P_cpu = 0.0, P_switch = 0.0;  // W
    bool busbar_valid = false;           // P_out was computed from P_load
    double P_load = 0.0, P_out = 0.0;    // W: busbar load and output last computed
    bool loss_valid = false;             // loss was computed from P_psu on the rack's curve
    double P_psu = 0.0, loss = 0.0;      // W: one PSU's output and loss last computed
  };
  std::vector<RackReuse> rack_reuse_;
  struct RackShelves {  // per rack: the live PSUs of its shelves for the feeds' states in `key`
    static constexpr unsigned kStale = ~0u;
    unsigned key = kStale;      // feed A live | feed B live << 1; kStale after a PSU changed
    std::uint32_t shelves = 0;  // shelves with a live PSU
    std::uint32_t psus = 0;     // live PSUs
    std::uint32_t uniform = 0;  // live PSUs of every live shelf when all have the same, else 0
    double psus_a = 0.0, psus_b = 0.0;  // live PSUs on feed A and on feed B
  };
  std::vector<RackShelves> rack_shelves_;
  std::vector<double> rack_P_loss_;          // W, heat at the rack (PSU, busbar, feeds)
  std::vector<double> rack_P_grid_dc_;       // W
  std::vector<double> rack_feed_P_;          // W, 2 per rack
  std::vector<double> rack_feed_I_;          // A, 2 per rack (recorder: A, then B columns)
  std::vector<double> rack_feed_use_;        // utilisation, 2 per rack
  std::vector<double> rack_feed_inv_rated_;  // 1/A, 1 / rated current, 2 per rack (0: unrated)
  std::vector<double> rack_feed_closed_;     // 1 / 0: breaker closed and feed not lost, 2 per rack
  std::vector<double> rack_powered_value_;   // 1 / 0 (recorder)
  std::vector<double> rack_E_storage_;       // J (recorder)
  std::vector<double> rack_P_burner_;        // W (recorder)
  std::vector<std::size_t> tree_elements_;   // non-feed elements (recorder)
  std::vector<double> element_I_, element_use_, element_V_, element_closed_, element_P_loss_;
  std::vector<double> ups_soc_, ups_P_out_, ups_P_battery_;
  std::vector<double> room_P_loss_;
  double site_P_losses_ = 0.0;  // W, all electrical losses now
  double site_P_generator_ = 0.0;
  double site_utility_live_ = 1.0;
  double site_generator_online_ = 0.0;
  CompensatedSum busbar_loss_energy_;
  CompensatedSum storage_change_;
  double feed_utilisation_max_ = 0.0;
  // MV feeders: the lines hung on the MV bus (one per hall of a site), and the highest current
  // each carried over the run's steps (A).
  std::vector<std::size_t> mv_feeders_;
  std::vector<double> mv_feeder_I_max_;
};

}  // namespace racktwin::power
