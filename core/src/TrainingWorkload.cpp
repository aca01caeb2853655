#include "racktwin/core/TrainingWorkload.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "racktwin/core/StateArchive.hpp"
#include "racktwin/core/Summary.hpp"

namespace racktwin::core {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

[[noreturn]] void rejectJob(const std::string& job, const std::string& what) {
  throw std::invalid_argument("training job '" + job + "': " + what);
}

bool isFraction(double x) {
  return x >= 0.0 && x <= 1.0;
}
bool isNonNegative(double x) {
  return std::isfinite(x) && x >= 0.0;
}

/// Uniform in [0, 1) from the top 53 bits: the same stream on every platform.
double uniform(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

enum Channel : std::size_t { kIterations, kRacksHeld };
constexpr std::array<JobChannel, 2> kChannels{{
    {"job", "iterations", "1", "Completed training iterations of the job", Aggregation::Sample},
    {"job", "racks_held", "1", "Racks the job held in the last sub-step (0 while queued or done)",
     Aggregation::Sample, true},
}};

}  // namespace

TrainingWorkload::TrainingWorkload(const TrainingJobSpec& spec, std::uint64_t seed)
    : WorkloadJob(spec.id, spec.gpus > 0), spec_(&spec), seed_(seed) {
  if (scheduled()) {
    if (!spec.racks.empty()) rejectJob(spec.id, "names racks and asks for GPUs; give one");
    if (!(std::isfinite(spec.submit) && std::isfinite(spec.duration) && spec.duration > 0.0)) {
      rejectJob(spec.id, "submit must be a number and duration a positive number");
    }
  } else if (!(std::isfinite(spec.start) && isNonNegative(spec.duration))) {
    rejectJob(spec.id, "start must be a number and duration a non-negative number");
  }
  if (!isNonNegative(spec.compute_duration) || !isNonNegative(spec.communication_duration)
      || !(spec.compute_duration + spec.communication_duration > 0.0)) {
    rejectJob(spec.id,
              "compute and communication durations must be non-negative with a positive sum");
  }
  if (!isFraction(spec.compute_power_fraction) || !isFraction(spec.communication_power_fraction)
      || !isFraction(spec.checkpoint_power_fraction)) {
    rejectJob(spec.id, "power fractions must lie in [0, 1] (of the GPU power limit)");
  }
  if (!isNonNegative(spec.checkpoint_interval)) {
    rejectJob(spec.id, "checkpoint interval must be a non-negative number (0 = none)");
  }
  if (spec.checkpoint_interval > 0.0
      && !(isNonNegative(spec.checkpoint_duration)
           && spec.checkpoint_duration < spec.checkpoint_interval)) {
    rejectJob(spec.id, "checkpoint duration must be non-negative and shorter than the interval");
  }
  if (!isNonNegative(spec.failure_mtbf) || !isNonNegative(spec.restart_duration)) {
    rejectJob(spec.id, "failure MTBF and restart time must be non-negative numbers (0 = none)");
  }
  if (spec.racks.empty() && !scheduled()) rejectJob(spec.id, "names no rack");
  tokens_per_iteration_ = spec.tokens_per_iteration;
  flops_per_iteration_ = spec.flops_per_iteration;
  mtbf_ = spec.failure_mtbf;
  restart_ = spec.restart_duration;
  duration_ = spec.duration;
  submit_ = scheduled() ? spec.submit : spec.start;
  start_ = scheduled() ? kInf : spec.start;
  end_ = scheduled() ? kInf : spec.start + spec.duration;
  compute_duration_ = spec.compute_duration;
  average_power_ = spec.average_power;
  period_ = spec.compute_duration + spec.communication_duration;
  compute_fraction_ = spec.compute_power_fraction;
  communication_fraction_ = spec.communication_power_fraction;
  checkpoint_fraction_ = spec.checkpoint_power_fraction;
  checkpoint_interval_ = spec.checkpoint_interval;
  checkpoint_duration_ = spec.checkpoint_interval > 0.0 ? spec.checkpoint_duration : 0.0;
}

JobPlaceRequest TrainingWorkload::placeRequest() const {
  return placeRequestOf(*spec_, start_, end_);
}

std::span<const JobChannel> TrainingWorkload::channels() const noexcept {
  return kChannels;
}

void TrainingWorkload::reset(double time, const JobSite& site) {
  if (scheduled()) start_ = end_ = kInf;  // until the scheduler places it
  work_ = 0.0;
  iteration_start_ = std::max(start_, time);
  period_sum_ = 0.0;
  iterations_ = 0.0;
  rng_.seed(seed_);
  origin_ = start_;
  restart_end_ = -kInf;
  paused_ = false;
  saved_iterations_ = saved_period_sum_ = 0.0;
  failures_ = 0;
  uptime_ = 0.0;
  unpowered_ = false;
  power_restart_ = 0.0;
  rack_P_.resize(racks().size());
  if (!scheduled()) {
    drawFailure(start_);
    setPhasePowers(site);
  }
  setView(kIterations, 0.0);
}

void TrainingWorkload::place(double now, const JobSite& site) noexcept {
  start_ = now;
  end_ = now + duration_;
  setPhasePowers(site);
  origin_ = now;
  iteration_start_ = now;
  drawFailure(now);
}

void TrainingWorkload::setPhasePowers(const JobSite& site) {
  const std::span<const std::uint32_t> racks = this->racks();
  for (std::size_t k = 0; k < racks.size(); ++k) {
    const RackPower& p = site.rack_power[racks[k]];
    PhasePowers& P = rack_P_[k];
    P.compute = p.gpuPower(compute_fraction_);
    P.communication = p.gpuPower(communication_fraction_);
    P.checkpoint = p.gpuPower(checkpoint_fraction_);
    P.compute_capped = p.gpuPowerCapped(P.compute);
    P.communication_capped = p.gpuPowerCapped(P.communication);
    P.checkpoint_capped = p.gpuPowerCapped(P.checkpoint);
  }
}

bool TrainingWorkload::applyEvent(const EventSpec& event) {
  if (event.kind != EventKind::PauseJob && event.kind != EventKind::ResumeJob) return false;
  const double t = event.time;
  if (event.kind == EventKind::PauseJob && !paused_) {
    // Paused like a restart without end: the GPUs idle, the job makes no progress.
    paused_ = true;
    restart_end_unpaused_ = restart_end_;
    restart_end_ = kInf;
  } else if (event.kind == EventKind::ResumeJob && paused_) {
    // As at a restart's end: the iteration in flight starts again, the checkpoint schedule
    // counts from now, and a restart that the pause interrupted goes on to its own end.
    paused_ = false;
    restart_end_ = restart_end_unpaused_;
    if (!(restart_end_ > t)) {
      origin_ = std::max(t, start_);
      iteration_start_ = origin_;
      drawFailure(origin_);
    }
  }
  return true;
}

void TrainingWorkload::addDemandAt(double time, const JobSite& /*site*/, RackLoads& loads) {
  const bool active = time >= start_ && time < end_;
  setView(kRacksHeld, active ? static_cast<double>(racks().size()) : 0.0);
  addToRacks(averaged(phaseAt(time), 1.0), 1.0, loads);
}

void TrainingWorkload::advance(const SubStep& step, const SiteState& state, const JobSite& site,
                               RackLoads& loads) noexcept {
  const double t0 = step.t0;
  const double t1 = step.t1;
  const bool active = t1 > start_ && t0 < end_;
  setView(kRacksHeld, active ? static_cast<double>(racks().size()) : 0.0);
  if (!active) return;
  // Power as the electrical model left it at the end of the last sub-step, and the GPUs'
  // shutdowns as the executor's scan saw them: a synchronous job loses a rank with a rack's
  // power or with a GPU shut down over temperature, and fails as with a lost rack.
  if (site.allUp(racks(), state) == unpowered_) {
    if (unpowered_) {
      restorePower(t0);
    } else {
      losePower(t0);
    }
  }
  const double speed = site.slowestSpeed(racks(), compute_fraction_, state);
  const Split split = averaged(run(t0, t1, speed), speed);
  addToRacks(split, step.span(), loads);
  setView(kIterations, iterations_);
}

double TrainingWorkload::checkpointCycle(double time) const noexcept {
  // k with origin + k * interval <= time < origin + (k + 1) * interval, robust to the rounding
  // of the division (the loop in runSchedule relies on it).
  const double interval = checkpoint_interval_;
  double k = std::floor((time - origin_) / interval);
  if (k < 0.0) k = 0.0;
  if (origin_ + (k + 1.0) * interval <= time) k += 1.0;
  if (k > 0.0 && origin_ + k * interval > time) k -= 1.0;
  return k;
}

TrainingWorkload::Split TrainingWorkload::phaseAt(double time) const noexcept {
  Split split;
  if (!(time >= start_ && time < end_) || time < restart_end_) return split;
  if (checkpoint_interval_ > 0.0) {
    const double k = checkpointCycle(time);
    if (k >= 1.0 && time < origin_ + k * checkpoint_interval_ + checkpoint_duration_) {
      split.checkpoint = 1.0;
      return split;
    }
  }
  if (work_ < compute_duration_) {
    split.compute = 1.0;
  } else {
    split.communication = 1.0;
  }
  return split;
}

TrainingWorkload::Split TrainingWorkload::run(double t0, double t1, double speed) noexcept {
  Split split;
  const double a = std::max(t0, start_);
  const double b = std::min(t1, end_);
  if (!(b > a)) return split;
  // Cut the interval at the restart's end and at failures; between them, the checkpoint schedule.
  double pos = a;
  while (pos < b) {
    if (pos < restart_end_) {
      // Restarting: the GPUs idle (no phase time), no progress.
      const double end = std::min(restart_end_, b);
      pos = end;
      if (end == restart_end_) {
        origin_ = end;
        iteration_start_ = end;
        drawFailure(end);
      }
      continue;
    }
    const double end = std::min(next_failure_, b);
    runSchedule(pos, end, speed, split);
    uptime_ += end - pos;
    pos = end;
    if (end == next_failure_ && end < end_) {
      fail();
      restart_end_ = end + restart_;
      if (!(restart_ > 0.0)) {
        origin_ = end;
        iteration_start_ = end;
        drawFailure(end);
      }
    }
  }
  return split;
}

void TrainingWorkload::drawFailure(double from) noexcept {
  next_failure_ = mtbf_ > 0.0 ? from - mtbf_ * std::log1p(-uniform(rng_)) : kInf;
}

void TrainingWorkload::fail() noexcept {
  // Back to the last checkpoint; the iteration in flight is lost too.
  failures_ += 1;
  iterations_ = saved_iterations_;
  period_sum_ = saved_period_sum_;
  work_ = 0.0;
  next_failure_ = kInf;
}

void TrainingWorkload::losePower(double t) noexcept {
  unpowered_ = true;
  if (!(t > start_)) {
    // Not started yet: it waits for power and then starts afresh, owing no restart.
    power_restart_ = 0.0;
  } else {
    power_restart_ = restart_;
    // Running (outside a restart, paused or not): its processes die with the power. Within a
    // restart there is nothing left to lose.
    const double restart_end = paused_ ? restart_end_unpaused_ : restart_end_;
    if (!(restart_end > t)) fail();
  }
  next_failure_ = kInf;
  // Held like a pause: no progress until restorePower.
  (paused_ ? restart_end_unpaused_ : restart_end_) = kInf;
}

void TrainingWorkload::restorePower(double t) noexcept {
  unpowered_ = false;
  const double from = std::max(t, start_);
  const double end = from + power_restart_;
  if (paused_) {
    // ResumeJob finishes the restart (or starts the job afresh when it has ended).
    restart_end_unpaused_ = end;
    return;
  }
  restart_end_ = end;
  if (!(power_restart_ > 0.0)) {
    // No restart to wait for: the iteration and the checkpoint schedule start now (run() does
    // this at a restart's end).
    origin_ = from;
    iteration_start_ = from;
    drawFailure(from);
  }
}

void TrainingWorkload::runSchedule(double a, double b, double speed, Split& split) noexcept {
  if (!(b > a)) return;
  if (!(checkpoint_interval_ > 0.0)) {
    // Without checkpoints a failure loses every iteration since the start.
    train(a, b, speed, split);
    return;
  }
  // Walk the checkpoint schedule: training until origin + (k+1) I, then a checkpoint until
  // origin + (k+1) I + D. Every pass ends at b or at a later boundary, so the loop terminates.
  const double interval = checkpoint_interval_;
  const double duration = checkpoint_duration_;
  double k = checkpointCycle(a);
  bool in_checkpoint = k >= 1.0 && a < origin_ + k * interval + duration;
  double pos = a;
  while (pos < b) {
    const double boundary =
        in_checkpoint ? origin_ + k * interval + duration : origin_ + (k + 1.0) * interval;
    const double end = std::min(boundary, b);
    if (in_checkpoint) {
      split.checkpoint += end - pos;
    } else {
      train(pos, end, speed, split);
    }
    pos = end;
    if (end == boundary) {
      if (in_checkpoint) {
        in_checkpoint = false;
        // The checkpoint is complete: the iterations done so far survive a failure.
        saved_iterations_ = iterations_;
        saved_period_sum_ = period_sum_;
        // The iteration it interrupted resumes now; the pause is not part of its period (a
        // longer period means slower GPUs, as under throttling).
        iteration_start_ += duration;
      } else {
        k += 1.0;
        in_checkpoint = duration > 0.0;
        if (!in_checkpoint) {
          saved_iterations_ = iterations_;
          saved_period_sum_ = period_sum_;
        }
      }
    }
  }
}

void TrainingWorkload::train(double t0, double t1, double speed, Split& split) noexcept {
  const double Tc = compute_duration_;
  const double T = period_;
  if (!(speed > 0.0)) {
    // Stalled: the GPUs stay in the phase they are in.
    (work_ < Tc ? split.compute : split.communication) += t1 - t0;
    return;
  }
  double pos = t0;
  while (pos < t1) {
    if (work_ < Tc) {
      const double end = pos + (Tc - work_) / speed;
      if (end > t1) {
        split.compute += t1 - pos;
        work_ = std::min(work_ + (t1 - pos) * speed, Tc);
        return;
      }
      split.compute += end - pos;
      work_ = Tc;
      pos = end;
      continue;
    }
    // Communication is set by the network, not the GPU clocks: it runs at full speed.
    const double end = pos + (T - work_);
    if (end > t1) {
      split.communication += t1 - pos;
      work_ = std::min(work_ + (t1 - pos), T);
      return;
    }
    split.communication += end - pos;
    pos = end;
    work_ = 0.0;
    iterations_ += 1.0;
    period_sum_ += pos - iteration_start_;
    iteration_start_ = pos;
    // Whole iterations that fit in the rest of the interval, in one go (sub-steps much longer
    // than an iteration cost O(1), not O(iterations)).
    const double compute_time = Tc / speed;
    const double communication_time = T - Tc;
    const double iteration_time = compute_time + communication_time;
    double n = std::floor((t1 - pos) / iteration_time);
    if (n >= 1.0 && pos + n * iteration_time > t1) n -= 1.0;
    if (n >= 1.0) {
      split.compute += n * compute_time;
      split.communication += n * communication_time;
      iterations_ += n;
      period_sum_ += n * iteration_time;
      pos += n * iteration_time;
      iteration_start_ = pos;
    }
  }
}

TrainingWorkload::Split TrainingWorkload::averaged(Split split, double speed) const noexcept {
  // A stalled job (speed 0) stays in its phase, as with phases.
  if (!average_power_ || !(speed > 0.0)) return split;
  const double compute_time = compute_duration_ / speed;
  const double iteration_time = compute_time + (period_ - compute_duration_);
  const double training = split.compute + split.communication;
  split.compute = training * (compute_time / iteration_time);
  split.communication = training - split.compute;
  return split;
}

void TrainingWorkload::addToRacks(const Split& split, double span,
                                  RackLoads& loads) const noexcept {
  const double busy = split.compute + split.communication + split.checkpoint;
  if (!(busy > 0.0)) return;
  // Shares of the sub-step: a phase over the whole sub-step has share t1 - t0 over t1 - t0,
  // exactly 1, and the others 0, so its power comes out exactly.
  const double f_compute = split.compute / span;
  const double f_communication = split.communication / span;
  const double f_checkpoint = split.checkpoint / span;
  const double f_busy = f_compute + f_communication + f_checkpoint;
  const std::span<const std::uint32_t> racks = this->racks();
  for (std::size_t k = 0; k < racks.size(); ++k) {
    const std::uint32_t r = racks[k];
    const PhasePowers& P = rack_P_[k];
    loads.busy[r] += f_busy;
    loads.gpu_P[r] +=
        f_compute * P.compute + f_communication * P.communication + f_checkpoint * P.checkpoint;
    loads.gpu_P_capped[r] += f_compute * P.compute_capped + f_communication * P.communication_capped
                             + f_checkpoint * P.checkpoint_capped;
  }
}

void TrainingWorkload::summarise(Summary& summary) const {
  if (!(tokens_per_iteration_ > 0.0)) return;
  const std::string k = "job_" + id() + "_";
  const std::string j = "Job " + id() + ": ";
  summary.add(SummaryItem{k + "iteration_compute_s", compute_duration_,
                          j + "compute phase of an iteration (derived)", "s", 1.0, 0.0});
  summary.add(SummaryItem{k + "iteration_communication_s", period_ - compute_duration_,
                          j + "exposed communication and bubble of an iteration (derived)", "s",
                          1.0, 0.0});
  summary.add(SummaryItem{k + "checkpoint_s", checkpoint_duration_,
                          j + "checkpoint write (derived)", "s", 1.0, 0.0});
  summary.add(SummaryItem{k + "training_tokens", tokens_per_iteration_ * iterations_,
                          j + "training tokens of the completed iterations", "", 1.0, 0.0});
  summary.add(SummaryItem{k + "delivered_flops", flops_per_iteration_ * iterations_,
                          j + "model FLOPs of the completed iterations", "FLOP", 1.0, 0.0});
}

void TrainingWorkload::visitState(StateArchive& a) {
  a.section("training job");
  a(start_, end_, work_, iteration_start_, iterations_, period_sum_, rng_, origin_, next_failure_,
    restart_end_, paused_, restart_end_unpaused_, saved_iterations_, saved_period_sum_, failures_,
    uptime_, unpowered_, power_restart_);
  a.trivialResizable(rack_P_);
}

}  // namespace racktwin::core
