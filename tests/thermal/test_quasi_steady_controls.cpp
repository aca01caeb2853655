// The CDU controllers over whole fast-forward steps (CduUnit::controlValveQuasiSteady,
// controlPumpQuasiSteady): a step of minutes is one thermal cycle whose PIs are solved for the
// step's end. They must settle where the same PIs settle when sampled every second (the
// reference here is the same rig at 1 s steps), and not swing about the set-point on the way as
// the same PI sampled every 300 s does.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "CoolingRig.hpp"
#include "SmallSite.hpp"

using namespace racktwin;

namespace {

struct Settled {
  double T_supply = 0.0, valve = 0.0, speed = 0.0, dp = 0.0;
  std::vector<double> error;  // K, supply - set-point after each step
};

Settled run(core::SiteSpec site, double P, double dt, double duration, bool fast_forward) {
  site.simulation.fast_forward.enabled = fast_forward;
  if (fast_forward) {
    site.simulation.fast_forward.max_step = 300.0;
    site.simulation.fast_forward.tolerance = 0.05;
  }
  test::CoolingRig rig(site);
  Settled out;
  const int steps = static_cast<int>(std::lround(duration / dt));
  for (int k = 0; k < steps; ++k) {
    rig.step(P, dt);
    out.error.push_back(rig.model.cduSupplyTemperature(0) - site.cdus[0].T_supply_set);
  }
  out.T_supply = rig.model.cduSupplyTemperature(0);
  out.valve = rig.model.cduValveOpening(0);
  out.speed = rig.model.cduPumpSpeed(0);
  out.dp = rig.model.rackDifferentialPressures()[0];
  return out;
}

}  // namespace

TEST_CASE("fast-forward steps of 300 s settle the valve PI where 1 s steps do, without swinging",
          "[thermal][cdu][fast_forward]") {
  const core::SiteSpec site = test::smallSite(2, 1);
  const double P = 600.0;
  const Settled fine = run(site, P, 1.0, 3600.0, false);
  const Settled fast = run(site, P, 300.0, 3600.0, true);
  INFO("valve: fine " << fine.valve << ", fast " << fast.valve << "; supply - set-point: fine "
                      << fine.error.back() << " K, fast " << fast.error.back() << " K");
  // The reference holds its set-point with the valve between its limits (a real test of the PI).
  REQUIRE(std::abs(fine.error.back()) < 0.05);
  REQUIRE(fine.valve > site.cdus[0].valve_opening_min + 0.05);
  REQUIRE(fine.valve < 0.95);
  CHECK(fast.T_supply == Approx(fine.T_supply).margin(0.05));
  CHECK(fast.valve == Approx(fine.valve).margin(0.02));
  // No swing: once the error first changes sign it stays within a quarter of the peak before
  // (one damped undershoot, as a PI's step answer), and it ends within 0.02 K.
  std::size_t crossing = 1;
  while (crossing < fast.error.size() && fast.error[crossing] * fast.error[crossing - 1] > 0.0)
    ++crossing;
  double before = 0.0, after = 0.0;
  for (std::size_t k = 0; k < fast.error.size(); ++k)
    (k < crossing ? before : after) =
        std::max(k < crossing ? before : after, std::abs(fast.error[k]));
  INFO("peak before the first sign change " << before << " K, after " << after << " K");
  CHECK(after <= 0.25 * before);
  // Why: the same PI sampled every 300 s the ordinary way (control_step 300 s, no fast-forward)
  // swings by kelvins about the set-point.
  core::SiteSpec sampled = site;
  sampled.simulation.control_step = 300.0;
  const Settled slow = run(sampled, P, 300.0, 3600.0, false);
  double swing = 0.0;
  for (std::size_t k = slow.error.size() / 2; k < slow.error.size(); ++k)
    swing = std::max(swing, std::abs(slow.error[k]));
  CHECK(swing > 1.0);
  CHECK(std::abs(fast.error.back()) < 0.02);
}

TEST_CASE("fast-forward steps of 300 s settle the pump dp PI where 1 s steps do",
          "[thermal][cdu][fast_forward]") {
  // The dp PI with the gains of Buildings' CDU example (test_cdu_controls.cpp).
  core::SiteSpec site = test::smallSite(2, 1);
  core::CduSpec& cdu = site.cdus[0];
  cdu.pump_dp_set = 60e3;
  cdu.pump_dp_gain = 1.0 / 60e3;
  cdu.pump_dp_integral_time = 120.0;
  cdu.pump_speed_min = 0.05;
  cdu.pump_rise_time = 30.0;
  const Settled fine = run(site, 1000.0, 1.0, 1800.0, false);
  const Settled fast = run(site, 1000.0, 300.0, 1800.0, true);
  INFO("speed: fine " << fine.speed << ", fast " << fast.speed);
  REQUIRE(fine.speed > cdu.pump_speed_min + 0.05);
  REQUIRE(fine.speed < 0.95);
  CHECK(fast.speed == Approx(fine.speed).epsilon(0.01));
  CHECK(fast.dp == Approx(60e3).epsilon(5e-3));
}
