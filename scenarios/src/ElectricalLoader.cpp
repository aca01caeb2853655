#include "racktwin/scenarios/ElectricalLoader.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "TypedDataFile.hpp"
#include "YamlReader.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/power/Distribution.hpp"
#include "racktwin/power/PowerSmoothing.hpp"
#include "racktwin/power/PsuEfficiency.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace racktwin::scenarios {
namespace {

namespace fs = std::filesystem;
using core::Dimension;
using detail::Check;
using detail::closestNames;
using detail::formatNumber;
using detail::joined;
using detail::ListReader;
using detail::MapReader;
using detail::YamlDocument;

constexpr double kOhmPerKm = 1e-3;  // ohm/m per ohm/km
constexpr int kMaxUnits = 1000;

const std::initializer_list<std::string_view> kBreakerKeys = {"pickup_A", "curve", "time_dial",
                                                              "instantaneous_A"};

/// data/electrical/<type>.yaml
YamlDocument openData(const fs::path& data_dir, const MapReader& ref, std::string_view key,
                      std::string_view kind) {
  return detail::openTypedDataFile(data_dir, "electrical", ref, key, kind);
}

// --- Pieces ----------------------------------------------------------------------------------

core::TripCurveSpec namedCurve(const MapReader& m, const std::string& name) {
  // IEC 60255-151:2009 Table 1 and IEEE C37.112-2018 Table 1 (reset constants from the latter).
  static const std::map<std::string, core::TripCurveSpec> kCurves = {
      {"iec_standard_inverse", {0.14, 0.0, 0.02, 0.0}},
      {"iec_very_inverse", {13.5, 0.0, 1.0, 0.0}},
      {"iec_extremely_inverse", {80.0, 0.0, 2.0, 0.0}},
      {"iec_long_time_inverse", {120.0, 0.0, 1.0, 0.0}},
      {"ieee_moderately_inverse", {0.0515, 0.114, 0.02, 4.85}},
      {"ieee_very_inverse", {19.61, 0.491, 2.0, 21.6}},
      {"ieee_extremely_inverse", {28.2, 0.1217, 2.0, 29.1}},
  };
  const auto it = kCurves.find(name);
  if (it == kCurves.end()) {
    std::vector<std::string> names;
    for (const auto& [n, c] : kCurves)
      names.push_back(n);
    m.fail("curve", "unknown curve '" + name + "'; expected one of: " + joined(names)
                        + ", or a map {A, B, p, reset}");
  }
  return it->second;
}

core::BreakerSpec readBreaker(const MapReader& parent) {
  core::BreakerSpec b;
  const auto m = parent.optionalMap("breaker", kBreakerKeys);
  if (!m) return b;
  b.present = true;
  b.I_pickup = m->number("pickup_A", Check::Positive);
  if (m->isScalar("curve")) {
    b.curve = namedCurve(*m, m->string("curve", "a curve name"));
  } else if (m->has("curve")) {
    const MapReader c = m->map("curve", {"A", "B", "p", "reset"});
    b.curve.A = c.quantity("A", Dimension::Time, Check::NonNegative);
    b.curve.B = c.quantityOr("B", Dimension::Time, 0.0, Check::NonNegative);
    b.curve.p = c.number("p", Check::Positive);
    b.curve.reset = c.quantityOr("reset", Dimension::Time, 0.0, Check::NonNegative);
    if (!(b.curve.A + b.curve.B > 0.0)) c.fail("A", "A and B must not both be 0");
    c.finish();
  }
  b.time_dial = m->number("time_dial", Check::Positive);
  if (m->has("instantaneous_A")) {
    b.I_instantaneous = m->number("instantaneous_A", Check::Positive);
    if (b.I_instantaneous <= b.I_pickup) {
      m->fail("instantaneous_A", "must lie above pickup_A (" + formatNumber(b.I_pickup) + " A)");
    }
  }
  m->finish();
  return b;
}

/// length x per-km impedance of a line or feed.
void readImpedance(const MapReader& m, double& R, double& X) {
  const double length =
      m.quantity("length", Dimension::Length, Check::NonNegative, detail::Kind::CableLength);
  R = length * kOhmPerKm * m.number("resistance_ohm_per_km", Check::NonNegative);
  X = m.has("reactance_ohm_per_km")
          ? length * kOhmPerKm * m.number("reactance_ohm_per_km", Check::NonNegative)
          : 0.0;
}

core::PowerSmoothingSpec readSmoothing(const MapReader& m) {
  core::PowerSmoothingSpec s;
  s.enabled = m.booleanOr("enabled", true);
  s.E_per_gpu = m.quantityOr("energy_per_gpu", Dimension::Energy, s.E_per_gpu, Check::NonNegative);
  s.floor_fraction = m.quantityOr("floor", Dimension::Dimensionless, 0.0, Check::Fraction);
  s.ramp_up = m.has("ramp_up_W_per_s") ? m.number("ramp_up_W_per_s", Check::NonNegative) : 0.0;
  s.ramp_down =
      m.has("ramp_down_W_per_s") ? m.number("ramp_down_W_per_s", Check::NonNegative) : 0.0;
  s.floor_hold_time = m.quantityOr("floor_hold_time", Dimension::Time, 0.0, Check::NonNegative);
  s.storage_time_constant =
      m.quantityOr("storage_time_constant", Dimension::Time, 0.0, Check::NonNegative);
  m.finish();
  return s;
}

/// The site's rack ids, in site order and by id: built once for all the `racks:` sets of a
/// section (a template gives one set per rack group, and copying every id for each set made
/// loading a 4,192-rack site take a second).
struct RackIds {
  explicit RackIds(const core::SiteSpec& site) {
    ids.reserve(site.racks.size());
    for (const core::RackSpec& r : site.racks)
      ids.push_back(r.id.str());
    index.reserve(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i)
      index.emplace(ids[i], i);
  }
  std::vector<std::string> ids;
  std::unordered_map<std::string, std::size_t> index;
};

/// `racks:` as 'all', a list of rack ids, or 'prefix/*' (every rack whose id starts so).
std::vector<std::string> readRackSet(const MapReader& m, std::string_view key,
                                     const RackIds& known) {
  std::vector<std::string> ids;
  if (m.isScalar(key)) {
    const std::string text = m.string(key, "'all', 'prefix/*' or a list of rack ids");
    if (text == "all") return known.ids;
    if (text.size() >= 2 && text.compare(text.size() - 2, 2, "/*") == 0) {
      const std::string prefix = text.substr(0, text.size() - 1);
      for (const std::string& id : known.ids) {
        if (id.compare(0, prefix.size(), prefix) == 0) ids.push_back(id);
      }
      if (ids.empty()) m.fail(key, "no rack id starts with " + core::quoteForMessage(prefix));
      return ids;
    }
    m.fail(key,
           "expected 'all', 'prefix/*' or a list of rack ids, got " + core::quoteForMessage(text));
  }
  const ListReader list = m.list(key, "rack ids");
  std::unordered_set<std::string> listed;
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string id = list.id(i).str();
    if (known.index.find(id) == known.index.end()) {
      list.failItem(i, "unknown rack '" + id + "'; defined racks: " + closestNames(id, known.ids));
    }
    if (!listed.insert(id).second) list.failItem(i, "rack '" + id + "' is listed twice");
    ids.push_back(std::move(id));
  }
  return ids;
}

/// Ids of the tree, to check parents once every element is read.
class Elements {
 public:
  void add(const MapReader& m, const std::string& id) {
    if (!seen_.emplace(id, m.whereValue("id").line).second) {
      m.fail("id", "duplicate element id '" + id + "'; already used at line "
                       + std::to_string(seen_[id]));
    }
  }
  void parent(const MapReader& m, std::string_view key, const std::string& id) {
    parents_.push_back(Ref{id, m.whereValue(key), m.keyPath(key)});
  }
  void check() const {
    std::vector<std::string> names;
    for (const auto& [id, line] : seen_)
      names.push_back(id);
    for (const Ref& r : parents_) {
      if (!r.id.empty() && seen_.find(r.id) == seen_.end()) {
        throw core::InputError(r.where, r.key,
                               "unknown element '" + r.id
                                   + "'; defined: " + closestNames(r.id, names)
                                   + " (leave the key out for the MV bus)");
      }
    }
  }

 private:
  struct Ref {
    std::string id;
    core::SourceLocation where;
    std::string key;
  };
  std::map<std::string, int> seen_;
  std::vector<Ref> parents_;
};

std::string readParent(const MapReader& m, std::string_view key, Elements& elements) {
  if (!m.has(key)) return "";
  const std::string id = m.id(key).str();
  elements.parent(m, key, id);
  return id;
}

std::string readRoom(const MapReader& m) {
  return m.has("room") ? m.id("room").str() : std::string();
}

// --- Sections --------------------------------------------------------------------------------

void readUtility(const MapReader& e, core::ElectricalSpec& spec) {
  const auto m = e.optionalMap("utility", {"voltage", "short_circuit_MVA", "x_over_r"});
  if (!m) return;
  spec.utility.V_nominal = m->quantity("voltage", Dimension::Voltage, Check::Positive);
  if (m->has("short_circuit_MVA")) {
    spec.utility.S_short_circuit = 1e6 * m->number("short_circuit_MVA", Check::Positive);
  }
  spec.utility.X_over_R =
      m->has("x_over_r") ? m->number("x_over_r", Check::Positive) : spec.utility.X_over_R;
  m->finish();
}

void readGenerator(const MapReader& e, const fs::path& data_dir, core::ElectricalSpec& spec) {
  const auto m = e.optionalMap(
      "generator", {"type", "units", "start_delay", "ramp_rate_kW_per_s", "fails_to_start"});
  if (!m) return;
  core::GeneratorSpec& g = spec.generator;
  g.present = true;
  {
    const YamlDocument doc = openData(data_dir, *m, "type", "generator");
    const MapReader d = MapReader::root(doc, {"racktwin_data", "kind", "description", "rated_power",
                                              "start_delay", "ramp_rate_kW_per_s"});
    detail::readDataHeader(d, "generator");
    g.P_rated = d.quantity("rated_power", Dimension::Power, Check::Positive);
    g.start_delay = d.quantity("start_delay", Dimension::Time, Check::NonNegative);
    g.ramp_rate = 1e3 * d.number("ramp_rate_kW_per_s", Check::NonNegative);
    d.finish();
  }
  g.units = m->integerOr("units", 1, 1, kMaxUnits);
  g.start_delay = m->quantityOr("start_delay", Dimension::Time, g.start_delay, Check::NonNegative);
  if (m->has("ramp_rate_kW_per_s")) {
    g.ramp_rate = 1e3 * m->number("ramp_rate_kW_per_s", Check::NonNegative);
  }
  g.fails_to_start = m->booleanOr("fails_to_start", false);
  m->finish();
}

void readTransformers(const MapReader& e, const fs::path& data_dir, Elements& elements,
                      core::ElectricalSpec& spec) {
  const auto list = e.optionalList("transformers", "transformers");
  if (!list) return;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const MapReader m = list->map(i, {"id", "type", "parent", "room", "breaker"});
    core::TransformerSpec t;
    t.id = m.id("id").str();
    elements.add(m, t.id);
    t.type = m.typeName("type");
    {
      const YamlDocument doc = openData(data_dir, m, "type", "transformer");
      const MapReader d = MapReader::root(
          doc, {"racktwin_data", "kind", "description", "rated_kVA", "primary_voltage",
                "secondary_voltage", "no_load_loss", "load_loss", "impedance"});
      detail::readDataHeader(d, "transformer");
      t.S_rated = 1e3 * d.number("rated_kVA", Check::Positive);
      t.V_primary = d.quantity("primary_voltage", Dimension::Voltage, Check::Positive);
      t.V_secondary = d.quantity("secondary_voltage", Dimension::Voltage, Check::Positive);
      t.P_no_load = d.quantity("no_load_loss", Dimension::Power, Check::NonNegative);
      t.P_load_rated = d.quantity("load_loss", Dimension::Power, Check::NonNegative);
      t.impedance = d.quantity("impedance", Dimension::Dimensionless, Check::PositiveFraction);
      if (!(t.impedance > t.P_load_rated / t.S_rated)) {
        d.fail("impedance", "must exceed the resistance, load_loss / rating = "
                                + formatNumber(100.0 * t.P_load_rated / t.S_rated) + " %");
      }
      d.finish();
    }
    t.parent = readParent(m, "parent", elements);
    t.room = readRoom(m);
    t.breaker = readBreaker(m);
    m.finish();
    spec.transformers.push_back(std::move(t));
  }
}

void readUpses(const MapReader& e, const fs::path& data_dir, Elements& elements,
               core::ElectricalSpec& spec) {
  const auto list = e.optionalList("upses", "UPSs");
  if (!list) return;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const MapReader m =
        list->map(i, {"id", "type", "parent", "modules", "output_voltage", "battery_energy",
                      "initial_soc", "minimum_soc", "room", "breaker"});
    core::UpsSpec u;
    u.id = m.id("id").str();
    elements.add(m, u.id);
    u.type = m.typeName("type");
    {
      const YamlDocument doc = openData(data_dir, m, "type", "UPS");
      const MapReader d = MapReader::root(
          doc, {"racktwin_data", "kind", "description", "rated_power", "efficiency_curve",
                "input_power_factor", "battery_energy", "recharge_power", "charge_efficiency"});
      detail::readDataHeader(d, "ups");
      u.P_rated = d.quantity("rated_power", Dimension::Power, Check::Positive);
      const MapReader c = d.map("efficiency_curve", {"load", "efficiency"});
      const ListReader load = c.list("load", "load fractions");
      const ListReader eta = c.list("efficiency", "efficiencies");
      if (load.size() < 2) c.fail("load", "expected at least two points");
      if (eta.size() != load.size()) {
        c.fail("efficiency", "expected " + std::to_string(load.size())
                                 + " values, one per load, got " + std::to_string(eta.size()));
      }
      for (std::size_t k = 0; k < load.size(); ++k) {
        const double x = load.quantity(k, Dimension::Dimensionless, Check::PositiveFraction);
        if (!u.efficiency_load_fraction.empty() && x <= u.efficiency_load_fraction.back()) {
          load.failItem(k, "loads must increase strictly");
        }
        u.efficiency_load_fraction.push_back(x);
        u.efficiency.push_back(eta.quantity(k, Dimension::Dimensionless, Check::PositiveFraction,
                                            detail::Kind::ConverterEfficiency));
      }
      // The power tree's own check of the curve, made here so that it names this file.
      try {
        (void)power::PsuEfficiency(core::EfficiencyCurve{u.efficiency_load_fraction, u.efficiency},
                                   u.P_rated, "UPS");
      } catch (const std::invalid_argument& ex) {
        c.fail("efficiency", ex.what());
      }
      c.finish();
      u.input_power_factor =
          d.quantity("input_power_factor", Dimension::Dimensionless, Check::PositiveFraction);
      u.E_battery = d.quantity("battery_energy", Dimension::Energy, Check::NonNegative);
      u.P_recharge = d.quantity("recharge_power", Dimension::Power, Check::NonNegative);
      u.charge_efficiency =
          d.quantity("charge_efficiency", Dimension::Dimensionless, Check::PositiveFraction);
      d.finish();
    }
    u.parent = readParent(m, "parent", elements);
    u.modules = m.integerOr("modules", 1, 1, kMaxUnits);
    u.V_output = m.quantityOr("output_voltage", Dimension::Voltage, 0.0, Check::Positive);
    u.E_battery =
        m.quantityOr("battery_energy", Dimension::Energy, u.E_battery, Check::NonNegative);
    u.soc_initial = m.quantityOr("initial_soc", Dimension::Dimensionless, 1.0, Check::Fraction);
    u.soc_min = m.quantityOr("minimum_soc", Dimension::Dimensionless, 0.0, Check::Fraction);
    if (u.soc_min > u.soc_initial) {
      m.fail("minimum_soc", "must not exceed initial_soc (" + formatNumber(u.soc_initial) + ")");
    }
    u.room = readRoom(m);
    u.breaker = readBreaker(m);
    m.finish();
    spec.upses.push_back(std::move(u));
  }
}

void readLines(const MapReader& e, Elements& elements, core::ElectricalSpec& spec) {
  const auto list = e.optionalList("lines", "lines (switchboards, busways, RPPs, cables)");
  if (!list) return;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const MapReader m = list->map(i, {"id", "kind", "parent", "length", "resistance_ohm_per_km",
                                      "reactance_ohm_per_km", "rating_A", "room", "breaker"});
    core::LineSpec l;
    l.id = m.id("id").str();
    elements.add(m, l.id);
    const std::string kind = m.string("kind", "switchboard, busway, rpp or cable");
    if (kind == "switchboard") {
      l.kind = core::LineSpec::Kind::Switchboard;
    } else if (kind == "busway") {
      l.kind = core::LineSpec::Kind::Busway;
    } else if (kind == "rpp") {
      l.kind = core::LineSpec::Kind::Rpp;
    } else if (kind == "cable") {
      l.kind = core::LineSpec::Kind::Cable;
    } else {
      m.fail("kind",
             "expected switchboard, busway, rpp or cable, got " + core::quoteForMessage(kind));
    }
    l.parent = readParent(m, "parent", elements);
    readImpedance(m, l.R, l.X);
    l.I_rated = m.has("rating_A") ? m.number("rating_A", Check::Positive) : 0.0;
    l.room = readRoom(m);
    l.breaker = readBreaker(m);
    m.finish();
    spec.lines.push_back(std::move(l));
  }
}

core::FeedSpec readFeed(const MapReader& m) {
  core::FeedSpec f;
  readImpedance(m, f.R, f.X);
  f.I_rated = m.has("rating_A") ? m.number("rating_A", Check::Positive) : 0.0;
  f.breaker = readBreaker(m);
  m.finish();
  return f;
}

void readRackFeeds(const MapReader& e, Elements& elements, const core::SiteSpec& site,
                   core::ElectricalSpec& spec) {
  const auto m = e.optionalMap(
      "rack_feeds", {"split", "busbar_voltage", "busbar_resistance_ohm", "a", "b", "racks"});
  if (!m) return;
  if (m->has("split")) {
    const std::string split = m->string("split", "psus_in_shelf or shelves");
    if (split == "psus_in_shelf") {
      spec.feed_split = core::FeedSplit::PsusInShelf;
    } else if (split == "shelves") {
      spec.feed_split = core::FeedSplit::Shelves;
    } else {
      m->fail("split",
              "expected psus_in_shelf (half of every shelf's PSUs on each feed) or "
              "shelves (half of the shelves on each feed), got "
                  + core::quoteForMessage(split));
    }
  }
  spec.busbar_V_nominal =
      m->quantityOr("busbar_voltage", Dimension::Voltage, spec.busbar_V_nominal, Check::Positive);
  if (m->has("busbar_resistance_ohm")) {
    spec.busbar_R = m->number("busbar_resistance_ohm", Check::NonNegative);
  }
  const std::initializer_list<std::string_view> feed_keys = {
      "length", "resistance_ohm_per_km", "reactance_ohm_per_km", "rating_A", "breaker"};
  const core::FeedSpec a = readFeed(m->map("a", feed_keys));
  const core::FeedSpec b = m->has("b") ? readFeed(m->map("b", feed_keys)) : a;
  const ListReader groups = m->list("racks", "groups of racks and the elements feeding them");
  std::set<std::string> fed;
  const RackIds known(site);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const MapReader g = groups.map(i, {"racks", "a", "b"});
    const std::vector<std::string> racks = readRackSet(g, "racks", known);
    const std::string parent_a = readParent(g, "a", elements);
    const bool dual = g.has("b");
    const std::string parent_b = dual ? readParent(g, "b", elements) : std::string();
    if (!g.has("a")) g.fail("a", "required key is missing; expected the element feeding side A");
    for (const std::string& rack : racks) {
      if (!fed.insert(rack).second) g.fail("racks", "rack '" + rack + "' already has its feeds");
      core::RackFeedSpec f;
      f.rack = rack;
      f.parent_a = parent_a;
      f.parent_b = parent_b;
      f.dual = dual;
      f.a = a;
      f.b = b;
      spec.rack_feeds.push_back(std::move(f));
    }
    g.finish();
  }
  for (const core::RackSpec& r : site.racks) {
    if (fed.find(r.id.str()) == fed.end()) {
      m->fail("racks", "rack '" + r.id.str() + "' has no feeds; every rack needs them");
    }
  }
  m->finish();
}

void readPowerManagement(const MapReader& e, const core::SiteSpec& site,
                         core::ElectricalSpec& spec) {
  const auto m = e.optionalMap("power_management", {"max_q_power_fraction", "policies"});
  if (!m) return;
  spec.max_q_power_fraction = m->quantityOr("max_q_power_fraction", Dimension::Dimensionless,
                                            spec.max_q_power_fraction, Check::PositiveFraction);
  if (const auto list = m->optionalList("policies", "power policies")) {
    const RackIds known(site);
    for (std::size_t i = 0; i < list->size(); ++i) {
      const MapReader p = list->map(i, {"racks", "job", "profile", "gpu_power_cap", "smoothing"});
      core::PowerPolicySpec policy;
      if (p.has("racks") && p.has("job")) p.fail("job", "give racks or job, not both");
      if (p.has("racks")) {
        policy.racks = readRackSet(p, "racks", known);
      } else if (p.has("job")) {
        policy.job = p.id("job").str();
        const auto job = std::find_if(site.jobs.begin(), site.jobs.end(),
                                      [&](const auto& j) { return j.id == policy.job; });
        if (job == site.jobs.end())
          p.fail("job", "unknown job " + core::quoteForMessage(policy.job));
        // A scheduled job's racks are chosen during the run; a policy needs them when loading.
        if (job->gpus > 0) {
          p.fail("job", "job '" + policy.job
                            + "' is scheduled (it asks for gpus): its racks are not known before "
                              "the run; name the racks instead");
        }
      }
      if (p.has("profile")) {
        const std::string profile = p.string("profile", "max_p or max_q");
        if (profile == "max_q") {
          policy.profile = core::PowerProfile::MaxQ;
        } else if (profile != "max_p") {
          p.fail("profile", "expected max_p or max_q, got " + core::quoteForMessage(profile));
        }
      }
      policy.gpu_P_cap = p.quantityOr("gpu_power_cap", Dimension::Power, 0.0, Check::Positive,
                                      detail::Kind::GpuPowerLimit);
      if (const auto s = p.optionalMap(
              "smoothing", {"enabled", "energy_per_gpu", "floor", "ramp_up_W_per_s",
                            "ramp_down_W_per_s", "floor_hold_time", "storage_time_constant"})) {
        policy.smoothing = readSmoothing(*s);
      }
      p.finish();
      spec.power_policies.push_back(std::move(policy));
    }
  }
  m->finish();
}

core::ElectricalSpec readSection(const MapReader& e, const fs::path& data_dir,
                                 const core::SiteSpec& site) {
  core::ElectricalSpec spec;
  spec.present = true;
  Elements elements;
  readUtility(e, spec);
  readGenerator(e, data_dir, spec);
  readTransformers(e, data_dir, elements, spec);
  readUpses(e, data_dir, elements, spec);
  readLines(e, elements, spec);
  readRackFeeds(e, elements, site, spec);
  readPowerManagement(e, site, spec);
  if (e.has("default_room")) spec.default_room = e.id("default_room").str();
  e.finish();
  elements.check();
  // Build the tree and the power management once: what only the whole tree shows (a cycle, a
  // transformer on the wrong voltage) is reported here rather than when the run starts.
  core::SiteSpec check = site;
  check.electrical = spec;
  const core::SiteLayout layout = core::SiteLayout::build(check);
  try {
    const power::Distribution distribution(check, layout);
    const power::PowerManagement management(check, layout);
  } catch (const std::invalid_argument& error) {
    throw core::InputError(e.where(), e.path(), error.what());
  }
  return spec;
}

const std::initializer_list<std::string_view> kElectricalKeys = {
    "utility", "generator",  "transformers",     "upses",
    "lines",   "rack_feeds", "power_management", "default_room"};

}  // namespace

void readElectrical(const MapReader& root, const fs::path& data_dir, core::SiteSpec& site) {
  const auto e = root.optionalMap("electrical", kElectricalKeys);
  if (!e) return;
  site.electrical = readSection(*e, data_dir, site);
}

core::ElectricalSpec loadElectricalSection(const std::string& text,
                                           const std::string& path_for_messages,
                                           const std::string& data_dir,
                                           const core::SiteSpec& site) {
  const YamlDocument doc = detail::parseYaml(text, path_for_messages);
  if (!doc.root.IsMap()) return {};
  YAML::Node node;
  YAML::Mark mark;
  std::string dir = data_dir;
  for (auto it = doc.root.begin(); it != doc.root.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    if (it->first.Scalar() == "electrical") {
      node = it->second;
      mark = it->first.Mark();
    } else if (it->first.Scalar() == "data_dir" && data_dir.empty() && it->second.IsScalar()) {
      fs::path p(it->second.Scalar());
      if (p.is_relative()) p = fs::path(path_for_messages).parent_path() / p;
      dir = p.lexically_normal().string();
    }
  }
  if (!node) return {};
  if (dir.empty()) dir = defaultDataDir();
  const MapReader e(doc.file, node, "electrical", kElectricalKeys, mark);
  return readSection(e, fs::path(dir), site);
}

}  // namespace racktwin::scenarios
