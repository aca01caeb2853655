#pragma once
// The workload executor: runs the scenario's jobs in simulated time and writes each chip's
// demanded power for every fast sub-step.
//
// Every kind of job runs behind one interface (WorkloadJob.hpp: TrainingWorkload,
// InferenceWorkload, ReplayWorkload) and is placed by one service (JobPlacement.hpp: named racks
// or the scheduler's queue). The executor steps the jobs in a fixed order (training, inference,
// replay, each in scenario order), sums what they add to each rack's loads and writes the demands.
//
// A training job runs on all GPUs of its racks while active, in [start, start + duration). Each
// iteration is a compute phase then a communication phase, compute_duration and
// communication_duration long at full speed. The compute phase advances at the speed s of the
// job's slowest GPU (min of SiteState::gpu_speed, and the power-limit speed below), so one slowed
// GPU paces the whole job; the communication phase is set by the network, not the clocks, and
// takes communication_duration at any s > 0: a throttled iteration lasts
// compute_duration / s + communication_duration. At s = 0 (a GPU shut down) the job stalls in
// whichever phase it is in. When checkpoint_interval > 0, a checkpoint of checkpoint_duration
// starts every checkpoint_interval seconds of wall-clock job time (at start + k * interval,
// k = 1, 2, ...); it is storage-bound, so it lasts checkpoint_duration whatever s; it pauses
// iteration progress (an iteration in flight resumes where it stopped; its period includes the
// checkpoint) and runs at checkpoint power. A partial iteration at the job's end is not counted.
//
// Demanded GPU power in a phase is max(P_idle, fraction * P_max), P_idle outside a job, and at
// most throttled_power_fraction * P_max while the GPU is throttled. The demand written for a
// sub-step [t, t + dt] is its time average over the sub-step, split exactly at phase boundaries,
// so energy does not depend on how the sub-steps fall on the phases.
//
// An inference job (InferenceJob.hpp) serves requests on all GPUs of its racks while active. Its
// GPUs draw P_idle + u * (max(P_idle, busy_power_fraction * P_max) - P_idle), u the share of busy
// batch slots averaged exactly over the sub-step; its requests progress at the speed of the job's
// slowest GPU, as for training. Each job draws its Poisson arrivals from its own std::mt19937_64
// stream derived from SimulationSpec::seed and the job's index.
//
// Training failures (failure_mtbf > 0): the running time (outside restarts) from the job's start
// or the end of the last restart to the next failure is exponentially distributed with mean
// failure_mtbf, drawn from the job's own stream (seed and job index). A failure rolls the job back
// to its last completed checkpoint (the iterations completed since are lost, the iteration in
// flight restarts from zero), and the GPUs idle for restart_duration. After a restart the
// checkpoint schedule starts again from the restart's end.
//
// Power loss (SiteState::rack_powered = 0 on a rack of a training job, fixed or scheduled alike):
// seen at the next sub-step boundary, as the electrical model writes the flag after the workload
// in each sub-step. A running job fails there as above (counted in failures, rolled back to its
// last checkpoint) and its GPUs idle with no progress while any of its racks is unpowered; when
// all have power again the restart (restart_duration) begins, then the checkpoint schedule and
// the failure draws start from its end. A paused job loses its state as a running one does; a
// loss during a restart is not a second failure (the restart runs again from the return of
// power). A job whose racks have no power at its start waits for power, then starts without a
// restart or a failure. The job's end stays where it was: time without power is lost to it.
//
// A replay job (ReplayJob.hpp) drives the GPUs of its racks with a recorded power trace: trace
// GPU i drives the i-th GPU of the job's racks (in the order the racks are listed), cyclically.
// The demand is the trace's exact average over the sub-step (idle power for the part outside the
// job), capped while throttled; no leakage is added (the measured power includes it).
//
// A scheduled job (`gpus` > 0; training, inference or replay) names no racks: the JobScheduler
// queues it at its submit time and places it on whole racks at a sub-step boundary
// (docs/scheduler.md); it then runs for its duration like a job naming those racks with that
// start: an inference job's trace and Poisson stream begin there (its throughput is sized by
// `gpus` from the outset), a replay's trace GPUs follow the placed racks in placement order. The
// racks are written into the job's reserved entries of job_racks_, so a placement allocates
// nothing. Jobs that name racks are fixed uses for the scheduler. A rack with a shut-down GPU takes
// no new job. The scheduler runs only at events: a submission, a job's end while jobs wait, a
// rack's state change (seen where the executor already compares each rack's shutdown flags), so a
// sub-step without one costs one comparison. With scheduled jobs the recorder gets job/racks_held
// and site/jobs_queued.
//
// Cost per sub-step (event-driven): the work scales with the racks whose demands change, not
// with GPUs x sub-steps. Phase times are taken as shares of the sub-step, so a sub-step inside one
// phase demands that phase's power exactly and reads as unchanged; a rack whose averages and GPU
// inputs did not change keeps the demands already in SiteState, and a replayed rack rewrites only
// the GPUs whose trace sample changed. The GPU inputs (throttle and shutdown flags, speeds,
// junction temperatures) are written by the slow models between macro steps, so they are
// compared with a copy of them, whole arrays at a time, only at a sub-step that follows one with
// SiteState::last_substep set (every sub-step for a driver that leaves it set, as tests do). So:
// the executor must be the only writer of SiteState::gpu_P_demand, cpu_P_demand,
// switch_P_demand and rack_air_P_demand; a driver that changes the GPU inputs between sub-steps
// must leave last_substep set; and initialize() must be called before advancing a new SiteState.
//
// Two jobs on one rack within one sub-step (one ends, the next starts inside it): the GPU demand of
// a sub-step with a replay on the rack is that replay's (the one listed later when two), the rest
// idle.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "racktwin/core/InferenceWorkload.hpp"
#include "racktwin/core/JobPlacement.hpp"
#include "racktwin/core/Model.hpp"
#include "racktwin/core/ModelInferenceWorkload.hpp"
#include "racktwin/core/ReplayWorkload.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/TrainingWorkload.hpp"
#include "racktwin/core/WorkloadJob.hpp"

namespace racktwin::core {

class WorkloadExecutor final : public Model {
 public:
  /// `layout` must outlive the executor. Throws std::invalid_argument for a job naming an unknown
  /// or repeated rack, invalid job timing or power fractions, two jobs sharing a rack at the
  /// same time, or a scheduled job whose GPUs do not fill whole racks of the site (the scenario
  /// loader reports these first, with file and line).
  WorkloadExecutor(const SiteSpec& site, const SiteLayout& layout);

  std::string_view name() const override { return "workload"; }
  /// Writes the chips' and trays' demands; reads the GPUs' thermal state and the racks' power.
  CouplingFields couplingFields() const override {
    using F = CouplingField;
    return CouplingFields::of({F::GpuPowerDemand, F::CpuPowerDemand, F::SwitchPowerDemand,
                               F::RackAirDemand, F::RackDemandVersion},
                              {F::GpuJunction, F::GpuThrottled, F::GpuSpeed, F::GpuShutdown,
                               F::RackPowered, F::RackGpuPowerLimit});
  }
  /// Resets the jobs and writes the demands for the instant state.time (and the constant
  /// rack air loads).
  void initialize(SiteState& state) override;
  void advance(double t, double dt, SiteState& state) override;
  void declareChannels(Recorder& recorder) override;
  void summarise(Summary& summary) const override;
  /// PauseJob and ResumeJob of training jobs (the workload mix during a run).
  bool applyEvent(const EventSpec& event, SiteState& state) override;
  void visitState(StateArchive& archive, const SiteState& state) override;
  /// The racks' demands are written on these threads, in blocks of racks.
  void useThreads(ThreadPool& pool) override;

  /// Every job of every kind, in the order they are stepped.
  std::size_t workloadJobCount() const noexcept { return jobs_.size(); }
  const WorkloadJob& workloadJob(std::size_t job) const;

  /// Training jobs (the indices below count training jobs only).
  std::size_t jobCount() const noexcept { return training_.size(); }
  const std::string& jobId(std::size_t job) const;
  /// Completed iterations of a job.
  std::uint64_t jobIterations(std::size_t job) const;
  std::uint64_t totalIterations() const noexcept;
  /// Mean wall-clock period of the completed iterations of all jobs, s; nullopt when none.
  std::optional<double> meanIterationPeriod() const noexcept;
  /// Failures of a training job so far.
  std::uint64_t jobFailures(std::size_t job) const;
  /// Running time of a training job so far (active, outside restarts), s.
  double jobUptime(std::size_t job) const;
  std::uint64_t totalFailures() const noexcept;

  /// Whether a training job is placed by the scheduler (it asked for GPUs, not racks).
  bool jobScheduled(std::size_t job) const;
  /// Submit time of a training job, s (its start when it names its racks).
  double jobSubmit(std::size_t job) const;
  /// Start time of a training job, s; nullopt while a scheduled job has not started.
  std::optional<double> jobStart(std::size_t job) const;
  /// Rack indices (SiteLayout) of a training job; empty while a scheduled job has not started.
  std::span<const std::uint32_t> jobRacks(std::size_t job) const;
  /// Jobs of every kind that ran to their end by the end of the last sub-step.
  std::size_t jobsCompleted() const noexcept;
  /// Scheduled jobs submitted before the end of the last sub-step and not started.
  std::size_t jobsQueued() const noexcept;
  /// Mean wait (start - submit) of the scheduled jobs that started, s; nullopt when none.
  std::optional<double> meanJobWait() const noexcept;

  std::size_t replayJobCount() const noexcept { return replay_.size(); }
  const ReplayJob& replayJob(std::size_t job) const;
  /// Rack indices (SiteLayout) of a replay job; empty while a scheduled job has not started.
  std::span<const std::uint32_t> replayJobRacks(std::size_t job) const;

  std::size_t inferenceJobCount() const noexcept { return inference_.size(); }
  /// start() and end() are +inf while a scheduled inference job waits.
  const InferenceJob& inferenceJob(std::size_t job) const;
  /// Rack indices (SiteLayout) of an inference job; empty while a scheduled job has not started.
  std::span<const std::uint32_t> inferenceJobRacks(std::size_t job) const;
  /// Inference jobs served from a named model (InferenceJobSpec::deployment).
  std::size_t modelJobCount() const noexcept { return model_.size(); }
  const ModelServer& modelJob(std::size_t job) const;
  /// Requests served and tokens generated by every inference job.
  std::uint64_t requestsServed() const noexcept;
  std::uint64_t tokensGenerated() const noexcept;
  /// Training tokens of the completed iterations of jobs derived from a model.
  double trainingTokens() const noexcept;
  /// Model FLOPs delivered by inference and by the completed training iterations.
  double deliveredFlops() const noexcept;
  /// Adds delivered work per energy (tokens per IT joule and per facility kWh) from the items
  /// the models have added to `summary` (call after every model summarised).
  static void summariseWorkPerEnergy(Summary& summary);
  /// Mean wait in the queue of the requests that started service, s; nullopt when none started.
  std::optional<double> meanQueueingDelay() const noexcept;

 private:
  /// Adds a job (built from its spec) and registers it with the placement service.
  template <class Job, class... Args>
  Job* addJob(std::vector<Job*>& list, Args&&... args);
  /// Binds the jobs to their racks and their recorder views, grouped by kind.
  void bindJobs();
  /// Racks of a job; empty while a scheduled job has not started.
  static std::span<const std::uint32_t> startedRacks(const WorkloadJob& job) noexcept;
  /// A scheduling event at `now`: starts the jobs the placement service places.
  void runScheduler(double now) noexcept;
  /// Forgets what was written when `state` is not the SiteState written last.
  void checkTarget(const SiteState& state) noexcept;
  /// Compares the GPU inputs with the copy from the last sub-step and flags the racks whose
  /// inputs changed (rack_inputs_changed_), updating each rack's slowest speed.
  void scanInputs(const SiteState& state) noexcept;
  void scanRackInputs(std::size_t r, const SiteState& state) noexcept;
  void writeReplayDemands(std::size_t r, SiteState& state) noexcept;
  void writeRackDemands(std::size_t r, double P_gpu, double P_gpu_capped,
                        SiteState& state) noexcept;
  /// Turns the per-rack loads of the sub-step into average demands, writing only what changed;
  /// the demands then hold for `dt` (0 at the initial instant). `publish` (a macro step's last
  /// sub-step, or the initial instant): publishes the step's mean demand (gpu_P_demand_mean_).
  void writeDemands(SiteState& state, double dt, bool publish) noexcept;
  /// Writes rack r's demands that changed; raises its state.rack_demand_version when it wrote any.
  void writeRack(std::size_t r, SiteState& state) noexcept;
  /// Books the energy of rack r's demands for the time they were held, before they change.
  void flushRackDemand(std::size_t r) noexcept;
  /// The mean demand of rack r's GPUs over the macro step's sub-steps so far; starts the next.
  void publishRackDemandMean(std::size_t r) noexcept;
  static constexpr std::size_t kRackBlock = 32;  // racks per task (fixed: results per rack)
  ThreadPool* pool_ = nullptr;

  const SiteLayout& layout_;
  JobPlacement placement_;
  std::vector<std::unique_ptr<WorkloadJob>> jobs_;  // in stepping order
  std::vector<TrainingWorkload*> training_;
  std::vector<InferenceWorkload*> inference_;
  std::vector<ReplayWorkload*> replay_;
  std::vector<ModelInferenceWorkload*> model_;
  double last_time_ = 0.0;  // s, end of the last sub-step

  std::vector<RackPower> rack_power_;
  JobSite site_;
  RackLoads loads_;
  std::vector<const ReplayJob*> job_traces_;  // per job: its gpuTrace(), looked up once

  // Recorder views: sized once in the constructor, never resized. Per kind of job, one block of
  // its channels x its jobs.
  struct KindViews {
    std::string_view kind;
    std::span<const JobChannel> channels;
    std::vector<std::uint32_t> jobs;
    std::size_t offset = 0;  // in job_views_
  };
  std::vector<KindViews> kinds_;
  std::vector<double> job_views_;
  std::vector<double> gpu_P_demand_;
  // The recorder's GPU demand is the macro step's mean, published at its last sub-step: a
  // demand is written once a macro step or when a phase changes, so its energy is booked when it
  // changes (held time x value), not every sub-step for every GPU. Per GPU the energy booked in
  // this macro step; per rack the time its demands have been held since, the time of the step
  // so far and whether they changed in it (if not, the mean is the demand itself, exactly).
  std::vector<double> gpu_E_demand_, gpu_P_demand_mean_;
  std::vector<double> rack_demand_held_, rack_demand_time_;
  std::vector<std::uint8_t> rack_demand_changed_;
  // Leakage excess per GPU and the junction temperature it was computed at: the temperature
  // changes once per thermal step, the demand every sub-step.
  std::vector<double> leak_T_, leak_P_;
  // What each rack's demands were last written from. rack_written_: 0 nothing (or another
  // SiteState), 1 the rack's two averages rack_last_P_ and rack_last_P_capped_, 2 its replay job
  // at active share rack_last_P_. The CPUs, switches and air loads follow the busy share alone.
  std::vector<std::uint8_t> rack_written_, rack_chips_written_;
  std::vector<std::int32_t> rack_written_replay_;  // the replay job of rack_written_ == 2
  std::vector<double> rack_last_P_, rack_last_P_capped_, rack_last_busy_;
  const double* written_to_ = nullptr;  // state.gpu_P_demand the demands were written to
  // The GPU inputs as seen at the last sub-step (valid once inputs_valid_), the racks whose
  // inputs changed since their demands were last written, and each rack's slowest GPU speed.
  bool inputs_valid_ = false;
  bool inputs_may_change_ = true;  // the last sub-step was a macro step's last (or the first)
  bool any_leakage_ = false;       // some rack's demands depend on the junction temperature
  std::vector<std::uint8_t> seen_throttled_, seen_shutdown_, rack_inputs_changed_;
  std::vector<std::uint8_t> rack_flags_clear_;  // no GPU of the rack throttled or shut down
  std::vector<double> seen_speed_, seen_T_, rack_min_speed_;
};

}  // namespace racktwin::core
