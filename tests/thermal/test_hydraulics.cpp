// Hydraulic solver checks against closed-form solutions and published friction factors.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/FlowNetwork.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

using namespace racktwin;
using thermal::LinkLaw;

TEST_CASE("Friction factors match the Colebrook and Swamee-Jain reference values", "[thermal]") {
  // validation.md, "Friction factor" table (4 significant digits: tolerance half a unit).
  struct Row {
    double Re, eps, colebrook, swamee_jain;
  };
  const Row rows[] = {{1e5, 0.0, 0.01799, 0.01786},
                      {1e5, 1e-3, 0.02217, 0.02234},
                      {1e6, 1e-3, 0.01994, 0.02003},
                      {4e3, 0.01, 0.04908, 0.05061}};
  for (const Row& row : rows) {
    CHECK(thermal::colebrookFrictionFactor(row.Re, row.eps)
          == Approx(row.colebrook).margin(5e-6 + 1e-5));
    CHECK(thermal::darcyFrictionFactor(row.Re, row.eps) == Approx(row.swamee_jain).margin(1e-5));
  }
  // Laminar: f = 64 / Re.
  CHECK(thermal::darcyFrictionFactor(1000.0, 0.0) == Approx(0.064).epsilon(1e-12));
}

namespace {

struct PumpLoop {
  core::FlowNetwork net;
  core::FlowNetwork::Index tank, out;
};

core::PumpSpec pump(double dp0, double V_max, double speed) {
  core::PumpSpec p;
  p.dp_shutoff = dp0;
  p.V_flow_max = V_max;
  p.speed = speed;
  return p;
}

}  // namespace

TEST_CASE("A pump against a laminar pipe meets at the analytic operating point", "[thermal]") {
  // Hagen-Poiseuille: dp = 128 mu L Q / (pi D^4); pump dp = s^2 dp0 - dp0 (Q/Qmax)^2.
  core::FlowNetwork net;
  const auto tank = net.addNode("tank");
  const auto out = net.addNode("out");
  net.addLink("pump", tank, out);
  net.addLink("pipe", out, tank);
  const core::PipeSpec pipe{20.0, 0.004, 0.0, 1};
  const double dp0 = 2e4, V_max = 2e-5, s = 0.9;
  thermal::HydraulicSolver solver(
      net, {LinkLaw::makePump(pump(dp0, V_max, s)), LinkLaw::makePipe(pipe)}, tank, 1e5);
  const thermal::FluidState water{998.0, 1.0e-3};
  const auto status = solver.solve(water, 1e-12);
  REQUIRE(status.converged);
  const double k = 128.0 * water.mu * pipe.length / (std::numbers::pi * std::pow(pipe.diameter, 4));
  // dp0/Vmax^2 Q^2 + k Q - s^2 dp0 = 0
  const double a = dp0 / (V_max * V_max);
  const double Q = (-k + std::sqrt(k * k + 4.0 * a * s * s * dp0)) / (2.0 * a);
  const double Re = water.rho * (Q / (0.25 * std::numbers::pi * 0.004 * 0.004)) * 0.004 / water.mu;
  REQUIRE(Re < 2000.0);  // the closed form holds only for laminar flow
  CHECK(solver.V_flow()[0] == Approx(Q).epsilon(1e-9));
  CHECK(solver.V_flow()[1] == Approx(Q).epsilon(1e-9));
  CHECK(solver.dp(1) == Approx(k * Q).epsilon(1e-9));
}

TEST_CASE("Parallel quadratic branches split flow as the square root of their resistances",
          "[thermal]") {
  // dp = k_i Q_i^2 on both branches => Q_1 / Q_2 = sqrt(k_2 / k_1); continuity at the junctions.
  core::FlowNetwork net;
  const auto tank = net.addNode("tank");
  const auto a = net.addNode("a");
  const auto b = net.addNode("b");
  net.addLink("pump", tank, a);
  net.addLink("branch1", a, b);
  net.addLink("branch2", a, b);
  net.addLink("return", b, tank);
  const core::PowerLawDrop one{40e3, 1e-3, 2.0}, two{10e3, 1e-3, 2.0}, ret{5e3, 2e-3, 2.0};
  thermal::HydraulicSolver solver(
      net,
      {LinkLaw::makePump(pump(2e5, 5e-3, 1.0)), LinkLaw::makePowerLaw(one),
       LinkLaw::makePowerLaw(two), LinkLaw::makePowerLaw(ret)},
      tank, 1e5);
  const auto status = solver.solve({1000.0, 1e-3}, 1e-12);
  REQUIRE(status.converged);
  const auto V = solver.V_flow();
  CHECK(V[1] / V[2] == Approx(std::sqrt(10e3 / 40e3)).epsilon(1e-9));
  CHECK(std::abs(V[0] - V[1] - V[2]) <= 1e-15);
  CHECK(solver.largestImbalance() <= 1e-15);
  // The pump head equals the sum of the losses around the loop.
  CHECK(-solver.dp(0) == Approx(solver.dp(1) + solver.dp(3)).epsilon(1e-9));
}

TEST_CASE("A stopped pump gives zero flow, a converged status and no NaN", "[thermal]") {
  core::FlowNetwork net;
  const auto tank = net.addNode("tank");
  const auto a = net.addNode("a");
  net.addLink("pump", tank, a);
  net.addLink("plate", a, tank);
  thermal::HydraulicSolver solver(
      net, {LinkLaw::makePump(pump(2e5, 5e-3, 0.0)), LinkLaw::makePowerLaw({4e4, 1e-3, 1.85})},
      tank, 1e5);
  const auto status = solver.solve({1000.0, 1e-3});
  CHECK(status.converged);
  for (double V : solver.V_flow()) {
    CHECK(std::isfinite(V));
    CHECK(std::abs(V) < 1e-12);
  }
}

TEST_CASE("A node cut off from the pressure reference is reported, not solved", "[thermal]") {
  core::FlowNetwork net;
  const auto tank = net.addNode("tank");
  const auto a = net.addNode("a");
  const auto island = net.addNode("island");
  const auto island2 = net.addNode("island2");
  net.addLink("pump", tank, a);
  net.addLink("pipe", a, tank);
  net.addLink("lost", island, island2);
  const std::vector<LinkLaw> laws{LinkLaw::makePump(pump(2e5, 5e-3, 1.0)),
                                  LinkLaw::makePowerLaw({4e4, 1e-3, 2.0}),
                                  LinkLaw::makePowerLaw({4e4, 1e-3, 2.0})};
  CHECK_THROWS_WITH(thermal::HydraulicSolver(net, laws, tank, 1e5),
                    Catch::Contains("island") && Catch::Contains("not connected"));
}
