// Resume: a run saved at the end of a step and restored in a fresh Twin continues bit for bit.
// Specified behaviour (issue 16): the finished records and summary of a run interrupted at any
// step and resumed from its checkpoint equal an uninterrupted run's exactly, for every model
// (training with failures and restarts, inference, trace replay, the scheduler, the power tree
// with batteries and generators, secondary loops, rings and the facility plant, events).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"

namespace {

using racktwin::scenarios::Twin;
using racktwin::test::RowTap;

struct Records {
  std::vector<double> times;
  std::vector<std::vector<double>> rows;
  std::string summary;
};

Records uninterrupted(const racktwin::core::SiteSpec& site) {
  Twin twin(site);
  RowTap tap;
  twin.addSink(tap);
  twin.initialize();
  while (twin.step()) {
  }
  Records out{tap.times, tap.rows, twin.finish(true).toJson()};
  return out;
}

/// Runs in len(cuts) + 1 twins: each saves its state after the step count in `cuts` (counted
/// from the start of the run), goes on a few steps (records the next twin must not keep, as a
/// killed process's), and the next one resumes from the saved state.
Records interrupted(const racktwin::core::SiteSpec& site, const std::vector<long>& cuts) {
  Records out;
  std::string state;
  long steps_done = 0;
  std::size_t kept = 0;  // records taken up to the last checkpoint
  for (std::size_t piece = 0; piece <= cuts.size(); ++piece) {
    Twin twin(site);
    RowTap tap;
    twin.addSink(tap);
    if (piece == 0) {
      twin.initialize();
    } else {
      twin.resume(state);
    }
    if (piece == cuts.size()) {
      while (twin.step()) {
      }
      out.summary = twin.finish(true).toJson();
      out.times.insert(out.times.end(), tap.times.begin(), tap.times.end());
      out.rows.insert(out.rows.end(), tap.rows.begin(), tap.rows.end());
      return out;
    }
    for (; steps_done < cuts[piece]; ++steps_done)
      REQUIRE(twin.step());
    state = twin.saveState();
    const std::size_t taken = twin.recorder().samplesTaken();
    REQUIRE(taken >= kept);
    out.times.insert(out.times.end(), tap.times.begin(), tap.times.begin() + (taken - kept));
    out.rows.insert(out.rows.end(), tap.rows.begin(), tap.rows.begin() + (taken - kept));
    kept = taken;
    for (int k = 0; k < 7 && twin.step(); ++k) {
    }
  }
  return out;
}

bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void requireSameRecords(const Records& a, const Records& b) {
  REQUIRE(a.times.size() == b.times.size());
  CHECK(sameBits(a.times, b.times));
  std::size_t different_rows = 0;
  for (std::size_t k = 0; k < a.rows.size(); ++k) {
    if (!sameBits(a.rows[k], b.rows[k])) {
      if (different_rows == 0) UNSCOPED_INFO("first different record at t = " << a.times[k]);
      ++different_rows;
    }
  }
  CHECK(different_rows == 0);
  CHECK(a.summary == b.summary);
}

}  // namespace

TEST_CASE("a run resumed from its checkpoints equals an uninterrupted run bit for bit",
          "[scenarios][resume]") {
  const char* name = GENERATE(
      "nvl72-rack.yaml", "training-swing.yaml", "inference-azure.yaml", "scheduler-queue.yaml",
      "power-smoothing.yaml", "facility-loop-rack.yaml", "cooling-tower-rack.yaml",
      "ring-16-racks.yaml", "faults/cdu-pump-trip.yaml", "faults/cdu-pump-trip-standby.yaml",
      "faults/clogged-cold-plate.yaml", "faults/valve-stuck.yaml", "faults/feed-a-loss.yaml",
      "faults/generator-fails-to-start.yaml", "faults/utility-outage.yaml",
      "faults/facility-excursion.yaml", "epanet-loop-rack.yaml", "inference-disaggregated.yaml");
  INFO("scenario " << name);
  const racktwin::core::SiteSpec site = racktwin::scenarios::loadScenario(
      racktwin::test::sourcePath(std::string("scenarios/") + name));
  const long steps = std::lround(site.simulation.duration / site.simulation.step);
  REQUIRE(steps > 20);
  const Records reference = uninterrupted(site);
  // Three cuts: early, inside the run's events (most shipped events are in its first third), and
  // late; none on a record time, and the last piece resumes a resumed run.
  const Records resumed = interrupted(site, {steps / 7 + 1, steps / 3 + 3, (4 * steps) / 5 + 1});
  requireSameRecords(reference, resumed);
}

TEST_CASE("a site of several facility loops resumes bit for bit", "[scenarios][resume]") {
  // Two halls, each on its own facility loop, with a plant fault on each loop inside the run.
  const racktwin::core::SiteSpec site = racktwin::scenarios::loadScenario(
      racktwin::test::sourcePath("tests/capacity/data/halls-2-explicit.yaml"));
  REQUIRE(site.facility.loops.size() == 2);
  const long steps = std::lround(site.simulation.duration / site.simulation.step);
  const Records reference = uninterrupted(site);
  const Records resumed = interrupted(site, {steps / 7 + 1, steps / 3 + 3, (4 * steps) / 5 + 1});
  requireSameRecords(reference, resumed);
}

TEST_CASE("a run whose control step is halved as its CDUs hunt resumes bit for bit",
          "[scenarios][resume][hunting]") {
  // The 64-rack hall at 10 s steps: its valve PIs hunt and the control step is halved twice,
  // at about 500 and 580 s (tests/scenarios/test_hunting.cpp). Cuts before, between and after.
  racktwin::core::SiteSpec site = racktwin::scenarios::loadScenario(
      racktwin::test::sourcePath("scenarios/cluster-64-racks.yaml"));
  site.simulation.step = 10.0;
  site.simulation.control_step = 10.0;
  site.simulation.substeps = 1;
  site.simulation.duration = 1000.0;
  site.simulation.record_interval = 50.0;
  const Records reference = uninterrupted(site);
  REQUIRE(reference.summary.find("\"control_step_final_s\": 2.5") != std::string::npos);
  const Records resumed = interrupted(site, {41, 54, 73});
  requireSameRecords(reference, resumed);
}

TEST_CASE("fast-forward: two runs are identical, and a resumed run equals them bit for bit",
          "[scenarios][resume][fast_forward]") {
  // The step rule's state (the preferred length, the settle time, the junction temperatures it
  // compares with) is saved with the engine: cuts before, inside and after the pump trip's
  // settle time, on long and on fine steps.
  racktwin::core::SiteSpec site = racktwin::scenarios::loadScenario(
      racktwin::test::sourcePath("scenarios/faults/cdu-pump-trip.yaml"));
  site.simulation.record_interval = 60.0;
  site.simulation.fast_forward = {true, 60.0, 0.05, 60.0};
  for (auto& job : site.jobs)
    job.average_power = true;
  const Records reference = uninterrupted(site);
  requireSameRecords(reference, uninterrupted(site));
  long steps = 0;
  {
    Twin twin(site);
    twin.initialize();
    while (twin.step())
      ++steps;
  }
  REQUIRE(steps > 40);
  const Records resumed = interrupted(site, {steps / 7 + 1, steps / 2 + 3, (4 * steps) / 5 + 1});
  requireSameRecords(reference, resumed);
}

TEST_CASE("a saved state resumes only the scenario it came from, whole", "[scenarios][resume]") {
  const racktwin::core::SiteSpec rack =
      racktwin::scenarios::loadScenario(racktwin::test::sourcePath("scenarios/nvl72-rack.yaml"));
  const racktwin::core::SiteSpec ring =
      racktwin::scenarios::loadScenario(racktwin::test::sourcePath("scenarios/ring-16-racks.yaml"));
  std::string state;
  {
    Twin twin(rack);
    twin.initialize();
    for (int k = 0; k < 10; ++k)
      twin.step();
    state = twin.saveState();
  }
  SECTION("another site") {
    Twin twin(ring);
    CHECK_THROWS_AS(twin.resume(state), racktwin::core::RuntimeError);
  }
  SECTION("cut short") {
    Twin twin(rack);
    CHECK_THROWS_AS(twin.resume(std::string_view(state).substr(0, state.size() / 2)),
                    racktwin::core::RuntimeError);
  }
  SECTION("with bytes left over") {
    Twin twin(rack);
    CHECK_THROWS_AS(twin.resume(state + "x"), racktwin::core::RuntimeError);
  }
  SECTION("whole: resumes") {
    Twin twin(rack);
    twin.resume(state);
    CHECK(twin.time() == Approx(10 * rack.simulation.step).epsilon(1e-12));
  }
}
