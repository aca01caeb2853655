#pragma once
// One inference service: requests arrive (replayed from a trace or drawn from a Poisson process)
// and wait in a FIFO queue for one of `max_batch` slots of a continuous-batching server.
//
// Throughput model: the job's GPUs together process prefill_tokens_per_s_per_gpu * gpus context
// tokens/s and decode_tokens_per_s_per_gpu * gpus generated tokens/s with a full batch; each slot
// gets 1/max_batch of that, so a request's service takes
//   S = max_batch * (context / (prefill * gpus) + generated / (decode * gpus))
// seconds at full speed and 1/speed times longer at the slowest-GPU speed. The GPU utilisation is
// the share of busy slots, in service / max_batch. With max_batch = 1 and fixed token counts a
// Poisson job is an M/D/1 queue; in general M/G/c with c = max_batch.
//
// Event-driven: run() steps from arrival to completion inside an interval, so the work per interval
// is proportional to the number of events, and interval boundaries do not change the result.
// Storage is reserved up front (the queue from the trace size); it grows only when a Poisson queue
// exceeds every length seen before.
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "racktwin/core/RequestArrivals.hpp"
#include "racktwin/core/RingQueue.hpp"
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::core {

class StateArchive;

class InferenceJob {
 public:
  /// `gpus`: GPUs serving the job; `seed`: of the Poisson arrivals (unused for a trace). Throws
  /// std::invalid_argument for invalid timing, throughputs, batch size, power fraction or arrivals.
  InferenceJob(const InferenceJobSpec& spec, std::uint32_t gpus, std::uint64_t seed);

  /// Back to the state at the job's start: no request arrived, the random stream restarted.
  void reset();
  /// Moves the job's window to [start, start + duration) and resets it (+inf: not started), for a
  /// job whose start the scheduler chooses during the run. The trace and the Poisson stream
  /// begin at `start`; the diurnal curve stays in simulation time. Allocates nothing.
  void setStart(double start) noexcept;
  /// Serves the requests over [t0, t1] (clipped to the job's window) with every slot progressing
  /// at `speed` (1 = full speed, 0 = stalled). Returns the integral of the utilisation over the
  /// interval, s. Intervals must follow each other in time.
  double run(double t0, double t1, double speed) noexcept;

  double start() const noexcept { return start_; }
  double end() const noexcept { return end_; }
  std::uint32_t maxBatch() const noexcept { return max_batch_; }
  double busyPowerFraction() const noexcept { return busy_fraction_; }

  std::uint64_t requestsArrived() const noexcept { return arrived_; }
  std::uint64_t requestsStarted() const noexcept { return started_; }
  std::uint64_t requestsServed() const noexcept { return served_; }
  std::uint64_t tokensGenerated() const noexcept { return tokens_; }
  /// Requests waiting in the queue (not in service) now.
  std::size_t queueLength() const noexcept { return queue_.size(); }
  std::size_t inService() const noexcept { return slots_.size(); }
  /// Summed waits in the queue of the requests that started service, s.
  double queueingDelaySum() const noexcept { return delay_sum_; }
  /// Integral of the queue length over the time run so far, request-seconds.
  double queueLengthIntegral() const noexcept { return queue_integral_; }
  /// Generated tokens of the requests completed in the last run() call.
  std::uint64_t tokensLastRun() const noexcept { return tokens_last_; }

  /// Saves or restores the run state (StateArchive.hpp).
  void visitState(StateArchive& archive);

 private:
  struct Request {
    double arrival = 0.0;  // s
    double work = 0.0;     // s of slot time at full speed
    std::uint32_t generated_tokens = 0;
  };
  struct Slot {
    double finish = 0.0;  // on the virtual clock
    std::uint32_t generated_tokens = 0;
  };

  double serviceWork(std::uint32_t context, std::uint32_t generated) const noexcept;
  void enqueueArrival() noexcept;
  void startWaiting(double now) noexcept;

  // Specification.
  double start_ = 0.0, end_ = 0.0, duration_ = 0.0;
  std::uint32_t max_batch_ = 1;
  double prefill_ = 0.0, decode_ = 0.0;  // tokens/s of one slot at full speed
  double busy_fraction_ = 0.0;

  // State.
  RequestArrivals arrivals_;
  RingQueue<Request> queue_;
  std::vector<Slot> slots_;  // min-heap on finish, at most max_batch
  double clock_ = 0.0;       // virtual clock: slot work done per busy slot since the start, s
  double now_ = 0.0;         // s, end of the last run
  std::uint64_t arrived_ = 0, started_ = 0, served_ = 0, tokens_ = 0, tokens_last_ = 0;
  double delay_sum_ = 0.0, queue_integral_ = 0.0;
};

}  // namespace racktwin::core
