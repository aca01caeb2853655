#pragma once
// A synchronous training job (TrainingJobSpec) behind the WorkloadJob interface: iterations of a
// compute and a communication phase, checkpoints, failures and restarts, pauses and power loss
// (the rules are in WorkloadExecutor.hpp). It adds each phase's share of a sub-step at that
// phase's GPU power to its racks, so a sub-step inside one phase demands that phase's power
// exactly.
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string_view>
#include <vector>

#include "racktwin/core/WorkloadJob.hpp"

namespace racktwin::core {

class TrainingWorkload final : public WorkloadJob {
 public:
  /// `seed`: the job's own random stream (failures). Throws std::invalid_argument for invalid
  /// timing, durations, power fractions, checkpoint or failure data.
  TrainingWorkload(const TrainingJobSpec& spec, std::uint64_t seed);

  std::string_view kind() const noexcept override { return "training"; }
  JobPlaceRequest placeRequest() const override;
  double start() const noexcept override { return start_; }
  double end() const noexcept override { return end_; }
  std::span<const JobChannel> channels() const noexcept override;

  void reset(double time, const JobSite& site) override;
  void place(double now, const JobSite& site) noexcept override;
  void addDemandAt(double time, const JobSite& site, RackLoads& loads) override;
  void advance(const SubStep& step, const SiteState& state, const JobSite& site,
               RackLoads& loads) noexcept override;
  bool applyEvent(const EventSpec& event) override;
  /// The derived iteration of a job built from a model (nothing for typed-in durations).
  void summarise(Summary& summary) const override;
  /// Not when a lost rack or a shut-down GPU held it at its end.
  bool ranToEnd(double now) const noexcept override { return end() <= now && !unpowered_; }
  void visitState(StateArchive& archive) override;

  std::uint64_t iterations() const noexcept { return static_cast<std::uint64_t>(iterations_); }
  /// Summed wall-clock periods of the completed iterations, s.
  double periodSum() const noexcept { return period_sum_; }
  std::uint64_t failures() const noexcept { return failures_; }
  /// Running time (active, outside restarts), s.
  double uptime() const noexcept { return uptime_; }
  double submit() const noexcept { return submit_; }
  /// Delivered work per iteration (0 when the durations were typed in without a model).
  double tokensPerIteration() const noexcept { return tokens_per_iteration_; }
  double flopsPerIteration() const noexcept { return flops_per_iteration_; }

 private:
  /// Time the job spent in each phase within one interval, s.
  struct Split {
    double compute = 0.0;
    double communication = 0.0;
    double checkpoint = 0.0;
  };
  /// GPU power in each phase on one of the job's racks, W, without and with the throttle cap.
  struct PhasePowers {
    double compute = 0.0, communication = 0.0, checkpoint = 0.0;
    double compute_capped = 0.0, communication_capped = 0.0, checkpoint_capped = 0.0;
  };

  double checkpointCycle(double time) const noexcept;
  void setPhasePowers(const JobSite& site);
  Split phaseAt(double time) const noexcept;
  Split run(double t0, double t1, double speed) noexcept;
  void runSchedule(double a, double b, double speed, Split& split) noexcept;
  void train(double t0, double t1, double speed, Split& split) noexcept;
  void drawFailure(double from) noexcept;
  /// A failure now: back to the last completed checkpoint, no failure drawn until the restart
  /// ends.
  void fail() noexcept;
  /// A rack lost power, seen at the sub-step boundary t: a failure if the job was running.
  void losePower(double t) noexcept;
  /// Every rack has power again at the sub-step boundary t: the restart begins.
  void restorePower(double t) noexcept;
  void addToRacks(const Split& split, double span, RackLoads& loads) const noexcept;
  /// With average power: the iterations' time shared between the phases as over a whole
  /// iteration at `speed`, so the GPUs draw the period average throughout.
  Split averaged(Split split, double speed) const noexcept;

  // Specification.
  const TrainingJobSpec* spec_;    // for the placement request
  double duration_ = 0.0;          // s
  double compute_duration_ = 0.0;  // s at full speed
  double period_ = 0.0;            // s at full speed, compute + communication
  double compute_fraction_ = 0.0, communication_fraction_ = 0.0, checkpoint_fraction_ = 0.0;
  double checkpoint_interval_ = 0.0;  // s, 0 = none
  double checkpoint_duration_ = 0.0;  // s
  bool average_power_ = false;        // TrainingJobSpec::average_power
  double mtbf_ = 0.0;                 // s, 0 = none
  double restart_ = 0.0;              // s
  std::uint64_t seed_ = 0;
  double submit_ = 0.0;  // s (the start of a job naming racks)
  double tokens_per_iteration_ = 0.0, flops_per_iteration_ = 0.0;
  std::vector<PhasePowers> rack_P_;  // per rack of the job

  // Run state.
  double start_ = 0.0, end_ = 0.0;  // s (+inf while a scheduled job waits)
  double work_ = 0.0;               // s of full-speed work done in the current iteration
  double iteration_start_ = 0.0;    // s, wall-clock start of the current iteration
  double iterations_ = 0.0;         // completed
  double period_sum_ = 0.0;         // s, summed wall-clock periods of completed iterations
  std::mt19937_64 rng_;
  double origin_ = 0.0;        // s, origin of the checkpoint schedule (start or last restart end)
  double next_failure_ = 0.0;  // s, +inf when none
  double restart_end_ = 0.0;   // s, restarting while time < restart_end
  // Paused (PauseJob): restart_end_ is held at infinity; the restart's own end is kept here.
  bool paused_ = false;
  double restart_end_unpaused_ = 0.0;
  double saved_iterations_ = 0.0;  // at the last completed checkpoint
  double saved_period_sum_ = 0.0;
  std::uint64_t failures_ = 0;
  double uptime_ = 0.0;  // s
  // Power loss: while a rack of the job is unpowered, or has a GPU shut down over temperature
  // (for the rest of the run), the job is held like a restart without end; power_restart_ is the
  // restart it owes when the racks are back (0 when it had not started).
  bool unpowered_ = false;
  double power_restart_ = 0.0;  // s
};

}  // namespace racktwin::core
