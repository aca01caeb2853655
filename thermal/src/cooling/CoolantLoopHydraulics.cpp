// The hydraulics of a coolant loop: the flow solve (on change only) and the flow pattern it
// implies for the heat sweep.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "FlowLists.hpp"
#include "cooling/CoolantLoop.hpp"
#include "racktwin/core/Error.hpp"

namespace racktwin::thermal::cooling {

void CoolantLoop::solveHydraulics(LoopContext& ctx) {
  // Per CDU: pumps_running identical duty pumps in parallel at its speed; none running: stopped.
  for (const std::uint32_t u : units)
    ctx.units[u].setPumpLaw(solver->law(ctx.units[u].pump_link));
  last_status = solver->solve(fluid, kHydraulicTolerance);
  ++ctx.hydraulic_solves;
  ctx.hydraulic_iterations_max = std::max(ctx.hydraulic_iterations_max, last_status.iterations);
  if (!last_status.converged) {
    throw core::RuntimeError("coolant loop of " + name + ": hydraulic solve failed after "
                             + std::to_string(last_status.iterations)
                             + " iterations: " + last_status.message);
  }
  const core::FlowNetwork& net = network;
  const std::span<const double> V = solver->V_flow();
  const std::size_t n_links = net.linkCount();
  // Direction and capacity rate of every link; links with negligible flow carry no heat.
  std::vector<double>& flow = flow_scratch;
  bool same_pattern = true;
  for (Index l = 0; l < n_links; ++l) {
    const bool flowing = std::abs(V[l]) > kFlowThreshold;
    C_link[l] = flowing ? fluid.rho * std::abs(V[l]) * cp : 0.0;
    const std::int8_t d = !flowing ? 0 : V[l] > 0.0 ? 1 : -1;
    same_pattern = same_pattern && d == direction[l];
    direction[l] = d;
    flow[l] = flowing ? V[l] : 0.0;
  }
  // The sweep order and the in/out lists depend only on which links carry flow and which way:
  // a re-solve that keeps that pattern (a viscosity update) needs neither the graph algorithm
  // nor any allocation.
  if (!same_pattern) {
    if (!net.flowOrder(flow, kFlowThreshold, tears, order)) {
      throw core::RuntimeError("coolant loop of " + name
                               + ": the flow has a cycle that does not pass a CDU pump");
    }
    buildFlowLists(net, V, C_link, link_up, link_down, in_begin, in_links, out_begin, out_links,
                   in_fill, out_fill);
  }
  for (const std::uint32_t u : units) {
    CduUnit& unit = ctx.units[u];
    unit.takeSolve(-solver->dp(unit.pump_link), V[unit.pump_link],
                   ctx.couplings[unit.pump_coupling]);
  }
  updateDieResistances(ctx);
  ++version;  // the sweep's cached factors follow the new flows
  const std::span<const double> p = solver->p();
  rack_dp_min = racks.empty() ? 0.0 : std::numeric_limits<double>::infinity();
  for (const std::uint32_t u : units)
    ctx.units[u].pump_speed_solved = ctx.units[u].pump_speed;
  for (std::size_t k = 0; k < racks.size(); ++k) {
    ctx.rack_dp_available[racks[k]] = p[rack_supply_tap[k]] - p[rack_return_tap[k]];
    rack_dp_min = std::min(rack_dp_min, ctx.rack_dp_available[racks[k]]);
    ctx.rack_V_flow[racks[k]] = V[rack_supply_hose[k]];
  }
  const ChipThermal& chips = ctx.chips;
  for (std::uint32_t d = die_begin; d < die_end; ++d) {
    if (chips.dies[d].kind == ChipKind::Gpu)
      ctx.chips.gpu_V_flow[chips.dies[d].chip] = V[chips.dies[d].link];
  }
}

// Once per step and loop, O(1) unless a solve is due: a standby pump whose switch-over time has
// come starts, and the viscosity follows the mean loop temperature. A solve that keeps the flow
// pattern allocates nothing outside Eigen's factorisation (which keeps its work on the stack, see
// Hydraulics.cpp); a pattern change (flow stopping or starting) rebuilds the sweep order.
void CoolantLoop::updateHydraulics(LoopContext& ctx, double t) {
  bool solve = false;
  double T_sum = 0.0;
  for (const std::uint32_t u : units) {
    CduUnit& unit = ctx.units[u];
    if (unit.startPendingStandby(t)) solve = true;
    T_sum += 0.5 * (unit.T_supply + unit.T_return);
  }
  const double T_mean = T_sum / static_cast<double>(units.size());
  if (std::abs(T_mean - T_hydraulics) > kViscosityResolveDelta_K) {
    fluid.mu = coolant->viscosity(T_mean);
    T_hydraulics = T_mean;
    solve = true;
  }
  if (solve) solveHydraulics(ctx);
}

void CoolantLoop::updateDieResistances(LoopContext& ctx) const {
  const std::span<const double> V = solver->V_flow();
  ChipThermal& chips = ctx.chips;
  for (std::uint32_t d = die_begin; d < die_end; ++d)
    chips.R[d] = chips.dies[d].spec->cold_plate.resistance(V[chips.dies[d].link]);
}

}  // namespace racktwin::thermal::cooling
