#pragma once
// The vocabulary the parts of the cooling model share (thermal/src/cooling/): indices, the
// numerical constants of the loops, a loop's links and the heat couplings through which
// components put heat into a link's first cell.
#include <cstdint>
#include <limits>
#include <vector>

#include "racktwin/core/FlowNetwork.hpp"
#include "racktwin/thermal/CoolantComponent.hpp"

namespace racktwin::thermal::cooling {

using Index = core::FlowNetwork::Index;
constexpr double kFlowThreshold = 1e-9;          // m3/s: below this a link carries no heat
constexpr double kVolumeSmallest = 1e-6;         // m3: every cell holds at least 1 mL
constexpr double kQuickDisconnectVolume = 5e-6;  // m3, estimate: a UQD-class coupling
// Flow convergence of the loop solves, sum abs(dQ) / sum abs(Q). Continuity is exact at every
// iteration, so this bounds only the error in the link laws; tighter values reach round-off in
// networks with near-lossless headers, where flows follow from tiny pressure differences.
constexpr double kHydraulicTolerance = 1e-7;
// Default longest interval between two samples of the CDU valve controller, s
// (core::SimulationSpec::control_step, CoolingModel::advance).
constexpr double kControlStep = 2.0;
// The loop's viscosity follows its mean temperature (mean of supply and return): the hydraulics
// are solved again when that mean has moved more than this since the last solve.
constexpr double kViscosityResolveDelta_K = 2.0;
constexpr double kNever = std::numeric_limits<double>::infinity();
// Energy audit (CoolingAudit.cpp): the largest residual of a check, relative to the sum of the
// magnitudes of its terms. Round-off of the sweeps stays below 1e-11 (tests/thermal measure it);
// an error in a sweep's equations is many orders above.
constexpr double kAuditTolerance = 1e-8;

enum class ChipKind : std::uint8_t { Gpu, Cpu, Switch };

/// A link of a loop: its upwind cells (a contiguous range of CoolantCells) and how it exchanges
/// heat. The sweeps read the role, never the component's kind.
struct Link {
  std::uint32_t cell_begin = 0, cell_end = 0;
  ThermalRole role = ThermalRole::Volume;
  std::int32_t die = -1;       // ChipPlate: its die (ChipThermal)
  std::int32_t coupling = -1;  // HeatSource, Exchanger: its slot in the model's HeatCouplings
};

/// What a HeatSource or Exchanger link puts into its first cell, written by the component's owner
/// before each sweep (q; G and T_other) and completed by the sweep (Q_out).
struct HeatCoupling {
  double q = 0.0;        // W into the coolant (HeatSource)
  double G = 0.0;        // W/K, inlet-referenced: Q_out = G (T_in - T_other) (Exchanger)
  double T_other = 0.0;  // K, the other side's inlet temperature (Exchanger)
  double Q_out = 0.0;    // W out of the coolant in the last sweep (Exchanger)
};

/// Heat capacities and temperatures of every coolant cell of every loop (each loop's cells are
/// contiguous). C is in J/K once the loop's fluid is known (m3 while it is being built).
struct CoolantCells {
  std::vector<double> C, T, T_old, alpha;
};

}  // namespace racktwin::thermal::cooling
