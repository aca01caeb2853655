// Training failures and restarts: exponential times between failures drawn from the seeded
// stream (same seed, same failures), their sample mean within sampling error of the MTBF, and a
// failure rolling the job back to its last checkpoint and idling its GPUs for the restart time;
// demands and speeds that follow GPU state changed between sub-steps.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "Gb300TestSite.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/WorkloadExecutor.hpp"

using namespace racktwin;

namespace {

constexpr double kPidle = 200.0;  // W, the test rack's idle power (Gb300TestSite.hpp)

core::TrainingJobSpec failingJob(double duration, double mtbf, double restart) {
  core::TrainingJobSpec j;
  j.id = "train";
  j.duration = duration;
  j.racks = {core::ComponentId("row1/rack01")};
  j.compute_duration = 3.0;
  j.compute_power_fraction = 0.95;
  j.communication_duration = 1.0;
  j.communication_power_fraction = 0.4;
  j.failure_mtbf = mtbf;
  j.restart_duration = restart;
  return j;
}

struct Run {
  explicit Run(core::SiteSpec s)
      : site(std::move(s)), layout(core::SiteLayout::build(site)), executor(site, layout) {
    state.resize(layout, 300.0);
    executor.initialize(state);
  }
  void step(double t, double dt) {
    state.time = t;
    executor.advance(t, dt, state);
  }
  /// n sub-steps of dt from t = 0; returns the summed GPU 0 energy, J.
  double run(long n, double dt) {
    double E = 0.0;
    for (long i = 0; i < n; ++i) {
      step(static_cast<double>(i) * dt, dt);
      E += state.gpu_P_demand[0] * dt;
    }
    return E;
  }
  core::SiteSpec site;
  core::SiteLayout layout;
  core::SiteState state;
  core::WorkloadExecutor executor;
};

}  // namespace

TEST_CASE("Same seed, same failures, another seed, other failures", "[workload][failures]") {
  const auto once = [](std::uint64_t seed) {
    core::SiteSpec site = test::gb300Site(1);
    site.simulation.seed = seed;
    site.jobs.push_back(failingJob(200.0 * 3600.0, 3600.0, 600.0));
    Run r(site);
    const double E = r.run(72'000, 10.0);
    return std::vector<double>{static_cast<double>(r.executor.jobFailures(0)),
                               static_cast<double>(r.executor.jobIterations(0)),
                               r.executor.jobUptime(0), E};
  };
  const std::vector<double> a = once(42);
  CHECK(a[0] > 0.0);
  CHECK(once(42) == a);
  CHECK(once(43) != a);
}

TEST_CASE("The mean running time between failures is the MTBF within sampling error",
          "[workload][failures]") {
  // Exponential times with mean m: the estimator uptime / failures (right-censored last interval)
  // has a relative standard error 1 / sqrt(failures); 4 sigma is allowed.
  const double mtbf = 3600.0;
  core::SiteSpec site = test::gb300Site(1);
  site.simulation.seed = 7;
  site.jobs.push_back(failingJob(3000.0 * 3600.0, mtbf, 300.0));
  Run r(site);
  r.run(180'000, 60.0);
  const double failures = static_cast<double>(r.executor.jobFailures(0));
  REQUIRE(failures > 1000.0);
  const double mean = r.executor.jobUptime(0) / failures;
  CHECK(std::fabs(mean / mtbf - 1.0) < 4.0 / std::sqrt(failures));
  // The restarts take their share of the run: uptime + failures x restart = duration, less the
  // part of a last restart cut by the job's end.
  const double accounted = r.executor.jobUptime(0) + failures * 300.0;
  CHECK(accounted >= 3000.0 * 3600.0 - 1e-6);
  CHECK(accounted <= 3000.0 * 3600.0 + 300.0 + 1e-6);
}

TEST_CASE("A failure loses the work since the last checkpoint and idles for the restart",
          "[workload][failures]") {
  for (const bool checkpoints : {true, false}) {
    INFO("checkpoints " << checkpoints);
    core::SiteSpec site = test::gb300Site(1);
    site.simulation.seed = 3;
    core::TrainingJobSpec job = failingJob(100.0 * 3600.0, 2.0 * 3600.0, 600.0);
    if (checkpoints) {
      job.checkpoint_interval = 1200.0;  // s; a checkpoint ends at k x 1200 s + 60 s
      job.checkpoint_duration = 60.0;
      job.checkpoint_power_fraction = 0.2;
    }
    site.jobs.push_back(job);
    Run r(site);
    const double dt = 1.0;
    double saved = 0.0;  // iterations at the end of the last checkpoint
    long i = 0;
    for (; i < 48 * 3600; ++i) {
      const double t = static_cast<double>(i) * dt;
      const double before = static_cast<double>(r.executor.jobIterations(0));
      r.step(t, dt);
      if (r.executor.jobFailures(0) == 1) {
        // The first failure, inside this sub-step: back to the last checkpoint (or to zero).
        CHECK(static_cast<double>(r.executor.jobIterations(0)) == (checkpoints ? saved : 0.0));
        CHECK(before >= static_cast<double>(r.executor.jobIterations(0)));
        break;
      }
      const double since = std::fmod(t + dt, 1200.0);
      if (checkpoints && t + dt > 1200.0 && since == 60.0) {
        saved = static_cast<double>(r.executor.jobIterations(0));
      }
    }
    REQUIRE(r.executor.jobFailures(0) == 1);
    const std::uint64_t after_failure = r.executor.jobIterations(0);
    // The sub-steps wholly inside the 600 s restart: idle GPUs and CPUs, no progress.
    for (long k = 1; k <= 598; ++k) {
      r.step(static_cast<double>(i + k) * dt, dt);
      if (r.executor.jobFailures(0) != 1) break;  // a second failure would end this check
      CHECK(r.state.gpu_P_demand[0] == Approx(kPidle));
      CHECK(r.state.cpu_P_demand[0] == Approx(100.0));
      CHECK(r.executor.jobIterations(0) == after_failure);
    }
    // Then training resumes (compute at 0.95 x 1,400 W), with the checkpoint clock restarted.
    for (long k = 599; k <= 620; ++k)
      r.step(static_cast<double>(i + k) * dt, dt);
    if (r.executor.jobFailures(0) == 1) {
      CHECK(r.state.gpu_P_demand[0] > kPidle);
      CHECK(r.executor.jobIterations(0) > after_failure);
    }
  }
}

TEST_CASE("Invalid failure settings are rejected", "[workload][failures]") {
  core::SiteSpec site = test::gb300Site(1);
  site.jobs.push_back(failingJob(3600.0, -1.0, 600.0));
  const core::SiteLayout layout = core::SiteLayout::build(site);
  CHECK_THROWS_AS(core::WorkloadExecutor(site, layout), std::invalid_argument);
  site.jobs[0].failure_mtbf = 3600.0;
  site.jobs[0].restart_duration = std::nan("");
  CHECK_THROWS_AS(core::WorkloadExecutor(site, layout), std::invalid_argument);
}

TEST_CASE("Demands and speed follow GPU state changes inside a phase", "[workload][failures]") {
  // The executor keeps a rack's demands while nothing they depend on changes; a throttle flag, a
  // shutdown, a junction temperature or a speed changed between sub-steps must still show.
  core::SiteSpec site = test::gb300Site(1);
  core::ChipSpec& gpu = site.racks[0].type.gpu;
  gpu.P_leakage_reference = 140.0;   // W at 60 degC (the GB300 rack file's estimate)
  gpu.T_leakage_reference = 333.15;  // K
  gpu.leakage_coefficient = 0.02;    // 1/K
  core::TrainingJobSpec job = failingJob(3600.0, 0.0, 0.0);
  job.compute_duration = 10.0;
  job.communication_duration = 10.0;
  site.jobs.push_back(job);
  Run r(site);
  const auto leak = [](double T) { return 140.0 * std::expm1(0.02 * (T - 333.15)); };
  const double P_compute = 0.95 * 1400.0;
  const double dt = 0.1;
  long i = 0;
  const auto until = [&](double t) {
    for (; static_cast<double>(i) * dt < t - 1e-9; ++i)
      r.step(static_cast<double>(i) * dt, dt);
  };
  until(5.0);
  CHECK(r.state.gpu_P_demand[5] == Approx(P_compute + leak(300.0)));
  r.state.gpu_throttled[5] = 1;
  r.state.gpu_T_junction[9] = 350.0;
  r.state.gpu_speed[3] = 0.5;  // the whole job at half speed from t = 5 s
  until(5.1);
  CHECK(r.state.gpu_P_demand[5] == Approx(0.5 * 1400.0 + leak(300.0)));
  CHECK(r.state.gpu_P_demand[9] == Approx(P_compute + leak(350.0)));
  CHECK(r.state.gpu_P_demand[11] == Approx(P_compute + leak(300.0)));
  // At half speed the compute phase (10 s of work, 5 s done) ends at 15 s, not 10 s.
  until(14.0);
  CHECK(r.state.gpu_P_demand[11] == Approx(P_compute + leak(300.0)));
  r.state.gpu_throttled[5] = 0;
  until(15.2);
  CHECK(r.state.gpu_P_demand[11] == Approx(0.4 * 1400.0 + leak(300.0)));
  CHECK(r.state.gpu_P_demand[5] == Approx(0.4 * 1400.0 + leak(300.0)));
  // A GPU shut down draws nothing, and the job it ran fails (a synchronous job loses a rank):
  // the rack's other GPUs idle.
  r.state.gpu_shutdown[7] = 1;
  until(15.3);
  CHECK(r.state.gpu_P_demand[7] == 0.0);
  CHECK(r.state.gpu_P_demand[11] == Approx(200.0 + leak(300.0)));
  CHECK(r.executor.jobFailures(0) == 1);
}

TEST_CASE(
    "A paused job idles its GPUs and makes no progress, resumed, it starts its iteration "
    "again",
    "[workload][failures]") {
  // 4 s iterations (3 s compute, 1 s communication), no checkpoints, 400 s. Paused at 102 s,
  // 2 s into iteration 26, resumed at 200 s: 25 iterations before, the one in flight lost, then
  // 200 s / 4 s = 50 more. Without the pause: 100.
  core::SiteSpec site = test::gb300Site(1);
  site.jobs.push_back(failingJob(400.0, 0.0, 0.0));
  Run r(site);
  core::EventSpec pause{102.0, core::EventKind::PauseJob, "train", 0.0, {}};
  core::EventSpec resume{200.0, core::EventKind::ResumeJob, "train", 0.0, {}};
  const double dt = 0.1;
  double E_paused = 0.0;
  for (long i = 0; i < 4000; ++i) {
    const double t = static_cast<double>(i) * dt;
    if (i == 1020) CHECK(r.executor.applyEvent(pause, r.state));
    if (i == 2000) CHECK(r.executor.applyEvent(resume, r.state));
    r.step(t, dt);
    if (t >= 102.0 && t < 200.0) E_paused += r.state.gpu_P_demand[0] * dt;
  }
  CHECK(r.executor.jobIterations(0) == 75);
  // Idle power (Gb300TestSite.hpp) for the whole pause.
  CHECK(E_paused == Approx(kPidle * 98.0).epsilon(1e-9));
  // Another model's target, or a job id this executor does not run, is not handled here.
  core::EventSpec other{10.0, core::EventKind::PauseJob, "nope", 0.0, {}};
  CHECK_FALSE(r.executor.applyEvent(other, r.state));
}
