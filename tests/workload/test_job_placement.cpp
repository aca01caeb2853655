// The placement service every kind of job shares (core/JobPlacement): named racks resolved and
// checked, scheduled jobs' entries reserved and written at placement, GPU offsets in the job's
// rack order.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "Gb300TestSite.hpp"
#include "racktwin/core/JobPlacement.hpp"

using namespace racktwin;

namespace {

std::vector<core::ComponentId> ids(std::initializer_list<const char*> names) {
  std::vector<core::ComponentId> out;
  for (const char* n : names)
    out.emplace_back(n);
  return out;
}

core::JobPlaceRequest named(const std::vector<core::ComponentId>& racks, double start, double end) {
  core::JobPlaceRequest r;
  r.racks = racks;
  r.start = start;
  r.end = end;
  return r;
}

}  // namespace

TEST_CASE("Named racks resolve in the job's order, with GPU offsets along them", "[workload]") {
  const core::SiteSpec site = test::gb300Site(3);
  const core::SiteLayout layout = core::SiteLayout::build(site);
  core::JobPlacement placement(site, layout);
  const auto racks = ids({"row1/rack03", "row1/rack01"});
  placement.add("job 'a'", named(racks, 0.0, 10.0));
  placement.finish(site);
  REQUIRE(placement.jobCount() == 1);
  CHECK_FALSE(placement.scheduled(0));
  CHECK_FALSE(placement.hasScheduler());
  const auto r = placement.racks(0);
  REQUIRE(r.size() == 2);
  CHECK(r[0] == 2);
  CHECK(r[1] == 0);
  // 72 GPUs per GB300 NVL72 rack: the second rack's GPUs continue at 72.
  CHECK(placement.gpuOffsets(0)[0] == 0);
  CHECK(placement.gpuOffsets(0)[1] == 72);
}

TEST_CASE("Placement rejects unknown, repeated and shared racks for any kind", "[workload]") {
  const core::SiteSpec site = test::gb300Site(2);
  const core::SiteLayout layout = core::SiteLayout::build(site);
  {
    core::JobPlacement placement(site, layout);
    const auto racks = ids({"row1/rack09"});
    CHECK_THROWS_WITH(placement.add("job 'a'", named(racks, 0.0, 1.0)),
                      Catch::Matchers::Contains("unknown rack 'row1/rack09'"));
  }
  {
    core::JobPlacement placement(site, layout);
    const auto racks = ids({"row1/rack01", "row1/rack01"});
    CHECK_THROWS_WITH(placement.add("job 'a'", named(racks, 0.0, 1.0)),
                      Catch::Matchers::Contains("twice"));
  }
  const auto one = ids({"row1/rack01"});
  const auto two = ids({"row1/rack01", "row1/rack02"});
  {
    core::JobPlacement placement(site, layout);
    placement.add("job 'a'", named(two, 0.0, 100.0));
    placement.add("job 'b'", named(one, 50.0, 150.0));
    CHECK_THROWS_WITH(placement.finish(site),
                      Catch::Matchers::Contains("shares rack 'row1/rack01'"));
  }
  {
    // Back to back is fine; within an exclusive class not even that.
    core::JobPlacement placement(site, layout);
    placement.add("job 'a'", named(two, 0.0, 100.0));
    placement.add("job 'b'", named(one, 100.0, 150.0));
    CHECK_NOTHROW(placement.finish(site));
    core::JobPlacement exclusive(site, layout);
    core::JobPlaceRequest a = named(two, 0.0, 100.0);
    core::JobPlaceRequest b = named(one, 100.0, 150.0);
    a.exclusive_class = b.exclusive_class = 1;
    exclusive.add("job 'a'", a);
    exclusive.add("job 'b'", b);
    CHECK_THROWS_WITH(exclusive.finish(site), Catch::Matchers::Contains("one job of this kind"));
  }
}

TEST_CASE("A scheduled job's entries are written when the scheduler places it", "[workload]") {
  const core::SiteSpec site = test::gb300Site(3);
  const core::SiteLayout layout = core::SiteLayout::build(site);
  core::SiteState state;
  state.resize(layout, 300.0);
  core::JobPlacement placement(site, layout);
  // A named job holds rack 1 over [0, 100); a job of 144 GPUs (two racks) is submitted at 10 s.
  const auto fixed = ids({"row1/rack01"});
  placement.add("job 'fixed'", named(fixed, 0.0, 100.0));
  core::JobPlaceRequest queued;
  queued.gpus = 144;
  queued.submit = 10.0;
  queued.duration = 50.0;
  placement.add("job 'queued'", queued);
  CHECK_THROWS_AS(placement.add("job 'odd'",
                                [] {
                                  core::JobPlaceRequest r;
                                  r.gpus = 100;  // not whole racks
                                  r.duration = 1.0;
                                  return r;
                                }()),
                  std::invalid_argument);
  placement.finish(site);
  REQUIRE(placement.hasScheduler());
  CHECK(placement.scheduled(1));
  placement.reset(state);
  CHECK(placement.due(0.0));
  CHECK(placement.schedule(0.0).empty());  // not submitted yet
  CHECK_FALSE(placement.due(5.0));
  REQUIRE(placement.due(10.0));
  const auto placed = placement.schedule(10.0);
  REQUIRE(placed.size() == 1);
  CHECK(placed[0] == 1);
  const auto r = placement.racks(1);
  REQUIRE(r.size() == 2);
  // The two racks the named job leaves free, in scenario order.
  CHECK(r[0] == 1);
  CHECK(r[1] == 2);
  CHECK(placement.gpuOffsets(1)[1] == 72);
  REQUIRE(placement.startOf(1).has_value());
  CHECK(*placement.startOf(1) == 10.0);
  CHECK(placement.queuedAt(20.0) == 0);
}
