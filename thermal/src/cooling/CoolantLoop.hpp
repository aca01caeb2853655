#pragma once
// One secondary coolant loop with one expansion tank: one CDU with its racks (directly or on row
// headers) or a ring main shared by several CDUs. The loop owns its network, its hydraulic
// solver, its links (with their cells and thermal roles) and the heat sweep's state.
//
// Heat transport: every CDU pump's suction node is a tear of the sweep: every directed flow cycle
// passes a pump, so cutting the links into the suction nodes leaves an acyclic flow.
// Temperatures are then affine in the m suction temperatures x (alpha + beta . x), and the m
// closure equations at the suction nodes give x. The sweeps know four thermal roles (Volume,
// HeatSource, Exchanger, ChipPlate), never the kind of component behind a link.
//
// Files: CoolantLoopHydraulics.cpp (solves, flow pattern), CoolingTransport.cpp (the general
// sweep), CoolingSweepSingle.cpp (the single-CDU sweep), CoolingAudit.cpp (the energy audit).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cooling/CduUnit.hpp"
#include "cooling/ChipThermal.hpp"
#include "cooling/Common.hpp"
#include "cooling/EnergyAudit.hpp"
#include "racktwin/core/FlowNetwork.hpp"
#include "racktwin/thermal/Coolant.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::core {
class StateArchive;
}

namespace racktwin::thermal::cooling {

/// The parts of the model a loop works on, besides its own state.
struct LoopContext {
  CoolantCells& cells;
  ChipThermal& chips;
  std::vector<CduUnit>& units;
  std::vector<HeatCoupling>& couplings;
  EnergyAudit& audit;
  // Views written after each solve, in site order.
  std::vector<double>& rack_dp_available;  // Pa across each rack's manifolds
  std::vector<double>& rack_V_flow;        // m3/s through each rack's supply hose
  int& hydraulic_solves;
  int& hydraulic_iterations_max;
  bool general_sweep_only = false;  // validation: every loop takes the general sweep
  double plate_heat_error = 0.0;    // validation of the audit (injectPlateHeatErrorForValidation)
};

struct CoolantLoop {
  std::string name;  // the CDU or ring id, for messages
  core::FlowNetwork network;
  std::unique_ptr<HydraulicSolver> solver;
  std::vector<Link> links;
  Index tank = 0;                      // expansion tank: the pressure reference
  std::vector<std::uint32_t> units;    // CDUs on this loop, in tear order
  std::vector<Index> tears;            // suction node of each CDU
  std::vector<std::int32_t> tear_of;   // per node: its tear index, or -1
  std::vector<Index> exchanger_links;  // links with the Exchanger role
  std::vector<Index> source_links;     // links with the HeatSource role
  std::uint32_t cell_begin = 0, cell_end = 0, die_begin = 0, die_end = 0;
  std::vector<Index> tray_links;             // the supply QD of every tray (tray flow)
  std::vector<std::uint32_t> tray_out_cell;  // each tray's outlet: its return QD's last cell
  std::vector<Index> rack_supply_hose, rack_return_hose;
  std::vector<std::uint32_t> racks;                     // site rack indices served by this loop
  std::vector<Index> rack_supply_tap, rack_return_tap;  // manifold inlet and outlet nodes
  // Flow pattern, rebuilt after each hydraulic solve.
  std::vector<Index> order;
  std::vector<double> C_link;                     // W/K, capacity rate m_flow * cp (0 when no flow)
  std::vector<Index> link_up, link_down;          // upstream/downstream node in the flow direction
  std::vector<std::uint32_t> in_begin, in_links;  // CSR: links flowing into each node
  std::vector<std::uint32_t> out_begin, out_links;  // CSR: links flowing out of each node
  // Affine sweep: value = alpha + beta . x over the m tears; beta rows are m wide.
  std::vector<double> node_alpha, node_beta, node_T, cell_beta, die_beta;
  std::vector<double> closure;  // m x (m + 1) augmented closure system, solved in place
  // Factors of the implicit cells that change only with the step or the flows: 1 / (C/dt +
  // C_flow) per cell of the loop; refreshed when dt or the hydraulic solution changes.
  std::vector<double> cell_inv_diag;
  // Cached with the flows, parallel to in_links: the local index of each inflowing link's last
  // cell and its share of the node's inflow capacity rate (the mixing weight).
  std::vector<std::uint32_t> in_last_cell;
  std::vector<double> in_weight;
  std::vector<std::uint32_t> still_links;  // cached: links that carry no flow
  double E_stored = 0.0;  // J above 0 degC in the loop's cells and dies, from the last sweep
  double E_audit = 0.0;   // E_stored at the last audit (CoolingAudit.cpp)
  // Per die of the loop, cached with the flows for the audit: its plate's cells [begin, end),
  // inlet node, capacity rate and cells' heat capacity.
  std::vector<std::uint32_t> plate_cell_begin, plate_cell_end;
  std::vector<Index> plate_up;
  std::vector<double> plate_C_flow, plate_C_cells;
  double cache_dt = -1.0;
  std::uint64_t version = 0, cache_version = ~std::uint64_t{0};  // hydraulic solves
  std::vector<double> x;                                         // the m suction temperatures
  // A loop with one CDU whose flow runs suction -> pump -> exchanger, and no other exchanger:
  // every beta is a product of flow-only factors, times the exchanger's (which follows the
  // facility side every step) for everything downstream of it. Those flow-only products (gamma)
  // are kept with the cached factors, and a step computes only the alphas
  // (CoolingSweepSingle.cpp). Sized at build.
  struct SingleSweep {
    bool valid = false;  // the flow pattern allows it; refreshed with the cached factors
    // Per cell of the loop (local index): alpha = s + f alpha_in with s = p T_old + sources
    // (s and alpha are formed in the cells' T, where the temperatures then replace them).
    std::vector<double> p, f, gamma;
    // Per die of the loop: D = d0 + d1 T_in with d0 = a D_old + b P; e d0 enters its cell
    // (d0 itself lives only within a sweep, in the thread's scratch).
    std::vector<double> die_a, die_b, die_d1, die_e, die_gamma;
    std::vector<std::uint32_t> die_cell;  // local index of the plate's cell
    std::vector<Index> die_up;            // the plate's inlet node
    std::vector<double> node_gamma;
    // The propagation as one pass over flat arrays in flow order, rebuilt with the flows: for
    // the node at position i of `order`, its start (a tear, a node without inflow, or a mix of
    // its inflows mix[node_in_end[i - 1], node_in_end[i])) and its outflowing links' local cell
    // ranges runs[node_out_end[i - 1], node_out_end[i]). Sized at build (nodes, links).
    enum class Start : std::uint8_t { Mix, Tear, Dry };
    std::vector<Start> node_start;
    std::vector<std::uint32_t> node_in_end, node_out_end;
    std::vector<double> mix_weight;                 // each inflow's share of the node's
    std::vector<std::uint32_t> mix_cell;            // local index of that inflow's last cell
    std::vector<std::uint32_t> run_begin, run_end;  // local cells of each outflowing link
    double Gamma = 0.0;  // the suction node's gamma: x = A / (1 - f_hx Gamma)
    std::uint32_t hx_cell = 0, pump_cell_begin = 0, pump_cell_end = 0;
    Index pump_out = 0;
  } single;
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
  SolveStatus last_status;
  double rack_dp_min = 0.0;  // Pa, least favoured rack's manifold dp at the last solve

  std::size_t width() const noexcept { return tears.size(); }

  // ---- Build (CoolingBuild.cpp) ----
  /// Sizes the sweep's arrays and creates the solver once the network is complete.
  void finish(std::vector<LinkLaw> laws, std::size_t cells_end, std::size_t dies_end);

  // ---- Hydraulics (CoolantLoopHydraulics.cpp) ----
  void solveHydraulics(LoopContext& ctx);
  /// O(1) unless a solve is due: a standby pump whose time has come, or the viscosity.
  void updateHydraulics(LoopContext& ctx, double t);
  void updateDieResistances(LoopContext& ctx) const;

  // ---- Transport (CoolingTransport.cpp, CoolingSweepSingle.cpp) ----
  /// One implicit step of length dt with the couplings as their owners set them.
  void sweep(LoopContext& ctx, double dt);
  /// Heat stored in the loop's cells and dies above 0 degC, summed from the temperatures.
  double stored(const LoopContext& ctx) const;

  // ---- Energy audit (CoolingAudit.cpp) ----
  /// Checks the last sweep of length h ending at t_end; throws core::RuntimeError when a residual
  /// exceeds kAuditTolerance.
  void audit(LoopContext& ctx, std::uint32_t loop_index, double t_end, double h);

  void visitState(core::StateArchive& archive);

 private:
  void refreshSweepFactors(LoopContext& ctx, double dt);
  /// Writes each still cell's temperature into alpha[c] (c a site cell index).
  void closeStillLinks(LoopContext& ctx, double dt, double* alpha);
  void finishSweep(LoopContext& ctx);
  void prepareSingleSweep(LoopContext& ctx, double dt);
  void buildPropagation();
  void sweepSingle(LoopContext& ctx, double dt);
  template <std::size_t W>
  void sweepWidth(LoopContext& ctx, double dt);
  template <bool kSource>
  void propagateSingle(double tear_value, const double* s, const double* f, const double* dry_value,
                       double* cell_v, double* node_v) const;
};

}  // namespace racktwin::thermal::cooling
