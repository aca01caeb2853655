// Sweep files (SweepSpec.hpp, docs/capacity.md): read and checked; every error names the file,
// the line and the key.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "Plausibility.hpp"
#include "YamlReader.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/scenarios/SweepSpec.hpp"

namespace racktwin::scenarios {
namespace {

using detail::Check;
using detail::ListReader;
using detail::MapReader;
using detail::YamlDocument;
namespace fs = std::filesystem;

constexpr std::size_t kMaxCases = 1000000;

/// "17 degC" -> 17 and "degC"; "8" -> 8 and "". False when the text is not a number with an
/// optional unit.
bool splitNumber(const std::string& text, double& number, std::string& unit) {
  const char* begin = text.c_str();
  char* end = nullptr;
  number = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(number)) return false;
  std::string rest(end);
  const std::size_t first = rest.find_first_not_of(' ');
  unit = first == std::string::npos ? std::string() : rest.substr(first);
  return unit.find(' ') == std::string::npos;
}

/// The YAML text of a value: a scalar as written, a map or list re-emitted (an event).
std::string valueText(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

SweepParameter readParameter(const ListReader& list, std::size_t i, const YAML::Node& node,
                             std::set<std::string>& names) {
  const MapReader m = list.map(i, {"name", "key", "keys", "values", "labels", "range", "integer"});
  SweepParameter p;
  p.where = list.whereItem(i);
  p.name = m.string("name", "an identifier");
  if (p.name.find_first_of("/ ") != std::string::npos)
    m.fail("name", "an identifier without '/' or spaces (it names /parameters/<name>)");
  if (!names.insert(p.name).second) m.fail("name", "a second parameter named '" + p.name + "'");
  if (m.has("key") == m.has("keys")) m.fail("key", "give either key (one) or keys (a list)");
  if (m.has("key")) {
    p.keys.push_back(m.string("key", "a key path such as facility_water.supply_temperature"));
  } else {
    const ListReader keys = m.list("keys", "key paths set together");
    if (keys.size() == 0) m.fail("keys", "expected at least one key path");
    for (std::size_t k = 0; k < keys.size(); ++k)
      p.keys.push_back(keys.string(k, "a key path"));
  }
  if (m.has("values") == m.has("range")) m.fail("values", "give either values or range");
  if (m.has("values")) {
    const ListReader values = m.list("values", "values");
    if (values.size() == 0) m.fail("values", "expected at least one value");
    const YAML::Node raw = node["values"];
    for (std::size_t v = 0; v < values.size(); ++v) {
      const YAML::Node item = raw[v];
      std::vector<std::string> tuple;
      if (p.keys.size() == 1) {
        tuple.push_back(valueText(item));
      } else {
        if (!item.IsSequence() || item.size() != p.keys.size()) {
          values.failItem(v, "expected a list of " + std::to_string(p.keys.size())
                                 + " values, one for each of the parameter's keys");
        }
        for (const YAML::Node& x : item)
          tuple.push_back(valueText(x));
      }
      p.values.push_back(std::move(tuple));
    }
    if (m.has("labels")) {
      const ListReader labels = m.list("labels", "labels, one per value");
      if (labels.size() != p.values.size())
        m.fail("labels", "expected one label per value (" + std::to_string(p.values.size()) + ")");
      for (std::size_t k = 0; k < labels.size(); ++k)
        p.labels.push_back(labels.string(k, "a label"));
    }
    (void)m.booleanOr("integer", false);
  } else {
    p.is_range = true;
    if (p.keys.size() != 1) m.fail("range", "a range sets one key (key:, not keys:)");
    const MapReader r = m.map("range", {"from", "to"});
    std::string unit_to;
    double to = 0.0;
    if (!splitNumber(r.string("from", "a number with its unit"), p.from, p.unit))
      r.fail("from", "expected a number with its unit, such as 17 degC");
    if (!splitNumber(r.string("to", "a number with its unit"), to, unit_to))
      r.fail("to", "expected a number with its unit, such as 45 degC");
    if (unit_to != p.unit) r.fail("to", "must be written in the unit of from ('" + p.unit + "')");
    if (!(to > p.from)) r.fail("to", "must be above from");
    p.to = to;
    r.finish();
    p.integer = m.booleanOr("integer", false);
    if (m.has("labels")) m.fail("labels", "labels name list values, not a range");
  }
  m.finish();
  return p;
}

void readFaults(const MapReader& r, SweepSpec& s) {
  const auto f = r.optionalMap("faults", {"at", "settle", "unfaulted", "n_minus_1", "random"});
  if (!f) return;
  SweepFaults& faults = s.faults;
  faults.present = true;
  faults.at = f->quantity("at", core::Dimension::Time, Check::NonNegative);
  faults.settle = f->quantityOr("settle", core::Dimension::Time, 0.0, Check::NonNegative);
  faults.unfaulted = f->booleanOr("unfaulted", true);
  const auto kinds = [](const MapReader& m, std::string_view key, std::vector<std::string>& out) {
    const ListReader list = m.list(key, "fault kinds: cdu, pump, feed");
    for (std::size_t k = 0; k < list.size(); ++k) {
      const std::string kind = list.string(k, "cdu, pump or feed");
      if (kind != "cdu" && kind != "pump" && kind != "feed")
        list.failItem(k, "expected cdu (loss), pump (trip) or feed (loss), got '" + kind + "'");
      out.push_back(kind);
    }
  };
  if (f->has("n_minus_1")) kinds(*f, "n_minus_1", faults.n_minus_1);
  if (const auto random = f->optionalMap("random", {"k", "of", "draws"})) {
    faults.random_k = static_cast<std::size_t>(random->integer("k", 1, 100));
    faults.random_draws = static_cast<std::size_t>(random->integer("draws", 1, 100000));
    kinds(*random, "of", faults.random_of);
    random->finish();
  }
  if (faults.n_minus_1.empty() && faults.random_k == 0 && !faults.unfaulted)
    f->fail("unfaulted", "with no fault set and no unfaulted case there would be no case");
  f->finish();
}

void readEnvelope(const MapReader& r, SweepSpec& s) {
  const auto e = r.optionalMap("envelope", {"search", "rows", "warm_up"});
  if (!e) return;
  SweepEnvelope& env = s.envelope;
  env.present = true;
  env.where = r.whereKey("envelope");
  env.warm_up = e->quantityOr("warm_up", core::Dimension::Time, 0.0, Check::NonNegative);
  const MapReader search = e->map("search", {"key", "from", "to", "resolution"});
  env.key = search.string("key", "a numeric key path such as template.racks_per_row");
  std::string to_unit;
  if (!splitNumber(search.string("from", "a number"), env.from, env.unit))
    search.fail("from", "expected a number with its unit (none for a count)");
  if (!splitNumber(search.string("to", "a number"), env.to, to_unit))
    search.fail("to", "expected a number with its unit (none for a count)");
  if (to_unit != env.unit) search.fail("to", "must be written in the unit of from");
  if (!(env.to > env.from)) search.fail("to", "must be above from");
  env.integer =
      env.unit.empty() && std::floor(env.from) == env.from && std::floor(env.to) == env.to;
  env.resolution = 1.0;
  if (search.has("resolution")) {
    double resolution = 0.0;
    std::string unit;
    if (!splitNumber(search.string("resolution", "a number"), resolution, unit)
        || !(resolution > 0.0))
      search.fail("resolution", "expected a positive number");
    env.resolution = resolution;
    env.integer = env.integer && std::floor(resolution) == resolution;
  } else if (!env.integer) {
    search.fail("resolution", "required for a search over a quantity with a unit");
  }
  search.finish();
  if (e->has("rows")) {
    env.rows = e->string("rows", "the name of a parameter");
    bool found = false;
    for (const SweepParameter& p : s.parameters)
      found = found || (p.name == env.rows && !p.is_range);
    if (!found) e->fail("rows", "expected the name of a parameter with values");
  }
  for (const SweepParameter& p : s.parameters) {
    if (p.name != env.rows && (p.is_range || p.values.size() != 1))
      e->fail("rows", "parameter '" + p.name
                          + "' has several values: an envelope's other parameters have one");
  }
  e->finish();
}

}  // namespace

const char* sweepDesignName(SweepDesign design) {
  switch (design) {
    case SweepDesign::Grid:
      return "grid";
    case SweepDesign::List:
      return "list";
    case SweepDesign::LatinHypercube:
      return "latin_hypercube";
    case SweepDesign::MonteCarlo:
      return "monte_carlo";
  }
  return "grid";
}

SweepSpec loadSweep(const std::string& path) {
  detail::LoadSession session;
  SweepSpec s;
  s.path = path;
  s.text = detail::readFileBytes(path);
  const YamlDocument doc = detail::parseYaml(s.text, path);
  const MapReader r =
      MapReader::root(doc, {"racktwin_sweep", "name", "description", "base", "set", "design",
                            "samples", "seed", "parameters", "faults", "results", "envelope"});
  if (!r.has("racktwin_sweep"))
    r.fail("racktwin_sweep",
           "required key is missing; a sweep file starts with 'racktwin_sweep: 1'");
  (void)r.integer("racktwin_sweep", kSweepFormatVersion, kSweepFormatVersion);
  s.name = r.string("name", "a name for the sweep");
  (void)r.optionalString("description", "a description");
  const std::string base = r.string("base", "the base scenario, relative to this file");
  const fs::path base_path = fs::path(path).parent_path() / base;
  std::error_code error;
  if (!fs::is_regular_file(base_path, error))
    r.fail("base", "no scenario file " + base_path.lexically_normal().string());
  s.base_path = base_path.lexically_normal().string();
  s.base_text = detail::readFileBytes(s.base_path);
  if (r.has("set")) {
    r.optionalRecord("set", "key paths and their values for every case");
    const YAML::Node set = doc.root["set"];
    for (auto it = set.begin(); it != set.end(); ++it)
      s.set.push_back({it->first.Scalar(), valueText(it->second)});
  }
  const std::string design = r.has("design") ? r.string("design", "a design") : "grid";
  if (design == "grid") {
    s.design = SweepDesign::Grid;
  } else if (design == "list") {
    s.design = SweepDesign::List;
  } else if (design == "latin_hypercube") {
    s.design = SweepDesign::LatinHypercube;
  } else if (design == "monte_carlo") {
    s.design = SweepDesign::MonteCarlo;
  } else {
    r.fail("design", "expected grid, list, latin_hypercube or monte_carlo, got '" + design + "'");
  }
  const bool sampled =
      s.design == SweepDesign::LatinHypercube || s.design == SweepDesign::MonteCarlo;
  if (sampled) {
    s.samples = static_cast<std::size_t>(r.integer("samples", 1, static_cast<int>(kMaxCases)));
  } else if (r.has("samples")) {
    r.fail("samples", "only for latin_hypercube and monte_carlo");
  }
  s.seed = r.unsignedIntegerOr("seed", 0);
  std::set<std::string> names;
  if (const auto list = r.optionalList("parameters", "parameters")) {
    const YAML::Node raw = doc.root["parameters"];
    for (std::size_t i = 0; i < list->size(); ++i) {
      SweepParameter p = readParameter(*list, i, raw[i], names);
      if (p.is_range && !sampled)
        list->failItem(i, "a range is drawn by latin_hypercube or monte_carlo; a " + design
                              + " sweep needs values");
      s.parameters.push_back(std::move(p));
    }
  }
  if (s.design == SweepDesign::List) {
    for (const SweepParameter& p : s.parameters) {
      if (p.values.size() != s.parameters.front().values.size())
        throw core::InputError(p.where, "parameters",
                               "a list sweep takes value i of every parameter for case i: every "
                               "parameter needs the same number of values");
    }
  }
  readFaults(r, s);
  if (const auto results = r.optionalMap("results", {"full"})) {
    s.full_results = results->booleanOr("full", false);
    results->finish();
  }
  readEnvelope(r, s);
  r.finish();
  return s;
}

}  // namespace racktwin::scenarios
