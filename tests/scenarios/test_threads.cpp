// Results do not depend on the number of threads (specified behaviour, issue 19): the coolant
// loops, the chips' blocks and the racks' blocks run side by side, and every sum over them is
// formed in a fixed order, so 1, 2 and 3 threads give the same records and summary, bit for bit.
// The sites are large enough for every parallel pass to have several tasks: 8 coolant loops,
// 4,608 GPUs (two blocks of chips), 64 racks (two blocks of racks), with throttling crossings in
// both chip blocks and a power tree through an outage.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"

namespace {

using racktwin::scenarios::Twin;

using racktwin::test::RowTap;

struct Run {
  std::vector<double> times, rows, T_junction;
  std::vector<std::uint8_t> throttled;
  std::string summary;
  unsigned threads = 0;
};

Run runWith(const racktwin::core::SiteSpec& site, unsigned threads,
            const std::vector<racktwin::core::EventSpec>& events) {
  Twin twin(site, threads);
  RowTap tap;
  twin.addSink(tap);
  twin.initialize();
  for (const racktwin::core::EventSpec& event : events)
    twin.schedule(event);
  while (twin.step()) {
  }
  Run run;
  run.threads = twin.threads();
  run.T_junction = twin.state().gpu_T_junction;
  run.throttled = twin.state().gpu_throttled;
  run.summary = twin.finish(true).toJson();
  run.times = std::move(tap.times);
  for (const std::vector<double>& row : tap.rows)
    run.rows.insert(run.rows.end(), row.begin(), row.end());
  return run;
}

bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void requireSame(const Run& one, const Run& many) {
  INFO(many.threads << " threads against 1");
  CHECK(sameBits(one.times, many.times));
  CHECK(sameBits(one.rows, many.rows));
  CHECK(sameBits(one.T_junction, many.T_junction));
  CHECK(one.throttled == many.throttled);
  CHECK(one.summary == many.summary);
}

}  // namespace

TEST_CASE("The 64-rack cluster gives the same bits on 1, 2 and 3 threads, through throttling",
          "[scenarios][threads]") {
  racktwin::core::SiteSpec site = racktwin::scenarios::loadScenario(
      racktwin::test::sourcePath("scenarios/cluster-64-racks.yaml"));
  site.simulation.duration = 150.0;
  // The first and the last row lose their CDUs: their GPUs throttle in both blocks of chips.
  std::vector<racktwin::core::EventSpec> events;
  for (const char* cdu : {"row1/cdu1", "row8/cdu1"}) {
    racktwin::core::EventSpec loss;
    loss.time = 20.0;
    loss.kind = racktwin::core::EventKind::CduLoss;
    loss.target = cdu;
    events.push_back(loss);
  }
  const Run one = runWith(site, 1, events);
  REQUIRE(one.threads == 1);
  // The case is what it claims: GPUs throttled in both blocks of 4,096.
  std::size_t low = 0, high = 0;
  for (std::size_t g = 0; g < one.throttled.size(); ++g)
    (g < 4096 ? low : high) += one.throttled[g];
  REQUIRE(low > 0);
  REQUIRE(high > 0);
  for (const unsigned threads : {2u, 3u}) {
    const Run many = runWith(site, threads, events);
    REQUIRE(many.threads == threads);
    requireSame(one, many);
  }
}

TEST_CASE("A power tree through a utility outage gives the same bits on 1 and 2 threads",
          "[scenarios][threads]") {
  racktwin::core::SiteSpec site = racktwin::scenarios::loadScenario(
      racktwin::test::sourcePath("scenarios/faults/utility-outage.yaml"));
  site.simulation.duration = 360.0;  // the outage at 300 s, on batteries and generators
  const Run one = runWith(site, 1, {});
  const Run two = runWith(site, 2, {});
  requireSame(one, two);
}

TEST_CASE("Racks that lose and regain power give the same bits on 1, 2 and 3 threads",
          "[scenarios][threads]") {
  // The generators fail to start: the UPS batteries run down near 1,190 s and all 64 racks (both
  // blocks of racks) lose power until the utility returns at 1,500 s. Each block reports its
  // racks' power events; the first thread records them in block order.
  racktwin::core::SiteSpec site = racktwin::scenarios::loadScenario(
      racktwin::test::sourcePath("scenarios/faults/generator-fails-to-start.yaml"));
  site.simulation.duration = 1520.0;
  const Run one = runWith(site, 1, {});
  CHECK(one.summary.find("\"gpus_unpowered_max\": 4608") != std::string::npos);
  requireSame(one, runWith(site, 2, {}));
  requireSame(one, runWith(site, 3, {}));
}

TEST_CASE("The models write only the coupling fields they declare", "[scenarios][coupling]") {
  // Every call of every model is watched (fingerprints of every field before and after it) on
  // sites that exercise each writer: training with CDU losses (throttling), a power tree through
  // an outage (feeds, limits, hall losses), and the mixed hall (air-cooled racks' server fans).
  struct Case {
    const char* scenario;
    double duration;
  };
  for (const Case c :
       {Case{"scenarios/cluster-64-racks.yaml", 60.0},
        Case{"scenarios/faults/utility-outage.yaml", 320.0},
        Case{"scenarios/mixed-hall.yaml", 60.0}, Case{"scenarios/inference-azure.yaml", 60.0}}) {
    INFO(c.scenario);
    racktwin::core::SiteSpec site =
        racktwin::scenarios::loadScenario(racktwin::test::sourcePath(c.scenario));
    site.simulation.duration = c.duration;
    Twin twin(site, 2);
    twin.watchCouplingWrites();
    twin.initialize();
    racktwin::core::EventSpec loss;
    loss.time = 10.0;
    loss.kind = racktwin::core::EventKind::CduLoss;
    loss.target = site.cdus.front().id.str();
    twin.schedule(loss);
    while (twin.step()) {
    }
    twin.finish(true);
    const std::vector<std::string>& found = twin.undeclaredCouplingWrites();
    for (const std::string& f : found)
      UNSCOPED_INFO(f);
    CHECK(found.empty());
  }
}
