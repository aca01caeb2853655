// The sweep of a loop with one CDU keeps its flow-only factors between steps (CoolingSweepSingle)
// and solves the same implicit step as the general sweep, which every loop can be told to take:
// the two runs must agree to round-off through load swings, the valve and pump controllers, a
// clogged plate (its flow changes the factors), a plate blocked outright (no flow in it), a pump
// trip (the flow stops: the general sweep takes over) and the standby's restart.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "CoolingRig.hpp"
#include "SmallSite.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

using namespace racktwin;

namespace {

/// Three racks of four two-GPU trays on one CDU with reverse-return row headers and a standby
/// pump: junctions that mix several inflows, headers and hoses of several cells.
core::SiteSpec headerSite() {
  core::SiteSpec site = test::rowSite(3, core::RowHeaderSpec::Return::Reverse,
                                      core::PipeSpec{0.6, 0.05, 4.5e-5, 2}, 4, 2);
  core::CduSpec& cdu = site.cdus[0];
  cdu.pumps_installed = 2;
  cdu.pumps_duty = 1;
  cdu.standby_switchover_time = 30.0;
  return site;
}

/// A rig whose GPUs swing synchronously between compute and communication, each at its own level.
struct Run : test::CoolingRig {
  using CoolingRig::CoolingRig;
  void swing(double dt) {
    for (std::size_t g = 0; g < state.gpu_E_step.size(); ++g) {
      const double P = (std::fmod(t, 4.0) < 3.0 ? 1100.0 : 450.0) + 15.0 * static_cast<double>(g);
      state.gpu_E_step[g] = P * dt;
    }
    for (double& E : state.rack_air_E_step)
      E = 800.0 * dt;
    model.advance(t, dt, state);
    t += dt;
  }
};

double relative(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(a), std::abs(b));
}

}  // namespace

TEST_CASE("The single-CDU sweep agrees with the general sweep to round-off", "[thermal]") {
  const core::SiteSpec site = headerSite();
  Run fast(site, false);
  Run general(site, true);
  double worst_T = 0.0, worst_E = 0.0, worst_Q = 0.0;
  auto compare = [&] {
    for (std::size_t g = 0; g < fast.state.gpu_T_junction.size(); ++g)
      worst_T = std::max(worst_T,
                         relative(fast.state.gpu_T_junction[g], general.state.gpu_T_junction[g]));
    worst_T = std::max(worst_T, relative(fast.model.cduSupplyTemperature(0),
                                         general.model.cduSupplyTemperature(0)));
    worst_T = std::max(worst_T, relative(fast.model.cduReturnTemperature(0),
                                         general.model.cduReturnTemperature(0)));
    worst_E = std::max(worst_E, relative(fast.model.storedEnergy(), general.model.storedEnergy()));
    // The heat rejected is small in the first steps: its difference is measured against the heat
    // put in so far.
    worst_Q = std::max(worst_Q, std::abs(fast.model.heatRejected() - general.model.heatRejected())
                                    / fast.model.heatInput());
  };
  auto both = [&](auto&& f) {
    f(fast);
    f(general);
  };
  for (int s = 0; s < 600; ++s) {
    both([](Run& r) { r.swing(1.0); });
    compare();
  }
  // A clogged plate changes the flows and so the cached factors.
  both([](Run& r) {
    REQUIRE(r.event(core::EventKind::ClogColdPlate, "row1/rack02/tray02/gpu1", 4.0));
  });
  for (int s = 0; s < 120; ++s) {
    both([](Run& r) { r.swing(1.0); });
    compare();
  }
  // A plate blocked outright carries no flow while the rest of the loop flows: the single sweep
  // stays, and that plate's die and cell are closed as the general sweep closes them.
  both([](Run& r) {
    REQUIRE(r.event(core::EventKind::ClogColdPlate, "row1/rack03/tray01/gpu0", 1e30));
  });
  for (int s = 0; s < 60; ++s) {
    both([](Run& r) { r.swing(1.0); });
    compare();
  }
  // A pump trip: the flow stops until the standby starts.
  both([](Run& r) { REQUIRE(r.event(core::EventKind::PumpTrip, "row1/cdu1")); });
  for (int s = 0; s < 300; ++s) {
    both([](Run& r) { r.swing(0.5); });
    compare();
  }
  CHECK(fast.model.cduPumpsRunning(0) == 1);  // the standby took over
  // Both sweeps divide by 1 - (the share of the suction temperature that survives a pass), small
  // when a pass removes little heat, so both carry round-off amplified by its inverse: ~1e-12 of
  // the temperatures, and the heat rejected, G (T - T_facility) summed over the run, follows
  // differences of a few kelvin.
  CHECK(worst_T < 1e-11);
  CHECK(worst_E < 1e-11);
  CHECK(worst_Q < 1e-9);
  CHECK(fast.model.maxGpuJunctionTemperature()
        == Approx(general.model.maxGpuJunctionTemperature()).epsilon(1e-12));
}
