#pragma once
// A replayed GPU power trace (ReplayJobSpec): each trace GPU's power is a step function held
// from one sample to the next (zero-order hold); before its first sample a GPU draws its first
// sample's power, after its last sample the last one, until the job ends. The energy over any
// interval is integrated exactly, split at the sample times, so the replay reproduces the trace
// at its own resolution whatever the sub-step. The replay is open loop: it draws the recorded
// power whatever the GPUs' speed (the executor still applies throttle caps and shutdowns).
//
// Each trace GPU keeps a cursor on its current sample; intervals follow each other in time, so
// the work per interval is the number of trace GPUs plus the samples crossed.
#include <cstddef>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::core {

class ReplayJob {
 public:
  /// Throws std::invalid_argument for invalid timing, no trace GPU, a GPU without samples,
  /// decreasing or non-finite times, or negative or non-finite power.
  explicit ReplayJob(const ReplayJobSpec& spec);

  /// Back to the job's start.
  void reset() noexcept;
  /// Integrates every trace GPU's power over [t0, t1] clipped to the job's window into energy()
  /// (J) and returns the clipped length, s (0 when the job is not active). Intervals must follow
  /// each other in time.
  double run(double t0, double t1) noexcept;
  /// Writes every trace GPU's power at the instant `time` into energy() (W) and returns 1 when
  /// the job runs then, 0 otherwise. Does not move the cursors.
  double sampleAt(double time) noexcept;

  double start() const noexcept { return start_; }
  double end() const noexcept { return end_; }
  std::size_t traceGpus() const noexcept { return cursor_.size(); }
  /// Per trace GPU: J after run(), W after sampleAt().
  const std::vector<double>& energy() const noexcept { return energy_; }

 private:
  double start_ = 0.0, end_ = 0.0;
  std::vector<std::size_t> begin_;  // samples of GPU i: [begin_[i], begin_[i + 1])
  std::vector<double> times_, power_;
  std::vector<std::size_t> cursor_;  // per GPU: last sample at or before the last run's end
  std::vector<double> energy_;
};

}  // namespace racktwin::core
