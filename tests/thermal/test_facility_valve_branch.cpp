// The CDU's facility-side valve when facility water is a boundary: a differential pressure across
// the CDU drives the flow through the valve and the exchanger's primary side in series. With
// quadratic laws, dp_b = (rho / (A_v phi)^2 + k) V^2 and dp_b = (rho / A_v^2 + k) V_n^2 (the
// default boundary passes V_n at full opening), so with the authority N = (rho / A_v^2) /
// (rho / A_v^2 + k):
//   V(x) = V_n phi(x) / sqrt(N + (1 - N) phi(x)^2)     (the installed characteristic)
// with phi = l + (1 - l) x (linear) or R^(x - 1) (equal percentage).
#include <catch2/catch.hpp>
#include <cmath>

#include "CoolingRig.hpp"
#include "SmallSite.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/thermal/Coolant.hpp"
#include "racktwin/thermal/FacilityValveBranch.hpp"

using namespace racktwin;
using Characteristic = core::ControlValveSpec::Characteristic;

namespace {

constexpr double kRho = 995.0;  // kg/m3, the water of the branch tests

// A valve and exchanger sized for authority N at V_n: the exchanger drops dp_hx at V_n and the
// open valve N / (1 - N) dp_hx.
struct Sizing {
  core::ControlValveSpec valve;
  core::PressureDropLaw hx;
};
Sizing sized(double V_n, double dp_hx, double N, Characteristic c) {
  Sizing s;
  const double dp_valve = N / (1.0 - N) * dp_hx;
  s.valve.A_v = V_n * std::sqrt(kRho / dp_valve);
  s.valve.characteristic = c;
  s.valve.rangeability = 50.0;
  s.valve.leakage = 1e-4;
  s.hx.power_law = {dp_hx, V_n, 2.0};
  return s;
}

double phi(const core::ControlValveSpec& v, double x) {
  return v.characteristic == Characteristic::Linear ? v.leakage + (1.0 - v.leakage) * x
                                                    : std::pow(v.rangeability, x - 1.0);
}

double installed(double V_n, double N, double p) {
  return V_n * p / std::sqrt(N + (1.0 - N) * p * p);
}

}  // namespace

TEST_CASE("Facility valve branch: the installed characteristic of a quadratic branch",
          "[thermal][facility_valve]") {
  const double V_n = 360.0 * core::kLitrePerMinute_m3_per_s;
  const thermal::FluidState water{kRho, 0.76e-3};
  for (const Characteristic c : {Characteristic::Linear, Characteristic::EqualPercentage}) {
    for (const double N : {0.2, 0.5, 0.8}) {
      const Sizing s = sized(V_n, 40e3, N, c);
      const thermal::FacilityValveBranch branch(s.valve, s.hx, V_n, 0.0, water);
      CHECK(branch.authority() == Approx(N).epsilon(1e-12));
      CHECK(branch.boundaryDifferentialPressure() == Approx(40e3 / (1.0 - N)).epsilon(1e-12));
      for (const double x : {0.05, 0.2, 0.5, 0.78, 1.0}) {
        CHECK(branch.flow(x) == Approx(installed(V_n, N, phi(s.valve, x))).epsilon(1e-9));
      }
      CHECK(branch.flow(1.0) == Approx(V_n).epsilon(1e-9));
    }
  }
  // A boundary of its own: V scales with sqrt(dp_b) on a quadratic branch.
  const Sizing s = sized(V_n, 40e3, 0.5, Characteristic::EqualPercentage);
  const thermal::FacilityValveBranch strong(s.valve, s.hx, V_n, 2.0 * 80e3, water);
  CHECK(strong.flow(1.0) == Approx(std::sqrt(2.0) * V_n).epsilon(1e-9));
  CHECK(strong.authority() == Approx(0.5).epsilon(1e-12));  // a property of the sizing
}

TEST_CASE("Facility valve branch: a non-quadratic exchanger balances the boundary dp",
          "[thermal][facility_valve]") {
  const double V_n = 1e-3;
  const thermal::FluidState water{kRho, 0.76e-3};
  Sizing s = sized(V_n, 40e3, 0.5, Characteristic::EqualPercentage);
  s.hx.power_law.exponent = 1.76;
  const thermal::FacilityValveBranch branch(s.valve, s.hx, V_n, 0.0, water);
  CHECK(branch.flow(1.0) == Approx(V_n).epsilon(1e-9));
  double previous = 0.0;
  for (int k = 0; k <= 20; ++k) {
    const double x = k / 20.0;
    const double V = branch.flow(x);
    CHECK(V > previous);  // opening further always passes more
    previous = V;
    // The series laws add up to the boundary: rho (V / (A_v phi))^2 + dp_n (V / V_n)^1.76.
    const double dp_valve = kRho * std::pow(V / (s.valve.A_v * phi(s.valve, x)), 2.0);
    const double dp_hx = 40e3 * std::pow(V / V_n, 1.76);
    if (x >= 0.01)  // phi below 1 % opening is the shut-off ramp, not R^(x-1)
      CHECK(dp_valve + dp_hx == Approx(80e3).epsilon(1e-9));
  }
}

TEST_CASE("A CDU on boundary facility water settles where its installed characteristic says",
          "[thermal][facility_valve]") {
  // The same heat and supply set-point need the same facility flow whatever the valve: the run
  // with flow = nominal x opening settles at opening x_p, so the one with the valve branch must
  // pass V_n x_p at its own settled opening, and that opening and flow lie on V(x) above.
  core::SiteSpec proportional = test::smallSite(2, 1);
  core::SiteSpec hydraulic = proportional;
  core::CduSpec& cdu = hydraulic.cdus[0];
  const double V_n = cdu.facility_V_flow_nominal;
  const double rho = thermal::Coolant::water().at(hydraulic.facility.T_supply).rho;
  const double N = 0.5, dp_hx = 40e3;
  cdu.facility_valve.A_v = V_n * std::sqrt(rho / (N / (1.0 - N) * dp_hx));
  cdu.facility_valve.characteristic = Characteristic::EqualPercentage;
  cdu.facility_valve.rangeability = 50.0;
  cdu.hx_facility_dp.power_law = {dp_hx, V_n, 2.0};
  test::CoolingRig a(proportional), b(hydraulic);
  CHECK(!a.model.cduValveAuthority(0).has_value());
  REQUIRE(b.model.cduValveAuthority(0).has_value());
  CHECK(*b.model.cduValveAuthority(0) == Approx(N).epsilon(1e-9));
  CHECK(b.summary("facility_valve_authority_min").value() == Approx(N).epsilon(1e-9));
  for (int s = 0; s < 3000; ++s) {
    a.step(600.0);
    b.step(600.0);
  }
  const double x_p = a.model.cduValveOpening(0), x_h = b.model.cduValveOpening(0);
  REQUIRE(x_p > 0.1);
  REQUIRE(x_p < 0.7);
  CHECK(a.model.cduSupplyTemperature(0) == Approx(cdu.T_supply_set).margin(0.01));
  CHECK(b.model.cduSupplyTemperature(0) == Approx(cdu.T_supply_set).margin(0.01));
  CHECK(b.model.cduFacilityFlow(0)
        == Approx(installed(V_n, N, phi(cdu.facility_valve, x_h))).epsilon(1e-9));
  CHECK(b.model.cduFacilityFlow(0) == Approx(x_p * V_n).epsilon(1e-3));
  // Equal percentage at N = 0.5 passes less than linear-proportional below full opening, so the
  // valve stands further open for the same duty.
  CHECK(x_h > x_p + 0.1);
  CHECK(b.balance() < 1e-9);
}
