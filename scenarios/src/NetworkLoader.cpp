// `networks[]`: a loop's piping from an EPANET input file, checked for what a closed coolant loop
// can be, with CDUs and racks attached at its nodes.
#include "NetworkLoader.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <unordered_map>

#include "InputPaths.hpp"
#include "Plausibility.hpp"
#include "YamlReader.hpp"
#include "racktwin/scenarios/EpanetInput.hpp"
#include "racktwin/thermal/Coolant.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::scenarios::detail {
namespace {

namespace fs = std::filesystem;
using Index = core::FlowNetwork::Index;
using Net = core::PipingNetworkSpec;
using thermal::LinkLaw;
using thermal::LinkStatus;
using thermal::ValveType;

constexpr int kMaxCells = 1000;  // as a ring segment's cells
constexpr std::uint32_t kNone = ~std::uint32_t{0};

[[noreturn]] void failInFile(const EpanetModel& model, int line, const std::string& key,
                             const std::string& message) {
  throw core::InputError({model.path, line, 0}, key, message);
}

std::string fileName(const EpanetModel& model) {
  return fs::path(model.path).filename().string();
}

/// "a, b, c, ... (N in all)" for messages that say what a file defines.
std::string someIds(const std::vector<std::string>& ids) {
  constexpr std::size_t kShown = 12;
  std::string out;
  for (std::size_t k = 0; k < ids.size() && k < kShown; ++k)
    out += (k > 0 ? ", " : "") + ids[k];
  if (ids.size() > kShown) out += ", ... (" + std::to_string(ids.size()) + " in all)";
  return out;
}

std::string nodeKey(const EpanetNode& node) {
  switch (node.kind) {
    case EpanetNode::Kind::Junction:
      return "[JUNCTIONS] " + node.id;
    case EpanetNode::Kind::Reservoir:
      return "[RESERVOIRS] " + node.id;
    case EpanetNode::Kind::Tank:
      return "[TANKS] " + node.id;
  }
  return node.id;
}

std::string linkKey(const EpanetModel& model, Index l) {
  switch (model.links[l].kind) {
    case EpanetLink::Kind::Pipe:
      return "[PIPES] " + model.links[l].id;
    case EpanetLink::Kind::Pump:
      return "[PUMPS] " + model.links[l].id;
    case EpanetLink::Kind::Valve:
      return "[VALVES] " + model.links[l].id;
  }
  return model.links[l].id;
}

/// What an open water network may hold and a closed coolant loop may not: each refused at its
/// line of the file, with the reason.
void refuseOpenNetworkParts(const EpanetModel& model) {
  for (const EpanetNode& node : model.nodes) {
    for (const EpanetNode::Demand& d : node.demands) {
      if (d.base != 0.0) {
        failInFile(model, d.line, "junction " + node.id + " demand",
                   "a closed coolant loop has no demands: no coolant leaves or enters it at a "
                   "junction (set the demand to 0; racks attach in the scenario's networks[])");
      }
    }
  }
  const EpanetNode* first_fixed = nullptr;
  for (const EpanetNode& node : model.nodes) {
    if (node.kind == EpanetNode::Kind::Junction) continue;
    if (first_fixed != nullptr) {
      failInFile(model, node.line, nodeKey(node),
                 "a closed coolant loop has one fixed pressure, its expansion tank ('"
                     + first_fixed->id + "', line " + std::to_string(first_fixed->line)
                     + "); a second tank or reservoir would feed coolant into the loop or "
                       "take it out");
    }
    first_fixed = &node;
  }
  for (Index l = 0; l < model.links.size(); ++l) {
    if (model.links[l].kind != EpanetLink::Kind::Valve) continue;
    const ValveType type = model.laws[l].valve.type;
    if (type == ValveType::PRV || type == ValveType::PSV) {
      failInFile(model, model.links[l].line, linkKey(model, l),
                 std::string("a ") + (type == ValveType::PRV ? "PRV" : "PSV")
                     + " holds an absolute pressure, which in a closed loop follows the fill "
                       "pressure at the expansion tank (not modelled: the loop's pressures are "
                       "relative to the tank); use a TCV, FCV or GPV");
    }
    if (type == ValveType::PBV) {
      failInFile(model, model.links[l].line, linkKey(model, l),
                 "a PBV forces its drop whatever the flow: at no flow or against it, it would "
                 "drive coolant like a pump, with energy the loop does not book; use a TCV (a "
                 "loss coefficient) or a GPV (a drop against flow)");
    }
  }
  if (!model.controls.empty()) {
    failInFile(model, model.controls.front().line, "[CONTROLS]",
               "controls are not applied in a coolant loop (its CDUs' controllers act); give "
               "each link its status in [PIPES], [VALVES] or [STATUS]");
  }
  if (model.rules_line > 0) {
    failInFile(model, model.rules_line, "[RULES]",
               "rule-based controls are not applied in a coolant loop (its CDUs' controllers "
               "act); remove the section");
  }
  if (model.emitters_line > 0) {
    failInFile(model, model.emitters_line, "[EMITTERS]",
               "a closed coolant loop has no emitters (flow out of the loop); remove the section");
  }
}

struct NetworkFile {
  EpanetModel model;
  std::unordered_map<std::string, Index> node_index, link_index;
  std::vector<std::uint32_t> replaced_by;  // per link: the attachment (CDUs, then racks) or kNone
  std::vector<std::string> replaced_name;  // per attachment: its id, for messages

  Index node(const MapReader& m, std::string_view key) const {
    const std::string name = m.string(key, "a node id of the network file");
    const auto it = node_index.find(name);
    if (it == node_index.end()) {
      std::vector<std::string> ids;
      for (const EpanetNode& n : model.nodes)
        ids.push_back(n.id);
      m.fail(key, "node " + core::quoteForMessage(name) + " is not in " + fileName(model)
                      + "; its nodes: " + someIds(ids));
    }
    return it->second;
  }

  /// The two nodes an attachment joins: `first` and `second`, or the ends of the link it
  /// replaces (port a, port b), which then leaves the network.
  std::pair<Index, Index> ends(const MapReader& m, std::string_view first, std::string_view second,
                               const std::string& id) {
    if (m.has("replaces")) {
      if (m.has(first) || m.has(second)) {
        m.fail("replaces", "give either 'replaces' or '" + std::string(first) + "' and '"
                               + std::string(second) + "'");
      }
      const std::string name = m.string("replaces", "a link id of the network file");
      const auto it = link_index.find(name);
      if (it == link_index.end()) {
        std::vector<std::string> ids;
        for (const EpanetLink& l : model.links)
          ids.push_back(l.id);
        m.fail("replaces", "link " + core::quoteForMessage(name) + " is not in " + fileName(model)
                               + "; its links: " + someIds(ids));
      }
      const Index l = it->second;
      if (replaced_by[l] != kNone) {
        m.fail("replaces", "link '" + name + "' is already replaced by '"
                               + replaced_name[replaced_by[l]] + "'");
      }
      replaced_by[l] = static_cast<std::uint32_t>(replaced_name.size());
      replaced_name.push_back(id);
      return {model.network.portA(l), model.network.portB(l)};
    }
    replaced_name.push_back(id);
    const Index a = node(m, first);
    const Index b = node(m, second);
    if (a == b) {
      m.fail(second,
             "the same node as '" + std::string(first) + "': the attachment must join two nodes");
    }
    return {a, b};
  }
};

/// The network's links that stay (not replaced by an attachment), as the loop will take them.
std::vector<Net::Link> loopLinks(const NetworkFile& f, const MapReader& m,
                                 const core::CoolantSpec& coolant) {
  const EpanetModel& model = f.model;
  std::optional<double> cell_length;
  if (m.has("cell_length"))
    cell_length = m.quantity("cell_length", core::Dimension::Length, Check::Positive);
  bool hazen_williams_noted = false;
  std::vector<Net::Link> links;
  for (Index l = 0; l < model.links.size(); ++l) {
    if (f.replaced_by[l] != kNone) continue;
    const EpanetLink& link = model.links[l];
    const LinkLaw& law = model.laws[l];
    Net::Link out;
    out.id = link.id;
    out.from = static_cast<std::uint32_t>(model.network.portA(l));
    out.to = static_cast<std::uint32_t>(model.network.portB(l));
    if (link.kind == EpanetLink::Kind::Pump) {
      failInFile(model, link.line, linkKey(model, l),
                 "pump '" + link.id
                     + "' is not replaced by a CDU: a loop's pumps are its CDUs' (their power, "
                       "heat, trips and controls); attach a CDU with 'replaces: "
                     + link.id + "' or remove the pump");
    }
    if (link.kind == EpanetLink::Kind::Pipe) {
      out.kind = Net::Link::Kind::Pipe;
      out.length = law.pipe.length;
      out.diameter = law.pipe.diameter;
      out.roughness = law.pipe.roughness;
      out.minor_loss = law.minor_loss;
      out.check_valve = law.check_valve;
      out.state =
          law.status == LinkStatus::Closed ? Net::Link::State::Closed : Net::Link::State::Open;
      if (law.kind == LinkLaw::Kind::HazenWilliams) {
        out.hazen_williams_C = law.hazen_williams_C;
        if (coolant.glycol_mass_fraction > 0.0 && !hazen_williams_noted) {
          hazen_williams_noted = true;
          addWarning(
              model.path + ":" + std::to_string(link.line) + ":1: key '" + linkKey(model, l) + "'",
              "Hazen-Williams head loss is fitted to water at ordinary temperatures and "
              "does not see the coolant's viscosity; with "
                  + coolant.name + " it understates friction (use HEADLOSS D-W in [OPTIONS])");
        }
      }
      if (cell_length) {
        const double cells = std::round(out.length / *cell_length);
        out.cells = static_cast<int>(std::clamp(cells, 1.0, static_cast<double>(kMaxCells)));
      }
    } else {
      out.kind = Net::Link::Kind::Valve;
      const thermal::ValveSpec& v = law.valve;
      out.diameter = v.diameter;
      out.minor_loss = v.minor_loss;
      out.setting = v.setting;
      out.curve_V_flow = v.V_flow;
      out.curve_dp = v.dp;
      switch (v.type) {
        case ValveType::FCV:
          out.valve = Net::Link::Valve::FCV;
          break;
        case ValveType::TCV:
          out.valve = Net::Link::Valve::TCV;
          break;
        case ValveType::GPV:
          out.valve = Net::Link::Valve::GPV;
          break;
        case ValveType::PRV:
        case ValveType::PSV:
        case ValveType::PBV:
          RACKTWIN_ASSERT(false, "pressure-setting and pressure-breaker valves are refused before");
      }
      out.state = law.status == LinkStatus::Closed   ? Net::Link::State::Closed
                  : law.status == LinkStatus::Active ? Net::Link::State::Active
                                                     : Net::Link::State::Open;
    }
    links.push_back(std::move(out));
  }
  return links;
}

/// Every node reaches the tank (through any link), and every rack and CDU lies on a cycle of
/// open links, racks and CDUs that passes a CDU: the loop's coolant can flow through each of
/// them, and every flow cycle closes at a CDU's suction, where the heat sweep tears the loop.
void checkFlowCycles(const Net& net, const EpanetModel& model, const ListReader& cdu_list,
                     const ListReader& rack_list) {
  using Edge = std::pair<std::uint32_t, std::uint32_t>;
  const std::size_t n = net.nodes.size();
  std::vector<Edge> all, open;
  for (const Net::Link& l : net.links) {
    all.emplace_back(l.from, l.to);
    if (l.state != Net::Link::State::Closed) open.emplace_back(l.from, l.to);
  }
  const std::size_t first_attachment = open.size();
  for (const auto* list : {&net.cdus, &net.racks}) {
    for (const Net::Attachment& a : *list) {
      all.emplace_back(a.a, a.b);
      open.emplace_back(a.a, a.b);
    }
  }
  // Reach from the tank through every link (closed ones too: a closed branch stands still).
  std::vector<std::vector<std::uint32_t>> adjacent(n);
  for (const Edge& e : all) {
    adjacent[e.first].push_back(e.second);
    adjacent[e.second].push_back(e.first);
  }
  std::vector<std::uint8_t> reached(n, 0);
  std::vector<std::uint32_t> stack{net.tank};
  reached[net.tank] = 1;
  while (!stack.empty()) {
    const std::uint32_t v = stack.back();
    stack.pop_back();
    for (const std::uint32_t w : adjacent[v]) {
      if (reached[w] == 0) {
        reached[w] = 1;
        stack.push_back(w);
      }
    }
  }
  for (std::size_t v = 0; v < n; ++v) {
    if (reached[v] == 0) {
      failInFile(model, model.nodes[v].line, nodeKey(model.nodes[v]),
                 "node '" + model.nodes[v].id + "' is not connected to the expansion tank '"
                     + net.nodes[net.tank].id + "' through the network, its CDUs and racks");
    }
  }
  std::uint32_t block_count = 0;
  const std::vector<std::uint32_t> block = edgeBlocks(n, open, &block_count);
  std::vector<std::uint32_t> cdus_in(block_count, 0), edges_in(block_count, 0);
  for (std::size_t e = 0; e < open.size(); ++e)
    ++edges_in[block[e]];
  for (std::size_t c = 0; c < net.cdus.size(); ++c)
    ++cdus_in[block[first_attachment + c]];
  for (std::size_t c = 0; c < net.cdus.size(); ++c) {
    if (edges_in[block[first_attachment + c]] == 1) {
      cdu_list.failItem(c, "CDU '" + net.cdus[c].id + "' (suction '" + net.nodes[net.cdus[c].a].id
                               + "', supply '" + net.nodes[net.cdus[c].b].id
                               + "') has no way from its supply back to its suction through the "
                                 "open links and racks of the network: its pumps could move no "
                                 "coolant");
    }
  }
  for (std::size_t r = 0; r < net.racks.size(); ++r) {
    const std::size_t e = first_attachment + net.cdus.size() + r;
    if (cdus_in[block[e]] == 0) {
      rack_list.failItem(r, "rack '" + net.racks[r].id + "' (supply '"
                                + net.nodes[net.racks[r].a].id + "', return '"
                                + net.nodes[net.racks[r].b].id
                                + "') lies on no flow cycle that passes a CDU: its supply and "
                                  "return close through the piping without a CDU's pumps, so "
                                  "no coolant would flow through it. Every flow cycle of a "
                                  "coolant loop must pass a CDU");
    }
  }
}

core::SecondaryRingSpec readNetwork(const MapReader& m, const std::vector<core::CduSpec>& cdus,
                                    std::vector<core::RackSpec>& racks,
                                    const core::CoolantSpec& coolant, const NetworkIds& ids,
                                    std::vector<std::string>& cdu_network) {
  core::SecondaryRingSpec ring;
  ring.id = m.id("id");
  const std::string net_id = ring.id.str();
  ids.add(net_id, "network", m, "id");
  const fs::path path = resolveInputPath(
      m, "file", m.string("file", "the path of an EPANET input file (.inp)"), "network file");
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    m.fail("file", "no network file '" + path.string()
                       + "' (a relative path starts at the scenario file's folder)");
  }
  NetworkFile f{parseEpanetInput(readFileBytes(path.string()), path.string()), {}, {}, {}, {}};
  const EpanetModel& model = f.model;
  refuseOpenNetworkParts(model);
  for (Index n = 0; n < model.nodes.size(); ++n)
    f.node_index.emplace(model.nodes[n].id, n);
  for (Index l = 0; l < model.links.size(); ++l)
    f.link_index.emplace(model.links[l].id, l);
  f.replaced_by.assign(model.links.size(), kNone);

  Net net;
  net.path = model.path;
  for (const EpanetNode& node : model.nodes)
    net.nodes.push_back({node.id, node.elevation});
  for (Index n = 0; n < model.nodes.size(); ++n) {
    if (model.nodes[n].kind != EpanetNode::Kind::Junction) net.tank = static_cast<std::uint32_t>(n);
  }
  if (m.has("expansion_tank")) {
    const Index named = f.node(m, "expansion_tank");
    if (named != net.tank) {
      m.fail("expansion_tank", "'" + model.nodes[named].id + "' is a junction; the expansion tank "
                               "is the file's tank or reservoir, '" + model.nodes[net.tank].id
                                   + "'");
    }
  }
  if (model.viscosity_given) {
    const core::SourceLocation at = m.whereValue("file");
    addWarning(at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": key '"
                   + m.keyPath("file") + "'",
               "the file's VISCOSITY and SPECIFIC GRAVITY are not used: the loop's coolant ("
                   + coolant.name + ") gives its density and viscosity");
  }

  const ListReader cdu_list = m.list("cdus", "the CDUs attached to the network");
  if (cdu_list.size() == 0) m.fail("cdus", "expected at least one CDU");
  const core::CduSpec* first_cdu = nullptr;
  for (std::size_t k = 0; k < cdu_list.size(); ++k) {
    const MapReader e = cdu_list.map(k, {"id", "suction", "supply", "replaces"});
    const std::string id = e.id("id").str();
    const auto cdu =
        std::find_if(cdus.begin(), cdus.end(), [&](const auto& c) { return c.id.str() == id; });
    if (cdu == cdus.end()) e.fail("id", ids.unknown(id, "CDU"));
    std::string& owner = cdu_network[static_cast<std::size_t>(cdu - cdus.begin())];
    if (!owner.empty()) e.fail("id", "CDU '" + id + "' is attached twice (to '" + owner + "')");
    if (cdu->headers.present) {
      e.fail("id", "CDU '" + id + "' has row headers; a CDU on a network feeds the network's "
                                  "piping, so remove its headers");
    }
    owner = net_id;
    if (first_cdu == nullptr) first_cdu = &*cdu;
    const auto [suction, supply] = f.ends(e, "suction", "supply", id);
    net.cdus.push_back(
        {id, static_cast<std::uint32_t>(suction), static_cast<std::uint32_t>(supply)});
    ring.taps.push_back(id);
    e.finish();
  }
  const ListReader rack_list = m.list("racks", "the racks attached to the network");
  for (std::size_t k = 0; k < rack_list.size(); ++k) {
    const MapReader e = rack_list.map(k, {"id", "supply", "return", "replaces"});
    const std::string id = e.id("id").str();
    const auto rack =
        std::find_if(racks.begin(), racks.end(), [&](const auto& r) { return r.id.str() == id; });
    if (rack == racks.end()) e.fail("id", ids.unknown(id, "rack"));
    if (!rack->cdu.empty()) {
      e.fail("id", "rack '" + id + "' is served by CDU '" + rack->cdu
                       + "' (its cdu key); a rack on a network has no cdu key");
    }
    if (!rack->ring.empty())
      e.fail("id", "rack '" + id + "' is attached twice (to '" + rack->ring + "')");
    if (!rack->type.liquid_cooled) {
      e.fail("id", "rack type '" + rack->type.type + "' is air-cooled: it takes no coolant");
    }
    rack->ring = net_id;
    if (rack->type.quick_disconnect_Cv > 0.0) {
      // QDs given by Cv: converted for the coolant at the first CDU's set-point.
      const double rho = thermal::Coolant::fromSpec(coolant).density(first_cdu->T_supply_set);
      rack->type.quick_disconnect = thermal::powerLawFromCv(rack->type.quick_disconnect_Cv,
                                                            rho / thermal::kCvReferenceDensity);
    }
    const auto [supply, ret] = f.ends(e, "supply", "return", id);
    net.racks.push_back({id, static_cast<std::uint32_t>(supply), static_cast<std::uint32_t>(ret)});
    ring.taps.push_back(id);
    e.finish();
  }
  net.links = loopLinks(f, m, coolant);
  checkFlowCycles(net, model, cdu_list, rack_list);
  ring.network = std::move(net);
  return ring;
}

}  // namespace

std::vector<std::uint32_t> edgeBlocks(
    std::size_t node_count, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges,
    std::uint32_t* block_count) {
  // Hopcroft and Tarjan's depth-first search with a stack of edges, iterative (networks may be
  // deep). Only the tree edge to the parent is skipped, by its index, so parallel edges form a
  // cycle as they should.
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> adjacent(node_count);
  for (std::uint32_t e = 0; e < edges.size(); ++e) {
    RACKTWIN_ASSERT(edges[e].first != edges[e].second, "an edge joins two distinct nodes");
    adjacent[edges[e].first].emplace_back(edges[e].second, e);
    adjacent[edges[e].second].emplace_back(edges[e].first, e);
  }
  std::vector<std::int64_t> discovered(node_count, -1), low(node_count, 0);
  std::vector<std::uint32_t> block(edges.size(), kNone);
  std::vector<std::uint32_t> edge_stack;
  struct Frame {
    std::uint32_t node, parent_edge;
    std::size_t next;
  };
  std::vector<Frame> frames;
  std::int64_t time = 0;
  std::uint32_t blocks = 0;
  for (std::uint32_t root = 0; root < node_count; ++root) {
    if (discovered[root] >= 0) continue;
    discovered[root] = low[root] = time++;
    frames.push_back({root, kNone, 0});
    while (!frames.empty()) {
      Frame& top = frames.back();
      const std::uint32_t v = top.node;
      if (top.next < adjacent[v].size()) {
        const auto [w, e] = adjacent[v][top.next++];
        if (e == top.parent_edge) continue;
        if (discovered[w] < 0) {
          edge_stack.push_back(e);
          discovered[w] = low[w] = time++;
          frames.push_back({w, e, 0});  // `top` is not used after this
        } else if (discovered[w] < discovered[v]) {
          edge_stack.push_back(e);  // a back edge, pushed once from its lower end
          low[v] = std::min(low[v], discovered[w]);
        }
        continue;
      }
      const std::uint32_t parent_edge = top.parent_edge;
      frames.pop_back();
      if (frames.empty()) break;
      const std::uint32_t u = frames.back().node;
      low[u] = std::min(low[u], low[v]);
      if (low[v] >= discovered[u]) {
        // u separates v's subtree: the edges above the tree edge (u, v) form one block.
        for (;;) {
          const std::uint32_t x = edge_stack.back();
          edge_stack.pop_back();
          block[x] = blocks;
          if (x == parent_edge) break;
        }
        ++blocks;
      }
    }
  }
  if (block_count != nullptr) *block_count = blocks;
  return block;
}

std::vector<core::SecondaryRingSpec> readNetworks(const MapReader& root,
                                                  const std::vector<core::CduSpec>& cdus,
                                                  std::vector<core::RackSpec>& racks,
                                                  const core::CoolantSpec& coolant,
                                                  const NetworkIds& ids) {
  std::vector<core::SecondaryRingSpec> out;
  const auto list =
      root.optionalList("networks", "coolant loops whose piping an EPANET file gives");
  if (!list) return out;
  std::vector<std::string> cdu_network(cdus.size());
  for (std::size_t i = 0; i < list->size(); ++i) {
    const MapReader m =
        list->map(i, {"id", "file", "cell_length", "expansion_tank", "cdus", "racks"});
    out.push_back(readNetwork(m, cdus, racks, coolant, ids, cdu_network));
    m.finish();
  }
  return out;
}

}  // namespace racktwin::scenarios::detail
