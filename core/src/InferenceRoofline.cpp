#include "racktwin/core/InferenceRoofline.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace racktwin::core {

double formatPeakFlops(const AcceleratorSpec& a, NumberFormat format) noexcept {
  switch (format) {
    case NumberFormat::Nvfp4:
      return a.fp4_flops;
    case NumberFormat::Fp8:
      return a.fp8_flops;
    case NumberFormat::Bf16:
      return a.bf16_flops;
  }
  return a.bf16_flops;
}

namespace {

bool positive(double x) {
  return std::isfinite(x) && x > 0.0;
}
bool fraction(double x) {
  return std::isfinite(x) && x > 0.0 && x <= 1.0;
}

}  // namespace

InferenceRoofline::InferenceRoofline(const InferenceDeploymentSpec& d, const std::string& what)
    : d_(d) {
  const auto reject = [&](const std::string& why) {
    throw std::invalid_argument(what + ": " + why);
  };
  const LanguageModelSpec& m = d.model;
  const AcceleratorSpec& a = d.accelerator;
  if (d.tensor_parallel < 1 || d.pipeline_parallel < 1 || d.expert_parallel < 1) {
    reject("tensor, expert and pipeline parallelism must be at least 1");
  }
  gpus_ = d.tensor_parallel * d.pipeline_parallel;
  if (gpus_ % d.expert_parallel != 0) {
    reject("expert parallelism must divide the replica's GPUs (tensor x pipeline parallel)");
  }
  if (d.max_batch < 1 || d.max_batch_tokens < 1) reject("batch limits must be at least 1");
  if (!(positive(m.parameters) && positive(m.active_parameters)
        && m.active_parameters <= m.parameters && m.layers > 0 && m.hidden_size > 0
        && m.attention_heads > 0 && m.qk_head_dim > 0 && m.v_head_dim > 0
        && positive(m.kv_elements_per_token))) {
    reject("model '" + m.type + "' needs positive sizes (active parameters at most the total)");
  }
  if (m.experts > 0 && !(m.experts_per_token > 0 && m.experts_per_token < m.experts)) {
    reject("model '" + m.type + "': experts per token must lie in [1, experts)");
  }
  if (!(positive(formatPeakFlops(a, d.weights)) && positive(formatPeakFlops(a, d.attention))
        && positive(a.hbm_bandwidth) && positive(a.hbm_capacity) && positive(a.nvlink_bandwidth)
        && fraction(a.compute_efficiency) && fraction(a.memory_efficiency)
        && fraction(a.network_efficiency) && fraction(d.serving_efficiency)
        && fraction(d.memory_for_kv_cache))) {
    reject("accelerator '" + a.type
           + "' needs positive peaks and efficiencies in (0, 1] for these number formats");
  }
  active_ = m.active_parameters;
  const double bytes = bytesPerElement(d.weights);
  weight_bytes_ = m.parameters * bytes;
  if (m.experts > 0) {
    // Total = dense + E s, active = dense + k s (s: the weights of one expert in every layer).
    const double E = m.experts;
    const double k = m.experts_per_token;
    const double expert_weights = E * (m.parameters - m.active_parameters) / (E - k);
    expert_bytes_ = expert_weights * bytes;
    dense_bytes_ = (m.parameters - expert_weights) * bytes;
    expert_share_ = k / E;
    log_miss_ = std::log1p(-expert_share_);
  } else {
    dense_bytes_ = weight_bytes_;
  }
  kv_bytes_ = m.kv_elements_per_token * bytesPerElement(d.kv_cache);
  const double free = (a.hbm_capacity - weight_bytes_ / gpus_) * d.memory_for_kv_cache;
  if (!(free > 0.0)) {
    reject("the weights of '" + m.type + "' (" + std::to_string(weight_bytes_ / gpus_ / 1e9)
           + " GB per GPU) do not fit the " + std::to_string(a.hbm_capacity / 1e9)
           + " GB of a GPU; use more GPUs per replica");
  }
  kv_capacity_ = free * gpus_ / kv_bytes_;
  attention_flops_ = 2.0 * m.layers * m.attention_heads * (m.qk_head_dim + m.v_head_dim);
  peak_w_ = formatPeakFlops(a, d.weights);
  peak_a_ = formatPeakFlops(a, d.attention);
  const double eta = d.serving_efficiency;
  compute_rate_ = gpus_ * a.compute_efficiency * eta;  // times a peak: the replica's FLOP/s
  memory_rate_ = gpus_ * a.hbm_bandwidth * a.memory_efficiency * eta;
  network_rate_ = a.nvlink_bandwidth * a.network_efficiency * eta;  // per GPU
  const double hidden = m.hidden_size;
  if (m.experts > 0 && d.expert_parallel > 1) {
    // All-to-all dispatch and combine of each token's k expert inputs (FP8), tokens spread over
    // the replica's GPUs (attention data parallel).
    const double ep = d.expert_parallel;
    collective_bytes_per_token_ = m.layers * 2.0 * m.experts_per_token * hidden * 1.0 * (ep - 1.0)
                                  / ep / static_cast<double>(gpus_);
  } else if (d.tensor_parallel > 1) {
    // Two ring all-reduces of the BF16 activations per layer, every token on every rank.
    const double tp = d.tensor_parallel;
    collective_bytes_per_token_ = m.layers * 2.0 * 2.0 * (tp - 1.0) / tp * hidden * 2.0;
  }
}

double InferenceRoofline::weightBytesRead(double tokens) const noexcept {
  if (expert_bytes_ == 0.0) return weight_bytes_;
  // 1 - (1 - k/E)^n; past e^-40 (4e-18) it is 1 to the last bit, and pow is the server's
  // costliest call at large batches.
  const double exponent = tokens * log_miss_;
  const double touched = !(tokens > 0.0) ? 0.0 : exponent < -40.0 ? 1.0 : -std::expm1(exponent);
  return dense_bytes_ + expert_bytes_ * touched;
}

IterationTime InferenceRoofline::iteration(double decode, double context, double prefill,
                                           double prefill_context) const noexcept {
  IterationTime it;
  const double tokens = decode + prefill;
  if (!(tokens > 0.0)) return it;
  const double gemm = 2.0 * active_ * tokens;
  const double attention = attention_flops_ * (context + prefill * prefill_context);
  it.flops = gemm + attention;
  it.compute = (gemm / peak_w_ + attention / peak_a_) / compute_rate_;
  it.memory = (weightBytesRead(tokens) + context * kv_bytes_) / memory_rate_;
  it.network = tokens * collective_bytes_per_token_ / network_rate_;
  it.seconds = std::max(it.compute, it.memory) + it.network;
  return it;
}

}  // namespace racktwin::core
