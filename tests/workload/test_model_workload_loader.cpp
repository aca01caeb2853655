// The loader's keys for workloads named by model (scenarios/src/WorkloadModels): an inference
// job's `model` and `load`, a training job's `model` with its derived durations, their errors with
// file, line and key, and the two shipped scenarios.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "ExecutorRun.hpp"
#include "WorkloadModels.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

using namespace racktwin;

namespace {

const std::string kR1 = std::string(RACKTWIN_SOURCE_DIR) + "/scenarios/inference-deepseek-r1.yaml";
const std::string k405 = std::string(RACKTWIN_SOURCE_DIR) + "/scenarios/training-llama-405b.yaml";

std::string text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

core::SiteSpec load(const std::string& yaml, const std::string& path) {
  return scenarios::loadScenarioFromString(yaml, path, std::string(RACKTWIN_SOURCE_DIR) + "/data",
                                           {}, scenarios::OutsidePaths::Allowed);
}

/// The scenario at `path` with `from` replaced by `to` (which must occur).
std::string edited(const std::string& path, const std::string& from, const std::string& to) {
  std::string s = text(path);
  const std::size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

void fails(const std::string& yaml, const std::string& path, const std::string& key,
           const std::string& what) {
  try {
    (void)load(yaml, path);
  } catch (const core::InputError& e) {
    INFO(e.what());
    CHECK(e.where().line > 0);
    CHECK(e.key() == key);
    CHECK(std::string(e.what()).find(what) != std::string::npos);
    return;
  }
  FAIL("no error for " << key);
}

}  // namespace

TEST_CASE("The DeepSeek-R1 scenario loads its model, accelerator and scaled trace", "[workload]") {
  const core::SiteSpec site = load(text(kR1), kR1);
  REQUIRE(site.inference_jobs.size() == 1);
  const core::InferenceJobSpec& job = site.inference_jobs[0];
  REQUIRE(job.deployment.has_value());
  CHECK(job.deployment->model.type == "deepseek-r1");
  CHECK(job.deployment->model.active_parameters == Approx(37e9));
  CHECK(job.deployment->accelerator.hbm_capacity == Approx(288e9));
  // NVLink 5: 1.8 TB/s per GPU both ways together, 0.9 TB/s each way.
  CHECK(job.deployment->accelerator.nvlink_bandwidth == Approx(0.9e12));
  CHECK(job.deployment->accelerator.scale_out_bandwidth == Approx(100e9));  // 800 Gb/s
  CHECK(job.deployment->serving_efficiency == Approx(0.205));               // calibration on b300
  // The trace: 19,366 requests, scaled 400 x and repeated 71 times.
  CHECK(job.trace.size() == 19366u * 71u);
  const double last = 3501.7219 / 400.0;  // s: 19:14:08.40 - 18:15:46.68, the last request
  CHECK(job.trace[19365].time == Approx(last).epsilon(1e-3));
  CHECK(job.trace[19366].time > job.trace[19365].time);
  CHECK(site.input_warnings.empty());
}

TEST_CASE("Load shaping divides a trace's times by the rate scale and repeats it", "[workload]") {
  core::SiteSpec base =
      load(edited(kR1, "load: {rate_scale: 400, repeat: 71}", "load: {rate_scale: 1}"), kR1);
  core::SiteSpec twice = load(
      edited(kR1, "load: {rate_scale: 400, repeat: 71}", "load: {rate_scale: 2, repeat: 2}"), kR1);
  const auto& a = base.inference_jobs[0].trace;
  const auto& b = twice.inference_jobs[0].trace;
  REQUIRE(b.size() == 2 * a.size());
  for (std::size_t i = 0; i < a.size(); i += 997) {
    CHECK(b[i].time == Approx(a[i].time / 2.0).margin(1e-12));
    CHECK(b[i].context_tokens == a[i].context_tokens);
  }
  // The copy starts one mean inter-arrival gap after the first copy's last request.
  const double span = a.back().time / 2.0;
  CHECK(b[a.size()].time == Approx(span + span / (a.size() - 1) + a[0].time / 2.0));
}

TEST_CASE("Model keys report their file, line and key", "[workload]") {
  fails(edited(kR1, "type: deepseek-r1", "type: gpt-9"), kR1, "workload[0].model.type",
        "unknown model type 'gpt-9'");
  fails(edited(kR1, "accelerator: b300", "accelerator: h100"), kR1, "workload[0].model.accelerator",
        "unknown accelerator type 'h100'");
  fails(edited(kR1, "weights: nvfp4", "weights: int3"), kR1, "workload[0].model.weights",
        "unknown number format");
  fails(edited(kR1, "expert_parallel: 8", "expert_parallel: 3"), kR1, "workload[0].model",
        "expert parallelism must divide");
  fails(edited(kR1, "load: {rate_scale: 400, repeat: 71}", "load: {rate_scale: -2}"), kR1,
        "workload[0].load.rate_scale", "must lie in");
  // A model without a calibration on the accelerator needs its serving efficiency.
  fails(edited(kR1, "type: deepseek-r1", "type: phi-3-mini"), kR1,
        "workload[0].model.serving_efficiency", "no calibration");
  fails(edited(k405, "mfu: 0.40", "mfu: 1.5"), k405, "workload[0].model.mfu", "must lie in");
  fails(edited(k405, "pipeline_parallel: 8", "pipeline_parallel: 7"), k405,
        "workload[0].model.pipeline_parallel", "must divide");
}

TEST_CASE("An unusual model value loads with a warning", "[workload]") {
  const core::SiteSpec site = load(edited(k405, "mfu: 0.40", "mfu: 0.85"), k405);
  REQUIRE(site.input_warnings.size() == 1);
  CHECK(site.input_warnings[0].find("workload[0].model.mfu") != std::string::npos);
}

TEST_CASE("A training job's iteration is derived from its model, not typed", "[workload]") {
  const core::SiteSpec site = load(text(k405), k405);
  REQUIRE(site.jobs.size() == 1);
  const core::TrainingJobSpec& job = site.jobs[0];
  // 6 N per token (Kaplan et al. 2020) for 16 Mi tokens on 1,152 B300s at 40 % of 5 PF FP8.
  const double flops = 6.0 * 405e9 * 16777216.0;
  CHECK(job.flops_per_iteration == Approx(flops).epsilon(1e-12));
  CHECK(job.compute_duration == Approx(flops / (1152 * 5e15 * 0.40)).epsilon(1e-12));
  // Exposed collectives (half of them) and the pipeline bubble, by hand:
  // TP 8: 4 all-reduces x 126 / 8 layers x (16 Mi / 18) tokens x 16,384 x 2 bytes x 2 x 7/8,
  // PP 8: 2 x (16 Mi / 18) x 16,384 x 2 bytes / 8 over NVLink at 0.9 TB/s x 0.8;
  // DP 18: 2 x 17/18 x 405e9 / 64 x 2 bytes over 100 GB/s x 0.8;
  // bubble 7 / (16 Mi / 18 / 8,192) of the compute phase.
  const double tokens = 16777216.0 / 18.0;
  const double tp = 4.0 * (126.0 / 8.0) * tokens * 16384.0 * 2.0 * 2.0 * 7.0 / 8.0;
  const double pp = 2.0 * tokens * 16384.0 * 2.0 / 8.0;
  const double dp = 2.0 * 17.0 / 18.0 * 405e9 / 64.0 * 2.0;
  const double collectives = (tp + pp) / (0.9e12 * 0.8) + dp / (100e9 * 0.8);
  const double bubble = job.compute_duration * 7.0 / (tokens / 8192.0);
  CHECK(job.communication_duration == Approx(0.5 * collectives + bubble).epsilon(1e-12));
  // Checkpoint: 14 bytes per parameter at 500 GB/s.
  CHECK(job.checkpoint_duration == Approx(14.0 * 405e9 / 500e9).epsilon(1e-12));
  CHECK(job.tokens_per_iteration == 16777216.0);
  // Phase powers from the accelerator file when the scenario gives none.
  CHECK(job.compute_power_fraction == Approx(1.0));
  CHECK(job.communication_power_fraction == Approx(0.4));
}

namespace {

const std::string kPools =
    std::string(RACKTWIN_SOURCE_DIR) + "/scenarios/inference-disaggregated.yaml";
const std::string kPoolsKey = "disaggregated: {prefill_replicas: 10, decode_replicas: 8}";

}  // namespace

TEST_CASE("The disaggregated scenario loads its prefill and decode pools", "[workload]") {
  const core::SiteSpec site = load(text(kPools), kPools);
  REQUIRE(site.inference_jobs.size() == 1);
  const core::InferenceDeploymentSpec& d = *site.inference_jobs[0].deployment;
  CHECK(d.prefill_replicas == 10);
  CHECK(d.decode_replicas == 8);
  CHECK(site.input_warnings.empty());
  // Without the key the same job is aggregated.
  const core::SiteSpec plain = load(edited(kPools, kPoolsKey, ""), kPools);
  CHECK_FALSE(plain.inference_jobs[0].deployment->disaggregated());
}

TEST_CASE("Disaggregated pools report their file, line and key", "[workload]") {
  // Two racks of 72 GPUs in replicas of 8: 18 replicas.
  fails(edited(kPools, kPoolsKey, "disaggregated: {prefill_replicas: 10, decode_replicas: 9}"),
        kPools, "workload[0].model.disaggregated.decode_replicas",
        "must equal the job's replicas: its 144 GPUs over tensor x pipeline parallel 8 = 18");
  fails(edited(kPools, kPoolsKey, "disaggregated: {prefill_replicas: 0, decode_replicas: 18}"),
        kPools, "workload[0].model.disaggregated.prefill_replicas", "");
  fails(edited(kPools, kPoolsKey, "disaggregated: {prefill_replicas: 10}"), kPools,
        "workload[0].model.disaggregated.decode_replicas", "");
  fails(edited(kPools, kPoolsKey,
               "disaggregated: {prefill_replicas: 10, decode_replicas: 8, prefill_share: 0.5}"),
        kPools, "workload[0].model.disaggregated.prefill_share", "");
}

TEST_CASE("A lopsided prefill pool loads with a warning", "[workload]") {
  const core::SiteSpec site =
      load(edited(kPools, kPoolsKey, "disaggregated: {prefill_replicas: 17, decode_replicas: 1}"),
           kPools);
  REQUIRE(site.input_warnings.size() == 1);
  CHECK(site.input_warnings[0].find("workload[0].model.disaggregated.prefill_replicas")
        != std::string::npos);
}

TEST_CASE("Each pool's racks draw the power of its phase", "[workload]") {
  // One pool per rack: rack01 prefills, rack02 decodes. At twice the shipped load the prompts
  // queue, so rack01's GPUs run compute-bound prompts all the time (power near the limit, less
  // the share of the all-to-all); rack02's decode iterations are mostly memory-bound.
  std::string yaml =
      edited(kPools, kPoolsKey, "disaggregated: {prefill_replicas: 9, decode_replicas: 9}");
  yaml.replace(yaml.find("rate_scale: 80"), 14, "rate_scale: 160");
  core::SiteSpec site = load(yaml, kPools);
  const core::ChipSpec gpu = site.racks[0].type.gpu;
  test::ExecutorRun run(std::move(site));
  const double dt = 0.1;
  run.run(600, dt, 10.0);  // 60 s, the first 10 s of start-up left out
  const auto meanPower = [&](std::size_t rack) {
    double E = 0.0;
    const std::uint32_t begin = run.layout.rack_gpu_begin[rack];
    const std::uint32_t end = run.layout.rack_gpu_begin[rack + 1];
    for (std::uint32_t g = begin; g < end; ++g)
      E += run.gpu_E[g];
    return E / (end - begin) / 50.0;
  };
  const double prefill = meanPower(0);
  const double decode = meanPower(1);
  INFO("prefill " << prefill << " W, decode " << decode << " W");
  CHECK(prefill > decode + 0.05 * (gpu.P_max - gpu.P_idle));
  CHECK(prefill <= gpu.P_max * (1.0 + 1e-9));
  CHECK(decode > gpu.P_idle);
}
