// The CDU's controls against their references: the secondary pump's VFD speed as Modelica
// Buildings' movers filter it (Buildings.Fluid.BaseClasses.ActuatorFilter, a 2nd-order critically
// damped filter with riseTime = 30 s by default), and a dp PI with the gains a Buildings user
// would type settling without limit cycling.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "CoolingRig.hpp"
#include "SmallSite.hpp"
#include "ValidationRecord.hpp"
#include "racktwin/core/Units.hpp"

using namespace racktwin;

namespace {

// The pump dp PI with the gains of Buildings' CDU example (1/60 per kPa, Ti = 120 s) on the small
// site, whose least favoured rack reaches 60 kPa between the speed limits (the PI test in
// test_components.cpp settles there).
core::SiteSpec buildingsStylePumpControl() {
  core::SiteSpec site = test::smallSite(2, 1);
  core::CduSpec& cdu = site.cdus[0];
  cdu.pump_dp_set = 60e3;
  cdu.pump_dp_gain = 1.0 / 60e3;  // 1/60 per kPa
  cdu.pump_dp_integral_time = 120.0;
  cdu.pump_speed_min = 0.05;
  cdu.pump_rise_time = 30.0;  // Buildings' movers: riseTime = 30 s
  return site;
}

struct SpeedTrace {
  std::vector<double> speed, dp;
};

SpeedTrace runPumpControl(const core::SiteSpec& site, double dt, double duration) {
  test::CoolingRig rig(site);
  SpeedTrace trace;
  const int steps = static_cast<int>(std::lround(duration / dt));
  for (int s = 0; s < steps; ++s) {
    rig.step(1000.0, dt);
    trace.speed.push_back(rig.model.cduPumpSpeed(0));
    trace.dp.push_back(rig.model.rackDifferentialPressures()[0]);
  }
  return trace;
}

// Settled: over the last `tail` samples the speed's total variation is tiny, no sample sits at a
// speed limit, and the rack dp is within 0.5 % of the set-point (the solve follows the speed
// within 0.1 %, so dp lags by ~0.2 %).
void checkSettled(const SpeedTrace& trace, std::size_t tail, double speed_min) {
  REQUIRE(trace.speed.size() > tail);
  const std::size_t first = trace.speed.size() - tail;
  double variation = 0.0;
  int at_limit = 0;
  for (std::size_t k = first; k < trace.speed.size(); ++k) {
    if (k > first) variation += std::abs(trace.speed[k] - trace.speed[k - 1]);
    if (trace.speed[k] >= 1.0 - 1e-9 || trace.speed[k] <= speed_min + 1e-9) ++at_limit;
  }
  CHECK(at_limit == 0);
  CHECK(variation < 1e-3);
  for (std::size_t k = first; k < trace.dp.size(); k += tail / 10)
    CHECK(trace.dp[k] == Approx(60e3).epsilon(5e-3));
}

}  // namespace

TEST_CASE("Buildings-style pump dp gains settle without limit cycling", "[thermal][cdu]") {
  const core::SiteSpec site = buildingsStylePumpControl();
  SECTION("1 s steps") {
    checkSettled(runPumpControl(site, 1.0, 1800.0), 600, site.cdus[0].pump_speed_min);
  }
  SECTION("10 s macro steps (cycled internally)") {
    checkSettled(runPumpControl(site, 10.0, 1800.0), 60, site.cdus[0].pump_speed_min);
  }
}

TEST_CASE("The pump drive follows a speed step like Buildings' 2nd-order actuator filter",
          "[thermal][cdu][validation]") {
  // Buildings.Fluid.BaseClasses.ActuatorFilter (n = 2, normalised) with f = 5 / (2 pi riseTime):
  // two lags of w_u = 2 pi f / sqrt(sqrt(2) - 1), so a step from s0 to u gives
  // s(t) = u + (s0 - u) (1 + w_u t) exp(-w_u t), 99.6 % of the step after riseTime.
  core::SiteSpec site = test::smallSite(2, 1);
  site.cdus[0].pump_rise_time = 30.0;
  const double s0 = site.cdus[0].pump.speed, u = 0.5;
  const double w_u = 5.0 / 30.0 / std::sqrt(std::sqrt(2.0) - 1.0);
  const auto expected = [&](double t) {
    return u + (s0 - u) * (1.0 + w_u * t) * std::exp(-w_u * t);
  };
  test::WorstError worst;
  for (const double dt : {1.0, 10.0}) {
    test::CoolingRig rig(site);
    REQUIRE(rig.event(core::EventKind::SetPumpSpeed, "row1/cdu1", u));
    CHECK(rig.model.cduPumpSpeed(0) == s0);  // the drive has not moved yet
    const int solves_before = rig.model.hydraulicSolves();
    for (int k = 0; k < static_cast<int>(120.0 / dt); ++k) {
      rig.step(1000.0, dt);
      CHECK(rig.model.cduPumpSpeed(0) == Approx(expected(rig.t)).epsilon(1e-12));
      worst.add(rig.model.cduPumpSpeed(0), expected(rig.t), true);
      if (std::abs(rig.t - 30.0) < 1e-9)
        CHECK((rig.model.cduPumpSpeed(0) - s0) / (u - s0) == Approx(0.996).margin(5e-4));
    }
    // The loop is solved again as the speed moves (each 0.1 %), not after it has settled.
    CHECK(rig.model.hydraulicSolves() > solves_before);
    for (int k = 0; k < static_cast<int>(60.0 / dt); ++k)
      rig.step(1000.0, dt);
    // The hydraulics follow: rack dp at the settled speed is that of an instant change.
    core::SiteSpec instant = site;
    instant.cdus[0].pump_rise_time = 0.0;
    test::CoolingRig direct(instant);
    REQUIRE(direct.event(core::EventKind::SetPumpSpeed, "row1/cdu1", u));
    CHECK(rig.model.rackDifferentialPressures()[0]
          == Approx(direct.model.rackDifferentialPressures()[0]).epsilon(5e-3));
  }
  test::recordValidation({"CDU pump drive (speed command to speed)",
                          "Speed step from the design speed to 50 %, rise time 30 s, 1 s and 10 s "
                          "steps: speed over 120 s",
                          "Modelica Buildings' ActuatorFilter (2nd order, critically damped): "
                          "s(t) = u + (s0 - u)(1 + w t) exp(-w t)",
                          "buildings-actuator.md",
                          "The pump drive follows a speed step like Buildings' 2nd-order actuator "
                          "filter",
                          "1", true, 1e-12, worst.value()});
}
