// Speed of the workload executor alone on the 64-rack cluster (scenarios/cluster-64-racks.yaml:
// 64 GB300 NVL72 racks, 4,608 GPUs) at 0.1 s sub-steps: simulated time over wall time and the
// cost of one sub-step. Cases: one synchronous training job on every GPU (checkpoints every
// 30 min, failures with a 20 h MTBF and 10 min restarts), a DCGM trace replayed on every GPU,
// and Poisson inference on half the racks beside training on the other half; DeepSeek-R1 served
// from its model (ModelServer) on every GPU at 20 requests/s and at 10,000 requests/s (about 85 %
// of the row's latency-bound capacity, docs/workloads.md; simulated for 1/24 of the hours given,
// as its cost is per request), and at 10,000 requests/s on disaggregated pools (half the
// replicas prefill, half decode; as long). The thermal and
// electrical models do not run; GPU speeds stay at 1. Run from the source tree:
// bench_workload [hours] [repeat] [substeps]: sub-steps per macro step, after each of which the
// executor compares its GPU inputs (the scenario's 10; 1 compares them at every sub-step).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "GpuTrace.hpp"
#include "WorkloadModels.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/WorkloadExecutor.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace {

using namespace racktwin;

core::TrainingJobSpec training(const std::vector<core::ComponentId>& racks, double duration) {
  core::TrainingJobSpec job;
  job.id = "train";
  job.duration = duration;
  job.racks = racks;
  job.compute_duration = 3.2;
  job.compute_power_fraction = 0.95;
  job.communication_duration = 0.8;
  job.communication_power_fraction = 0.4;
  job.checkpoint_interval = 1800.0;
  job.checkpoint_duration = 60.0;
  job.checkpoint_power_fraction = 0.2;
  job.failure_mtbf = 20.0 * 3600.0;
  job.restart_duration = 600.0;
  return job;
}

core::InferenceJobSpec inference(const std::vector<core::ComponentId>& racks, double duration) {
  core::InferenceJobSpec job;
  job.id = "serve";
  job.duration = duration;
  job.racks = racks;
  job.rate = 20.0;
  job.diurnal_amplitude = 0.5;
  job.context_tokens = 2000;
  job.generated_tokens = 200;
  job.max_batch = 256;
  job.prefill_tokens_per_s_per_gpu = 10000.0;
  job.decode_tokens_per_s_per_gpu = 1000.0;
  job.busy_power_fraction = 0.8;
  return job;
}

/// DeepSeek-R1 on every GPU (replicas of 8 B300s) with Poisson arrivals of conversation-trace
/// mean lengths (1,155 prompt, 211 output tokens).
core::InferenceJobSpec modelInference(const std::vector<core::ComponentId>& racks, double duration,
                                      double rate) {
  const std::string data = std::string(RACKTWIN_SOURCE_DIR) + "/data/";
  core::InferenceJobSpec job;
  job.id = "r1";
  job.duration = duration;
  job.racks = racks;
  job.rate = rate;
  job.context_tokens = 1155;
  job.generated_tokens = 211;
  core::InferenceDeploymentSpec d;
  d.accelerator = scenarios::detail::readAcceleratorFile(data + "accelerators/b300.yaml", "b300");
  d.model = scenarios::detail::readModelFile(data + "models/deepseek-r1.yaml", "deepseek-r1",
                                             "b300", &d.serving_efficiency);
  d.tensor_parallel = 8;
  d.expert_parallel = 8;
  d.max_batch = 4096;
  d.max_batch_tokens = 27648;
  job.deployment = d;
  return job;
}

enum class Case { Training, Replay, Mixed, ModelLight, ModelFull, ModelDisaggregated };

/// Best wall time of `repeat` runs, s.
double run(const core::SiteSpec& base, Case which, double seconds, int repeat, long substeps) {
  core::SiteSpec site = base;
  site.jobs.clear();
  site.inference_jobs.clear();
  site.replay_jobs.clear();
  std::vector<core::ComponentId> all, first, second;
  for (std::size_t r = 0; r < site.racks.size(); ++r) {
    all.push_back(site.racks[r].id);
    (2 * r < site.racks.size() ? first : second).push_back(site.racks[r].id);
  }
  if (which == Case::Training) site.jobs.push_back(training(all, seconds));
  if (which == Case::Mixed) {
    site.jobs.push_back(training(first, seconds));
    site.inference_jobs.push_back(inference(second, seconds));
  }
  if (which == Case::ModelLight) site.inference_jobs.push_back(modelInference(all, seconds, 20.0));
  if (which == Case::ModelFull) {
    site.inference_jobs.push_back(modelInference(all, seconds, 10000.0));
  }
  if (which == Case::ModelDisaggregated) {
    core::InferenceJobSpec job = modelInference(all, seconds, 10000.0);
    const int replicas = static_cast<int>(all.size()) * 72 / 8;
    job.deployment->prefill_replicas = replicas / 2;
    job.deployment->decode_replicas = replicas - replicas / 2;
    site.inference_jobs.push_back(std::move(job));
  }
  if (which == Case::Replay) {
    const std::string path =
        std::string(RACKTWIN_SOURCE_DIR) + "/tests/workload/data/dcgm-dmon-5gpu.txt";
    // The 1 s samples of the short test trace, held: a long trace costs the same per sub-step
    // plus its samples crossed.
    scenarios::detail::GpuTrace trace = scenarios::detail::readGpuTrace(path, "dcgm", 1.0);
    core::ReplayJobSpec job;
    job.id = "replay";
    job.duration = seconds;
    job.racks = all;
    job.sample_begin = std::move(trace.sample_begin);
    job.times = std::move(trace.times);
    job.power = std::move(trace.power);
    site.replay_jobs.push_back(std::move(job));
  }
  const core::SiteLayout layout = core::SiteLayout::build(site);
  const double dt = 0.1;
  const auto steps = static_cast<long>(seconds / dt + 0.5);
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    core::WorkloadExecutor executor(site, layout);
    core::SiteState state;
    state.resize(layout, 300.0);
    executor.initialize(state);
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < steps; ++i) {
      state.time = static_cast<double>(i) * dt;
      // As the engine runs it: 1 s macro steps of `substeps` sub-steps (the scenario's 10); the
      // executor compares the GPU inputs after each macro step's last sub-step.
      state.last_substep = substeps <= 1 || (i + 1) % substeps == 0;
      executor.advance(state.time, dt, state);
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, wall);
    if (r == 0) {
      std::printf("  %zu GPUs, %ld sub-steps: %llu iterations, %llu failures, %llu requests\n",
                  layout.gpu_count, steps,
                  static_cast<unsigned long long>(executor.totalIterations()),
                  static_cast<unsigned long long>(executor.totalFailures()),
                  static_cast<unsigned long long>(executor.requestsServed()));
    }
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const double hours = argc > 1 ? std::atof(argv[1]) : 24.0;
    const int repeat = argc > 2 ? std::atoi(argv[2]) : 1;
    const long substeps = argc > 3 ? std::atol(argv[3]) : 10;
    const double seconds = hours * 3600.0;
    const core::SiteSpec site = scenarios::loadScenario(std::string(RACKTWIN_SOURCE_DIR)
                                                        + "/scenarios/cluster-64-racks.yaml");
    const std::pair<Case, const char*> cases[] = {
        {Case::Training, "training, all racks"},
        {Case::Replay, "replay, all racks"},
        {Case::Mixed, "training + inference"},
        {Case::ModelLight, "DeepSeek-R1 from its model, all racks, 20 requests/s"},
        {Case::ModelFull, "DeepSeek-R1 from its model, all racks, 10,000 requests/s"},
        {Case::ModelDisaggregated,
         "DeepSeek-R1, disaggregated prefill and decode pools, 10,000 requests/s"}};
    for (const auto& [which, label] : cases) {
      std::printf("%s\n", label);
      const bool per_request = which == Case::ModelFull || which == Case::ModelDisaggregated;
      const double span = per_request ? seconds / 24.0 : seconds;
      const double wall = run(site, which, span, repeat, substeps);
      std::printf("  %.3f s wall for %.2f h: %.0fx real time, %.2f us per 0.1 s sub-step\n", wall,
                  span / 3600.0, span / wall, wall / (span / 0.1) * 1e6);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_workload: %s\n", e.what());
    return 1;
  }
  return 0;
}
