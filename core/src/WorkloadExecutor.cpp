#include "racktwin/core/WorkloadExecutor.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/StateArchive.hpp"
#include "racktwin/core/Summary.hpp"

namespace racktwin::core {

namespace {

[[noreturn]] void rejectJob(const std::string& job, const std::string& what) {
  throw std::invalid_argument("training job '" + job + "': " + what);
}

bool isFraction(double x) {
  return x >= 0.0 && x <= 1.0;
}
bool isNonNegative(double x) {
  return std::isfinite(x) && x >= 0.0;
}

/// One independent stream per job (SplitMix64 of seed, salt and index, Steele et al. 2014), so
/// adding a job does not change the random draws of the others.
std::uint64_t streamSeed(std::uint64_t seed, std::uint64_t salt, std::size_t index) {
  std::uint64_t z = seed + salt + 0x9E3779B97F4A7C15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// Uniform in [0, 1) from the top 53 bits: the same stream on every platform.
double uniform(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Sub-step boundaries are computed (step start + k * h), so a time given in the scenario may
/// fall a few ulp off the boundary it means: the scheduler treats such times as equal.
double timeTolerance(double t) {
  return 1e-12 * std::max(1.0, std::abs(t));
}

}  // namespace

WorkloadExecutor::WorkloadExecutor(const SiteSpec& site, const SiteLayout& layout)
    : layout_(layout) {
  RACKTWIN_ASSERT(site.racks.size() == layout.rack_count, "layout built from another site");
  std::unordered_map<std::string, std::uint32_t> rack_index;
  for (std::size_t r = 0; r < layout.rack_count; ++r) {
    rack_index.emplace(layout.rack_ids[r], static_cast<std::uint32_t>(r));
    const RackTypeSpec& type = site.racks[r].type;
    RackPower power;
    power.gpu_P_idle = type.gpu.P_idle;
    power.gpu_P_max = type.gpu.P_max;
    power.gpu_P_throttled = type.gpu.throttled_power_fraction * type.gpu.P_max;
    power.gpu_P_leakage = type.gpu.P_leakage_reference;
    power.gpu_T_leakage = type.gpu.T_leakage_reference;
    power.gpu_leakage_coefficient = type.gpu.leakage_coefficient;
    power.cpu_P_idle = type.cpu.P_idle;
    power.cpu_P_busy = type.cpu_P_busy;
    power.switch_P_idle = type.nvswitch.P_idle;
    power.switch_P_busy = type.switch_P_busy;
    power.air_P =
        type.compute_trays * type.compute_tray_air_P + type.switch_trays * type.switch_tray_air_P;
    any_leakage_ = any_leakage_ || power.gpu_P_leakage > 0.0;
    rack_power_.push_back(power);
  }

  std::vector<std::uint8_t> seen(layout.rack_count, 0);
  std::vector<JobScheduler::Request> requests;  // in the order of scheduled_jobs_
  // A scheduled job reserves its entries of job_racks_ (filled when it starts) and queues.
  const auto queue = [&](Kind kind, std::size_t index, const std::string& what, std::uint32_t gpus,
                         double submit, double duration, std::uint32_t order) {
    if (!(std::isfinite(submit) && std::isfinite(duration) && duration > 0.0)) {
      throw std::invalid_argument(what
                                  + ": submit must be a number and duration a positive number");
    }
    const std::uint32_t racks = scheduledRacks(what, gpus);
    requests.push_back(JobScheduler::Request{submit, duration, racks});
    scheduled_jobs_.push_back(ScheduledJob{kind, static_cast<std::uint32_t>(index), order});
    job_racks_.resize(job_racks_.size() + racks, 0);
  };
  for (const TrainingJobSpec& spec : site.jobs) {
    Job job;
    job.id = spec.id;
    job.scheduled = spec.gpus > 0;
    if (job.scheduled) {
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
    if (spec.racks.empty() && !job.scheduled) rejectJob(spec.id, "names no rack");
    job.mtbf = spec.failure_mtbf;
    job.restart = spec.restart_duration;
    job.seed = streamSeed(site.simulation.seed, 0xF00DFA11ULL, jobs_.size());
    job.duration = spec.duration;
    job.submit = job.scheduled ? spec.submit : spec.start;
    job.start = job.scheduled ? kInf : spec.start;
    job.end = job.scheduled ? kInf : spec.start + spec.duration;
    job.compute_duration = spec.compute_duration;
    job.period = spec.compute_duration + spec.communication_duration;
    job.compute_fraction = spec.compute_power_fraction;
    job.communication_fraction = spec.communication_power_fraction;
    job.checkpoint_fraction = spec.checkpoint_power_fraction;
    job.checkpoint_interval = spec.checkpoint_interval;
    job.checkpoint_duration = spec.checkpoint_interval > 0.0 ? spec.checkpoint_duration : 0.0;
    job.rack_begin = static_cast<std::uint32_t>(job_racks_.size());
    if (job.scheduled) {
      queue(Kind::Training, jobs_.size(), "training job '" + spec.id + "'", spec.gpus, spec.submit,
            spec.duration, spec.order);
    }
    for (const ComponentId& rack : spec.racks) {
      const auto found = rack_index.find(rack.str());
      if (found == rack_index.end()) rejectJob(spec.id, "unknown rack '" + rack.str() + "'");
      if (seen[found->second] != 0) rejectJob(spec.id, "names rack '" + rack.str() + "' twice");
      seen[found->second] = 1;
      job_racks_.push_back(found->second);
    }
    job.rack_end = static_cast<std::uint32_t>(job_racks_.size());
    for (std::uint32_t k = job.rack_begin; k < job.rack_end; ++k)
      seen[job_racks_[k]] = 0;
    jobs_.push_back(std::move(job));
  }

  for (std::size_t i = 0; i < site.inference_jobs.size(); ++i) {
    const InferenceJobSpec& spec = site.inference_jobs[i];
    InferenceRacks racks;
    racks.id = spec.id;
    racks.rack_begin = static_cast<std::uint32_t>(job_racks_.size());
    if (spec.gpus > 0) {
      // Sized by the GPUs it asks for: its throughput does not depend on which racks it gets.
      const std::string what = "inference job '" + spec.id + "'";
      if (!spec.racks.empty()) {
        throw std::invalid_argument(what + ": names racks and asks for GPUs; give one");
      }
      queue(Kind::Inference, i, what, spec.gpus, spec.submit, spec.duration, spec.order);
      racks.rack_end = static_cast<std::uint32_t>(job_racks_.size());
      racks.scheduled = true;
      inference_.emplace_back(spec, spec.gpus, streamSeed(site.simulation.seed, 0, i));
      inference_racks_.push_back(std::move(racks));
      continue;
    }
    if (spec.racks.empty()) {
      throw std::invalid_argument("inference job '" + spec.id + "': names no rack");
    }
    std::uint32_t gpus = 0;
    for (const ComponentId& rack : spec.racks) {
      const auto found = rack_index.find(rack.str());
      if (found == rack_index.end() || seen[found->second] != 0) {
        throw std::invalid_argument("inference job '" + spec.id + "': unknown or repeated rack '"
                                    + rack.str() + "'");
      }
      seen[found->second] = 1;
      job_racks_.push_back(found->second);
      gpus += static_cast<std::uint32_t>(layout.rack_gpu_begin[found->second + 1]
                                         - layout.rack_gpu_begin[found->second]);
    }
    racks.rack_end = static_cast<std::uint32_t>(job_racks_.size());
    for (std::uint32_t k = racks.rack_begin; k < racks.rack_end; ++k)
      seen[job_racks_[k]] = 0;
    inference_.emplace_back(spec, gpus, streamSeed(site.simulation.seed, 0, i));
    inference_racks_.push_back(std::move(racks));
  }

  rack_replay_.assign(layout.rack_count, -1);
  rack_replay_share_.assign(layout.rack_count, 0.0);
  rack_replay_offset_.assign(layout.rack_count, 0);
  for (const ReplayJobSpec& spec : site.replay_jobs) {
    ReplayRacks racks;
    racks.id = spec.id;
    racks.rack_begin = static_cast<std::uint32_t>(job_racks_.size());
    if (spec.gpus > 0) {
      const std::string what = "replay job '" + spec.id + "'";
      if (!spec.racks.empty()) {
        throw std::invalid_argument(what + ": names racks and asks for GPUs; give one");
      }
      queue(Kind::Replay, replay_.size(), what, spec.gpus, spec.submit, spec.duration, spec.order);
      racks.rack_end = static_cast<std::uint32_t>(job_racks_.size());
      racks.scheduled = true;
      replay_.emplace_back(spec);
      replay_racks_.push_back(std::move(racks));
      continue;
    }
    if (spec.racks.empty()) {
      throw std::invalid_argument("replay job '" + spec.id + "': names no rack");
    }
    for (const ComponentId& rack : spec.racks) {
      const auto found = rack_index.find(rack.str());
      if (found == rack_index.end() || seen[found->second] != 0) {
        throw std::invalid_argument("replay job '" + spec.id + "': unknown or repeated rack '"
                                    + rack.str() + "'");
      }
      seen[found->second] = 1;
      job_racks_.push_back(found->second);
    }
    racks.rack_end = static_cast<std::uint32_t>(job_racks_.size());
    for (std::uint32_t k = racks.rack_begin; k < racks.rack_end; ++k)
      seen[job_racks_[k]] = 0;
    replay_.emplace_back(spec);
    replay_racks_.push_back(std::move(racks));
  }
  // Among the replay jobs that name racks, one per rack (as before scheduled replays existed;
  // a scheduled one's entries are placeholders until it starts).
  for (std::size_t a = 0; a < replay_racks_.size(); ++a) {
    if (replay_racks_[a].scheduled) continue;
    for (std::size_t b = a + 1; b < replay_racks_.size(); ++b) {
      if (replay_racks_[b].scheduled) continue;
      for (std::uint32_t k = replay_racks_[a].rack_begin; k < replay_racks_[a].rack_end; ++k) {
        for (std::uint32_t l = replay_racks_[b].rack_begin; l < replay_racks_[b].rack_end; ++l) {
          if (job_racks_[k] == job_racks_[l]) {
            throw std::invalid_argument("replay job '" + replay_racks_[b].id + "': rack '"
                                        + layout.rack_ids[job_racks_[k]]
                                        + "' is also replayed by job '" + replay_racks_[a].id
                                        + "'; one replay job per rack");
          }
        }
      }
    }
  }

  // Two jobs (training or inference) may share a rack only at different times.
  struct Use {
    const std::string* id;
    double start, end;
    std::uint32_t begin, end_rack;
  };
  std::vector<Use> uses;
  for (const Job& job : jobs_) {
    if (!job.scheduled)
      uses.push_back(Use{&job.id, job.start, job.end, job.rack_begin, job.rack_end});
  }
  for (std::size_t i = 0; i < inference_.size(); ++i) {
    if (inference_racks_[i].scheduled) continue;
    uses.push_back(Use{&inference_racks_[i].id, inference_[i].start(), inference_[i].end(),
                       inference_racks_[i].rack_begin, inference_racks_[i].rack_end});
  }
  for (std::size_t i = 0; i < replay_.size(); ++i) {
    if (replay_racks_[i].scheduled) continue;
    uses.push_back(Use{&replay_racks_[i].id, replay_[i].start(), replay_[i].end(),
                       replay_racks_[i].rack_begin, replay_racks_[i].rack_end});
  }
  for (std::size_t a = 0; a < uses.size(); ++a) {
    for (std::size_t b = a + 1; b < uses.size(); ++b) {
      const Use& ja = uses[a];
      const Use& jb = uses[b];
      if (!(std::max(ja.start, jb.start) < std::min(ja.end, jb.end))) continue;
      for (std::uint32_t k = ja.begin; k < ja.end_rack; ++k)
        seen[job_racks_[k]] = 1;
      for (std::uint32_t k = jb.begin; k < jb.end_rack; ++k) {
        if (seen[job_racks_[k]] != 0) {
          throw std::invalid_argument("job '" + *jb.id + "': shares rack '"
                                      + layout.rack_ids[job_racks_[k]] + "' with job '" + *ja.id
                                      + "' while both run");
        }
      }
      for (std::uint32_t k = ja.begin; k < ja.end_rack; ++k)
        seen[job_racks_[k]] = 0;
    }
  }

  if (!scheduled_jobs_.empty()) {
    // Cooling groups for placement: racks of one CDU (or one ring) in scenario order.
    std::vector<std::string> groups;
    std::vector<std::uint32_t> rack_group(layout.rack_count, 0);
    for (std::size_t r = 0; r < layout.rack_count; ++r) {
      const RackSpec& rack = site.racks[r];
      const std::string key = rack.cdu.empty() ? "ring " + rack.ring : "cdu " + rack.cdu;
      const auto found = std::find(groups.begin(), groups.end(), key);
      rack_group[r] = static_cast<std::uint32_t>(found - groups.begin());
      if (found == groups.end()) groups.push_back(key);
    }
    // Requests in scenario order, so that jobs submitted at one time queue in that order
    // whatever their kind (stable: jobs built without an order keep training, inference, replay).
    std::vector<std::uint32_t> by_order(scheduled_jobs_.size());
    std::iota(by_order.begin(), by_order.end(), 0U);
    std::stable_sort(by_order.begin(), by_order.end(), [this](std::uint32_t a, std::uint32_t b) {
      return scheduled_jobs_[a].order < scheduled_jobs_[b].order;
    });
    std::vector<JobScheduler::Request> ordered;
    std::vector<ScheduledJob> jobs;
    for (const std::uint32_t q : by_order) {
      ordered.push_back(requests[q]);
      jobs.push_back(scheduled_jobs_[q]);
    }
    scheduled_jobs_ = std::move(jobs);
    scheduler_.emplace(site.scheduler.policy == SchedulerSpec::Policy::Fifo
                           ? JobScheduler::Policy::Fifo
                           : JobScheduler::Policy::Backfill,
                       std::move(rack_group), std::move(ordered));
    for (const Use& use : uses) {
      for (std::uint32_t k = use.begin; k < use.end_rack; ++k)
        scheduler_->addFixedUse(job_racks_[k], use.start, use.end);
    }
  }

  job_rack_P_.assign(job_racks_.size(), PhasePowers{});
  for (const Job& job : jobs_) {
    if (!job.scheduled) setPhasePowers(job);
  }
  // Each replayed rack's first GPU's position among its job's GPUs (racks in the job's order).
  job_rack_gpu_offset_.assign(job_racks_.size(), 0);
  for (const ReplayRacks& racks : replay_racks_) {
    if (racks.scheduled) continue;
    std::uint32_t gpus = 0;
    for (std::uint32_t k = racks.rack_begin; k < racks.rack_end; ++k) {
      job_rack_gpu_offset_[k] = gpus;
      gpus += static_cast<std::uint32_t>(layout.rack_gpu_begin[job_racks_[k] + 1]
                                         - layout.rack_gpu_begin[job_racks_[k]]);
    }
  }
  rack_busy_.assign(layout.rack_count, 0.0);
  rack_shut_down_.assign(layout.rack_count, 0);
  rack_gpu_P_.assign(layout.rack_count, 0.0);
  rack_gpu_P_capped_.assign(layout.rack_count, 0.0);
  job_iterations_.assign(jobs_.size(), 0.0);
  job_racks_held_.assign(jobs_.size(), 0.0);
  inference_queue_.assign(inference_.size(), 0.0);
  inference_in_service_.assign(inference_.size(), 0.0);
  inference_tokens_per_s_.assign(inference_.size(), 0.0);
  gpu_P_demand_.assign(layout.gpu_count, 0.0);
  leak_T_.assign(layout.gpu_count, std::numeric_limits<double>::quiet_NaN());
  leak_P_.assign(layout.gpu_count, 0.0);
  rack_written_.assign(layout.rack_count, 0);
  rack_chips_written_.assign(layout.rack_count, 0);
  rack_written_replay_.assign(layout.rack_count, -1);
  rack_last_P_.assign(layout.rack_count, 0.0);
  rack_last_P_capped_.assign(layout.rack_count, 0.0);
  rack_last_busy_.assign(layout.rack_count, 0.0);
  seen_throttled_.assign(layout.gpu_count, 0);
  seen_shutdown_.assign(layout.gpu_count, 0);
  rack_inputs_changed_.assign(layout.rack_count, 1);
  rack_flags_clear_.assign(layout.rack_count, 0);
  seen_T_.assign(layout.gpu_count, 0.0);
  rack_min_speed_.assign(layout.rack_count, 0.0);
  seen_speed_.assign(layout.gpu_count, 0.0);
}

std::uint32_t WorkloadExecutor::scheduledRacks(const std::string& what, std::uint32_t gpus) const {
  // Whole racks: the GPUs asked for must fill racks of one size.
  const std::size_t n = layout_.rack_count;
  const auto per_rack = static_cast<std::uint32_t>(n > 0 ? layout_.rack_gpu_begin[1] : 0);
  for (std::size_t r = 0; r < n; ++r) {
    if (layout_.rack_gpu_begin[r + 1] - layout_.rack_gpu_begin[r] != per_rack) {
      throw std::invalid_argument(what
                                  + ": asks for GPUs, but the site's racks differ in GPU count");
    }
  }
  if (per_rack == 0 || gpus % per_rack != 0 || gpus / per_rack > n) {
    throw std::invalid_argument(what + ": asks for " + std::to_string(gpus)
                                + " GPUs; expected a multiple of the " + std::to_string(per_rack)
                                + " GPUs of a rack, at most the site's " + std::to_string(n)
                                + " racks");
  }
  return gpus / per_rack;
}

bool WorkloadExecutor::applyEvent(const EventSpec& event, SiteState& /*state*/) {
  if (event.kind != EventKind::PauseJob && event.kind != EventKind::ResumeJob) return false;
  for (Job& job : jobs_) {
    if (job.id != event.target) continue;
    const double t = event.time;
    if (event.kind == EventKind::PauseJob && !job.paused) {
      // Paused like a restart without end: the GPUs idle, the job makes no progress.
      job.paused = true;
      job.restart_end_unpaused = job.restart_end;
      job.restart_end = std::numeric_limits<double>::infinity();
    } else if (event.kind == EventKind::ResumeJob && job.paused) {
      // As at a restart's end: the iteration in flight starts again, the checkpoint schedule
      // counts from now, and a restart that the pause interrupted goes on to its own end.
      job.paused = false;
      job.restart_end = job.restart_end_unpaused;
      if (!(job.restart_end > t)) {
        job.origin = std::max(t, job.start);
        job.iteration_start = job.origin;
        drawFailure(job, job.origin);
      }
    }
    return true;
  }
  return false;  // not a training job of this executor: another model may know the target
}

const std::string& WorkloadExecutor::jobId(std::size_t job) const {
  RACKTWIN_ASSERT(job < jobs_.size(), "job index out of range");
  return jobs_[job].id;
}

std::uint64_t WorkloadExecutor::jobIterations(std::size_t job) const {
  RACKTWIN_ASSERT(job < jobs_.size(), "job index out of range");
  return static_cast<std::uint64_t>(job_iterations_[job]);
}

std::uint64_t WorkloadExecutor::jobFailures(std::size_t job) const {
  RACKTWIN_ASSERT(job < jobs_.size(), "job index out of range");
  return jobs_[job].failures;
}

double WorkloadExecutor::jobUptime(std::size_t job) const {
  RACKTWIN_ASSERT(job < jobs_.size(), "job index out of range");
  return jobs_[job].uptime;
}

std::uint64_t WorkloadExecutor::totalFailures() const noexcept {
  std::uint64_t n = 0;
  for (const Job& job : jobs_)
    n += job.failures;
  return n;
}

bool WorkloadExecutor::jobScheduled(std::size_t job) const {
  RACKTWIN_ASSERT(job < jobs_.size(), "job index out of range");
  return jobs_[job].scheduled;
}

double WorkloadExecutor::jobSubmit(std::size_t job) const {
  RACKTWIN_ASSERT(job < jobs_.size(), "job index out of range");
  return jobs_[job].submit;
}

std::optional<double> WorkloadExecutor::jobStart(std::size_t job) const {
  RACKTWIN_ASSERT(job < jobs_.size(), "job index out of range");
  if (!(jobs_[job].start < kInf)) return std::nullopt;
  return jobs_[job].start;
}

std::span<const std::uint32_t> WorkloadExecutor::jobRacks(std::size_t job) const {
  RACKTWIN_ASSERT(job < jobs_.size(), "job index out of range");
  const Job& j = jobs_[job];
  if (!(j.start < kInf)) return {};
  return {job_racks_.data() + j.rack_begin, j.rack_end - j.rack_begin};
}

std::size_t WorkloadExecutor::jobsCompleted() const noexcept {
  const double now = last_time_ + timeTolerance(last_time_);
  std::size_t n = 0;
  for (const Job& job : jobs_)
    n += job.end <= now ? 1 : 0;
  for (const InferenceJob& job : inference_)
    n += job.end() <= now ? 1 : 0;
  for (const ReplayJob& job : replay_)
    n += job.end() <= now ? 1 : 0;
  return n;
}

std::size_t WorkloadExecutor::jobsQueued() const noexcept {
  if (!scheduler_) return 0;
  std::size_t n = 0;
  for (std::size_t q = 0; q < scheduler_->requestCount(); ++q)
    n += !scheduler_->started(q) && scheduler_->request(q).submit < last_time_ ? 1 : 0;
  return n;
}

std::optional<double> WorkloadExecutor::meanJobWait() const noexcept {
  if (!scheduler_) return std::nullopt;
  double wait = 0.0;
  std::size_t started = 0;
  for (std::size_t q = 0; q < scheduler_->requestCount(); ++q) {
    if (!scheduler_->started(q)) continue;
    wait += scheduler_->startTime(q) - scheduler_->request(q).submit;
    ++started;
  }
  if (started == 0) return std::nullopt;
  return wait / static_cast<double>(started);
}

std::uint64_t WorkloadExecutor::totalIterations() const noexcept {
  std::uint64_t total = 0;
  for (const double n : job_iterations_)
    total += static_cast<std::uint64_t>(n);
  return total;
}

const InferenceJob& WorkloadExecutor::inferenceJob(std::size_t job) const {
  RACKTWIN_ASSERT(job < inference_.size(), "inference job index out of range");
  return inference_[job];
}

std::span<const std::uint32_t> WorkloadExecutor::inferenceJobRacks(std::size_t job) const {
  RACKTWIN_ASSERT(job < inference_.size(), "inference job index out of range");
  if (!(inference_[job].start() < kInf)) return {};
  const InferenceRacks& racks = inference_racks_[job];
  return {job_racks_.data() + racks.rack_begin, racks.rack_end - racks.rack_begin};
}

const ReplayJob& WorkloadExecutor::replayJob(std::size_t job) const {
  RACKTWIN_ASSERT(job < replay_.size(), "replay job index out of range");
  return replay_[job];
}

std::span<const std::uint32_t> WorkloadExecutor::replayJobRacks(std::size_t job) const {
  RACKTWIN_ASSERT(job < replay_.size(), "replay job index out of range");
  if (!(replay_[job].start() < kInf)) return {};
  const ReplayRacks& racks = replay_racks_[job];
  return {job_racks_.data() + racks.rack_begin, racks.rack_end - racks.rack_begin};
}

std::uint64_t WorkloadExecutor::requestsServed() const noexcept {
  std::uint64_t n = 0;
  for (const InferenceJob& job : inference_)
    n += job.requestsServed();
  return n;
}

std::uint64_t WorkloadExecutor::tokensGenerated() const noexcept {
  std::uint64_t n = 0;
  for (const InferenceJob& job : inference_)
    n += job.tokensGenerated();
  return n;
}

std::optional<double> WorkloadExecutor::meanQueueingDelay() const noexcept {
  double delay = 0.0;
  std::uint64_t started = 0;
  for (const InferenceJob& job : inference_) {
    delay += job.queueingDelaySum();
    started += job.requestsStarted();
  }
  if (started == 0) return std::nullopt;
  return delay / static_cast<double>(started);
}

std::optional<double> WorkloadExecutor::meanIterationPeriod() const noexcept {
  double periods = 0.0;
  double count = 0.0;
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    periods += jobs_[j].period_sum;
    count += job_iterations_[j];
  }
  if (count == 0.0) return std::nullopt;
  return periods / count;
}

void WorkloadExecutor::initialize(SiteState& state) {
  RACKTWIN_ASSERT(state.gpu_P_demand.size() == layout_.gpu_count
                      && state.gpu_speed.size() == layout_.gpu_count
                      && state.cpu_P_demand.size() == layout_.cpu_count
                      && state.switch_P_demand.size() == layout_.switch_count
                      && state.rack_air_P_demand.size() == layout_.rack_count,
                  "SiteState not sized for this layout");
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    Job& job = jobs_[j];
    if (job.scheduled) job.start = job.end = kInf;  // until the scheduler places it
    job.work = 0.0;
    job.iteration_start = std::max(job.start, state.time);
    job.period_sum = 0.0;
    job_iterations_[j] = 0.0;
    job.rng.seed(job.seed);
    job.origin = job.start;
    job.restart_end = -kInf;
    job.paused = false;
    job.saved_iterations = job.saved_period_sum = 0.0;
    job.failures = 0;
    job.uptime = 0.0;
    job.unpowered = false;
    job.power_restart = 0.0;
    if (!job.scheduled) drawFailure(job, job.start);
  }
  // Scheduled jobs wait (a window at +inf) until runScheduler places them.
  for (std::size_t i = 0; i < replay_.size(); ++i) {
    if (replay_racks_[i].scheduled) {
      replay_[i].setStart(kInf);
    } else {
      replay_[i].reset();
    }
  }
  for (std::size_t i = 0; i < inference_.size(); ++i) {
    if (inference_racks_[i].scheduled) {
      inference_[i].setStart(kInf);
    } else {
      inference_[i].reset();
    }
    inference_queue_[i] = inference_in_service_[i] = inference_tokens_per_s_[i] = 0.0;
  }
  last_time_ = state.time;
  if (scheduler_) {
    scheduler_->reset();
    for (std::size_t r = 0; r < layout_.rack_count; ++r) {
      const std::size_t g0 = layout_.rack_gpu_begin[r];
      noteRackShutdown(r, state.gpu_shutdown.data() + g0, layout_.rack_gpu_begin[r + 1] - g0);
    }
    noteRacksDown(state);
    runScheduler(state.time);
  }
  // Everything is written afresh (the air loads too), from inputs read afresh.
  written_to_ = nullptr;
  checkTarget(state);
  scanInputs(state);
  inputs_may_change_ = true;  // models initialised after this one may publish their inputs
  // The demand at the instant state.time: a unit weight on the phase each job is in.
  clearRackSums();
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    const Job& job = jobs_[j];
    const bool active = state.time >= job.start && state.time < job.end;
    job_racks_held_[j] = active ? static_cast<double>(job.rack_end - job.rack_begin) : 0.0;
    addToRacks(job, phaseAt(job, state.time), 1.0);
  }
  for (std::size_t i = 0; i < replay_.size(); ++i)
    addReplayToRacks(i, replay_[i].sampleAt(state.time));
  writeDemands(state);
}

void WorkloadExecutor::checkTarget(const SiteState& state) noexcept {
  if (written_to_ == state.gpu_P_demand.data()) return;
  written_to_ = state.gpu_P_demand.data();
  std::fill(rack_written_.begin(), rack_written_.end(), 0);
  std::fill(rack_chips_written_.begin(), rack_chips_written_.end(), 0);
  inputs_valid_ = false;
}

void WorkloadExecutor::scanInputs(const SiteState& state) noexcept {
  // The inputs change once per thermal step: most sub-steps end at these four comparisons.
  const std::size_t G = layout_.gpu_count;
  if (inputs_valid_ && std::memcmp(state.gpu_throttled.data(), seen_throttled_.data(), G) == 0
      && std::memcmp(state.gpu_shutdown.data(), seen_shutdown_.data(), G) == 0
      && std::memcmp(state.gpu_speed.data(), seen_speed_.data(), G * sizeof(double)) == 0
      && (!any_leakage_
          || std::memcmp(state.gpu_T_junction.data(), seen_T_.data(), G * sizeof(double)) == 0)) {
    return;
  }
  for (std::size_t r = 0; r < layout_.rack_count; ++r) {
    const std::size_t g0 = layout_.rack_gpu_begin[r];
    const std::size_t n = layout_.rack_gpu_begin[r + 1] - g0;
    bool changed = !inputs_valid_;
    bool flags = false;
    const std::uint8_t* throttled = state.gpu_throttled.data() + g0;
    if (!inputs_valid_ || std::memcmp(throttled, seen_throttled_.data() + g0, n) != 0) {
      std::memcpy(seen_throttled_.data() + g0, throttled, n);
      changed = flags = true;
    }
    const std::uint8_t* shutdown = state.gpu_shutdown.data() + g0;
    if (!inputs_valid_ || std::memcmp(shutdown, seen_shutdown_.data() + g0, n) != 0) {
      std::memcpy(seen_shutdown_.data() + g0, shutdown, n);
      changed = flags = true;
      // The scheduler reads it at the next sub-step, as it did when the demands were compared.
      if (scheduler_) noteRackShutdown(r, shutdown, n);
    }
    if (flags) {
      std::uint8_t any = 0;
      for (std::size_t k = 0; k < n; ++k)
        any |= throttled[k] | shutdown[k];
      rack_flags_clear_[r] = any == 0 ? 1 : 0;
    }
    const double* v = state.gpu_speed.data() + g0;
    if (!inputs_valid_ || std::memcmp(v, seen_speed_.data() + g0, n * sizeof(double)) != 0) {
      double slowest = std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < n; ++i)
        slowest = v[i] < slowest ? v[i] : slowest;  // as std::min: a NaN speed is ignored
      std::memcpy(seen_speed_.data() + g0, v, n * sizeof(double));
      rack_min_speed_[r] = slowest;
    }
    const double* T_j = state.gpu_T_junction.data() + g0;
    if (any_leakage_
        && (!inputs_valid_ || std::memcmp(T_j, seen_T_.data() + g0, n * sizeof(double)) != 0)) {
      std::memcpy(seen_T_.data() + g0, T_j, n * sizeof(double));
      changed = changed || rack_power_[r].gpu_P_leakage > 0.0;
    }
    if (changed) rack_inputs_changed_[r] = 1;
  }
  inputs_valid_ = true;
}

void WorkloadExecutor::placeRacks(std::uint32_t q, std::uint32_t begin) noexcept {
  const std::span<const std::uint32_t> racks = scheduler_->racks(q);
  std::copy(racks.begin(), racks.end(), job_racks_.begin() + begin);
  // A replay's trace GPUs follow the racks in the order the placement chose them.
  std::uint32_t gpus = 0;
  for (std::size_t k = 0; k < racks.size(); ++k) {
    job_rack_gpu_offset_[begin + k] = gpus;
    gpus += static_cast<std::uint32_t>(layout_.rack_gpu_begin[racks[k] + 1]
                                       - layout_.rack_gpu_begin[racks[k]]);
  }
}

void WorkloadExecutor::runScheduler(double now) noexcept {
  for (const std::uint32_t q : scheduler_->schedule(now, timeTolerance(now))) {
    const ScheduledJob placed = scheduled_jobs_[q];
    if (placed.kind == Kind::Inference) {
      placeRacks(q, inference_racks_[placed.index].rack_begin);
      inference_[placed.index].setStart(now);  // its requests arrive from now on
      continue;
    }
    if (placed.kind == Kind::Replay) {
      placeRacks(q, replay_racks_[placed.index].rack_begin);
      replay_[placed.index].setStart(now);
      continue;
    }
    Job& job = jobs_[placed.index];
    job.start = now;
    job.end = now + job.duration;
    placeRacks(q, job.rack_begin);
    setPhasePowers(job);
    job.origin = now;
    job.iteration_start = now;
    drawFailure(job, now);
  }
  next_schedule_ = scheduler_->nextEvent();
  racks_changed_ = false;
  jobs_queued_ = static_cast<double>(scheduler_->queued());
}

void WorkloadExecutor::noteRackShutdown(std::size_t r, const std::uint8_t* shutdown,
                                        std::size_t n) noexcept {
  bool down = false;
  for (std::size_t k = 0; k < n; ++k)
    down = down || shutdown[k] != 0;
  rack_shut_down_[r] = down ? 1 : 0;
}

// A rack takes no new job while one of its GPUs is shut down or the rack has lost power: O(racks)
// per sub-step, and the scheduler runs only when a rack's state flips.
void WorkloadExecutor::noteRacksDown(const SiteState& state) noexcept {
  for (std::size_t r = 0; r < layout_.rack_count; ++r) {
    const bool down = rack_shut_down_[r] != 0 || state.rack_powered[r] == 0;
    const auto rack = static_cast<std::uint32_t>(r);
    if (down != scheduler_->rackDown(rack)) {
      scheduler_->setRackDown(rack, down);
      racks_changed_ = true;
    }
  }
}

void WorkloadExecutor::advance(double t, double dt, SiteState& state) {
  RACKTWIN_ASSERT(dt > 0.0, "advance needs dt > 0");
  checkTarget(state);
  // Scheduling events fall on sub-step boundaries: a job submitted, or racks freed, inside a
  // sub-step starts at the next one.
  if (scheduler_) noteRacksDown(state);
  if (scheduler_ && (racks_changed_ || t + timeTolerance(t) >= next_schedule_)) runScheduler(t);
  // The slow models write the GPU inputs between macro steps, so only a sub-step that follows a
  // macro step's last one (or a driver that does not sub-step) can see them changed.
  if (inputs_may_change_ || !inputs_valid_) scanInputs(state);
  inputs_may_change_ = state.last_substep;
  const double t1 = t + dt;
  // The sub-step's length as the phase times measure it, so that a phase filling the sub-step
  // has a share of exactly 1.
  const double span = t1 - t;
  last_time_ = t1;
  clearRackSums();
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    const Job& job = jobs_[j];
    const bool active = t1 > job.start && t < job.end;
    job_racks_held_[j] = active ? static_cast<double>(job.rack_end - job.rack_begin) : 0.0;
    if (!active) continue;
    // Power as the electrical model left it at the end of the last sub-step.
    if (racksPowered(job.rack_begin, job.rack_end, state) == job.unpowered) {
      if (job.unpowered) {
        restorePower(jobs_[j], t);
      } else {
        losePower(j, t);
      }
    }
    const double speed = slowestSpeed(job.rack_begin, job.rack_end, job.compute_fraction, state);
    const Split split = runJob(j, t, t1, speed);
    addToRacks(job, split, span);
  }
  for (std::size_t i = 0; i < inference_.size(); ++i) {
    InferenceJob& job = inference_[i];
    if (!(t1 > job.start() && t < job.end())) continue;
    const InferenceRacks& racks = inference_racks_[i];
    const double speed =
        slowestSpeed(racks.rack_begin, racks.rack_end, job.busyPowerFraction(), state);
    addInferenceToRacks(i, job.run(t, t1, speed) / span);
    inference_queue_[i] = static_cast<double>(job.queueLength());
    inference_in_service_[i] = static_cast<double>(job.inService());
    inference_tokens_per_s_[i] = static_cast<double>(job.tokensLastRun()) / dt;
  }
  for (std::size_t i = 0; i < replay_.size(); ++i) {
    ReplayJob& job = replay_[i];
    if (!(t1 > job.start() && t < job.end())) continue;
    const double active = job.run(t, t1);
    // Active through the whole sub-step: a share of exactly 1, whatever the job's start.
    const double share = t >= job.start() && t1 <= job.end() ? 1.0 : active / span;
    addReplayToRacks(i, active > 0.0 ? share : 0.0);
  }
  writeDemands(state);
}

double WorkloadExecutor::slowestSpeed(std::uint32_t begin, std::uint32_t end, double fraction,
                                      const SiteState& state) noexcept {
  double speed = std::numeric_limits<double>::infinity();
  for (std::uint32_t k = begin; k < end; ++k) {
    const std::uint32_t r = job_racks_[k];
    speed = std::min(speed, rack_min_speed_[r]);  // from scanInputs
    // A power cap below the job's compute power slows its GPUs: clocks fall until the power
    // meets the cap, with P ~ f^3 (the throttle law), so speed = (cap / P_compute)^(1/3).
    const double P_compute = fraction * rack_power_[r].gpu_P_max;
    const double limit = state.rack_gpu_P_limit[r];
    if (limit < P_compute) speed = std::min(speed, std::cbrt(std::max(limit, 0.0) / P_compute));
  }
  // No GPU (or a non-number) makes no progress rather than infinite progress.
  return speed >= 0.0 && std::isfinite(speed) ? speed : 0.0;
}

double WorkloadExecutor::checkpointCycle(const Job& job, double time) noexcept {
  // k with start + k * interval <= time < start + (k + 1) * interval, robust to the rounding of
  // the division (the loop in runJob relies on it).
  const double interval = job.checkpoint_interval;
  double k = std::floor((time - job.origin) / interval);
  if (k < 0.0) k = 0.0;
  if (job.origin + (k + 1.0) * interval <= time) k += 1.0;
  if (k > 0.0 && job.origin + k * interval > time) k -= 1.0;
  return k;
}

WorkloadExecutor::Split WorkloadExecutor::phaseAt(const Job& job, double time) const noexcept {
  Split split;
  if (!(time >= job.start && time < job.end) || time < job.restart_end) return split;
  if (job.checkpoint_interval > 0.0) {
    const double k = checkpointCycle(job, time);
    if (k >= 1.0 && time < job.origin + k * job.checkpoint_interval + job.checkpoint_duration) {
      split.checkpoint = 1.0;
      return split;
    }
  }
  if (job.work < job.compute_duration) {
    split.compute = 1.0;
  } else {
    split.communication = 1.0;
  }
  return split;
}

WorkloadExecutor::Split WorkloadExecutor::runJob(std::size_t j, double t0, double t1,
                                                 double speed) noexcept {
  Split split;
  const Job& job = jobs_[j];
  const double a = std::max(t0, job.start);
  const double b = std::min(t1, job.end);
  if (!(b > a)) return split;
  // Cut the interval at the restart's end and at failures; between them, the checkpoint schedule.
  double pos = a;
  while (pos < b) {
    Job& run = jobs_[j];
    if (pos < run.restart_end) {
      // Restarting: the GPUs idle (no phase time), no progress.
      const double end = std::min(run.restart_end, b);
      pos = end;
      if (end == run.restart_end) {
        run.origin = end;
        run.iteration_start = end;
        drawFailure(run, end);
      }
      continue;
    }
    const double end = std::min(run.next_failure, b);
    runSchedule(j, pos, end, speed, split);
    run.uptime += end - pos;
    pos = end;
    if (end == run.next_failure && end < run.end) {
      failJob(j);
      run.restart_end = end + run.restart;
      if (!(run.restart > 0.0)) {
        run.origin = end;
        run.iteration_start = end;
        drawFailure(run, end);
      }
    }
  }
  return split;
}

void WorkloadExecutor::drawFailure(Job& job, double from) noexcept {
  job.next_failure = job.mtbf > 0.0 ? from - job.mtbf * std::log1p(-uniform(job.rng)) : kInf;
}

void WorkloadExecutor::failJob(std::size_t j) noexcept {
  // Back to the last checkpoint; the iteration in flight is lost too.
  Job& job = jobs_[j];
  job.failures += 1;
  job_iterations_[j] = job.saved_iterations;
  job.period_sum = job.saved_period_sum;
  job.work = 0.0;
  job.next_failure = kInf;
}

bool WorkloadExecutor::racksPowered(std::uint32_t begin, std::uint32_t end,
                                    const SiteState& state) const noexcept {
  std::uint8_t all = 1;
  for (std::uint32_t k = begin; k < end; ++k)
    all &= state.rack_powered[job_racks_[k]] != 0 ? 1 : 0;
  return all != 0;
}

void WorkloadExecutor::losePower(std::size_t j, double t) noexcept {
  Job& job = jobs_[j];
  job.unpowered = true;
  if (!(t > job.start)) {
    // Not started yet: it waits for power and then starts afresh, owing no restart.
    job.power_restart = 0.0;
  } else {
    job.power_restart = job.restart;
    // Running (outside a restart, paused or not): its processes die with the power. Within a
    // restart there is nothing left to lose.
    const double restart_end = job.paused ? job.restart_end_unpaused : job.restart_end;
    if (!(restart_end > t)) failJob(j);
  }
  job.next_failure = kInf;
  // Held like a pause: no progress until restorePower.
  (job.paused ? job.restart_end_unpaused : job.restart_end) = kInf;
}

void WorkloadExecutor::restorePower(Job& job, double t) noexcept {
  job.unpowered = false;
  const double from = std::max(t, job.start);
  const double end = from + job.power_restart;
  if (job.paused) {
    // ResumeJob finishes the restart (or starts the job afresh when it has ended).
    job.restart_end_unpaused = end;
    return;
  }
  job.restart_end = end;
  if (!(job.power_restart > 0.0)) {
    // No restart to wait for: the iteration and the checkpoint schedule start now (runJob does
    // this at a restart's end).
    job.origin = from;
    job.iteration_start = from;
    drawFailure(job, from);
  }
}

void WorkloadExecutor::runSchedule(std::size_t j, double a, double b, double speed,
                                   Split& split) noexcept {
  Job& job = jobs_[j];
  if (!(b > a)) return;
  if (!(job.checkpoint_interval > 0.0)) {
    // Without checkpoints a failure loses every iteration since the start.
    train(j, a, b, speed, split);
    return;
  }
  // Walk the checkpoint schedule: training until origin + (k+1) I, then a checkpoint until
  // origin + (k+1) I + D. Every pass ends at b or at a later boundary, so the loop terminates.
  const double interval = job.checkpoint_interval;
  const double duration = job.checkpoint_duration;
  double k = checkpointCycle(job, a);
  bool in_checkpoint = k >= 1.0 && a < job.origin + k * interval + duration;
  double pos = a;
  while (pos < b) {
    const double boundary =
        in_checkpoint ? job.origin + k * interval + duration : job.origin + (k + 1.0) * interval;
    const double end = std::min(boundary, b);
    if (in_checkpoint) {
      split.checkpoint += end - pos;
    } else {
      train(j, pos, end, speed, split);
    }
    pos = end;
    if (end == boundary) {
      if (in_checkpoint) {
        in_checkpoint = false;
        // The checkpoint is complete: the iterations done so far survive a failure.
        job.saved_iterations = job_iterations_[j];
        job.saved_period_sum = job.period_sum;
      } else {
        k += 1.0;
        in_checkpoint = duration > 0.0;
        if (!in_checkpoint) {
          job.saved_iterations = job_iterations_[j];
          job.saved_period_sum = job.period_sum;
        }
      }
    }
  }
}

void WorkloadExecutor::train(std::size_t j, double t0, double t1, double speed,
                             Split& split) noexcept {
  Job& job = jobs_[j];
  const double Tc = job.compute_duration;
  const double T = job.period;
  if (!(speed > 0.0)) {
    // Stalled: the GPUs stay in the phase they are in.
    (job.work < Tc ? split.compute : split.communication) += t1 - t0;
    return;
  }
  double pos = t0;
  while (pos < t1) {
    if (job.work < Tc) {
      const double end = pos + (Tc - job.work) / speed;
      if (end > t1) {
        split.compute += t1 - pos;
        job.work = std::min(job.work + (t1 - pos) * speed, Tc);
        return;
      }
      split.compute += end - pos;
      job.work = Tc;
      pos = end;
      continue;
    }
    // Communication is set by the network, not the GPU clocks: it runs at full speed.
    const double end = pos + (T - job.work);
    if (end > t1) {
      split.communication += t1 - pos;
      job.work = std::min(job.work + (t1 - pos), T);
      return;
    }
    split.communication += end - pos;
    pos = end;
    job.work = 0.0;
    job_iterations_[j] += 1.0;
    job.period_sum += pos - job.iteration_start;
    job.iteration_start = pos;
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
      job_iterations_[j] += n;
      job.period_sum += n * iteration_time;
      pos += n * iteration_time;
      job.iteration_start = pos;
    }
  }
}

void WorkloadExecutor::clearRackSums() noexcept {
  std::fill(rack_busy_.begin(), rack_busy_.end(), 0.0);
  std::fill(rack_gpu_P_.begin(), rack_gpu_P_.end(), 0.0);
  std::fill(rack_gpu_P_capped_.begin(), rack_gpu_P_capped_.end(), 0.0);
  std::fill(rack_replay_.begin(), rack_replay_.end(), -1);
}

void WorkloadExecutor::addReplayToRacks(std::size_t i, double share) noexcept {
  if (!(share > 0.0)) return;
  const ReplayRacks& racks = replay_racks_[i];
  for (std::uint32_t k = racks.rack_begin; k < racks.rack_end; ++k) {
    const std::uint32_t r = job_racks_[k];
    rack_busy_[r] += share;
    rack_replay_[r] = static_cast<std::int32_t>(i);
    rack_replay_share_[r] = share;
    rack_replay_offset_[r] = job_rack_gpu_offset_[k];
  }
}

void WorkloadExecutor::addToRacks(const Job& job, const Split& split, double span) noexcept {
  const double busy = split.compute + split.communication + split.checkpoint;
  if (!(busy > 0.0)) return;
  // Shares of the sub-step: a phase over the whole sub-step has share t1 - t0 over t1 - t0,
  // exactly 1, and the others 0, so its power comes out exactly.
  const double f_compute = split.compute / span;
  const double f_communication = split.communication / span;
  const double f_checkpoint = split.checkpoint / span;
  const double f_busy = f_compute + f_communication + f_checkpoint;
  for (std::uint32_t k = job.rack_begin; k < job.rack_end; ++k) {
    const std::uint32_t r = job_racks_[k];
    const PhasePowers& P = job_rack_P_[k];
    rack_busy_[r] += f_busy;
    rack_gpu_P_[r] +=
        f_compute * P.compute + f_communication * P.communication + f_checkpoint * P.checkpoint;
    rack_gpu_P_capped_[r] += f_compute * P.compute_capped + f_communication * P.communication_capped
                             + f_checkpoint * P.checkpoint_capped;
  }
}

void WorkloadExecutor::setPhasePowers(const Job& job) noexcept {
  for (std::uint32_t k = job.rack_begin; k < job.rack_end; ++k) {
    const RackPower& p = rack_power_[job_racks_[k]];
    PhasePowers& P = job_rack_P_[k];
    P.compute = std::max(p.gpu_P_idle, job.compute_fraction * p.gpu_P_max);
    P.communication = std::max(p.gpu_P_idle, job.communication_fraction * p.gpu_P_max);
    P.checkpoint = std::max(p.gpu_P_idle, job.checkpoint_fraction * p.gpu_P_max);
    P.compute_capped = std::min(P.compute, p.gpu_P_throttled);
    P.communication_capped = std::min(P.communication, p.gpu_P_throttled);
    P.checkpoint_capped = std::min(P.checkpoint, p.gpu_P_throttled);
  }
}

void WorkloadExecutor::addInferenceToRacks(std::size_t i, double busy) noexcept {
  if (!(busy > 0.0)) return;
  const InferenceRacks& racks = inference_racks_[i];
  const double fraction = inference_[i].busyPowerFraction();
  for (std::uint32_t k = racks.rack_begin; k < racks.rack_end; ++k) {
    const std::uint32_t r = job_racks_[k];
    const RackPower& p = rack_power_[r];
    // P_idle + u (P_busy - P_idle) averaged over the sub-step: busy = the mean of u, so the
    // busy share at P_busy plus the rest at P_idle (filled in by writeDemands).
    const double P_busy = std::max(p.gpu_P_idle, fraction * p.gpu_P_max);
    rack_busy_[r] += busy;
    rack_gpu_P_[r] += busy * P_busy;
    rack_gpu_P_capped_[r] += busy * std::min(P_busy, p.gpu_P_throttled);
  }
}

void WorkloadExecutor::writeDemands(SiteState& state) noexcept {
  for (std::size_t r = 0; r < layout_.rack_count; ++r) {
    const RackPower& p = rack_power_[r];
    const double busy = std::min(rack_busy_[r], 1.0);
    const double idle = 1.0 - busy;
    if (rack_replay_[r] >= 0) {
      writeReplayDemands(r, state);
    } else {
      const double P_gpu = rack_gpu_P_[r] + idle * p.gpu_P_idle;
      const double P_gpu_capped =
          rack_gpu_P_capped_[r] + idle * std::min(p.gpu_P_idle, p.gpu_P_throttled);
      if (rack_written_[r] != 1 || rack_inputs_changed_[r] != 0 || P_gpu != rack_last_P_[r]
          || P_gpu_capped != rack_last_P_capped_[r]) {
        writeRackDemands(r, P_gpu, P_gpu_capped, state);
      }
    }
    rack_inputs_changed_[r] = 0;
    if (rack_chips_written_[r] != 0 && busy == rack_last_busy_[r]) continue;
    rack_chips_written_[r] = 1;
    rack_last_busy_[r] = busy;
    const double P_cpu = busy * p.cpu_P_busy + idle * p.cpu_P_idle;
    for (std::size_t c = layout_.rack_cpu_begin[r]; c < layout_.rack_cpu_begin[r + 1]; ++c) {
      state.cpu_P_demand[c] = P_cpu;
    }
    const double P_switch = busy * p.switch_P_busy + idle * p.switch_P_idle;
    for (std::size_t w = layout_.rack_switch_begin[r]; w < layout_.rack_switch_begin[r + 1]; ++w) {
      state.switch_P_demand[w] = P_switch;
    }
    state.rack_air_P_demand[r] = p.air_P;
  }
}

void WorkloadExecutor::writeReplayDemands(std::size_t r, SiteState& state) noexcept {
  const ReplayJob& job = replay_[static_cast<std::size_t>(rack_replay_[r])];
  const std::span<const std::uint32_t> changed = job.changed();
  const double share = rack_replay_share_[r];
  // Only the GPUs whose trace GPU changed, unless the rack's share, inputs or mode changed.
  const bool all = rack_written_[r] != 2 || rack_written_replay_[r] != rack_replay_[r]
                   || rack_inputs_changed_[r] != 0 || share != rack_last_P_[r];
  if (!all && changed.empty()) return;
  rack_written_[r] = 2;
  rack_written_replay_[r] = rack_replay_[r];
  rack_last_P_[r] = share;
  const RackPower& p = rack_power_[r];
  const double* P_trace = job.power().data();
  const std::size_t n = job.traceGpus();
  const double f = std::min(share, 1.0);
  const double P_idle_share = (1.0 - f) * p.gpu_P_idle;
  const double cap = p.gpu_P_throttled;
  const std::size_t g0 = layout_.rack_gpu_begin[r];
  const std::size_t count = layout_.rack_gpu_begin[r + 1] - g0;
  const std::uint8_t* throttled = state.gpu_throttled.data() + g0;
  const std::uint8_t* shutdown = state.gpu_shutdown.data() + g0;
  double* out = state.gpu_P_demand.data() + g0;
  double* view = gpu_P_demand_.data() + g0;
  const auto write = [&](std::size_t k, std::size_t trace_gpu) {
    double P = P_trace[trace_gpu] * f + P_idle_share;
    P = throttled[k] != 0 && P > cap ? cap : P;
    P = shutdown[k] != 0 ? 0.0 : P;
    out[k] = P;
    view[k] = P;
  };
  // GPU k of the rack replays trace GPU (offset + k) mod n.
  const std::size_t offset = rack_replay_offset_[r] % n;
  if (all || changed.size() == n) {
    std::size_t trace_gpu = offset;
    for (std::size_t k = 0; k < count; ++k) {
      write(k, trace_gpu);
      if (++trace_gpu == n) trace_gpu = 0;
    }
    return;
  }
  for (const std::uint32_t i : changed) {
    for (std::size_t k = (i + n - offset) % n; k < count; k += n)
      write(k, i);
  }
}

void WorkloadExecutor::writeRackDemands(std::size_t r, double P_gpu, double P_gpu_capped,
                                        SiteState& state) noexcept {
  // Plain loops over the rack's contiguous GPUs through local pointers, so that the compiler
  // keeps the values in registers and vectorises: a busy inference rack changes every sub-step.
  const RackPower& p = rack_power_[r];
  const std::size_t g0 = layout_.rack_gpu_begin[r];
  const std::size_t n = layout_.rack_gpu_begin[r + 1] - g0;
  const std::uint8_t* throttled = state.gpu_throttled.data() + g0;
  const std::uint8_t* shutdown = state.gpu_shutdown.data() + g0;
  double* out = state.gpu_P_demand.data() + g0;
  double* view = gpu_P_demand_.data() + g0;
  const bool fresh = rack_written_[r] != 1 || rack_inputs_changed_[r] != 0;
  rack_written_[r] = 1;
  rack_last_P_[r] = P_gpu;
  rack_last_P_capped_[r] = P_gpu_capped;
  if (p.gpu_P_leakage > 0.0) {
    // Leakage grows exponentially with the junction temperature (of the last thermal step); it
    // is recomputed only when that temperature changed. The power limit bounds the total.
    if (fresh) {
      const double* T_j = state.gpu_T_junction.data() + g0;
      double* leak_T = leak_T_.data() + g0;
      double* leak_P = leak_P_.data() + g0;
      for (std::size_t k = 0; k < n; ++k) {
        if (T_j[k] != leak_T[k]) {
          leak_T[k] = T_j[k];
          leak_P[k] =
              p.gpu_P_leakage * std::expm1(p.gpu_leakage_coefficient * (T_j[k] - p.gpu_T_leakage));
        }
      }
    }
    const double* leak_P = leak_P_.data() + g0;
    const double P_max = p.gpu_P_max;
    if (rack_flags_clear_[r] != 0) {
      // No GPU throttled or shut down (the common case): a loop the compiler vectorises.
      for (std::size_t k = 0; k < n; ++k) {
        double P = P_gpu + leak_P[k];
        P = P < 0.0 ? 0.0 : P;
        P = P > P_max ? P_max : P;
        out[k] = P;
        view[k] = P;
      }
      return;
    }
    for (std::size_t k = 0; k < n; ++k) {
      double P = (throttled[k] != 0 ? P_gpu_capped : P_gpu) + leak_P[k];
      P = P < 0.0 ? 0.0 : (P > P_max ? P_max : P);
      P = shutdown[k] != 0 ? 0.0 : P;
      out[k] = P;
      view[k] = P;
    }
    return;
  }
  if (rack_flags_clear_[r] != 0) {
    std::fill(out, out + n, P_gpu);
    std::fill(view, view + n, P_gpu);
    return;
  }
  for (std::size_t k = 0; k < n; ++k) {
    const double P = shutdown[k] != 0 ? 0.0 : (throttled[k] != 0 ? P_gpu_capped : P_gpu);
    out[k] = P;
    view[k] = P;
  }
}

void WorkloadExecutor::declareChannels(Recorder& recorder) {
  // A channel without entities would read as a scalar, so empty sets are not declared.
  if (!jobs_.empty()) {
    std::vector<std::string> ids;
    ids.reserve(jobs_.size());
    for (const Job& job : jobs_)
      ids.push_back(job.id);
    recorder.add(ChannelInfo{"job", "iterations", "1", "Completed training iterations of the job",
                             std::move(ids), Aggregation::Sample},
                 job_iterations_.data());
  }
  if (scheduler_) {
    std::vector<std::string> ids;
    ids.reserve(jobs_.size());
    for (const Job& job : jobs_)
      ids.push_back(job.id);
    recorder.add(ChannelInfo{"job", "racks_held", "1",
                             "Racks the job held in the last sub-step (0 while queued or done)",
                             std::move(ids), Aggregation::Sample},
                 job_racks_held_.data());
    recorder.add(ChannelInfo{"site",
                             "jobs_queued",
                             "1",
                             "Scheduled jobs submitted and waiting for racks",
                             {},
                             Aggregation::Sample},
                 &jobs_queued_);
  }
  if (!inference_.empty()) {
    std::vector<std::string> ids;
    ids.reserve(inference_racks_.size());
    for (const InferenceRacks& racks : inference_racks_)
      ids.push_back(racks.id);
    recorder.add(ChannelInfo{"inference_job", "queue_length", "1",
                             "Requests waiting in the job's queue at the end of the sub-step", ids,
                             Aggregation::Sample},
                 inference_queue_.data());
    recorder.add(ChannelInfo{"inference_job", "in_service", "1",
                             "Requests in the job's batch at the end of the sub-step", ids,
                             Aggregation::Sample},
                 inference_in_service_.data());
    recorder.add(ChannelInfo{"inference_job", "tokens_per_s", "1/s",
                             "Generated tokens of the requests completed in the last sub-step, "
                             "per second",
                             std::move(ids), Aggregation::SubstepMean},
                 inference_tokens_per_s_.data());
  }
  if (layout_.gpu_count > 0) {
    recorder.add(ChannelInfo{"gpu", "P_demand", "W",
                             "GPU power demanded by the workload, averaged over the sub-step",
                             layout_.gpu_ids, Aggregation::SubstepMean},
                 gpu_P_demand_.data());
  }
}

void WorkloadExecutor::summarise(Summary& summary) const {
  summary.add(SummaryItem{"training_iterations", static_cast<double>(totalIterations()),
                          "Training iterations completed", "", 1.0, 0.0});
  summary.add(SummaryItem{"training_iteration_period_s", meanIterationPeriod(),
                          "Mean training iteration period", "s", 1.0, 0.0});
  summary.add(SummaryItem{"training_failures", static_cast<double>(totalFailures()),
                          "Training job failures (each followed by a restart)", "", 1.0, 0.0});
  summary.add(SummaryItem{"requests_served", static_cast<double>(requestsServed()),
                          "Inference requests served", "", 1.0, 0.0});
  summary.add(SummaryItem{"tokens_generated", static_cast<double>(tokensGenerated()),
                          "Tokens generated by inference", "", 1.0, 0.0});
  summary.add(SummaryItem{"mean_queueing_delay_s", meanQueueingDelay(),
                          "Mean inference queueing delay", "s", 1.0, 0.0});
  summary.add(SummaryItem{"jobs_completed", static_cast<double>(jobsCompleted()),
                          "Jobs run to their end", "", 1.0, 0.0});
  summary.add(SummaryItem{"jobs_queued_at_end", static_cast<double>(jobsQueued()),
                          "Scheduled jobs still queued at the end", "", 1.0, 0.0});
  summary.add(SummaryItem{"mean_job_wait_s", meanJobWait(),
                          "Mean wait of the started scheduled jobs", "s", 1.0, 0.0});
  // Per scheduled job (of every kind, in scenario order): start, wait and placement (one key per
  // rack, as the summary holds numbers only).
  if (!scheduler_) return;
  for (std::size_t q = 0; q < scheduled_jobs_.size(); ++q) {
    const ScheduledJob& placed = scheduled_jobs_[q];
    const std::string& id = placed.kind == Kind::Training    ? jobs_[placed.index].id
                            : placed.kind == Kind::Inference ? inference_racks_[placed.index].id
                                                             : replay_racks_[placed.index].id;
    const std::optional<double> start =
        scheduler_->started(q) ? std::optional<double>(scheduler_->startTime(q)) : std::nullopt;
    summary.add(
        SummaryItem{"job_" + id + "_start_s", start, "Job " + id + ": start", "s", 1.0, 0.0});
    summary.add(SummaryItem{
        "job_" + id + "_wait_s",
        start ? std::optional<double>(*start - scheduler_->request(q).submit) : std::nullopt,
        "Job " + id + ": wait", "s", 1.0, 0.0});
    for (const std::uint32_t r : scheduler_->racks(q)) {
      summary.add(SummaryItem{"job_" + id + "_rack_" + layout_.rack_ids[r], 1.0,
                              "Job " + id + ": on rack " + layout_.rack_ids[r], "", 1.0, 0.0});
    }
  }
}

void WorkloadExecutor::visitState(StateArchive& a, const SiteState& state) {
  a.each(jobs_, [](StateArchive& b, Job& job) {
    b(job.start, job.end, job.submit, job.rack_begin, job.rack_end, job.work, job.iteration_start,
      job.period_sum, job.rng, job.origin, job.next_failure, job.restart_end, job.paused,
      job.restart_end_unpaused, job.saved_iterations, job.saved_period_sum, job.failures,
      job.uptime, job.unpowered, job.power_restart);
  });
  bool has_scheduler = scheduler_.has_value();
  a(has_scheduler);
  if (has_scheduler != scheduler_.has_value()) {
    throw RuntimeError("saved state does not fit this run: the job scheduler differs");
  }
  if (scheduler_) scheduler_->visitState(a);
  a.trivial(scheduled_jobs_);
  a(next_schedule_, racks_changed_, last_time_);
  for (InferenceJob& job : inference_)
    job.visitState(a);
  a.each(inference_racks_,
         [](StateArchive& b, JobRacks& racks) { b(racks.rack_begin, racks.rack_end); });
  for (ReplayJob& job : replay_)
    job.visitState(a);
  a.each(replay_racks_,
         [](StateArchive& b, JobRacks& racks) { b(racks.rack_begin, racks.rack_end); });
  a(rack_replay_, rack_replay_share_, rack_replay_offset_, job_racks_, job_rack_gpu_offset_);
  a.trivial(job_rack_P_);
  a.trivial(rack_power_);
  a(rack_busy_, rack_gpu_P_, rack_gpu_P_capped_, job_iterations_, job_racks_held_, jobs_queued_,
    gpu_P_demand_, inference_queue_, inference_in_service_, inference_tokens_per_s_, leak_T_,
    leak_P_, rack_written_, rack_chips_written_, rack_written_replay_, rack_last_P_,
    rack_last_P_capped_, rack_last_busy_);
  // The demands were written to this run's SiteState (or to none): an address does not survive
  // a process, whether it was this state's does.
  bool wrote_state = written_to_ != nullptr && written_to_ == state.gpu_P_demand.data();
  a(wrote_state);
  written_to_ = wrote_state ? state.gpu_P_demand.data() : nullptr;
  a(inputs_valid_, inputs_may_change_, any_leakage_, seen_throttled_, seen_shutdown_,
    rack_inputs_changed_, rack_flags_clear_, seen_speed_, seen_T_, rack_min_speed_,
    rack_shut_down_);
}

}  // namespace racktwin::core
