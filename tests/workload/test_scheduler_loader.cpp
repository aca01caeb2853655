// The loader's scheduler keys (`gpus`, `submit`, `scheduler.policy`) and their errors, and the
// shipped queue scenario (scenarios/scheduler-queue.yaml) run by the executor: the start times
// its header works out by hand, under both policies.
#include <catch2/catch.hpp>

#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/WorkloadExecutor.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

using namespace racktwin;

namespace {

const std::string kPath = std::string(RACKTWIN_SOURCE_DIR) + "/scenarios/scheduler-queue.yaml";

std::string queueScenario() {
  std::ifstream in(kPath);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

core::SiteSpec load(const std::string& text) {
  return scenarios::loadScenarioFromString(text, kPath, std::string(RACKTWIN_SOURCE_DIR) + "/data",
                                           {}, scenarios::OutsidePaths::Allowed);
}

/// The scenario with its workload replaced by `jobs` (YAML list items).
std::string withJobs(const std::string& jobs) {
  const std::string s = queueScenario();
  return s.substr(0, s.find("workload:")) + "workload:\n" + jobs;
}

const std::string kIteration =
    "    iteration: {compute: 3 s, compute_power: 90 %, communication: 1 s, "
    "communication_power: 40 %}\n";

void fails(const std::string& text, const std::string& key, const std::string& what) {
  try {
    (void)load(text);
  } catch (const core::InputError& e) {
    INFO(e.what());
    CHECK(e.where().line > 0);
    CHECK(e.key() == key);
    CHECK(std::string(e.what()).find("scheduler-queue.yaml") != std::string::npos);
    CHECK(std::string(e.what()).find(what) != std::string::npos);
    return;
  }
  FAIL("no error for " << key);
}

}  // namespace

TEST_CASE("The loader reads jobs sized in GPUs and the scheduler policy", "[workload][scheduler]") {
  const core::SiteSpec site = load(queueScenario());
  REQUIRE(site.jobs.size() == 6);
  CHECK(site.scheduler.policy == core::SchedulerSpec::Policy::Backfill);
  const core::TrainingJobSpec& big = site.jobs[2];
  CHECK(big.id == "full-site");
  CHECK(big.gpus == 576);
  CHECK(big.racks.empty());
  CHECK(big.submit == Approx(300.0));
  CHECK(big.duration == Approx(1800.0));

  std::string fifo = queueScenario();
  fifo.replace(fifo.find("policy: backfill"), 16, "policy: fifo");
  CHECK(load(fifo).scheduler.policy == core::SchedulerSpec::Policy::Fifo);
  // Without the key the policy is backfill.
  std::string none = queueScenario();
  const std::size_t from = none.find("\nscheduler:");
  none.erase(from, none.find("\n# Every job") - from);
  CHECK(load(none).scheduler.policy == core::SchedulerSpec::Policy::Backfill);
}

TEST_CASE("The loader reports bad scheduler keys with file, line and key",
          "[workload][scheduler]") {
  const std::string head = "  - id: j1\n    type: training\n";
  // Nine racks' worth on an eight-rack site: the error names the job.
  fails(withJobs(head + "    gpus: 648\n    duration: 1 h\n" + kIteration), "workload[0].gpus",
        "job 'j1' asks for 648 GPUs (9 racks), but the site has 8 racks");
  fails(withJobs(head + "    gpus: 100\n    duration: 1 h\n" + kIteration), "workload[0].gpus",
        "multiple of the 72 GPUs");
  fails(withJobs(head + "    gpus: 72\n    racks: all\n    duration: 1 h\n" + kIteration),
        "workload[0].gpus", "not both");
  fails(withJobs(head + "    gpus: 72\n    start: 0 s\n    duration: 1 h\n" + kIteration),
        "workload[0].start", "submit");
  fails(withJobs(head + "    gpus: 72\n" + kIteration), "workload[0].duration",
        "required key is missing");
  fails(withJobs(head + "    gpus: 72\n    submit: 3 h\n    duration: 1 h\n" + kIteration),
        "workload[0].submit", "before the end of the simulation");
  fails(withJobs(head + "    racks: all\n    submit: 0 s\n" + kIteration), "workload[0].submit",
        "only a job sized by gpus");
  std::string policy = queueScenario();
  policy.replace(policy.find("policy: backfill"), 16, "policy: sjf");
  fails(policy, "scheduler.policy", "expected fifo or backfill");
}

TEST_CASE("The shipped queue scenario schedules as its header says", "[workload][scheduler]") {
  // Start times in minutes, worked out in scenarios/scheduler-queue.yaml, for backfill and FIFO.
  struct Expected {
    core::SchedulerSpec::Policy policy;
    double start[6];  // pretrain-a, pretrain-b, full-site, finetune-1, finetune-2, eval
  };
  for (const Expected& e : {Expected{core::SchedulerSpec::Policy::Backfill, {0, 0, 60, 10, 90, 35}},
                            Expected{core::SchedulerSpec::Policy::Fifo, {0, 0, 60, 90, 90, 90}}}) {
    core::SiteSpec site = load(queueScenario());
    site.scheduler.policy = e.policy;
    const core::SiteLayout layout = core::SiteLayout::build(site);
    core::WorkloadExecutor executor(site, layout);
    core::SiteState state;
    state.resize(layout, 300.0);
    executor.initialize(state);
    const double dt = site.simulation.step / site.simulation.substeps;
    const auto n = static_cast<long>(site.simulation.duration / dt + 0.5);
    for (long i = 0; i < n; ++i) {
      state.time = static_cast<double>(i) * dt;
      executor.advance(state.time, dt, state);
    }
    double wait = 0.0;
    for (std::size_t j = 0; j < 6; ++j) {
      INFO(executor.jobId(j));
      REQUIRE(executor.jobStart(j).has_value());
      CHECK(*executor.jobStart(j) == Approx(e.start[j] * 60.0));
      wait += *executor.jobStart(j) - executor.jobSubmit(j);
    }
    core::Summary summary;
    executor.summarise(summary);
    CHECK(summary.value("jobs_completed") == Approx(6.0));
    CHECK(summary.value("jobs_queued_at_end") == Approx(0.0));
    // 130 min / 6 with backfill, 265 min / 6 with FIFO (the header's 21.7 and 44.2 min).
    const double mean_min = e.policy == core::SchedulerSpec::Policy::Fifo ? 265.0 / 6 : 130.0 / 6;
    CHECK(summary.value("mean_job_wait_s") == Approx(mean_min * 60.0));
    CHECK(wait / 6.0 == Approx(mean_min * 60.0));
  }
}

TEST_CASE("The loader queues inference and replay jobs sized in GPUs", "[workload][scheduler]") {
  const std::string serve =
      "  - id: serve\n    type: inference\n"
      "    arrivals: {rate_per_s: 2, context_tokens: 1000, generated_tokens: 100}\n"
      "    server: {max_batch: 8, prefill_tokens_per_s_per_gpu: 1000, "
      "decode_tokens_per_s_per_gpu: 100, busy_power: 70 %}\n";
  const std::string replay =
      "  - id: replay\n    type: replay\n    format: nvidia-smi\n"
      "    trace: ../tests/workload/data/nvidia-smi-2gpu.csv\n";
  // All eight racks train for an hour; the inference job (2 racks) and the replay (1 rack) are
  // submitted at 10 min and start when the training job ends, at 60 min.
  const std::string jobs = "  - id: train\n    type: training\n    gpus: 576\n    duration: 1 h\n"
                           + kIteration + serve
                           + "    gpus: 144\n    submit: 10 min\n    duration: 30 min\n" + replay
                           + "    gpus: 72\n    submit: 10 min\n    duration: 20 min\n";
  const core::SiteSpec site = load(withJobs(jobs));
  REQUIRE(site.inference_jobs.size() == 1);
  REQUIRE(site.replay_jobs.size() == 1);
  CHECK(site.inference_jobs[0].gpus == 144);
  CHECK(site.inference_jobs[0].racks.empty());
  CHECK(site.inference_jobs[0].submit == Approx(600.0));
  CHECK(site.inference_jobs[0].duration == Approx(1800.0));
  CHECK(site.replay_jobs[0].gpus == 72);
  CHECK(site.replay_jobs[0].order == 2);
  const core::SiteLayout layout = core::SiteLayout::build(site);
  core::WorkloadExecutor executor(site, layout);
  core::SiteState state;
  state.resize(layout, 300.0);
  executor.initialize(state);
  for (long i = 0; i < 8000; ++i) {  // to 4,000 s at 0.5 s
    state.time = static_cast<double>(i) * 0.5;
    executor.advance(state.time, 0.5, state);
  }
  CHECK(executor.inferenceJob(0).start() == Approx(3600.0));
  CHECK(executor.replayJob(0).start() == Approx(3600.0));
  CHECK(executor.inferenceJobRacks(0).size() == 2);
  CHECK(executor.replayJobRacks(0).size() == 1);
  CHECK(executor.requestsServed() > 0);
  core::Summary summary;
  executor.summarise(summary);
  CHECK(summary.value("job_serve_wait_s") == Approx(3000.0));
  CHECK(summary.value("job_replay_start_s") == Approx(3600.0));

  // Errors name the file, the line and the key, as for training jobs.
  fails(withJobs(serve + "    gpus: 100\n    duration: 1 h\n"), "workload[0].gpus",
        "multiple of the 72 GPUs");
  fails(withJobs(serve + "    gpus: 72\n    racks: all\n    duration: 1 h\n"), "workload[0].gpus",
        "not both");
  fails(withJobs(serve + "    racks: all\n    submit: 0 s\n"), "workload[0].submit",
        "only a job sized by gpus");
  fails(withJobs(serve + "    gpus: 72\n    start: 0 s\n    duration: 1 h\n"), "workload[0].start",
        "submit");
  fails(withJobs(serve + "    gpus: 72\n"), "workload[0].duration", "required key is missing");
  fails(withJobs(replay + "    gpus: 144\n    racks: [row1/rack01]\n    duration: 1 h\n"),
        "workload[0].gpus", "not both");
  fails(withJobs(replay + "    submit: 0 s\n    racks: all\n"), "workload[0].submit",
        "only a job sized by gpus");
  fails(withJobs(replay + "    gpus: 70\n    duration: 1 h\n"), "workload[0].gpus",
        "multiple of the 72 GPUs");
}
