// The coolant networks of CoolingModel, built once from the site: one loop per CDU (racks at the
// CDU or on row headers), one loop per secondary ring shared by several CDUs, and one per
// imported piping network (a ring whose `network` is set).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

#include "CoolingModelImpl.hpp"
#include "components/BuiltinKinds.hpp"
#include "cooling/NetworkPiping.hpp"
#include "racktwin/core/Error.hpp"

namespace racktwin::thermal {
namespace {

using cooling::CduUnit;
using cooling::CoolantLoop;
using cooling::Index;

std::string twoDigits(const char* prefix, int n) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%s%02d", prefix, n);
  return buffer;
}

}  // namespace

// Adds nodes, links and their cells to one loop under construction. Every link is a coolant
// component of a registered kind: the kind gives its law, volume, cells and thermal role.
struct CoolingModel::Impl::LoopBuilder {
  Impl& m;
  const core::SiteSpec& site;
  CoolantLoop& loop;
  std::uint32_t loop_index;
  std::vector<LinkLaw> laws;

  Index node(const std::string& id) { return loop.network.addNode(id); }

  /// A component from port_a `a` to port_b `b`. A ChipPlate names its die; a HeatSource or an
  /// Exchanger gets a coupling slot, returned in `coupling`.
  Index link(const CoolantComponentKind& kind, const std::string& id, Index a, Index b,
             const ComponentParameters& p, std::int32_t die = -1,
             std::uint32_t* coupling = nullptr) {
    const Index l = loop.network.addLink(id, a, b);
    laws.push_back(kind.law(p));
    cooling::Link link;
    link.role = kind.role();
    link.die = die;
    if (link.role == ThermalRole::HeatSource || link.role == ThermalRole::Exchanger) {
      link.coupling = static_cast<std::int32_t>(m.couplings.size());
      m.couplings.emplace_back();
      if (coupling != nullptr) *coupling = static_cast<std::uint32_t>(link.coupling);
      (link.role == ThermalRole::Exchanger ? loop.exchanger_links : loop.source_links).push_back(l);
    }
    RACKTWIN_ASSERT((link.role == ThermalRole::ChipPlate) == (die >= 0),
                    "a cold plate, and only a cold plate, names its die");
    const double volume = kind.volume(p);
    const int cells = std::max(kind.cells(p), 1);
    link.cell_begin = static_cast<std::uint32_t>(m.cells.C.size());
    for (int k = 0; k < cells; ++k)
      m.cells.C.push_back(std::max(volume / cells, cooling::kVolumeSmallest));
    link.cell_end = static_cast<std::uint32_t>(m.cells.C.size());
    loop.links.push_back(link);
    return l;
  }

  Index pipe(const std::string& id, Index a, Index b, const core::PipeSpec& p) {
    return link(components::pipeKind(), id, a, b, components::pipeParameters(p));
  }

  /// The CDU's own train from its suction node to its supply node: pump, exchanger, strainer.
  void cdu(std::uint32_t unit_index, Index suction, Index supply) {
    CduUnit& unit = m.units[unit_index];
    const core::CduSpec& cdu = *unit.cdu;
    const std::string base = cdu.id.str();
    unit.loop = loop_index;
    unit.tear = static_cast<std::uint32_t>(loop.tears.size());
    unit.suction = suction;
    unit.supply = supply;
    loop.units.push_back(unit_index);
    loop.tears.push_back(suction);
    const Index pump_out = node(base + "/pump_outlet");
    unit.pump_link = link(components::pumpKind(), base + "/pump", suction, pump_out,
                          components::pumpParameters(cdu.pump), -1, &unit.pump_coupling);
    // The exchanger: a plate exchanger to facility water, or a liquid-to-air CDU's air coil.
    const bool air = cdu.rejection == core::CduSpec::Rejection::RoomAir;
    const CoolantComponentKind& hx_kind =
        air ? *findCoolantComponentKind("air-coil") : components::plateHeatExchangerKind();
    const ComponentParameters hx = air ? ComponentParameters{cdu.air_coil, cdu.air_coil_dp}
                                       : components::plateHeatExchangerParameters(cdu);
    const Index hx_out = cdu.has_strainer ? node(base + "/hx_outlet") : supply;
    unit.hx_link = link(hx_kind, base + "/hx", pump_out, hx_out, hx, -1, &unit.hx_coupling);
    if (cdu.has_strainer) {
      // The strainer sits after the exchanger, in series, with its own law and volume.
      unit.strainer_link = link(components::strainerKind(), base + "/strainer", hx_out, supply,
                                components::strainerParameters(cdu));
    }
  }

  /// One rack: hoses from `supply_from` and to `return_to`, manifolds, trays, QDs, cold plates.
  void rack(std::uint32_t rack_index, const core::RackSpec& rack, Index supply_from,
            Index return_to) {
    const core::RackTypeSpec& type = rack.type;
    const std::string rid = rack.id.str();
    // Trays top to bottom as in an NVL72: compute trays, the switch trays, then the rest.
    struct TrayRef {
      bool compute;
      int number;  // 1-based within its kind
    };
    std::vector<TrayRef> trays;
    // NVL72: 10 compute trays above the 9 switch trays, 8 below.
    const int upper_compute = std::min(type.compute_trays, (type.compute_trays + 2) / 2);
    for (int i = 1; i <= upper_compute; ++i)
      trays.push_back({true, i});
    for (int i = 1; i <= type.switch_trays; ++i)
      trays.push_back({false, i});
    for (int i = upper_compute + 1; i <= type.compute_trays; ++i)
      trays.push_back({true, i});

    const Index supply_first = node(rid + "/supply_manifold/tap01");
    const Index return_first = node(rid + "/return_manifold/tap01");
    loop.rack_supply_hose.push_back(
        pipe(rid + "/supply_hose", supply_from, supply_first, type.hose));
    loop.rack_return_hose.push_back(pipe(rid + "/return_hose", return_first, return_to, type.hose));
    loop.racks.push_back(rack_index);
    loop.rack_supply_tap.push_back(supply_first);
    loop.rack_return_tap.push_back(return_first);
    Index supply_tap = supply_first;
    Index return_tap = return_first;
    // Components attached on the CDU's water run from the rack's supply tap to its return tap,
    // in parallel with the manifolds (a rear door's coil fed from the same hoses).
    for (const core::AttachedComponentSpec& a : rack.attachments) {
      if (a.water != core::AttachedComponentSpec::Water::Cdu) continue;
      const CoolantComponentKind& kind = *findCoolantComponentKind(a.kind);
      ComponentParameters p{a.values, std::nullopt};
      if (kind.takesPressureDrop()) p.pressure_drop = a.pressure_drop;
      const core::CduSpec& cdu = *m.units[loop.units.front()].cdu;
      const CoolantProperties props =
          Coolant::fromSpec(site.secondary_coolant).at(cdu.T_supply_set);
      kind.prepare(p, props.rho * props.cp);
      if (kind.medium() != ExchangeMedium::RackExhaustAir) {
        // Not an exchanger on the rack's air (a bypass, ...): a link like any other.
        const Index l = link(kind, a.id.str(), supply_first, return_first, p);
        m.attached.add(kind, a.id.str(), loop_index, l);
        continue;
      }
      cooling::RackAirExchangers::Item item;
      item.kind = &kind;
      item.id = a.id.str();
      item.rack = rack_index;
      item.rack_air_V_flow = type.air_V_flow;
      item.loop = static_cast<std::int32_t>(loop_index);
      item.link = link(kind, a.id.str(), supply_first, return_first, p, -1, &item.coupling);
      item.p = std::move(p);
      m.rack_exchangers.addOnLoop(std::move(item));
    }
    // An air-cooled rack takes coolant only for what is attached to it (a rear door).
    if (!type.liquid_cooled) return;
    const core::SiteLayout& L = *m.layout;
    const ComponentParameters qd = components::quickDisconnectParameters(type.quick_disconnect);
    for (std::size_t k = 0; k < trays.size(); ++k) {
      if (k > 0) {
        const std::string tap = twoDigits("tap", static_cast<int>(k + 1));
        const Index s = node(rid + "/supply_manifold/" + tap);
        const Index t = node(rid + "/return_manifold/" + tap);
        pipe(rid + "/supply_manifold/segment" + tap.substr(3), supply_tap, s,
             type.manifold_segment);
        pipe(rid + "/return_manifold/segment" + tap.substr(3), t, return_tap,
             type.manifold_segment);
        supply_tap = s;
        return_tap = t;
      }
      const TrayRef& tray = trays[k];
      const std::string tid =
          rid + '/' + twoDigits(tray.compute ? "tray" : "switchtray", tray.number);
      m.tray_ids.push_back(tid);
      const Index tray_in = node(tid + "/inlet");
      const Index tray_out = node(tid + "/outlet");
      loop.tray_links.push_back(
          link(components::quickDisconnectKind(), tid + "/qd_supply", supply_tap, tray_in, qd));
      const Index tray_return =
          link(components::quickDisconnectKind(), tid + "/qd_return", tray_out, return_tap, qd);
      loop.tray_out_cell.push_back(loop.links[tray_return].cell_end - 1);

      auto plate = [&](cooling::ChipKind kind, std::uint32_t chip, const core::ChipSpec& spec,
                       const std::string& chip_id) {
        const auto die = static_cast<std::int32_t>(m.chips.dies.size());
        const Index l = link(components::coldPlateKind(), chip_id + "/cold_plate", tray_in,
                             tray_out, components::coldPlateParameters(spec.cold_plate), die);
        m.chips.add(kind, chip, loop_index, l, spec);
      };
      const auto tray0 = static_cast<std::uint32_t>(tray.number - 1);
      if (tray.compute) {
        const auto gpus = static_cast<std::uint32_t>(type.gpus_per_tray);
        const auto cpus = static_cast<std::uint32_t>(type.cpus_per_tray);
        for (std::uint32_t g = 0; g < gpus; ++g) {
          const std::uint32_t chip = L.rack_gpu_begin[rack_index] + tray0 * gpus + g;
          plate(cooling::ChipKind::Gpu, chip, type.gpu, L.gpu_ids[chip]);
        }
        for (std::uint32_t c = 0; c < cpus; ++c) {
          const std::uint32_t chip = L.rack_cpu_begin[rack_index] + tray0 * cpus + c;
          plate(cooling::ChipKind::Cpu, chip, type.cpu, L.cpu_ids[chip]);
        }
      } else {
        const auto switches = static_cast<std::uint32_t>(type.switches_per_tray);
        for (std::uint32_t s = 0; s < switches; ++s) {
          const std::uint32_t chip = L.rack_switch_begin[rack_index] + tray0 * switches + s;
          plate(cooling::ChipKind::Switch, chip, type.nvswitch, L.switch_ids[chip]);
        }
      }
    }
  }
};

void CoolingModel::Impl::build(const core::SiteSpec& site, const core::SiteLayout& site_layout) {
  site_spec = &site;
  layout = &site_layout;
  control_step = site.simulation.control_step;
  quasi_steady_enabled = site.simulation.fast_forward.enabled;
  room.spec = site.room;
  units.resize(site.cdus.size());
  // Facility water at each CDU: its loop's supply set-point, or the site's.
  cdu_T_facility.assign(site.cdus.size(), site.facility.T_supply);
  for (const core::FacilityLoopView& view : core::facilityLoopsOf(site))
    for (const std::uint32_t c : view.cdus)
      cdu_T_facility[c] = view.T_supply;
  for (std::size_t c = 0; c < site.cdus.size(); ++c) {
    units[c].cdu = &site.cdus[c];
    cdu_ids.push_back(site.cdus[c].id.str());
  }
  auto cduIndex = [&](const std::string& id) -> std::optional<std::uint32_t> {
    for (std::size_t c = 0; c < site.cdus.size(); ++c)
      if (site.cdus[c].id.str() == id) return static_cast<std::uint32_t>(c);
    return std::nullopt;
  };
  auto rackIndex = [&](const std::string& id) -> std::optional<std::uint32_t> {
    for (std::size_t r = 0; r < site.racks.size(); ++r)
      if (site.racks[r].id.str() == id) return static_cast<std::uint32_t>(r);
    return std::nullopt;
  };
  std::vector<std::uint8_t> on_ring(site.cdus.size(), 0);
  for (const core::SecondaryRingSpec& ring : site.rings)
    for (const std::string& tap : ring.taps)
      if (const auto c = cduIndex(tap)) on_ring[*c] = 1;
  loops.reserve(site.rings.size() + site.cdus.size());

  // Rings: supply and return mains, each a closed ring of segments through one tap per CDU or
  // rack in the listed order. A CDU pumps from its return-main tap into its supply-main tap.
  for (const core::SecondaryRingSpec& ring : site.rings) {
    CoolantLoop& loop = loops.emplace_back();
    loop.name = ring.id.str();
    LoopBuilder b{*this, site, loop, static_cast<std::uint32_t>(loops.size() - 1), {}};
    loop.cell_begin = static_cast<std::uint32_t>(cells.C.size());
    loop.die_begin = static_cast<std::uint32_t>(chips.dies.size());
    const std::string base = ring.id.str();
    if (ring.network) {
      // Piping from an imported network (cooling/NetworkPiping.hpp): each link takes the pipe
      // kind's volume and cells and the network's own law; the CDUs and racks at their nodes.
      const core::PipingNetworkSpec& net = *ring.network;
      std::vector<Index> at;
      for (const core::PipingNetworkSpec::Node& node : net.nodes)
        at.push_back(b.node(base + '/' + node.id));
      for (const core::PipingNetworkSpec::Link& l : net.links) {
        const Index k =
            b.pipe(base + '/' + l.id, at[l.from], at[l.to], cooling::networkLinkPipe(l));
        b.laws[k] = cooling::networkLinkLaw(l);
      }
      loop.tank = at[net.tank];
      for (const core::PipingNetworkSpec::Attachment& c : net.cdus)
        b.cdu(cduIndex(c.id).value(), at[c.a], at[c.b]);
      for (const core::PipingNetworkSpec::Attachment& r : net.racks) {
        const std::uint32_t k = rackIndex(r.id).value();
        b.rack(k, site.racks[k], at[r.a], at[r.b]);
      }
      finishLoop(loop, site, std::move(b.laws));
      continue;
    }
    const auto n = static_cast<int>(ring.taps.size());
    std::vector<Index> supply(ring.taps.size()), ret(ring.taps.size());
    for (int k = 0; k < n; ++k) {
      supply[k] = b.node(base + "/supply_main/" + twoDigits("tap", k + 1));
      ret[k] = b.node(base + "/return_main/" + twoDigits("tap", k + 1));
    }
    for (int k = 0; k < n; ++k) {
      const int next = (k + 1) % n;
      const std::string segment = twoDigits("segment", k + 1);
      b.pipe(base + "/supply_main/" + segment, supply[k], supply[next], ring.segment);
      b.pipe(base + "/return_main/" + segment, ret[k], ret[next], ring.segment);
    }
    bool tank_placed = false;
    for (int k = 0; k < n; ++k) {
      const std::string& tap = ring.taps[static_cast<std::size_t>(k)];
      if (const auto c = cduIndex(tap)) {
        b.cdu(*c, ret[k], supply[k]);
        if (!tank_placed) loop.tank = ret[k];
        tank_placed = true;
      } else if (const auto r = rackIndex(tap)) {
        b.rack(*r, site.racks[*r], supply[k], ret[k]);
      } else {
        throw core::RuntimeError("ring " + base + ": tap '" + tap
                                 + "' is neither a CDU nor a rack");
      }
    }
    if (!tank_placed) throw core::RuntimeError("ring " + base + " has no CDU");
    finishLoop(loop, site, std::move(b.laws));
  }

  // One loop per CDU that is not on a ring: its racks at the CDU or on its row headers.
  for (std::size_t c = 0; c < site.cdus.size(); ++c) {
    if (on_ring[c] != 0) continue;
    const core::CduSpec& cdu = site.cdus[c];
    CoolantLoop& loop = loops.emplace_back();
    loop.name = cdu.id.str();
    LoopBuilder b{*this, site, loop, static_cast<std::uint32_t>(loops.size() - 1), {}};
    loop.cell_begin = static_cast<std::uint32_t>(cells.C.size());
    loop.die_begin = static_cast<std::uint32_t>(chips.dies.size());
    const std::string base = cdu.id.str();
    loop.tank = b.node(base + "/tank");
    const Index supply_node = b.node(base + "/supply");
    b.cdu(static_cast<std::uint32_t>(c), loop.tank, supply_node);

    // Row headers (core::RowHeaderSpec): the racks of this CDU tap them in scenario order.
    // Without headers each rack's hoses join the CDU supply node and the tank directly.
    const core::RowHeaderSpec& headers = cdu.headers;
    const core::PipeSpec& segment = headers.segment;
    const bool reverse_return = headers.return_arrangement == core::RowHeaderSpec::Return::Reverse;
    const auto rack_count = static_cast<int>(std::count_if(
        site.racks.begin(), site.racks.end(), [&](const auto& r) { return r.cdu == base; }));
    Index supply_header_tap = supply_node;
    Index return_header_tap = loop.tank;
    int position = 0;  // 1-based position of the rack along the headers
    for (std::size_t r = 0; r < site.racks.size(); ++r) {
      const core::RackSpec& rack = site.racks[r];
      if (rack.cdu != base) continue;
      Index rack_supply_from = supply_node;
      Index rack_return_to = loop.tank;
      if (headers.present) {
        ++position;
        const std::string number = twoDigits("", position);
        const Index s = b.node(base + "/supply_header/tap" + number);
        const Index t = b.node(base + "/return_header/tap" + number);
        b.pipe(base + "/supply_header/segment" + number, supply_header_tap, s, segment);
        if (!reverse_return) {
          // Direct return: back toward the CDU, the first tap drains into the tank.
          b.pipe(base + "/return_header/segment" + number, t, return_header_tap, segment);
        } else if (position > 1) {
          // Reverse return: away from the CDU, from the previous tap to this one.
          b.pipe(base + "/return_header/segment" + number, return_header_tap, t, segment);
        }
        supply_header_tap = s;
        return_header_tap = t;
        rack_supply_from = s;
        rack_return_to = t;
        if (reverse_return && position == rack_count) {
          // The return pipe from the far end back to the CDU, as long as the supply header.
          core::PipeSpec back = segment;
          back.length = segment.length * rack_count;
          back.cells = segment.cells * rack_count;
          b.pipe(base + "/return_header/return_pipe", t, loop.tank, back);
        }
      }
      b.rack(static_cast<std::uint32_t>(r), rack, rack_supply_from, rack_return_to);
    }
    finishLoop(loop, site, std::move(b.laws));
  }

  // The facility loops, each serving its CDUs in site order (liquid-to-air CDUs have none).
  for (core::FacilityLoopView& view : core::facilityLoopsOf(site)) {
    const auto index = static_cast<std::int32_t>(facilities.size());
    std::vector<core::CduSpec>& served = facility_cdus.emplace_back();
    for (const std::uint32_t c : view.cdus) {
      units[c].facility_loop = index;
      units[c].facility_index = static_cast<std::int32_t>(served.size());
      served.push_back(site.cdus[c]);
    }
    core::FacilityWaterSpec water{view.T_supply, *view.spec, {}};
    facilities.push_back(std::make_unique<FacilityLoop>(water, served, site.ambient));
    facility_Q_cdu.emplace_back(served.size(), 0.0);
    facility_ids.push_back(std::move(view.id));
  }
  for (auto* v :
       {&fac_T_supply, &fac_T_return, &fac_V_flow, &fac_pump_P, &fac_pump_speed, &fac_dp_remote,
        &fac_fan_P, &fac_Q_rejected, &fac_chiller_Q, &fac_chiller_P, &fac_water_use})
    v->assign(facilities.size(), 0.0);
  plant_before.assign(facilities.size(), PlantTotals{});

  // Attached components on facility water (a boundary): outside every loop.
  const CoolantProperties water = Coolant::water().at(site.facility.T_supply);
  for (std::uint32_t r = 0; r < site.racks.size(); ++r) {
    for (const core::AttachedComponentSpec& a : site.racks[r].attachments) {
      if (a.water != core::AttachedComponentSpec::Water::Facility) continue;
      const CoolantComponentKind& kind = *findCoolantComponentKind(a.kind);
      ComponentParameters p{a.values, std::nullopt};
      if (kind.takesPressureDrop()) p.pressure_drop = a.pressure_drop;
      kind.prepare(p, water.rho * water.cp);
      cooling::RackAirExchangers::Item item;
      item.kind = &kind;
      item.id = a.id.str();
      item.rack = r;
      item.rack_air_V_flow = site.racks[r].type.air_V_flow;
      item.p = std::move(p);
      rack_exchangers.addOnFacilityWater(std::move(item), water.rho * water.cp);
    }
  }
  rack_exchangers.finishBuild();
  attached.finishBuild();
  // Air-cooled racks: their GPUs and CPUs on heat sinks in their servers' air (after every
  // loop's dies), and their inlet and fans.
  rack_T_inlet.assign(site_layout.rack_count, site.room.T_supply_air);
  rack_fan_speed.assign(site_layout.rack_count, 0.0);
  rack_air_film.assign(site_layout.rack_count, 0.0);
  rack_fan_P.assign(site_layout.rack_count, 0.0);
  rack_out_of_class_s.assign(site_layout.rack_count, 0.0);
  for (std::uint32_t r = 0; r < site.racks.size(); ++r) {
    const core::RackTypeSpec& type = site.racks[r].type;
    if (type.liquid_cooled) continue;
    air_racks.push_back(r);
    const auto gpus = static_cast<std::uint32_t>(type.gpus_per_tray * type.compute_trays);
    const auto cpus = static_cast<std::uint32_t>(type.cpus_per_tray * type.compute_trays);
    for (std::uint32_t g = 0; g < gpus; ++g)
      chips.addAir(cooling::ChipKind::Gpu, site_layout.rack_gpu_begin[r] + g, r, type.gpu);
    for (std::uint32_t c = 0; c < cpus; ++c)
      chips.addAir(cooling::ChipKind::Cpu, site_layout.rack_cpu_begin[r] + c, r, type.cpu);
  }
  if (site.air_plant.present)
    air_plant = std::make_unique<ChilledWaterPlant>(site.air_plant, site.ambient);
  rack_air_P.assign(site_layout.rack_count, 0.0);
  rack_air_P_step.assign(site_layout.rack_count, 0.0);
  chips.finishBuild(site_layout);
  const std::size_t n_cells = cells.C.size();
  for (auto* v : {&cells.T, &cells.T_old, &cells.alpha})
    v->assign(n_cells, 0.0);
  rack_dp_available.assign(site_layout.rack_count, 0.0);
  rack_V_flow.assign(site_layout.rack_count, 0.0);
  tray_V_flow.assign(tray_ids.size(), 0.0);
  tray_T_out.assign(tray_ids.size(), 0.0);
  const std::size_t n_cdu = units.size();
  for (auto* v : {&cdu_T_supply, &cdu_T_return, &cdu_V_flow, &cdu_Q_flow, &cdu_valve,
                  &cdu_V_facility, &cdu_T_facility_return, &cdu_pump_dp, &cdu_pump_P,
                  &cdu_T_facility_supply, &cdu_pump_P_hydraulic, &cdu_pumps_running, &cdu_fan_P}) {
    v->assign(n_cdu, 0.0);
  }
  collectMeanViews();  // every view is sized: their addresses hold for the run
}

// Fluid, exchangers, pumps and the solver of a loop whose network is complete.
void CoolingModel::Impl::finishLoop(CoolantLoop& loop, const core::SiteSpec& site,
                                    std::vector<LinkLaw> laws) {
  // Fluid properties at the first CDU's supply set-point (viscosity follows the loop later).
  const double T_set = units[loop.units.front()].cdu->T_supply_set;
  loop.coolant = Coolant::fromSpec(site.secondary_coolant);
  const CoolantProperties props = loop.coolant->at(T_set);
  loop.fluid = FluidState{props.rho, props.mu};
  loop.cp = props.cp;
  loop.T_hydraulics = T_set;
  // Cells were sized in m3; from here on they hold heat capacities in J/K.
  for (std::uint32_t c = loop.cell_begin; c < cells.C.size(); ++c)
    cells.C[c] *= props.rho * props.cp;
  for (const std::uint32_t u : loop.units)
    units[u].configure(site, props, cdu_T_facility[u]);
  loop.finish(std::move(laws), cells.C.size(), chips.dies.size());
}

void CoolantLoop::finish(std::vector<LinkLaw> laws, std::size_t cells_end, std::size_t dies_end) {
  cell_end = static_cast<std::uint32_t>(cells_end);
  die_end = static_cast<std::uint32_t>(dies_end);
  const core::FlowNetwork& net = network;
  solver = std::make_unique<HydraulicSolver>(net, std::move(laws), tank, 0.0);
  const std::size_t n_nodes = net.nodeCount();
  const std::size_t n_links = net.linkCount();
  const std::size_t m = width();
  tear_of.assign(n_nodes, -1);
  for (std::size_t j = 0; j < m; ++j)
    tear_of[tears[j]] = static_cast<std::int32_t>(j);
  C_link.assign(n_links, 0.0);
  link_up.assign(n_links, 0);
  link_down.assign(n_links, 0);
  in_begin.assign(n_nodes + 1, 0);
  out_begin.assign(n_nodes + 1, 0);
  in_links.assign(n_links, 0);
  out_links.assign(n_links, 0);
  order.reserve(n_nodes);
  node_alpha.assign(n_nodes, 0.0);
  node_T.assign(n_nodes, 0.0);
  node_beta.assign(n_nodes * m, 0.0);
  cell_beta.assign(static_cast<std::size_t>(cell_end - cell_begin) * m, 0.0);
  die_beta.assign(static_cast<std::size_t>(die_end - die_begin) * m, 0.0);
  closure.assign(m * (m + 1), 0.0);
  cell_inv_diag.assign(cell_end - cell_begin, 0.0);
  in_last_cell.assign(n_links, 0);
  in_weight.assign(n_links, 0.0);
  still_links.reserve(n_links);
  x.assign(m, 0.0);
  flow_scratch.assign(n_links, 0.0);
  in_fill.assign(n_nodes, 0);
  out_fill.assign(n_nodes, 0);
  direction.assign(n_links, 2);  // no pattern yet
  const std::size_t n_loop_dies = die_end - die_begin;
  plate_cell_begin.assign(n_loop_dies, 0);
  plate_cell_end.assign(n_loop_dies, 0);
  plate_up.assign(n_loop_dies, 0);
  plate_C_flow.assign(n_loop_dies, 0.0);
  plate_C_cells.assign(n_loop_dies, 0.0);
  if (m == 1) {
    const std::size_t n_cells = cell_end - cell_begin;
    for (auto* v : {&single.p, &single.f, &single.gamma})
      v->assign(n_cells, 0.0);
    for (auto* v : {&single.die_a, &single.die_b, &single.die_d1, &single.die_e, &single.die_gamma})
      v->assign(n_loop_dies, 0.0);
    single.die_cell.assign(n_loop_dies, 0);
    single.die_up.assign(n_loop_dies, 0);
    single.node_gamma.assign(n_nodes, 0.0);
    single.node_start.assign(n_nodes, SingleSweep::Start::Mix);
    single.node_in_end.assign(n_nodes, 0);
    single.node_out_end.assign(n_nodes, 0);
    single.mix_weight.assign(n_links, 0.0);
    single.mix_cell.assign(n_links, 0);
    single.run_begin.assign(n_links, 0);
    single.run_end.assign(n_links, 0);
  }
}

}  // namespace racktwin::thermal
