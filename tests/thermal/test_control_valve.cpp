// Control valves as coolant-loop elements: the IEC 60534 / ISA-75.01.01 flow coefficient, the
// linear and equal-percentage inherent characteristics, and the actuator's stroke time.
#include <catch2/catch.hpp>
#include <cmath>

#include "racktwin/core/FlowNetwork.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

using namespace racktwin;
using thermal::FluidState;
using thermal::LinkLaw;

namespace {

constexpr double kGpm = 3.785411784e-3 / 60.0;  // m3/s per US gallon per minute (exact)
constexpr double kPsi = 6894.757293168;         // Pa (NIST SP 811)

core::ControlValveSpec valveOfCv(double Cv, core::ControlValveSpec::Characteristic c) {
  core::ControlValveSpec v;
  v.A_v = Cv * thermal::kCvToAv_m2;
  v.characteristic = c;
  v.rangeability = 50.0;
  v.leakage = 1e-4;
  return v;
}

// Flow through the valve alone between two reservoirs dp apart, solved by the network solver.
double flowAt(const core::ControlValveSpec& valve, double opening, double dp, double rho) {
  core::FlowNetwork net;
  const auto a = net.addNode("a");
  const auto b = net.addNode("b");
  net.addLink("valve", a, b);
  std::vector<thermal::NodeCondition> nodes(2);
  nodes[0] = {true, dp, 0.0, 0.0};
  nodes[1] = {true, 0.0, 0.0, 0.0};
  thermal::HydraulicSolver solver(net, {LinkLaw::makeControlValve(valve, opening)}, nodes);
  FluidState fluid;
  fluid.rho = rho;
  const thermal::SolveStatus status = solver.solve(fluid, 1e-12);
  REQUIRE(status.converged);
  return solver.V_flow()[0];
}

}  // namespace

TEST_CASE("A fully open control valve passes Cv gpm of 60 degF water at 1 psi", "[thermal]") {
  // ISA-75.01.01: Q = Cv sqrt(dp / SG), SG = rho / rho(60 degF water = 999 kg/m3).
  const auto valve = valveOfCv(25.0, core::ControlValveSpec::Characteristic::Linear);
  CHECK(flowAt(valve, 1.0, kPsi, 999.0) / kGpm == Approx(25.0).epsilon(2e-4));
  // Four times the drop doubles the flow; a denser fluid (SG 1.02) passes 1/sqrt(1.02) as much.
  CHECK(flowAt(valve, 1.0, 4.0 * kPsi, 999.0) / kGpm == Approx(50.0).epsilon(2e-4));
  CHECK(flowAt(valve, 1.0, kPsi, 1.02 * 999.0) / kGpm
        == Approx(25.0 / std::sqrt(1.02)).epsilon(2e-4));
}

TEST_CASE("Inherent characteristics: linear and equal-percentage at constant dp", "[thermal]") {
  using C = core::ControlValveSpec::Characteristic;
  const auto linear = valveOfCv(10.0, C::Linear);
  const auto equal = valveOfCv(10.0, C::EqualPercentage);
  const double full = flowAt(linear, 1.0, kPsi, 999.0);
  // Linear: flow ratio = l + (1 - l) x (IEC 60534-2-4 inherent linear characteristic).
  CHECK(flowAt(linear, 0.3, kPsi, 999.0) / full == Approx(1e-4 + (1.0 - 1e-4) * 0.3).epsilon(1e-6));
  // Equal percentage: flow ratio = R^(x - 1); each 10 % of travel multiplies the flow by R^0.1.
  CHECK(flowAt(equal, 0.5, kPsi, 999.0) / full == Approx(std::pow(50.0, -0.5)).epsilon(1e-6));
  const double ratio = flowAt(equal, 0.8, kPsi, 999.0) / flowAt(equal, 0.7, kPsi, 999.0);
  CHECK(ratio == Approx(std::pow(50.0, 0.1)).epsilon(1e-6));
  // Closed: only the leakage passes, and the characteristic is continuous at the 1 % joint.
  CHECK(flowAt(equal, 0.0, kPsi, 999.0) / full == Approx(1e-4).epsilon(1e-6));
  CHECK(thermal::controlValveCharacteristic(equal, 0.01 - 1e-12)
        == Approx(thermal::controlValveCharacteristic(equal, 0.01)).epsilon(1e-9));
  // Monotone over the whole travel.
  double last = 0.0;
  for (int i = 0; i <= 1000; ++i) {
    const double phi = thermal::controlValveCharacteristic(equal, i / 1000.0);
    CHECK(phi > last);
    last = phi;
  }
}

TEST_CASE("The actuator strokes at 1/stroke_time and stops at its command", "[thermal]") {
  auto valve = valveOfCv(10.0, core::ControlValveSpec::Characteristic::Linear);
  valve.stroke_time = 60.0;
  double x = 0.0;
  for (int s = 0; s < 30; ++s)
    x = thermal::strokeValve(valve, x, 1.0, 1.0);
  CHECK(x == Approx(0.5).epsilon(1e-12));  // half the stroke in half the stroke time
  for (int s = 0; s < 100; ++s)
    x = thermal::strokeValve(valve, x, 0.8, 1.0);
  CHECK(x == Approx(0.8).epsilon(1e-12));  // holds at the command, no overshoot
  CHECK(thermal::strokeValve(valve, 0.8, -3.0, 1000.0) == 0.0);  // commands clamp to travel
  valve.stroke_time = 0.0;
  CHECK(thermal::strokeValve(valve, 0.1, 0.9, 1e-3) == 0.9);  // no actuator limit
}
