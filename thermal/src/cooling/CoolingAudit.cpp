// The energy audit of every coolant loop, after every sweep, from quantities the sweep does not
// book. The run's energy balance (EnergyLedger) adds up the heat the model puts in (chip
// powers), the heat the exchangers' conductances take out and the stored heat; a sweep whose
// temperatures do not satisfy the cells' own equations can still close that balance. The audit
// instead measures enthalpy flows, m_flow cp (T_out - T_in), from the swept temperatures and
// the flows of the hydraulic solution, and compares them with the physical sources:
//  - every cold plate: the heat the chip gave up, P h - C_d (D - D_old), against the coolant's
//    enthalpy rise across the plate plus the heat its cells stored;
//  - every exchanger (a CDU's plate exchanger, a rear-door or air coil): the coolant's enthalpy
//    drop across it (less the heat its cells stored) against the heat the other side received;
//  - the whole loop: the change of its stored heat (cells and dies) against the chip heat, the
//    heat sources (pumps) and the exchangers' enthalpy drops.
// The checks cost O(plates + exchangers) per loop and cycle; the stored heat comes from the
// sweep's back-substitution sum, which is a sum over the temperatures, not a booked flow.
// A residual above kAuditTolerance of the check's own scale ends the run (core::RuntimeError
// naming the loop, the component and the time): a result the audit cannot confirm is not given.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "cooling/CoolantLoop.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::thermal::cooling {

namespace {
// Relative round-off allowed in a sum of terms of the size of C T: some 1e4 ulps.
constexpr double kRoundoff = 1e-12;

std::string formatNumber(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}
}  // namespace

double EnergyAudit::relativeResidual(double residual, double scale, double roundoff) {
  // Heat stored is C (T - T_old) with T near 300 K, so a check whose terms are tiny (an unpowered
  // chip cooling slowly) still carries the round-off of those differences.
  return std::abs(residual) / std::max({scale, roundoff / kAuditTolerance, 1e-300});
}

bool EnergyAudit::passes(double relative) {
  return relative <= kAuditTolerance;  // NaN fails here too
}

void EnergyAudit::fail(double residual, double scale, double relative, double t_end,
                       std::string_view loop_name, const std::string& where) {
  throw core::RuntimeError("energy audit failed at t = " + formatNumber(t_end)
                           + " s in the coolant loop of " + std::string(loop_name) + ", " + where
                           + ": residual " + formatNumber(residual) + " J of " + formatNumber(scale)
                           + " J (relative " + formatNumber(relative) + ", tolerance "
                           + formatNumber(kAuditTolerance) + ")");
}

void CoolantLoop::audit(LoopContext& ctx, std::uint32_t loop_index, double t_end, double h) {
  const CoolantCells& cells = ctx.cells;
  const ChipThermal& chips = ctx.chips;
  EnergyAudit& record = ctx.audit;
  const auto cellCapacity = [&](const Link& link) {
    double C = 0.0;
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c)
      C += cells.C[c];
    return C;
  };
  const auto cellStored = [&](const Link& link) {
    double E = 0.0, magnitude = 0.0;
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c) {
      const double dE = cells.C[c] * (cells.T[c] - cells.T_old[c]);
      E += dE;
      magnitude += std::abs(dE);
    }
    return std::pair{E, magnitude};
  };
  // The plates: the loop's dies in order (one plate link each). The worst plate of the sweep is
  // kept in locals and recorded once, so the loop stays a tight pass over contiguous arrays.
  double chip_heat = 0.0, chip_scale = 0.0;  // heat the chips gave up, and its magnitude
  // First pass, without branches or divisions: the largest excess of a plate's residual over
  // 1e-11 of its scale. Plates close to 1e-13; only when one does not (or a value is NaN) does
  // the second pass form the relative residuals and name the worst plate.
  const std::size_t n_dies = die_end - die_begin;
  const std::uint32_t* cb = plate_cell_begin.data();
  const std::uint32_t* ce = plate_cell_end.data();
  const Index* up = plate_up.data();
  const double* C_flow = plate_C_flow.data();
  const double* T_node = node_T.data();
  const double* T = cells.T.data();
  const double* T_old = cells.T_old.data();
  const double* C = cells.C.data();
  const double* P = chips.P.data() + die_begin;
  const double* C_d = chips.C.data() + die_begin;
  const double* D = chips.T.data() + die_begin;
  const double* D_old = chips.T_old.data() + die_begin;
  const auto plate = [&](std::size_t k, double& residual, double& scale) {
    const double E_chip = P[k] * h;
    const double dE_die = C_d[k] * (D[k] - D_old[k]);
    const double enthalpy = C_flow[k] * (T[ce[k] - 1] - T_node[up[k]]) * h;
    double stored_cells = 0.0, stored_magnitude = 0.0;
    for (std::uint32_t c = cb[k]; c < ce[k]; ++c) {
      const double dE = C[c] * (T[c] - T_old[c]);
      stored_cells += dE;
      stored_magnitude += std::abs(dE);
    }
    residual = E_chip - dE_die - (enthalpy + stored_cells);
    scale = std::abs(E_chip) + std::abs(dE_die) + std::abs(enthalpy) + stored_magnitude;
    return E_chip;
  };
  double excess = -1.0;
  for (std::size_t k = 0; k < n_dies; ++k) {
    double residual, scale;
    const double E_chip = plate(k, residual, scale);
    const double e = std::abs(residual) - 1e-11 * scale;
    excess = e > excess || e != e ? e : excess;  // NaN is kept
    chip_heat += E_chip;
    chip_scale += std::abs(E_chip);
  }
  record.checks += n_dies;
  if (!(excess <= 0.0)) {
    double worst = -1.0, worst_residual = 0.0, worst_scale = 1.0, worst_roundoff = 0.0;
    std::size_t worst_k = 0;
    for (std::size_t k = 0; k < n_dies; ++k) {
      double residual, scale;
      plate(k, residual, scale);
      const double roundoff =
          kRoundoff * std::abs(T_node[up[k]]) * (C_d[k] + plate_C_cells[k] + C_flow[k] * h);
      const double relative = EnergyAudit::relativeResidual(residual, scale, roundoff);
      if (!(relative <= worst)) {
        worst = relative;
        worst_residual = residual;
        worst_scale = scale;
        worst_roundoff = roundoff;
        worst_k = k;
      }
    }
    --record.checks;  // record() counts the worst plate again
    const auto die = die_begin + static_cast<std::uint32_t>(worst_k);
    record.record(worst_residual, worst_scale, worst_roundoff, t_end, loop_index, name,
                  EnergyAudit::Check::ColdPlate, die, [&] {
                    return "the cold plate of " + chips.describe(die)
                           + ": heat the chip gave up vs the coolant's enthalpy rise";
                  });
  }
  double hx_heat = 0.0, hx_scale = 0.0, source_heat = 0.0;
  for (const Index l : exchanger_links) {
    const Link& link = links[l];
    const double T_in = node_T[link_up[l]];
    const double T_out = cells.T[link.cell_end - 1];
    const double drop = C_link[l] * (T_in - T_out) * h;
    const auto [stored_cells, stored_magnitude] = cellStored(link);
    const double given = drop - stored_cells;  // heat the coolant gave up in the exchanger
    const double booked = ctx.couplings[static_cast<std::size_t>(link.coupling)].Q_out * h;
    const double scale = std::abs(drop) + stored_magnitude + std::abs(booked);
    const double roundoff = kRoundoff * std::abs(T_in) * (cellCapacity(link) + C_link[l] * h);
    record.record(given - booked, scale, roundoff, t_end, loop_index, name,
                  EnergyAudit::Check::Exchanger, l, [&] {
                    return "the exchanger " + network.linkId(l)
                           + ": the coolant's enthalpy drop vs the heat its other side received";
                  });
    hx_heat += given;
    hx_scale += std::abs(drop) + stored_magnitude;
  }
  for (const Index l : source_links)
    source_heat += ctx.couplings[static_cast<std::size_t>(links[l].coupling)].q * h;
  const double dE = E_stored - E_audit;
  const double residual = dE - (chip_heat + source_heat - hx_heat);
  const double scale = std::abs(dE) + chip_scale + source_heat + hx_scale;
  // The stored heat is a difference of two sums of some 1e8 J.
  const double roundoff = kRoundoff * (std::abs(E_stored) + std::abs(E_audit));
  record.record(
      residual, scale, roundoff, t_end, loop_index, name, EnergyAudit::Check::Loop, loop_index, [] {
        return std::string("the loop's stored heat vs chip heat + pump heat - exchanger heat");
      });
  E_audit = E_stored;
}

}  // namespace racktwin::thermal::cooling
