#pragma once
// Steady incompressible flow in a pipe network: the global gradient algorithm of Todini and
// Pilati (the method of EPANET), Newton on node potentials and link flows. Each iteration solves
// the Schur system (a graph Laplacian weighted by the inverse link gradients) with a sparse
// Cholesky (LDL^T) factorisation whose ordering and pattern are analysed once; only the numeric
// factorisation is repeated. Continuity holds to round-off after every iteration; the iterations
// converge the link laws.
//
// Potentials are piezometric pressures p* = p + rho g z in Pa (a head H in metres is p* / (rho g)).
// A network without elevations (the coolant loops) simply has p* = p. Nodes are junctions (an
// unknown potential and a demand) or fixed-potential nodes (reservoirs, tanks held at a level, the
// expansion tank). Links are pipes (Darcy-Weisbach or Hazen-Williams, minor losses, optional check
// valve), power-law and tabulated components, pumps (quadratic, EPANET power or tabulated curves,
// affinity laws, identical pumps in parallel) and EPANET's valves (PRV, PSV, PBV, FCV, TCV, GPV)
// with EPANET's status logic.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "racktwin/core/FlowNetwork.hpp"
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::core {
class StateArchive;
}

namespace racktwin::thermal {

/// Run-time state of a link after a solve (EPANET's status codes).
enum class LinkState : std::uint8_t {
  Open,
  Closed,       // closed by its status, a control, or a pump at zero speed: flow exactly 0
  CheckClosed,  // a check valve holding back reverse flow: flow exactly 0
  PumpXHead,    // a pump that cannot deliver the head across it: closed, flow exactly 0
  Active,       // a control valve regulating at its setting
  ValveOpen,    // a control valve that cannot reach its setting and stands fully open
};
const char* linkStateName(LinkState state);

/// What a solve did. Solver trouble is reported here, not thrown.
struct SolveStatus {
  bool converged = false;
  int iterations = 0;
  double relative_flow_change = 0.0;  // sum|dQ| / sum|Q| of the last iteration
  std::string message;  // why it failed, or a warning (disconnected nodes); empty when clean
  /// Junctions with no path to a fixed-potential node through open links. They keep the potential
  /// NodeCondition::p_disconnected, their links carry no flow and their demand is not supplied.
  std::vector<core::FlowNetwork::Index> disconnected_nodes;
};

/// The pump curve dp_rise(V_flow) at full speed; speed s scales it by the affinity laws
/// (dp0 s^2, r s^(2-n); a table is evaluated at V/s and scaled by s^2).
struct PumpCurve {
  enum class Form : std::uint8_t { Quadratic, Power, Table };
  Form form = Form::Quadratic;  // Quadratic: core::PumpSpec (coolant pumps)
  double dp0 = 0.0;             // Power: rise at zero flow, Pa
  double r = 0.0;               // Power: dp_rise = dp0 - r V^n
  double n = 2.0;
  std::vector<double> V_flow;   // Table: m3/s, increasing
  std::vector<double> dp_rise;  // Table: Pa, decreasing

  /// EPANET's one-point curve (src/validate.c): dp0 = 1.33334 dp1 and the power curve through
  /// (V1, dp1) and (2 V1, 0). nullopt when the point does not give a valid curve.
  static std::optional<PumpCurve> fromOnePoint(double V1, double dp1);
  /// EPANET's three-point power fit through (0, dp0), (V1, dp1), (V2, dp2).
  static std::optional<PumpCurve> fromThreePoints(double dp0, double V1, double dp1, double V2,
                                                  double dp2);
  /// A piecewise linear curve through the points, extended linearly beyond its ends (EPANET's
  /// custom curve); nullopt unless V_flow increases and dp_rise decreases.
  static std::optional<PumpCurve> fromTable(std::vector<double> V_flow,
                                            std::vector<double> dp_rise);
  /// Rise at zero flow and full speed (EPANET's Hmax), Pa.
  double shutoffRise() const;
};

/// EPANET's control valves.
enum class ValveType : std::uint8_t { PRV, PSV, PBV, FCV, TCV, GPV };

struct ValveSpec {
  ValveType type = ValveType::TCV;
  double diameter = 0.0;    // m
  double minor_loss = 0.0;  // K of the fully open valve: dp = K rho v^2 / 2
  /// PRV: p* held downstream, PSV: p* held upstream (both piezometric, Pa: pressure + rho g z of
  /// the node); PBV: dp across, Pa; FCV: flow, m3/s; TCV: loss coefficient K; GPV: unused.
  double setting = 0.0;
  std::vector<double> V_flow, dp;  // GPV: head-loss curve, m3/s and Pa, V_flow increasing
};

/// Initial status of a link. Active applies to control valves only: the setting governs (EPANET's
/// valve with a setting); Open and Closed fix a valve's status.
enum class LinkStatus : std::uint8_t { Open, Closed, Active };

/// The pressure-drop law dp = p*_a - p*_b of one link as a function of its volume flow.
struct LinkLaw {
  enum class Kind : std::uint8_t {
    Pipe,
    PowerLaw,
    Pump,
    HazenWilliams,
    Valve,
    Table,
    ControlValve
  };
  /// Darcy friction factor of Kind::Pipe. SwameeJain: laminar, linear transition, Swamee-Jain
  /// (the coolant loops); Epanet: laminar, Dunlop's cubic transition, Swamee-Jain, analytic
  /// gradient (src/hydcoeffs.c); Colebrook: laminar, linear transition, Colebrook-White.
  enum class Friction : std::uint8_t { SwameeJain, Epanet, Colebrook };

  Kind kind = Kind::PowerLaw;
  core::PipeSpec pipe;            // Kind::Pipe, Kind::HazenWilliams: length, diameter, roughness
  core::PowerLawDrop power_law;   // Kind::PowerLaw: cold plates, QDs, HX sides
  core::PressureDropTable table;  // Kind::Table: strainers, HX sides (see core::PressureDropTable)
  core::PumpSpec pump;            // Kind::Pump: dp rises across the pump; pump.speed for every form
  PumpCurve pump_curve;           // Kind::Pump: the curve (Quadratic uses `pump`)
  /// Kind::Pump: identical pumps in parallel at one speed, >= 1. Each carries V/N, so the curve is
  /// the single pump's curve at V/N: dp = s^2 dp0 - dp0 (V / (N V_max))^2 for the quadratic form.
  int pumps_parallel = 1;
  ValveSpec valve;  // Kind::Valve
  /// Kind::ControlValve: dp = rho (V / (A_v phi(opening)))^2 (core::ControlValveSpec); the
  /// opening (0..1) is the actuator's position, set by the owner between solves.
  core::ControlValveSpec control_valve;
  double opening = 1.0;
  Friction friction = Friction::SwameeJain;
  double hazen_williams_C = 0.0;  // Kind::HazenWilliams roughness coefficient
  double minor_loss = 0.0;        // pipes: K, dp += K rho v^2 / 2
  bool check_valve = false;       // pipes: closes against reverse flow
  LinkStatus status = LinkStatus::Open;
  double dp_scale = 1.0;  // multiplies a passive law (partial clogging: > 1)

  static LinkLaw makePipe(const core::PipeSpec& pipe);
  static LinkLaw makePowerLaw(const core::PowerLawDrop& law);
  /// A tabulated law; asserts the table is valid (the loader checks data files).
  static LinkLaw makeTable(const core::PressureDropTable& table);
  /// A power law or a table, as the component's data gives it.
  static LinkLaw makeDrop(const core::PressureDropLaw& law);
  static LinkLaw makePump(const core::PumpSpec& pump);
  static LinkLaw makeHazenWilliams(const core::PipeSpec& pipe, double C);
  static LinkLaw makePump(const PumpCurve& curve, double speed);
  static LinkLaw makeValve(const ValveSpec& valve);
  static LinkLaw makeControlValve(const core::ControlValveSpec& valve, double opening);
};

/// The flow coefficient of 1 US gpm of water at 60 degF through 1 psi (Cv = 1) as an IEC 60534
/// A_v: 6.30902e-5 m3/s * sqrt(999 kg/m3 / 6894.757 Pa) = 2.4014e-5 m2.
inline constexpr double kCvToAv_m2 = 2.4014e-5;

/// Inherent characteristic phi(x) = A_v(x) / A_v(1) of a control valve (core::ControlValveSpec).
double controlValveCharacteristic(const core::ControlValveSpec& valve, double opening);

/// The actuator: moves `opening` toward `command` (both clamped to [0, 1]) by at most
/// dt / stroke_time and returns the new opening.
double strokeValve(const core::ControlValveSpec& valve, double opening, double command, double dt);

struct FluidState {
  double rho = 1000.0;  // kg/m3
  double mu = 1e-3;     // Pa s
  double g = 9.80665;   // m/s2: converts heads (Hazen-Williams, tolerances) to pressures
};

/// Reference density of the flow coefficient Cv: water at 60 degF (15.6 degC), kg/m3.
inline constexpr double kCvReferenceDensity = 999.0;

/// The power law of a component given by its flow coefficient Cv: the flow in US gallons per
/// minute of water at 60 degF (specific gravity 1) at a pressure drop of 1 psi (ANSI/ISA-75.01.01,
/// "Flow Equations for Sizing Control Valves", turbulent incompressible flow: Q = Cv sqrt(dp/SG)).
/// Hence dp = SG (Q / Cv)^2 psi: dp_nominal = SG psi at V_flow_nominal = Cv gpm, exponent 2.
core::PowerLawDrop powerLawFromCv(double Cv, double specific_gravity);

/// Darcy friction factor: 64/Re below Re 2000, Swamee-Jain above 4000, linear in Re between.
double darcyFrictionFactor(double Re, double relative_roughness);
/// Colebrook-White solved to 1e-12 (reference for tests and for users who ask for it).
double colebrookFrictionFactor(double Re, double relative_roughness);
/// EPANET's friction factor: 64/Re up to Re 2000, Dunlop's cubic to 4000, Swamee-Jain above.
double epanetFrictionFactor(double Re, double relative_roughness);

/// dp = p_a - p_b of an open link at V_flow (m3/s); `gradient` receives d(dp)/dV_flow, kept
/// positive by a small-flow linearisation so the Newton system stays positive definite. Control
/// valves are evaluated fully open.
double linkDp(const LinkLaw& law, double V_flow, const FluidState& fluid, double* gradient);

/// Boundary condition of one node.
struct NodeCondition {
  bool fixed = false;           // held at p (reservoir, tank at a level, expansion tank)
  double p = 0.0;               // Pa, piezometric; the held value of a fixed node
  double demand = 0.0;          // m3/s leaving the network at a junction (negative: supply)
  double p_disconnected = 0.0;  // Pa, piezometric, given to a junction cut off from every fixed
                                // node (EPANET convention: the node's elevation, zero pressure)
};

/// EPANET's status-check settings (the defaults are EPANET's, in SI).
struct SolverOptions {
  double head_tolerance = 0.0005 * 0.3048;        // m (Htol): status decisions
  double flow_tolerance = 1e-4 * 0.028316846592;  // m3/s (Qtol): status decisions
  int check_frequency = 2;   // CHECKFREQ: periodic status checks of pumps, check valves, FCVs
  int max_check = 10;        // MAXCHECK: no periodic checks after this iteration
  double damp_limit = 0.0;   // DAMPLIMIT: valve checks (and 0.6 damping) only below this change
  int extra_iterations = 0;  // UNBALANCED CONTINUE n: trials without status changes
};

class HydraulicSolver {
 public:
  using Index = core::FlowNetwork::Index;

  /// A coolant loop: `reference_node` holds p_reference (the expansion tank), no demands. Throws
  /// core::RuntimeError when a node is not connected to the reference node.
  HydraulicSolver(const core::FlowNetwork& network, std::vector<LinkLaw> laws, Index reference_node,
                  double p_reference);
  /// A general network: one condition per node (at least one fixed node is needed for a
  /// solution; nodes without a path to one are reported in SolveStatus, never thrown).
  HydraulicSolver(const core::FlowNetwork& network, std::vector<LinkLaw> laws,
                  std::vector<NodeCondition> nodes, SolverOptions options = {});
  ~HydraulicSolver();
  HydraulicSolver(HydraulicSolver&&) noexcept;
  HydraulicSolver& operator=(HydraulicSolver&&) noexcept;

  LinkLaw& law(Index link) { return laws_.at(link); }
  const LinkLaw& law(Index link) const { return laws_.at(link); }
  NodeCondition& node(Index n) { return nodes_.at(n); }
  const NodeCondition& node(Index n) const { return nodes_.at(n); }
  SolverOptions& options() noexcept { return options_; }

  /// Solves from the current flows as the first guess. Converged when sum|dQ|/sum|Q| <= tolerance
  /// and no status changes. Link statuses restart from the laws' statuses.
  SolveStatus solve(const FluidState& fluid, double tolerance = 1e-9, int max_iterations = 100);

  std::span<const double> V_flow() const noexcept { return V_flow_; }
  std::span<const double> p() const noexcept { return p_; }
  double dp(Index link) const;  // p_a - p_b
  LinkState linkState(Index link) const { return state_.at(link); }
  bool disconnected(Index node) const { return isolated_.at(node) != 0; }
  /// Largest |net inflow - demand| at any junction connected to a fixed node, in m3/s.
  double largestImbalance() const;
  const core::FlowNetwork& network() const noexcept { return *network_; }
  /// Saves or restores what a run changes: flows, potentials, link states and the laws' settings
  /// (speed, opening, status, scale), for a checkpoint of the model that owns the solver.
  void visitState(core::StateArchive& archive);

 private:
  struct Factorisation;
  void initialiseFlows();
  void resetStates();
  void findIsolated();
  bool checkValves(const FluidState& fluid);
  bool checkLinks(const FluidState& fluid);
  void prepareLaws(const FluidState& fluid);

  const core::FlowNetwork* network_;
  std::vector<LinkLaw> laws_;
  std::vector<NodeCondition> nodes_;
  SolverOptions options_;
  std::vector<double> V_flow_;
  std::vector<double> p_;
  std::vector<LinkState> state_;
  std::vector<std::uint8_t> isolated_;
  std::unique_ptr<Factorisation> factorisation_;
};

}  // namespace racktwin::thermal
