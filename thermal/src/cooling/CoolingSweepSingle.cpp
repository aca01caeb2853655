// The heat sweep of a loop with one CDU, the common case (in-rack and in-row CDUs).
//
// The general sweep (CoolingTransport.cpp) carries every temperature as alpha + beta x, where x
// is the suction temperature, and recomputes both in every step. With one CDU whose flow runs
// suction -> pump -> exchanger -> racks -> suction, beta is a product of factors along the flow
// path. All of them depend only on the flows and the step length except the exchanger's, which
// follows the facility side (valve, facility flow) every step, and every path from the pump
// outlet passes the exchanger. So beta = f_hx gamma downstream of the exchanger and beta = gamma
// upstream of it, where gamma is cached with the flows. A step then computes only the alphas,
// in one multiply-add per cell on the path (the rest of each cell's equation does not depend on
// its inlet and is computed first, in a pass without dependencies), the scalar closure, and the
// back-substitution. The result is the same implicit step as the general sweep's, to round-off
// (checked by tests/thermal against the general sweep). A loop with another exchanger (a
// rear-door coil, whose factor follows the air side every step) takes the general sweep.
#include <algorithm>

#include "cooling/CoolantLoop.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::thermal::cooling {

namespace {
constexpr std::uint32_t kPumpCellsMax = 16;  // a pump link's cells (a component has a few)
}  // namespace

/// v = s + f v_in along the flow order, mixing at the nodes by the cached weights; the tear node
/// starts at `tear_value` and a node without inflow at `dry_value[n]` (or 0 without it).
/// `kSource` = false: s = 0 (the gamma pass). One pass over the flat program of
/// buildPropagation, in order: no lookups by node or link id.
template <bool kSource>
void CoolantLoop::propagateSingle(double tear_value, const double* s, const double* f,
                                  const double* dry_value, double* cell_v, double* node_v) const {
  using Start = SingleSweep::Start;
  const Start* start = single.node_start.data();
  const std::uint32_t* in_end = single.node_in_end.data();
  const std::uint32_t* out_end = single.node_out_end.data();
  const double* weight = single.mix_weight.data();
  const std::uint32_t* mix_cell = single.mix_cell.data();
  const std::uint32_t* run_begin = single.run_begin.data();
  const std::uint32_t* run_end = single.run_end.data();
  const Index* node = order.data();
  const std::size_t n_order = order.size();
  std::uint32_t j = 0, k = 0;
  for (std::size_t i = 0; i < n_order; ++i) {
    const Index n = node[i];
    double a = 0.0;
    if (start[i] == Start::Tear) {
      a = tear_value;
    } else if (start[i] == Start::Dry) {
      a = dry_value != nullptr ? dry_value[n] : 0.0;  // no inflow: the junction keeps its value
    } else {
      for (const std::uint32_t end = in_end[i]; j < end; ++j)
        a += weight[j] * cell_v[mix_cell[j]];
    }
    node_v[n] = a;
    for (const std::uint32_t end = out_end[i]; k < end; ++k) {
      double v = a;
      for (std::uint32_t c = run_begin[k]; c < run_end[k]; ++c) {
        v = kSource ? s[c] + f[c] * v : f[c] * v;
        cell_v[c] = v;
      }
    }
  }
}

void CoolantLoop::buildPropagation() {
  // The mixing entries and outflowing links of each node, copied into flow order, with the
  // same weights and in the same order as the node-indexed arrays: the same sums.
  using Start = SingleSweep::Start;
  std::uint32_t j = 0, k = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Index n = order[i];
    if (tear_of[n] >= 0) {
      single.node_start[i] = Start::Tear;
    } else if (in_begin[n] == in_begin[n + 1]) {
      single.node_start[i] = Start::Dry;
    } else {
      single.node_start[i] = Start::Mix;
      for (std::uint32_t e = in_begin[n]; e < in_begin[n + 1]; ++e, ++j) {
        single.mix_weight[j] = in_weight[e];
        single.mix_cell[j] = in_last_cell[e];
      }
    }
    single.node_in_end[i] = j;
    for (std::uint32_t e = out_begin[n]; e < out_begin[n + 1]; ++e, ++k) {
      const Link& link = links[out_links[e]];
      single.run_begin[k] = link.cell_begin - cell_begin;
      single.run_end[k] = link.cell_end - cell_begin;
    }
    single.node_out_end[i] = k;
  }
}

void CoolantLoop::prepareSingleSweep(LoopContext& ctx, double dt) {
  single.valid = false;
  if (width() != 1 || ctx.general_sweep_only || exchanger_links.size() != 1) return;
  const CduUnit& unit = ctx.units[units.front()];
  const Index pump = unit.pump_link;
  const Index hx = unit.hx_link;
  const auto count = [](const std::vector<std::uint32_t>& begin, Index n) {
    return begin[n + 1] - begin[n];
  };
  // The path the factorisation relies on: the suction feeds only the pump, the pump only the
  // exchanger, and the loop returns into the suction. Anything else (a stopped pump, reversed
  // flow) takes the general sweep.
  if (C_link[pump] == 0.0 || C_link[hx] == 0.0) return;
  const Index suction = unit.suction;
  const Index pump_out = link_down[pump];
  if (link_up[pump] != suction || link_up[hx] != pump_out) return;
  if (count(out_begin, suction) != 1 || count(in_begin, suction) == 0) return;
  if (count(in_begin, pump_out) != 1 || count(out_begin, pump_out) != 1) return;
  if (links[pump].cell_end - links[pump].cell_begin > kPumpCellsMax) return;

  const std::vector<double>& cell_C = ctx.cells.C;
  const ChipThermal& chips = ctx.chips;
  const std::uint32_t cell0 = cell_begin;
  const std::uint32_t die0 = die_begin;
  const double inv_dt = 1.0 / dt;
  for (Index l = 0; l < links.size(); ++l) {
    const Link& link = links[l];
    const double C_flow = C_link[l];
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c) {
      const std::uint32_t lc = c - cell0;
      const double inv_diag = cell_inv_diag[lc];
      single.p[lc] = cell_C[c] * inv_dt * inv_diag;
      single.f[lc] = C_flow * inv_diag;
      single.gamma[lc] = 0.0;  // links without flow keep it
    }
    if (link.role == ThermalRole::ChipPlate) {
      const auto d = static_cast<std::size_t>(link.die);
      const std::size_t dl = d - die0;
      const std::uint32_t lc = link.cell_begin - cell0;
      const double g = chips.g[d];
      const double d1 = g * chips.inv[d];
      // The heat into the cell, g (D - T_in) = g d0 + g (d1 - 1) T_in (see sweepWidth).
      single.die_a[dl] = chips.store[d] * chips.inv[d];
      single.die_b[dl] = chips.inv[d];
      single.die_d1[dl] = d1;
      single.die_e[dl] = g * cell_inv_diag[lc] * (1.0 + ctx.plate_heat_error);
      single.die_cell[dl] = lc;
      single.die_up[dl] = link_up[l];
      if (C_flow > 0.0) single.f[lc] = (C_flow + g * (d1 - 1.0)) * cell_inv_diag[lc];
    }
  }
  buildPropagation();
  single.hx_cell = links[hx].cell_begin - cell0;
  single.pump_cell_begin = links[pump].cell_begin - cell0;
  single.pump_cell_end = links[pump].cell_end - cell0;
  single.pump_out = pump_out;

  // gamma: the betas with the exchanger's factor taken out (set to one).
  std::fill(single.node_gamma.begin(), single.node_gamma.end(), 0.0);
  single.f[single.hx_cell] = 1.0;
  propagateSingle<false>(1.0, nullptr, single.f.data(), nullptr, single.gamma.data(),
                         single.node_gamma.data());
  for (std::size_t dl = 0; dl < single.die_gamma.size(); ++dl) {
    const Index l = chips.dies[die0 + dl].link;
    single.die_gamma[dl] =
        C_link[l] > 0.0 ? single.die_d1[dl] * single.node_gamma[single.die_up[dl]] : 0.0;
  }
  single.Gamma = 0.0;
  for (std::uint32_t k = in_begin[suction]; k < in_begin[suction + 1]; ++k)
    single.Gamma += in_weight[k] * single.gamma[in_last_cell[k]];
  single.valid = true;
}

void CoolantLoop::sweepSingle(LoopContext& ctx, double dt) {
  CoolantCells& cells = ctx.cells;
  ChipThermal& chips = ctx.chips;
  const CduUnit& unit = ctx.units[units.front()];
  const HeatCoupling& pump = ctx.couplings[unit.pump_coupling];
  const HeatCoupling& exchanger = ctx.couplings[unit.hx_coupling];
  const std::uint32_t cell0 = cell_begin;
  const std::uint32_t die0 = die_begin;
  const std::size_t n_cells = cell_end - cell0;
  const std::size_t n_dies = die_end - die0;
  // s, then alpha, then the temperature, all in the cells' T (T was swapped with T_old at the
  // step's start and holds nothing needed): one array streams through memory, not three.
  double* T = cells.T.data() + cell0;
  double* s = T;
  double* f = single.f.data();
  const double* p = single.p.data();
  const double* T_old = cells.T_old.data() + cell0;

  // Each cell's equation without its inlet term: stored heat, then the sources of the plates,
  // the pump and the exchanger. No pass-to-pass dependency: these loops vectorise.
  for (std::size_t c = 0; c < n_cells; ++c)
    s[c] = p[c] * T_old[c];
  const double* D_old = chips.T_old.data() + die0;
  const double* P = chips.P.data() + die0;
  // Each die's d0 is needed again only in this sweep: it is kept in the thread's scratch, which
  // stays in its cache, not in an array of the loop's that would travel to memory every step.
  thread_local std::vector<double> d0_scratch;
  if (d0_scratch.size() < n_dies) d0_scratch.resize(n_dies);  // grows to the largest loop once
  double* die_d0 = d0_scratch.data();
  for (std::size_t dl = 0; dl < n_dies; ++dl) {
    const double d0 = single.die_a[dl] * D_old[dl] + single.die_b[dl] * P[dl];
    die_d0[dl] = d0;
    s[single.die_cell[dl]] += single.die_e[dl] * d0;
  }
  const double inv_diag_pump = cell_inv_diag[single.pump_cell_begin];
  s[single.pump_cell_begin] += pump.q * inv_diag_pump;
  // Exchanger (inlet-referenced): -G (T_in - T_other) moves G T_other into the source and -G
  // into the inlet factor.
  const double inv_diag_hx = cell_inv_diag[single.hx_cell];
  s[single.hx_cell] += exchanger.G * exchanger.T_other * inv_diag_hx;
  const double f_hx = (C_link[unit.hx_link] - exchanger.G) * inv_diag_hx;
  f[single.hx_cell] = f_hx;

  // The alphas along the flow (tear at 0). The plates' case nodes take theirs from their inlets
  // in the back-substitution below, unless a plate carries no flow (then closeStillLinks forms
  // its die's alpha, and all the dies' alphas are formed here as the general sweep does).
  double* alpha = T;  // in place: each cell's s is read before its alpha is written
  propagateSingle<true>(0.0, s, f, node_T.data(), alpha, node_alpha.data());
  const double* die_d1 = single.die_d1.data();
  const Index* die_up = single.die_up.data();
  bool still_plate = false;
  for (const Index l : still_links)
    still_plate = still_plate || links[l].role == ThermalRole::ChipPlate;
  if (still_plate) {
    for (std::size_t dl = 0; dl < n_dies; ++dl)
      chips.alpha[die0 + dl] = die_d0[dl] + die_d1[dl] * node_alpha[die_up[dl]];
  }

  // Links without flow: closed cells (their gammas are zero, so the alpha is the temperature).
  closeStillLinks(ctx, dt, cells.T.data());

  // Closure at the suction: x = A + f_hx Gamma x.
  const Index suction = unit.suction;
  double A = 0.0;
  for (std::uint32_t k = in_begin[suction]; k < in_begin[suction + 1]; ++k)
    A += in_weight[k] * alpha[in_last_cell[k]];
  const double x0 = A / (1.0 - f_hx * single.Gamma);
  x[0] = x0;
  const double y = f_hx * x0;  // the multiplier of gamma downstream of the exchanger

  // Back-substitution, summing the heat stored above 0 degC on the way.
  const double* gamma = single.gamma.data();
  const double* C = cells.C.data() + cell0;
  double E = 0.0;
  // The pump's cells (upstream of the exchanger: beta = gamma) take x0 where the rest take y;
  // their alphas are kept before the pass below replaces them.
  const std::uint32_t pump_begin = single.pump_cell_begin, pump_end = single.pump_cell_end;
  double pump_alpha[kPumpCellsMax];  // prepareSingleSweep bounds the pump's cells
  std::copy(alpha + pump_begin, alpha + pump_end, pump_alpha);
  for (std::size_t c = 0; c < n_cells; ++c) {
    T[c] = alpha[c] + gamma[c] * y;
    E += C[c] * (T[c] - core::kZeroCelsius_K);
  }
  for (std::uint32_t c = pump_begin; c < pump_end; ++c) {
    const double T_up = pump_alpha[c - pump_begin] + gamma[c] * x0;
    E += C[c] * (T_up - T[c]);
    T[c] = T_up;
  }
  const double* die_gamma = single.die_gamma.data();
  const double* C_d = chips.C.data() + die0;
  double* D = chips.T.data() + die0;
  if (still_plate) {
    const double* die_alpha = chips.alpha.data() + die0;
    for (std::size_t dl = 0; dl < n_dies; ++dl) {
      D[dl] = die_alpha[dl] + die_gamma[dl] * y;
      E += C_d[dl] * (D[dl] - core::kZeroCelsius_K);
    }
  } else {
    // The same sums in the same order, the alpha formed in place: one pass over the dies.
    for (std::size_t dl = 0; dl < n_dies; ++dl) {
      const double die_alpha = die_d0[dl] + die_d1[dl] * node_alpha[die_up[dl]];
      D[dl] = die_alpha + die_gamma[dl] * y;
      E += C_d[dl] * (D[dl] - core::kZeroCelsius_K);
    }
  }
  E_stored = E;
  const std::size_t n_nodes = network.nodeCount();
  for (std::size_t n = 0; n < n_nodes; ++n)
    node_T[n] = node_alpha[n] + single.node_gamma[n] * y;
  node_T[suction] = x0;
  node_T[single.pump_out] = node_alpha[single.pump_out] + single.node_gamma[single.pump_out] * x0;
}

}  // namespace racktwin::thermal::cooling
