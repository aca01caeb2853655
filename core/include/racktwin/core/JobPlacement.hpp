#pragma once
// Where jobs run, for every kind of job alike: the placement service of the workload executor.
//
// A job either names its racks (resolved here: unknown or repeated racks are rejected, and two
// jobs may not hold one rack while both run) or asks for `gpus` (whole racks) at a submit time;
// those wait in one queue of the JobScheduler (docs/scheduler.md), which places them on whole racks
// at scheduling events. Each job owns a fixed range of entries of one rack array, filled at
// construction for a named job and written at placement for a scheduled one, so placing a job
// allocates nothing and the spans handed to the jobs stay valid for the whole run.
//
// Racks that a named job holds are fixed uses for the scheduler. A rack takes no new job while one
// of its GPUs is shut down or it has lost power (noteRackShutdown, noteRacksDown); the scheduler
// runs only at events (a submission, a job's end while jobs wait, a rack's state change), so a
// sub-step without one costs one comparison (due()).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "racktwin/core/JobScheduler.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/WorkloadJob.hpp"

namespace racktwin::core {

class StateArchive;

class JobPlacement {
 public:
  /// `layout` must outlive the placement.
  JobPlacement(const SiteSpec& site, const SiteLayout& layout);

  /// Registers job number `jobCount()` (`what` names it in messages): resolves its named racks,
  /// or reserves its entries and queues it when it asks for GPUs. Throws std::invalid_argument
  /// for an unknown or repeated rack, no rack, racks and GPUs together, invalid submit or
  /// duration, or GPUs that do not fill whole racks of the site.
  void add(const std::string& what, const JobPlaceRequest& request);
  /// Once every job is added: rejects two named jobs sharing a rack while both run (or at all,
  /// within an exclusive class), and builds the queue of the scheduled jobs.
  void finish(const SiteSpec& site);

  std::size_t jobCount() const noexcept { return jobs_.size(); }
  /// Entries of job j (placeholders while a scheduled job waits).
  std::span<const std::uint32_t> racks(std::size_t j) const noexcept;
  /// Each entry's first GPU's position among job j's GPUs.
  std::span<const std::uint32_t> gpuOffsets(std::size_t j) const noexcept;
  bool scheduled(std::size_t j) const noexcept { return jobs_[j].request >= 0; }

  // The queue (all false, empty or zero without scheduled jobs).
  bool hasScheduler() const noexcept { return scheduler_.has_value(); }
  /// Back to the run's start: every rack's state read from `state`.
  void reset(const SiteState& state) noexcept;
  /// Compares the racks' down state (a GPU shut down, no power) with the scheduler's; a change
  /// makes the next sub-step a scheduling event.
  void noteRacksDown(const SiteState& state) noexcept;
  /// Whether rack r has a shut-down GPU, from the executor's scan of the GPU inputs.
  void noteRackShutdown(std::size_t r, const std::uint8_t* shutdown, std::size_t n) noexcept;
  /// Per rack: 1 while a GPU of it is shut down (noteRackShutdown); valid for the whole run.
  std::span<const std::uint8_t> rackShutDown() const noexcept { return rack_shut_down_; }
  /// Whether a scheduling event falls at the sub-step starting at t.
  bool due(double t) const noexcept;
  /// A scheduling event at `now`: places the jobs the scheduler starts (their entries written)
  /// and returns their numbers (valid until the next call).
  std::span<const std::uint32_t> schedule(double now) noexcept;
  /// Scheduled jobs queued now.
  double queued() const noexcept { return queued_; }
  /// The same, for the recorder (stays valid).
  const double* queuedView() const noexcept { return &queued_; }
  /// Scheduled jobs submitted before `now` and not started.
  std::size_t queuedAt(double now) const noexcept;
  /// Mean wait (start - submit) of the scheduled jobs that started, s; nullopt when none.
  std::optional<double> meanWait() const noexcept;
  /// The scheduled jobs in queue order (scenario order): their job numbers.
  std::span<const std::uint32_t> queueOrder() const noexcept { return queue_jobs_; }
  /// Start of scheduled job j, s; nullopt while it waits.
  std::optional<double> startOf(std::size_t j) const noexcept;
  double submitOf(std::size_t j) const noexcept;
  /// Racks the scheduler gave job j (empty while it waits).
  std::span<const std::uint32_t> placedRacks(std::size_t j) const noexcept;

  /// Saves or restores the run state (StateArchive.hpp).
  void visitState(StateArchive& archive);

 private:
  struct Entry {
    std::uint32_t begin = 0, end = 0;  // racks_[begin, end)
    std::int32_t request = -1;         // scheduler request, -1 for a job naming racks
    std::uint8_t exclusive_class = 0;
    double start = 0.0, end_time = 0.0;  // s, a named job's window
    std::string what;
  };
  std::uint32_t scheduledRacks(const std::string& what, std::uint32_t gpus) const;
  void setGpuOffsets(std::uint32_t begin, std::uint32_t end) noexcept;

  const SiteLayout& layout_;
  std::vector<Entry> jobs_;
  std::vector<std::uint32_t> racks_;
  std::vector<std::uint32_t> gpu_offsets_;  // per entry of racks_
  // The queue: requests in scenario order; queue_jobs_[q] is the job of request q.
  std::vector<JobScheduler::Request> requests_;
  std::vector<std::uint32_t> request_orders_;
  std::vector<std::uint32_t> queue_jobs_;
  std::optional<JobScheduler> scheduler_;
  std::vector<std::uint32_t> placed_;         // jobs placed by the last schedule()
  std::vector<std::uint8_t> rack_shut_down_;  // per rack: a GPU of it is shut down
  double next_schedule_ = 0.0;                // s, the scheduler's next event
  bool racks_changed_ = false;  // a rack's state changed since the last scheduling event
  double queued_ = 0.0;
};

/// Sub-step boundaries are computed (step start + k * h), so a time given in the scenario may
/// fall a few ulp off the boundary it means: the workload treats such times as equal.
double workloadTimeTolerance(double t) noexcept;

}  // namespace racktwin::core
