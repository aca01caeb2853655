#pragma once
// The site's power distribution above the racks' power shelves, built from core::ElectricalSpec:
// the MV bus (utility or generators), transformers, UPSs, lines (switchboards, busways, RPPs,
// cables) and every rack's A and B feeds, as a PowerTree; the UPS batteries; the breakers; the
// sources' state through outages; and the log of what happened (breaker trips, transfers,
// depletions) for reports.
//
// Each electrical step the rack model asks which feeds are live, sets the feeds' loads (the AC
// input of the PSUs on each feed) and calls solve(); when a UPS cannot carry its load through
// the step from its battery, solve() switches that UPS's output off and returns false, and the
// rack model recomputes its loads with the new set of live feeds and solves again (at most once
// per UPS). commit() then advances the batteries, the breakers' thermal elements and the energy
// totals. Sources and UPS behaviour:
//  - utility live: stiff (or behind its short-circuit impedance), no limit;
//  - utility lost: the generators close start_delay later (unless they fail to start) and accept
//    load at ramp_rate per set; until then, and for the part of the load above what the sets
//    accept, the UPSs run from their batteries. The sets' acceptance is shared among the UPSs in
//    proportion to their ratings and limits what their rectifiers draw (loads not behind a UPS
//    are not limited);
//  - a UPS whose battery cannot carry a whole step drops its output (the load below is lost) and
//    restarts once its input can carry the load it dropped;
//  - a UPS recharges whenever its input is live and has headroom.
// Breakers trip on the rms phase current of their element (Protection.hpp) and open it from the
// next step; a lost feed stays open until restored (which also recloses its breaker).
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/power/CompensatedSum.hpp"
#include "racktwin/power/PowerTree.hpp"
#include "racktwin/power/Protection.hpp"

namespace racktwin::core {
class StateArchive;
}

namespace racktwin::power {

enum class ElementKind : std::uint8_t { Transformer, Ups, Switchboard, Busway, Rpp, Cable, Feed };
/// "transformer", "ups", "switchboard", "busway", "rpp", "cable", "feed".
const char* elementKindName(ElementKind kind) noexcept;

/// One thing that happened in the distribution, for reports. `element` is a tree element for
/// breaker, UPS and feed events, a rack for rack events, -1 for site-wide events.
struct ElectricalEvent {
  enum class Kind : std::uint8_t {
    UtilityLost,
    UtilityRestored,
    GeneratorOnline,
    GeneratorFailedToStart,
    GeneratorStopped,
    UpsOnBattery,
    UpsOnInput,
    UpsBatteryDepleted,  // the UPS dropped its load
    UpsOutputRestored,
    BreakerTripInverseTime,
    BreakerTripInstantaneous,
    FeedLost,
    FeedRestored,
    RackUnpowered,
    RackRepowered,
  };
  double time = 0.0;  // s
  Kind kind = Kind::UtilityLost;
  int element = -1;
  double value = 0.0;  // breaker: current over pickup; UPS: state of charge; rack: GPUs affected
};

class Distribution {
 public:
  static constexpr int kFeedA = 0;
  static constexpr int kFeedB = 1;

  /// Builds the tree. Throws std::invalid_argument for unknown or repeated ids, parents that form
  /// a cycle, a transformer whose primary does not match its parent's voltage, a rack without a
  /// feed (or two), invalid ratings, curves or breakers.
  Distribution(const core::SiteSpec& site, const core::SiteLayout& layout);

  // Elements (tree branches, feeds included).
  std::size_t elementCount() const noexcept { return tree_.size(); }
  const std::string& elementId(std::size_t b) const { return element_id_[b]; }
  const std::vector<std::string>& elementIds() const noexcept { return element_id_; }
  ElementKind elementKind(std::size_t b) const noexcept { return element_kind_[b]; }
  /// Current that makes utilisation 1 (ampacity, or the rating of a transformer or UPS), A; 0 =
  /// unrated.
  double ratedCurrent(std::size_t b) const noexcept { return I_rated_[b]; }
  /// Feed branch of a rack's side (kFeedA, kFeedB); -1 for a single-corded rack's B.
  int feedBranch(std::size_t rack, int side) const noexcept { return feed_[2 * rack + side]; }
  bool dualCorded(std::size_t rack) const noexcept { return feed_[2 * rack + 1] >= 0; }
  const PowerTree& tree() const noexcept { return tree_; }
  /// Rooms the losses of the elements above the racks heat; every element but a feed is in one.
  const std::vector<std::string>& roomNames() const noexcept { return room_names_; }
  /// Room of an element, or -1 for a feed (its loss heats its rack).
  int elementRoom(std::size_t b) const noexcept { return element_room_[b]; }
  std::size_t upsCount() const noexcept { return ups_.size(); }
  int upsBranch(std::size_t u) const noexcept { return tree_.converterBranch(u); }

  // The step.
  void beginStep(double t, double dt) noexcept;
  bool feedLive(std::size_t rack, int side) const noexcept;
  /// AC input of the PSUs on a feed (W at power factor cos(atan(tan_phi))). Racks may set their
  /// feeds side by side (each writes only its own feeds' loads): returns whether the load
  /// changed, and the caller calls feedLoadsChanged() afterwards, once, if any did.
  bool placeFeedLoad(std::size_t rack, int side, double P, double tan_phi) noexcept;
  void feedLoadsChanged() noexcept { tree_.loadsChanged(); }
  /// A load (W at power factor cos(atan(tan_phi))) at the output of a non-feed element: equipment
  /// such as the fabric's switches hung directly on a line, transformer or UPS.
  void setElementLoad(std::size_t b, double P, double tan_phi) noexcept {
    tree_.setLoad(b, {P, P * tan_phi});
  }
  /// See the class comment. Returns false when a UPS dropped its output.
  bool solve(double t, double dt) noexcept;
  void commit(double t, double dt) noexcept;

  // Events of the scenario.
  void loseFeed(std::size_t rack, int side, double t);
  void restoreFeed(std::size_t rack, int side, double t);
  void utilityOutage(double t);
  void utilityRestore(double t);
  bool utilityLive() const noexcept { return utility_live_; }
  bool generatorOnline() const noexcept { return generator_online_; }

  // Results of the last solve.
  /// Real power into the tree at the MV bus, W (utility plus generators).
  double inputPower() const noexcept { return tree_.sourcePower().real(); }
  double generatorPower() const noexcept {
    return generator_online_ && !utility_live_ ? inputPower() : 0.0;
  }
  /// Real loss of an element, W.
  double lossPower(std::size_t b) const noexcept { return tree_.lossPower(b); }
  /// Loss of the feeds of a rack (heat at the rack), W.
  double rackFeedLoss(std::size_t rack) const noexcept;
  /// Losses by room (index as roomNames()), W.
  double roomLoss(std::size_t room) const noexcept { return room_loss_[room]; }
  /// Losses of all elements, W (as of the last commit).
  double lossPower() const noexcept { return P_loss_total_; }
  /// Losses of all elements of one kind, W.
  double lossByKind(ElementKind kind) const noexcept;
  double upsStateOfCharge(std::size_t u) const noexcept;
  double upsBatteryEnergy(std::size_t u) const noexcept { return ups_[u].E; }
  double upsBatteryCapacity(std::size_t u) const noexcept { return ups_[u].E_capacity; }
  /// Battery discharge (> 0) or charge (< 0) of a UPS in the last step, W at the battery.
  double upsBatteryPower(std::size_t u) const noexcept;
  bool breakerPresent(std::size_t b) const noexcept { return breaker_[b].present(); }
  bool breakerClosed(std::size_t b) const noexcept { return breaker_[b].closed(); }
  const Breaker& breaker(std::size_t b) const noexcept { return breaker_[b]; }
  bool converged() const noexcept { return converged_; }

  // Run totals since construction, J.
  double inputEnergy() const noexcept { return E_input_.value(); }
  double utilityEnergy() const noexcept { return E_utility_.value(); }
  double generatorEnergy() const noexcept { return E_generator_.value(); }
  double lossEnergy(ElementKind kind) const noexcept;
  double lossEnergy() const noexcept;
  /// Change of the UPS batteries' stored energy since construction, J.
  double batteryEnergyChange() const noexcept { return E_battery_change_.value(); }
  std::size_t unconvergedSolves() const noexcept { return unconverged_; }
  std::size_t breakerTrips() const noexcept { return trips_; }
  std::size_t upsDepletions() const noexcept { return depletions_; }
  double minUpsStateOfCharge() const noexcept { return soc_min_seen_; }
  double maxGeneratorUtilisation() const noexcept { return gen_utilisation_max_; }

  const std::vector<ElectricalEvent>& events() const noexcept { return events_; }
  /// Records an event (the rack model adds rack events here).
  void record(double t, ElectricalEvent::Kind kind, int element, double value);
  /// "t = 312.4 s: row1/rack01/feed_b breaker tripped (inverse time, 1.33 x pickup)".
  std::string describe(const ElectricalEvent& event,
                       const std::vector<std::string>& rack_ids) const;

  /// Saves or restores the run state (core/StateArchive.hpp).
  void visitState(core::StateArchive& archive);

 private:
  struct Ups {
    double E_capacity = 0.0;  // J
    double E = 0.0;           // J
    double E_min = 0.0;       // J
    double P_recharge = 0.0;  // W, all modules
    double charge_efficiency = 1.0;
    double share = 0.0;    // of the generators' acceptance
    bool dropped = false;  // output off after a depletion
    double P_need_at_drop = 0.0;
    bool on_battery = false;
  };
  void applySources(double t, double dt) noexcept;
  void updateCloses() noexcept;

  PowerTree tree_;
  std::vector<std::string> element_id_;
  std::vector<ElementKind> element_kind_;
  std::vector<double> I_rated_;
  std::vector<int> element_room_;
  std::vector<std::string> room_names_;
  std::vector<double> room_loss_;
  std::vector<int> feed_;       // 2 per rack
  std::vector<int> feed_rack_;  // per element: rack of a feed, else -1
  std::vector<Breaker> breaker_;
  std::vector<std::uint32_t> breakers_;  // elements with a breaker
  std::vector<std::uint8_t> lost_;       // per element: a lost feed
  std::vector<Ups> ups_;
  std::complex<double> Z_utility_{0.0, 0.0};

  core::GeneratorSpec generator_;
  bool utility_live_ = true;
  bool generator_online_ = false;
  bool generator_failed_reported_ = false;
  double outage_time_ = 0.0;
  double source_limit_ = 0.0;
  double P_loss_total_ = 0.0;  // W the generators accept now (infinite on the utility)
  bool converged_ = true;

  CompensatedSum E_input_, E_utility_, E_generator_, E_battery_change_;
  CompensatedSum E_loss_[7];
  std::size_t unconverged_ = 0;
  std::size_t trips_ = 0;
  std::size_t depletions_ = 0;
  double soc_min_seen_ = 1.0;
  double gen_utilisation_max_ = 0.0;
  std::vector<ElectricalEvent> events_;
};

}  // namespace racktwin::power
