// Inference and replay jobs placed by the scheduler: they wait in the queue with the training
// jobs, start exactly when racks free up, and then run as the same job naming the racks it got
// with that start (the reference: the named path of the executor, same seed, same trace). The
// queue of a scheduled inference job obeys Little's law (Little, "A proof for the queuing formula
// L = lambda W", Operations Research 9, 1961) over the job's own run: requests arrive only once
// it has started.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "ExecutorRun.hpp"
#include "Gb300TestSite.hpp"
#include "racktwin/core/InferenceJob.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/WorkloadExecutor.hpp"

using namespace racktwin;

namespace {

constexpr std::uint32_t kGpus = 72;  // per rack
constexpr double kPidle = 200.0;     // W, the test rack's idle power (Gb300TestSite.hpp)

/// A training job on every rack of a `racks`-rack site over [0, duration): named, or sized to
/// the whole site and submitted at 0 (it then starts at 0 as well).
core::TrainingJobSpec holder(int racks, double duration, bool scheduled) {
  core::TrainingJobSpec j;
  j.id = "hold";
  j.duration = duration;
  if (scheduled) {
    j.gpus = kGpus * static_cast<std::uint32_t>(racks);
  } else {
    for (int r = 1; r <= racks; ++r)
      j.racks.emplace_back("row1/rack0" + std::to_string(r));
  }
  j.compute_duration = 3.0;
  j.compute_power_fraction = 0.9;
  j.communication_duration = 1.0;
  j.communication_power_fraction = 0.4;
  return j;
}

/// Poisson requests, each `service` s of one slot at full speed on `gpus` GPUs (context tokens
/// only).
core::InferenceJobSpec poissonJob(double rate, double service, std::uint32_t max_batch,
                                  std::uint32_t gpus, double duration) {
  core::InferenceJobSpec j;
  j.id = "serve";
  j.duration = duration;
  j.rate = rate;
  j.context_tokens = 1000;
  j.generated_tokens = 20;
  j.max_batch = max_batch;
  // max_batch * (context / (prefill * gpus) + generated / (decode * gpus)) = service, split
  // evenly between prefill and decode.
  j.prefill_tokens_per_s_per_gpu = max_batch * 1000.0 / (0.5 * service * gpus);
  j.decode_tokens_per_s_per_gpu = max_batch * 20.0 / (0.5 * service * gpus);
  j.busy_power_fraction = 0.8;
  return j;
}

/// The same job asking for `gpus` at `submit` instead of naming racks.
core::InferenceJobSpec sized(core::InferenceJobSpec j, std::uint32_t gpus, double submit) {
  j.racks.clear();
  j.gpus = gpus;
  j.submit = submit;
  return j;
}

using Run = test::ExecutorRun;

core::SiteSpec site(int racks, core::SchedulerSpec::Policy policy) {
  core::SiteSpec s = test::gb300Site(racks);
  s.simulation.seed = 3;
  s.scheduler.policy = policy;
  return s;
}

}  // namespace

TEST_CASE("A scheduled inference job waits for racks and starts when they free up",
          "[workload][scheduler][inference]") {
  // Two racks held by a training job over [0, 100 s); the inference job asks for one rack at
  // 10 s. It waits and starts at 100 s exactly (1 s sub-steps fall on 100), under either policy,
  // whether the holder names its racks or was itself scheduled; before 100 s no request arrives.
  for (const auto policy :
       {core::SchedulerSpec::Policy::Fifo, core::SchedulerSpec::Policy::Backfill}) {
    for (const bool scheduled_holder : {false, true}) {
      INFO("fifo " << (policy == core::SchedulerSpec::Policy::Fifo) << ", scheduled holder "
                   << scheduled_holder);
      core::SiteSpec s = site(2, policy);
      s.jobs.push_back(holder(2, 100.0, scheduled_holder));
      s.inference_jobs.push_back(sized(poissonJob(2.0, 0.4, 4, kGpus, 300.0), kGpus, 10.0));
      Run r(s);
      r.run(100, 1.0);  // up to t = 100 s
      const core::InferenceJob& job = r.executor.inferenceJob(0);
      CHECK_FALSE(job.start() < std::numeric_limits<double>::infinity());
      CHECK(r.executor.inferenceJobRacks(0).empty());
      CHECK(job.requestsArrived() == 0);
      CHECK(r.executor.jobsQueued() == 1);

      r.run(500, 1.0);
      CHECK(job.start() == 100.0);
      CHECK(job.end() == 400.0);
      CHECK(r.executor.inferenceJobRacks(0).size() == 1);
      CHECK(job.requestsServed() > 0);
      core::Summary summary;
      r.executor.summarise(summary);
      CHECK(summary.value("job_serve_start_s") == 100.0);
      CHECK(summary.value("job_serve_wait_s") == 90.0);
      CHECK(summary.value("jobs_completed") == 2.0);
      CHECK(summary.value("jobs_queued_at_end") == 0.0);
    }
  }
}

TEST_CASE("A scheduled inference job serves as the job naming its racks with its start",
          "[workload][scheduler][inference]") {
  // Three racks; a named training job holds them over [0, 100 s). The inference job asks for two
  // racks (144 GPUs) at 5 s: it starts at 100 s. Its reference names the racks it got and starts
  // at 100 s, with the same seed (same index) or the same trace: the same requests, tokens and
  // waits, and the same GPU energy everywhere.
  core::InferenceJobSpec poisson = poissonJob(3.0, 1.0, 4, 2 * kGpus, 600.0);
  core::InferenceJobSpec trace = poisson;
  trace.rate = 0.0;
  for (int k = 0; k < 400; ++k) {
    const auto context = static_cast<std::uint32_t>(800 + 10 * (k % 13));
    const auto tokens = static_cast<std::uint32_t>(20 + (k * 37) % 50);
    trace.trace.push_back(core::InferenceRequest{0.5 * k + 0.013 * (k % 7), context, tokens});
  }
  for (const core::InferenceJobSpec& spec : {poisson, trace}) {
    INFO((spec.trace.empty() ? "Poisson" : "trace"));
    core::SiteSpec s = site(3, core::SchedulerSpec::Policy::Backfill);
    s.jobs.push_back(holder(3, 100.0, false));
    s.inference_jobs.push_back(sized(spec, 2 * kGpus, 5.0));
    Run r(s);
    r.run(1000, 0.5);
    const core::InferenceJob& job = r.executor.inferenceJob(0);
    REQUIRE(job.start() == 100.0);
    const std::vector<core::ComponentId> racks = r.rackIds(r.executor.inferenceJobRacks(0));
    REQUIRE(racks.size() == 2);

    core::SiteSpec n = site(3, core::SchedulerSpec::Policy::Backfill);
    n.jobs.push_back(holder(3, 100.0, false));
    core::InferenceJobSpec named = spec;
    named.start = 100.0;
    named.racks = racks;
    n.inference_jobs.push_back(named);
    Run ref(n);
    ref.run(1000, 0.5);
    const core::InferenceJob& expected = ref.executor.inferenceJob(0);
    CHECK(job.requestsArrived() == expected.requestsArrived());
    CHECK(job.requestsServed() == expected.requestsServed());
    CHECK(job.tokensGenerated() == expected.tokensGenerated());
    CHECK(job.queueingDelaySum() == expected.queueingDelaySum());
    CHECK(job.requestsServed() > 100);
    for (std::size_t g = 0; g < r.layout.gpu_count; g += 71)
      CHECK(r.gpu_E[g] == Approx(ref.gpu_E[g]).epsilon(1e-12));
  }
}

TEST_CASE("A scheduled inference job's throughput follows the GPUs it asked for",
          "[workload][scheduler][inference]") {
  // 100 requests at the job's start on one slot; decode throughput set so that a request takes
  // 1 s on 144 GPUs (2 s on 72): by 50.5 s after the start, 50 are served. The job starts at
  // 20 s, after a training job on both racks.
  core::InferenceJobSpec j;
  j.id = "burst";
  j.duration = 1000.0;
  j.trace.assign(100, core::InferenceRequest{0.0, 0, 144});
  j.max_batch = 1;
  j.prefill_tokens_per_s_per_gpu = 1.0;
  j.decode_tokens_per_s_per_gpu = 1.0;  // 144 tokens / (1 token/s x 144 GPUs) = 1 s
  j.busy_power_fraction = 0.8;
  core::SiteSpec s = site(2, core::SchedulerSpec::Policy::Fifo);
  s.jobs.push_back(holder(2, 20.0, false));
  s.inference_jobs.push_back(sized(j, 2 * kGpus, 0.0));
  Run r(s);
  r.run(141, 0.5);  // to 70.5 s
  CHECK(r.executor.inferenceJob(0).start() == 20.0);
  CHECK(r.executor.requestsServed() == 50);
  CHECK(r.executor.tokensGenerated() == 50 * 144);
  // Every request arrived at the start: the k-th waited (k - 1) s, so the 51 started have
  // waited 0 + 1 + ... + 50 s.
  CHECK(r.executor.inferenceJob(0).requestsStarted() == 51);
  CHECK(r.executor.inferenceJob(0).queueingDelaySum() == Approx(50.0 * 51.0 / 2.0));
}

TEST_CASE("Little's law holds for the queue of a scheduled inference job",
          "[workload][scheduler][inference]") {
  // M/D/4 near saturation (rho = 0.9) started at 1,000 s after a training job: the time average
  // of the queue length over the job's run equals lambda * W_q from the individual waits, with
  // the waits counted from the job's start (no request exists before it).
  const double rate = 6.0, S = 0.6, T = 100'000.0, t0 = 1000.0;
  core::SiteSpec s = site(1, core::SchedulerSpec::Policy::Backfill);
  s.jobs.push_back(holder(1, t0, false));
  s.inference_jobs.push_back(sized(poissonJob(rate, S, 4, kGpus, T), kGpus, 0.0));
  Run r(s);
  r.run(static_cast<long>(t0 + T) + 10, 1.0);
  const core::InferenceJob& job = r.executor.inferenceJob(0);
  REQUIRE(job.start() == t0);
  const double L = job.queueLengthIntegral() / T;
  const double W = job.queueingDelaySum() / static_cast<double>(job.requestsStarted());
  CHECK(L > 0.5);  // a real queue
  CHECK(L == Approx(rate * W).epsilon(0.03));
  // Arrivals over the job's run only: a Poisson count within 4 standard deviations.
  const double arrived = static_cast<double>(job.requestsArrived());
  CHECK(std::abs(arrived - rate * T) < 4.0 * std::sqrt(rate * T));
}

TEST_CASE("A scheduled replay job follows the racks it is placed on",
          "[workload][scheduler][replay]") {
  // Two trace GPUs (zero-order hold): GPU 0 500 W, 900 W from 10 s, 300 W from 30 s; GPU 1
  // 700 W, 1,100 W from 20 s. A named training job holds the three racks over [0, 50 s); the
  // replay asks for two racks at 5 s, starts at 50 s on the first two and runs 100 s.
  core::ReplayJobSpec replay;
  replay.id = "replay";
  replay.duration = 100.0;
  replay.sample_begin = {0, 3, 5};
  replay.times = {0.0, 10.0, 30.0, 0.0, 20.0};
  replay.power = {500.0, 900.0, 300.0, 700.0, 1100.0};
  core::ReplayJobSpec scheduled = replay;
  scheduled.gpus = 2 * kGpus;
  scheduled.submit = 5.0;
  core::SiteSpec s = site(3, core::SchedulerSpec::Policy::Backfill);
  s.jobs.push_back(holder(3, 50.0, false));
  s.replay_jobs.push_back(scheduled);
  Run r(s);
  r.run(200, 1.0, 50.0);  // energies over [50, 200 s)
  REQUIRE(r.executor.replayJob(0).start() == 50.0);
  const std::vector<core::ComponentId> racks = r.rackIds(r.executor.replayJobRacks(0));
  CHECK(racks
        == std::vector<core::ComponentId>{core::ComponentId("row1/rack01"),
                                          core::ComponentId("row1/rack02")});
  // GPU k of the job's racks replays trace GPU k mod 2: over the job's 100 s GPU 0 draws
  // 500 x 10 + 900 x 20 + 300 x 70 J, GPU 1 700 x 20 + 1,100 x 80 J, then idle for 50 s; the
  // third rack idles throughout.
  const double tail = kPidle * 50.0;
  CHECK(r.gpu_E[0] == Approx(44'000.0 + tail).epsilon(1e-12));
  CHECK(r.gpu_E[1] == Approx(102'000.0 + tail).epsilon(1e-12));
  CHECK(r.gpu_E[kGpus + 1] == Approx(102'000.0 + tail).epsilon(1e-12));
  CHECK(r.gpu_E[2 * kGpus] == Approx(kPidle * 150.0).epsilon(1e-12));

  // The same replay naming those racks with start 50 s: the same demand on every GPU.
  core::SiteSpec n = site(3, core::SchedulerSpec::Policy::Backfill);
  n.jobs.push_back(holder(3, 50.0, false));
  replay.start = 50.0;
  replay.racks = racks;
  n.replay_jobs.push_back(replay);
  Run ref(n);
  ref.run(200, 1.0, 50.0);
  for (std::size_t g = 0; g < r.layout.gpu_count; ++g) {
    if (r.gpu_E[g] != Approx(ref.gpu_E[g]).epsilon(1e-12)) FAIL("GPU " << g);
  }
}

TEST_CASE("Replay jobs take turns on a rack", "[workload][scheduler][replay]") {
  // One rack. Two scheduled replays of one rack, both submitted at 0 s for 100 s: A runs over
  // [0, 100 s), B over [100, 200 s), straight after it; a replay naming the rack runs A's trace
  // again over [300, 400 s). Two trace GPUs each, held constant: A 500 W and 800 W, B 600 W and
  // 0 W. Every GPU draws its own job's power: B's 0 W GPU does not keep A's 800 W.
  const auto constant = [](const std::string& id, double P0, double P1) {
    core::ReplayJobSpec j;
    j.id = id;
    j.duration = 100.0;
    j.sample_begin = {0, 1, 2};
    j.times = {0.0, 0.0};
    j.power = {P0, P1};
    return j;
  };
  core::SiteSpec s = site(1, core::SchedulerSpec::Policy::Fifo);
  for (const auto& [id, P0, P1] : {std::tuple{"a", 500.0, 800.0}, std::tuple{"b", 600.0, 0.0}}) {
    core::ReplayJobSpec j = constant(id, P0, P1);
    j.gpus = kGpus;
    s.replay_jobs.push_back(j);
  }
  core::ReplayJobSpec named = constant("c", 500.0, 800.0);
  named.start = 300.0;
  named.racks = {core::ComponentId("row1/rack01")};
  s.replay_jobs.push_back(named);
  Run r(s);
  r.run(400, 1.0);
  CHECK(r.executor.replayJob(0).start() == 0.0);
  CHECK(r.executor.replayJob(1).start() == 100.0);
  CHECK(r.gpu_E[0] == Approx(500.0 * 100 + 600.0 * 100 + kPidle * 100 + 500.0 * 100));
  CHECK(r.gpu_E[1] == Approx(800.0 * 100 + 0.0 * 100 + kPidle * 100 + 800.0 * 100));
  CHECK(r.gpu_E[71] == Approx(r.gpu_E[1]));
}

TEST_CASE("The executor refuses scheduled inference and replay jobs that cannot be placed",
          "[workload][scheduler]") {
  const auto refuses = [](const core::SiteSpec& s, const std::string& what) {
    const core::SiteLayout layout = core::SiteLayout::build(s);
    try {
      core::WorkloadExecutor executor(s, layout);
    } catch (const std::invalid_argument& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(what) != std::string::npos);
      return;
    }
    FAIL("no error for " << what);
  };
  core::InferenceJobSpec serve = sized(poissonJob(1.0, 0.5, 2, kGpus, 100.0), 100, 0.0);
  core::SiteSpec s = site(2, core::SchedulerSpec::Policy::Backfill);
  s.inference_jobs.push_back(serve);  // not whole racks
  refuses(s, "inference job 'serve': asks for 100 GPUs; expected a multiple of the 72");
  s.inference_jobs.back().gpus = 3 * kGpus;  // more racks than the site has
  refuses(s, "at most the site's 2 racks");
  s.inference_jobs.back().gpus = kGpus;
  s.inference_jobs.back().racks = {core::ComponentId("row1/rack01")};
  refuses(s, "inference job 'serve': names racks and asks for GPUs");
  core::ReplayJobSpec replay;
  replay.id = "replay";
  replay.duration = 10.0;
  replay.sample_begin = {0, 1};
  replay.times = {0.0};
  replay.power = {500.0};
  replay.gpus = 36;
  core::SiteSpec t = site(2, core::SchedulerSpec::Policy::Backfill);
  t.replay_jobs.push_back(replay);
  refuses(t, "replay job 'replay': asks for 36 GPUs");
  t.replay_jobs.back().gpus = kGpus;
  t.replay_jobs.back().duration = 0.0;
  refuses(t, "duration a positive number");
}
