#pragma once
// The queue of the jobs that ask for a number of whole racks (NVL72 domains) instead of naming
// them. A job enters the queue at its submit time and, once started, holds its racks for exactly
// its runtime (the runtime it requested is the one it runs, so reservations are exact).
//
// Policies (docs/scheduler.md):
//  - Fifo: jobs start in submit order (ties in request order); the first queued job that does
//    not fit blocks every job behind it.
//  - Backfill (EASY, Lifka 1995): as Fifo, and when the first queued job (the head) does not fit,
//    it gets a reservation: the earliest time at which enough racks are free for its whole
//    runtime, and the racks it would take then. A later job starts now if enough racks are free
//    for its whole runtime, using a reserved rack only when it ends by the reservation, so it
//    never delays the head.
//
// Racks held by jobs that name them are fixed uses over [start, end), known in advance: a
// scheduled job is placed only on racks free for its whole runtime. A rack marked down (a GPU
// shut down, the rack unpowered) takes no new job; the jobs running on it keep it.
//
// Placement prefers, among the usable racks: a run of adjacent racks (consecutive in scenario
// order, same cooling group: CDU or ring) of the job's size, choosing the shortest run that fits
// (best fit, so long runs stay whole for large jobs); else one group with enough racks (the
// group with the fewest that suffices), taking its racks in order; else the fewest groups,
// largest first.
//
// Work happens only in schedule(), called at events (a submission, a job's end while jobs wait,
// a rack state change): O(queued jobs x racks) plus, for the head's reservation, O(candidate
// times x (racks + fixed uses)). Buffers are sized in the constructor; schedule() allocates
// nothing.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace racktwin::core {

class StateArchive;

class JobScheduler {
 public:
  enum class Policy : std::uint8_t { Fifo, Backfill };
  struct Request {
    double submit = 0.0;      // s
    double runtime = 0.0;     // s, requested and run
    std::uint32_t racks = 0;  // whole racks
  };

  /// `rack_group[r]`: the cooling group (CDU or ring) of rack r, numbered from 0. Throws
  /// std::invalid_argument for a request for no rack or more racks than the site has, a
  /// non-finite submit time or a runtime that is not positive.
  JobScheduler(Policy policy, std::vector<std::uint32_t> rack_group, std::vector<Request> requests);

  /// A rack held by a job that names it over [start, end).
  void addFixedUse(std::uint32_t rack, double start, double end);

  /// Back to the start of a run: nothing submitted or started, every rack up.
  void reset() noexcept;
  /// Marks a rack unusable for new jobs, or usable again, from the next schedule() call on.
  void setRackDown(std::uint32_t rack, bool down) noexcept;
  bool rackDown(std::uint32_t rack) const noexcept { return down_[rack] != 0; }

  /// A scheduling event at `now`: queues the requests submitted by now (within `tolerance`, s)
  /// and starts, at `now`, the jobs the policy allows. Returns the requests it started (valid
  /// until the next call).
  std::span<const std::uint32_t> schedule(double now, double tolerance = 0.0);
  /// Earliest time after the last schedule() call at which another call may start a job: the
  /// next submission, or while jobs wait the next end of a job; +inf when none.
  double nextEvent() const noexcept { return next_event_; }

  std::size_t requestCount() const noexcept { return requests_.size(); }
  const Request& request(std::size_t j) const noexcept { return requests_[j]; }
  bool started(std::size_t j) const noexcept { return start_[j] < kNever; }
  /// Start time of a request, +inf until it starts.
  double startTime(std::size_t j) const noexcept { return start_[j]; }
  /// Racks of a started request, in the order the placement chose them.
  std::span<const std::uint32_t> racks(std::size_t j) const noexcept;
  /// Requests submitted and not started.
  std::size_t queued() const noexcept { return queue_.size(); }
  std::size_t rackCount() const noexcept { return group_.size(); }

  /// Saves or restores the run state (StateArchive.hpp).
  void visitState(StateArchive& archive);

 private:
  static constexpr double kNever = std::numeric_limits<double>::infinity();
  struct Interval {
    double start, end;
  };

  /// Rack r takes no other job over [a, b).
  bool freeOver(std::uint32_t r, double a, double b, double tol) const noexcept;
  /// Chooses k racks among candidate_ into chosen_ (the preference above); false when fewer.
  bool choose(std::uint32_t k) noexcept;
  /// The head's reservation: its earliest start and racks (reserved_); false when none exists.
  bool reserve(std::uint32_t head, double now, double tol, double& at) noexcept;
  void start(std::uint32_t j, double now) noexcept;

  Policy policy_;
  std::vector<std::uint32_t> group_;  // per rack
  std::uint32_t group_count_ = 0;
  std::vector<Request> requests_;
  std::vector<std::uint32_t> order_;          // requests by submit time, then index
  std::vector<std::uint32_t> place_begin_;    // racks of request j: placed_[begin[j], begin[j+1])
  std::vector<std::vector<Interval>> fixed_;  // per rack

  // Run state.
  std::size_t next_submit_ = 0;        // position in order_
  std::vector<std::uint32_t> queue_;   // submitted, not started, in submit order
  std::vector<double> start_;          // per request
  std::vector<std::uint32_t> placed_;  // racks of the started requests
  std::vector<double> busy_until_;     // per rack: end of the scheduled job on it
  std::vector<std::uint8_t> down_;     // per rack
  double next_event_ = kNever;

  // Scratch, sized once.
  std::vector<std::uint8_t> candidate_, reserved_;
  std::vector<std::uint32_t> chosen_, group_free_, group_order_, started_;
  std::vector<double> times_;
};

}  // namespace racktwin::core
