#pragma once
// Internal state of CoolingModel, shared by its translation units:
//  - CoolingBuild.cpp: the coolant networks from the site (loops, rings, racks, trays, plates);
//  - CoolingTransport.cpp: the hydraulic solves, the flow pattern and the implicit heat sweep;
//  - CoolingModel.cpp: the public model (controls, steps, events, channels, summary).
//
// A loop is one secondary coolant network with one expansion tank: either one CDU with its racks
// (directly or on row headers) or a ring main shared by several CDUs. Every CDU pump's suction
// node is a tear of the heat sweep: every directed flow cycle passes a pump, so cutting the links
// into the suction nodes leaves an acyclic flow. Temperatures are then affine in the m suction
// temperatures x (alpha + beta . x), and the m closure equations at the suction nodes give x.
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "racktwin/core/FlowNetwork.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/thermal/ActuatorFilter.hpp"
#include "racktwin/thermal/Coolant.hpp"
#include "racktwin/thermal/CoolingModel.hpp"
#include "racktwin/thermal/FacilityLoop.hpp"
#include "racktwin/thermal/FacilityValveBranch.hpp"
#include "racktwin/thermal/HeatExchanger.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::thermal {

namespace cooling {
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
// Energy audit (CoolingAudit.cpp): the largest residual of a check, relative to the sum of the
// magnitudes of its terms. Round-off of the sweeps stays below 1e-11 (tests/thermal measure it);
// an error in a sweep's equations is many orders above.
constexpr double kAuditTolerance = 1e-8;

enum class ChipKind : std::uint8_t { Gpu, Cpu, Switch };
enum class LinkRole : std::uint8_t { Plain, ColdPlate, HeatExchanger, Pump };
}  // namespace cooling

struct CoolingModel::Impl {
  using Index = cooling::Index;
  using ChipKind = cooling::ChipKind;
  using LinkRole = cooling::LinkRole;

  // ---- Chips: one case node per liquid-cooled chip, grouped by loop. ----
  struct Die {
    ChipKind kind;
    std::uint32_t chip;  // index into the layout's GPU/CPU/switch arrays
    std::uint32_t loop;
    Index link;  // its cold-plate link
    const core::ChipSpec* spec;
  };
  std::vector<Die> dies;
  std::vector<double> die_T, die_T_old, die_alpha, die_P, die_R, die_T_junction;
  std::vector<double> die_g, die_inv;  // cached with the loop's cells: g and 1 / (C_d/dt + g)
  std::vector<double> die_store;       // cached: C_d / dt
  std::vector<double> die_C;           // J/K, each die's heat capacity (contiguous for sums)
  std::vector<double> die_R_jc;        // K/W, junction to case
  // The die of each GPU, CPU and NVSwitch (kNoDie for a chip without one): per-kind loops need
  // no switch on the kind.
  static constexpr std::uint32_t kNoDie = ~std::uint32_t{0};
  std::vector<std::uint32_t> gpu_die, cpu_die, switch_die;

  // ---- Coolant volumes, all loops (each loop's cells are contiguous). ----
  std::vector<double> cell_C, cell_T, cell_T_old, cell_alpha;

  // ---- CDUs in site order. ----
  struct Unit {
    const core::CduSpec* cdu = nullptr;
    std::uint32_t loop = 0;
    std::uint32_t tear = 0;  // index of its suction node among the loop's tears
    Index suction = 0, supply = 0, pump_link = 0, hx_link = 0;
    std::optional<Index> strainer_link;
    std::optional<CounterFlowHeatExchanger> hx;  // set once the fluid is known
    double pump_speed = 0.0;
    // Pumps: `pumps_running` duty pumps run in parallel; after a trip with a healthy standby, the
    // standby starts at `switch_time` (pending_switches of them).
    int pumps_running = 0, pumps_healthy = 0, pending_switches = 0;
    double switch_time = cooling::kNever;
    double valve_opening = 1.0, valve_integral = 0.0;
    // Pump speed PI on the least favoured rack's dp (CduSpec::pump_dp_set > 0): the integral,
    // and the speed of the last hydraulic solve.
    double pump_integral = 0.0, pump_speed_solved = 0.0;
    // The drive: pump_speed is the filter's output, following pump_command (the PI's output or
    // the data's / an event's speed) with the CDU's rise time.
    double pump_command = 0.0;
    CriticallyDampedFilter pump_drive;
    bool valve_stuck = false;  // a stuck valve holds its opening
    double T_facility_supply = 0.0;
    double T_supply_set = 0.0;        // K, may change by event
    double facility_C_nominal = 0.0;  // W/K at a fully open valve
    // Facility water as a boundary, with valve data: the valve and exchanger primary side in
    // series across the boundary's dp set the flow. Without valve data the flow is nominal x
    // opening.
    std::optional<FacilityValveBranch> facility_branch;
    // Facility side of the exchanger during the step being swept.
    double C_facility = 0.0, G_hx = 0.0;
    // Outputs of the last step.
    double Q_hx = 0.0, T_supply = 0.0, T_return = 0.0, V_secondary = 0.0, V_facility = 0.0,
           T_facility_return = 0.0, pump_dp = 0.0, pump_P_hydraulic = 0.0, pump_P_electric = 0.0;
  };
  std::vector<Unit> units;

  // ---- Secondary loops. ----
  struct Link {
    std::uint32_t cell_begin = 0, cell_end = 0;
    LinkRole role = LinkRole::Plain;
    std::int32_t die = -1;   // ColdPlate: its die
    std::int32_t unit = -1;  // HeatExchanger, Pump: its CDU
  };
  struct Loop {
    std::string name;  // the CDU or ring id, for messages
    core::FlowNetwork network;
    std::unique_ptr<HydraulicSolver> solver;
    std::vector<Link> links;
    Index tank = 0;                     // expansion tank: the pressure reference
    std::vector<std::uint32_t> units;   // CDUs on this loop, in tear order
    std::vector<Index> tears;           // suction node of each CDU
    std::vector<std::int32_t> tear_of;  // per node: its tear index, or -1
    std::uint32_t cell_begin = 0, cell_end = 0, die_begin = 0, die_end = 0;
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
    // A loop with one CDU whose flow runs suction -> pump -> exchanger: every beta is a product
    // of flow-only factors, times the exchanger's (which follows the facility side every step)
    // for everything downstream of it. Those flow-only products (gamma) are kept with the cached
    // factors, and a step computes only the alphas (CoolingSweepSingle.cpp). Sized at build.
    struct SingleSweep {
      bool valid = false;  // the flow pattern allows it; refreshed with the cached factors
      // Per cell of the loop (local index): alpha = s + f alpha_in with s = p T_old + sources.
      std::vector<double> p, f, s, gamma;
      // Per die of the loop: D = d0 + d1 T_in with d0 = a D_old + b P; e d0 enters its cell.
      std::vector<double> die_a, die_b, die_d1, die_e, die_d0, die_gamma;
      std::vector<std::uint32_t> die_cell;  // local index of the plate's cell
      std::vector<Index> die_up;            // the plate's inlet node
      std::vector<double> node_gamma;
      // Parallel to out_links: the local cell range of each link.
      std::vector<std::uint32_t> out_cell_begin, out_cell_end;
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
  };
  std::vector<Loop> loops;

  // ---- Facility water: a modelled loop (its plant, pumps, valves and mains), or a boundary
  // condition (a fixed supply temperature and dp across each CDU, Unit::facility_branch). ----
  std::unique_ptr<FacilityLoop> facility;
  std::vector<double> facility_Q_cdu;  // W per CDU into facility water, this cycle
  double E_facility_stored_initial = 0.0;
  // Recorder views of the plant.
  double fac_T_supply = 0.0, fac_T_return = 0.0, fac_V_flow = 0.0, fac_pump_P = 0.0,
         fac_pump_speed = 0.0, fac_dp_remote = 0.0, fac_fan_P = 0.0, fac_Q_rejected = 0.0,
         fac_chiller_Q = 0.0, fac_chiller_P = 0.0, fac_water_use = 0.0, fac_T_dry_bulb = 0.0,
         fac_T_wet_bulb = 0.0;

  // ---- Room air. ----
  core::RoomSpec room;
  double room_T = 0.0, room_T_old = 0.0, Q_crah = 0.0, crah_P_fan = 0.0;

  // ---- Run totals (J) and metrics. ----
  double E_in = 0.0, E_rejected = 0.0, E_stored_initial = 0.0, E_cooling_electric = 0.0;
  double E_rejected_water = 0.0, E_rejected_air = 0.0;
  double max_gpu_T = 0.0, throttled_gpu_seconds = 0.0;
  int gpus_shut_down = 0;
  // Ride-through: from the first fault event to the first GPU throttle at or after it.
  double first_fault_time = cooling::kNever, first_throttle_after_fault = cooling::kNever;
  int hydraulic_solves = 0, hydraulic_iterations_max = 0;
  bool initialised = false;
  double now = 0.0;  // s, end of the last step (when events apply)

  // ---- Recorder views (stable arrays). ----
  std::vector<double> gpu_T_j, cpu_T_j, switch_T_j, gpu_throttled_record, gpu_shutdown_record;
  std::vector<double> gpu_T_j_peak;  // K, junction at the step's highest sub-step power
  std::vector<double> gpu_V_flow;         // m3/s through each GPU's cold plate
  std::vector<double> rack_dp_available;  // Pa across each rack's manifolds (supply - return)
  std::vector<double> rack_V_flow;        // m3/s through each rack's supply hose
  // Design point: the first hydraulic solve.
  struct DesignPoint {
    double pump_V_flow = 0.0, pump_dp = 0.0, pump_P = 0.0;
    double plate_V_min = 0.0, plate_V_max = 0.0, plate_V_mean = 0.0;
    double plates_below_minimum = 0.0;
    double rack_dp_min = 0.0;
    // The pump with the highest head: its flow as a fraction of its curve's zero-head flow at
    // its speed, and the exponent n of the system curve dp = k V^n it meets.
    double pump_flow_fraction = 0.0, system_curve_exponent = 0.0;
  } design;
  std::vector<double> tray_V_flow, tray_T_out;
  std::vector<std::string> tray_ids;
  std::vector<double> cdu_T_supply, cdu_T_return, cdu_V_flow, cdu_Q_flow, cdu_valve, cdu_V_facility,
      cdu_T_facility_return, cdu_pump_dp, cdu_pump_P, cdu_T_facility_supply, cdu_pump_P_hydraulic,
      cdu_pumps_running;
  std::vector<std::string> cdu_ids;
  double site_E_balance_residual = 0.0;

  const core::SiteLayout* layout = nullptr;

  // CoolingBuild.cpp
  void build(const core::SiteSpec& site, const core::SiteLayout& site_layout);
  struct LoopBuilder;
  void finishLoop(Loop& loop, const core::SiteSpec& site, std::vector<LinkLaw> laws);

  // CoolingTransport.cpp
  void solveHydraulics(Loop& loop);
  void updateHydraulics(Loop& loop, double t);
  void updateDieResistances(const Loop& loop);
  void sweep(Loop& loop, double dt);
  /// The factors that change only with the step length and the flows.
  void refreshSweepFactors(Loop& loop, double dt);
  /// Alphas of the cells (and plate dies) of links without flow: closed volumes.
  void closeStillLinks(Loop& loop, double dt);
  /// Exchanger outputs from the swept temperatures.
  void finishSweep(Loop& loop);
  // CoolingSweepSingle.cpp
  /// Decides whether the loop can use sweepSingle and caches its flow-only factors.
  void prepareSingleSweep(Loop& loop, double dt);
  void sweepSingle(Loop& loop, double dt);
  /// v = s + f v_in along the flow order of a single-CDU loop (s = 0 without kSource).
  template <bool kSource>
  static void propagateSingle(const Loop& loop, double tear_value, const double* s, const double* f,
                              const double* dry_value, double* cell_v, double* node_v);
  bool general_sweep_only = false;  // validation: every loop takes the general sweep
  double plate_heat_error = 0.0;     // validation of the audit: injectPlateHeatErrorForValidation
  /// The sweep for W tears (W = 0: any number, read from the loop).
  template <std::size_t W>
  void sweepWidth(Loop& loop, double dt);

  // CoolingAudit.cpp: the energy audit of each loop after each sweep, from enthalpy flows.
  enum class AuditCheck : std::uint8_t { ColdPlate, Exchanger, Loop };
  struct Audit {
    double worst = 0.0;  // largest relative residual so far
    double worst_time = 0.0;
    std::uint32_t worst_loop = 0, worst_component = 0;
    AuditCheck worst_check = AuditCheck::Loop;
    std::uint64_t checks = 0;
  } audit;
  /// Heat stored in the loop's cells and dies above 0 degC, summed from the temperatures.
  double loopStored(const Loop& loop) const;
  /// Checks the loop's last sweep of length h ending at t_end; throws core::RuntimeError when a
  /// residual exceeds cooling::kAuditTolerance.
  void auditLoop(std::uint32_t loop_index, double t_end, double h);
  void recordAudit(double residual, double scale, double roundoff, double t_end,
                   std::uint32_t loop_index, AuditCheck check, std::uint32_t component);

  // CoolingModel.cpp
  void recordDesignPoint();
  /// One implicit thermal step of length h with the step's chip heat and air heat Q_air.
  void cycle(double t_start, double h, double Q_air);
  void controlValve(Unit& unit, double dt);
  void controlPump(Unit& unit, double dt);
  bool applyEvent(const core::EventSpec& event);
  double stored() const;
  /// stored() from the sums the last sweep of every loop made: valid right after a cycle.
  double storedAfterSweep() const;
  /// The step's results into the state and the recorder views; `all` also rewrites what
  /// follows from unchanged throttle and shutdown states (at initialisation).
  void publish(core::SiteState& state, double dt, bool all);
};

}  // namespace racktwin::thermal
