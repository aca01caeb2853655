// Link laws and solver statuses against closed forms and EPANET's documented behaviour.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include "RunProgram.hpp"
#include "racktwin/core/FlowNetwork.hpp"
#include "racktwin/scenarios/EpanetInput.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

using namespace racktwin;
using thermal::LinkLaw;
using thermal::LinkState;
using thermal::NodeCondition;
using thermal::PumpCurve;

namespace {

double rise(const PumpCurve& c, double V) {
  return c.dp0 - c.r * std::pow(V, c.n);
}

const thermal::FluidState kWater{1000.0, 1e-3, 9.80665};
constexpr double kRhoG = 1000.0 * 9.80665;

NodeCondition reservoir(double head_m) {
  NodeCondition c;
  c.fixed = true;
  c.p = kRhoG * head_m;
  return c;
}
NodeCondition junction(double demand, double elevation = 0.0) {
  NodeCondition c;
  c.demand = demand;
  c.p_disconnected = kRhoG * elevation;
  return c;
}
LinkLaw pipe(double length, double diameter, double C = 120.0) {
  return LinkLaw::makeHazenWilliams({length, diameter, 0.0, 1}, C);
}

}  // namespace

TEST_CASE("EPANET's one-point pump curve passes its point and (2 q1, 0)", "[hydraulics]") {
  // EPANET src/validate.c: h0 = 1.33334 h1, power curve through (q1, h1) and (2 q1, 0).
  const auto curve = PumpCurve::fromOnePoint(0.1, 2.5e5);
  REQUIRE(curve);
  CHECK(curve->dp0 == Approx(1.33334 * 2.5e5).epsilon(1e-12));
  CHECK(rise(*curve, 0.1) == Approx(2.5e5).epsilon(1e-12));
  CHECK(std::abs(rise(*curve, 0.2)) <= 1e-9 * 2.5e5);
  CHECK_FALSE(PumpCurve::fromOnePoint(0.0, 2.5e5));
}

TEST_CASE("EPANET's three-point pump fit reproduces its points", "[hydraulics]") {
  // Net3's curve 1 (GPM, ft): (0, 104), (2000, 92), (4000, 63), in SI.
  const double gpm = 0.028316846592 / 448.831, ft = 0.3048 * kRhoG;
  const auto curve = PumpCurve::fromThreePoints(104 * ft, 2000 * gpm, 92 * ft, 4000 * gpm, 63 * ft);
  REQUIRE(curve);
  CHECK(rise(*curve, 0.0) == Approx(104 * ft).epsilon(1e-12));
  CHECK(rise(*curve, 2000 * gpm) == Approx(92 * ft).epsilon(1e-12));
  CHECK(rise(*curve, 4000 * gpm) == Approx(63 * ft).epsilon(1e-12));
  // A curve whose head rises with flow is refused.
  CHECK_FALSE(PumpCurve::fromThreePoints(100.0, 1.0, 120.0, 2.0, 50.0));
}

TEST_CASE("EPANET's friction factor: laminar 64/Re and Swamee-Jain above Re 4000", "[hydraulics]") {
  // validation.md, "Friction factor" table (Swamee-Jain column, 4 significant digits).
  CHECK(thermal::epanetFrictionFactor(1e5, 0.0) == Approx(0.01786).margin(1e-5));
  CHECK(thermal::epanetFrictionFactor(1e5, 1e-3) == Approx(0.02234).margin(1e-5));
  CHECK(thermal::epanetFrictionFactor(1e6, 1e-3) == Approx(0.02003).margin(1e-5));
  CHECK(thermal::epanetFrictionFactor(4e3, 0.01) == Approx(0.05061).margin(1e-5));
  CHECK(thermal::epanetFrictionFactor(1500.0, 1e-3) == Approx(64.0 / 1500.0).epsilon(1e-12));
  // Dunlop's cubic joins both ends continuously.
  CHECK(thermal::epanetFrictionFactor(2000.0 + 1e-6, 1e-3) == Approx(0.032).epsilon(1e-6));
  CHECK(thermal::epanetFrictionFactor(4000.0 - 1e-6, 0.01) == Approx(0.05061).margin(1e-5));
}

TEST_CASE("Hazen-Williams flow between two reservoirs matches the closed form", "[hydraulics]") {
  // validation.md: h = 4.727 L Q^1.852 / (C^1.852 d^4.871) in ft and cfs. Two 500 ft pipes of
  // 12 in, C = 120, in series through a junction, between heads 200 ft and 150 ft.
  const std::string dir = test::scratchDirectory("hw-" + std::to_string(::getpid()));
  const std::string path = dir + "/hw.inp";
  std::ofstream(path) << "[JUNCTIONS]\n J1 0 0\n[RESERVOIRS]\n R1 200\n R2 150\n"
                         "[PIPES]\n P1 R1 J1 500 12 120\n P2 J1 R2 500 12 120\n"
                         "[OPTIONS]\n UNITS CFS\n HEADLOSS H-W\n[END]\n";
  const scenarios::EpanetModel model = scenarios::readEpanetInput(path);
  scenarios::EpanetSolveOptions options;
  options.accuracy = 1e-12;
  const scenarios::EpanetSolution solution = scenarios::solveEpanet(model, options);
  REQUIRE(solution.status.converged);
  const double Q = std::pow(50.0 * std::pow(120.0, 1.852) / (4.727 * 1000.0), 1.0 / 1.852);
  CHECK(solution.flow[0] == Approx(Q).epsilon(1e-9));
  CHECK(solution.flow[1] == Approx(Q).epsilon(1e-9));
  CHECK(solution.head[0] == Approx(175.0).epsilon(1e-9));  // equal pipes share the loss
}

TEST_CASE("A closed pipe carries nothing and a junction behind it is reported", "[hydraulics]") {
  core::FlowNetwork net;
  const auto r = net.addNode("R"), j1 = net.addNode("J1"), j2 = net.addNode("J2"),
             j3 = net.addNode("J3");
  net.addLink("P1", r, j1);
  net.addLink("P2", j1, j2);
  net.addLink("P3", r, j2);
  net.addLink("P4", j2, j3);
  std::vector<LinkLaw> laws{pipe(100, 0.3), pipe(100, 0.3), pipe(100, 0.3), pipe(100, 0.3)};
  laws[1].status = thermal::LinkStatus::Closed;
  laws[3].status = thermal::LinkStatus::Closed;
  thermal::HydraulicSolver solver(
      net, laws, {reservoir(50.0), junction(0.01), junction(0.02), junction(0.005, 3.0)});
  const auto status = solver.solve(kWater, 1e-10);
  CHECK(status.converged);
  CHECK(solver.V_flow()[1] == 0.0);
  CHECK(solver.V_flow()[3] == 0.0);
  CHECK(solver.linkState(1) == LinkState::Closed);
  // Each open pipe carries its junction's demand.
  CHECK(solver.V_flow()[0] == Approx(0.01).epsilon(1e-12));
  CHECK(solver.V_flow()[2] == Approx(0.02).epsilon(1e-12));
  REQUIRE(status.disconnected_nodes.size() == 1);
  CHECK(status.disconnected_nodes[0] == j3);
  CHECK(status.message.find("'J3'") != std::string::npos);
  CHECK(solver.p()[j3] == Approx(kRhoG * 3.0));  // its elevation: zero pressure
  CHECK(solver.largestImbalance() <= 1e-14);
}

TEST_CASE("A check valve closes against reverse flow", "[hydraulics]") {
  // R_low (40 m) -> J -> CV pipe -> R_high (60 m): the valve would carry flow backwards.
  core::FlowNetwork net;
  const auto low = net.addNode("low"), j = net.addNode("J"), high = net.addNode("high");
  net.addLink("P1", low, j);
  net.addLink("CV", j, high);
  std::vector<LinkLaw> laws{pipe(200, 0.2), pipe(200, 0.2)};
  laws[1].check_valve = true;
  thermal::HydraulicSolver solver(net, laws, {reservoir(40.0), junction(0.002), reservoir(60.0)});
  const auto status = solver.solve(kWater, 1e-8);
  INFO(status.message);
  CHECK(status.converged);
  CHECK(solver.linkState(1) == LinkState::CheckClosed);
  CHECK(solver.V_flow()[1] == 0.0);
  CHECK(solver.V_flow()[0] == Approx(0.002).epsilon(1e-12));
  // Reversed reservoirs: the valve opens and carries flow forward.
  solver.node(low).p = kRhoG * 60.0;
  solver.node(high).p = kRhoG * 40.0;
  const auto forward = solver.solve(kWater, 1e-8);
  CHECK(forward.converged);
  CHECK(solver.linkState(1) == LinkState::Open);
  CHECK(solver.V_flow()[1] > 0.0);
  CHECK(solver.largestImbalance() <= 1e-12);
}

TEST_CASE("A pump at zero speed is closed and its junctions reported", "[hydraulics]") {
  core::FlowNetwork net;
  const auto r = net.addNode("R"), j1 = net.addNode("J1"), j2 = net.addNode("J2");
  net.addLink("pump", r, j1);
  net.addLink("P", j1, j2);
  const auto curve = PumpCurve::fromOnePoint(0.05, 3e5);
  REQUIRE(curve);
  thermal::HydraulicSolver solver(net, {LinkLaw::makePump(*curve, 0.0), pipe(300, 0.2)},
                                  {reservoir(10.0), junction(0.01, 5.0), junction(0.01, 7.0)});
  const auto status = solver.solve(kWater, 1e-8);
  CHECK(solver.linkState(0) == LinkState::Closed);
  for (double V : solver.V_flow())
    CHECK(V == 0.0);
  CHECK(status.disconnected_nodes.size() == 2);
  for (double p : solver.p())
    CHECK(std::isfinite(p));
  // Running, it meets the system curve where the pump's rise equals the lift plus the loss.
  solver.law(0).pump.speed = 1.0;
  const auto running = solver.solve(kWater, 1e-12);
  REQUIRE(running.converged);
  CHECK(running.disconnected_nodes.empty());
  CHECK(solver.V_flow()[0] == Approx(0.02).epsilon(1e-12));
  CHECK(-solver.dp(0) == Approx(rise(*curve, 0.02)).epsilon(1e-9));
}

TEST_CASE("A PRV holds its downstream head, and opens when it cannot", "[hydraulics]") {
  // EPANET's PRV: active, the downstream head equals the setting; with less head upstream than
  // the setting it stands open.
  core::FlowNetwork net;
  const auto r = net.addNode("R"), j1 = net.addNode("J1"), j2 = net.addNode("J2"),
             j3 = net.addNode("J3");
  net.addLink("P1", r, j1);
  net.addLink("PRV", j1, j2);
  net.addLink("P2", j2, j3);
  thermal::ValveSpec prv;
  prv.type = thermal::ValveType::PRV;
  prv.diameter = 0.2;
  prv.setting = kRhoG * 60.0;
  thermal::HydraulicSolver solver(net, {pipe(500, 0.3), LinkLaw::makeValve(prv), pipe(500, 0.3)},
                                  {reservoir(100.0), junction(0.0), junction(0.0), junction(0.03)});
  auto status = solver.solve(kWater, 1e-10);
  REQUIRE(status.converged);
  CHECK(solver.linkState(1) == LinkState::Active);
  CHECK(solver.p()[j2] == Approx(kRhoG * 60.0).epsilon(1e-12));
  CHECK(solver.V_flow()[1] == Approx(0.03).epsilon(1e-10));
  CHECK(solver.largestImbalance() <= 1e-12);
  solver.law(1).valve.setting = kRhoG * 120.0;
  // An open valve without minor loss keeps EPANET's near-zero linear loss (CSMALL): its huge
  // conductance limits the attainable flow change to about 1e-8.
  status = solver.solve(kWater, 1e-6);
  INFO(status.message);
  REQUIRE(status.converged);
  CHECK(solver.linkState(1) == LinkState::Open);
  CHECK(solver.p()[j2] < kRhoG * 100.0);
  CHECK(solver.V_flow()[1] == Approx(0.03).epsilon(1e-6));
}

TEST_CASE("An FCV holds its flow against a reservoir", "[hydraulics]") {
  core::FlowNetwork net;
  const auto r1 = net.addNode("R1"), j1 = net.addNode("J1"), j2 = net.addNode("J2"),
             r2 = net.addNode("R2");
  net.addLink("P1", r1, j1);
  net.addLink("FCV", j1, j2);
  net.addLink("P2", j2, r2);
  thermal::ValveSpec fcv;
  fcv.type = thermal::ValveType::FCV;
  fcv.diameter = 0.3;
  fcv.setting = 0.02;
  thermal::HydraulicSolver solver(net, {pipe(500, 0.3), LinkLaw::makeValve(fcv), pipe(500, 0.3)},
                                  {reservoir(100.0), junction(0.0), junction(0.0), reservoir(50)});
  const auto status = solver.solve(kWater, 1e-10);
  REQUIRE(status.converged);
  CHECK(solver.linkState(1) == LinkState::Active);
  // EPANET keeps a 1/CBIG conductance across an active FCV: the flow exceeds the setting by
  // dh / CBIG (here 2e-6 relative).
  CHECK(solver.V_flow()[0] == Approx(0.02).epsilon(1e-5));
  CHECK(solver.V_flow()[2] == Approx(0.02).epsilon(1e-5));
  CHECK(solver.largestImbalance() <= 1e-14);
}
