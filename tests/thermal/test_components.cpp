// Coolant components as vendors specify them: quick disconnects by flow coefficient, tabulated
// pressure drops, parallel duty pumps with a standby, and the loop viscosity that follows the
// loop temperature. References are named beside each number.
#include <catch2/catch.hpp>
#include <cmath>

#include "SmallSite.hpp"
#include "racktwin/core/FlowNetwork.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/thermal/Coolant.hpp"
#include "racktwin/thermal/CoolingModel.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

using namespace racktwin;
using thermal::FluidState;
using thermal::LinkLaw;

namespace {

constexpr double kLpm = core::kLitrePerMinute_m3_per_s;
constexpr double kGpm = 3.785411784e-3 / 60.0;  // m3/s per US gallon per minute (exact)
constexpr double kPsi = 6894.757293168;         // Pa (NIST SP 811)

struct Rig {
  explicit Rig(core::SiteSpec spec)
      : site(std::move(spec)), layout(core::SiteLayout::build(site)), model(site, layout) {
    state.resize(layout, site.cdus[0].T_supply_set);
    model.initialize(state);
  }
  void step(double P, double dt = 1.0) {
    for (double& E : state.gpu_E_step)
      E = P * dt;
    for (double& E : state.rack_air_E_step)
      E = 0.0;
    model.advance(t, dt, state);
    t += dt;
  }
  bool trip() {
    core::EventSpec e;
    e.kind = core::EventKind::PumpTrip;
    e.target = site.cdus[0].id.str();
    e.time = t;
    return model.applyEvent(e, state);
  }
  core::SiteSpec site;
  core::SiteLayout layout;
  core::SiteState state;
  thermal::CoolingModel model;
  double t = 0.0;
};

// tank -> pump -> the given links in series -> tank, solved with water-like properties.
struct SeriesLoop {
  SeriesLoop(const LinkLaw& pump, const std::vector<LinkLaw>& series) {
    std::vector<core::FlowNetwork::Index> nodes{net.addNode("tank"), net.addNode("pump_out")};
    std::vector<LinkLaw> laws{pump};
    net.addLink("pump", nodes[0], nodes[1]);
    for (std::size_t k = 0; k < series.size(); ++k) {
      const bool last = k + 1 == series.size();
      const auto to = last ? nodes[0] : net.addNode("n" + std::to_string(k));
      net.addLink("l" + std::to_string(k), nodes.back(), to);
      if (!last) nodes.push_back(to);
      laws.push_back(series[k]);
    }
    solver = std::make_unique<thermal::HydraulicSolver>(net, laws, nodes[0], 0.0);
    status = solver->solve(FluidState{1000.0, 1e-3}, 1e-12);
  }
  double flow() const { return solver->V_flow()[0]; }
  core::FlowNetwork net;
  std::unique_ptr<thermal::HydraulicSolver> solver;
  thermal::SolveStatus status;
};

core::PressureDropTable strainerTable() {
  // dp 5, 15, 50 kPa at 10, 20, 40 L/min.
  return {{10.0 * kLpm, 20.0 * kLpm, 40.0 * kLpm}, {5e3, 15e3, 50e3}};
}

double dpOf(const LinkLaw& law, double V, double* gradient = nullptr) {
  return thermal::linkDp(law, V, FluidState{1000.0, 1e-3}, gradient);
}

}  // namespace

TEST_CASE("A flow coefficient Cv becomes dp = SG (Q/Cv)^2 psi", "[thermal]") {
  // ANSI/ISA-75.01.01: Cv is the flow in US gpm of 60 degF water (SG 1) at a 1 psi drop, and
  // Q = Cv sqrt(dp / SG) in turbulent flow.
  const LinkLaw unit = LinkLaw::makePowerLaw(thermal::powerLawFromCv(1.0, 1.0));
  CHECK(dpOf(unit, 1.0 * kGpm) == Approx(kPsi).epsilon(1e-12));
  CHECK(dpOf(unit, 2.0 * kGpm) == Approx(4.0 * kPsi).epsilon(1e-12));  // square of the flow
  CHECK(dpOf(unit, -1.0 * kGpm) == Approx(-kPsi).epsilon(1e-12));      // odd
  const LinkLaw wide = LinkLaw::makePowerLaw(thermal::powerLawFromCv(2.0, 1.0));
  CHECK(dpOf(wide, 1.0 * kGpm) == Approx(0.25 * kPsi).epsilon(1e-12));  // inverse square of Cv
  const LinkLaw dense = LinkLaw::makePowerLaw(thermal::powerLawFromCv(1.9, 1.02));
  CHECK(dpOf(dense, 1.9 * kGpm) == Approx(1.02 * kPsi).epsilon(1e-12));  // proportional to SG
  // SG reference: water at 60 degF (15.56 degC) is 999.0 kg/m3 at 1 atm (IAPWS-95); the coolant
  // model holds water at 3 bar, 0.09 kg/m3 denser (compressibility 4.6e-10 1/Pa).
  CHECK(thermal::Coolant::water().density(core::fromCelsius(15.5556))
        == Approx(thermal::kCvReferenceDensity).epsilon(2e-4));
}

TEST_CASE("A tabulated drop interpolates, extrapolates and is odd", "[thermal]") {
  const LinkLaw law = LinkLaw::makeTable(strainerTable());
  double g = 0.0;
  // From the origin to the first point: 5 kPa / 10 L/min.
  CHECK(dpOf(law, 5.0 * kLpm, &g) == Approx(2.5e3).epsilon(1e-12));
  CHECK(g == Approx(5e3 / (10.0 * kLpm)).epsilon(1e-12));
  // On the points and between them (hand interpolation).
  CHECK(dpOf(law, 20.0 * kLpm) == Approx(15e3).epsilon(1e-12));
  CHECK(dpOf(law, 15.0 * kLpm, &g) == Approx(10e3).epsilon(1e-12));
  CHECK(g == Approx(10e3 / (10.0 * kLpm)).epsilon(1e-12));
  CHECK(dpOf(law, 30.0 * kLpm) == Approx(32.5e3).epsilon(1e-12));
  // Beyond the last point along the last segment: 50 + 35/20 x 10 = 67.5 kPa at 50 L/min.
  CHECK(dpOf(law, 50.0 * kLpm, &g) == Approx(67.5e3).epsilon(1e-12));
  CHECK(g == Approx(35e3 / (20.0 * kLpm)).epsilon(1e-12));
  // Odd in the flow, zero at zero, positive gradient everywhere (also at zero flow).
  CHECK(dpOf(law, -15.0 * kLpm) == Approx(-10e3).epsilon(1e-12));
  CHECK(dpOf(law, -50.0 * kLpm) == Approx(-67.5e3).epsilon(1e-12));
  CHECK(dpOf(law, 0.0, &g) == 0.0);
  CHECK(g > 0.0);
  for (double V = -60.0; V <= 60.0; V += 0.7) {
    dpOf(law, V * kLpm, &g);
    CHECK(g > 0.0);
  }
}

TEST_CASE("A strainer table in series with an exchanger meets the pump at the hand operating point",
          "[thermal]") {
  // Pump: dp0 (s^2 - (Q/Vmax)^2); exchanger k Q^2; strainer on its segment 20..40 L/min:
  // a + b Q with b = 35 kPa / 20 L/min, a = 15 kPa - 20 L/min b. Series drops add, so
  // (dp0/Vmax^2 + k) Q^2 + b Q + a - s^2 dp0 = 0.
  core::PumpSpec pump{100e3, 60.0 * kLpm, 1.0, 0.6, 1e-3};
  const core::PowerLawDrop hx{20e3, 30.0 * kLpm, 2.0};
  SeriesLoop loop(LinkLaw::makePump(pump),
                  {LinkLaw::makePowerLaw(hx), LinkLaw::makeTable(strainerTable())});
  REQUIRE(loop.status.converged);
  const double k = hx.dp_nominal / (hx.V_flow_nominal * hx.V_flow_nominal);
  const double b = 35e3 / (20.0 * kLpm);
  const double a = 15e3 - 20.0 * kLpm * b;
  const double A = pump.dp_shutoff / (pump.V_flow_max * pump.V_flow_max) + k;
  const double C = a - pump.dp_shutoff;
  const double Q = (-b + std::sqrt(b * b - 4.0 * A * C)) / (2.0 * A);
  REQUIRE(Q > 20.0 * kLpm);  // on the assumed segment
  REQUIRE(Q < 40.0 * kLpm);
  CHECK(loop.flow() == Approx(Q).epsilon(1e-9));
  // The pump's rise equals the sum of the two drops at that flow.
  CHECK(-loop.solver->dp(0) == Approx(k * Q * Q + a + b * Q).epsilon(1e-9));
}

TEST_CASE("Two duty pumps in parallel meet a quadratic system curve at the closed-form point",
          "[thermal]") {
  // N identical pumps at speed s: dp = s^2 dp0 - dp0 (Q / (N Vmax))^2; system dp = k Q^2, so
  // Q = s sqrt(dp0 / (k + dp0 / (N Vmax)^2)).
  const core::PumpSpec pump{250e3, 450.0 * kLpm, 0.85, 0.6, 1e-3};
  const core::PowerLawDrop system{150e3, 300.0 * kLpm, 2.0};
  const double k = system.dp_nominal / (system.V_flow_nominal * system.V_flow_nominal);
  for (int n : {1, 2, 3}) {
    LinkLaw pumps = LinkLaw::makePump(pump);
    pumps.pumps_parallel = n;
    SeriesLoop loop(pumps, {LinkLaw::makePowerLaw(system)});
    REQUIRE(loop.status.converged);
    const double V = n * pump.V_flow_max;
    const double Q = pump.speed * std::sqrt(pump.dp_shutoff / (k + pump.dp_shutoff / (V * V)));
    INFO("pumps in parallel: " << n);
    CHECK(loop.flow() == Approx(Q).epsilon(1e-9));
  }
}

TEST_CASE("A pump trip with a standby: no flow for the switch-over time, then the pre-trip flow",
          "[thermal]") {
  core::SiteSpec site = test::smallSite(2, 1);
  site.cdus[0].pumps_installed = 2;
  site.cdus[0].pumps_duty = 1;
  site.cdus[0].standby_switchover_time = 5.0;
  Rig rig(site);
  for (int i = 0; i < 300; ++i)
    rig.step(1400.0);
  const double before = rig.model.cduSecondaryFlow(0);
  REQUIRE(before > 1e-5);
  REQUIRE(rig.model.cduPumpsRunning(0) == 1);
  REQUIRE(rig.trip());
  // One duty pump: during the switch-over no pump runs and the flow stops.
  for (int i = 0; i < 5; ++i) {
    CHECK(rig.model.cduPumpsRunning(0) == 0);
    CHECK(std::abs(rig.model.cduSecondaryFlow(0)) < 1e-9);
    rig.step(1400.0);
  }
  // The standby starts at trip + 5 s (the step that begins then): the flow of one pump again.
  rig.step(1400.0);
  CHECK(rig.model.cduPumpsRunning(0) == 1);
  CHECK(rig.model.cduSecondaryFlow(0) == Approx(before).epsilon(1e-6));
  CHECK(rig.state.gpu_throttled[0] == 0);  // 5 s without flow: the case nodes ride through
  // A second trip finds no healthy standby: the loop stops for good.
  REQUIRE(rig.trip());
  for (int i = 0; i < 60; ++i) {
    rig.step(1400.0);
    CHECK(std::abs(rig.model.cduSecondaryFlow(0)) < 1e-9);
  }
  CHECK(rig.model.cduPumpsRunning(0) == 0);
}

TEST_CASE("A pump trip without a standby stops the flow for good", "[thermal]") {
  core::SiteSpec site = test::smallSite(2, 1);  // one pump installed, one duty
  Rig rig(site);
  for (int i = 0; i < 100; ++i)
    rig.step(1000.0);
  REQUIRE(rig.trip());
  for (int i = 0; i < 120; ++i) {
    rig.step(1000.0);
    CHECK(std::abs(rig.model.cduSecondaryFlow(0)) < 1e-9);
    CHECK(rig.model.cduPumpsRunning(0) == 0);
  }
}

TEST_CASE("Two duty pumps and a standby: a trip runs on one, the standby restores two",
          "[thermal]") {
  core::SiteSpec site = test::smallSite(2, 1);
  site.cdus[0].pumps_installed = 3;
  site.cdus[0].pumps_duty = 2;
  site.cdus[0].standby_switchover_time = 3.0;
  site.cdus[0].pump.speed = 0.5;
  Rig rig(site);
  for (int i = 0; i < 100; ++i)
    rig.step(1000.0);
  const double two = rig.model.cduSecondaryFlow(0);
  REQUIRE(rig.model.cduPumpsRunning(0) == 2);
  REQUIRE(rig.trip());
  CHECK(rig.model.cduPumpsRunning(0) == 1);
  const double one = rig.model.cduSecondaryFlow(0);
  CHECK(one > 0.0);
  CHECK(one < two);  // one pump of the same curve delivers less into the same loop
  for (int i = 0; i < 4; ++i)
    rig.step(1000.0);
  CHECK(rig.model.cduPumpsRunning(0) == 2);
  CHECK(rig.model.cduSecondaryFlow(0) == Approx(two).epsilon(1e-6));
}

TEST_CASE("The pumps' hydraulic power is rise x flow and the electrical power its share",
          "[thermal]") {
  core::SiteSpec site = test::smallSite(2, 1);
  Rig rig(site);
  rig.step(1000.0);
  const double P_hyd = rig.model.cduPumpHydraulicPower(0);
  CHECK(P_hyd == Approx(rig.model.cduPumpHead(0) * rig.model.cduSecondaryFlow(0)).epsilon(1e-12));
  CHECK(P_hyd > 0.0);
}

TEST_CASE("A colder loop runs at a lower flow: PG25 viscosity rises as it cools", "[thermal]") {
  // PG25 viscosity 1.353 mPa s at 40 degC and 2.445 mPa s at 20 degC (Melinder 2010,
  // gb300_nvl72.md §3): more friction in the hoses and manifolds at the same pump speed.
  // Narrow 10 mm hoses make pipe friction, the viscous part of the loop, a sizeable share.
  auto steadyFlow = [](double T_set_degC, double T_facility_degC) {
    core::SiteSpec site = test::smallSite(2, 1);
    site.racks[0].type.hose.diameter = 0.010;
    site.cdus[0].T_supply_set = core::fromCelsius(T_set_degC);
    site.facility.T_supply = core::fromCelsius(T_facility_degC);
    Rig rig(site);
    for (int i = 0; i < 1500; ++i)
      rig.step(1000.0);
    return rig.model.cduSecondaryFlow(0);
  };
  const double warm = steadyFlow(40.0, 36.0);
  const double cold = steadyFlow(20.0, 16.0);
  INFO("flow at 40 degC " << warm << ", at 20 degC " << cold);
  CHECK(cold < warm * (1.0 - 1e-3));
  const thermal::Coolant pg25 = thermal::Coolant::propyleneGlycol(0.25);
  CHECK(pg25.viscosity(core::fromCelsius(20.0)) == Approx(2.445e-3).epsilon(2e-3));
  CHECK(pg25.viscosity(core::fromCelsius(40.0)) == Approx(1.353e-3).epsilon(2e-3));
}

TEST_CASE("The loop viscosity follows its mean temperature within 2 K, and energy still balances",
          "[thermal]") {
  // The loop starts at its set-point and warms under load: each time the mean of supply and
  // return has moved by more than 2 K, the hydraulics are solved again at the new viscosity
  // (lower when warmer, so the flow rises at the same pump speed).
  core::SiteSpec site = test::smallSite(3, 2);
  site.cdus[0].valve_gain = 0.02;  // a sluggish valve lets the loop temperature swing
  Rig rig(site);
  const double stored_initial = rig.model.storedEnergy();
  const int solves_initial = rig.model.hydraulicSolves();
  const double flow_initial = rig.model.cduSecondaryFlow(0);
  double flow_max = flow_initial;
  for (int i = 0; i < 1500; ++i) {
    const double P = i < 700 ? 1400.0 : 200.0 + 100.0 * std::sin(0.05 * i);
    rig.step(P);
    flow_max = std::max(flow_max, rig.model.cduSecondaryFlow(0));
  }
  CHECK(rig.model.hydraulicSolves() >= solves_initial + 2);
  CHECK(flow_max > flow_initial);
  const double balance = rig.model.heatInput() - rig.model.heatRejected()
                         - (rig.model.storedEnergy() - stored_initial);
  CHECK(std::abs(balance) / rig.model.heatInput() < 1e-9);
  CHECK(rig.model.largestMassImbalance() < 1e-9 * rig.model.cduSecondaryFlow(0));
}

TEST_CASE("A CDU strainer is a separate link in series after the exchanger", "[thermal]") {
  core::SiteSpec site = test::smallSite(2, 1);
  Rig without(site);
  site.cdus[0].has_strainer = true;
  site.cdus[0].strainer_volume = 1e-3;
  site.cdus[0].strainer_dp.form = core::PressureDropLaw::Form::Table;
  site.cdus[0].strainer_dp.table = {{2.0 * kLpm, 6.0 * kLpm}, {10e3, 40e3}};
  Rig with(site);
  // More loss in series: less flow at the same pump speed, and more head from the pump (its
  // curve falls with flow).
  CHECK(with.model.cduSecondaryFlow(0) < without.model.cduSecondaryFlow(0));
  CHECK(with.model.cduPumpHead(0) > without.model.cduPumpHead(0));
  const double stored_initial = with.model.storedEnergy();
  for (int i = 0; i < 300; ++i)
    with.step(1200.0);
  const double balance = with.model.heatInput() - with.model.heatRejected()
                         - (with.model.storedEnergy() - stored_initial);
  CHECK(std::abs(balance) / with.model.heatInput() < 1e-9);
}

TEST_CASE("The pump speed PI holds the least favoured rack's dp at its set-point", "[thermal]") {
  core::SiteSpec spec = test::smallSite(2, 1);
  core::CduSpec& cdu = spec.cdus[0];
  cdu.pump_dp_set = 60e3;  // Pa across the rack's manifolds
  cdu.pump_dp_gain = 2e-6;
  cdu.pump_dp_integral_time = 5.0;
  cdu.pump_speed_min = 0.2;
  Rig rig(spec);
  CHECK(rig.model.rackDifferentialPressures()[0] != Approx(60e3).epsilon(0.05));  // not there yet
  for (int s = 0; s < 300; ++s)
    rig.step(800.0);
  // The controller's dp is that of the last solve scaled by the affinity laws; the solve follows
  // within 0.1 % of speed, so the solved dp is within ~0.5 % of the set-point.
  CHECK(rig.model.rackDifferentialPressures()[0] == Approx(60e3).epsilon(5e-3));
  const double speed = rig.model.cduPumpSpeed(0);
  CHECK(speed > cdu.pump_speed_min);
  CHECK(speed < 1.0);
  // An operator sets the speed by hand; the PI goes on from there and restores the set-point.
  core::EventSpec e;
  e.kind = core::EventKind::SetPumpSpeed;
  e.target = "row1/cdu1";
  e.value = 0.5 * speed;
  REQUIRE(rig.model.applyEvent(e, rig.state));
  CHECK(rig.model.rackDifferentialPressures()[0] < 0.5 * 60e3);  // dp ~ speed^2
  for (int s = 0; s < 300; ++s)
    rig.step(800.0);
  CHECK(rig.model.rackDifferentialPressures()[0] == Approx(60e3).epsilon(5e-3));
  CHECK(rig.model.cduPumpSpeed(0) == Approx(speed).epsilon(5e-3));
}

TEST_CASE("The design summary traces the system curve: exponent 2 for a quadratic system",
          "[thermal]") {
  // Every resistance quadratic (plates and QDs at exponent 2, pipes wide enough to lose nothing):
  // dp = k V^2 through the whole loop, so the traced exponent is 2. Pump: dp = s^2 dp0 (1 -
  // (V / (s V_max))^2) meets it at V / (s V_max) = 1 / sqrt(1 + k V_max^2 / dp0), the same at any
  // speed (affinity), which the reported flow fraction must equal.
  core::SiteSpec spec = test::smallSite(2, 1);
  spec.racks[0].type.gpu.cold_plate.dp.exponent = 2.0;
  spec.racks[0].type.hose = {2.0, 0.5, 0.0, 1};
  spec.racks[0].type.manifold_segment = {0.089, 0.5, 0.0, 1};
  Rig rig(spec);
  core::Summary summary;
  rig.model.summarise(summary);
  CHECK(summary.value("system_curve_exponent").value() == Approx(2.0).epsilon(2e-3));
  const core::PumpSpec& pump = spec.cdus[0].pump;
  const double V = rig.model.cduSecondaryFlow(0);
  const double k = rig.model.cduPumpHead(0) / (V * V);
  const double fraction =
      1.0 / std::sqrt(1.0 + k * pump.V_flow_max * pump.V_flow_max / pump.dp_shutoff);
  CHECK(summary.value("pump_flow_fraction_of_curve").value() == Approx(fraction).epsilon(1e-6));
}
