// Inference from a named model on its accelerator (core/InferenceRoofline, core/ModelServer): the
// roofline's limits against hand formulas from the data sheets, and the calibrated server against
// published MLPerf Inference v5.1 results (docs/references/mlperf-inference.md).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "WorkloadModels.hpp"
#include "racktwin/core/InferenceRoofline.hpp"
#include "racktwin/core/ModelServer.hpp"

using namespace racktwin;

namespace {

std::string dataPath(const std::string& rel) {
  return std::string(RACKTWIN_SOURCE_DIR) + "/data/" + rel;
}

/// A deployment from the shipped data files, with the model's calibration on the accelerator.
core::InferenceDeploymentSpec deployment(const std::string& model, const std::string& accelerator,
                                         int tp, int ep, int max_batch, int max_batch_tokens,
                                         int pp = 1) {
  core::InferenceDeploymentSpec d;
  d.accelerator = scenarios::detail::readAcceleratorFile(
      dataPath("accelerators/" + accelerator + ".yaml"), accelerator);
  double efficiency = 0.0;
  d.model = scenarios::detail::readModelFile(dataPath("models/" + model + ".yaml"), model,
                                             accelerator, &efficiency);
  d.serving_efficiency = efficiency > 0.0 ? efficiency : 1.0;
  d.tensor_parallel = tp;
  d.pipeline_parallel = pp;
  d.expert_parallel = ep;
  d.max_batch = max_batch;
  d.max_batch_tokens = max_batch_tokens;
  return d;
}

/// MLPerf-style requests of fixed lengths: a backlog at t = 0 (Offline) or Poisson arrivals.
core::InferenceJobSpec job(const core::InferenceDeploymentSpec& d, double duration) {
  core::InferenceJobSpec s;
  s.id = "serve";
  s.duration = duration;
  s.deployment = d;
  return s;
}

/// Output tokens/s per GPU at saturation: a backlog of n requests, measured between 20 % and 80 %
/// of the tokens (outside the start-up and the drain).
double offlineThroughput(const core::InferenceDeploymentSpec& d, std::uint32_t gpus, int n,
                         std::uint32_t prompt, std::uint32_t output) {
  core::InferenceJobSpec s = job(d, 86400.0);
  s.trace.assign(static_cast<std::size_t>(n), core::InferenceRequest{0.0, prompt, output});
  core::ModelServer server(s, gpus, 1);
  const double total = static_cast<double>(n) * output;
  double t = 0.0, t_a = -1.0, t_b = -1.0, n_a = 0.0, n_b = 0.0;
  while (t_b < 0.0 && t < 86400.0) {
    server.run(t, t + 1.0, 1.0);
    t += 1.0;
    const double done = server.tokensDecoded();
    if (t_a < 0.0 && done > 0.2 * total) {
      t_a = t;
      n_a = done;
    }
    if (t_b < 0.0 && done > 0.8 * total) {
      t_b = t;
      n_b = done;
    }
  }
  REQUIRE(t_b > t_a);
  return (n_b - n_a) / (t_b - t_a) / gpus;
}

struct Latency {
  double ttft_p99 = 0.0, tpot_p99 = 0.0;
};

/// p99 time to first token and time per output token of Poisson arrivals at `rate` over 1 h.
Latency serverLatency(core::InferenceDeploymentSpec d, double rate, std::uint32_t prompt,
                      std::uint32_t output) {
  core::InferenceJobSpec s = job(d, 3600.0);
  s.rate = rate;
  s.context_tokens = prompt;
  s.generated_tokens = output;
  core::ModelServer server(s, 72, 7);
  for (int k = 0; k < 3600; ++k)
    server.run(k, k + 1.0, 1.0);
  return {server.ttft().quantile(0.99), server.tpot().quantile(0.99)};
}

}  // namespace

TEST_CASE("At light load a request decodes at the weights' bytes over the HBM bandwidth",
          "[workload]") {
  // Llama 3.1 405B, NVFP4 weights (4.5 bits per weight with the FP8 block scales), FP8 KV cache,
  // on two B300s: one token reads every weight once and its KV cache.
  const core::InferenceDeploymentSpec d = deployment("llama-3.1-405b", "b300", 2, 1, 256, 8192);
  core::InferenceJobSpec s = job(d, 600.0);
  s.trace = {core::InferenceRequest{0.0, 1000, 201}};
  core::ModelServer server(s, 2, 1);
  for (int k = 0; k < 600; ++k)
    server.run(k, k + 1.0, 1.0);
  REQUIRE(server.requestsServed() == 1);
  const double tpot = server.tpotSum();
  // Hand roofline from the data sheet: 405e9 x 0.5625 bytes of weights and, at the mean context
  // of 1,100 tokens, 1,100 x 126 layers x 2 x 8 heads x 128 x 1 byte of KV cache, over two GPUs
  // at 8 TB/s x 0.9 achieved, times the calibrated serving efficiency.
  const double bytes = 405e9 * 0.5625 + 1100.0 * 126 * 2 * 8 * 128;
  const double bandwidth = 2 * 8e12 * 0.9 * d.serving_efficiency;
  // The two tensor-parallel all-reduces per layer add 0.15 %.
  CHECK(tpot == Approx(bytes / bandwidth).epsilon(0.004));
  // Memory-bound: a tiny share of the compute roofline.
  const core::IterationTime one = server.roofline().iteration(1.0, 1100.0, 0.0, 0.0);
  CHECK(one.computeUtilisation() < 0.02);
  CHECK(one.memoryUtilisation() > 0.99);
}

TEST_CASE("A large batch is compute-bound at the tensor cores' achieved peak", "[workload]") {
  const core::InferenceDeploymentSpec d = deployment("llama-3.1-70b", "b300", 1, 1, 4096, 65536);
  const core::InferenceRoofline roofline(d, "test");
  // Short contexts: attention is negligible, so tokens/s -> F eta_c eta_s / (2 N).
  const double b = 16384.0;
  const core::IterationTime it = roofline.iteration(b, b * 10.0, 0.0, 0.0);
  CHECK(it.compute > it.memory);
  const double limit = 15e15 * 0.6 * d.serving_efficiency / (2.0 * 70.6e9);
  CHECK(b / it.seconds == Approx(limit).epsilon(0.01));
  // Throughput grows with the batch while memory-bound, then saturates.
  const double small = 8.0 / roofline.iteration(8.0, 80.0, 0.0, 0.0).seconds;
  const double medium = 256.0 / roofline.iteration(256.0, 2560.0, 0.0, 0.0).seconds;
  CHECK(medium > 20.0 * small);
  CHECK(medium < limit);
}

TEST_CASE("A mixture of experts reads its active weights for one token, all for many",
          "[workload]") {
  const core::InferenceDeploymentSpec d = deployment("deepseek-r1", "b300", 8, 8, 512, 8192);
  const core::InferenceRoofline roofline(d, "test");
  // DeepSeek-V3 report: 671B total, 37B activated per token; NVFP4 = 0.5625 bytes per weight.
  CHECK(roofline.weightBytesRead(1.0) == Approx(37e9 * 0.5625).epsilon(1e-12));
  CHECK(roofline.weightBytesRead(1e5) == Approx(671e9 * 0.5625).epsilon(1e-9));
  CHECK(roofline.weightBytesRead(64.0) > roofline.weightBytesRead(8.0));
}

TEST_CASE("The calibrated server reproduces MLPerf Inference v5.1 Offline per GPU within 25 %",
          "[workload]") {
  // MLPerf Inference v5.1, closed division, NVIDIA (mlcommons/inference_results_v5.1,
  // closed/NVIDIA/results/*/*/Offline/performance/run_1/mlperf_log_summary.txt): tokens/s of the
  // whole system over its 72 GPUs. Deployments as submitted (closed/NVIDIA/configs): Llama 3.1
  // 405B tensor parallel 2 (GB300; GB200 with pipeline parallel 2), 1,536 tokens per iteration;
  // DeepSeek-R1 tensor and expert parallel 8, 1,536 requests and 6,656 tokens per GPU (GB300) or
  // 512 and 4,608 (GB200). Output lengths from the results (tokens/s over samples/s); prompt
  // lengths as stated in the reference note.
  struct Case {
    const char* model;
    const char* accelerator;
    int tp, pp, ep, batch, tokens;
    std::uint32_t prompt, output;
    double mlperf;  // tokens/s per GPU
  };
  const Case cases[] = {
      {"llama-3.1-405b", "b300", 2, 1, 1, 2048, 1536, 9400, 630, 16104.1 / 72},
      {"llama-3.1-405b", "b200", 2, 2, 1, 2048, 1536, 9400, 630, 14774.3 / 72},
      {"deepseek-r1", "b300", 8, 1, 8, 1536 * 8, 6656 * 8, 800, 3657, 420659.0 / 72},
      {"deepseek-r1", "b200", 8, 1, 8, 512 * 8, 4608 * 8, 800, 3714, 289712.0 / 72},
  };
  for (const Case& c : cases) {
    INFO(c.model << " on " << c.accelerator);
    const double model =
        offlineThroughput(deployment(c.model, c.accelerator, c.tp, c.ep, c.batch, c.tokens, c.pp),
                          72, c.output > 1000 ? 200000 : 60000, c.prompt, c.output);
    CHECK(model == Approx(c.mlperf).epsilon(0.25));
  }
}

TEST_CASE("Calibrated on Offline, the server meets MLPerf's Server latency targets at its rate",
          "[workload]") {
  // The Server results were not used in the calibration: the model must hold the p99 targets at
  // 0.8 x the published Server throughput and miss them at 2 x, so its latency-bound capacity
  // lies within -20 % / +100 % of MLPerf's (the reference note gives each case's band: 0 to
  // +75 %; the model is optimistic). Targets (MLPerf Inference rules): Llama 3.1 405B TTFT
  // 6 s, TPOT 175 ms; DeepSeek-R1 TTFT 2 s, TPOT 80 ms. Server results, tokens/s on 72 GPUs:
  // GB300 12,248.42 (405B), 209,327.68 (R1); GB200 11,614.28, 167,578.06. Server deployments:
  // as Offline, R1 with 512 requests and 3,456 tokens per GPU.
  struct Case {
    const char* model;
    const char* accelerator;
    int tp, pp, ep, batch, tokens;
    std::uint32_t prompt, output;
    double server;  // tokens/s, whole system
    double ttft, tpot;
  };
  const Case cases[] = {
      {"llama-3.1-405b", "b300", 2, 1, 1, 2048, 1536, 9400, 630, 12248.42, 6.0, 0.175},
      {"llama-3.1-405b", "b200", 2, 2, 1, 2048, 1536, 9400, 630, 11614.28, 6.0, 0.175},
      {"deepseek-r1", "b300", 8, 1, 8, 512 * 8, 3456 * 8, 800, 3657, 209327.68, 2.0, 0.080},
      {"deepseek-r1", "b200", 8, 1, 8, 512 * 8, 3456 * 8, 800, 3714, 167578.06, 2.0, 0.080},
  };
  for (const Case& c : cases) {
    INFO(c.model << " on " << c.accelerator);
    const core::InferenceDeploymentSpec d =
        deployment(c.model, c.accelerator, c.tp, c.ep, c.batch, c.tokens, c.pp);
    const double rate = c.server / c.output;  // requests/s
    const Latency below = serverLatency(d, 0.8 * rate, c.prompt, c.output);
    CHECK(below.ttft_p99 <= c.ttft);
    CHECK(below.tpot_p99 <= c.tpot);
    const Latency above = serverLatency(d, 2.0 * rate, c.prompt, c.output);
    CHECK((above.ttft_p99 > c.ttft || above.tpot_p99 > c.tpot));
  }
}

TEST_CASE("Throttled GPUs serve fewer tokens and each token takes longer", "[workload]") {
  const core::InferenceDeploymentSpec d = deployment("llama-3.1-405b", "b300", 2, 1, 256, 8192);
  // Light load: the time per output token scales as 1 / speed.
  core::InferenceJobSpec s = job(d, 600.0);
  s.trace = {core::InferenceRequest{0.0, 1000, 201}};
  core::ModelServer full(s, 2, 1), slow(s, 2, 1);
  for (int k = 0; k < 600; ++k) {
    full.run(k, k + 1.0, 1.0);
    slow.run(k, k + 1.0, 0.5);
  }
  // (To 1e-4: the context's growth is taken up at each second, after twice as many tokens.)
  CHECK(slow.tpotSum() == Approx(2.0 * full.tpotSum()).epsilon(1e-4));
  CHECK(slow.ttftSum() == Approx(2.0 * full.ttftSum()).epsilon(1e-4));
  // Saturated: every rate scales with the speed, so half the speed does in 2 T what full speed
  // does in T (to the 1 s steps at which the context's growth is taken up).
  core::InferenceJobSpec busy = job(d, 600.0);
  busy.trace.assign(60000, core::InferenceRequest{0.0, 2000, 500});
  core::ModelServer a(busy, 72, 1), b(busy, 72, 1);
  for (int k = 0; k < 300; ++k) {
    if (k < 150) a.run(k, k + 1.0, 1.0);
    b.run(k, k + 1.0, 0.5);
  }
  CHECK(a.tokensDecoded() > 1e6);
  CHECK(b.tokensDecoded() == Approx(a.tokensDecoded()).epsilon(0.01));
  CHECK(b.flopsDone() == Approx(a.flopsDone()).epsilon(0.01));
}

TEST_CASE("Requests longer than a replica's KV cache are dropped, the rest admitted in order",
          "[workload]") {
  const core::InferenceDeploymentSpec d = deployment("llama-3.1-405b", "b300", 2, 1, 256, 8192);
  const core::InferenceRoofline roofline(d, "test");
  // Two B300s: 2 x (288 GB - 113.9 GB of weights) x 0.9 over 258,048 bytes per token.
  CHECK(roofline.kvCapacity()
        == Approx(2.0 * (288e9 - 405e9 * 0.5625 / 2.0) * 0.9 / 258048.0).epsilon(1e-12));
  core::InferenceJobSpec s = job(d, 100.0);
  const auto too_long = static_cast<std::uint32_t>(roofline.kvCapacity());
  s.trace = {core::InferenceRequest{0.0, too_long, 10}, core::InferenceRequest{1.0, 100, 10}};
  core::ModelServer server(s, 2, 1);
  server.run(0.0, 100.0, 1.0);
  CHECK(server.requestsDropped() == 1);
  CHECK(server.requestsServed() == 1);
}

TEST_CASE("A deployment whose weights do not fit its GPUs is refused", "[workload]") {
  // 405B in NVFP4 is 228 GB: more than one B200's 186 GB.
  const core::InferenceDeploymentSpec d = deployment("llama-3.1-405b", "b200", 1, 1, 256, 8192);
  CHECK_THROWS_WITH(core::InferenceRoofline(d, "job 'x'"), Catch::Matchers::Contains("do not fit"));
}

namespace {

/// A deployment split into `prefill` and `decode` replicas.
core::InferenceDeploymentSpec disaggregated(core::InferenceDeploymentSpec d, int prefill,
                                            int decode) {
  d.prefill_replicas = prefill;
  d.decode_replicas = decode;
  return d;
}

/// `n` requests of varied lengths (a fixed linear congruential sequence), one every `gap` s.
std::vector<core::InferenceRequest> variedRequests(int n, double gap) {
  std::vector<core::InferenceRequest> out;
  std::uint32_t x = 12345;
  for (int i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    const std::uint32_t context = 100 + (x >> 8) % 4000;
    x = x * 1664525u + 1013904223u;
    const std::uint32_t output = 1 + (x >> 8) % 600;
    out.push_back(core::InferenceRequest{i * gap, context, output});
  }
  return out;
}

}  // namespace

TEST_CASE("A decode pool decodes one request at the weights' bytes over the HBM bandwidth",
          "[workload]") {
  // As the aggregated case above: Llama 3.1 405B on two B300s per replica, one replica per pool.
  const core::InferenceDeploymentSpec d =
      disaggregated(deployment("llama-3.1-405b", "b300", 2, 1, 256, 8192), 1, 1);
  core::InferenceJobSpec s = job(d, 600.0);
  s.trace = {core::InferenceRequest{0.0, 1000, 201}};
  core::ModelServer server(s, 4, 1);
  for (int k = 0; k < 600; ++k)
    server.run(k, k + 1.0, 1.0);
  REQUIRE(server.requestsServed() == 1);
  REQUIRE(server.kvTransferCount() == 1);
  // The KV transfer delays the second token: the rest of the TPOT is the decode roofline.
  const double tpot = server.tpotSum() - server.kvTransferSum() / 200.0;
  const double bytes = 405e9 * 0.5625 + 1100.0 * 126 * 2 * 8 * 128;
  const double bandwidth = 2 * 8e12 * 0.9 * d.serving_efficiency;
  CHECK(tpot == Approx(bytes / bandwidth).epsilon(0.004));
}

TEST_CASE("A prefill pool runs a prompt at the tensor cores' achieved peak", "[workload]") {
  // Llama 3.1 70B on one B300 per replica (no collectives), a prompt of one full chunk.
  const int chunk = 8192;
  const core::InferenceDeploymentSpec d =
      disaggregated(deployment("llama-3.1-70b", "b300", 1, 1, 256, chunk), 1, 1);
  core::InferenceJobSpec s = job(d, 60.0);
  s.trace = {core::InferenceRequest{0.0, static_cast<std::uint32_t>(chunk), 1}};
  core::ModelServer server(s, 2, 1);
  server.run(0.0, 60.0, 1.0);
  REQUIRE(server.requestsServed() == 1);
  // Hand roofline (Llama 3.1 config.json, b300.yaml): 2 x 70.6e9 FLOPs per token at 15 PF NVFP4,
  // and causal attention over c^2 / 2 token pairs of 2 x 80 layers x 64 heads x (128 + 128)
  // FLOPs at 5 PF FP8, at 60 % achieved times the serving efficiency.
  const double c = chunk;
  const double gemm = 2.0 * 70.6e9 * c / 15e15;
  const double attention = 2.0 * 80 * 64 * 256 * c * c / 2.0 / 5e15;
  const double prompt = (gemm + attention) / (0.6 * d.serving_efficiency);
  CHECK(server.ttftSum() == Approx(prompt).epsilon(1e-6));
  // Compute-bound: the weights' read takes a small share of it.
  const core::IterationTime it = server.roofline().iteration(0.0, 0.0, c, c / 2.0);
  CHECK(it.memory < 0.2 * it.compute);
}

TEST_CASE("Disaggregated pools generate every output token of the requests they serve",
          "[workload]") {
  const core::InferenceDeploymentSpec d = deployment("llama-3.1-70b", "b300", 1, 1, 64, 4096);
  core::InferenceJobSpec s = job(disaggregated(d, 2, 6), 3600.0);
  s.trace = variedRequests(2000, 0.05);
  double prompt = 0.0, output = 0.0;
  for (const core::InferenceRequest& q : s.trace) {
    prompt += q.context_tokens;
    output += q.generated_tokens;
  }
  core::ModelServer server(s, 8, 1);
  for (int k = 0; k < 3600; ++k)
    server.run(k, k + 1.0, 1.0);
  REQUIRE(server.requestsServed() == 2000);
  CHECK(server.requestsDropped() == 0);
  CHECK(static_cast<double>(server.tokensGenerated()) == output);
  CHECK(static_cast<double>(server.promptTokensServed()) == prompt);
  // The fluid decode clocks integrate the rates: they reach the same count.
  CHECK(server.tokensDecoded() == Approx(output).epsilon(1e-9));
  CHECK(server.inKvTransfer() == 0);
  CHECK(server.decoding() == 0);
}

TEST_CASE("At light load aggregated and disaggregated replicas both serve every request",
          "[workload]") {
  const core::InferenceDeploymentSpec d = deployment("llama-3.1-70b", "b300", 1, 1, 64, 4096);
  core::InferenceJobSpec a = job(d, 600.0);
  a.trace = variedRequests(300, 1.0);  // 1 request/s on 8 GPUs
  core::InferenceJobSpec b = a;
  b.deployment = disaggregated(d, 3, 5);
  core::ModelServer aggregated(a, 8, 1), pools(b, 8, 1);
  for (int k = 0; k < 600; ++k) {
    aggregated.run(k, k + 1.0, 1.0);
    pools.run(k, k + 1.0, 1.0);
  }
  CHECK(aggregated.requestsServed() == 300);
  CHECK(pools.requestsServed() == 300);
  CHECK(pools.tokensGenerated() == aggregated.tokensGenerated());
  CHECK(pools.requestsMeetingTarget() == aggregated.requestsMeetingTarget());
}

TEST_CASE("A KV cache moves in its bytes over the links' achieved bandwidth", "[workload]") {
  // Llama 3.1 405B, tensor parallel 2: each GPU sends its half of the KV heads. b300.yaml:
  // scale-out 800 Gb/s = 100 GB/s per GPU, NVLink 0.9 TB/s each way, 80 % achieved.
  const core::InferenceDeploymentSpec d =
      disaggregated(deployment("llama-3.1-405b", "b300", 2, 1, 256, 8192), 1, 1);
  core::InferenceJobSpec s = job(d, 60.0);
  s.trace = {core::InferenceRequest{0.0, 3000, 11}};
  core::ModelServer server(s, 4, 1);
  const double bytes = 3000.0 * 126 * 2 * 8 * 128;  // FP8 KV cache, 1 byte per element
  CHECK(server.kvTransferTime(3000.0) == Approx(bytes / (2 * 100e9 * 0.8)).epsilon(1e-12));
  server.run(0.0, 60.0, 1.0);
  REQUIRE(server.kvTransferCount() == 1);
  CHECK(server.kvTransferSum() == Approx(bytes / (2 * 100e9 * 0.8)).epsilon(1e-12));
  server.setKvTransferWithinDomain(true);
  CHECK(server.kvTransferTime(3000.0) == Approx(bytes / (2 * 900e9 * 0.8)).epsilon(1e-12));
  // DeepSeek-R1, attention data parallel: a request's cache (61 layers x 576 MLA elements per
  // token, FP8) lies on one GPU, which sends it alone.
  const core::InferenceDeploymentSpec r1 =
      disaggregated(deployment("deepseek-r1", "b300", 8, 8, 512, 8192), 1, 1);
  core::InferenceJobSpec t = job(r1, 60.0);
  t.trace = {core::InferenceRequest{0.0, 100, 10}};
  const core::ModelServer moe(t, 16, 1);
  CHECK(moe.kvTransferTime(1000.0) == Approx(1000.0 * 61 * 576 / (100e9 * 0.8)).epsilon(1e-12));
}

TEST_CASE("Pools that do not add up to the job's replicas are refused", "[workload]") {
  const core::InferenceDeploymentSpec d = deployment("llama-3.1-70b", "b300", 1, 1, 64, 4096);
  core::InferenceJobSpec s = job(disaggregated(d, 3, 3), 60.0);
  s.trace = {core::InferenceRequest{0.0, 100, 10}};
  CHECK_THROWS_WITH(core::ModelServer(s, 8, 1), Catch::Matchers::Contains("add up to its 8"));
  s.deployment = disaggregated(d, 0, 8);
  CHECK_THROWS_WITH(core::ModelServer(s, 8, 1), Catch::Matchers::Contains("at least 1 each"));
}
