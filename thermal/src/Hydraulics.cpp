#include "racktwin/thermal/Hydraulics.hpp"

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "racktwin/core/Error.hpp"

namespace racktwin::thermal {
namespace {

constexpr double kReLaminar = 2000.0;
constexpr double kReTurbulent = 4000.0;
constexpr double kFlowFloor = 1e-13;  // m3/s per link: flows below this count as converged zero

double swameeJain(double Re, double relative_roughness) {
  const double x = std::log10(relative_roughness / 3.7 + 5.74 / std::pow(Re, 0.9));
  return 0.25 / (x * x);
}

double pipeDp(const core::PipeSpec& pipe, double V_flow, const FluidState& fluid) {
  const double area = 0.25 * std::numbers::pi * pipe.diameter * pipe.diameter;
  const double v = V_flow / area;
  const double Re = fluid.rho * std::abs(v) * pipe.diameter / fluid.mu;
  if (Re < 1e-12) return 0.0;
  const double f = darcyFrictionFactor(Re, pipe.roughness / pipe.diameter);
  return f * pipe.length / pipe.diameter * 0.5 * fluid.rho * v * std::abs(v);
}

}  // namespace

double darcyFrictionFactor(double Re, double relative_roughness) {
  if (Re <= kReLaminar) return 64.0 / std::max(Re, 1e-12);
  if (Re >= kReTurbulent) return swameeJain(Re, relative_roughness);
  const double f_laminar = 64.0 / kReLaminar;
  const double f_turbulent = swameeJain(kReTurbulent, relative_roughness);
  const double w = (Re - kReLaminar) / (kReTurbulent - kReLaminar);
  return (1.0 - w) * f_laminar + w * f_turbulent;
}

double colebrookFrictionFactor(double Re, double relative_roughness) {
  if (Re <= kReLaminar) return 64.0 / std::max(Re, 1e-12);
  // Fixed point on 1/sqrt(f) from the Swamee-Jain start; converges in a few iterations.
  double inv_sqrt_f = 1.0 / std::sqrt(swameeJain(Re, relative_roughness));
  for (int i = 0; i < 100; ++i) {
    const double next = -2.0 * std::log10(relative_roughness / 3.7 + 2.51 * inv_sqrt_f / Re);
    if (std::abs(next - inv_sqrt_f) < 1e-14 * std::abs(next)) {
      inv_sqrt_f = next;
      break;
    }
    inv_sqrt_f = next;
  }
  return 1.0 / (inv_sqrt_f * inv_sqrt_f);
}

LinkLaw LinkLaw::makePipe(const core::PipeSpec& pipe) {
  LinkLaw law;
  law.kind = Kind::Pipe;
  law.pipe = pipe;
  return law;
}
LinkLaw LinkLaw::makePowerLaw(const core::PowerLawDrop& drop) {
  LinkLaw law;
  law.kind = Kind::PowerLaw;
  law.power_law = drop;
  return law;
}
LinkLaw LinkLaw::makePump(const core::PumpSpec& pump) {
  LinkLaw law;
  law.kind = Kind::Pump;
  law.pump = pump;
  return law;
}

double linkDp(const LinkLaw& law, double V_flow, const FluidState& fluid, double* gradient) {
  switch (law.kind) {
    case LinkLaw::Kind::Pipe: {
      // Central difference: the friction factor's own dependence on Re is included.
      const double area = 0.25 * std::numbers::pi * law.pipe.diameter * law.pipe.diameter;
      const double laminar_slope = law.dp_scale * 32.0 * fluid.mu * law.pipe.length
                                   / (law.pipe.diameter * law.pipe.diameter * area);
      const double h = 1e-6 * std::max(std::abs(V_flow), 1e-6);
      const double dp = law.dp_scale * pipeDp(law.pipe, V_flow, fluid);
      if (gradient != nullptr) {
        const double slope =
            law.dp_scale
            * (pipeDp(law.pipe, V_flow + h, fluid) - pipeDp(law.pipe, V_flow - h, fluid))
            / (2.0 * h);
        *gradient = std::max(slope, laminar_slope);
      }
      return dp;
    }
    case LinkLaw::Kind::PowerLaw: {
      const core::PowerLawDrop& p = law.power_law;
      const double k = law.dp_scale * p.dp_nominal / std::pow(p.V_flow_nominal, p.exponent);
      // Linear below a small flow so the gradient never vanishes (EPANET does the same).
      const double V_small = 1e-4 * p.V_flow_nominal;
      const double a = std::abs(V_flow);
      if (a < V_small) {
        const double slope = k * std::pow(V_small, p.exponent - 1.0);
        if (gradient != nullptr) *gradient = slope;
        return slope * V_flow;
      }
      const double dp = k * std::pow(a, p.exponent);
      if (gradient != nullptr) *gradient = p.exponent * dp / a;
      return V_flow >= 0.0 ? dp : -dp;
    }
    case LinkLaw::Kind::Pump: {
      // dp_a_b = -(s^2 dp0 - dp0 (V/Vmax)|V/Vmax|): the pump raises pressure from port_a to port_b.
      const core::PumpSpec& p = law.pump;
      const double x = V_flow / p.V_flow_max;
      const double rise = p.speed * p.speed * p.dp_shutoff - p.dp_shutoff * x * std::abs(x);
      if (gradient != nullptr) {
        const double slope = 2.0 * p.dp_shutoff * std::abs(x) / p.V_flow_max;
        *gradient = std::max(slope, 1e-3 * p.dp_shutoff / p.V_flow_max);
      }
      return -rise;
    }
  }
  return 0.0;
}

struct HydraulicSolver::Factorisation {
  Eigen::SparseMatrix<double> A;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt;
  Eigen::VectorXd rhs;
  Eigen::VectorXd x;
  std::vector<double*> link_entries[4];  // per link: (a,a), (b,b), (a,b), (b,a) or nullptr
  std::vector<double> inv_gradient;
  std::vector<double> dp;
  bool analysed = false;
};

HydraulicSolver::HydraulicSolver(const core::FlowNetwork& network, std::vector<LinkLaw> laws,
                                 Index reference_node, double p_reference)
    : network_(&network),
      laws_(std::move(laws)),
      reference_(reference_node),
      p_reference_(p_reference),
      V_flow_(network.linkCount(), 0.0),
      p_(network.nodeCount(), p_reference),
      unknown_of_node_(network.nodeCount(), -1),
      factorisation_(std::make_unique<Factorisation>()) {
  RACKTWIN_ASSERT(laws_.size() == network.linkCount(), "one law per link");
  int component_count = 0;
  const std::vector<int> component = network.components(&component_count);
  for (Index n = 0; n < network.nodeCount(); ++n) {
    if (component[n] != component[reference_node]) {
      throw core::RuntimeError("coolant network: node '" + network.nodeId(n)
                               + "' is not connected to the pressure reference '"
                               + network.nodeId(reference_node) + "'");
    }
  }
  int unknowns = 0;
  for (Index n = 0; n < network.nodeCount(); ++n) {
    if (n != reference_node) unknown_of_node_[n] = unknowns++;
  }
  // First guess: a small flow in the design direction everywhere.
  for (Index l = 0; l < network.linkCount(); ++l) {
    const LinkLaw& law = laws_[l];
    double scale = 1e-5;
    if (law.kind == LinkLaw::Kind::PowerLaw) scale = 0.1 * law.power_law.V_flow_nominal;
    if (law.kind == LinkLaw::Kind::Pump) scale = 0.1 * law.pump.V_flow_max;
    V_flow_[l] = scale;
  }

  // The pattern of the Schur matrix: a weighted graph Laplacian over the unknown nodes.
  Factorisation& f = *factorisation_;
  std::vector<Eigen::Triplet<double>> triplets;
  for (Index l = 0; l < network.linkCount(); ++l) {
    const int a = unknown_of_node_[network.portA(l)];
    const int b = unknown_of_node_[network.portB(l)];
    if (a >= 0) triplets.emplace_back(a, a, 1.0);
    if (b >= 0) triplets.emplace_back(b, b, 1.0);
    if (a >= 0 && b >= 0) {
      triplets.emplace_back(a, b, 1.0);
      triplets.emplace_back(b, a, 1.0);
    }
  }
  f.A.resize(unknowns, unknowns);
  f.A.setFromTriplets(triplets.begin(), triplets.end());
  f.A.makeCompressed();
  for (auto& entries : f.link_entries)
    entries.assign(network.linkCount(), nullptr);
  for (Index l = 0; l < network.linkCount(); ++l) {
    const int a = unknown_of_node_[network.portA(l)];
    const int b = unknown_of_node_[network.portB(l)];
    if (a >= 0) f.link_entries[0][l] = &f.A.coeffRef(a, a);
    if (b >= 0) f.link_entries[1][l] = &f.A.coeffRef(b, b);
    if (a >= 0 && b >= 0) {
      f.link_entries[2][l] = &f.A.coeffRef(a, b);
      f.link_entries[3][l] = &f.A.coeffRef(b, a);
    }
  }
  f.rhs.resize(unknowns);
  f.x.resize(unknowns);
  f.inv_gradient.assign(network.linkCount(), 0.0);
  f.dp.assign(network.linkCount(), 0.0);
}

HydraulicSolver::~HydraulicSolver() = default;
HydraulicSolver::HydraulicSolver(HydraulicSolver&&) noexcept = default;
HydraulicSolver& HydraulicSolver::operator=(HydraulicSolver&&) noexcept = default;

SolveStatus HydraulicSolver::solve(const FluidState& fluid, double tolerance, int max_iterations) {
  Factorisation& f = *factorisation_;
  const core::FlowNetwork& net = *network_;
  SolveStatus status;
  for (int iteration = 1; iteration <= max_iterations; ++iteration) {
    // Link equation linearised: V_new = V + (p_a - p_b - dp(V)) / g. Substituting into
    // continuity gives L p = rhs with L the Laplacian weighted by 1/g.
    std::fill(f.A.valuePtr(), f.A.valuePtr() + f.A.nonZeros(), 0.0);
    f.rhs.setZero();
    for (Index l = 0; l < net.linkCount(); ++l) {
      double g = 0.0;
      f.dp[l] = linkDp(laws_[l], V_flow_[l], fluid, &g);
      const double w = 1.0 / g;
      f.inv_gradient[l] = w;
      const int a = unknown_of_node_[net.portA(l)];
      const int b = unknown_of_node_[net.portB(l)];
      // Flow leaving a through l: q = V - w dp + w (p_a - p_b).
      const double q0 = V_flow_[l] - w * f.dp[l];
      if (a >= 0) {
        *f.link_entries[0][l] += w;
        f.rhs[a] -= q0;
        if (b < 0) f.rhs[a] += w * p_reference_;
      }
      if (b >= 0) {
        *f.link_entries[1][l] += w;
        f.rhs[b] += q0;
        if (a < 0) f.rhs[b] += w * p_reference_;
      }
      if (a >= 0 && b >= 0) {
        *f.link_entries[2][l] -= w;
        *f.link_entries[3][l] -= w;
      }
    }
    if (!f.analysed) {
      f.ldlt.analyzePattern(f.A);
      f.analysed = true;
    }
    f.ldlt.factorize(f.A);
    if (f.ldlt.info() != Eigen::Success) {
      status.message = "the pressure system is singular (is every node connected?)";
      status.iterations = iteration;
      return status;
    }
    f.x = f.ldlt.solve(f.rhs);
    for (Index n = 0; n < net.nodeCount(); ++n) {
      const int u = unknown_of_node_[n];
      p_[n] = u >= 0 ? f.x[u] : p_reference_;
    }
    double sum_change = 0.0;
    double sum_flow = 0.0;
    for (Index l = 0; l < net.linkCount(); ++l) {
      const double dp_new = p_[net.portA(l)] - p_[net.portB(l)];
      const double V_new = V_flow_[l] + f.inv_gradient[l] * (dp_new - f.dp[l]);
      sum_change += std::abs(V_new - V_flow_[l]);
      sum_flow += std::abs(V_new);
      V_flow_[l] = V_new;
    }
    status.iterations = iteration;
    status.relative_flow_change = sum_flow > 0.0 ? sum_change / sum_flow : sum_change;
    if (!std::isfinite(status.relative_flow_change)) {
      status.message = "the flow iteration produced a non-finite value";
      return status;
    }
    // Relative test as in EPANET; the absolute floor ends solves whose flows all go to zero
    // (a stopped loop), where a relative change stays of order one.
    const double absolute_floor = kFlowFloor * static_cast<double>(net.linkCount());
    if (status.relative_flow_change <= tolerance || sum_change <= absolute_floor) {
      status.converged = true;
      return status;
    }
  }
  status.message = "no convergence in " + std::to_string(max_iterations) + " iterations";
  return status;
}

double HydraulicSolver::dp(Index link) const {
  return p_[network_->portA(link)] - p_[network_->portB(link)];
}

double HydraulicSolver::largestImbalance() const {
  std::vector<double> net_inflow(network_->nodeCount(), 0.0);
  for (Index l = 0; l < network_->linkCount(); ++l) {
    net_inflow[network_->portA(l)] -= V_flow_[l];
    net_inflow[network_->portB(l)] += V_flow_[l];
  }
  double worst = 0.0;
  for (Index n = 0; n < network_->nodeCount(); ++n) {
    if (n != reference_) worst = std::max(worst, std::abs(net_inflow[n]));
  }
  return worst;
}

}  // namespace racktwin::thermal
