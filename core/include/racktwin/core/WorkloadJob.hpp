#pragma once
// The interface every kind of job runs behind (training, inference, replay, ...). The workload
// executor (WorkloadExecutor.hpp) owns the jobs, asks the placement service (JobPlacement.hpp)
// where each runs, steps them over each sub-step and turns what they add to the per-rack loads
// into the chips' demanded powers. A new kind of job is one class derived from WorkloadJob: it
// says how it runs over an interval and what share of its racks' time it keeps busy at which GPU
// power; placement (named racks or the scheduler), the rack sums, throttle caps, leakage and the
// event-driven writing of demands are shared.
//
// A job sees its racks as a span of rack indices (SiteLayout) that stays valid for the whole run;
// a scheduled job's span holds placeholders until the scheduler places it (place()).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"

namespace racktwin::core {

class ReplayJob;
class StateArchive;
class Summary;

/// Chip powers of one rack, W.
struct RackPower {
  double gpu_P_idle = 0.0;
  double gpu_P_max = 0.0;
  double gpu_P_throttled = 0.0;          // cap while throttled
  double gpu_P_leakage = 0.0;            // W of leakage at the reference junction temperature
  double gpu_T_leakage = 0.0;            // K, that reference
  double gpu_leakage_coefficient = 0.0;  // 1/K
  double cpu_P_idle = 0.0;
  double cpu_P_busy = 0.0;
  double switch_P_idle = 0.0;
  double switch_P_busy = 0.0;
  double air_P = 0.0;  // air-cooled tray loads of the whole rack

  /// GPU power of a job phase at `fraction` of the power limit, never below idle, W.
  double gpuPower(double fraction) const noexcept {
    const double P = fraction * gpu_P_max;
    return P > gpu_P_idle ? P : gpu_P_idle;
  }
  /// The same under the throttle cap, W.
  double gpuPowerCapped(double P) const noexcept {
    return P < gpu_P_throttled ? P : gpu_P_throttled;
  }
};

/// What the jobs demand of each rack over the current sub-step, as shares of it. The executor
/// clears it before each sub-step and fills the idle remainder in when it writes the demands.
struct RackLoads {
  std::vector<double> busy;          // job-busy share of the sub-step (0..1)
  std::vector<double> gpu_P;         // share-weighted GPU power in jobs, W
  std::vector<double> gpu_P_capped;  // the same under the throttle cap, W
  // A per-GPU power trace driving the rack (a replay, WorkloadJob::gpuTrace): the job's index in
  // the executor (-1 none; the one added last wins), its active share and the rack's first GPU's
  // position among the job's GPUs.
  std::vector<std::int32_t> trace_job;
  std::vector<double> trace_share;
  std::vector<std::uint32_t> trace_offset;

  void resize(std::size_t racks);
  void clear() noexcept;
  /// Adds a busy share of rack r at GPU power P (W, uncapped) and its capped value.
  void add(std::uint32_t r, double share, double P, double P_capped) noexcept {
    busy[r] += share;
    gpu_P[r] += share * P;
    gpu_P_capped[r] += share * P_capped;
  }
};

/// The site as the jobs see it: the layout, each rack's chip powers and its slowest GPU's speed
/// (updated by the executor from the GPU inputs).
struct JobSite {
  const SiteLayout* layout = nullptr;
  std::span<const RackPower> rack_power;
  std::span<const double> rack_min_speed;
  std::span<const std::uint8_t> rack_shut_down;  // per rack: 1 while a GPU of it is shut down

  /// Speed of the slowest GPU of `racks`, including a power limit below the job's busy power
  /// `fraction` * P_max (clocks fall until the power meets the limit, P ~ f^3, so speed =
  /// (limit / P)^(1/3)); 0 when there is no GPU or a speed is not a number.
  double slowestSpeed(std::span<const std::uint32_t> racks, double fraction,
                      const SiteState& state) const noexcept;
  /// Whether every rack of `racks` has power and none has a GPU shut down over temperature: what
  /// a synchronous job needs to run (it loses a rank with either).
  bool allUp(std::span<const std::uint32_t> racks, const SiteState& state) const noexcept;
  /// GPUs of `racks`.
  std::uint32_t gpus(std::span<const std::uint32_t> racks) const noexcept;
};

/// A recorder channel of one kind of job: one column per job of the kind.
struct JobChannel {
  const char* group;
  const char* name;
  const char* unit;
  const char* description;
  Aggregation aggregation;
  bool with_scheduler_only = false;  // declared only when the site has scheduled jobs
};

/// One fast sub-step [t0, t1], t1 = t0 + dt as the engine computes it.
struct SubStep {
  double t0 = 0.0, t1 = 0.0, dt = 0.0;  // s
  /// The sub-step's length as phase times measure it (a phase filling it has a share of 1), s.
  double span() const noexcept { return t1 - t0; }
};

/// Where a job asks to run, for the placement service.
struct JobPlaceRequest {
  std::span<const ComponentId> racks;   // named racks; empty for a scheduled job
  std::uint32_t gpus = 0;               // > 0: sized for the scheduler (whole racks)
  double start = 0.0, end = 0.0;        // s, the window of a job naming racks
  double submit = 0.0, duration = 0.0;  // s, a scheduled job
  std::uint32_t order = 0;              // position in the scenario's workload list
  /// Jobs of one nonzero class may not name a common rack, even at different times.
  std::uint8_t exclusive_class = 0;
};

/// The placement request of a job spec (any kind: id, racks, gpus, submit, duration, order)
/// whose window is [start, end).
template <class Spec>
JobPlaceRequest placeRequestOf(const Spec& spec, double start, double end) {
  JobPlaceRequest r;
  r.racks = spec.racks;
  r.gpus = spec.gpus;
  r.start = start;
  r.end = end;
  r.submit = spec.submit;
  r.duration = spec.duration;
  r.order = spec.order;
  return r;
}

class WorkloadJob {
 public:
  virtual ~WorkloadJob() = default;
  WorkloadJob(const WorkloadJob&) = delete;
  WorkloadJob& operator=(const WorkloadJob&) = delete;

  const std::string& id() const noexcept { return id_; }
  /// "training job 'a'", for messages.
  std::string what() const { return std::string(kind()) + " job '" + id_ + "'"; }
  /// The kind's name ("training", "inference", "replay").
  virtual std::string_view kind() const noexcept = 0;
  /// Where the job asks to run (valid while the spec it was built from lives).
  virtual JobPlaceRequest placeRequest() const = 0;
  bool scheduled() const noexcept { return scheduled_; }
  /// The job's window [start, end), s; +inf while a scheduled job waits.
  virtual double start() const noexcept = 0;
  virtual double end() const noexcept = 0;
  /// Whether the job ran to its end by `now` (a job held at its end by a fault did not).
  virtual bool ranToEnd(double now) const noexcept { return end() <= now; }
  /// Rack indices the job runs on (placeholders while a scheduled job waits).
  std::span<const std::uint32_t> racks() const noexcept { return racks_; }
  /// Each rack's first GPU's position among the job's GPUs (racks in the job's order).
  std::span<const std::uint32_t> rackGpuOffsets() const noexcept { return gpu_offsets_; }

  /// Given once by the executor after placement: the job's racks, offsets and its index.
  void bind(std::span<const std::uint32_t> racks, std::span<const std::uint32_t> gpu_offsets,
            std::int32_t index) noexcept;
  /// The recorder channels of the job's kind (the same list for every job of a kind) and where
  /// this job writes its values: channel c at views[c * stride].
  virtual std::span<const JobChannel> channels() const noexcept { return {}; }
  void bindViews(double* views, std::size_t stride) noexcept {
    views_ = views;
    view_stride_ = stride;
  }

  /// Back to the run's start at `time` (a scheduled job waits, its window at +inf).
  virtual void reset(double time, const JobSite& site) = 0;
  /// Placed by the scheduler at `now` on racks() (written by the placement service).
  virtual void place(double now, const JobSite& site) noexcept = 0;
  /// Adds the job's demand at the instant `time` with a unit weight (initialisation).
  virtual void addDemandAt(double time, const JobSite& site, RackLoads& loads) = 0;
  /// Runs the job over the sub-step and adds its shares of it to the loads.
  virtual void advance(const SubStep& step, const SiteState& state, const JobSite& site,
                       RackLoads& loads) noexcept = 0;
  /// The per-GPU power trace the job drives its racks with (RackLoads::trace_job), if any.
  virtual const ReplayJob* gpuTrace() const noexcept { return nullptr; }
  /// A workload event aimed at this job (pause, resume); false when the kind does not take it.
  virtual bool applyEvent(const EventSpec& /*event*/) { return false; }
  /// Per-job summary items.
  virtual void summarise(Summary& /*summary*/) const {}
  /// Saves or restores the run state (StateArchive.hpp).
  virtual void visitState(StateArchive& archive) = 0;

 protected:
  WorkloadJob(std::string id, bool scheduled) : id_(std::move(id)), scheduled_(scheduled) {}
  /// Writes a recorder value of channel c.
  void setView(std::size_t c, double value) noexcept {
    if (views_ != nullptr) views_[c * view_stride_] = value;
  }
  std::int32_t index() const noexcept { return index_; }

 private:
  std::string id_;
  bool scheduled_ = false;
  std::span<const std::uint32_t> racks_;
  std::span<const std::uint32_t> gpu_offsets_;
  std::int32_t index_ = -1;
  double* views_ = nullptr;
  std::size_t view_stride_ = 0;
};

}  // namespace racktwin::core
