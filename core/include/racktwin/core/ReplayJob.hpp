#pragma once
// A replayed GPU power trace (ReplayJobSpec): each trace GPU's power is a step function held
// from one sample to the next (zero-order hold); before its first sample a GPU draws its first
// sample's power, after its last sample the last one, until the job ends. The power over any
// interval is averaged exactly, split at the sample times, so the replay reproduces the trace
// at its own resolution whatever the sub-step. The replay is open loop: it draws the recorded
// power whatever the GPUs' speed (the executor still applies throttle caps and shutdowns).
//
// Event-driven: each trace GPU keeps a cursor on its current sample and sleeps until its next
// sample time (a min-heap of wake times), so an interval costs only the trace GPUs whose sample
// changes in it (or changed in the one before, whose average was a mix of two samples) plus the
// samples crossed, and reports which trace GPUs' powers changed. An interval inside one sample
// gives that sample's power exactly, so a held sample reads as unchanged.
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::core {

class StateArchive;

class ReplayJob {
 public:
  /// Throws std::invalid_argument for invalid timing, no trace GPU, a GPU without samples,
  /// decreasing or non-finite times, or negative or non-finite power.
  explicit ReplayJob(const ReplayJobSpec& spec);

  /// Back to the job's start.
  void reset() noexcept;
  /// Moves the job's window to [start, start + duration) and resets it (+inf: not started), for a
  /// job whose start the scheduler chooses during the run. Allocates nothing.
  void setStart(double start) noexcept;
  /// Averages every trace GPU's power over [t0, t1] clipped to the job's window into power()
  /// (W) and returns the clipped length, s (0 when the job is not active, and every power() 0).
  /// Intervals must follow each other in time.
  double run(double t0, double t1) noexcept;
  /// Writes every trace GPU's power at the instant `time` into power() (W) and returns 1 when
  /// the job runs then, 0 otherwise (every power() 0). Does not move the cursors.
  double sampleAt(double time) noexcept;

  double start() const noexcept { return start_; }
  double end() const noexcept { return end_; }
  std::size_t traceGpus() const noexcept { return cursor_.size(); }
  /// Per trace GPU, W: the average over the active part of the last run(), or the instant's
  /// power after sampleAt().
  const std::vector<double>& power() const noexcept { return average_; }
  /// Trace GPUs whose power() changed in the last run() or sampleAt() call (in no order).
  std::span<const std::uint32_t> changed() const noexcept { return changed_; }

  /// Saves or restores the run state (StateArchive.hpp).
  void visitState(StateArchive& archive);

 private:
  /// Averages trace GPU i over [a, b] (job time) and files it for its next wake.
  void advanceGpu(std::uint32_t i, double a, double b) noexcept;
  /// Every trace GPU must be averaged again at the next run (after a reset, sampleAt or a pause).
  void wakeAll() noexcept;
  void setAll(double P) noexcept;

  double start_ = 0.0, end_ = 0.0, duration_ = 0.0;
  std::vector<std::size_t> begin_;  // samples of GPU i: [begin_[i], begin_[i + 1])
  std::vector<double> times_, power_;
  std::vector<std::size_t> cursor_;  // per GPU: last sample at or before the last run's end
  std::vector<double> average_;      // W
  std::vector<std::uint32_t> changed_;
  // Trace GPUs to average at the next run whatever the time: those whose last average spanned
  // a sample change (the next one is a single sample again) or was not a run's.
  std::vector<std::uint32_t> pending_, pending_next_;
  // The others, keyed by their next sample time (job time; none after the last sample).
  std::vector<std::pair<double, std::uint32_t>> wake_;
  bool all_zero_ = false;  // power() is 0 for every GPU (inactive)
};

}  // namespace racktwin::core
