#include "FabricLoader.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "Plausibility.hpp"
#include "TypedDataFile.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::scenarios::detail {
namespace {

namespace fs = std::filesystem;
using core::Dimension;

constexpr double kGbPerS = 1e9;  // bit/s per Gb/s

/// data/network/<type>.yaml, kind network_switch.
void readSwitchType(const MapReader& fabric, const fs::path& data_dir, core::FabricSpec& spec) {
  spec.type = fabric.typeName("type");
  const YamlDocument doc = openTypedDataFile(data_dir, "network", fabric, "type", "network switch");
  const MapReader d = MapReader::root(
      doc, {"racktwin_data", "kind", "description", "ports", "port_speed_Gb_per_s",
            "power_without_optics", "transceiver_power_per_port", "power_factor", "cooling"});
  readDataHeader(d, "network_switch");
  spec.radix = d.integer("ports", 2, 4096);
  d.plausible("ports", spec.radix, Dimension::Dimensionless, Kind::SwitchRadix);
  if (spec.radix % 2 != 0) {
    d.fail("ports",
           "a fat tree splits each switch's ports half down, half up: expected an even "
           "number, got "
               + std::to_string(spec.radix));
  }
  const double speed = d.number("port_speed_Gb_per_s", Check::Positive);
  d.plausible("port_speed_Gb_per_s", speed, Dimension::Dimensionless, Kind::PortSpeed);
  spec.port_speed = speed * kGbPerS;
  spec.P_switch =
      d.quantity("power_without_optics", Dimension::Power, Check::Positive, Kind::SwitchPower);
  spec.P_transceiver = d.quantity("transceiver_power_per_port", Dimension::Power,
                                  Check::NonNegative, Kind::TransceiverPower);
  spec.power_factor = d.quantity("power_factor", Dimension::Dimensionless, Check::PositiveFraction,
                                 Kind::PowerFactor);
  const std::string cooling = d.string("cooling", "air");
  if (cooling != "air") {
    d.fail("cooling",
           "only air-cooled switches are modelled (their heat goes to the hall's "
           "air); got "
               + core::quoteForMessage(cooling));
  }
  d.finish();
}

/// `{group}` and `{hall}` in a line name pattern.
std::string expand(std::string pattern, const std::string& group, const std::string& hall) {
  for (const auto& [key, value] : {std::pair<std::string, const std::string&>{"{group}", group},
                                   std::pair<std::string, const std::string&>{"{hall}", hall}}) {
    for (std::size_t at = pattern.find(key); at != std::string::npos;
         at = pattern.find(key, at + value.size())) {
      pattern.replace(at, key.size(), value);
    }
  }
  return pattern;
}

std::set<std::string> elementIds(const core::ElectricalSpec& e) {
  std::set<std::string> ids;
  for (const auto& t : e.transformers)
    ids.insert(t.id);
  for (const auto& u : e.upses)
    ids.insert(u.id);
  for (const auto& l : e.lines)
    ids.insert(l.id);
  return ids;
}

/// The groups of racks whose leaves stand together: rows, halls or runs of N racks in scenario
/// order (a run may cross rows; its hall, for `{hall}`, is its first rack's).
std::vector<core::FabricGroupSpec> readGroups(const MapReader& m, const core::SiteSpec& site,
                                              std::vector<std::string>& group_halls) {
  std::vector<core::FabricGroupSpec> groups;
  const core::FloorPlanSpec& floor = site.floor;
  std::vector<std::uint32_t> rack_hall(site.racks.size(), 0);
  for (const core::FloorRowSpec& row : floor.rows) {
    for (const std::uint32_t r : row.racks)
      rack_hall[r] = row.hall;
  }
  const auto hallId = [&](std::uint32_t h) {
    return h < floor.halls.size() ? floor.halls[h].id : std::string("hall");
  };
  const std::string group = m.has("group") ? m.string("group", "row, hall or '<N> racks'") : "row";
  if (group == "row") {
    for (const core::FloorRowSpec& row : floor.rows) {
      core::FabricGroupSpec g;
      g.id = row.id;
      g.racks = row.racks;
      groups.push_back(std::move(g));
      group_halls.push_back(hallId(row.hall));
    }
  } else if (group == "hall") {
    for (const core::FloorHallSpec& hall : floor.halls) {
      core::FabricGroupSpec g;
      g.id = hall.id;
      for (const std::uint32_t row : hall.rows)
        g.racks.insert(g.racks.end(), floor.rows[row].racks.begin(), floor.rows[row].racks.end());
      groups.push_back(std::move(g));
      group_halls.push_back(hall.id);
    }
  } else {
    const std::string suffix = " racks";
    std::size_t used = 0;
    long n = 0;
    try {
      n = group.size() > suffix.size() && group.ends_with(suffix) ? std::stol(group, &used) : 0;
    } catch (const std::exception&) {
      n = 0;
    }
    if (n == 0 || used + suffix.size() != group.size()) {
      m.fail("group", "expected row, hall or '<N> racks' (such as '16 racks'), got "
                          + core::quoteForMessage(group));
    }
    m.plausible("group", static_cast<double>(n), Dimension::Dimensionless, Kind::FabricGroupRacks);
    const auto per = static_cast<std::size_t>(n);
    for (std::size_t first = 0, k = 1; first < site.racks.size(); first += per, ++k) {
      core::FabricGroupSpec g;
      g.id = "group" + std::to_string(k);
      for (std::size_t r = first; r < std::min(first + per, site.racks.size()); ++r)
        g.racks.push_back(static_cast<std::uint32_t>(r));
      group_halls.push_back(hallId(rack_hall[first]));
      groups.push_back(std::move(g));
    }
  }
  for (core::FabricGroupSpec& g : groups) {
    for (const std::uint32_t r : g.racks) {
      const core::RackTypeSpec& t = site.racks[r].type;
      g.gpus += static_cast<std::uint64_t>(t.compute_trays) * t.gpus_per_tray;
    }
  }
  // A group without GPUs (a row of storage racks) has no leaves.
  std::vector<std::string> halls;
  std::vector<core::FabricGroupSpec> kept;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (groups[i].gpus == 0) continue;
    kept.push_back(std::move(groups[i]));
    halls.push_back(group_halls[i]);
  }
  group_halls = std::move(halls);
  if (kept.empty()) m.fail("group", "no rack of the site has GPUs for the fabric to connect");
  return kept;
}

}  // namespace

void readFabric(const MapReader& root, const fs::path& data_dir, core::SiteSpec& site) {
  const auto m = root.optionalMap(
      "fabric", {"type", "tiers", "group", "leaf_line", "aggregation_line", "spine_line"});
  if (!m) return;
  core::FabricSpec spec;
  spec.present = true;
  readSwitchType(*m, data_dir, spec);
  std::vector<std::string> group_halls;
  spec.groups = readGroups(*m, site, group_halls);

  int tiers = 0;
  if (m->has("tiers") && !(m->isScalar("tiers") && m->string("tiers", "auto or 1-3") == "auto")) {
    tiers = m->integer("tiers", 1, 3);
  }
  std::vector<std::uint64_t> gpus;
  for (const core::FabricGroupSpec& g : spec.groups)
    gpus.push_back(g.gpus);
  try {
    spec.size = core::fatTreeSize(gpus, spec.radix, tiers);
  } catch (const std::invalid_argument& error) {
    m->fail(m->has("tiers") ? "tiers" : "type", error.what());
  }
  const auto k = static_cast<std::uint64_t>(spec.radix);
  for (core::FabricGroupSpec& g : spec.groups) {
    g.leaves = spec.size.tiers == 1 ? 1 : (g.gpus + k / 2 - 1) / (k / 2);
    g.aggregation = spec.size.tiers == 3 ? g.leaves : 0;
  }

  // Where their power comes from: lines of the tree, or an ideal source.
  const core::ElectricalSpec& e = site.electrical;
  if (!e.present) {
    for (const char* key : {"leaf_line", "aggregation_line", "spine_line"}) {
      if (m->has(key)) {
        m->fail(key,
                "the scenario has no electrical section: the switches draw from an ideal "
                "source; remove the key or add the tree");
      }
    }
  } else {
    const std::set<std::string> ids = elementIds(e);
    const auto check = [&](const char* key, const std::string& id, const std::string& what) {
      if (ids.count(id) == 0) {
        m->fail(key, "no electrical element '" + id + "' (for " + what
                         + "); the fabric's switches hang off a transformer, UPS or line");
      }
    };
    if (!m->has("leaf_line")) {
      m->fail("leaf_line",
              "required key is missing: with an electrical section the leaf switches "
              "need the element feeding them, e.g. \"{group}/rpp\"");
    }
    const std::string leaf = m->string("leaf_line", "an element id pattern ({group}, {hall})");
    if (m->has("aggregation_line") && spec.size.tiers != 3) {
      m->fail("aggregation_line", "only a 3-tier fabric has aggregation switches; this one has "
                                      + std::to_string(spec.size.tiers));
    }
    const std::string aggregation =
        m->has("aggregation_line")
            ? m->string("aggregation_line", "an element id pattern ({group}, {hall})")
            : leaf;
    for (std::size_t i = 0; i < spec.groups.size(); ++i) {
      core::FabricGroupSpec& g = spec.groups[i];
      g.line = expand(leaf, g.id, group_halls[i]);
      check("leaf_line", g.line, "the leaves of " + g.id);
      if (g.aggregation > 0) {
        g.aggregation_line = expand(aggregation, g.id, group_halls[i]);
        check(m->has("aggregation_line") ? "aggregation_line" : "leaf_line", g.aggregation_line,
              "the aggregation switches of " + g.id);
      }
    }
    if (spec.size.top > 0) {
      if (!m->has("spine_line")) {
        m->fail("spine_line", "required key is missing: the " + std::to_string(spec.size.tiers)
                                  + "-tier fabric's top switches need the element(s) feeding "
                                    "them");
      }
      if (m->isScalar("spine_line")) {
        spec.spine_lines.push_back(m->string("spine_line", "an element id or a list of them"));
      } else {
        const ListReader list = m->list("spine_line", "element ids");
        for (std::size_t i = 0; i < list.size(); ++i)
          spec.spine_lines.push_back(list.string(i, "an element id"));
        if (spec.spine_lines.empty()) m->fail("spine_line", "expected at least one element id");
      }
      for (const std::string& id : spec.spine_lines)
        check("spine_line", id, "the top tier");
    } else if (m->has("spine_line")) {
      m->fail("spine_line", "a one-switch fabric has no spines");
    }
  }
  m->finish();
  site.fabric = std::move(spec);
}

}  // namespace racktwin::scenarios::detail
