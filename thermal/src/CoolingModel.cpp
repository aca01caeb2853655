#include "racktwin/thermal/CoolingModel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/FlowNetwork.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/thermal/Coolant.hpp"
#include "racktwin/thermal/HeatExchanger.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::thermal {
namespace {

using Index = core::FlowNetwork::Index;
constexpr double kFlowThreshold = 1e-9;          // m3/s: below this a link carries no heat
constexpr double kVolumeSmallest = 1e-6;         // m3: every cell holds at least 1 mL
constexpr double kQuickDisconnectVolume = 5e-6;  // m3, estimate: a UQD-class coupling
// Flow convergence of the loop solves, sum abs(dQ) / sum abs(Q). Continuity is exact at every
// iteration, so this bounds only the error in the link laws; tighter values reach round-off in
// networks with near-lossless headers, where flows follow from tiny pressure differences.
constexpr double kHydraulicTolerance = 1e-7;
// Longest interval between two samples of the CDU valve controller, s (see advance()).
constexpr double kControlStep = 2.0;
// The loop's viscosity follows its mean temperature (mean of supply and return): the hydraulics
// are solved again when that mean has moved more than this since the last solve.
constexpr double kViscosityResolveDelta_K = 2.0;
constexpr double kNever = std::numeric_limits<double>::infinity();

enum class ChipKind : std::uint8_t { Gpu, Cpu, Switch };
enum class LinkRole : std::uint8_t { Plain, ColdPlate, HeatExchanger, Pump };

std::string twoDigits(const char* prefix, int n) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%s%02d", prefix, n);
  return buffer;
}

double pipeVolume(const core::PipeSpec& pipe) {
  return 0.25 * std::numbers::pi * pipe.diameter * pipe.diameter * pipe.length;
}

}  // namespace

struct CoolingModel::Impl {
  // ---- Chips: one case node per liquid-cooled chip (GPUs, then CPUs, then switches). ----
  struct Die {
    ChipKind kind;
    std::uint32_t chip;  // index into the layout's GPU/CPU/switch arrays
    std::uint32_t loop;
    Index link;  // its cold-plate link
    const core::ChipSpec* spec;
  };
  std::vector<Die> dies;
  std::vector<double> die_T, die_T_old, die_alpha, die_beta, die_P, die_R, die_T_junction;

  // ---- Coolant volumes, all loops. ----
  std::vector<double> cell_C, cell_T, cell_T_old, cell_alpha, cell_beta;

  // ---- One secondary loop per CDU. ----
  struct Link {
    std::uint32_t cell_begin = 0, cell_end = 0;
    LinkRole role = LinkRole::Plain;
    std::int32_t die = -1;
  };
  struct Loop {
    const core::CduSpec* cdu = nullptr;
    core::FlowNetwork network;
    std::unique_ptr<HydraulicSolver> solver;
    std::vector<Link> links;
    Index tank = 0, pump_link = 0, hx_link = 0, supply_node = 0;
    std::optional<Index> strainer_link;
    std::vector<Index> tray_links;  // the supply QD of every tray (tray flow)
    std::vector<Index> tray_return_links;
    std::vector<Index> rack_supply_hose, rack_return_hose;
    std::vector<std::uint32_t> racks;                     // site rack indices served by this loop
    std::vector<Index> rack_supply_tap, rack_return_tap;  // manifold inlet and outlet nodes
    // Flow pattern, rebuilt after each hydraulic solve.
    std::vector<Index> order;
    std::vector<double> C_link;             // W/K, capacity rate m_flow * cp (0 when no flow)
    std::vector<Index> link_up, link_down;  // upstream/downstream node in the flow direction
    std::vector<std::uint32_t> in_begin, in_links;    // CSR: links flowing into each node
    std::vector<std::uint32_t> out_begin, out_links;  // CSR: links flowing out of each node
    std::vector<double> node_alpha, node_beta, node_T;
    // Scratch of the flow-pattern rebuild (sized once, so a re-solve allocates only when the
    // pattern of flowing links and their directions changes).
    std::vector<double> flow_scratch;
    std::vector<std::uint32_t> in_fill, out_fill;
    std::vector<std::int8_t> direction;  // +1, -1, 0 per link at the last pattern build
    // Fluid: density and heat capacity at the supply set-point for the whole run (they change by
    // under 1 % over the loop's range, and holding them keeps the stored heat exact); viscosity
    // at the loop's mean temperature, refreshed with the hydraulics.
    std::optional<Coolant> coolant;
    FluidState fluid;
    double cp = 0.0;
    double T_hydraulics = 0.0;  // K, mean loop temperature of the last hydraulic solve
    // CDU state.
    std::optional<CounterFlowHeatExchanger> hx;  // set once the fluid is known
    double pump_speed = 0.0;
    // Pumps: `pumps_running` duty pumps run in parallel; after a trip with a healthy standby, the
    // standby starts at `switch_time` (pending_switches of them).
    int pumps_running = 0, pumps_healthy = 0, pending_switches = 0;
    double switch_time = kNever;
    double valve_opening = 1.0, valve_integral = 0.0;
    double T_facility_supply = 0.0;
    double T_supply_set = 0.0;        // K, may change by event
    double facility_C_nominal = 0.0;  // W/K at a fully open valve
    double cp_facility = 0.0, rho_facility = 0.0;
    // Outputs of the last step.
    double Q_hx = 0.0, T_supply = 0.0, T_return = 0.0, V_secondary = 0.0, V_facility = 0.0,
           T_facility_return = 0.0, pump_dp = 0.0, pump_P_hydraulic = 0.0, pump_P_electric = 0.0;
    SolveStatus last_status;
  };
  std::vector<Loop> loops;

  // ---- Room air. ----
  core::RoomSpec room;
  double room_T = 0.0, room_T_old = 0.0, Q_crah = 0.0, crah_P_fan = 0.0;

  // ---- Run totals (J) and metrics. ----
  double E_in = 0.0, E_rejected = 0.0, E_stored_initial = 0.0, E_cooling_electric = 0.0;
  double E_rejected_water = 0.0, E_rejected_air = 0.0;
  double max_gpu_T = 0.0, throttled_gpu_seconds = 0.0;
  int hydraulic_solves = 0, hydraulic_iterations_max = 0;
  bool initialised = false;
  double now = 0.0;  // s, end of the last step (when events apply)

  // ---- Recorder views (stable arrays). ----
  std::vector<double> gpu_T_j, cpu_T_j, switch_T_j, gpu_throttled_record;
  std::vector<double> gpu_V_flow;         // m3/s through each GPU's cold plate
  std::vector<double> rack_dp_available;  // Pa across each rack's manifolds (supply - return)
  std::vector<double> rack_V_flow;        // m3/s through each rack's supply hose
  // Design point: the first hydraulic solve.
  struct DesignPoint {
    double pump_V_flow = 0.0, pump_dp = 0.0, pump_P = 0.0;
    double plate_V_min = 0.0, plate_V_max = 0.0, plate_V_mean = 0.0;
    double plates_below_minimum = 0.0;
    double rack_dp_min = 0.0;
  } design;
  std::vector<double> tray_V_flow, tray_T_out;
  std::vector<std::string> tray_ids;
  std::vector<double> cdu_T_supply, cdu_T_return, cdu_V_flow, cdu_Q_flow, cdu_valve, cdu_V_facility,
      cdu_T_facility_return, cdu_pump_dp, cdu_pump_P, cdu_T_facility_supply, cdu_pump_P_hydraulic,
      cdu_pumps_running;
  std::vector<std::string> cdu_ids;
  double site_E_balance_residual = 0.0;

  const core::SiteLayout* layout = nullptr;

  void build(const core::SiteSpec& site, const core::SiteLayout& site_layout);
  void buildLoop(Loop& loop, const core::SiteSpec& site, std::size_t cdu_index);
  void solveHydraulics(Loop& loop);
  void updateHydraulics(Loop& loop, double t);
  void updateDieResistances(const Loop& loop);
  void recordDesignPoint();
  /// One implicit thermal step of length h with the step's chip heat and air heat Q_air.
  void cycle(double h, double Q_air);
  void controlValve(Loop& loop, double dt);
  void sweep(Loop& loop, double dt);
  double stored() const;
  void publish(core::SiteState& state, double dt);
};

// ------------------------------------------------------------------------------------------------
// Construction

void CoolingModel::Impl::build(const core::SiteSpec& site, const core::SiteLayout& site_layout) {
  layout = &site_layout;
  room = site.room;
  loops.resize(site.cdus.size());
  for (std::size_t c = 0; c < site.cdus.size(); ++c)
    buildLoop(loops[c], site, c);

  const std::size_t n_dies = dies.size();
  for (auto* v : {&die_T, &die_T_old, &die_alpha, &die_beta, &die_P, &die_R, &die_T_junction}) {
    v->assign(n_dies, 0.0);
  }
  const std::size_t n_cells = cell_C.size();
  for (auto* v : {&cell_T, &cell_T_old, &cell_alpha, &cell_beta})
    v->assign(n_cells, 0.0);
  gpu_T_j.assign(site_layout.gpu_count, 0.0);
  gpu_throttled_record.assign(site_layout.gpu_count, 0.0);
  gpu_V_flow.assign(site_layout.gpu_count, 0.0);
  rack_dp_available.assign(site_layout.rack_count, 0.0);
  rack_V_flow.assign(site_layout.rack_count, 0.0);
  cpu_T_j.assign(site_layout.cpu_count, 0.0);
  switch_T_j.assign(site_layout.switch_count, 0.0);
  tray_V_flow.assign(tray_ids.size(), 0.0);
  tray_T_out.assign(tray_ids.size(), 0.0);
  const std::size_t n_cdu = loops.size();
  for (auto* v : {&cdu_T_supply, &cdu_T_return, &cdu_V_flow, &cdu_Q_flow, &cdu_valve,
                  &cdu_V_facility, &cdu_T_facility_return, &cdu_pump_dp, &cdu_pump_P,
                  &cdu_T_facility_supply, &cdu_pump_P_hydraulic, &cdu_pumps_running}) {
    v->assign(n_cdu, 0.0);
  }
}

void CoolingModel::Impl::buildLoop(Loop& loop, const core::SiteSpec& site, std::size_t cdu_index) {
  const core::CduSpec& cdu = site.cdus[cdu_index];
  loop.cdu = &cdu;
  cdu_ids.push_back(cdu.id.str());
  core::FlowNetwork& net = loop.network;
  std::vector<LinkLaw> laws;

  auto addLink = [&](const std::string& id, Index a, Index b, const LinkLaw& law, double volume,
                     int cells, LinkRole role, std::int32_t die) {
    const Index l = net.addLink(id, a, b);
    laws.push_back(law);
    Link link;
    link.role = role;
    link.die = die;
    link.cell_begin = static_cast<std::uint32_t>(cell_C.size());
    cells = std::max(cells, 1);
    for (int k = 0; k < cells; ++k)
      cell_C.push_back(std::max(volume / cells, kVolumeSmallest));
    link.cell_end = static_cast<std::uint32_t>(cell_C.size());
    loop.links.push_back(link);
    return l;
  };

  const std::string base = cdu.id.str();
  loop.tank = net.addNode(base + "/tank");
  const Index pump_out = net.addNode(base + "/pump_outlet");
  loop.supply_node = net.addNode(base + "/supply");
  loop.pump_link = addLink(base + "/pump", loop.tank, pump_out, LinkLaw::makePump(cdu.pump),
                           cdu.pump.volume, 1, LinkRole::Pump, -1);
  if (cdu.has_strainer) {
    // The strainer sits after the exchanger, in series, with its own law and volume.
    const Index hx_out = net.addNode(base + "/hx_outlet");
    loop.hx_link = addLink(base + "/hx", pump_out, hx_out, LinkLaw::makeDrop(cdu.hx_secondary_dp),
                           cdu.hx_secondary_volume, 1, LinkRole::HeatExchanger, -1);
    loop.strainer_link =
        addLink(base + "/strainer", hx_out, loop.supply_node, LinkLaw::makeDrop(cdu.strainer_dp),
                cdu.strainer_volume, 1, LinkRole::Plain, -1);
  } else {
    loop.hx_link =
        addLink(base + "/hx", pump_out, loop.supply_node, LinkLaw::makeDrop(cdu.hx_secondary_dp),
                cdu.hx_secondary_volume, 1, LinkRole::HeatExchanger, -1);
  }

  // Row headers (core::RowHeaderSpec): the racks of this CDU tap them in scenario order. Without
  // headers each rack's hoses join the CDU supply node and the tank directly.
  const core::RowHeaderSpec& headers = cdu.headers;
  const core::PipeSpec& segment = headers.segment;
  const bool reverse_return = headers.return_arrangement == core::RowHeaderSpec::Return::Reverse;
  const auto rack_count = static_cast<int>(std::count_if(
      site.racks.begin(), site.racks.end(), [&](const auto& r) { return r.cdu == cdu.id.str(); }));
  Index supply_header_tap = loop.supply_node;
  Index return_header_tap = loop.tank;
  int position = 0;  // 1-based position of the rack along the headers

  for (std::size_t r = 0; r < site.racks.size(); ++r) {
    const core::RackSpec& rack = site.racks[r];
    if (rack.cdu != cdu.id.str()) continue;
    const core::RackTypeSpec& type = rack.type;
    const std::string rid = rack.id.str();
    const auto rack_index = static_cast<std::uint32_t>(r);

    // Where this rack's hoses join the CDU side: the CDU itself, or its taps on the headers.
    Index rack_supply_from = loop.supply_node;
    Index rack_return_to = loop.tank;
    if (headers.present) {
      ++position;
      const std::string number = twoDigits("", position);
      const Index s = net.addNode(base + "/supply_header/tap" + number);
      const Index t = net.addNode(base + "/return_header/tap" + number);
      addLink(base + "/supply_header/segment" + number, supply_header_tap, s,
              LinkLaw::makePipe(segment), pipeVolume(segment), segment.cells, LinkRole::Plain, -1);
      if (!reverse_return) {
        // Direct return: back toward the CDU, the first tap drains into the tank.
        addLink(base + "/return_header/segment" + number, t, return_header_tap,
                LinkLaw::makePipe(segment), pipeVolume(segment), segment.cells, LinkRole::Plain,
                -1);
      } else if (position > 1) {
        // Reverse return: away from the CDU, from the previous tap to this one.
        addLink(base + "/return_header/segment" + number, return_header_tap, t,
                LinkLaw::makePipe(segment), pipeVolume(segment), segment.cells, LinkRole::Plain,
                -1);
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
        addLink(base + "/return_header/return_pipe", t, loop.tank, LinkLaw::makePipe(back),
                pipeVolume(back), back.cells, LinkRole::Plain, -1);
      }
    }

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

    const Index supply_first = net.addNode(rid + "/supply_manifold/tap01");
    const Index return_first = net.addNode(rid + "/return_manifold/tap01");
    loop.rack_supply_hose.push_back(addLink(rid + "/supply_hose", rack_supply_from, supply_first,
                                            LinkLaw::makePipe(type.hose), pipeVolume(type.hose),
                                            type.hose.cells, LinkRole::Plain, -1));
    loop.rack_return_hose.push_back(addLink(rid + "/return_hose", return_first, rack_return_to,
                                            LinkLaw::makePipe(type.hose), pipeVolume(type.hose),
                                            type.hose.cells, LinkRole::Plain, -1));
    loop.racks.push_back(rack_index);
    loop.rack_supply_tap.push_back(supply_first);
    loop.rack_return_tap.push_back(return_first);
    Index supply_tap = supply_first;
    Index return_tap = return_first;
    const double qd_volume = kQuickDisconnectVolume;
    for (std::size_t k = 0; k < trays.size(); ++k) {
      if (k > 0) {
        const std::string tap = twoDigits("tap", static_cast<int>(k + 1));
        const Index s = net.addNode(rid + "/supply_manifold/" + tap);
        const Index t = net.addNode(rid + "/return_manifold/" + tap);
        addLink(rid + "/supply_manifold/segment" + tap.substr(3), supply_tap, s,
                LinkLaw::makePipe(type.manifold_segment), pipeVolume(type.manifold_segment),
                type.manifold_segment.cells, LinkRole::Plain, -1);
        addLink(rid + "/return_manifold/segment" + tap.substr(3), t, return_tap,
                LinkLaw::makePipe(type.manifold_segment), pipeVolume(type.manifold_segment),
                type.manifold_segment.cells, LinkRole::Plain, -1);
        supply_tap = s;
        return_tap = t;
      }
      const TrayRef& tray = trays[k];
      const std::string tid =
          rid + '/' + twoDigits(tray.compute ? "tray" : "switchtray", tray.number);
      tray_ids.push_back(tid);
      const Index tray_in = net.addNode(tid + "/inlet");
      const Index tray_out = net.addNode(tid + "/outlet");
      loop.tray_links.push_back(addLink(tid + "/qd_supply", supply_tap, tray_in,
                                        LinkLaw::makePowerLaw(type.quick_disconnect), qd_volume, 1,
                                        LinkRole::Plain, -1));
      loop.tray_return_links.push_back(addLink(tid + "/qd_return", tray_out, return_tap,
                                               LinkLaw::makePowerLaw(type.quick_disconnect),
                                               qd_volume, 1, LinkRole::Plain, -1));

      auto addPlate = [&](ChipKind kind, std::uint32_t chip, const core::ChipSpec& spec,
                          const std::string& chip_id) {
        const auto die = static_cast<std::int32_t>(dies.size());
        const Index l = addLink(chip_id + "/cold_plate", tray_in, tray_out,
                                LinkLaw::makePowerLaw(spec.cold_plate.dp), spec.cold_plate.volume,
                                1, LinkRole::ColdPlate, die);
        dies.push_back(Die{kind, chip, static_cast<std::uint32_t>(cdu_index), l, &spec});
      };
      if (tray.compute) {
        const std::uint32_t tray0 = static_cast<std::uint32_t>(tray.number - 1);
        for (int g = 0; g < type.gpus_per_tray; ++g) {
          const std::uint32_t chip = layout->rack_gpu_begin[rack_index]
                                     + tray0 * static_cast<std::uint32_t>(type.gpus_per_tray)
                                     + static_cast<std::uint32_t>(g);
          addPlate(ChipKind::Gpu, chip, type.gpu, layout->gpu_ids[chip]);
        }
        for (int c = 0; c < type.cpus_per_tray; ++c) {
          const std::uint32_t chip = layout->rack_cpu_begin[rack_index]
                                     + tray0 * static_cast<std::uint32_t>(type.cpus_per_tray)
                                     + static_cast<std::uint32_t>(c);
          addPlate(ChipKind::Cpu, chip, type.cpu, layout->cpu_ids[chip]);
        }
      } else {
        const std::uint32_t tray0 = static_cast<std::uint32_t>(tray.number - 1);
        for (int s = 0; s < type.switches_per_tray; ++s) {
          const std::uint32_t chip = layout->rack_switch_begin[rack_index]
                                     + tray0 * static_cast<std::uint32_t>(type.switches_per_tray)
                                     + static_cast<std::uint32_t>(s);
          addPlate(ChipKind::Switch, chip, type.nvswitch, layout->switch_ids[chip]);
        }
      }
    }
  }
  // Fluid properties at the supply set-point (viscosity follows the loop temperature later).
  loop.coolant = Coolant::fromSpec(site.secondary_coolant);
  const CoolantProperties props = loop.coolant->at(cdu.T_supply_set);
  loop.fluid = FluidState{props.rho, props.mu};
  loop.cp = props.cp;
  loop.T_hydraulics = cdu.T_supply_set;
  // Cells were sized in m3 above; from here on they hold heat capacities in J/K.
  for (const Link& link : loop.links) {
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c) {
      cell_C[c] *= props.rho * props.cp;
    }
  }
  loop.T_supply_set = cdu.T_supply_set;
  const Coolant water = Coolant::water();
  const CoolantProperties water_props = water.at(site.facility.T_supply);
  loop.cp_facility = water_props.cp;
  loop.rho_facility = water_props.rho;
  loop.facility_C_nominal = cdu.facility_V_flow_nominal * water_props.rho * water_props.cp;
  const double C_secondary_nominal = cdu.secondary_V_flow_nominal * props.rho * props.cp;
  loop.hx = CounterFlowHeatExchanger::fromRating(cdu.Q_flow_nominal, C_secondary_nominal,
                                                 loop.facility_C_nominal, cdu.approach_nominal);
  loop.pump_speed = cdu.pump.speed;
  loop.pumps_running = cdu.pumps_duty;
  loop.pumps_healthy = cdu.pumps_installed;
  loop.T_facility_supply = site.facility.T_supply;

  loop.solver = std::make_unique<HydraulicSolver>(net, std::move(laws), loop.tank, 0.0);
  const std::size_t n_nodes = net.nodeCount();
  const std::size_t n_links = net.linkCount();
  loop.C_link.assign(n_links, 0.0);
  loop.link_up.assign(n_links, 0);
  loop.link_down.assign(n_links, 0);
  loop.in_begin.assign(n_nodes + 1, 0);
  loop.out_begin.assign(n_nodes + 1, 0);
  loop.in_links.assign(n_links, 0);
  loop.out_links.assign(n_links, 0);
  loop.order.reserve(n_nodes);
  for (auto* v : {&loop.node_alpha, &loop.node_beta, &loop.node_T})
    v->assign(n_nodes, 0.0);
  loop.flow_scratch.assign(n_links, 0.0);
  loop.in_fill.assign(n_nodes, 0);
  loop.out_fill.assign(n_nodes, 0);
  loop.direction.assign(n_links, 2);  // no pattern yet
}

// ------------------------------------------------------------------------------------------------
// Hydraulics and flow pattern (on change only)

void CoolingModel::Impl::solveHydraulics(Loop& loop) {
  // pumps_running identical duty pumps in parallel at the loop's speed; none running: stopped.
  LinkLaw& pump = loop.solver->law(loop.pump_link);
  pump.pump.speed = loop.pumps_running > 0 ? loop.pump_speed : 0.0;
  pump.pumps_parallel = std::max(loop.pumps_running, 1);
  loop.last_status = loop.solver->solve(loop.fluid, kHydraulicTolerance);
  ++hydraulic_solves;
  hydraulic_iterations_max = std::max(hydraulic_iterations_max, loop.last_status.iterations);
  if (!loop.last_status.converged) {
    throw core::RuntimeError(
        "coolant loop of " + loop.cdu->id.str() + ": hydraulic solve failed after "
        + std::to_string(loop.last_status.iterations) + " iterations: " + loop.last_status.message);
  }
  const core::FlowNetwork& net = loop.network;
  const std::span<const double> V = loop.solver->V_flow();
  const std::size_t n_nodes = net.nodeCount();
  const std::size_t n_links = net.linkCount();
  // Direction and capacity rate of every link; links with negligible flow carry no heat.
  std::vector<double>& flow = loop.flow_scratch;
  bool same_pattern = true;
  for (Index l = 0; l < n_links; ++l) {
    const bool flowing = std::abs(V[l]) > kFlowThreshold;
    loop.C_link[l] = flowing ? loop.fluid.rho * std::abs(V[l]) * loop.cp : 0.0;
    const std::int8_t direction = !flowing ? 0 : V[l] > 0.0 ? 1 : -1;
    same_pattern = same_pattern && direction == loop.direction[l];
    loop.direction[l] = direction;
    flow[l] = flowing ? V[l] : 0.0;
  }
  // The sweep order and the in/out lists depend only on which links carry flow and which way:
  // a re-solve that keeps that pattern (a viscosity update) needs neither the graph algorithm
  // nor any allocation.
  if (!same_pattern) {
    for (Index l = 0; l < n_links; ++l) {
      loop.link_up[l] = V[l] >= 0.0 ? net.portA(l) : net.portB(l);
      loop.link_down[l] = V[l] >= 0.0 ? net.portB(l) : net.portA(l);
    }
    const Index tear[] = {loop.tank};
    if (!net.flowOrder(flow, kFlowThreshold, tear, loop.order)) {
      throw core::RuntimeError("coolant loop of " + loop.cdu->id.str()
                               + ": the flow has a cycle that does not pass the tank");
    }
    // CSR lists of flowing links into and out of each node.
    std::fill(loop.in_begin.begin(), loop.in_begin.end(), 0);
    std::fill(loop.out_begin.begin(), loop.out_begin.end(), 0);
    for (Index l = 0; l < n_links; ++l) {
      if (loop.C_link[l] == 0.0) continue;
      ++loop.in_begin[loop.link_down[l] + 1];
      ++loop.out_begin[loop.link_up[l] + 1];
    }
    for (std::size_t n = 0; n < n_nodes; ++n) {
      loop.in_begin[n + 1] += loop.in_begin[n];
      loop.out_begin[n + 1] += loop.out_begin[n];
    }
    std::copy(loop.in_begin.begin(), loop.in_begin.end() - 1, loop.in_fill.begin());
    std::copy(loop.out_begin.begin(), loop.out_begin.end() - 1, loop.out_fill.begin());
    for (Index l = 0; l < n_links; ++l) {
      if (loop.C_link[l] == 0.0) continue;
      loop.in_links[loop.in_fill[loop.link_down[l]]++] = l;
      loop.out_links[loop.out_fill[loop.link_up[l]]++] = l;
    }
  }
  // Pump: the hydraulic power enters the coolant as heat; the motor loss goes to room air.
  loop.pump_dp = -loop.solver->dp(loop.pump_link);
  loop.pump_P_hydraulic = std::max(0.0, loop.pump_dp * V[loop.pump_link]);
  loop.pump_P_electric = loop.pump_P_hydraulic / loop.cdu->pump.efficiency;
  loop.V_secondary = V[loop.pump_link];
  updateDieResistances(loop);
  const std::span<const double> p = loop.solver->p();
  for (std::size_t k = 0; k < loop.racks.size(); ++k) {
    rack_dp_available[loop.racks[k]] = p[loop.rack_supply_tap[k]] - p[loop.rack_return_tap[k]];
    rack_V_flow[loop.racks[k]] = V[loop.rack_supply_hose[k]];
  }
  for (const Die& die : dies) {
    if (die.kind == ChipKind::Gpu && &loops[die.loop] == &loop) gpu_V_flow[die.chip] = V[die.link];
  }
}

// Once per step and loop, O(1) unless a solve is due: a standby pump whose switch-over time has
// come starts, and the viscosity follows the mean loop temperature. A solve that keeps the flow
// pattern allocates nothing outside Eigen's factorisation (which keeps its work on the stack, see
// Hydraulics.cpp); a pattern change (flow stopping or starting) rebuilds the sweep order.
void CoolingModel::Impl::updateHydraulics(Loop& loop, double t) {
  bool solve = false;
  if (loop.pending_switches > 0 && t >= loop.switch_time - 1e-9 * std::max(1.0, loop.switch_time)) {
    loop.pumps_running += loop.pending_switches;
    loop.pending_switches = 0;
    loop.switch_time = kNever;
    solve = true;
  }
  const double T_mean = 0.5 * (loop.T_supply + loop.T_return);
  if (std::abs(T_mean - loop.T_hydraulics) > kViscosityResolveDelta_K) {
    loop.fluid.mu = loop.coolant->viscosity(T_mean);
    loop.T_hydraulics = T_mean;
    solve = true;
  }
  if (solve) solveHydraulics(loop);
}

void CoolingModel::Impl::recordDesignPoint() {
  // Facility engineers' questions at the design point: where the pumps run, how evenly the cold
  // plates are fed, and how much differential pressure the least favoured rack sees.
  design = DesignPoint{};
  for (const Loop& loop : loops) {
    design.pump_V_flow += loop.V_secondary;
    design.pump_dp = std::max(design.pump_dp, loop.pump_dp);
    design.pump_P += loop.pump_P_electric;
  }
  double sum = 0.0;
  design.plate_V_min = dies.empty() ? 0.0 : 1e300;
  for (const Die& die : dies) {
    const double V = std::abs(loops[die.loop].solver->V_flow()[die.link]);
    design.plate_V_min = std::min(design.plate_V_min, V);
    design.plate_V_max = std::max(design.plate_V_max, V);
    sum += V;
    if (V < die.spec->cold_plate.V_flow_min) design.plates_below_minimum += 1.0;
  }
  design.plate_V_mean = dies.empty() ? 0.0 : sum / static_cast<double>(dies.size());
  design.rack_dp_min = rack_dp_available.empty() ? 0.0 : 1e300;
  for (double dp : rack_dp_available)
    design.rack_dp_min = std::min(design.rack_dp_min, dp);
}

void CoolingModel::Impl::updateDieResistances(const Loop& loop) {
  const std::span<const double> V = loop.solver->V_flow();
  for (std::size_t d = 0; d < dies.size(); ++d) {
    if (&loops[dies[d].loop] != &loop) continue;
    const core::ColdPlateSpec& plate = dies[d].spec->cold_plate;
    const double V_plate = std::max(std::abs(V[dies[d].link]), plate.V_flow_min);
    die_R[d] = plate.R_constant + plate.R_flow / V_plate;
  }
}

// ------------------------------------------------------------------------------------------------
// Controls

void CoolingModel::Impl::controlValve(Loop& loop, double dt) {
  const core::CduSpec& cdu = *loop.cdu;
  // PI on the secondary supply temperature (measured at the end of the last step): too warm ->
  // open. Anti-windup: the integral does not grow while the output is saturated that way.
  const double error = loop.T_supply - loop.T_supply_set;
  const double proportional = cdu.valve_gain * error;
  const double integral_rate = cdu.valve_gain / cdu.valve_integral_time * error;
  double wanted = proportional + loop.valve_integral + integral_rate * dt;
  const bool saturated_high = wanted > 1.0 && error > 0.0;
  const bool saturated_low = wanted < cdu.valve_opening_min && error < 0.0;
  if (!saturated_high && !saturated_low) loop.valve_integral += integral_rate * dt;
  wanted = std::clamp(proportional + loop.valve_integral, cdu.valve_opening_min, 1.0);
  // The actuator moves at most dt / stroke_time per step.
  const double max_move = cdu.valve_stroke_time > 0.0 ? dt / cdu.valve_stroke_time : 1.0;
  loop.valve_opening += std::clamp(wanted - loop.valve_opening, -max_move, max_move);
}

// ------------------------------------------------------------------------------------------------
// The implicit transport step: affine sweep in flow order, then loop closure.

void CoolingModel::Impl::sweep(Loop& loop, double dt) {
  const std::size_t n_nodes = loop.network.nodeCount();
  const double C_facility = loop.valve_opening * loop.facility_C_nominal;
  const double C_hot = loop.C_link[loop.hx_link];
  const double G_hx = loop.hx->conductance(C_hot, C_facility);
  const double T_fac = loop.T_facility_supply;

  // Advances the cells of link l from an inlet temperature T_in = a_in + b_in x.
  auto advanceLink = [&](Index l, double a_in, double b_in) {
    const Link& link = loop.links[l];
    const double C_flow = loop.C_link[l];
    double a = a_in;
    double b = b_in;
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c) {
      const double store = cell_C[c] / dt;
      double rhs_a = store * cell_T_old[c] + C_flow * a;
      double rhs_b = C_flow * b;
      const double diag = store + C_flow;
      if (c == link.cell_begin) {
        switch (link.role) {
          case LinkRole::ColdPlate: {
            // Case node: (C_d/dt)(D - D_old) = P - (D - T_in)/R, solved for D = d0 + d1 T_in.
            const auto d = static_cast<std::size_t>(link.die);
            const double store_d = dies[d].spec->heat_capacity / dt;
            // Effectiveness <= 1: the coolant cannot leave hotter than the case, so the
            // inlet-referenced conductance is capped at the capacity rate.
            const double g = std::min(1.0 / die_R[d], C_flow);
            const double d0 = (store_d * die_T_old[d] + die_P[d]) / (store_d + g);
            const double d1 = g / (store_d + g);
            // Heat into the cell: g (D - T_in) = g d0 + g (d1 - 1) T_in.
            die_alpha[d] = d0 + d1 * a;
            die_beta[d] = d1 * b;
            rhs_a += g * d0 + g * (d1 - 1.0) * a;
            rhs_b += g * (d1 - 1.0) * b;
            break;
          }
          case LinkRole::HeatExchanger:
            rhs_a -= G_hx * (a - T_fac);
            rhs_b -= G_hx * b;
            break;
          case LinkRole::Pump:
            rhs_a += loop.pump_P_hydraulic;
            break;
          case LinkRole::Plain:
            break;
        }
      }
      cell_alpha[c] = rhs_a / diag;
      cell_beta[c] = rhs_b / diag;
      a = cell_alpha[c];
      b = cell_beta[c];
    }
  };

  // Links without flow: each cell is closed; a cold plate exchanges with its own cell.
  for (Index l = 0; l < loop.links.size(); ++l) {
    if (loop.C_link[l] != 0.0) continue;
    const Link& link = loop.links[l];
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c) {
      const double store = cell_C[c] / dt;
      double T = cell_T_old[c];
      if (c == link.cell_begin && link.role == LinkRole::ColdPlate) {
        const auto d = static_cast<std::size_t>(link.die);
        const double store_d = dies[d].spec->heat_capacity / dt;
        const double g = 1.0 / die_R[d];
        // [store_d + g, -g; -g, store + g] [D; T] = [store_d D_old + P; store T_old]
        const double m11 = store_d + g, m12 = -g, m21 = -g, m22 = store + g;
        const double r1 = store_d * die_T_old[d] + die_P[d], r2 = store * cell_T_old[c];
        const double det = m11 * m22 - m12 * m21;
        die_alpha[d] = (r1 * m22 - m12 * r2) / det;
        die_beta[d] = 0.0;
        T = (m11 * r2 - m21 * r1) / det;
      } else if (c == link.cell_begin && link.role == LinkRole::Pump) {
        T = cell_T_old[c] + loop.pump_P_hydraulic / store;
      }
      cell_alpha[c] = T;
      cell_beta[c] = 0.0;
    }
  }

  // Forward sweep: every node temperature and cell temperature as alpha + beta * T_tank.
  for (const Index n : loop.order) {
    double a = 0.0, b = 0.0;
    if (n == loop.tank) {
      b = 1.0;
    } else {
      double C_sum = 0.0;
      for (std::uint32_t k = loop.in_begin[n]; k < loop.in_begin[n + 1]; ++k) {
        const Index l = loop.in_links[k];
        const std::uint32_t last = loop.links[l].cell_end - 1;
        C_sum += loop.C_link[l];
        a += loop.C_link[l] * cell_alpha[last];
        b += loop.C_link[l] * cell_beta[last];
      }
      if (C_sum > 0.0) {
        a /= C_sum;
        b /= C_sum;
      } else {
        a = loop.node_T[n];  // no inflow: the junction keeps its last temperature
      }
    }
    loop.node_alpha[n] = a;
    loop.node_beta[n] = b;
    for (std::uint32_t k = loop.out_begin[n]; k < loop.out_begin[n + 1]; ++k) {
      advanceLink(loop.out_links[k], a, b);
    }
  }

  // Loop closure at the tank: x = (sum C (alpha + beta x)) / sum C.
  double C_sum = 0.0, A = 0.0, B = 0.0;
  for (std::uint32_t k = loop.in_begin[loop.tank]; k < loop.in_begin[loop.tank + 1]; ++k) {
    const Index l = loop.in_links[k];
    const std::uint32_t last = loop.links[l].cell_end - 1;
    C_sum += loop.C_link[l];
    A += loop.C_link[l] * cell_alpha[last];
    B += loop.C_link[l] * cell_beta[last];
  }
  double x = loop.node_T[loop.tank];
  if (C_sum > 0.0) {
    A /= C_sum;
    B /= C_sum;
    RACKTWIN_ASSERT(B < 1.0, "the loop closure must be contractive");
    x = A / (1.0 - B);
  }

  // Back-substitution.
  for (Index l = 0; l < loop.links.size(); ++l) {
    const Link& link = loop.links[l];
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c) {
      cell_T[c] = cell_alpha[c] + cell_beta[c] * x;
    }
    if (link.die >= 0) {
      const auto d = static_cast<std::size_t>(link.die);
      die_T[d] = die_alpha[d] + die_beta[d] * x;
    }
  }
  for (std::size_t n = 0; n < n_nodes; ++n) {
    loop.node_T[n] = loop.node_alpha[n] + loop.node_beta[n] * x;
  }

  // Heat removed by the exchanger, from the same implicit temperatures (exact balance).
  const Index hx_in = loop.link_up[loop.hx_link];
  loop.Q_hx = C_hot > 0.0 ? G_hx * (loop.node_T[hx_in] - T_fac) : 0.0;
  loop.T_supply = loop.node_T[loop.supply_node];
  loop.T_return = loop.node_T[loop.tank];
  loop.V_facility = loop.valve_opening * loop.cdu->facility_V_flow_nominal;
  loop.T_facility_return = C_facility > 0.0 ? T_fac + loop.Q_hx / C_facility : T_fac;
}

double CoolingModel::Impl::stored() const {
  double E = 0.0;
  for (std::size_t c = 0; c < cell_C.size(); ++c) {
    E += cell_C[c] * (cell_T[c] - core::kZeroCelsius_K);
  }
  for (std::size_t d = 0; d < dies.size(); ++d) {
    E += dies[d].spec->heat_capacity * (die_T[d] - core::kZeroCelsius_K);
  }
  E += room.heat_capacity * (room_T - core::kZeroCelsius_K);
  return E;
}

void CoolingModel::Impl::publish(core::SiteState& state, double dt) {
  for (std::size_t d = 0; d < dies.size(); ++d) {
    const Die& die = dies[d];
    const double T_j = die_T[d] + die_P[d] * die.spec->R_junction_case;
    die_T_junction[d] = T_j;
    switch (die.kind) {
      case ChipKind::Gpu: {
        gpu_T_j[die.chip] = T_j;
        state.gpu_T_junction[die.chip] = T_j;
        // Slowdown with hysteresis; clocks follow power as P ~ f^3, so speed = fraction^(1/3).
        std::uint8_t& throttled = state.gpu_throttled[die.chip];
        if (T_j > die.spec->T_slowdown) throttled = 1;
        if (T_j < die.spec->T_slowdown_release) throttled = 0;
        state.gpu_speed[die.chip] =
            throttled != 0 ? std::cbrt(die.spec->throttled_power_fraction) : 1.0;
        gpu_throttled_record[die.chip] = throttled;
        if (throttled != 0) throttled_gpu_seconds += dt;
        max_gpu_T = std::max(max_gpu_T, T_j);
        break;
      }
      case ChipKind::Cpu:
        cpu_T_j[die.chip] = T_j;
        break;
      case ChipKind::Switch:
        switch_T_j[die.chip] = T_j;
        break;
    }
  }
  std::size_t tray = 0;
  for (std::size_t c = 0; c < loops.size(); ++c) {
    const Loop& loop = loops[c];
    const std::span<const double> V = loop.solver->V_flow();
    for (std::size_t k = 0; k < loop.tray_links.size(); ++k, ++tray) {
      tray_V_flow[tray] = V[loop.tray_links[k]];
      const Link& ret = loop.links[loop.tray_return_links[k]];
      tray_T_out[tray] = cell_T[ret.cell_end - 1];
    }
    cdu_T_supply[c] = loop.T_supply;
    cdu_T_return[c] = loop.T_return;
    cdu_V_flow[c] = loop.V_secondary;
    cdu_Q_flow[c] = loop.Q_hx;
    cdu_valve[c] = loop.valve_opening;
    cdu_V_facility[c] = loop.V_facility;
    cdu_T_facility_return[c] = loop.T_facility_return;
    cdu_T_facility_supply[c] = loop.T_facility_supply;
    cdu_pump_dp[c] = loop.pump_dp;
    cdu_pump_P[c] = loop.pump_P_electric;
    cdu_pump_P_hydraulic[c] = loop.pump_P_hydraulic;
    cdu_pumps_running[c] = loop.pumps_running;
  }
}

// ------------------------------------------------------------------------------------------------

CoolingModel::CoolingModel(const core::SiteSpec& site, const core::SiteLayout& layout)
    : impl_(std::make_unique<Impl>()) {
  impl_->build(site, layout);
}

CoolingModel::~CoolingModel() = default;

void CoolingModel::initialize(core::SiteState& state) {
  Impl& m = *impl_;
  for (auto& loop : m.loops)
    m.solveHydraulics(loop);
  m.recordDesignPoint();
  // Start from rest at the supply set-point everywhere (the run warms the loop up).
  for (std::size_t d = 0; d < m.dies.size(); ++d) {
    m.die_T[d] = m.loops[m.dies[d].loop].cdu->T_supply_set;
  }
  std::size_t first_cell = 0;
  for (auto& loop : m.loops) {
    const std::size_t end = loop.links.empty() ? first_cell : loop.links.back().cell_end;
    std::fill(m.cell_T.begin() + static_cast<std::ptrdiff_t>(first_cell),
              m.cell_T.begin() + static_cast<std::ptrdiff_t>(end), loop.cdu->T_supply_set);
    std::fill(loop.node_T.begin(), loop.node_T.end(), loop.cdu->T_supply_set);
    loop.T_supply = loop.cdu->T_supply_set;
    loop.T_return = loop.cdu->T_supply_set;
    loop.valve_opening = 0.5;
    loop.valve_integral = 0.5;
    first_cell = end;
  }
  m.room_T = m.room.T_supply_air;
  std::fill(m.die_P.begin(), m.die_P.end(), 0.0);
  m.E_stored_initial = m.stored();
  m.E_in = m.E_rejected = m.E_cooling_electric = m.E_rejected_water = m.E_rejected_air = 0.0;
  m.max_gpu_T = 0.0;
  m.throttled_gpu_seconds = 0.0;
  m.publish(state, 0.0);
  m.initialised = true;
}

void CoolingModel::advance(double t, double dt, core::SiteState& state) {
  Impl& m = *impl_;
  // Heat of the step: the fast models' energies averaged over the macro step.
  for (std::size_t d = 0; d < m.dies.size(); ++d) {
    const Impl::Die& die = m.dies[d];
    const std::vector<double>& E = die.kind == ChipKind::Gpu   ? state.gpu_E_step
                                   : die.kind == ChipKind::Cpu ? state.cpu_E_step
                                                               : state.switch_E_step;
    m.die_P[d] = E[die.chip] / dt;
  }
  double Q_air = 0.0;
  for (double E : state.rack_air_E_step)
    Q_air += E / dt;

  // Transport is implicit and stable at any step, but the valve PI is a sampled controller: one
  // sampled far slower than the loop responds (tens of seconds) overshoots and oscillates. Long
  // macro steps are therefore cycled in sub-steps of at most kControlStep.
  const int cycles = std::max(1, static_cast<int>(std::ceil(dt / kControlStep - 1e-9)));
  const double h = dt / cycles;
  for (int k = 0; k < cycles; ++k) {
    const double t_k = t + k * h;
    for (auto& loop : m.loops)
      m.updateHydraulics(loop, t_k);
    m.cycle(h, Q_air);
  }
  m.now = t + dt;
  m.publish(state, dt);
}

void CoolingModel::Impl::cycle(double h, double Q_air) {
  std::copy(die_T.begin(), die_T.end(), die_T_old.begin());
  std::copy(cell_T.begin(), cell_T.end(), cell_T_old.begin());

  double Q_in = Q_air;
  for (double P : die_P)
    Q_in += P;
  double Q_out = 0.0;
  double Q_room = Q_air;
  double P_cooling = 0.0;
  for (auto& loop : loops) {
    controlValve(loop, h);
    sweep(loop, h);
    Q_in += loop.pump_P_electric;  // hydraulic part into the coolant, motor loss into the room
    Q_room += loop.pump_P_electric - loop.pump_P_hydraulic;
    Q_out += loop.Q_hx;
    P_cooling += loop.pump_P_electric;
  }

  // Room air node, implicit: C (T - T_old)/h = Q_room - Q_crah(T), Q_crah = G (T - T_sa) in
  // [0, capacity].
  room_T_old = room_T;
  const double store = room.heat_capacity / h;
  const double G = room.crah_conductance;
  double T = (store * room_T_old + Q_room + G * room.T_supply_air) / (store + G);
  double Q_crah_now = G * (T - room.T_supply_air);
  if (Q_crah_now > room.crah_Q_flow_max || Q_crah_now < 0.0) {
    Q_crah_now = std::clamp(Q_crah_now, 0.0, room.crah_Q_flow_max);
    T = room_T_old + (Q_room - Q_crah_now) / store;
  }
  room_T = T;
  Q_crah = Q_crah_now;
  crah_P_fan = room.crah_fan_power_fraction * Q_crah_now;
  P_cooling += crah_P_fan;
  Q_out += Q_crah_now;

  E_in += Q_in * h;
  E_rejected += Q_out * h;
  E_rejected_air += Q_crah_now * h;
  E_rejected_water += (Q_out - Q_crah_now) * h;
  E_cooling_electric += P_cooling * h;
  site_E_balance_residual = E_in - E_rejected - (stored() - E_stored_initial);
}

bool CoolingModel::applyEvent(const core::EventSpec& event, core::SiteState& /*state*/) {
  Impl& m = *impl_;
  switch (event.kind) {
    case core::EventKind::SetFacilitySupplyTemperature:
      for (auto& loop : m.loops)
        loop.T_facility_supply = event.value;
      return true;
    case core::EventKind::SetSupplySetpoint:
    case core::EventKind::SetPumpSpeed:
    case core::EventKind::PumpTrip:
      for (auto& loop : m.loops) {
        if (loop.cdu->id.str() != event.target) continue;
        if (event.kind == core::EventKind::SetSupplySetpoint) {
          loop.T_supply_set = event.value;
        } else if (event.kind == core::EventKind::SetPumpSpeed) {
          loop.pump_speed = event.value;
          m.solveHydraulics(loop);
        } else if (loop.pumps_running > 0) {
          // A duty pump trips for good. A healthy pump that is not running (a standby) starts
          // after the switch-over time; meanwhile the loop runs on the remaining duty pumps.
          --loop.pumps_running;
          --loop.pumps_healthy;
          const int standby = loop.pumps_healthy - loop.pumps_running - loop.pending_switches;
          if (standby > 0) {
            if (loop.pending_switches == 0) {
              loop.switch_time = m.now + loop.cdu->standby_switchover_time;
            }
            ++loop.pending_switches;
          }
          m.solveHydraulics(loop);
        }
        return true;
      }
      return false;
    default:
      return false;  // not a cooling event
  }
  return false;
}

void CoolingModel::declareChannels(core::Recorder& recorder) {
  Impl& m = *impl_;
  const core::SiteLayout& L = *m.layout;
  recorder.add({"gpu", "T_junction", "K", "GPU junction temperature", L.gpu_ids}, m.gpu_T_j.data());
  recorder.add(
      {"gpu", "V_flow", "m3/s", "Coolant volume flow through the GPU's cold plate", L.gpu_ids},
      m.gpu_V_flow.data());
  recorder.add(
      {"rack", "V_flow", "m3/s", "Coolant volume flow into the rack (supply hose)", L.rack_ids},
      m.rack_V_flow.data());
  recorder.add({"rack", "dp_available", "Pa",
                "Differential pressure across the rack's supply and return manifolds", L.rack_ids},
               m.rack_dp_available.data());
  recorder.add({"gpu", "throttled", "1", "1 while the GPU is in thermal slowdown", L.gpu_ids},
               m.gpu_throttled_record.data());
  recorder.add({"cpu", "T_junction", "K", "Grace CPU junction temperature", L.cpu_ids},
               m.cpu_T_j.data());
  recorder.add({"nvswitch", "T_junction", "K", "NVLink switch junction temperature", L.switch_ids},
               m.switch_T_j.data());
  recorder.add({"tray", "V_flow", "m3/s", "Coolant volume flow through the tray", m.tray_ids},
               m.tray_V_flow.data());
  recorder.add({"tray", "T_outlet", "K", "Coolant temperature leaving the tray", m.tray_ids},
               m.tray_T_out.data());
  const auto& ids = m.cdu_ids;
  recorder.add({"cdu", "T_supply", "K", "Secondary supply temperature leaving the CDU", ids},
               m.cdu_T_supply.data());
  recorder.add({"cdu", "T_return", "K", "Secondary return temperature entering the CDU", ids},
               m.cdu_T_return.data());
  recorder.add({"cdu", "V_flow", "m3/s", "Secondary volume flow through the CDU pump", ids},
               m.cdu_V_flow.data());
  recorder.add({"cdu", "Q_flow", "W", "Heat moved from the secondary loop to facility water", ids},
               m.cdu_Q_flow.data());
  recorder.add({"cdu", "valve_opening", "1", "Facility-side control valve opening", ids},
               m.cdu_valve.data());
  recorder.add({"cdu", "V_flow_facility", "m3/s", "Facility water flow through the CDU", ids},
               m.cdu_V_facility.data());
  recorder.add(
      {"cdu", "T_facility_supply", "K", "Facility water temperature entering the CDU", ids},
      m.cdu_T_facility_supply.data());
  recorder.add({"cdu", "T_facility_return", "K", "Facility water temperature leaving the CDU", ids},
               m.cdu_T_facility_return.data());
  recorder.add({"cdu", "pump_dp", "Pa", "Pressure rise across the secondary pump", ids},
               m.cdu_pump_dp.data());
  recorder.add({"cdu", "pump_P", "W", "Electrical power of the secondary pumps", ids},
               m.cdu_pump_P.data());
  recorder.add({"cdu", "pump_P_hydraulic", "W",
                "Hydraulic power of the secondary pumps (pressure rise x flow)", ids},
               m.cdu_pump_P_hydraulic.data());
  recorder.add({"cdu", "pumps_running", "1", "Secondary pumps running", ids},
               m.cdu_pumps_running.data());
  recorder.add({"room", "T_air", "K", "Room (hot aisle) air temperature", {}}, &m.room_T);
  recorder.add({"room", "Q_flow_crah", "W", "Heat removed by the CRAH units", {}}, &m.Q_crah);
  recorder.add({"site",
                "energy_balance_residual",
                "J",
                "Heat in - heat rejected - change in stored heat, since the start",
                {}},
               &m.site_E_balance_residual);
}

void CoolingModel::summarise(core::Summary& summary) const {
  const Impl& m = *impl_;
  const double residual = m.E_in - m.E_rejected - (m.stored() - m.E_stored_initial);
  summary.add({"max_gpu_temperature_K", m.max_gpu_T, "Max GPU junction temperature", "degC", 1.0,
               -core::kZeroCelsius_K});
  summary.add({"energy_balance_relative_error", m.E_in > 0.0 ? std::abs(residual) / m.E_in : 0.0,
               "Energy balance error (relative)", "", 1.0, 0.0});
  summary.add({"heat_input_J", m.E_in, "Heat into coolant and room air", "kWh", 1.0 / 3.6e6, 0.0});
  summary.add({"heat_rejected_to_facility_water_J", m.E_rejected_water,
               "Heat rejected to facility water", "kWh", 1.0 / 3.6e6, 0.0});
  summary.add({"heat_rejected_to_air_J", m.E_rejected_air, "Heat removed by CRAH units", "kWh",
               1.0 / 3.6e6, 0.0});
  summary.add({"cooling_energy_J", m.E_cooling_electric, "Cooling electrical energy (pumps, fans)",
               "kWh", 1.0 / 3.6e6, 0.0});
  const auto& d = m.design;
  constexpr double lpm = core::kLitrePerMinute_m3_per_s;
  summary.add({"pump_V_flow_m3_per_s", d.pump_V_flow, "Secondary pump flow (design, all CDUs)",
               "L/min", 1.0 / lpm, 0.0});
  summary.add({"pump_dp_Pa", d.pump_dp, "Secondary pump head (design, largest)", "kPa", 1e-3, 0.0});
  summary.add(
      {"pump_power_W", d.pump_P, "Secondary pump power (design, all CDUs)", "kW", 1e-3, 0.0});
  summary.add({"cold_plate_V_flow_min_m3_per_s", d.plate_V_min, "Cold-plate flow, lowest (design)",
               "L/min", 1.0 / lpm, 0.0});
  summary.add({"cold_plate_V_flow_max_m3_per_s", d.plate_V_max, "Cold-plate flow, highest (design)",
               "L/min", 1.0 / lpm, 0.0});
  summary.add({"cold_plate_flow_spread",
               d.plate_V_mean > 0.0 ? (d.plate_V_max - d.plate_V_min) / d.plate_V_mean : 0.0,
               "Cold-plate flow spread (max-min)/mean", "", 1.0, 0.0});
  summary.add({"cold_plates_below_minimum_flow", d.plates_below_minimum,
               "Cold plates below minimum flow (design)", "", 1.0, 0.0});
  summary.add({"rack_dp_available_min_Pa", d.rack_dp_min,
               "Manifold dp, least favoured rack (design)", "kPa", 1e-3, 0.0});
  summary.add(
      {"throttled_gpu_seconds", m.throttled_gpu_seconds, "Throttled GPU time", "GPU s", 1.0, 0.0});
}

double CoolingModel::storedEnergy() const {
  return impl_->stored();
}
double CoolingModel::heatInput() const {
  return impl_->E_in;
}
double CoolingModel::heatRejected() const {
  return impl_->E_rejected;
}
double CoolingModel::largestMassImbalance() const {
  double worst = 0.0;
  for (const auto& loop : impl_->loops)
    worst = std::max(worst, loop.solver->largestImbalance());
  return worst;
}
double CoolingModel::cduSupplyTemperature(std::size_t cdu) const {
  return impl_->loops.at(cdu).T_supply;
}
double CoolingModel::cduSecondaryFlow(std::size_t cdu) const {
  return impl_->loops.at(cdu).V_secondary;
}
int CoolingModel::cduPumpsRunning(std::size_t cdu) const {
  return impl_->loops.at(cdu).pumps_running;
}
double CoolingModel::cduHydraulicTemperature(std::size_t cdu) const {
  return impl_->loops.at(cdu).T_hydraulics;
}
double CoolingModel::cduPumpHydraulicPower(std::size_t cdu) const {
  return impl_->loops.at(cdu).pump_P_hydraulic;
}
double CoolingModel::cduPumpHead(std::size_t cdu) const {
  return impl_->loops.at(cdu).pump_dp;
}
int CoolingModel::hydraulicSolves() const {
  return impl_->hydraulic_solves;
}
double CoolingModel::maxGpuJunctionTemperature() const {
  return impl_->max_gpu_T;
}
std::span<const double> CoolingModel::trayFlows() const {
  return impl_->tray_V_flow;
}
std::span<const double> CoolingModel::rackFlows() const {
  return impl_->rack_V_flow;
}
std::span<const double> CoolingModel::gpuColdPlateFlows() const {
  return impl_->gpu_V_flow;
}

}  // namespace racktwin::thermal
