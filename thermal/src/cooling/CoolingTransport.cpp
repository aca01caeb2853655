// The implicit transport step of a coolant loop: an affine sweep in flow order, then the closure
// at the tears (the CDU suction nodes).
#include <algorithm>
#include <cmath>

#include "cooling/CoolantLoop.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::thermal::cooling {

void CoolantLoop::sweep(LoopContext& ctx, double dt) {
  if (cache_dt != dt || cache_version != version) {
    refreshSweepFactors(ctx, dt);
    prepareSingleSweep(ctx, dt);
  }
  // One CDU per loop is the common case: its flow-only factors are kept between steps
  // (CoolingSweepSingle.cpp); otherwise a width known at compile time turns the affine rows into
  // scalars.
  if (single.valid) {
    sweepSingle(ctx, dt);
  } else if (width() == 1) {
    sweepWidth<1>(ctx, dt);
  } else {
    sweepWidth<0>(ctx, dt);
  }
  finishSweep(ctx);
}

void CoolantLoop::refreshSweepFactors(LoopContext& ctx, double dt) {
  const std::vector<double>& cell_C = ctx.cells.C;
  ChipThermal& chips = ctx.chips;
  const double inv_dt = 1.0 / dt;
  // Divisions are the sweep's main cost; their factors change only with dt and the flows.
  for (Index l = 0; l < links.size(); ++l) {
    const Link& link = links[l];
    const double C_flow = C_link[l];
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c)
      cell_inv_diag[c - cell_begin] = 1.0 / (cell_C[c] * inv_dt + C_flow);
    if (link.role == ThermalRole::ChipPlate) {
      const auto d = static_cast<std::size_t>(link.die);
      // Effectiveness <= 1: the coolant cannot leave hotter than the case, so the
      // inlet-referenced conductance is capped at the capacity rate.
      chips.g[d] = std::min(1.0 / chips.R[d], C_flow);
      chips.store[d] = chips.dies[d].spec->heat_capacity * inv_dt;
      chips.inv[d] = 1.0 / (chips.store[d] + chips.g[d]);
    }
  }
  // Mixing at a junction: each inflow's weight is its share of the capacity rate flowing in.
  const std::size_t n_nodes = network.nodeCount();
  for (std::size_t n = 0; n < n_nodes; ++n) {
    double C_sum = 0.0;
    for (std::uint32_t k = in_begin[n]; k < in_begin[n + 1]; ++k)
      C_sum += C_link[in_links[k]];
    const double inv_C_in = C_sum > 0.0 ? 1.0 / C_sum : 0.0;
    for (std::uint32_t k = in_begin[n]; k < in_begin[n + 1]; ++k) {
      const Index l = in_links[k];
      in_last_cell[k] = links[l].cell_end - 1 - cell_begin;
      in_weight[k] = C_link[l] * inv_C_in;
    }
  }
  still_links.clear();  // reserved for every link at build: no allocation
  for (Index l = 0; l < links.size(); ++l) {
    if (C_link[l] == 0.0) still_links.push_back(l);
  }
  // The audit's view of each plate (CoolingAudit.cpp), contiguous per die.
  for (std::uint32_t d = die_begin; d < die_end; ++d) {
    const std::size_t k = d - die_begin;
    const Index l = chips.dies[d].link;
    const Link& link = links[l];
    plate_cell_begin[k] = link.cell_begin;
    plate_cell_end[k] = link.cell_end;
    plate_up[k] = link_up[l];
    plate_C_flow[k] = C_link[l];
    double C = 0.0;
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c)
      C += cell_C[c];
    plate_C_cells[k] = C;
  }
  cache_dt = dt;
  cache_version = version;
}

void CoolantLoop::finishSweep(LoopContext& ctx) {
  // Heat removed by each exchanger, from the same implicit temperatures (exact balance).
  for (const Index l : exchanger_links) {
    HeatCoupling& c = ctx.couplings[static_cast<std::size_t>(links[l].coupling)];
    c.Q_out = C_link[l] > 0.0 ? c.G * (node_T[link_up[l]] - c.T_other) : 0.0;
  }
}

void CoolantLoop::closeStillLinks(LoopContext& ctx, double dt, double* alpha) {
  CoolantCells& cells = ctx.cells;
  ChipThermal& chips = ctx.chips;
  // Each cell of a link without flow is closed; a cold plate exchanges with its own cell, a heat
  // source heats it.
  for (const Index l : still_links) {
    const Link& link = links[l];
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c) {
      const double store = cells.C[c] / dt;
      double T = cells.T_old[c];
      if (c == link.cell_begin && link.role == ThermalRole::ChipPlate) {
        const auto d = static_cast<std::size_t>(link.die);
        const double store_d = chips.dies[d].spec->heat_capacity / dt;
        const double g = 1.0 / chips.R[d];
        // [store_d + g, -g; -g, store + g] [D; T] = [store_d D_old + P; store T_old]
        const double m11 = store_d + g, m12 = -g, m21 = -g, m22 = store + g;
        const double r1 = store_d * chips.T_old[d] + chips.P[d], r2 = store * cells.T_old[c];
        const double det = m11 * m22 - m12 * m21;
        chips.alpha[d] = (r1 * m22 - m12 * r2) / det;
        T = (m11 * r2 - m21 * r1) / det;
      } else if (c == link.cell_begin && link.role == ThermalRole::HeatSource) {
        T = cells.T_old[c] + ctx.couplings[static_cast<std::size_t>(link.coupling)].q / store;
      }
      alpha[c] = T;
    }
  }
}

template <std::size_t W>
void CoolantLoop::sweepWidth(LoopContext& ctx, double dt) {
  CoolantCells& cells = ctx.cells;
  ChipThermal& chips = ctx.chips;
  const std::vector<HeatCoupling>& couplings = ctx.couplings;
  const std::size_t n_nodes = network.nodeCount();
  const std::size_t m = W > 0 ? W : width();
  const std::uint32_t cell0 = cell_begin;
  const std::uint32_t die0 = die_begin;
  auto cellBeta = [&](std::uint32_t c) { return &cell_beta[(c - cell0) * m]; };
  auto dieBeta = [&](std::size_t d) { return &die_beta[(d - die0) * m]; };
  const double inv_dt = 1.0 / dt;

  // Advances the cells of link l from an inlet temperature alpha_in + beta_in . x.
  auto advanceLink = [&](Index l, double a_in, const double* b_in) {
    const Link& link = links[l];
    const double C_flow = C_link[l];
    double a = a_in;
    const double* b = b_in;
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c) {
      const double store = cells.C[c] * inv_dt;
      double rhs_a = store * cells.T_old[c] + C_flow * a;
      double b_factor = C_flow;  // the cell's beta row is b_factor * b / diag
      const double inv_diag = cell_inv_diag[c - cell0];  // 1 / (store + C_flow)
      if (c == link.cell_begin) {
        switch (link.role) {
          case ThermalRole::ChipPlate: {
            // Case node: (C_d/dt)(D - D_old) = P - (D - T_in)/R, solved for D = d0 + d1 T_in,
            // with g = min(1/R, C_flow) (cached above).
            const auto d = static_cast<std::size_t>(link.die);
            const double store_d = chips.store[d];
            const double g = chips.g[d];
            const double d0 = (store_d * chips.T_old[d] + chips.P[d]) * chips.inv[d];
            const double d1 = g * chips.inv[d];
            // Heat into the cell: g (D - T_in) = g d0 + g (d1 - 1) T_in.
            chips.alpha[d] = d0 + d1 * a;
            double* db = dieBeta(d);
            for (std::size_t j = 0; j < m; ++j)
              db[j] = d1 * b[j];
            rhs_a += g * d0 + g * (d1 - 1.0) * a;
            b_factor += g * (d1 - 1.0);
            break;
          }
          case ThermalRole::Exchanger: {
            // Inlet-referenced: G (T_in - T_other) leaves the cell.
            const HeatCoupling& x_c = couplings[static_cast<std::size_t>(link.coupling)];
            rhs_a -= x_c.G * (a - x_c.T_other);
            b_factor -= x_c.G;
            break;
          }
          case ThermalRole::HeatSource:
            rhs_a += couplings[static_cast<std::size_t>(link.coupling)].q;
            break;
          case ThermalRole::Volume:
            break;
        }
      }
      cells.alpha[c] = rhs_a * inv_diag;
      double* cb = cellBeta(c);
      const double f = b_factor * inv_diag;
      for (std::size_t j = 0; j < m; ++j)
        cb[j] = f * b[j];
      a = cells.alpha[c];
      b = cb;
    }
  };

  // Links without flow: closed cells (their temperature is the alpha, their beta rows zero).
  closeStillLinks(ctx, dt, cells.alpha.data());
  for (const Index l : still_links) {
    const Link& link = links[l];
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c)
      std::fill_n(cellBeta(c), m, 0.0);
    if (link.role == ThermalRole::ChipPlate)
      std::fill_n(dieBeta(static_cast<std::size_t>(link.die)), m, 0.0);
  }

  // Forward sweep: every node and cell temperature as alpha + beta . x.
  for (const Index n : order) {
    double a = 0.0;
    double* b = &node_beta[n * m];
    std::fill_n(b, m, 0.0);
    if (const std::int32_t j = tear_of[n]; j >= 0) {
      b[static_cast<std::size_t>(j)] = 1.0;
    } else {
      const std::uint32_t k_end = in_begin[n + 1];
      for (std::uint32_t k = in_begin[n]; k < k_end; ++k) {
        const std::uint32_t last = in_last_cell[k];  // local to the loop
        const double w = in_weight[k];
        a += w * cells.alpha[cell0 + last];
        const double* lb = &cell_beta[last * m];
        for (std::size_t i = 0; i < m; ++i)
          b[i] += w * lb[i];
      }
      if (in_begin[n] == k_end) {
        a = node_T[n];  // no inflow: the junction keeps its last temperature
      }
    }
    node_alpha[n] = a;
    for (std::uint32_t k = out_begin[n]; k < out_begin[n + 1]; ++k)
      advanceLink(out_links[k], a, b);
  }

  // Closure at each suction node j: x_j = sum C (alpha + beta . x) / sum C over its inflows, or
  // its last temperature when nothing flows in. Every cell passes at most C_flow / (C/dt +
  // C_flow) < 1 of its inlet on, so the rows of beta sum below one: I - B is strictly diagonally
  // dominant, and elimination without pivoting is stable. m is the number of CDUs on the loop.
  std::vector<double>& M = closure;
  const std::size_t w = m + 1;
  for (std::size_t j = 0; j < m; ++j) {
    const Index n = tears[j];
    double* row = &M[j * w];
    std::fill_n(row, w, 0.0);
    double C_sum = 0.0;
    for (std::uint32_t k = in_begin[n]; k < in_begin[n + 1]; ++k) {
      const Index l = in_links[k];
      const std::uint32_t last = links[l].cell_end - 1;
      const double C = C_link[l];
      C_sum += C;
      row[m] += C * cells.alpha[last];
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
      row[m] = node_T[n];
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
      s -= M[k * w + c] * x[c];
    x[k] = s / M[k * w + k];
  }
  const double* xs = x.data();
  auto affine = [&](double a, const double* b) {
    for (std::size_t j = 0; j < m; ++j)
      a += b[j] * xs[j];
    return a;
  };

  // Back-substitution, summing the heat stored above 0 degC on the way (the energy balance needs
  // it every cycle; a separate pass would read every cell again).
  double E = 0.0;
  for (std::uint32_t c = cell_begin; c < cell_end; ++c) {
    const double T = affine(cells.alpha[c], cellBeta(c));
    cells.T[c] = T;
    E += cells.C[c] * (T - core::kZeroCelsius_K);
  }
  for (std::uint32_t d = die_begin; d < die_end; ++d) {
    const double T = affine(chips.alpha[d], dieBeta(d));
    chips.T[d] = T;
    E += chips.C[d] * (T - core::kZeroCelsius_K);
  }
  E_stored = E;
  for (std::size_t n = 0; n < n_nodes; ++n)
    node_T[n] = affine(node_alpha[n], &node_beta[n * m]);
}

double CoolantLoop::stored(const LoopContext& ctx) const {
  double E = 0.0;
  for (std::uint32_t c = cell_begin; c < cell_end; ++c)
    E += ctx.cells.C[c] * (ctx.cells.T[c] - core::kZeroCelsius_K);
  for (std::uint32_t d = die_begin; d < die_end; ++d)
    E += ctx.chips.C[d] * (ctx.chips.T[d] - core::kZeroCelsius_K);
  return E;
}

}  // namespace racktwin::thermal::cooling
