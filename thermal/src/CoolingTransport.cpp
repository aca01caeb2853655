// Hydraulics and heat transport of CoolingModel's loops: the flow solve (on change only), the flow
// pattern it implies, and the implicit upwind heat step as an affine sweep in flow order closed
// at the CDU suction nodes.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "CoolingModelImpl.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::thermal {

using cooling::Index;
using cooling::LinkRole;

void CoolingModel::Impl::solveHydraulics(Loop& loop) {
  // Per CDU: pumps_running identical duty pumps in parallel at its speed; none running: stopped.
  for (const std::uint32_t u : loop.units) {
    const Unit& unit = units[u];
    LinkLaw& pump = loop.solver->law(unit.pump_link);
    pump.pump.speed = unit.pumps_running > 0 ? unit.pump_speed : 0.0;
    pump.pumps_parallel = std::max(unit.pumps_running, 1);
    // A CDU's pumps discharge through check valves: a stopped CDU on a ring, where the other
    // CDUs' pumps could drive flow backwards through it, passes none.
    pump.status = unit.pumps_running > 0 ? LinkStatus::Open : LinkStatus::Closed;
  }
  loop.last_status = loop.solver->solve(loop.fluid, cooling::kHydraulicTolerance);
  ++hydraulic_solves;
  hydraulic_iterations_max = std::max(hydraulic_iterations_max, loop.last_status.iterations);
  if (!loop.last_status.converged) {
    throw core::RuntimeError("coolant loop of " + loop.name + ": hydraulic solve failed after "
                             + std::to_string(loop.last_status.iterations)
                             + " iterations: " + loop.last_status.message);
  }
  const core::FlowNetwork& net = loop.network;
  const std::span<const double> V = loop.solver->V_flow();
  const std::size_t n_nodes = net.nodeCount();
  const std::size_t n_links = net.linkCount();
  // Direction and capacity rate of every link; links with negligible flow carry no heat.
  std::vector<double>& flow = loop.flow_scratch;
  bool same_pattern = true;
  for (Index l = 0; l < n_links; ++l) {
    const bool flowing = std::abs(V[l]) > cooling::kFlowThreshold;
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
    if (!net.flowOrder(flow, cooling::kFlowThreshold, loop.tears, loop.order)) {
      throw core::RuntimeError("coolant loop of " + loop.name
                               + ": the flow has a cycle that does not pass a CDU pump");
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
  // Pumps: the hydraulic power enters the coolant as heat; the motor loss goes to room air.
  for (const std::uint32_t u : loop.units) {
    Unit& unit = units[u];
    unit.pump_dp = -loop.solver->dp(unit.pump_link);
    unit.pump_P_hydraulic = std::max(0.0, unit.pump_dp * V[unit.pump_link]);
    unit.pump_P_electric = unit.pump_P_hydraulic / unit.cdu->pump.efficiency;
    unit.V_secondary = V[unit.pump_link];
  }
  updateDieResistances(loop);
  ++loop.version;  // the sweep's cached factors follow the new flows
  const std::span<const double> p = loop.solver->p();
  loop.rack_dp_min = loop.racks.empty() ? 0.0 : std::numeric_limits<double>::infinity();
  for (const std::uint32_t u : loop.units)
    units[u].pump_speed_solved = units[u].pump_speed;
  for (std::size_t k = 0; k < loop.racks.size(); ++k) {
    rack_dp_available[loop.racks[k]] = p[loop.rack_supply_tap[k]] - p[loop.rack_return_tap[k]];
    loop.rack_dp_min = std::min(loop.rack_dp_min, rack_dp_available[loop.racks[k]]);
    rack_V_flow[loop.racks[k]] = V[loop.rack_supply_hose[k]];
  }
  for (std::uint32_t d = loop.die_begin; d < loop.die_end; ++d) {
    if (dies[d].kind == cooling::ChipKind::Gpu) gpu_V_flow[dies[d].chip] = V[dies[d].link];
  }
}

// Once per step and loop, O(1) unless a solve is due: a standby pump whose switch-over time has
// come starts, and the viscosity follows the mean loop temperature. A solve that keeps the flow
// pattern allocates nothing outside Eigen's factorisation (which keeps its work on the stack, see
// Hydraulics.cpp); a pattern change (flow stopping or starting) rebuilds the sweep order.
void CoolingModel::Impl::updateHydraulics(Loop& loop, double t) {
  bool solve = false;
  double T_sum = 0.0;
  for (const std::uint32_t u : loop.units) {
    Unit& unit = units[u];
    if (unit.pending_switches > 0
        && t >= unit.switch_time - 1e-9 * std::max(1.0, unit.switch_time)) {
      unit.pumps_running += unit.pending_switches;
      unit.pending_switches = 0;
      unit.switch_time = cooling::kNever;
      solve = true;
    }
    T_sum += 0.5 * (unit.T_supply + unit.T_return);
  }
  const double T_mean = T_sum / static_cast<double>(loop.units.size());
  if (std::abs(T_mean - loop.T_hydraulics) > cooling::kViscosityResolveDelta_K) {
    loop.fluid.mu = loop.coolant->viscosity(T_mean);
    loop.T_hydraulics = T_mean;
    solve = true;
  }
  if (solve) solveHydraulics(loop);
}

void CoolingModel::Impl::updateDieResistances(const Loop& loop) {
  const std::span<const double> V = loop.solver->V_flow();
  for (std::uint32_t d = loop.die_begin; d < loop.die_end; ++d) {
    die_R[d] = dies[d].spec->cold_plate.resistance(V[dies[d].link]);
  }
}

// ------------------------------------------------------------------------------------------------
// The implicit transport step: affine sweep in flow order, then the closure at the tears.

void CoolingModel::Impl::sweep(Loop& loop, double dt) {
  if (loop.cache_dt != dt || loop.cache_version != loop.version) {
    refreshSweepFactors(loop, dt);
    prepareSingleSweep(loop, dt);
  }
  // The facility side of every exchanger for this step: from the facility loop's last state, or
  // the boundary condition (the valve branch's flow at the opening; nominal x opening without
  // valve data).
  for (const std::uint32_t u : loop.units) {
    Unit& unit = units[u];
    if (facility) {
      unit.C_facility = facility->cduCapacityRate(u);
      unit.T_facility_supply = facility->cduSupplyTemperature(u);
    } else {
      if (unit.facility_branch) {
        unit.V_facility = unit.facility_branch->flow(unit.valve_opening);
        unit.C_facility =
            unit.V_facility * (unit.facility_C_nominal / unit.cdu->facility_V_flow_nominal);
      } else {
        unit.V_facility = unit.valve_opening * unit.cdu->facility_V_flow_nominal;
        unit.C_facility = unit.valve_opening * unit.facility_C_nominal;
      }
    }
    unit.G_hx = unit.hx->conductance(loop.C_link[unit.hx_link], unit.C_facility);
  }
  // One CDU per loop is the common case: its flow-only factors are kept between steps
  // (CoolingSweepSingle.cpp); otherwise a width known at compile time turns the affine rows into
  // scalars.
  if (loop.single.valid) {
    sweepSingle(loop, dt);
  } else if (loop.width() == 1) {
    sweepWidth<1>(loop, dt);
  } else {
    sweepWidth<0>(loop, dt);
  }
  finishSweep(loop);
}

void CoolingModel::Impl::refreshSweepFactors(Loop& loop, double dt) {
  const std::uint32_t cell0 = loop.cell_begin;
  const double inv_dt = 1.0 / dt;
  // Divisions are the sweep's main cost; their factors change only with dt and the flows.
  for (Index l = 0; l < loop.links.size(); ++l) {
    const Link& link = loop.links[l];
    const double C_flow = loop.C_link[l];
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c)
      loop.cell_inv_diag[c - cell0] = 1.0 / (cell_C[c] * inv_dt + C_flow);
    if (link.role == LinkRole::ColdPlate) {
      const auto d = static_cast<std::size_t>(link.die);
      // Effectiveness <= 1: the coolant cannot leave hotter than the case, so the
      // inlet-referenced conductance is capped at the capacity rate.
      die_g[d] = std::min(1.0 / die_R[d], C_flow);
      die_store[d] = dies[d].spec->heat_capacity * inv_dt;
      die_inv[d] = 1.0 / (die_store[d] + die_g[d]);
    }
  }
  // Mixing at a junction: each inflow's weight is its share of the capacity rate flowing in.
  const std::size_t n_nodes = loop.network.nodeCount();
  for (std::size_t n = 0; n < n_nodes; ++n) {
    double C_sum = 0.0;
    for (std::uint32_t k = loop.in_begin[n]; k < loop.in_begin[n + 1]; ++k)
      C_sum += loop.C_link[loop.in_links[k]];
    const double inv_C_in = C_sum > 0.0 ? 1.0 / C_sum : 0.0;
    for (std::uint32_t k = loop.in_begin[n]; k < loop.in_begin[n + 1]; ++k) {
      const Index l = loop.in_links[k];
      loop.in_last_cell[k] = loop.links[l].cell_end - 1 - cell0;
      loop.in_weight[k] = loop.C_link[l] * inv_C_in;
    }
  }
  loop.still_links.clear();  // reserved for every link at build: no allocation
  for (Index l = 0; l < loop.links.size(); ++l) {
    if (loop.C_link[l] == 0.0) loop.still_links.push_back(l);
  }
  // The audit's view of each plate (CoolingAudit.cpp), contiguous per die.
  for (std::uint32_t d = loop.die_begin; d < loop.die_end; ++d) {
    const std::size_t k = d - loop.die_begin;
    const Index l = dies[d].link;
    const Link& link = loop.links[l];
    loop.plate_cell_begin[k] = link.cell_begin;
    loop.plate_cell_end[k] = link.cell_end;
    loop.plate_up[k] = loop.link_up[l];
    loop.plate_C_flow[k] = loop.C_link[l];
    double C = 0.0;
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c)
      C += cell_C[c];
    loop.plate_C_cells[k] = C;
  }
  loop.cache_dt = dt;
  loop.cache_version = loop.version;
}

void CoolingModel::Impl::finishSweep(Loop& loop) {
  // Heat removed by each exchanger, from the same implicit temperatures (exact balance).
  for (const std::uint32_t u : loop.units) {
    Unit& unit = units[u];
    const Index hx_in = loop.link_up[unit.hx_link];
    const double T_fac = unit.T_facility_supply;
    unit.Q_hx = loop.C_link[unit.hx_link] > 0.0 ? unit.G_hx * (loop.node_T[hx_in] - T_fac) : 0.0;
    unit.T_supply = loop.node_T[unit.supply];
    unit.T_return = loop.node_T[unit.suction];
    if (facility) unit.V_facility = facility->cduFlow(u);
    unit.T_facility_return = unit.C_facility > 0.0 ? T_fac + unit.Q_hx / unit.C_facility : T_fac;
  }
}

void CoolingModel::Impl::closeStillLinks(Loop& loop, double dt) {
  // Each cell of a link without flow is closed; a cold plate exchanges with its own cell.
  for (const Index l : loop.still_links) {
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
        T = (m11 * r2 - m21 * r1) / det;
      } else if (c == link.cell_begin && link.role == LinkRole::Pump) {
        T = cell_T_old[c] + units[static_cast<std::size_t>(link.unit)].pump_P_hydraulic / store;
      }
      cell_alpha[c] = T;
    }
  }
}

template <std::size_t W>
void CoolingModel::Impl::sweepWidth(Loop& loop, double dt) {
  const std::size_t n_nodes = loop.network.nodeCount();
  const std::size_t m = W > 0 ? W : loop.width();
  const std::uint32_t cell0 = loop.cell_begin;
  const std::uint32_t die0 = loop.die_begin;
  auto cellBeta = [&](std::uint32_t c) { return &loop.cell_beta[(c - cell0) * m]; };
  auto dieBeta = [&](std::size_t d) { return &loop.die_beta[(d - die0) * m]; };
  const double inv_dt = 1.0 / dt;

  // Advances the cells of link l from an inlet temperature alpha_in + beta_in . x.
  auto advanceLink = [&](Index l, double a_in, const double* b_in) {
    const Link& link = loop.links[l];
    const double C_flow = loop.C_link[l];
    double a = a_in;
    const double* b = b_in;
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c) {
      const double store = cell_C[c] * inv_dt;
      double rhs_a = store * cell_T_old[c] + C_flow * a;
      double b_factor = C_flow;  // the cell's beta row is b_factor * b / diag
      const double inv_diag = loop.cell_inv_diag[c - cell0];  // 1 / (store + C_flow)
      if (c == link.cell_begin) {
        switch (link.role) {
          case LinkRole::ColdPlate: {
            // Case node: (C_d/dt)(D - D_old) = P - (D - T_in)/R, solved for D = d0 + d1 T_in,
            // with g = min(1/R, C_flow) (cached above).
            const auto d = static_cast<std::size_t>(link.die);
            const double store_d = die_store[d];
            const double g = die_g[d];
            const double d0 = (store_d * die_T_old[d] + die_P[d]) * die_inv[d];
            const double d1 = g * die_inv[d];
            // Heat into the cell: g (D - T_in) = g d0 + g (d1 - 1) T_in.
            die_alpha[d] = d0 + d1 * a;
            double* db = dieBeta(d);
            for (std::size_t j = 0; j < m; ++j)
              db[j] = d1 * b[j];
            rhs_a += g * d0 + g * (d1 - 1.0) * a;
            b_factor += g * (d1 - 1.0);
            break;
          }
          case LinkRole::HeatExchanger: {
            const Unit& unit = units[static_cast<std::size_t>(link.unit)];
            rhs_a -= unit.G_hx * (a - unit.T_facility_supply);
            b_factor -= unit.G_hx;
            break;
          }
          case LinkRole::Pump:
            rhs_a += units[static_cast<std::size_t>(link.unit)].pump_P_hydraulic;
            break;
          case LinkRole::Plain:
            break;
        }
      }
      cell_alpha[c] = rhs_a * inv_diag;
      double* cb = cellBeta(c);
      const double f = b_factor * inv_diag;
      for (std::size_t j = 0; j < m; ++j)
        cb[j] = f * b[j];
      a = cell_alpha[c];
      b = cb;
    }
  };

  // Links without flow: closed cells (their temperature is the alpha, their beta rows zero).
  closeStillLinks(loop, dt);
  for (const Index l : loop.still_links) {
    const Link& link = loop.links[l];
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c)
      std::fill_n(cellBeta(c), m, 0.0);
    if (link.role == LinkRole::ColdPlate)
      std::fill_n(dieBeta(static_cast<std::size_t>(link.die)), m, 0.0);
  }

  // Forward sweep: every node and cell temperature as alpha + beta . x.
  for (const Index n : loop.order) {
    double a = 0.0;
    double* b = &loop.node_beta[n * m];
    std::fill_n(b, m, 0.0);
    if (const std::int32_t j = loop.tear_of[n]; j >= 0) {
      b[static_cast<std::size_t>(j)] = 1.0;
    } else {
      const std::uint32_t k_end = loop.in_begin[n + 1];
      for (std::uint32_t k = loop.in_begin[n]; k < k_end; ++k) {
        const std::uint32_t last = loop.in_last_cell[k];  // local to the loop
        const double w = loop.in_weight[k];
        a += w * cell_alpha[cell0 + last];
        const double* lb = &loop.cell_beta[last * m];
        for (std::size_t i = 0; i < m; ++i)
          b[i] += w * lb[i];
      }
      if (loop.in_begin[n] == k_end) {
        a = loop.node_T[n];  // no inflow: the junction keeps its last temperature
      }
    }
    loop.node_alpha[n] = a;
    for (std::uint32_t k = loop.out_begin[n]; k < loop.out_begin[n + 1]; ++k)
      advanceLink(loop.out_links[k], a, b);
  }

  // Closure at each suction node j: x_j = sum C (alpha + beta . x) / sum C over its inflows, or
  // its last temperature when nothing flows in. Every cell passes at most C_flow / (C/dt +
  // C_flow) < 1 of its inlet on, so the rows of beta sum below one: I - B is strictly diagonally
  // dominant, and elimination without pivoting is stable. m is the number of CDUs on the loop.
  std::vector<double>& M = loop.closure;
  const std::size_t w = m + 1;
  for (std::size_t j = 0; j < m; ++j) {
    const Index n = loop.tears[j];
    double* row = &M[j * w];
    std::fill_n(row, w, 0.0);
    double C_sum = 0.0;
    for (std::uint32_t k = loop.in_begin[n]; k < loop.in_begin[n + 1]; ++k) {
      const Index l = loop.in_links[k];
      const std::uint32_t last = loop.links[l].cell_end - 1;
      const double C = loop.C_link[l];
      C_sum += C;
      row[m] += C * cell_alpha[last];
      const double* lb = cellBeta(last);
      for (std::size_t i = 0; i < m; ++i)
        row[i] -= C * lb[i];
    }
    if (C_sum > 0.0) {
      for (std::size_t i = 0; i < w; ++i)
        row[i] /= C_sum;
      row[j] += 1.0;
    } else {
      std::fill_n(row, m, 0.0);
      row[j] = 1.0;
      row[m] = loop.node_T[n];
    }
  }
  for (std::size_t k = 0; k < m; ++k) {
    RACKTWIN_ASSERT(M[k * w + k] > 0.0, "the loop closure must be diagonally dominant");
    for (std::size_t i = k + 1; i < m; ++i) {
      const double f = M[i * w + k] / M[k * w + k];
      if (f == 0.0) continue;
      for (std::size_t c = k; c < w; ++c)
        M[i * w + c] -= f * M[k * w + c];
    }
  }
  for (std::size_t k = m; k-- > 0;) {
    double s = M[k * w + m];
    for (std::size_t c = k + 1; c < m; ++c)
      s -= M[k * w + c] * loop.x[c];
    loop.x[k] = s / M[k * w + k];
  }
  const double* x = loop.x.data();
  auto affine = [&](double a, const double* b) {
    for (std::size_t j = 0; j < m; ++j)
      a += b[j] * x[j];
    return a;
  };

  // Back-substitution, summing the heat stored above 0 degC on the way (the energy balance needs
  // it every cycle; a separate pass would read every cell again).
  double E = 0.0;
  for (std::uint32_t c = loop.cell_begin; c < loop.cell_end; ++c) {
    const double T = affine(cell_alpha[c], cellBeta(c));
    cell_T[c] = T;
    E += cell_C[c] * (T - core::kZeroCelsius_K);
  }
  for (std::uint32_t d = loop.die_begin; d < loop.die_end; ++d) {
    const double T = affine(die_alpha[d], dieBeta(d));
    die_T[d] = T;
    E += die_C[d] * (T - core::kZeroCelsius_K);
  }
  loop.E_stored = E;
  for (std::size_t n = 0; n < n_nodes; ++n)
    loop.node_T[n] = affine(loop.node_alpha[n], &loop.node_beta[n * m]);
}

}  // namespace racktwin::thermal
