// Quasi-steady fast-forward (simulation.fast_forward, docs/ARCHITECTURE.md "The step rule"):
// against the same scenario at fixed fine steps, a fault keeps its ride-through and peak
// temperature with fine steps around the event, and quiet hours of the 64-rack hall keep their
// PUE within 0.1 % (issue 19's goal) and their energy balances, at a fraction of the steps. Both
// runs use the training job's period-average power (`power: average`), so the difference is the
// step rule's alone.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

namespace {

using racktwin::core::SiteSpec;
using racktwin::scenarios::Twin;

struct Run {
  std::vector<double> ends;  // s, the end of every step
  racktwin::core::Summary summary;
};

Run runToEnd(const SiteSpec& site) {
  Twin twin(site);
  twin.initialize();
  Run run;
  bool more = true;
  while (more) {
    more = twin.step();
    run.ends.push_back(twin.time());
  }
  run.summary = twin.finish(true);
  return run;
}

double value(const Run& run, const std::string& key) {
  const auto v = run.summary.value(key);
  INFO("summary key " << key);
  REQUIRE(v.has_value());
  return *v;
}

SiteSpec withFastForward(SiteSpec site, double max_step, double tolerance, double settle) {
  site.simulation.fast_forward.enabled = true;
  site.simulation.fast_forward.max_step = max_step;
  site.simulation.fast_forward.tolerance = tolerance;
  site.simulation.fast_forward.settle = settle;
  return site;
}

/// A shipped scenario with its training jobs at average power and records every `record` s.
SiteSpec averagedScenario(const std::string& name, double record) {
  SiteSpec site = racktwin::scenarios::loadScenario(racktwin::test::sourcePath(name));
  site.simulation.record_interval = record;
  for (auto& job : site.jobs)
    job.average_power = true;
  return site;
}

}  // namespace

TEST_CASE("fast-forward keeps a pump trip's ride-through and peak, with fine steps around it",
          "[scenarios][fast_forward]") {
  // One rack, its CDU's only pump trips at 600 s: the flow stops and the GPUs throttle.
  const SiteSpec fine = averagedScenario("scenarios/faults/cdu-pump-trip.yaml", 60.0);
  REQUIRE(fine.events.size() == 1);
  const double t_event = fine.events[0].time, settle = 60.0;
  const Run reference = runToEnd(fine);
  const Run fast = runToEnd(withFastForward(fine, 60.0, 0.05, settle));

  // Stated tolerances: the ride-through within a tenth of the fine step (1 s), the hottest GPU
  // within 0.1 K, the energy audit as tight as at fine steps.
  CHECK(value(fast, "ride_through_s") == Approx(value(reference, "ride_through_s")).margin(0.1));
  CHECK(value(fast, "max_gpu_temperature_K")
        == Approx(value(reference, "max_gpu_temperature_K")).margin(0.1));
  CHECK(value(fast, "energy_balance_relative_error") < 1e-9);
  CHECK(value(fast, "energy_audit_relative_error_max") < 1e-9);
  CHECK(value(fast, "pue") == Approx(value(reference, "pue")).epsilon(1e-3));

  // The step sequence: on the fine grid, never across a record time, long before the event, one
  // fine step at the event and through the settle time.
  double start = 0.0, longest_before = 0.0;
  for (const double end : fast.ends) {
    const double dt = end - start;
    CHECK(std::abs(end - std::round(end)) < 1e-9);  // fine grid: whole seconds
    CHECK(std::floor(end / 60.0 - 1e-9) <= std::floor(start / 60.0 + 1e-9));  // no record crossed
    if (end <= t_event) longest_before = std::max(longest_before, dt);
    if (start >= t_event && start < t_event + settle) CHECK(dt == Approx(1.0));
    start = end;
  }
  CHECK(longest_before == Approx(60.0));
  // The event falls on a step boundary.
  bool boundary = false;
  for (const double end : fast.ends)
    boundary = boundary || std::abs(end - t_event) < 1e-9;
  CHECK(boundary);
  CHECK(fast.ends.size() < reference.ends.size() / 3);
  CHECK(value(fast, "fast_forward_steps") == static_cast<double>(fast.ends.size()));
}

TEST_CASE("fast-forward: quiet hours of the 64-rack hall keep their PUE within 0.1 %",
          "[scenarios][fast_forward]") {
  // 4,608 GPUs training for four hours (a checkpoint every 30 min) at the period-average power,
  // one fast sub-step; controllers sampled every 10 s (the annual bench's setting).
  SiteSpec fine = averagedScenario("scenarios/cluster-64-racks.yaml", 600.0);
  const double duration = 4.0 * 3600.0, max_step = 300.0;
  fine.simulation.duration = duration;
  fine.simulation.substeps = 1;
  fine.simulation.control_step = 10.0;
  REQUIRE(fine.jobs.size() == 1);
  fine.jobs[0].duration = duration;
  const Run reference = runToEnd(fine);
  const Run fast = runToEnd(withFastForward(fine, max_step, 0.05, 60.0));

  CHECK(value(fast, "pue") == Approx(value(reference, "pue")).epsilon(1e-3));  // issue 19's goal
  CHECK(value(fast, "it_energy_J") == Approx(value(reference, "it_energy_J")).epsilon(1e-3));
  CHECK(value(fast, "max_gpu_temperature_K")
        == Approx(value(reference, "max_gpu_temperature_K")).margin(0.5));
  for (const Run* run : {&reference, &fast}) {
    // The bounds of the shipped hour (test_cluster_run.cpp) and the audit's.
    CHECK(value(*run, "energy_balance_relative_error") < 1e-6);
    CHECK(value(*run, "energy_audit_relative_error_max") < 1e-9);
  }
  // Far fewer steps. A disturbance (the warm-up from the initial state, each of the 7
  // checkpoints) costs fine steps while the junctions move faster than the tolerance per fine
  // step (tens of seconds for a 70 % power step), then about 2 log2(max_step / step) ~ 16 steps
  // of doubling back to max_step: at most 80 steps each, besides the duration in max_steps.
  const double disturbances = 1.0 + 7.0;
  const double bound = duration / max_step + 80.0 * disturbances;
  CHECK(static_cast<double>(fast.ends.size()) < bound);
  CHECK(value(fast, "fast_forward_longest_step_s") == Approx(max_step));
}

TEST_CASE("fast-forward settles a liquid-to-air CDU's fan PI where fine steps do",
          "[scenarios][fast_forward]") {
  // A GB300 rack on a 70 kW sidecar CDU whose fans (the "valve" PI's output) hold the secondary
  // supply; the job at a constant 35 %. Over a fast-forward step the PI is solved for the step's
  // end with the coil's gain on the fan speed (CduUnit::supplyGain); it must settle where the
  // same PI settles at fixed 1 s steps.
  const std::string text = R"(racktwin_scenario: 1
name: "sidecar"
simulation: {duration: 3600 s, step: 1 s, substeps: 1, record_interval: 600 s}
coolant: PG25
facility_water: {supply_temperature: 32 degC}
room: {supply_air_temperature: 24 degC, crah_conductance: 10 kW/K, crah_capacity: 200 kW}
cdus:
  - {id: row1/cdu1, type: sidecar-l2a-70kw}
racks:
  - {id: row1/rack01, type: gb300-nvl72, cdu: row1/cdu1}
workload:
  - id: train1
    type: training
    racks: all
    start: 0 s
    duration: 3600 s
    iteration: {compute: 3 s, compute_power: 35 %, communication: 1 s, communication_power: 35 %}
)";
  const SiteSpec fine = racktwin::scenarios::loadScenarioFromString(
      text, racktwin::test::sourcePath("scenarios/sidecar.yaml"), "");
  REQUIRE(fine.cdus.at(0).rejection == racktwin::core::CduSpec::Rejection::RoomAir);
  const auto settle = [](const SiteSpec& site) {
    Twin twin(site);
    twin.initialize();
    while (twin.step()) {
    }
    return std::pair{twin.cooling().cduSupplyTemperature(0), twin.cooling().cduValveOpening(0)};
  };
  const auto [T_fine, fan_fine] = settle(fine);
  const auto [T_fast, fan_fast] = settle(withFastForward(fine, 300.0, 0.05, 60.0));
  INFO("supply: fine " << T_fine << " K, fast " << T_fast << " K; fans: fine " << fan_fine
                       << ", fast " << fan_fast);
  REQUIRE(std::abs(T_fine - fine.cdus[0].T_supply_set) < 0.05);  // the reference holds it
  REQUIRE(fan_fine > fine.cdus[0].valve_opening_min + 0.05);     // with the fans in range
  REQUIRE(fan_fine < 0.95);
  CHECK(T_fast == Approx(T_fine).margin(0.05));
  CHECK(fan_fast == Approx(fan_fine).margin(0.02));
}
