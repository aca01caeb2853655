#pragma once
// An inference service of a named model on its GPUs (InferenceDeploymentSpec): R replicas, each
// a continuous-batching engine whose iterations take the roofline time of InferenceRoofline.
//
// Requests wait in a FIFO queue. One is admitted when a replica can start its prompt (at most R
// prompts in progress, one per replica), the decoding requests stay below R x max_batch, and the
// KV cache holds its whole sequence (prompt + output tokens, reserved at admission, so nothing is
// ever evicted); a request longer than one replica's cache is dropped at arrival. A prompt
// advances in chunks of (max_batch_tokens - b) tokens per iteration of its replica (chunked
// prefill, b the replica's decoding requests); its last chunk yields the first output token (the
// time to first token, TTFT). Then it decodes one token per iteration until its output is
// complete (the time per output token, TPOT, is the mean iteration time it saw).
//
// The replicas are pooled: requests spread evenly, so every replica decodes b = n / R requests
// attending to K / R context tokens, and a share f = prompts / R of them also runs a prefill
// chunk. Between two events (an arrival, a prompt done, a request done) the iteration times are
// constant: t_p with a chunk and t_0 without, so a prompt advances at (max_batch_tokens - b) / t_p
// tokens/s and a decoding request at f / t_p + (1 - f) / t_0 tokens/s, both times the speed of
// the job's slowest GPU (throttling lowers throughput and raises latency). The growth of the KV
// context inside an interval is taken up at the next event or sub-step boundary. Work per
// sub-step is O(events log n), independent of the GPU count; storage is reserved up front.
//
// Disaggregated (InferenceDeploymentSpec::prefill_replicas > 0): P prefill replicas run only
// prompts, one each at a time, in full chunks of max_batch_tokens (a prompt shorter than a chunk
// shares its iterations with the next prompts: the fluid limit of batching several prompts per
// iteration), at max_batch_tokens / t_p tokens/s; the prompt's last chunk makes the first token
// (TTFT = queue + prompt). Then its KV cache (context x KV bytes per token) moves to a decode
// replica, over NVLink when both pools share one NVL72 domain, else over the scale-out network,
// and the request decodes there; the transfer delays its second token, so it is part of its
// TPOT. The D decode replicas run only decode iterations: n requests occupy min(n, D) replicas
// of b = n / min(n, D) requests each. Admission needs a free prefill replica, a decode slot
// (D x max_batch for requests in prefill, transfer and decode) and the decode pool's KV cache
// for the whole sequence (reserved at admission); a prefill replica holds one prompt, whose KV
// fits one replica by the drop rule. Each pool's busy share and utilisations are integrated
// apart (ServerInterval::prefill_pool, decode_pool), for the power of each pool's GPUs.
//
// Results: served requests and tokens, TTFT and TPOT (means and histograms for percentiles),
// requests meeting the deployment's latency targets, model FLOPs done, and the time integrals of
// the busy share and of the compute, memory and network utilisations that set the GPUs' power.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "racktwin/core/InferenceRoofline.hpp"
#include "racktwin/core/RequestArrivals.hpp"
#include "racktwin/core/RingQueue.hpp"
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::core {

class StateArchive;

/// Counts of values in logarithmic bins, 1 ms to ~1e4 s (24 bins per decade): percentiles to 10 %
/// without storing the values.
class LatencyHistogram {
 public:
  void add(double seconds) noexcept;
  void clear() noexcept;
  std::uint64_t count() const noexcept { return count_; }
  /// Upper edge of the bin holding the q-quantile (0 < q <= 1), s; 0 when empty.
  double quantile(double q) const noexcept;
  void visitState(StateArchive& archive);

 private:
  std::array<std::uint64_t, 170> bins_{};
  std::uint64_t count_ = 0;
};

/// Integrals of one run() over its interval.
struct PoolInterval {
  double busy = 0.0;                   // s of the GPUs in use (share-weighted)
  double compute = 0.0, memory = 0.0;  // s, utilisation integrals
  double network = 0.0;                // s
};
struct ServerInterval {
  double busy = 0.0;                   // s of the job's GPUs in use (share-weighted)
  double compute = 0.0, memory = 0.0;  // s, utilisation integrals
  double network = 0.0;                // s
  // Disaggregated only: the same of each pool's GPUs.
  PoolInterval prefill_pool, decode_pool;
};

class ModelServer {
 public:
  /// `gpus`: the GPUs serving the job (a multiple of the replica's); `seed`: the Poisson stream.
  /// Throws std::invalid_argument for an invalid deployment, window or arrivals.
  ModelServer(const InferenceJobSpec& spec, std::uint32_t gpus, std::uint64_t seed);

  void reset();
  /// Moves the window to [start, start + duration) and resets (+inf: not started).
  void setStart(double start) noexcept;
  /// Serves over [t0, t1] (clipped to the window) at `speed` (1 = full clock, 0 = stalled).
  ServerInterval run(double t0, double t1, double speed) noexcept;

  double start() const noexcept { return start_; }
  double end() const noexcept { return end_; }
  const InferenceRoofline& roofline() const noexcept { return roofline_; }
  int replicas() const noexcept { return replicas_; }
  bool disaggregated() const noexcept { return prefill_replicas_ > 0; }
  int prefillReplicas() const noexcept { return prefill_replicas_; }
  int decodeReplicas() const noexcept { return decode_replicas_; }
  /// Whether a disaggregated job's KV transfers run over NVLink (both pools in one NVL72
  /// domain) rather than the scale-out network (the default).
  void setKvTransferWithinDomain(bool within) noexcept { kv_within_domain_ = within; }
  /// Time to move the KV cache of a prompt of `context` tokens from a prefill to a decode
  /// replica: its bytes over the links of the GPUs holding it, at the achieved network share, s.
  double kvTransferTime(double context) const noexcept;
  std::size_t inKvTransfer() const noexcept { return transfer_.size(); }
  double kvTransferSum() const noexcept { return transfer_sum_; }
  std::uint64_t kvTransferCount() const noexcept { return transfer_count_; }
  std::uint32_t gpus() const noexcept { return gpus_; }

  std::uint64_t requestsArrived() const noexcept { return arrived_; }
  std::uint64_t requestsDropped() const noexcept { return dropped_; }
  std::uint64_t requestsStarted() const noexcept { return started_; }
  std::uint64_t requestsServed() const noexcept { return served_; }
  std::uint64_t requestsMeetingTarget() const noexcept { return on_target_; }
  std::uint64_t tokensGenerated() const noexcept { return tokens_; }
  std::uint64_t promptTokensServed() const noexcept { return prompt_tokens_; }
  std::uint64_t tokensLastRun() const noexcept { return tokens_last_; }
  /// Output tokens produced so far, including those of requests still decoding (fluid), the
  /// measure of throughput that does not wait for completions.
  double tokensDecoded() const noexcept { return decoded_; }
  double flopsDone() const noexcept { return flops_; }
  std::size_t queueLength() const noexcept { return queue_.size(); }
  std::size_t inPrefill() const noexcept { return prefill_.size(); }
  std::size_t decoding() const noexcept { return decode_.size(); }
  double queueingDelaySum() const noexcept { return delay_sum_; }
  double ttftSum() const noexcept { return ttft_sum_; }
  double tpotSum() const noexcept { return tpot_sum_; }
  std::uint64_t tpotCount() const noexcept { return tpot_count_; }
  const LatencyHistogram& ttft() const noexcept { return ttft_hist_; }
  const LatencyHistogram& tpot() const noexcept { return tpot_hist_; }

  void visitState(StateArchive& archive);

 private:
  struct Waiting {
    double arrival = 0.0;
    std::uint32_t context = 0, generated = 0;
  };
  struct Prompt {  // a request in prefill; finish on the prefill clock
    double finish = 0.0, arrival = 0.0;
    std::uint32_t context = 0, generated = 0;
  };
  struct Decoding {  // finish on the decode clock (tokens)
    double finish = 0.0, start = 0.0, arrival = 0.0, first_token = 0.0;
    std::uint32_t context = 0, generated = 0;
  };
  struct PoolShares {
    double busy = 0.0, compute = 0.0, memory = 0.0, network = 0.0;  // shares of the pool
  };
  struct Rates {
    double prompt = 0.0, decode = 0.0;  // tokens/s per request at full speed
    double busy = 0.0, compute = 0.0, memory = 0.0, network = 0.0;  // shares of the job
    double flops = 0.0;                                             // FLOP/s of the job
    PoolShares prefill_pool, decode_pool;                           // disaggregated only
  };

  Rates rates() const noexcept;
  Rates disaggregatedRates() const noexcept;
  void admit(double now) noexcept;
  void arrive() noexcept;
  void finishPrompt(double now) noexcept;
  void finishDecode(double now) noexcept;
  void finishTransfer() noexcept;

  InferenceRoofline roofline_;
  RequestArrivals arrivals_;
  std::uint32_t gpus_ = 0;
  int replicas_ = 1;
  int prefill_replicas_ = 0, decode_replicas_ = 0;  // 0: aggregated
  std::size_t prompt_slots_ = 0, slots_ = 0;        // prompts and requests admitted at once
  bool kv_within_domain_ = false;
  double kv_links_ = 1.0;  // GPUs whose links carry one request's KV cache
  double start_ = 0.0, end_ = 0.0, duration_ = 0.0;
  double kv_capacity_ = 0.0;  // tokens, all replicas
  double replica_kv_ = 0.0;   // tokens, one replica

  RingQueue<Waiting> queue_;
  std::vector<Prompt> prefill_;      // min-heap on finish, at most R
  std::vector<Decoding> decode_;     // min-heap on finish, at most R max_batch
  std::vector<Decoding> transfer_;   // KV in transfer, min-heap on the wall time it arrives
  double prefill_clock_ = 0.0;       // prompt tokens done by each prompt in progress
  double decode_clock_ = 0.0;        // tokens decoded by each decoding request
  double context_offset_ = 0.0;      // sum over decoding requests of (context - start)
  double prompt_context_sum_ = 0.0;  // contexts of the prompts in progress
  double kv_reserved_ = 0.0;         // tokens
  double now_ = 0.0;
  std::uint64_t arrived_ = 0, dropped_ = 0, started_ = 0, served_ = 0, on_target_ = 0;
  std::uint64_t tokens_ = 0, prompt_tokens_ = 0, tokens_last_ = 0, tpot_count_ = 0;
  double flops_ = 0.0, delay_sum_ = 0.0, ttft_sum_ = 0.0, tpot_sum_ = 0.0, decoded_ = 0.0;
  double transfer_sum_ = 0.0;
  std::uint64_t transfer_count_ = 0;
  LatencyHistogram ttft_hist_, tpot_hist_;
};

}  // namespace racktwin::core
