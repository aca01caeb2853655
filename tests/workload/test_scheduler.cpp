// The job scheduler: FIFO order, EASY backfill (Lifka 1995: a later job starts early only when it
// does not delay the reservation of the queue's head), placement on whole racks preferring runs
// of adjacent racks of one cooling group, racks with a shut-down GPU skipped, jobs that name
// racks unchanged. Expected start times are worked out by hand in the comments beside them.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "ExecutorRun.hpp"
#include "Gb300TestSite.hpp"
#include "racktwin/core/JobScheduler.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/WorkloadExecutor.hpp"

using namespace racktwin;
using Policy = core::JobScheduler::Policy;
using Request = core::JobScheduler::Request;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<std::uint32_t> racksOf(const core::JobScheduler& s, std::size_t j) {
  const std::span<const std::uint32_t> r = s.racks(j);
  return {r.begin(), r.end()};
}

/// Drives a scheduler from event to event as the executor does (events at their exact times).
void runEvents(core::JobScheduler& s, double until) {
  s.reset();
  double t = 0.0;
  while (t <= until) {
    (void)s.schedule(t);
    t = s.nextEvent();
  }
}

/// A training job of `gpus` GPUs submitted at `submit`, running `duration`.
core::TrainingJobSpec sized(const std::string& id, std::uint32_t gpus, double submit,
                            double duration) {
  core::TrainingJobSpec j;
  j.id = id;
  j.gpus = gpus;
  j.submit = submit;
  j.duration = duration;
  j.compute_duration = 3.0;
  j.compute_power_fraction = 0.9;
  j.communication_duration = 1.0;
  j.communication_power_fraction = 0.4;
  return j;
}

core::TrainingJobSpec named(const std::string& id, std::vector<std::string> racks, double start,
                            double duration) {
  core::TrainingJobSpec j = sized(id, 0, 0.0, duration);
  j.start = start;
  for (const std::string& r : racks)
    j.racks.emplace_back(r);
  return j;
}

using Run = test::ExecutorRun;

/// Four racks, one CDU: A (3 racks, 100 s) at 0, B (2 racks, 50 s) at 1, C (1 rack, 200 s) at 2,
/// D (1 rack, 20 s) at 3.
std::vector<Request> fourRackQueue() {
  return {{0.0, 100.0, 3}, {1.0, 50.0, 2}, {2.0, 200.0, 1}, {3.0, 20.0, 1}};
}

}  // namespace

TEST_CASE("FIFO starts jobs in submit order, the head blocks the queue", "[workload][scheduler]") {
  core::JobScheduler s(Policy::Fifo, {0, 0, 0, 0}, fourRackQueue());
  runEvents(s, 1000.0);
  // A takes racks 0-2 at 0 (rack 3 stays free). B needs 2 racks: waits for A's end at 100, and
  // C and D wait behind it although rack 3 is free. At 100: B on 0-1, C on 2, D on 3.
  CHECK(s.startTime(0) == 0.0);
  CHECK(s.startTime(1) == 100.0);
  CHECK(s.startTime(2) == 100.0);
  CHECK(s.startTime(3) == 100.0);
  CHECK(racksOf(s, 0) == std::vector<std::uint32_t>{0, 1, 2});
  CHECK(racksOf(s, 1) == std::vector<std::uint32_t>{0, 1});
  // No job starts before one submitted earlier.
  for (std::size_t j = 1; j < s.requestCount(); ++j)
    CHECK(s.startTime(j) >= s.startTime(j - 1));
}

TEST_CASE("EASY backfill fills the hole without delaying the head's reservation",
          "[workload][scheduler]") {
  core::JobScheduler s(Policy::Backfill, {0, 0, 0, 0}, fourRackQueue());
  runEvents(s, 1000.0);
  // A on racks 0-2 at 0. At 1 B (2 racks) waits: its reservation is 100 on racks 0-1 (the
  // shortest run of two free racks at 100: all four free, first two). At 2 C (1 rack, 200 s) ends
  // at 202 > 100, but rack 3 is not reserved: C starts at once on rack 3. At 3 D (20 s) would end
  // by 100, but no rack is free until 100 (0-2 held by A, 3 by C). At 100: B on 0-1 as reserved,
  // D on 2.
  CHECK(s.startTime(0) == 0.0);
  CHECK(s.startTime(1) == 100.0);  // as without backfill: not delayed
  CHECK(s.startTime(2) == 2.0);    // backfilled
  CHECK(s.startTime(3) == 100.0);
  CHECK(racksOf(s, 1) == std::vector<std::uint32_t>{0, 1});
  CHECK(racksOf(s, 2) == std::vector<std::uint32_t>{3});
  CHECK(racksOf(s, 3) == std::vector<std::uint32_t>{2});
  CHECK(s.queued() == 0);
}

TEST_CASE("Backfill uses reserved racks only for jobs that end by the reservation",
          "[workload][scheduler]") {
  // A (2 racks, 100 s) at 0 on racks 0-1; B (4 racks, 50 s) at 1 waits for 100 and reserves
  // every rack. C (1 rack) at 2 fits on rack 2 or 3 now: with a 98 s runtime it ends at 100, by
  // the reservation, and starts at 2; with 99 s it would end at 101 and delay B, so it waits
  // until B ends at 150.
  for (const double runtime : {98.0, 99.0}) {
    INFO("C's runtime " << runtime << " s");
    core::JobScheduler s(Policy::Backfill, {0, 0, 0, 0},
                         {{0.0, 100.0, 2}, {1.0, 50.0, 4}, {2.0, runtime, 1}});
    runEvents(s, 1000.0);
    CHECK(s.startTime(1) == 100.0);
    CHECK(s.startTime(2) == (runtime == 98.0 ? 2.0 : 150.0));
  }
}

TEST_CASE("A large job waits until enough racks are free", "[workload][scheduler]") {
  // Three jobs of one rack end at 40, 70 and 100; the 4-rack job submitted at 10 starts when the
  // last ends (the fourth rack is free all along), under either policy.
  for (const Policy policy : {Policy::Fifo, Policy::Backfill}) {
    core::JobScheduler s(policy, {0, 0, 0, 0},
                         {{0.0, 40.0, 1}, {0.0, 70.0, 1}, {0.0, 100.0, 1}, {10.0, 30.0, 4}});
    s.reset();
    (void)s.schedule(0.0);
    CHECK(s.nextEvent() == 10.0);
    (void)s.schedule(10.0);
    CHECK_FALSE(s.started(3));
    CHECK(s.queued() == 1);
    CHECK(s.nextEvent() == 40.0);  // with a job queued, the next end wakes the scheduler
    (void)s.schedule(40.0);
    (void)s.schedule(70.0);
    CHECK_FALSE(s.started(3));
    const std::span<const std::uint32_t> started = s.schedule(100.0);
    REQUIRE(started.size() == 1);
    CHECK(started[0] == 3);
    CHECK(s.startTime(3) == 100.0);
    CHECK(s.nextEvent() == kInf);  // nothing queued, nothing to submit
  }
}

TEST_CASE("Placement prefers a run of adjacent racks of one group, best fit",
          "[workload][scheduler]") {
  // Eight racks, two CDUs of four: racks 0-3 on group 0, 4-7 on group 1. A fixed job holds rack
  // 1, so the free runs are {0}, {2, 3} and {4, 5, 6, 7}.
  const auto place = [](std::vector<Request> jobs) {
    core::JobScheduler s(Policy::Backfill, {0, 0, 0, 0, 1, 1, 1, 1}, std::move(jobs));
    s.addFixedUse(1, 0.0, 1000.0);
    s.reset();
    (void)s.schedule(0.0);
    return s;
  };
  {
    const core::JobScheduler s = place({{0.0, 10.0, 2}, {0.0, 10.0, 1}, {0.0, 10.0, 3}});
    CHECK(racksOf(s, 0) == std::vector<std::uint32_t>{2, 3});     // the run of exactly two
    CHECK(racksOf(s, 1) == std::vector<std::uint32_t>{0});        // the run of one
    CHECK(racksOf(s, 2) == std::vector<std::uint32_t>{4, 5, 6});  // the only run of three
  }
  const auto placeAround = [](std::vector<std::uint32_t> held, std::vector<Request> jobs) {
    core::JobScheduler s(Policy::Fifo, {0, 0, 0, 0, 1, 1, 1, 1}, std::move(jobs));
    for (const std::uint32_t r : held)
      s.addFixedUse(r, 0.0, 1000.0);
    s.reset();
    (void)s.schedule(0.0);
    return s;
  };
  {
    // Free {0, 3, 4, 6}: racks 3 and 4 are neighbours in scenario order but on different CDUs,
    // so a 2-rack job takes two racks of one group (0 and 3), not 3 and 4.
    const core::JobScheduler s = placeAround({1, 2, 5, 7}, {{0.0, 10.0, 2}});
    CHECK(racksOf(s, 0) == std::vector<std::uint32_t>{0, 3});
  }
  {
    // Free {0, 3} on group 0 and {5, 6, 7} on group 1: a 4-rack job fits in neither group and
    // spans the fewest, the larger first.
    const core::JobScheduler s = placeAround({1, 2, 4}, {{0.0, 10.0, 4}, {0.0, 10.0, 2}});
    CHECK(racksOf(s, 0) == std::vector<std::uint32_t>{5, 6, 7, 0});
    CHECK_FALSE(s.started(1));  // only rack 3 is left
  }
}

TEST_CASE("A rack that is down takes no new job", "[workload][scheduler]") {
  core::JobScheduler s(Policy::Backfill, {0, 0, 0, 0}, {{0.0, 10.0, 2}, {0.0, 10.0, 3}});
  s.reset();
  s.setRackDown(0, true);
  (void)s.schedule(0.0);
  // Usable: racks 1-3, one run of three; the 2-rack job takes its first two.
  CHECK(racksOf(s, 0) == std::vector<std::uint32_t>{1, 2});
  CHECK_FALSE(s.started(1));
  // At 10 racks 1-3 are free again: exactly the three the second job needs, rack 0 still down.
  (void)s.schedule(10.0);
  CHECK(racksOf(s, 1) == std::vector<std::uint32_t>{1, 2, 3});
  // With two racks down a 3-rack job never fits: it waits, and behind it (no reservation is
  // possible, so none can be delayed) a 1-rack job starts under backfill but not under FIFO.
  for (const Policy policy : {Policy::Fifo, Policy::Backfill}) {
    core::JobScheduler q(policy, {0, 0, 0, 0}, {{0.0, 10.0, 3}, {1.0, 10.0, 1}});
    q.reset();
    q.setRackDown(0, true);
    q.setRackDown(3, true);
    (void)q.schedule(0.0);
    (void)q.schedule(1.0);
    CHECK_FALSE(q.started(0));
    CHECK(q.started(1) == (policy == Policy::Backfill));
  }
}

TEST_CASE("Bad requests are refused", "[workload][scheduler]") {
  CHECK_THROWS_AS(core::JobScheduler(Policy::Fifo, {0, 0}, {{0.0, 10.0, 3}}),
                  std::invalid_argument);
  CHECK_THROWS_AS(core::JobScheduler(Policy::Fifo, {0, 0}, {{0.0, 10.0, 0}}),
                  std::invalid_argument);
  CHECK_THROWS_AS(core::JobScheduler(Policy::Fifo, {0, 0}, {{0.0, 0.0, 1}}), std::invalid_argument);
}

TEST_CASE("Jobs that name racks are fixed uses, scheduled jobs fit around them",
          "[workload][scheduler]") {
  // Four racks. `fixed` names racks 1-2 over [50, 150). `big` (3 racks, 100 s, at 0) cannot run
  // before 150: over [0, 100) only racks 3-4 are free for its whole runtime. Its reservation is
  // 150. `small` (2 racks, 40 s, at 0) ends at 40, before both the fixed job and the
  // reservation: backfilled at 0 on the first run of free racks, racks 1-2.
  core::SiteSpec site = test::gb300Site(4);
  site.jobs.push_back(sized("big", 216, 0.0, 100.0));
  site.jobs.push_back(sized("small", 144, 0.0, 40.0));
  site.jobs.push_back(named("fixed", {"row1/rack01", "row1/rack02"}, 50.0, 100.0));
  Run r(site);
  r.run(300, 1.0);
  CHECK(r.executor.jobStart(0) == Approx(150.0));
  CHECK(r.racks(0) == std::vector<std::string>{"row1/rack01", "row1/rack02", "row1/rack03"});
  CHECK(r.executor.jobStart(1) == Approx(0.0));
  CHECK(r.racks(1) == std::vector<std::string>{"row1/rack01", "row1/rack02"});
  CHECK(r.executor.jobStart(2) == Approx(50.0));

  // The named job runs exactly as it does alone: same iterations, same energy on its GPUs over
  // its window.
  core::SiteSpec alone = test::gb300Site(4);
  alone.jobs.push_back(named("fixed", {"row1/rack01", "row1/rack02"}, 50.0, 100.0));
  Run a(alone);
  a.run(300, 1.0);
  CHECK(r.executor.jobIterations(2) == a.executor.jobIterations(0));
  CHECK(r.executor.jobIterations(2) == static_cast<std::uint64_t>(100.0 / 4.0));

  // Summary: all three ran to their end by 300 s; waits 150 s (big) and 0 s (small).
  core::Summary summary;
  r.executor.summarise(summary);
  CHECK(summary.value("jobs_completed") == Approx(3.0));
  CHECK(summary.value("jobs_queued_at_end") == Approx(0.0));
  CHECK(summary.value("mean_job_wait_s") == Approx(75.0));
  CHECK(summary.value("job_big_start_s") == Approx(150.0));
  CHECK(summary.value("job_big_wait_s") == Approx(150.0));
  CHECK(summary.value("job_big_rack_row1/rack03") == Approx(1.0));
  CHECK_THROWS_AS(summary.value("job_big_rack_row1/rack04"), std::out_of_range);
}

TEST_CASE("A scheduled job starts at the next sub-step boundary and then runs as a named job",
          "[workload][scheduler]") {
  // Submitted at 5.05 s with 0.1 s sub-steps: it starts at 5.1 s, waiting 0.05 s. Its demand is
  // then the same as that of the job naming the rack it got with start 5.1 s.
  const double dt = 0.1;
  core::SiteSpec site = test::gb300Site(2);
  site.jobs.push_back(sized("train", 72, 5.05, 60.0));
  site.jobs.back().checkpoint_interval = 20.0;
  site.jobs.back().checkpoint_duration = 2.0;
  site.jobs.back().checkpoint_power_fraction = 0.2;
  Run r(site);
  r.run(1000, dt);
  REQUIRE(r.executor.jobStart(0).has_value());
  CHECK(*r.executor.jobStart(0) == Approx(5.1).margin(1e-12));
  CHECK(r.racks(0) == std::vector<std::string>{"row1/rack01"});
  core::Summary summary;
  r.executor.summarise(summary);
  CHECK(summary.value("job_train_wait_s") == Approx(0.05).margin(1e-12));

  core::SiteSpec named_site = test::gb300Site(2);
  core::TrainingJobSpec job = site.jobs[0];
  job.gpus = 0;
  job.start = 5.1;
  job.racks = {core::ComponentId("row1/rack01")};
  named_site.jobs.push_back(job);
  Run n(named_site);
  n.run(1000, dt);
  CHECK(r.executor.jobIterations(0) == n.executor.jobIterations(0));
  for (const std::size_t g : {std::size_t{0}, std::size_t{71}, std::size_t{72}}) {
    CHECK(r.gpu_E[g] == Approx(n.gpu_E[g]).epsilon(1e-12));
  }
}

TEST_CASE("The executor skips a rack with a shut-down GPU for new jobs", "[workload][scheduler]") {
  // Rack 1 has a GPU shut down from the start: `one` (1 rack) goes to rack 2, `a` (2 racks) to
  // racks 3-4. A GPU of rack 3 shuts down at 50 s while `a` runs on it.
  core::SiteSpec site = test::gb300Site(4);
  site.jobs.push_back(sized("one", 72, 0.0, 40.0));
  site.jobs.push_back(sized("a", 144, 0.0, 100.0));
  site.jobs.push_back(sized("b", 144, 60.0, 30.0));
  Run r(site);
  r.state.gpu_shutdown[5] = 1;  // rack 1
  r.executor.initialize(r.state);
  for (int i = 0; i < 200; ++i) {
    const double t = i;
    if (t == 50.0) r.state.gpu_shutdown[2 * 72 + 10] = 1;  // rack 3, while `a` runs on it
    r.state.time = t;
    r.executor.advance(t, 1.0, r.state);
  }
  CHECK(r.racks(0) == std::vector<std::string>{"row1/rack02"});
  CHECK(r.racks(1) == std::vector<std::string>{"row1/rack03", "row1/rack04"});
  // At 60 s: rack 2 free (since 40 s), rack 4 busy until 100 s, racks 1 and 3 down: `b` waits
  // for 100 s and takes racks 2 and 4, not adjacent but the only usable pair.
  CHECK(r.executor.jobStart(2) == Approx(100.0));
  CHECK(r.racks(2) == std::vector<std::string>{"row1/rack02", "row1/rack04"});
}

TEST_CASE("The executor skips a rack without power for new jobs until it is repowered",
          "[workload][scheduler]") {
  // Rack 1 is unpowered (both feeds lost, as the electrical model reports it) from the start
  // until 30 s. `one` (1 rack, at 0 s) goes to rack 2; `two` (2 racks, at 10 s) cannot use rack 1
  // and takes racks 3-4; `late` (1 rack, at 40 s) finds rack 1 powered again and takes it.
  core::SiteSpec site = test::gb300Site(4);
  site.jobs.push_back(sized("one", 72, 0.0, 100.0));
  site.jobs.push_back(sized("two", 144, 10.0, 100.0));
  site.jobs.push_back(sized("late", 72, 40.0, 100.0));
  Run r(site);
  r.state.rack_powered[0] = 0;
  r.executor.initialize(r.state);
  for (int i = 0; i < 60; ++i) {
    const double t = i;
    if (t == 30.0) r.state.rack_powered[0] = 1;
    r.state.time = t;
    r.executor.advance(t, 1.0, r.state);
  }
  CHECK(r.racks(0) == std::vector<std::string>{"row1/rack02"});
  CHECK(r.racks(1) == std::vector<std::string>{"row1/rack03", "row1/rack04"});
  CHECK(r.executor.jobStart(2) == Approx(40.0));
  CHECK(r.racks(2) == std::vector<std::string>{"row1/rack01"});
}

TEST_CASE("The same seed gives the same schedule and results", "[workload][scheduler]") {
  core::SiteSpec site = test::gb300Site(4);
  for (int k = 0; k < 6; ++k) {
    core::TrainingJobSpec j =
        sized("job" + std::to_string(k), 72U * static_cast<std::uint32_t>(1 + k % 3), 30.0 * k,
              200.0 + 50.0 * k);
    j.failure_mtbf = 80.0;  // failures and restarts draw from the seeded streams
    j.restart_duration = 10.0;
    j.checkpoint_interval = 30.0;
    j.checkpoint_duration = 3.0;
    site.jobs.push_back(j);
  }
  site.simulation.seed = 7;
  Run a(site), b(site);
  a.run(2000, 0.5);
  b.run(2000, 0.5);
  std::uint64_t failures = 0;
  for (std::size_t j = 0; j < site.jobs.size(); ++j) {
    INFO("job " << j);
    CHECK(a.executor.jobStart(j) == b.executor.jobStart(j));
    CHECK(a.racks(j) == b.racks(j));
    CHECK(a.executor.jobIterations(j) == b.executor.jobIterations(j));
    CHECK(a.executor.jobFailures(j) == b.executor.jobFailures(j));
    failures += a.executor.jobFailures(j);
  }
  CHECK(failures > 0);  // the seeded draws are exercised
  CHECK(a.gpu_E == b.gpu_E);
  // A second run of the same executor repeats the first.
  const std::vector<double> first = a.gpu_E;
  a.state.time = 0.0;
  a.run(2000, 0.5);
  CHECK(a.gpu_E == first);
}

TEST_CASE("The executor refuses a scheduled job that cannot fit the site",
          "[workload][scheduler]") {
  core::SiteSpec site = test::gb300Site(2);
  site.jobs.push_back(sized("huge", 216, 0.0, 10.0));  // 3 racks
  const core::SiteLayout layout = core::SiteLayout::build(site);
  CHECK_THROWS_AS(core::WorkloadExecutor(site, layout), std::invalid_argument);
  site.jobs.back().gpus = 100;  // not whole racks
  CHECK_THROWS_AS(core::WorkloadExecutor(site, layout), std::invalid_argument);
}
