// Workload executor, inference jobs: queueing laws on Poisson arrivals, the busy-slot power law,
// the slowest-GPU and power-cap speed, and reproducibility from the seed.
// References: Little, "A proof for the queuing formula L = lambda W", Operations Research 9 (1961);
// Pollaczek-Khinchine mean wait of M/D/1, Wq = rho S / (2 (1 - rho)) (Kleinrock, Queueing Systems
// Vol. 1, 1975, s5.6). Power data of the test rack: gb300_nvl72.md s1 (P_max 1,400 W), s5 (idle
// ~200 W).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "Gb300TestSite.hpp"
#include "racktwin/core/InferenceJob.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/WorkloadExecutor.hpp"

using namespace racktwin;

namespace {

constexpr double kPmax = 1400.0;  // W, gb300_nvl72.md s1
constexpr double kPidle = 200.0;  // W, gb300_nvl72.md s5 (test rack)
constexpr std::uint32_t kGpus = 72;

/// A Poisson job on rack 1 whose every request takes `service` s of one slot at full speed:
/// context tokens only, prefill throughput chosen so that max_batch * context / (prefill * GPUs)
/// = service.
core::InferenceJobSpec poissonJob(double rate, double service, std::uint32_t max_batch,
                                  double duration) {
  core::InferenceJobSpec j;
  j.id = "serve";
  j.duration = duration;
  j.racks = {core::ComponentId("row1/rack01")};
  j.rate = rate;
  j.context_tokens = 1000;
  j.generated_tokens = 0;
  j.max_batch = max_batch;
  j.prefill_tokens_per_s_per_gpu = max_batch * 1000.0 / (service * kGpus);
  j.decode_tokens_per_s_per_gpu = 1.0;
  j.busy_power_fraction = 0.8;
  return j;
}

/// `n` equal requests at time 0, each `service` s of slot time (decode only, 10 tokens each).
core::InferenceJobSpec burstJob(std::size_t n, double service, std::uint32_t max_batch) {
  core::InferenceJobSpec j;
  j.id = "burst";
  j.duration = 1.0e6;
  j.racks = {core::ComponentId("row1/rack01")};
  j.trace.assign(n, core::InferenceRequest{0.0, 0, 10});
  j.max_batch = max_batch;
  j.prefill_tokens_per_s_per_gpu = 1.0;
  j.decode_tokens_per_s_per_gpu = max_batch * 10.0 / (service * kGpus);
  j.busy_power_fraction = 0.9;
  return j;
}

struct Run {
  explicit Run(core::SiteSpec s)
      : site(std::move(s)), layout(core::SiteLayout::build(site)), executor(site, layout) {
    state.resize(layout, 300.0);
  }
  /// Advances n sub-steps of dt from t = 0; integrates GPU 0's demand (J).
  void run(long n, double dt) {
    gpu0_E = 0.0;
    executor.initialize(state);
    for (long i = 0; i < n; ++i) {
      const double t = static_cast<double>(i) * dt;
      state.time = t;
      executor.advance(t, dt, state);
      gpu0_E += state.gpu_P_demand[0] * dt;
    }
  }
  core::SiteSpec site;
  core::SiteLayout layout;
  core::SiteState state;
  core::WorkloadExecutor executor;
  double gpu0_E = 0.0;
};

core::SiteSpec siteWith(const core::InferenceJobSpec& job, std::uint64_t seed = 7) {
  core::SiteSpec site = test::gb300Site(1);
  site.simulation.seed = seed;
  site.inference_jobs.push_back(job);
  return site;
}

}  // namespace

TEST_CASE("M/D/1: the mean wait matches Pollaczek-Khinchine", "[workload][inference]") {
  // rho = 0.6 with S = 0.5 s: Wq = 0.6 * 0.5 / (2 * 0.4) = 0.375 s. About 240,000 arrivals: the
  // sampling error of the mean wait is well under 3 %.
  const double rate = 1.2, S = 0.5, T = 200'000.0;
  Run r(siteWith(poissonJob(rate, S, 1, T)));
  r.run(static_cast<long>(T), 1.0);
  const double rho = rate * S;
  const double Wq = rho * S / (2.0 * (1.0 - rho));
  REQUIRE(r.executor.meanQueueingDelay().has_value());
  CHECK(*r.executor.meanQueueingDelay() == Approx(Wq).epsilon(0.05));
  // Arrival count within 4 standard deviations of a Poisson count (sqrt(lambda T)).
  const double arrived = static_cast<double>(r.executor.inferenceJob(0).requestsArrived());
  CHECK(std::abs(arrived - rate * T) < 4.0 * std::sqrt(rate * T));
}

TEST_CASE("Little's law holds for the queue of a batching server", "[workload][inference]") {
  // M/D/4 near saturation (rho = 0.9): L_q from the time integral of the queue length equals
  // lambda * W_q from the waits of individual requests (Little 1961), lambda the nominal rate.
  const double rate = 6.0, S = 0.6, T = 100'000.0;
  for (const double dt : {0.1, 1.0}) {
    INFO("dt = " << dt);
    Run r(siteWith(poissonJob(rate, S, 4, T)));
    r.run(static_cast<long>(std::lround(T / dt)), dt);
    const core::InferenceJob& job = r.executor.inferenceJob(0);
    const double L = job.queueLengthIntegral() / T;
    const double W = *r.executor.meanQueueingDelay();
    CHECK(L > 0.5);  // a real queue, not an empty one
    CHECK(L == Approx(rate * W).epsilon(0.03));
  }
}

TEST_CASE("Same seed, same arrivals, another seed, other arrivals", "[workload][inference]") {
  const core::InferenceJobSpec job = poissonJob(3.0, 0.3, 2, 3600.0);
  Run a(siteWith(job, 11)), b(siteWith(job, 11)), c(siteWith(job, 12));
  a.run(36000, 0.1);
  b.run(36000, 0.1);
  c.run(36000, 0.1);
  CHECK(a.executor.inferenceJob(0).requestsArrived()
        == b.executor.inferenceJob(0).requestsArrived());
  CHECK(a.executor.meanQueueingDelay() == b.executor.meanQueueingDelay());
  CHECK(a.gpu0_E == b.gpu0_E);
  CHECK(a.executor.meanQueueingDelay() != c.executor.meanQueueingDelay());
  CHECK(a.gpu0_E != c.gpu0_E);
  // Re-initialising replays the same stream.
  a.run(36000, 0.1);
  CHECK(a.executor.meanQueueingDelay() == b.executor.meanQueueingDelay());
}

TEST_CASE("A diurnal profile modulates the arrival rate", "[workload][inference]") {
  // rate (1 + a cos(2 pi (t - peak) / P)) over a whole period integrates to rate * P; over the half
  // period around the peak to rate * (P/2 + a P / pi).
  core::InferenceJobSpec job = poissonJob(2.0, 0.01, 8, 20'000.0);
  job.diurnal_amplitude = 0.8;
  job.diurnal_period = 20'000.0;
  job.diurnal_peak = 10'000.0;
  Run r(siteWith(job));
  r.run(5000, 1.0);  // up to t = 5,000 s: the quarter period rising from the trough
  const double P = 20'000.0, a = 0.8, lambda = 2.0;
  // Integral of lambda (1 - a cos(2 pi t / P)) from 0 to P/4 = lambda (P/4 - a P / (2 pi)).
  const double expected = lambda * (P / 4.0 - a * P / (2.0 * std::numbers::pi));
  const double n = static_cast<double>(r.executor.inferenceJob(0).requestsArrived());
  CHECK(std::abs(n - expected) < 4.0 * std::sqrt(expected));
}

TEST_CASE("GPU energy is idle plus busy slot-time at busy power", "[workload][inference]") {
  // 100 requests of 2 s slot time on 8 slots: sum of u dt = 100 * 2 / 8 = 25 s; over 60 s every
  // GPU uses P_idle * 60 + (0.9 P_max - P_idle) * 25, whatever the sub-step.
  for (const double dt : {0.1, 0.7, 3.0}) {
    INFO("dt = " << dt);
    Run r(siteWith(burstJob(100, 2.0, 8)));
    r.run(static_cast<long>(std::lround(63.0 / dt)), dt);
    CHECK(r.executor.requestsServed() == 100);
    CHECK(r.executor.tokensGenerated() == 1000);
    const double T = std::lround(63.0 / dt) * dt;
    CHECK(r.gpu0_E == Approx(kPidle * T + (0.9 * kPmax - kPidle) * 25.0).epsilon(1e-9));
  }
}

TEST_CASE("A slowed GPU slows the whole inference job by its factor", "[workload][inference]") {
  // 1,000 requests of 1 s slot time on 10 slots finish one wave of 10 every 1 / speed seconds:
  // 10 * floor(50.5 s * speed) by t = 50.5 s (500 at full speed, 250 at half speed).
  for (const double speed : {1.0, 0.5, 0.25}) {
    INFO("speed = " << speed);
    Run r(siteWith(burstJob(1000, 1.0, 10)));
    r.state.gpu_speed[40] = speed;  // one GPU of the job's rack
    r.run(505, 0.1);
    CHECK(r.executor.requestsServed() == 10 * static_cast<std::uint64_t>(std::floor(50.5 * speed)));
  }
  // A power cap below the busy power slows clocks until P ~ f^3 meets the cap (the law the
  // training jobs use): cap = busy power / 8 gives speed 1/2.
  Run r(siteWith(burstJob(1000, 1.0, 10)));
  r.state.rack_gpu_P_limit[0] = 0.9 * kPmax / 8.0;
  r.run(505, 0.1);
  CHECK(r.executor.requestsServed() == 250);
}

TEST_CASE("Requests are served first come, first served", "[workload][inference]") {
  // Three requests at 0, 1 and 1.5 s of 2 s each on one slot start at 0, 2 and 4 s: waits 0, 1 and
  // 2.5 s, mean 7/6 s.
  core::InferenceJobSpec job = burstJob(3, 2.0, 1);
  job.trace[1].time = 1.0;
  job.trace[2].time = 1.5;
  Run r(siteWith(job));
  r.run(100, 0.1);
  CHECK(r.executor.requestsServed() == 3);
  CHECK(*r.executor.meanQueueingDelay() == Approx(3.5 / 3.0).epsilon(1e-12));
}

TEST_CASE("Summary reports the inference keys", "[workload][inference]") {
  Run r(siteWith(burstJob(20, 1.0, 4)));
  r.run(100, 0.1);
  core::Summary summary;
  r.executor.summarise(summary);
  bool served = false, tokens = false, delay = false;
  for (const core::SummaryItem& item : summary.items()) {
    if (item.key == "requests_served") served = item.value == 20.0;
    if (item.key == "tokens_generated") tokens = item.value == 200.0;
    if (item.key == "mean_queueing_delay_s") delay = item.value.has_value();
  }
  CHECK(served);
  CHECK(tokens);
  CHECK(delay);
}

TEST_CASE("Invalid inference jobs are rejected", "[workload][inference]") {
  core::InferenceJobSpec job = burstJob(5, 1.0, 4);
  job.max_batch = 0;
  CHECK_THROWS_AS(Run(siteWith(job)), std::invalid_argument);
  job = burstJob(5, 1.0, 4);
  job.trace[3].time = -1.0;  // decreasing
  CHECK_THROWS_AS(Run(siteWith(job)), std::invalid_argument);
  job = poissonJob(0.0, 1.0, 1, 10.0);  // no trace and no rate
  CHECK_THROWS_AS(Run(siteWith(job)), std::invalid_argument);
  // A training job on the same rack at the same time.
  core::SiteSpec site = siteWith(burstJob(5, 1.0, 4));
  core::TrainingJobSpec train;
  train.id = "train";
  train.duration = 100.0;
  train.racks = {core::ComponentId("row1/rack01")};
  train.compute_duration = 1.0;
  train.compute_power_fraction = 0.9;
  site.jobs.push_back(train);
  CHECK_THROWS_AS(Run(site), std::invalid_argument);
}
