#include "racktwin/thermal/FacilityLoop.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "FlowLists.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/StateArchive.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/thermal/AmbientConditions.hpp"
#include "racktwin/thermal/Coolant.hpp"
#include "racktwin/thermal/HeatRejection.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::thermal {
namespace {

using Index = core::FlowNetwork::Index;
constexpr double kFlowThreshold = 1e-9;   // m3/s: below this a link carries no heat
constexpr double kVolumeSmallest = 1e-6;  // m3: every cell holds at least 1 mL (valves)
// Flow convergence of the solves, sum abs(dQ) / sum abs(Q); continuity is exact at every
// iteration, so this bounds only the error in the link laws.
constexpr double kHydraulicTolerance = 1e-9;
// The viscosity follows the loop's mean temperature; solve again when it has moved this far.
constexpr double kViscosityResolveDelta_K = 2.0;
constexpr double kNever = std::numeric_limits<double>::infinity();
// Pump-speed bisection at initialize: stop within this fraction of dp_set.
constexpr double kInitialDpTolerance = 1e-7;

enum class Role : std::uint8_t { Plain, Pump, Rejection, Chiller, Exchanger };
// The chiller's removal clamp(C (T_in - T_set), 0, capacity) by branch.
enum class ChillerMode : std::uint8_t { Off, Track, Capacity };

std::string twoDigits(const char* prefix, std::size_t n) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%s%02zu", prefix, n);
  return buffer;
}

double pipeVolume(const core::PipeSpec& pipe) {
  return 0.25 * std::numbers::pi * pipe.diameter * pipe.diameter * pipe.length;
}

bool positive(double v) {
  return std::isfinite(v) && v > 0.0;
}

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("facility water loop: " + what);
}

void checkPipe(const core::PipeSpec& pipe, const std::string& what) {
  if (!positive(pipe.length) || !positive(pipe.diameter) || !(pipe.roughness >= 0.0)
      || pipe.cells < 1) {
    bad(what + " needs a positive length and diameter, a roughness >= 0 and at least one cell");
  }
}

void checkDrop(const core::PressureDropLaw& law, const std::string& what) {
  if (law.form == core::PressureDropLaw::Form::PowerLaw) {
    const core::PowerLawDrop& p = law.power_law;
    if (!positive(p.dp_nominal) || !positive(p.V_flow_nominal) || !(p.exponent >= 1.0)
        || !(p.exponent <= 2.0)) {
      bad(what + " needs a positive nominal pressure drop and flow and an exponent from 1 to 2");
    }
    return;
  }
  const core::PressureDropTable& t = law.table;
  bool ok = t.V_flow.size() >= 2 && t.V_flow.size() == t.dp.size();
  for (std::size_t i = 0; ok && i < t.V_flow.size(); ++i) {
    ok = positive(t.V_flow[i]) && positive(t.dp[i])
         && (i == 0 || (t.V_flow[i] > t.V_flow[i - 1] && t.dp[i] > t.dp[i - 1]));
  }
  if (!ok) bad(what + " table needs at least two positive, increasing points");
}

// `units` identical components in parallel, each at V/units: the same law with its flows scaled.
core::PressureDropLaw parallelLaw(core::PressureDropLaw law, int units) {
  const double n = static_cast<double>(units);
  law.power_law.V_flow_nominal *= n;
  for (double& V : law.table.V_flow)
    V *= n;
  return law;
}

}  // namespace

struct FacilityLoop::Impl {
  struct Link {
    std::uint32_t cell_begin = 0, cell_end = 0;
    Role role = Role::Plain;
    std::uint32_t cdu = 0;  // Role::Exchanger
  };
  struct Cdu {
    std::string id;
    core::ControlValveSpec valve;
    Index valve_link = 0, hx_link = 0, supply_tap = 0, return_tap = 0;
    double opening = 0.5, command = 0.5, opening_solved = -1.0;
    bool stuck = false;
  };

  core::FacilityLoopSpec spec;
  core::AmbientSpec ambient;
  std::optional<HeatRejectionUnit> rejection;
  std::optional<TrimChiller> chiller;
  std::vector<Cdu> cdus;

  // ---- Network and hydraulics. ----
  core::FlowNetwork network;
  std::unique_ptr<HydraulicSolver> solver;
  std::vector<Link> links;
  Index tank = 0, pump_link = 0, rejection_link = 0, rejection_outlet = 0, plant_outlet = 0;
  std::optional<Index> chiller_link;
  Coolant water = Coolant::water();
  FluidState fluid;
  double rho = 0.0, cp = 0.0;
  double T_hydraulics = 0.0;

  // ---- Transport (as CoolingModel's secondary loops). ----
  std::vector<double> cell_C, cell_T, cell_T_old, cell_alpha, cell_beta;
  std::vector<Index> order;
  std::vector<double> C_link;
  std::vector<Index> link_up, link_down;
  std::vector<std::uint32_t> in_begin, in_links, out_begin, out_links;
  std::vector<double> node_alpha, node_beta, node_T;
  std::vector<double> flow_scratch, node_scratch;
  std::vector<std::uint32_t> in_fill, out_fill;
  std::vector<std::int8_t> direction;
  std::vector<double> Q_cdu_now;  // W per CDU over the current step

  // ---- Pumps and their dp PI. ----
  int pumps_running = 0, pumps_healthy = 0, pending_switches = 0;
  double switch_time = kNever;
  double pump_speed = 1.0, pump_integral = 0.0, speed_solved = -1.0;
  int pumps_solved = -1;
  double pump_dp = 0.0, pump_P_hydraulic = 0.0, pump_P_electric = 0.0, dp_remote = 0.0;

  // ---- Plant state. ----
  double T_set = 0.0;
  double fan_availability = 1.0, fan_speed = 0.0, fan_P = 0.0, G_rejection = 0.0;
  double T_dry = 0.0, T_wet = 0.0;
  ChillerMode chiller_mode = ChillerMode::Off;
  double Q_rejected = 0.0, Q_chiller = 0.0, chiller_P = 0.0, chiller_COP = 0.0;
  double water_rate = 0.0;
  AmbientConditions outdoor;  // the weather, read with a cursor (O(1) per sub-step)

  // ---- Plant hours (s since initialize): how the supply set-point was held. ----
  double t_chiller = 0.0, t_free_cooling = 0.0, t_above_setpoint = 0.0;

  // ---- Totals and diagnostics. ----
  double E_in = 0.0, E_pump = 0.0, E_rejected = 0.0, E_chiller = 0.0, E_pump_electric = 0.0,
         E_fan = 0.0, E_chiller_electric = 0.0, V_water = 0.0, E_stored_initial = 0.0;
  int solves = 0, order_builds = 0;
  double max_imbalance = 0.0;
  double now = 0.0;
  bool initialised = false;

  void build(const core::FacilityWaterSpec& facility, std::span<const core::CduSpec> cdu_specs);
  Index addLink(const std::string& id, Index a, Index b, LinkLaw law, double volume, int cells,
                Role role, std::uint32_t cdu, std::vector<LinkLaw>& laws);
  void solveHydraulics();
  void rebuildPattern();
  void subStep(double t_start, double h);
  void sweep(double h, ChillerMode mode);
  void updateAmbient(double t);
  double stored() const;
};

// ------------------------------------------------------------------------------------------------
// Construction

Index FacilityLoop::Impl::addLink(const std::string& id, Index a, Index b, LinkLaw law,
                                  double volume, int cells, Role role, std::uint32_t cdu,
                                  std::vector<LinkLaw>& laws) {
  const Index l = network.addLink(id, a, b);
  laws.push_back(std::move(law));
  Link link;
  link.role = role;
  link.cdu = cdu;
  link.cell_begin = static_cast<std::uint32_t>(cell_C.size());
  cells = std::max(cells, 1);
  for (int k = 0; k < cells; ++k)
    cell_C.push_back(std::max(volume / cells, kVolumeSmallest) * rho * cp);
  link.cell_end = static_cast<std::uint32_t>(cell_C.size());
  links.push_back(link);
  return l;
}

void FacilityLoop::Impl::build(const core::FacilityWaterSpec& facility,
                               std::span<const core::CduSpec> cdu_specs) {
  spec = facility.loop;
  if (!spec.present) bad("the scenario has no facility loop (facility.loop.present is false)");
  if (cdu_specs.empty()) bad("needs at least one CDU");
  if (!(facility.T_supply > core::kZeroCelsius_K && facility.T_supply < 373.15)) {
    bad("the supply set-point must be a liquid water temperature (0 to 100 degC)");
  }
  const core::PumpSpec& pump = spec.pump;
  if (!positive(pump.dp_shutoff) || !positive(pump.V_flow_max)) {
    bad("plant pump needs a positive shut-off pressure and maximum flow");
  }
  if (!(pump.efficiency > 0.0 && pump.efficiency <= 1.0)) {
    bad("plant pump efficiency must be within (0, 1]");
  }
  if (!(pump.speed > 0.0 && pump.speed <= 1.0)) bad("plant pump speed must be within (0, 1]");
  if (!(pump.volume >= 0.0)) bad("plant pump volume must be >= 0");
  if (spec.pumps_duty < 1 || spec.pumps_installed < spec.pumps_duty) {
    bad("needs at least one duty pump and no more duty pumps than installed");
  }
  if (!(spec.standby_switchover_time >= 0.0)) bad("standby switch-over time must be >= 0");
  if (!(spec.pump_speed_min >= 0.0 && spec.pump_speed_min <= 1.0)) {
    bad("minimum pump speed must be within [0, 1]");
  }
  if (!(spec.dp_set >= 0.0) || !std::isfinite(spec.dp_set)) bad("dp set-point must be >= 0");
  if (spec.dp_set > 0.0 && (!positive(spec.pump_gain) || !(spec.pump_integral_time >= 0.0))) {
    bad("a dp set-point needs a positive pump gain and an integral time >= 0 (0: no integral)");
  }
  checkPipe(spec.plant_pipe, "plant pipe");
  if (cdu_specs.size() > 1) checkPipe(spec.header_segment, "header segment");

  const CoolantProperties props = water.at(facility.T_supply);
  rho = props.rho;
  cp = props.cp;
  fluid = FluidState{props.rho, props.mu};
  T_hydraulics = facility.T_supply;
  T_set = facility.T_supply;
  rejection.emplace(spec.heat_rejection, rho, cp);
  if (spec.chiller.present) chiller.emplace(spec.chiller);

  const bool tower = rejection->isTower();
  const bool series = !ambient.time.empty();
  if (series) {
    if (ambient.T_dry_bulb_series.size() != ambient.time.size()
        || (!ambient.T_wet_bulb_series.empty()
            && ambient.T_wet_bulb_series.size() != ambient.time.size())) {
      bad("the weather series needs one dry bulb (and wet bulb, if any) per time");
    }
    for (std::size_t i = 1; i < ambient.time.size(); ++i) {
      if (!(ambient.time[i] > ambient.time[i - 1])) bad("weather times must increase");
    }
    for (double T : ambient.T_dry_bulb_series)
      if (!positive(T)) bad("weather dry bulb must be positive kelvin");
    for (double T : ambient.T_wet_bulb_series)
      if (!positive(T)) bad("weather wet bulb must be positive kelvin");
    if (!(ambient.period >= 0.0 && std::isfinite(ambient.period))) {
      bad("a weather period must be finite and >= 0");
    }
    if (ambient.period > 0.0
        && !(ambient.time.front() == 0.0 && ambient.time.back() == ambient.period)) {
      bad("a periodic weather series must span exactly [0, period]");
    }
  }
  if (!series && !positive(ambient.T_dry_bulb)) bad("ambient dry bulb must be positive kelvin");
  if (tower && !positive(ambient.T_wet_bulb) && ambient.T_wet_bulb_series.empty()) {
    bad("a cooling tower needs the ambient wet bulb");
  }

  std::vector<LinkLaw> laws;
  tank = network.addNode("facility/tank");
  const Index pump_out = network.addNode("facility/pump_outlet");
  const Index rejection_out = network.addNode("facility/heat_rejection_outlet");
  LinkLaw pump_law = LinkLaw::makePump(pump);
  pump_law.pumps_parallel = spec.pumps_duty;
  pump_link =
      addLink("facility/pumps", tank, pump_out, pump_law, pump.volume, 1, Role::Pump, 0, laws);
  const core::HeatRejectionSpec& hr = spec.heat_rejection;
  rejection_link = addLink("facility/heat_rejection", pump_out, rejection_out,
                           LinkLaw::makeDrop(parallelLaw(hr.dp, hr.units)), hr.volume * hr.units, 1,
                           Role::Rejection, 0, laws);
  rejection_outlet = plant_outlet = rejection_out;
  if (chiller) {
    // Without a chiller there is no link at all (rather than a lossless one the laws lack).
    const Index chiller_out = network.addNode("facility/chiller_outlet");
    chiller_link =
        addLink("facility/chiller", rejection_out, chiller_out, LinkLaw::makeDrop(spec.chiller.dp),
                spec.chiller.volume, 1, Role::Chiller, 0, laws);
    plant_outlet = chiller_out;
  }

  // Supply and return mains with one tap per CDU, in order (direct return).
  const std::size_t n = cdu_specs.size();
  cdus.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const core::CduSpec& c = cdu_specs[k];
    Cdu& cdu = cdus[k];
    cdu.id = c.id.str();
    if (!positive(c.facility_valve.A_v)) {
      bad("CDU '" + cdu.id + "' needs a facility valve flow coefficient (A_v > 0)");
    }
    if (!(c.facility_valve.leakage > 0.0 && c.facility_valve.leakage < 1.0)
        || !(c.facility_valve.rangeability > 1.0) || !(c.facility_valve.stroke_time >= 0.0)) {
      bad("CDU '" + cdu.id
          + "': facility valve needs leakage in (0, 1), rangeability > 1, stroke time >= 0");
    }
    checkDrop(c.hx_facility_dp, "CDU '" + cdu.id + "' exchanger facility-side pressure drop");
    if (!(c.hx_facility_volume >= 0.0)) {
      bad("CDU '" + cdu.id + "': exchanger facility volume must be >= 0");
    }
    cdu.valve = c.facility_valve;
    const std::string number = twoDigits("", k + 1);
    cdu.supply_tap = network.addNode("facility/supply_main/tap" + number);
    cdu.return_tap = network.addNode("facility/return_main/tap" + number);
  }
  const core::PipeSpec& plant_pipe = spec.plant_pipe;
  const core::PipeSpec& segment = spec.header_segment;
  addLink("facility/plant_supply_pipe", plant_outlet, cdus[0].supply_tap,
          LinkLaw::makePipe(plant_pipe), pipeVolume(plant_pipe), plant_pipe.cells, Role::Plain, 0,
          laws);
  for (std::size_t k = 1; k < n; ++k) {
    const std::string number = twoDigits("", k + 1);
    addLink("facility/supply_main/segment" + number, cdus[k - 1].supply_tap, cdus[k].supply_tap,
            LinkLaw::makePipe(segment), pipeVolume(segment), segment.cells, Role::Plain, 0, laws);
    addLink("facility/return_main/segment" + number, cdus[k].return_tap, cdus[k - 1].return_tap,
            LinkLaw::makePipe(segment), pipeVolume(segment), segment.cells, Role::Plain, 0, laws);
  }
  addLink("facility/plant_return_pipe", cdus[0].return_tap, tank, LinkLaw::makePipe(plant_pipe),
          pipeVolume(plant_pipe), plant_pipe.cells, Role::Plain, 0, laws);
  for (std::size_t k = 0; k < n; ++k) {
    const core::CduSpec& c = cdu_specs[k];
    Cdu& cdu = cdus[k];
    const Index valve_out = network.addNode(cdu.id + "/facility_valve_outlet");
    cdu.valve_link = addLink(cdu.id + "/facility_valve", cdu.supply_tap, valve_out,
                             LinkLaw::makeControlValve(c.facility_valve, cdu.opening), 0.0, 1,
                             Role::Plain, 0, laws);
    cdu.hx_link = addLink(cdu.id + "/hx_facility", valve_out, cdu.return_tap,
                          LinkLaw::makeDrop(c.hx_facility_dp), c.hx_facility_volume, 1,
                          Role::Exchanger, static_cast<std::uint32_t>(k), laws);
  }

  solver = std::make_unique<HydraulicSolver>(network, std::move(laws), tank, 0.0);
  const std::size_t n_nodes = network.nodeCount();
  const std::size_t n_links = network.linkCount();
  const std::size_t n_cells = cell_C.size();
  for (auto* v : {&cell_T, &cell_T_old, &cell_alpha, &cell_beta})
    v->assign(n_cells, T_set);
  C_link.assign(n_links, 0.0);
  link_up.assign(n_links, 0);
  link_down.assign(n_links, 0);
  in_begin.assign(n_nodes + 1, 0);
  out_begin.assign(n_nodes + 1, 0);
  in_links.assign(n_links, 0);
  out_links.assign(n_links, 0);
  order.reserve(n_nodes);
  for (auto* v : {&node_alpha, &node_beta, &node_T})
    v->assign(n_nodes, T_set);
  flow_scratch.assign(n_links, 0.0);
  node_scratch.assign(n_nodes, 0.0);
  in_fill.assign(n_nodes, 0);
  out_fill.assign(n_nodes, 0);
  direction.assign(n_links, 2);  // no pattern yet
  Q_cdu_now.assign(n, 0.0);
  pumps_running = spec.pumps_duty;
  pumps_healthy = spec.pumps_installed;
  pump_speed = pump.speed;
}

// ------------------------------------------------------------------------------------------------
// Hydraulics (on change only)

void FacilityLoop::Impl::solveHydraulics() {
  LinkLaw& pump = solver->law(pump_link);
  pump.pump.speed = pumps_running > 0 ? pump_speed : 0.0;
  pump.pumps_parallel = std::max(pumps_running, 1);
  for (Cdu& cdu : cdus) {
    solver->law(cdu.valve_link).opening = cdu.opening;
    cdu.opening_solved = cdu.opening;
  }
  speed_solved = pump_speed;
  pumps_solved = pumps_running;
  const SolveStatus status = solver->solve(fluid, kHydraulicTolerance);
  ++solves;
  if (!status.converged) {
    throw core::RuntimeError("facility water loop: hydraulic solve failed after "
                             + std::to_string(status.iterations)
                             + " iterations: " + status.message);
  }
  const std::span<const double> V = solver->V_flow();
  const std::span<const double> p = solver->p();
  // Continuity at every junction (HydraulicSolver::largestImbalance would allocate its scratch).
  std::fill(node_scratch.begin(), node_scratch.end(), 0.0);
  for (Index l = 0; l < network.linkCount(); ++l) {
    node_scratch[network.portA(l)] -= V[l];
    node_scratch[network.portB(l)] += V[l];
  }
  double worst = 0.0;
  for (Index nd = 0; nd < network.nodeCount(); ++nd)
    if (nd != tank) worst = std::max(worst, std::abs(node_scratch[nd]));
  max_imbalance = std::max(max_imbalance, worst / std::max(std::abs(V[pump_link]), kFlowThreshold));
  pump_dp = -solver->dp(pump_link);
  // A pump below the flow threshold carries no heat in the transport, and puts none in either.
  pump_P_hydraulic =
      std::abs(V[pump_link]) > kFlowThreshold ? std::max(0.0, pump_dp * V[pump_link]) : 0.0;
  pump_P_electric = pump_P_hydraulic / spec.pump.efficiency;
  dp_remote = p[cdus.back().supply_tap] - p[cdus.back().return_tap];
  rebuildPattern();
}

void FacilityLoop::Impl::rebuildPattern() {
  const std::span<const double> V = solver->V_flow();
  const std::size_t n_links = network.linkCount();
  bool same_pattern = true;
  for (Index l = 0; l < n_links; ++l) {
    const bool flowing = std::abs(V[l]) > kFlowThreshold;
    C_link[l] = flowing ? rho * cp * std::abs(V[l]) : 0.0;
    const std::int8_t dir = !flowing ? 0 : V[l] > 0.0 ? 1 : -1;
    same_pattern = same_pattern && dir == direction[l];
    direction[l] = dir;
    flow_scratch[l] = flowing ? V[l] : 0.0;
  }
  // The order and the in/out lists depend only on which links carry flow and which way.
  if (same_pattern) return;
  ++order_builds;
  const Index tear[] = {tank};
  if (!network.flowOrder(flow_scratch, kFlowThreshold, tear, order)) {
    throw core::RuntimeError(
        "facility water loop: the flow has a cycle that does not pass the tank");
  }
  buildFlowLists(network, V, C_link, link_up, link_down, in_begin, in_links, out_begin, out_links,
                 in_fill, out_fill);
}

void FacilityLoop::Impl::updateAmbient(double t) {
  outdoor.update(t);
  T_dry = outdoor.dryBulb();
  T_wet = outdoor.wetBulb();
}

// ------------------------------------------------------------------------------------------------
// One control sub-step: actuators, pump PI, hydraulics on change, rejection and chiller, transport

void FacilityLoop::Impl::subStep(double t_start, double h) {
  // A standby pump whose switch-over time has come starts.
  if (pending_switches > 0 && t_start >= switch_time - 1e-9 * std::max(1.0, switch_time)) {
    pumps_running += pending_switches;
    pending_switches = 0;
    switch_time = kNever;
  }
  // Pump speed PI on the remote CDU's differential pressure. The integral does not grow while the
  // output is saturated that way (anti-windup). Between solves the measurement follows the speed
  // by the affinity laws (dp ~ s^2 at fixed openings: exact for quadratic pump and system
  // curves), so the solve threshold is no dead band: the PI settles instead of cycling around it.
  if (spec.dp_set > 0.0) {
    const double ratio = speed_solved > 0.0 ? pump_speed / speed_solved : 1.0;
    const double error = spec.dp_set - dp_remote * ratio * ratio;
    const double proportional = spec.pump_gain * error;
    const double rate =
        spec.pump_integral_time > 0.0 ? spec.pump_gain / spec.pump_integral_time * error : 0.0;
    const double wanted = proportional + pump_integral + rate * h;
    const bool saturated_high = wanted > 1.0 && error > 0.0;
    const bool saturated_low = wanted < spec.pump_speed_min && error < 0.0;
    if (!saturated_high && !saturated_low) pump_integral += rate * h;
    pump_speed = std::clamp(proportional + pump_integral, spec.pump_speed_min, 1.0);
  }
  // Valve actuators.
  bool solve = pumps_running != pumps_solved
               || std::abs(pump_speed - speed_solved) > FacilityLoop::kResolveThreshold;
  for (Cdu& cdu : cdus) {
    if (!cdu.stuck) cdu.opening = strokeValve(cdu.valve, cdu.opening, cdu.command, h);
    solve = solve || std::abs(cdu.opening - cdu.opening_solved) > FacilityLoop::kResolveThreshold;
  }
  // Viscosity at the loop's mean temperature.
  const double T_mean = 0.5 * (node_T[plant_outlet] + node_T[tank]);
  if (std::abs(T_mean - T_hydraulics) > kViscosityResolveDelta_K) {
    fluid.mu = water.viscosity(T_mean);
    T_hydraulics = T_mean;
    solve = true;
  }
  if (solve) solveHydraulics();

  updateAmbient(t_start + h);
  const double T_ambient = rejection->isTower() ? T_wet : T_dry;

  // Rejection conductance for this sub-step, from the last state: the fan speed that brings the
  // inlet water of the last sub-step to the set-point.
  const double C_water = C_link[rejection_link];
  const double T_in_last = node_T[link_up[rejection_link]];
  fan_speed =
      rejection->fanSpeedFor(T_in_last, C_water, T_ambient, T_set, fan_availability, fan_speed);
  G_rejection = rejection->conductance(C_water, fan_speed, fan_availability);
  fan_P = rejection->fanPower(fan_speed, fan_availability);

  std::copy(cell_T.begin(), cell_T.end(), cell_T_old.begin());
  // Chiller: predict the branch from the last state, then correct it until it agrees.
  ChillerMode mode = ChillerMode::Off;
  const auto branch = [&](double T_in) {
    const double C = C_link[*chiller_link];
    const double wanted = C * (T_in - T_set);
    if (C <= 0.0 || wanted <= 0.0) return ChillerMode::Off;
    return wanted > chiller->capacity() ? ChillerMode::Capacity : ChillerMode::Track;
  };
  if (chiller) mode = branch(node_T[link_up[*chiller_link]]);
  sweep(h, mode);
  for (int pass = 0; chiller && pass < 3; ++pass) {
    const ChillerMode found = branch(node_T[link_up[*chiller_link]]);
    if (found == mode) break;
    mode = found;
    sweep(h, mode);
  }
  chiller_mode = mode;

  // Heat flows from the implicit temperatures, as the cells saw them (exact balance).
  Q_rejected = G_rejection * (node_T[link_up[rejection_link]] - T_ambient);
  Q_chiller = 0.0;
  if (chiller) {
    const double C = C_link[*chiller_link];
    if (mode == ChillerMode::Track) Q_chiller = C * (node_T[link_up[*chiller_link]] - T_set);
    if (mode == ChillerMode::Capacity) Q_chiller = chiller->capacity();
    chiller_COP = chiller->COP(T_set, T_dry);
    chiller_P = chiller->electricPower(Q_chiller, T_set, T_dry);
  }
  water_rate = rejection->waterUse(Q_rejected, solver->V_flow()[rejection_link]).total;

  // How the set-point was held this sub-step (FacilityLoop.hpp, "Plant hours").
  const double T_held = T_set + FacilityLoop::kSetpointHeld_K;
  if (node_T[rejection_outlet] <= T_held) {
    t_free_cooling += h;
  } else if (Q_chiller > 0.0) {
    t_chiller += h;
  }
  if (node_T[plant_outlet] > T_held) t_above_setpoint += h;

  double Q_in = 0.0;
  for (double Q : Q_cdu_now)
    Q_in += Q;
  E_in += Q_in * h;
  E_pump += pump_P_hydraulic * h;
  E_rejected += Q_rejected * h;
  E_chiller += Q_chiller * h;
  E_pump_electric += pump_P_electric * h;
  E_fan += fan_P * h;
  E_chiller_electric += chiller_P * h;
  V_water += water_rate * h;
}

// The implicit transport step: affine sweep in flow order, then loop closure at the tank.
void FacilityLoop::Impl::sweep(double dt, ChillerMode mode) {
  const std::size_t n_nodes = network.nodeCount();
  const double T_ambient = rejection->isTower() ? T_wet : T_dry;
  const double Q_capacity = chiller ? chiller->capacity() : 0.0;

  // Source terms of a link's first cell, from its inlet temperature a + b x: heat in (rhs_a,
  // rhs_b). Every removal is a conductance G <= C on the inlet or a fixed heat the branch logic
  // bounds, so each cell's coefficients stay non-negative (monotone at any step).
  auto advanceLink = [&](Index l, double a_in, double b_in) {
    const Link& link = links[l];
    const double C = C_link[l];
    double a = a_in;
    double b = b_in;
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c) {
      const double store = cell_C[c] / dt;
      double rhs_a = store * cell_T_old[c] + C * a;
      double rhs_b = C * b;
      if (c == link.cell_begin) {
        switch (link.role) {
          case Role::Pump:
            rhs_a += pump_P_hydraulic;
            break;
          case Role::Rejection:
            rhs_a -= G_rejection * (a - T_ambient);
            rhs_b -= G_rejection * b;
            break;
          case Role::Chiller:
            if (mode == ChillerMode::Track) {
              rhs_a -= C * (a - T_set);
              rhs_b -= C * b;
            } else if (mode == ChillerMode::Capacity) {
              rhs_a -= Q_capacity;
            }
            break;
          case Role::Exchanger:
            rhs_a += Q_cdu_now[link.cdu];
            break;
          case Role::Plain:
            break;
        }
      }
      const double diag = store + C;
      cell_alpha[c] = rhs_a / diag;
      cell_beta[c] = rhs_b / diag;
      a = cell_alpha[c];
      b = cell_beta[c];
    }
  };

  // Links without flow: each cell is closed; heat sources still act on the first cell.
  for (Index l = 0; l < links.size(); ++l) {
    if (C_link[l] != 0.0) continue;
    const Link& link = links[l];
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c) {
      double T = cell_T_old[c];
      if (c == link.cell_begin) {
        const double store = cell_C[c] / dt;
        if (link.role == Role::Pump) T += pump_P_hydraulic / store;
        if (link.role == Role::Exchanger) T += Q_cdu_now[link.cdu] / store;
      }
      cell_alpha[c] = T;
      cell_beta[c] = 0.0;
    }
  }

  // Forward sweep: every node and cell temperature as alpha + beta * T_tank.
  for (const Index nd : order) {
    double a = 0.0, b = 0.0;
    if (nd == tank) {
      b = 1.0;
    } else {
      double C_sum = 0.0;
      for (std::uint32_t k = in_begin[nd]; k < in_begin[nd + 1]; ++k) {
        const Index l = in_links[k];
        const std::uint32_t last = links[l].cell_end - 1;
        C_sum += C_link[l];
        a += C_link[l] * cell_alpha[last];
        b += C_link[l] * cell_beta[last];
      }
      if (C_sum > 0.0) {
        a /= C_sum;
        b /= C_sum;
      } else {
        a = node_T[nd];  // no inflow: the junction keeps its last temperature
      }
    }
    node_alpha[nd] = a;
    node_beta[nd] = b;
    for (std::uint32_t k = out_begin[nd]; k < out_begin[nd + 1]; ++k)
      advanceLink(out_links[k], a, b);
  }

  // Loop closure at the tank: x = sum C (alpha + beta x) / sum C.
  double C_sum = 0.0, A = 0.0, B = 0.0;
  for (std::uint32_t k = in_begin[tank]; k < in_begin[tank + 1]; ++k) {
    const Index l = in_links[k];
    const std::uint32_t last = links[l].cell_end - 1;
    C_sum += C_link[l];
    A += C_link[l] * cell_alpha[last];
    B += C_link[l] * cell_beta[last];
  }
  double x = node_T[tank];
  if (C_sum > 0.0) {
    A /= C_sum;
    B /= C_sum;
    RACKTWIN_ASSERT(B < 1.0, "the loop closure must be contractive");
    x = A / (1.0 - B);
  }
  for (std::size_t c = 0; c < cell_T.size(); ++c)
    cell_T[c] = cell_alpha[c] + cell_beta[c] * x;
  for (std::size_t nd = 0; nd < n_nodes; ++nd)
    node_T[nd] = node_alpha[nd] + node_beta[nd] * x;
}

double FacilityLoop::Impl::stored() const {
  double E = 0.0;
  for (std::size_t c = 0; c < cell_C.size(); ++c)
    E += cell_C[c] * (cell_T[c] - core::kZeroCelsius_K);
  return E;
}

// ------------------------------------------------------------------------------------------------

FacilityLoop::FacilityLoop(const core::FacilityWaterSpec& facility,
                           std::span<const core::CduSpec> cdus, const core::AmbientSpec& ambient)
    : impl_(std::make_unique<Impl>()) {
  impl_->ambient = ambient;
  impl_->outdoor = AmbientConditions(ambient);
  impl_->build(facility, cdus);
}

FacilityLoop::~FacilityLoop() = default;
FacilityLoop::FacilityLoop(FacilityLoop&&) noexcept = default;
FacilityLoop& FacilityLoop::operator=(FacilityLoop&&) noexcept = default;

void FacilityLoop::initialize(double T_initial, double valve_opening) {
  Impl& m = *impl_;
  if (!(T_initial > core::kZeroCelsius_K && T_initial < 373.15)) {
    throw std::invalid_argument("facility water loop: initial temperature must be liquid water");
  }
  std::fill(m.cell_T.begin(), m.cell_T.end(), T_initial);
  std::fill(m.cell_T_old.begin(), m.cell_T_old.end(), T_initial);
  std::fill(m.node_T.begin(), m.node_T.end(), T_initial);
  const double x = std::clamp(valve_opening, 0.0, 1.0);
  for (Impl::Cdu& cdu : m.cdus) {
    cdu.opening = x;
    cdu.command = x;
  }
  m.pumps_running = m.spec.pumps_duty;
  m.pumps_healthy = m.spec.pumps_installed;
  m.pending_switches = 0;
  m.switch_time = kNever;
  m.fluid.mu = m.water.viscosity(T_initial);
  m.T_hydraulics = T_initial;
  // The pump speed where the dp PI settles for these openings: dp_remote rises with speed.
  if (m.spec.dp_set > 0.0) {
    const auto dpAt = [&](double s) {
      m.pump_speed = s;
      m.solveHydraulics();
      return m.dp_remote;
    };
    double lo = m.spec.pump_speed_min, hi = 1.0;
    if (dpAt(hi) <= m.spec.dp_set) {
      lo = hi;
    } else if (lo > 0.0 && dpAt(lo) >= m.spec.dp_set) {
      hi = lo;
    }
    for (int i = 0; i < 60 && hi - lo > 1e-12; ++i) {
      const double mid = 0.5 * (lo + hi);
      const double dp = dpAt(mid);
      if (std::abs(dp - m.spec.dp_set) <= kInitialDpTolerance * m.spec.dp_set) {
        lo = hi = mid;
        break;
      }
      (dp < m.spec.dp_set ? lo : hi) = mid;
    }
    m.pump_speed = 0.5 * (lo + hi);
  } else {
    m.pump_speed = m.spec.pump.speed;
  }
  m.solveHydraulics();
  if (m.spec.dp_set > 0.0) {
    // Start the PI where it holds this operating point.
    m.pump_integral = m.pump_speed - m.spec.pump_gain * (m.spec.dp_set - m.dp_remote);
  }
  m.updateAmbient(0.0);
  m.fan_speed = m.fan_P = m.G_rejection = 0.0;
  m.Q_rejected = m.Q_chiller = m.chiller_P = m.water_rate = 0.0;
  m.chiller_COP = m.chiller ? m.chiller->COP(m.T_set, m.T_dry) : 0.0;
  m.E_in = m.E_pump = m.E_rejected = m.E_chiller = m.E_pump_electric = m.E_fan =
      m.E_chiller_electric = m.V_water = 0.0;
  m.t_chiller = m.t_free_cooling = m.t_above_setpoint = 0.0;
  m.E_stored_initial = m.stored();
  m.now = 0.0;
  m.initialised = true;
}

void FacilityLoop::setValveCommand(std::size_t cdu, double command) {
  if (!std::isfinite(command)) {
    throw std::invalid_argument("facility water loop: a valve command must be a finite number");
  }
  impl_->cdus.at(cdu).command = std::clamp(command, 0.0, 1.0);
}

void FacilityLoop::advance(double t, double h, std::span<const double> Q_cdu) {
  Impl& m = *impl_;
  RACKTWIN_ASSERT(m.initialised, "initialize() the facility loop before advancing it");
  RACKTWIN_ASSERT(h > 0.0 && std::isfinite(h), "the step must be positive");
  RACKTWIN_ASSERT(Q_cdu.size() == m.cdus.size(), "one heat flow per CDU");
  for (const double Q : Q_cdu) {
    if (!std::isfinite(Q)) {
      throw std::invalid_argument("facility water loop: CDU heat flows must be finite numbers");
    }
  }
  std::copy(Q_cdu.begin(), Q_cdu.end(), m.Q_cdu_now.begin());
  // The pump PI and the fan choice are sampled controllers: cycle long steps in short ones.
  const int cycles = std::max(1, static_cast<int>(std::ceil(h / kControlStep - 1e-9)));
  const double h_sub = h / cycles;
  const double t_begin = t - h;
  for (int k = 0; k < cycles; ++k)
    m.subStep(t_begin + k * h_sub, h_sub);
  m.now = t;
}

void FacilityLoop::tripPump() {
  Impl& m = *impl_;
  if (m.pumps_running <= 0) return;
  // A duty pump trips for good; a healthy pump that is not running (a standby) starts after the
  // switch-over time, meanwhile the loop runs on the remaining duty pumps.
  --m.pumps_running;
  --m.pumps_healthy;
  const int standby = m.pumps_healthy - m.pumps_running - m.pending_switches;
  if (standby > 0) {
    if (m.pending_switches == 0) m.switch_time = m.now + m.spec.standby_switchover_time;
    ++m.pending_switches;
  }
  m.solveHydraulics();
}

void FacilityLoop::setSupplySetpoint(double T) {
  if (!(T > core::kZeroCelsius_K && T < 373.15)) {
    throw std::invalid_argument("facility water loop: supply set-point must be liquid water");
  }
  impl_->T_set = T;
}

void FacilityLoop::setFanAvailability(double fraction) {
  if (!(fraction >= 0.0 && fraction <= 1.0)) {
    throw std::invalid_argument("facility water loop: fan availability must be within [0, 1]");
  }
  impl_->fan_availability = fraction;
}

void FacilityLoop::setValveStuck(std::size_t cdu, bool stuck) {
  impl_->cdus.at(cdu).stuck = stuck;
}

// ---- Outputs ----

std::size_t FacilityLoop::cduCount() const noexcept {
  return impl_->cdus.size();
}
double FacilityLoop::cduFlow(std::size_t cdu) const {
  return impl_->solver->V_flow()[impl_->cdus.at(cdu).hx_link];
}
double FacilityLoop::cduCapacityRate(std::size_t cdu) const {
  return impl_->rho * impl_->cp * std::abs(cduFlow(cdu));
}
double FacilityLoop::cduSupplyTemperature(std::size_t cdu) const {
  const Impl& m = *impl_;
  return m.cell_T[m.links[m.cdus.at(cdu).valve_link].cell_end - 1];
}
double FacilityLoop::cduReturnTemperature(std::size_t cdu) const {
  const Impl& m = *impl_;
  return m.cell_T[m.links[m.cdus.at(cdu).hx_link].cell_end - 1];
}
double FacilityLoop::valveOpening(std::size_t cdu) const {
  return impl_->cdus.at(cdu).opening;
}
double FacilityLoop::valveCommand(std::size_t cdu) const {
  return impl_->cdus.at(cdu).command;
}
double FacilityLoop::supplyTemperature() const {
  return impl_->node_T[impl_->plant_outlet];
}
double FacilityLoop::returnTemperature() const {
  return impl_->node_T[impl_->tank];
}
double FacilityLoop::supplySetpoint() const {
  return impl_->T_set;
}
double FacilityLoop::plantFlow() const {
  return impl_->solver->V_flow()[impl_->pump_link];
}
double FacilityLoop::pumpSpeed() const {
  return impl_->pump_speed;
}
int FacilityLoop::pumpsRunning() const {
  return impl_->pumps_running;
}
double FacilityLoop::pumpHead() const {
  return impl_->pump_dp;
}
double FacilityLoop::pumpHydraulicPower() const {
  return impl_->pump_P_hydraulic;
}
double FacilityLoop::pumpElectricPower() const {
  return impl_->pump_P_electric;
}
double FacilityLoop::remoteDifferentialPressure() const {
  return impl_->dp_remote;
}
double FacilityLoop::fanSpeed() const {
  return impl_->fan_speed;
}
double FacilityLoop::fanPower() const {
  return impl_->fan_P;
}
double FacilityLoop::heatRejected() const {
  return impl_->Q_rejected;
}
double FacilityLoop::rejectionConductance() const {
  return impl_->G_rejection;
}
double FacilityLoop::chillerHeat() const {
  return impl_->Q_chiller;
}
double FacilityLoop::chillerElectricPower() const {
  return impl_->chiller_P;
}
double FacilityLoop::chillerCondenserHeat() const {
  return impl_->Q_chiller + impl_->chiller_P;
}
double FacilityLoop::chillerCOP() const {
  return impl_->chiller_COP;
}
double FacilityLoop::waterUseRate() const {
  return impl_->water_rate;
}
double FacilityLoop::ambientDryBulb() const {
  return impl_->T_dry;
}
double FacilityLoop::ambientWetBulb() const {
  return impl_->T_wet;
}
double FacilityLoop::heatInput() const {
  return impl_->E_in;
}
double FacilityLoop::pumpHeat() const {
  return impl_->E_pump;
}
double FacilityLoop::energyRejected() const {
  return impl_->E_rejected;
}
double FacilityLoop::chillerEnergy() const {
  return impl_->E_chiller;
}
double FacilityLoop::pumpElectricEnergy() const {
  return impl_->E_pump_electric;
}
double FacilityLoop::fanEnergy() const {
  return impl_->E_fan;
}
double FacilityLoop::chillerElectricEnergy() const {
  return impl_->E_chiller_electric;
}
double FacilityLoop::waterUsed() const {
  return impl_->V_water;
}
double FacilityLoop::chillerTime() const {
  return impl_->t_chiller;
}
double FacilityLoop::freeCoolingTime() const {
  return impl_->t_free_cooling;
}
double FacilityLoop::aboveSetpointTime() const {
  return impl_->t_above_setpoint;
}

void FacilityLoop::summarise(std::span<const std::unique_ptr<FacilityLoop>> loops,
                             core::Summary& summary) {
  if (loops.empty()) return;
  double t_chiller = 0.0, t_free_cooling = 0.0, t_above_setpoint = 0.0;
  for (const auto& loop : loops) {
    const Impl& m = *loop->impl_;
    t_chiller += m.t_chiller;
    t_free_cooling += m.t_free_cooling;
    t_above_setpoint += m.t_above_setpoint;
  }
  // Several plants: the hours of each, added (loop hours).
  const std::string of =
      loops.size() == 1
          ? ""
          : " (loop hours, summed over " + std::to_string(loops.size()) + " facility loops)";
  constexpr double hours = 1.0 / 3600.0;
  summary.add(
      {"chiller_time_s", t_chiller, "Chiller hours (trim chiller needed)" + of, "h", hours, 0.0});
  summary.add({"free_cooling_time_s", t_free_cooling,
               "Free-cooling hours (heat rejection alone holds the supply)" + of, "h", hours, 0.0});
  summary.add({"supply_above_setpoint_time_s", t_above_setpoint,
               "Hours with the plant supply above set-point + 0.5 K" + of, "h", hours, 0.0});
}

double FacilityLoop::storedEnergy() const {
  return impl_->stored();
}
double FacilityLoop::energyBalanceResidual() const {
  const Impl& m = *impl_;
  return (m.stored() - m.E_stored_initial) - (m.E_in + m.E_pump - m.E_rejected - m.E_chiller);
}
int FacilityLoop::hydraulicSolves() const {
  return impl_->solves;
}
int FacilityLoop::orderBuilds() const {
  return impl_->order_builds;
}
double FacilityLoop::largestRelativeImbalance() const {
  return impl_->max_imbalance;
}
double FacilityLoop::minTemperature() const {
  return *std::min_element(impl_->cell_T.begin(), impl_->cell_T.end());
}
double FacilityLoop::maxTemperature() const {
  return *std::max_element(impl_->cell_T.begin(), impl_->cell_T.end());
}
const core::FlowNetwork& FacilityLoop::network() const {
  return impl_->network;
}
const HydraulicSolver& FacilityLoop::hydraulics() const {
  return *impl_->solver;
}

}  // namespace racktwin::thermal

namespace racktwin::thermal {

void FacilityLoop::visitState(core::StateArchive& a) {
  Impl& m = *impl_;
  RACKTWIN_ASSERT(m.initialised, "FacilityLoop::visitState before initialize()");
  a.each(m.cdus, [](core::StateArchive& b, Impl::Cdu& cdu) {
    b(cdu.opening, cdu.command, cdu.opening_solved, cdu.stuck);
  });
  m.solver->visitState(a);
  a.trivial(m.fluid);
  a(m.T_hydraulics, m.cell_T, m.cell_T_old, m.cell_alpha, m.cell_beta);
  // The flow pattern and its scratch: their sizes follow the pattern.
  a.resizable(m.order);
  a.resizable(m.C_link);
  a.resizable(m.link_up);
  a.resizable(m.link_down);
  a.resizable(m.in_begin);
  a.resizable(m.in_links);
  a.resizable(m.out_begin);
  a.resizable(m.out_links);
  a.resizable(m.node_alpha);
  a.resizable(m.node_beta);
  a.resizable(m.node_T);
  a.resizable(m.flow_scratch);
  a.resizable(m.node_scratch);
  a.resizable(m.in_fill);
  a.resizable(m.out_fill);
  a.resizable(m.direction);
  a.resizable(m.Q_cdu_now);
  a(m.pumps_running, m.pumps_healthy, m.pending_switches, m.switch_time, m.pump_speed,
    m.pump_integral, m.speed_solved, m.pumps_solved, m.pump_dp, m.pump_P_hydraulic,
    m.pump_P_electric, m.dp_remote);
  a(m.T_set, m.fan_availability, m.fan_speed, m.fan_P, m.G_rejection, m.T_dry, m.T_wet,
    m.chiller_mode, m.Q_rejected, m.Q_chiller, m.chiller_P, m.chiller_COP, m.water_rate);
  a(m.E_in, m.E_pump, m.E_rejected, m.E_chiller, m.E_pump_electric, m.E_fan, m.E_chiller_electric,
    m.V_water, m.E_stored_initial, m.solves, m.order_builds, m.max_imbalance, m.now);
  a(m.t_chiller, m.t_free_cooling, m.t_above_setpoint);
  m.outdoor.visitState(a);
  a.section("facility loop");
}

}  // namespace racktwin::thermal
