#include "racktwin/power/Distribution.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/StateArchive.hpp"

namespace racktwin::power {

namespace {

constexpr double kSqrt3 = 1.7320508075688772;
constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kVoltageMatch = 0.01;  // a transformer primary within 1 % of its bus voltage
constexpr std::size_t kKinds = 7;
constexpr std::size_t kEventsReserved = 4096;

std::size_t kindIndex(ElementKind kind) noexcept {
  return static_cast<std::size_t>(kind);
}

bool positive(double x) {
  return std::isfinite(x) && x > 0.0;
}
bool nonNegative(double x) {
  return std::isfinite(x) && x >= 0.0;
}

ElementKind lineKind(core::LineSpec::Kind kind) {
  switch (kind) {
    case core::LineSpec::Kind::Switchboard:
      return ElementKind::Switchboard;
    case core::LineSpec::Kind::Busway:
      return ElementKind::Busway;
    case core::LineSpec::Kind::Rpp:
      return ElementKind::Rpp;
    case core::LineSpec::Kind::Cable:
      return ElementKind::Cable;
  }
  return ElementKind::Cable;
}

/// Where an element of the spec is, before the tree is built.
struct NodeRef {
  ElementKind kind;
  std::size_t index;  // into transformers, upses or lines
  const std::string* parent;
};

}  // namespace

const char* elementKindName(ElementKind kind) noexcept {
  switch (kind) {
    case ElementKind::Transformer:
      return "transformer";
    case ElementKind::Ups:
      return "ups";
    case ElementKind::Switchboard:
      return "switchboard";
    case ElementKind::Busway:
      return "busway";
    case ElementKind::Rpp:
      return "rpp";
    case ElementKind::Cable:
      return "cable";
    case ElementKind::Feed:
      return "feed";
  }
  return "element";
}

Distribution::Distribution(const core::SiteSpec& site, const core::SiteLayout& layout)
    : tree_(site.electrical.utility.V_nominal) {
  RACKTWIN_ASSERT(site.racks.size() == layout.rack_count, "layout built from another site");
  const core::ElectricalSpec& e = site.electrical;
  generator_ = e.generator;
  if (generator_.present) {
    if (generator_.units < 1 || !positive(generator_.P_rated)) {
      throw std::invalid_argument("generator: needs at least one set with a rated power > 0 W");
    }
    if (!nonNegative(generator_.start_delay) || !nonNegative(generator_.ramp_rate)) {
      throw std::invalid_argument("generator: start delay and ramp rate must be >= 0");
    }
  }
  if (e.utility.S_short_circuit > 0.0) {
    if (!positive(e.utility.X_over_R)) {
      throw std::invalid_argument("utility: X/R of the source must be > 0");
    }
    const double Z = e.utility.V_nominal * e.utility.V_nominal / e.utility.S_short_circuit;
    const double R = Z / std::sqrt(1.0 + e.utility.X_over_R * e.utility.X_over_R);
    Z_utility_ = {R, R * e.utility.X_over_R};
  } else if (e.utility.S_short_circuit < 0.0) {
    throw std::invalid_argument("utility: short-circuit power must be >= 0 VA (0 = stiff)");
  }

  // Index every element by id, then add them parents first.
  std::map<std::string, NodeRef> nodes;
  const auto addNode = [&](const std::string& id, NodeRef ref) {
    if (id.empty()) throw std::invalid_argument("electrical: an element has an empty id");
    if (!nodes.emplace(id, ref).second) {
      throw std::invalid_argument("electrical: element id '" + id + "' is used twice");
    }
  };
  for (std::size_t i = 0; i < e.transformers.size(); ++i)
    addNode(e.transformers[i].id, {ElementKind::Transformer, i, &e.transformers[i].parent});
  for (std::size_t i = 0; i < e.upses.size(); ++i)
    addNode(e.upses[i].id, {ElementKind::Ups, i, &e.upses[i].parent});
  for (std::size_t i = 0; i < e.lines.size(); ++i)
    addNode(e.lines[i].id, {lineKind(e.lines[i].kind), i, &e.lines[i].parent});

  std::map<std::string, int> branch_of;  // id -> tree branch
  std::map<std::string, int> room_of;
  const auto roomIndex = [&](const std::string& room) {
    const std::string& name = room.empty() ? e.default_room : room;
    const auto [it, inserted] = room_of.emplace(name, static_cast<int>(room_names_.size()));
    if (inserted) room_names_.push_back(name);
    return it->second;
  };
  const auto push = [&](const std::string& id, ElementKind kind, double I_rated, int room,
                        const core::BreakerSpec& breaker) {
    validateBreaker(breaker, std::string(elementKindName(kind)) + " " + id);
    if (!nonNegative(I_rated)) {
      throw std::invalid_argument(std::string(elementKindName(kind)) + " " + id
                                  + ": rated current must be >= 0 A");
    }
    element_id_.push_back(id);
    element_kind_.push_back(kind);
    I_rated_.push_back(I_rated);
    element_room_.push_back(room);
    breaker_.emplace_back(breaker);
  };
  double ups_rating_total = 0.0;
  std::map<std::string, int> state;  // 1 = being added, 2 = added
  std::vector<std::string> chain;
  // Depth-first: an element's parent is added before it; a parent met while being added is a
  // cycle.
  const auto add = [&](const auto& self, const std::string& id) -> int {
    const auto done = branch_of.find(id);
    if (done != branch_of.end()) return done->second;
    const NodeRef& node = nodes.at(id);
    if (state[id] == 1) {
      throw std::invalid_argument("electrical: element '" + id
                                  + "' is its own ancestor (the parents form a cycle)");
    }
    state[id] = 1;
    int parent = PowerTree::kSourceBus;
    if (!node.parent->empty()) {
      if (nodes.find(*node.parent) == nodes.end()) {
        throw std::invalid_argument(std::string(elementKindName(node.kind)) + " " + id
                                    + ": unknown parent '" + *node.parent + "'");
      }
      parent = self(self, *node.parent);
    }
    const double V_parent = parent == PowerTree::kSourceBus ? tree_.sourceNominalVoltage()
                                                            : tree_.nominalVoltage(parent);
    int b = 0;
    if (node.kind == ElementKind::Transformer) {
      const core::TransformerSpec& t = e.transformers[node.index];
      const std::string what = "transformer " + id;
      if (!positive(t.S_rated) || !positive(t.V_primary) || !positive(t.V_secondary)) {
        throw std::invalid_argument(what + ": rating and voltages must be > 0");
      }
      if (!nonNegative(t.P_no_load) || !nonNegative(t.P_load_rated)) {
        throw std::invalid_argument(what + ": losses must be >= 0 W");
      }
      if (std::abs(t.V_primary / V_parent - 1.0) > kVoltageMatch) {
        throw std::invalid_argument(what + ": primary voltage " + std::to_string(t.V_primary)
                                    + " V does not match its parent's bus voltage "
                                    + std::to_string(V_parent) + " V");
      }
      // Short-circuit test data referred to the secondary: 3 I_rated^2 R = P_load_rated.
      const double Z_base = t.V_secondary * t.V_secondary / t.S_rated;
      const double R = t.P_load_rated / t.S_rated * Z_base;
      const double Z = t.impedance * Z_base;
      if (!(Z > R)) {
        throw std::invalid_argument(what + ": impedance " + std::to_string(t.impedance)
                                    + " pu must exceed its resistance, load loss / rating = "
                                    + std::to_string(t.P_load_rated / t.S_rated) + " pu");
      }
      // The tree's ratio is of nominal bus voltages; the transformer's own ratio sets the output.
      b = tree_.addTransformer(parent, t.V_secondary * V_parent / t.V_primary,
                               {R, std::sqrt(Z * Z - R * R)}, t.P_no_load);
      push(id, ElementKind::Transformer, t.S_rated / (kSqrt3 * t.V_secondary), roomIndex(t.room),
           t.breaker);
    } else if (node.kind == ElementKind::Ups) {
      const core::UpsSpec& u = e.upses[node.index];
      const std::string what = "UPS " + id;
      if (u.modules < 1 || !positive(u.P_rated)) {
        throw std::invalid_argument(what + ": needs at least one module with a rating > 0 W");
      }
      if (!nonNegative(u.E_battery) || !nonNegative(u.P_recharge)) {
        throw std::invalid_argument(what + ": battery energy and recharge power must be >= 0");
      }
      if (!(u.soc_min >= 0.0 && u.soc_min <= u.soc_initial && u.soc_initial <= 1.0)) {
        throw std::invalid_argument(what + ": needs 0 <= minimum state of charge <= initial <= 1");
      }
      const double V_out = u.V_output > 0.0 ? u.V_output : V_parent;
      const PsuEfficiency curve(core::EfficiencyCurve{u.efficiency_load_fraction, u.efficiency},
                                u.P_rated, what + " efficiency curve");
      b = tree_.addConverter(parent, V_out, curve, u.modules, u.input_power_factor,
                             u.charge_efficiency);
      const double modules = static_cast<double>(u.modules);
      Ups s;
      s.E_capacity = modules * u.E_battery;
      s.E = u.soc_initial * s.E_capacity;
      s.E_min = u.soc_min * s.E_capacity;
      s.P_recharge = modules * u.P_recharge;
      s.charge_efficiency = u.charge_efficiency;
      s.share = modules * u.P_rated;
      ups_rating_total += s.share;
      ups_.push_back(s);
      push(id, ElementKind::Ups, modules * u.P_rated / (kSqrt3 * V_out), roomIndex(u.room),
           u.breaker);
    } else {
      const core::LineSpec& l = e.lines[node.index];
      if (!nonNegative(l.R) || !std::isfinite(l.X)) {
        throw std::invalid_argument(std::string(elementKindName(node.kind)) + " " + id
                                    + ": resistance must be >= 0 ohm");
      }
      b = tree_.addLine(parent, {l.R, l.X});
      push(id, node.kind, l.I_rated, roomIndex(l.room), l.breaker);
    }
    state[id] = 2;
    branch_of.emplace(id, b);
    return b;
  };
  for (const auto& [id, node] : nodes)
    (void)add(add, id);
  for (Ups& u : ups_)
    u.share = ups_rating_total > 0.0 ? u.share / ups_rating_total : 0.0;

  // Rack feeds, in rack order.
  feed_.assign(2 * layout.rack_count, -1);
  std::vector<const core::RackFeedSpec*> rack_feed(layout.rack_count, nullptr);
  for (const core::RackFeedSpec& f : e.rack_feeds) {
    const auto it = std::find(layout.rack_ids.begin(), layout.rack_ids.end(), f.rack);
    if (it == layout.rack_ids.end()) {
      throw std::invalid_argument("rack feeds: unknown rack '" + f.rack + "'");
    }
    const auto r = static_cast<std::size_t>(it - layout.rack_ids.begin());
    if (rack_feed[r] != nullptr) {
      throw std::invalid_argument("rack feeds: rack '" + f.rack + "' is listed twice");
    }
    rack_feed[r] = &f;
  }
  const core::RackFeedSpec ideal;  // both feeds on the MV bus, no impedance, no breaker
  for (std::size_t r = 0; r < layout.rack_count; ++r) {
    const core::RackFeedSpec* f = rack_feed[r];
    if (f == nullptr) {
      if (!e.rack_feeds.empty()) {
        throw std::invalid_argument("rack feeds: rack '" + layout.rack_ids[r]
                                    + "' has none; every rack needs its feeds when any has");
      }
      f = &ideal;
    }
    for (int side = 0; side < (f->dual ? 2 : 1); ++side) {
      const std::string& parent_id = side == kFeedA ? f->parent_a : f->parent_b;
      const core::FeedSpec& spec = side == kFeedA ? f->a : f->b;
      int parent = PowerTree::kSourceBus;
      if (!parent_id.empty()) {
        const auto it = branch_of.find(parent_id);
        if (it == branch_of.end()) {
          throw std::invalid_argument("rack " + layout.rack_ids[r] + ": feed "
                                      + (side == kFeedA ? "A" : "B") + " names unknown parent '"
                                      + parent_id + "'");
        }
        parent = it->second;
      }
      const std::string id = layout.rack_ids[r] + (side == kFeedA ? "/feed_a" : "/feed_b");
      if (!nonNegative(spec.R) || !std::isfinite(spec.X)) {
        throw std::invalid_argument("feed " + id + ": resistance must be >= 0 ohm");
      }
      feed_[2 * r + static_cast<std::size_t>(side)] = tree_.addLine(parent, {spec.R, spec.X});
      push(id, ElementKind::Feed, spec.I_rated, -1, spec.breaker);
    }
  }
  feed_rack_.assign(tree_.size(), -1);
  for (std::size_t r = 0; r < layout.rack_count; ++r) {
    for (int side = 0; side < 2; ++side) {
      const int b = feed_[2 * r + static_cast<std::size_t>(side)];
      if (b >= 0) feed_rack_[static_cast<std::size_t>(b)] = static_cast<int>(r);
    }
  }
  lost_.assign(tree_.size(), 0);
  for (std::size_t b = 0; b < tree_.size(); ++b) {
    if (breaker_[b].present()) breakers_.push_back(static_cast<std::uint32_t>(b));
  }
  room_loss_.assign(room_names_.size(), 0.0);
  events_.reserve(kEventsReserved);
  for (const Ups& u : ups_)
    soc_min_seen_ = std::min(soc_min_seen_, u.E_capacity > 0.0 ? u.E / u.E_capacity : 1.0);
  tree_.energise();
}

double Distribution::rackFeedLoss(std::size_t rack) const noexcept {
  double P = 0.0;
  for (int side = 0; side < 2; ++side) {
    const int b = feed_[2 * rack + static_cast<std::size_t>(side)];
    if (b >= 0) P += tree_.lossPower(static_cast<std::size_t>(b));
  }
  return P;
}

double Distribution::lossByKind(ElementKind kind) const noexcept {
  double P = 0.0;
  for (std::size_t b = 0; b < tree_.size(); ++b) {
    if (element_kind_[b] == kind) P += tree_.lossPower(b);
  }
  return P;
}

double Distribution::upsStateOfCharge(std::size_t u) const noexcept {
  return ups_[u].E_capacity > 0.0 ? ups_[u].E / ups_[u].E_capacity : 0.0;
}

double Distribution::upsBatteryPower(std::size_t u) const noexcept {
  const PowerTree::ConverterResult& r = tree_.converterResult(u);
  return r.P_battery - r.P_charge;
}

double Distribution::lossEnergy(ElementKind kind) const noexcept {
  return E_loss_[kindIndex(kind)].value();
}

double Distribution::lossEnergy() const noexcept {
  double E = 0.0;
  for (const CompensatedSum& s : E_loss_)
    E += s.value();
  return E;
}

bool Distribution::feedLive(std::size_t rack, int side) const noexcept {
  const int b = feed_[2 * rack + static_cast<std::size_t>(side)];
  return b >= 0 && tree_.live(static_cast<std::size_t>(b));
}

bool Distribution::placeFeedLoad(std::size_t rack, int side, double P, double tan_phi) noexcept {
  const int b = feed_[2 * rack + static_cast<std::size_t>(side)];
  return b >= 0 && tree_.placeLoad(static_cast<std::size_t>(b), {P, P * tan_phi});
}

void Distribution::record(double t, ElectricalEvent::Kind kind, int element, double value) {
  events_.push_back(ElectricalEvent{t, kind, element, value});
}

void Distribution::applySources(double t, double dt) noexcept {
  const double tolerance = 1e-9 * (dt > 0.0 ? dt : 1.0);
  const double t_close = outage_time_ + generator_.start_delay;
  if (!utility_live_ && generator_.present && t >= t_close - tolerance) {
    if (generator_.fails_to_start) {
      if (!generator_failed_reported_) {
        record(t_close, ElectricalEvent::Kind::GeneratorFailedToStart, -1, 0.0);
        generator_failed_reported_ = true;
      }
    } else if (!generator_online_) {
      generator_online_ = true;
      record(t_close, ElectricalEvent::Kind::GeneratorOnline, -1, 0.0);
    }
  }
  tree_.setSourceLive(utility_live_ || generator_online_);
  tree_.setSourceImpedance(utility_live_ ? Z_utility_ : std::complex<double>(0.0, 0.0));
  double limit = kInfinity;
  if (!utility_live_) {
    limit = 0.0;
    if (generator_online_) {
      // Load acceptance over the step: the ramp at the step's middle.
      const double accepted = generator_.ramp_rate > 0.0
                                  ? generator_.ramp_rate * std::max(0.0, t + 0.5 * dt - t_close)
                                  : generator_.P_rated;
      limit = static_cast<double>(generator_.units) * std::min(generator_.P_rated, accepted);
    }
  }
  source_limit_ = limit;
  for (std::size_t u = 0; u < ups_.size(); ++u)
    tree_.setConverterInputLimit(u, limit == kInfinity ? kInfinity : limit * ups_[u].share);
}

void Distribution::updateCloses() noexcept {
  for (std::size_t b = 0; b < tree_.size(); ++b)
    tree_.setClosed(b, breaker_[b].closed() && lost_[b] == 0);
}

void Distribution::beginStep(double t, double dt) noexcept {
  applySources(t, dt);
  updateCloses();
  tree_.energise();
  bool changed = false;
  for (std::size_t u = 0; u < ups_.size(); ++u) {
    Ups& s = ups_[u];
    const bool input = tree_.converterInputLive(u);
    const int b = tree_.converterBranch(u);
    if (s.dropped && input) {
      // Restart once the input can carry what was dropped (the generators' ramp may still be
      // short of it); the battery covers the rest of the step as usual.
      const double limit = source_limit_ == kInfinity ? kInfinity : source_limit_ * s.share;
      if (limit >= s.P_need_at_drop) {
        s.dropped = false;
        changed = true;
        record(t, ElectricalEvent::Kind::UpsOutputRestored, b, upsStateOfCharge(u));
      }
    }
    tree_.setConverterOutputOn(u, !s.dropped);
    double request = 0.0;
    if (input && s.E < s.E_capacity && dt > 0.0) {
      request = std::min(s.P_recharge, (s.E_capacity - s.E) / (s.charge_efficiency * dt));
    }
    tree_.setConverterChargeRequest(u, request);
  }
  if (changed) tree_.energise();
}

bool Distribution::solve(double t, double dt) noexcept {
  converged_ = tree_.solve();
  bool changed = false;
  for (std::size_t u = 0; u < ups_.size(); ++u) {
    const int b = tree_.converterBranch(u);
    if (!tree_.live(static_cast<std::size_t>(b))) continue;
    Ups& s = ups_[u];
    const PowerTree::ConverterResult& r = tree_.converterResult(u);
    if (r.P_battery > 0.0 && r.P_battery * dt > s.E - s.E_min) {
      s.dropped = true;
      s.on_battery = false;
      s.P_need_at_drop = r.P_from_input + r.P_battery;
      tree_.setConverterOutputOn(u, false);
      record(t, ElectricalEvent::Kind::UpsBatteryDepleted, b, upsStateOfCharge(u));
      ++depletions_;
      changed = true;
    }
  }
  if (changed) {
    tree_.energise();
    return false;
  }
  return true;
}

void Distribution::commit(double t, double dt) noexcept {
  for (std::size_t u = 0; u < ups_.size(); ++u) {
    Ups& s = ups_[u];
    const PowerTree::ConverterResult& r = tree_.converterResult(u);
    const double dE = (r.P_charge - r.P_battery) * dt;
    s.E += dE;
    E_battery_change_.add(dE);
    const int b = tree_.converterBranch(u);
    if (r.P_battery > 0.0 && !s.on_battery) {
      s.on_battery = true;
      record(t, ElectricalEvent::Kind::UpsOnBattery, b, upsStateOfCharge(u));
    } else if (r.P_battery <= 0.0 && s.on_battery) {
      s.on_battery = false;
      record(t, ElectricalEvent::Kind::UpsOnInput, b, upsStateOfCharge(u));
    }
    if (s.E_capacity > 0.0) soc_min_seen_ = std::min(soc_min_seen_, s.E / s.E_capacity);
  }
  for (const std::uint32_t b : breakers_) {
    Breaker& breaker = breaker_[b];
    if (!breaker.closed()) continue;
    const double I = tree_.live(b) ? tree_.current(b) : 0.0;
    double when = t;
    const TripCause cause = breaker.step(t, dt, I, &when);
    if (cause != TripCause::None) {
      const double M = I / breaker.spec().I_pickup;
      record(when,
             cause == TripCause::Instantaneous ? ElectricalEvent::Kind::BreakerTripInstantaneous
                                               : ElectricalEvent::Kind::BreakerTripInverseTime,
             static_cast<int>(b), M);
      ++trips_;
    }
  }
  double loss[kKinds] = {};
  std::fill(room_loss_.begin(), room_loss_.end(), 0.0);
  for (std::size_t b = 0; b < tree_.size(); ++b) {
    const double P = tree_.lossPower(b);
    loss[kindIndex(element_kind_[b])] += P;
    const int room = element_room_[b];
    if (room >= 0) room_loss_[static_cast<std::size_t>(room)] += P;
  }
  P_loss_total_ = 0.0;
  for (std::size_t k = 0; k < kKinds; ++k) {
    E_loss_[k].add(loss[k] * dt);
    P_loss_total_ += loss[k];
  }
  const double P_in = inputPower();
  E_input_.add(P_in * dt);
  if (utility_live_) {
    E_utility_.add(P_in * dt);
  } else {
    E_generator_.add(P_in * dt);
    if (generator_online_) {
      gen_utilisation_max_ =
          std::max(gen_utilisation_max_,
                   P_in / (static_cast<double>(generator_.units) * generator_.P_rated));
    }
  }
  if (!converged_) ++unconverged_;
}

void Distribution::loseFeed(std::size_t rack, int side, double t) {
  const int b = feed_[2 * rack + static_cast<std::size_t>(side)];
  if (b < 0) throw std::invalid_argument("the rack has no feed B (single-corded)");
  if (lost_[static_cast<std::size_t>(b)] != 0) return;
  lost_[static_cast<std::size_t>(b)] = 1;
  record(t, ElectricalEvent::Kind::FeedLost, b, 0.0);
}

void Distribution::restoreFeed(std::size_t rack, int side, double t) {
  const int b = feed_[2 * rack + static_cast<std::size_t>(side)];
  if (b < 0) throw std::invalid_argument("the rack has no feed B (single-corded)");
  const auto k = static_cast<std::size_t>(b);
  if (lost_[k] == 0 && breaker_[k].closed()) return;
  lost_[k] = 0;
  breaker_[k].reclose();
  record(t, ElectricalEvent::Kind::FeedRestored, b, 0.0);
}

void Distribution::utilityOutage(double t) {
  if (!utility_live_) return;
  utility_live_ = false;
  outage_time_ = t;
  generator_failed_reported_ = false;
  record(t, ElectricalEvent::Kind::UtilityLost, -1, 0.0);
}

void Distribution::utilityRestore(double t) {
  if (utility_live_) return;
  utility_live_ = true;
  record(t, ElectricalEvent::Kind::UtilityRestored, -1, 0.0);
  if (generator_online_) {
    generator_online_ = false;
    record(t, ElectricalEvent::Kind::GeneratorStopped, -1, 0.0);
  }
}

std::string Distribution::describe(const ElectricalEvent& ev,
                                   const std::vector<std::string>& rack_ids) const {
  using K = ElectricalEvent::Kind;
  std::string what;
  const auto fixed = [](double v, int digits) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, v);
    return std::string(text);
  };
  const auto general = [](double v) {
    char text[64];
    std::snprintf(text, sizeof text, "%.3g", v);
    return std::string(text);
  };
  const auto percent = [&](double v) { return fixed(100.0 * v, 1) + " %)"; };
  const std::string element = ev.element < 0 ? std::string("site")
                              : (ev.kind == K::RackUnpowered || ev.kind == K::RackRepowered)
                                  ? (static_cast<std::size_t>(ev.element) < rack_ids.size()
                                         ? rack_ids[static_cast<std::size_t>(ev.element)]
                                         : std::string("rack"))
                                  : element_id_[static_cast<std::size_t>(ev.element)];
  switch (ev.kind) {
    case K::UtilityLost:
      what = "utility lost";
      break;
    case K::UtilityRestored:
      what = "utility restored";
      break;
    case K::GeneratorOnline:
      what = "generators closed onto the MV bus";
      break;
    case K::GeneratorFailedToStart:
      what = "generators failed to start";
      break;
    case K::GeneratorStopped:
      what = "generators stopped (load back on the utility)";
      break;
    case K::UpsOnBattery:
      what = element + " on battery (state of charge " + percent(ev.value);
      break;
    case K::UpsOnInput:
      what = element + " back on its input (state of charge " + percent(ev.value);
      break;
    case K::UpsBatteryDepleted:
      what = element + " battery depleted: output dropped, load lost (state of charge "
             + percent(ev.value);
      break;
    case K::UpsOutputRestored:
      what = element + " output restored";
      break;
    case K::BreakerTripInverseTime:
      what = element + " breaker tripped (inverse time, " + general(ev.value) + " x pickup)";
      break;
    case K::BreakerTripInstantaneous:
      what = element + " breaker tripped (instantaneous, " + general(ev.value) + " x pickup)";
      break;
    case K::FeedLost:
      what = element + " lost";
      break;
    case K::FeedRestored:
      what = element + " restored";
      break;
    case K::RackUnpowered:
      what = element + " unpowered (" + fixed(ev.value, 0) + " GPUs off)";
      break;
    case K::RackRepowered:
      what = element + " powered again";
      break;
  }
  return "t = " + fixed(ev.time, 3) + " s: " + what;
}

void Distribution::visitState(core::StateArchive& a) {
  tree_.visitState(a);
  a.section("distribution");
  a(I_rated_, room_loss_, lost_);
  a.each(breaker_, [](core::StateArchive& b, Breaker& breaker) { breaker.visitState(b); });
  a.trivial(ups_);
  a(Z_utility_, utility_live_, generator_online_, generator_failed_reported_, outage_time_,
    source_limit_, P_loss_total_, converged_);
  E_input_.visitState(a);
  E_utility_.visitState(a);
  E_generator_.visitState(a);
  E_battery_change_.visitState(a);
  for (CompensatedSum& sum : E_loss_)
    sum.visitState(a);
  a(unconverged_, trips_, depletions_, soc_min_seen_, gen_utilisation_max_);
  a.trivialResizable(events_);
}

}  // namespace racktwin::power
