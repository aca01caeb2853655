// The energy audit of every coolant loop, after every sweep, from quantities the sweep does not
// book. The run's energy balance (CoolingModel::cycle) adds up the heat the model puts in (chip
// powers), the heat the exchangers' conductances take out and the stored heat; a sweep whose
// temperatures do not satisfy the cells' own equations can still close that balance. The audit
// instead measures enthalpy flows, m_flow cp (T_out - T_in), from the swept temperatures and
// the flows of the hydraulic solution, and compares them with the physical sources:
//  - every cold plate: the heat the chip gave up, P h - C_d (D - D_old), against the coolant's
//    enthalpy rise across the plate plus the heat its cells stored;
//  - every exchanger: the coolant's enthalpy drop across its secondary side (less the heat its
//    cells stored) against the heat the facility side received (Q_hx);
//  - the whole loop: the change of its stored heat (cells and dies) against the chip heat, the
//    pumps' hydraulic heat and the exchangers' enthalpy drops.
// The checks cost O(plates + exchangers) per loop and cycle; the stored heat comes from the
// sweep's back-substitution sum, which is a sum over the temperatures, not a booked flow.
// A residual above kAuditTolerance of the check's own scale ends the run (core::RuntimeError
// naming the loop, the component and the time): a result the audit cannot confirm is not given.
#include <algorithm>
#include <cmath>
#include <string>

#include "CoolingModelImpl.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::thermal {

using cooling::Index;
using cooling::LinkRole;

namespace {
// Relative round-off allowed in a sum of terms of the size of C T: some 1e4 ulps.
constexpr double kRoundoff = 1e-12;

std::string formatNumber(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}
}  // namespace

double CoolingModel::Impl::loopStored(const Loop& loop) const {
  double E = 0.0;
  for (std::uint32_t c = loop.cell_begin; c < loop.cell_end; ++c)
    E += cell_C[c] * (cell_T[c] - core::kZeroCelsius_K);
  for (std::uint32_t d = loop.die_begin; d < loop.die_end; ++d)
    E += die_C[d] * (die_T[d] - core::kZeroCelsius_K);
  return E;
}

void CoolingModel::Impl::recordAudit(double residual, double scale, double roundoff, double t_end,
                                     std::uint32_t loop_index, AuditCheck check,
                                     std::uint32_t component) {
  // The scale is the sum of the magnitudes of the check's terms. Heat stored is C (T - T_old)
  // with T near 300 K, so a check whose terms are tiny (an unpowered chip cooling slowly) still
  // carries the round-off of those differences: `roundoff` (J) bounds it, and the relative
  // residual is taken against at least roundoff / tolerance.
  const double relative =
      std::abs(residual) / std::max({scale, roundoff / cooling::kAuditTolerance, 1e-300});
  ++audit.checks;
  if (!(relative <= audit.worst)) {
    audit.worst = relative;
    audit.worst_time = t_end;
    audit.worst_loop = loop_index;
    audit.worst_check = check;
    audit.worst_component = component;
  }
  if (relative <= cooling::kAuditTolerance) return;  // NaN fails here too
  const Loop& loop = loops[loop_index];
  std::string where;
  switch (check) {
    case AuditCheck::ColdPlate: {
      const Die& die = dies[component];
      const char* kind = die.kind == cooling::ChipKind::Gpu   ? "GPU"
                         : die.kind == cooling::ChipKind::Cpu ? "CPU"
                                                              : "NVSwitch";
      where = std::string("the cold plate of ") + kind + " " + std::to_string(die.chip)
              + ": heat the chip gave up vs the coolant's enthalpy rise";
      break;
    }
    case AuditCheck::Exchanger:
      where = "the exchanger of CDU " + units[component].cdu->id.str()
              + ": the coolant's enthalpy drop vs the heat into facility water";
      break;
    case AuditCheck::Loop:
      where = "the loop's stored heat vs chip heat + pump heat - exchanger heat";
      break;
  }
  throw core::RuntimeError("energy audit failed at t = " + formatNumber(t_end)
                           + " s in the coolant loop of " + loop.name + ", " + where + ": residual "
                           + formatNumber(residual) + " J of " + formatNumber(scale)
                           + " J (relative " + formatNumber(relative) + ", tolerance "
                           + formatNumber(cooling::kAuditTolerance) + ")");
}

void CoolingModel::Impl::auditLoop(std::uint32_t loop_index, double t_end, double h) {
  Loop& loop = loops[loop_index];
  // Exchangers, one per CDU of the loop.
  const auto cellCapacity = [&](const Link& link) {
    double C = 0.0;
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c)
      C += cell_C[c];
    return C;
  };
  const auto cellStored = [&](const Link& link) {
    double E = 0.0, magnitude = 0.0;
    for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c) {
      const double dE = cell_C[c] * (cell_T[c] - cell_T_old[c]);
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
  const std::size_t n_dies = loop.die_end - loop.die_begin;
  const std::uint32_t* cell_begin = loop.plate_cell_begin.data();
  const std::uint32_t* cell_end = loop.plate_cell_end.data();
  const Index* up = loop.plate_up.data();
  const double* C_flow = loop.plate_C_flow.data();
  const double* node_T = loop.node_T.data();
  const double* T = cell_T.data();
  const double* T_old = cell_T_old.data();
  const double* C = cell_C.data();
  const double* P = die_P.data() + loop.die_begin;
  const double* C_d = die_C.data() + loop.die_begin;
  const double* D = die_T.data() + loop.die_begin;
  const double* D_old = die_T_old.data() + loop.die_begin;
  const auto plate = [&](std::size_t k, double& residual, double& scale) {
    const double E_chip = P[k] * h;
    const double dE_die = C_d[k] * (D[k] - D_old[k]);
    const double enthalpy = C_flow[k] * (T[cell_end[k] - 1] - node_T[up[k]]) * h;
    double stored = 0.0, stored_magnitude = 0.0;
    for (std::uint32_t c = cell_begin[k]; c < cell_end[k]; ++c) {
      const double dE = C[c] * (T[c] - T_old[c]);
      stored += dE;
      stored_magnitude += std::abs(dE);
    }
    residual = E_chip - dE_die - (enthalpy + stored);
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
  audit.checks += n_dies;
  if (!(excess <= 0.0)) {
    double worst = -1.0, worst_residual = 0.0, worst_scale = 1.0, worst_roundoff = 0.0;
    std::size_t worst_k = 0;
    for (std::size_t k = 0; k < n_dies; ++k) {
      double residual, scale;
      plate(k, residual, scale);
      const double roundoff =
          kRoundoff * std::abs(node_T[up[k]]) * (C_d[k] + loop.plate_C_cells[k] + C_flow[k] * h);
      const double relative =
          std::abs(residual)
          / std::max(std::max(scale, roundoff / cooling::kAuditTolerance), 1e-300);
      if (!(relative <= worst)) {
        worst = relative;
        worst_residual = residual;
        worst_scale = scale;
        worst_roundoff = roundoff;
        worst_k = k;
      }
    }
    --audit.checks;  // recordAudit counts the worst plate again
    recordAudit(worst_residual, worst_scale, worst_roundoff, t_end, loop_index,
                AuditCheck::ColdPlate, loop.die_begin + static_cast<std::uint32_t>(worst_k));
  }
  double hx_heat = 0.0, hx_scale = 0.0, pump_heat = 0.0;
  for (const std::uint32_t u : loop.units) {
    const Unit& unit = units[u];
    const Link& link = loop.links[unit.hx_link];
    const double T_in = loop.node_T[loop.link_up[unit.hx_link]];
    const double T_out = cell_T[link.cell_end - 1];
    const double drop = loop.C_link[unit.hx_link] * (T_in - T_out) * h;
    const auto [stored_cells, stored_magnitude] = cellStored(link);
    const double given = drop - stored_cells;  // heat the coolant gave up in the exchanger
    const double booked = unit.Q_hx * h;
    const double scale = std::abs(drop) + stored_magnitude + std::abs(booked);
    const double roundoff =
        kRoundoff * std::abs(T_in) * (cellCapacity(link) + loop.C_link[unit.hx_link] * h);
    recordAudit(given - booked, scale, roundoff, t_end, loop_index, AuditCheck::Exchanger, u);
    hx_heat += given;
    hx_scale += std::abs(drop) + stored_magnitude;
    pump_heat += unit.pump_P_hydraulic * h;
  }
  const double dE = loop.E_stored - loop.E_audit;
  const double residual = dE - (chip_heat + pump_heat - hx_heat);
  const double scale = std::abs(dE) + chip_scale + pump_heat + hx_scale;
  // The stored heat is a difference of two sums of some 1e8 J.
  const double roundoff = kRoundoff * (std::abs(loop.E_stored) + std::abs(loop.E_audit));
  recordAudit(residual, scale, roundoff, t_end, loop_index, AuditCheck::Loop, loop_index);
  loop.E_audit = loop.E_stored;
}

}  // namespace racktwin::thermal
