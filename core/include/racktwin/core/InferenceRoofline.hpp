#pragma once
// The time of one continuous-batching iteration of a model replica from the roofline of its GPUs
// (docs/workloads.md). A replica of g = tensor_parallel x pipeline_parallel GPUs holds the
// weights once, split over its GPUs; an iteration runs b decoding requests (one token each) and
// p prompt (prefill) tokens:
//
//   compute   t_c = [2 N_active (b + p) / F_w + A (K + p c_p) / F_a] / (g eta_c eta_s)
//   memory    t_m = [W(b + p) + K q_kv] / (g BW eta_m eta_s)
//   network   t_n = collective bytes per GPU / (B_nvlink eta_n eta_s)
//   iteration t   = max(t_c, t_m) + t_n
//
// with F_w, F_a the dense peaks of the weights' and the attention's number formats, A = 2 layers
// heads (d_qk + d_v) the attention FLOPs per token and context token, K the context tokens the
// decoding requests attend to, c_p the mean context of a prompt token, q_kv the KV-cache bytes
// per token, eta_c, eta_m, eta_n the accelerator's achieved fractions of its peaks and eta_s the
// deployment's serving efficiency (calibrated, docs/references/mlperf-inference.md). W(n) are the
// weight bytes an iteration of n tokens reads: all of them for a dense model; for a mixture of
// experts the dense part plus each routed expert with probability 1 - (1 - k/E)^n, so a single
// token reads its active parameters and a large batch every expert. Collectives: two all-reduces
// of the activations per layer under tensor parallelism (2 (g-1)/g of the tensor per GPU), or an
// all-to-all dispatch and combine of each token's k expert inputs under expert parallelism.
//
// So a small batch is memory-bound (t = weights / bandwidth: the per-user speed of an idle
// service) and a large batch, or any long prompt, compute-bound. Pipeline parallelism is taken as
// splitting the weights over more GPUs at the same per-token latency (micro-batches fill the
// pipeline), which overstates small-batch speed by the pipeline's bubbles.
//
// Power: the utilisations u_c = t_c / t, u_m = t_m / t and u_n = t_n / t (each in [0, 1]) weight
// the accelerator's phase powers (WorkloadJob adds them to the racks).
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::core {

/// One iteration of a replica.
struct IterationTime {
  double seconds = 0.0;                               // at full clock speed
  double compute = 0.0, memory = 0.0, network = 0.0;  // s, the three terms
  double flops = 0.0;                                 // model FLOPs done (all GPUs)
  double computeUtilisation() const noexcept { return seconds > 0.0 ? compute / seconds : 0.0; }
  double memoryUtilisation() const noexcept { return seconds > 0.0 ? memory / seconds : 0.0; }
  double networkUtilisation() const noexcept { return seconds > 0.0 ? network / seconds : 0.0; }
};

class InferenceRoofline {
 public:
  /// Throws std::invalid_argument (naming `what`) for a deployment that cannot run: no GPU,
  /// parallelism not dividing, weights larger than the replica's memory, non-positive peaks.
  InferenceRoofline(const InferenceDeploymentSpec& deployment, const std::string& what);

  /// Iteration of `decode` requests attending to `context` tokens in total, plus `prefill`
  /// prompt tokens of mean context `prefill_context`.
  IterationTime iteration(double decode, double context, double prefill,
                          double prefill_context) const noexcept;

  int gpusPerReplica() const noexcept { return gpus_; }
  /// KV-cache tokens one replica holds.
  double kvCapacity() const noexcept { return kv_capacity_; }
  double kvBytesPerToken() const noexcept { return kv_bytes_; }
  /// Weight bytes of the whole model.
  double weightBytes() const noexcept { return weight_bytes_; }
  /// Weight bytes an iteration of n tokens reads.
  double weightBytesRead(double tokens) const noexcept;
  /// Model FLOPs of n tokens without attention (2 N_active n).
  double gemmFlops(double tokens) const noexcept { return 2.0 * active_ * tokens; }
  /// Dense peak FLOP/s of the replica at the weights' format (all its GPUs).
  double replicaPeakFlops() const noexcept { return peak_w_ * gpus_; }
  const InferenceDeploymentSpec& deployment() const noexcept { return d_; }

 private:
  InferenceDeploymentSpec d_;
  int gpus_ = 1;
  double active_ = 0.0;
  double weight_bytes_ = 0.0, dense_bytes_ = 0.0, expert_bytes_ = 0.0;
  double expert_share_ = 0.0;  // k / E
  double log_miss_ = 0.0;      // log(1 - k / E)
  double kv_bytes_ = 0.0, kv_capacity_ = 0.0;
  double attention_flops_ = 0.0;  // per token and context token
  double peak_w_ = 0.0, peak_a_ = 0.0;
  double compute_rate_ = 0.0, memory_rate_ = 0.0, network_rate_ = 0.0;  // replica, achieved
  double collective_bytes_per_token_ = 0.0;                             // per GPU
};

/// Dense peak FLOP/s of an accelerator in a number format.
double formatPeakFlops(const AcceleratorSpec& accelerator, NumberFormat format) noexcept;

}  // namespace racktwin::core
