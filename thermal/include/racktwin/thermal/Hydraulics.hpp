#pragma once
// Steady incompressible flow in a coolant network: the global gradient algorithm of Todini and
// Pilati (the method of EPANET), Newton on node pressures and link flows. Each iteration solves the
// Schur system (a Laplacian weighted by the inverse link gradients) with a sparse Cholesky
// factorisation whose pattern is analysed once. Continuity holds to round-off after every
// iteration; the iterations converge the link laws. Re-solved when a pump, valve or the fluid
// changes, never per time step.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "racktwin/core/FlowNetwork.hpp"
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::thermal {

/// What a solve did. Solver trouble is reported here, not thrown.
struct SolveStatus {
  bool converged = false;
  int iterations = 0;
  double relative_flow_change = 0.0;  // sum|dQ| / sum|Q| of the last iteration
  std::string message;                // empty when converged
};

/// The pressure-drop law dp = p_a - p_b of one link as a function of its volume flow.
struct LinkLaw {
  enum class Kind : std::uint8_t { Pipe, PowerLaw, Pump };
  Kind kind = Kind::PowerLaw;
  core::PipeSpec pipe;           // Kind::Pipe: Darcy-Weisbach
  core::PowerLawDrop power_law;  // Kind::PowerLaw: cold plates, QDs, HX sides
  core::PumpSpec pump;           // Kind::Pump: dp rises across the pump
  double dp_scale = 1.0;         // multiplies a passive law (partial clogging: > 1)

  static LinkLaw makePipe(const core::PipeSpec& pipe);
  static LinkLaw makePowerLaw(const core::PowerLawDrop& law);
  static LinkLaw makePump(const core::PumpSpec& pump);
};

struct FluidState {
  double rho = 1000.0;  // kg/m3
  double mu = 1e-3;     // Pa s
};

/// Darcy friction factor: 64/Re below Re 2000, Swamee-Jain above 4000, linear in Re between
/// (EPANET uses a cubic there; both are continuous, neither is physics).
double darcyFrictionFactor(double Re, double relative_roughness);
/// Colebrook-White solved to 1e-12 (reference for tests and for users who ask for it).
double colebrookFrictionFactor(double Re, double relative_roughness);

/// dp = p_a - p_b of a law at V_flow (m3/s); `gradient` receives d(dp)/dV_flow, kept positive by a
/// small-flow linearisation so the Newton system stays positive definite.
double linkDp(const LinkLaw& law, double V_flow, const FluidState& fluid, double* gradient);

class HydraulicSolver {
 public:
  using Index = core::FlowNetwork::Index;

  /// `reference_node` holds pressure p_reference (the expansion tank). Throws core::RuntimeError
  /// when a node is not connected to the reference node.
  HydraulicSolver(const core::FlowNetwork& network, std::vector<LinkLaw> laws, Index reference_node,
                  double p_reference);
  ~HydraulicSolver();
  HydraulicSolver(HydraulicSolver&&) noexcept;
  HydraulicSolver& operator=(HydraulicSolver&&) noexcept;

  LinkLaw& law(Index link) { return laws_.at(link); }
  const LinkLaw& law(Index link) const { return laws_.at(link); }

  /// Solves from the current flows as the first guess. Converged when sum|dQ|/sum|Q| <= tolerance.
  SolveStatus solve(const FluidState& fluid, double tolerance = 1e-9, int max_iterations = 100);

  std::span<const double> V_flow() const noexcept { return V_flow_; }
  std::span<const double> p() const noexcept { return p_; }
  double dp(Index link) const;  // p_a - p_b
  /// Largest |net inflow| at any node but the reference, in m3/s (continuity check).
  double largestImbalance() const;
  const core::FlowNetwork& network() const noexcept { return *network_; }

 private:
  struct Factorisation;
  const core::FlowNetwork* network_;
  std::vector<LinkLaw> laws_;
  Index reference_;
  double p_reference_;
  std::vector<double> V_flow_;
  std::vector<double> p_;
  std::vector<int> unknown_of_node_;  // -1 for the reference node
  std::unique_ptr<Factorisation> factorisation_;
};

}  // namespace racktwin::thermal
