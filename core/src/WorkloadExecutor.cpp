#include "racktwin/core/WorkloadExecutor.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/StateArchive.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/ThreadPool.hpp"

namespace racktwin::core {

namespace {

/// One independent stream per job (SplitMix64 of seed, salt and index, Steele et al. 2014), so
/// adding a job does not change the random draws of the others.
std::uint64_t streamSeed(std::uint64_t seed, std::uint64_t salt, std::size_t index) {
  std::uint64_t z = seed + salt + 0x9E3779B97F4A7C15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

constexpr double kInf = std::numeric_limits<double>::infinity();

/// GPUs of the named racks of a spec (0 when a name is unknown: placement reports it).
std::uint32_t namedGpus(const std::vector<ComponentId>& racks, const SiteLayout& layout) {
  std::uint32_t gpus = 0;
  for (const ComponentId& rack : racks) {
    const auto found = std::find(layout.rack_ids.begin(), layout.rack_ids.end(), rack.str());
    if (found == layout.rack_ids.end()) return 0;
    const auto r = static_cast<std::size_t>(found - layout.rack_ids.begin());
    gpus += static_cast<std::uint32_t>(layout.rack_gpu_begin[r + 1] - layout.rack_gpu_begin[r]);
  }
  return gpus;
}

}  // namespace

template <class Job, class... Args>
Job* WorkloadExecutor::addJob(std::vector<Job*>& list, Args&&... args) {
  auto job = std::make_unique<Job>(std::forward<Args>(args)...);
  Job* raw = job.get();
  placement_.add(raw->what(), raw->placeRequest());
  jobs_.push_back(std::move(job));
  list.push_back(raw);
  return raw;
}

WorkloadExecutor::WorkloadExecutor(const SiteSpec& site, const SiteLayout& layout)
    : layout_(layout), placement_(site, layout) {
  for (std::size_t r = 0; r < layout.rack_count; ++r) {
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

  // Stepping order: training, inference, replay (each in scenario order). Each kind keeps its
  // own random streams (salted), so adding a job of one kind changes no other job's draws.
  for (std::size_t j = 0; j < site.jobs.size(); ++j) {
    addJob(training_, site.jobs[j], streamSeed(site.simulation.seed, 0xF00DFA11ULL, j));
  }
  for (std::size_t i = 0; i < site.inference_jobs.size(); ++i) {
    const InferenceJobSpec& spec = site.inference_jobs[i];
    // Sized by the GPUs it asks for when scheduled: its throughput does not depend on which racks
    // it gets.
    // (A job naming no rack or an unknown one gets one GPU here, and placement rejects it.)
    const std::uint32_t gpus =
        spec.gpus > 0 ? spec.gpus : std::max(namedGpus(spec.racks, layout), 1U);
    if (spec.deployment) {
      addJob(model_, spec, gpus, streamSeed(site.simulation.seed, 0, i));
    } else {
      addJob(inference_, spec, gpus, streamSeed(site.simulation.seed, 0, i));
    }
  }
  for (const ReplayJobSpec& spec : site.replay_jobs)
    addJob(replay_, spec);
  placement_.finish(site);

  rack_min_speed_.assign(layout.rack_count, 0.0);
  site_.layout = &layout_;
  site_.rack_power = rack_power_;
  site_.rack_min_speed = rack_min_speed_;
  site_.rack_shut_down = placement_.rackShutDown();
  loads_.resize(layout.rack_count);
  bindJobs();

  gpu_P_demand_.assign(layout.gpu_count, 0.0);
  gpu_E_demand_.assign(layout.gpu_count, 0.0);
  gpu_P_demand_mean_.assign(layout.gpu_count, 0.0);
  rack_demand_held_.assign(layout.rack_count, 0.0);
  rack_demand_time_.assign(layout.rack_count, 0.0);
  rack_demand_changed_.assign(layout.rack_count, 0);
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
  seen_speed_.assign(layout.gpu_count, 0.0);
}

void WorkloadExecutor::bindJobs() {
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    job_traces_.push_back(jobs_[j]->gpuTrace());
    jobs_[j]->bind(placement_.racks(j), placement_.gpuOffsets(j), static_cast<std::int32_t>(j));
    // Jobs whose kinds share a channel list record into one block.
    const std::string_view kind = jobs_[j]->kind();
    const std::span<const JobChannel> channels = jobs_[j]->channels();
    auto found = std::find_if(kinds_.begin(), kinds_.end(), [&](const KindViews& k) {
      return k.channels.data() == channels.data() && k.kind == kind;
    });
    if (found == kinds_.end()) {
      kinds_.push_back(KindViews{kind, channels, {}, 0});
      found = kinds_.end() - 1;
    }
    found->jobs.push_back(static_cast<std::uint32_t>(j));
  }
  std::size_t size = 0;
  for (KindViews& k : kinds_) {
    k.offset = size;
    size += k.channels.size() * k.jobs.size();
  }
  job_views_.assign(size, 0.0);
  for (const KindViews& k : kinds_) {
    for (std::size_t n = 0; n < k.jobs.size(); ++n)
      jobs_[k.jobs[n]]->bindViews(job_views_.data() + k.offset + n, k.jobs.size());
  }
}

bool WorkloadExecutor::applyEvent(const EventSpec& event, SiteState& /*state*/) {
  for (const std::unique_ptr<WorkloadJob>& job : jobs_) {
    if (job->id() == event.target && job->applyEvent(event)) return true;
  }
  return false;  // not a job of this executor that takes the event: another model may
}

const WorkloadJob& WorkloadExecutor::workloadJob(std::size_t job) const {
  RACKTWIN_ASSERT(job < jobs_.size(), "job index out of range");
  return *jobs_[job];
}

std::span<const std::uint32_t> WorkloadExecutor::startedRacks(const WorkloadJob& job) noexcept {
  if (!(job.start() < kInf)) return {};
  return job.racks();
}

const std::string& WorkloadExecutor::jobId(std::size_t job) const {
  RACKTWIN_ASSERT(job < training_.size(), "job index out of range");
  return training_[job]->id();
}

std::uint64_t WorkloadExecutor::jobIterations(std::size_t job) const {
  RACKTWIN_ASSERT(job < training_.size(), "job index out of range");
  return training_[job]->iterations();
}

std::uint64_t WorkloadExecutor::jobFailures(std::size_t job) const {
  RACKTWIN_ASSERT(job < training_.size(), "job index out of range");
  return training_[job]->failures();
}

double WorkloadExecutor::jobUptime(std::size_t job) const {
  RACKTWIN_ASSERT(job < training_.size(), "job index out of range");
  return training_[job]->uptime();
}

std::uint64_t WorkloadExecutor::totalFailures() const noexcept {
  std::uint64_t n = 0;
  for (const TrainingWorkload* job : training_)
    n += job->failures();
  return n;
}

bool WorkloadExecutor::jobScheduled(std::size_t job) const {
  RACKTWIN_ASSERT(job < training_.size(), "job index out of range");
  return training_[job]->scheduled();
}

double WorkloadExecutor::jobSubmit(std::size_t job) const {
  RACKTWIN_ASSERT(job < training_.size(), "job index out of range");
  return training_[job]->submit();
}

std::optional<double> WorkloadExecutor::jobStart(std::size_t job) const {
  RACKTWIN_ASSERT(job < training_.size(), "job index out of range");
  if (!(training_[job]->start() < kInf)) return std::nullopt;
  return training_[job]->start();
}

std::span<const std::uint32_t> WorkloadExecutor::jobRacks(std::size_t job) const {
  RACKTWIN_ASSERT(job < training_.size(), "job index out of range");
  return startedRacks(*training_[job]);
}

std::size_t WorkloadExecutor::jobsCompleted() const noexcept {
  const double now = last_time_ + workloadTimeTolerance(last_time_);
  std::size_t n = 0;
  for (const std::unique_ptr<WorkloadJob>& job : jobs_)
    n += job->ranToEnd(now) ? 1 : 0;
  return n;
}

std::size_t WorkloadExecutor::jobsQueued() const noexcept {
  return placement_.queuedAt(last_time_);
}

std::optional<double> WorkloadExecutor::meanJobWait() const noexcept {
  return placement_.meanWait();
}

std::uint64_t WorkloadExecutor::totalIterations() const noexcept {
  std::uint64_t total = 0;
  for (const TrainingWorkload* job : training_)
    total += job->iterations();
  return total;
}

const InferenceJob& WorkloadExecutor::inferenceJob(std::size_t job) const {
  RACKTWIN_ASSERT(job < inference_.size(), "inference job index out of range");
  return inference_[job]->server();
}

std::span<const std::uint32_t> WorkloadExecutor::inferenceJobRacks(std::size_t job) const {
  RACKTWIN_ASSERT(job < inference_.size(), "inference job index out of range");
  return startedRacks(*inference_[job]);
}

const ReplayJob& WorkloadExecutor::replayJob(std::size_t job) const {
  RACKTWIN_ASSERT(job < replay_.size(), "replay job index out of range");
  return replay_[job]->trace();
}

std::span<const std::uint32_t> WorkloadExecutor::replayJobRacks(std::size_t job) const {
  RACKTWIN_ASSERT(job < replay_.size(), "replay job index out of range");
  return startedRacks(*replay_[job]);
}

std::uint64_t WorkloadExecutor::requestsServed() const noexcept {
  std::uint64_t n = 0;
  for (const InferenceWorkload* job : inference_)
    n += job->server().requestsServed();
  for (const ModelInferenceWorkload* job : model_)
    n += job->server().requestsServed();
  return n;
}

std::uint64_t WorkloadExecutor::tokensGenerated() const noexcept {
  std::uint64_t n = 0;
  for (const InferenceWorkload* job : inference_)
    n += job->server().tokensGenerated();
  for (const ModelInferenceWorkload* job : model_)
    n += job->server().tokensGenerated();
  return n;
}

const ModelServer& WorkloadExecutor::modelJob(std::size_t job) const {
  RACKTWIN_ASSERT(job < model_.size(), "model job index out of range");
  return model_[job]->server();
}

double WorkloadExecutor::trainingTokens() const noexcept {
  double n = 0.0;
  for (const TrainingWorkload* job : training_)
    n += job->tokensPerIteration() * static_cast<double>(job->iterations());
  return n;
}

double WorkloadExecutor::deliveredFlops() const noexcept {
  double flops = 0.0;
  for (const TrainingWorkload* job : training_)
    flops += job->flopsPerIteration() * static_cast<double>(job->iterations());
  for (const ModelInferenceWorkload* job : model_)
    flops += job->server().flopsDone();
  return flops;
}

void WorkloadExecutor::summariseWorkPerEnergy(Summary& summary) {
  const auto get = [&](const std::string& key) -> std::optional<double> {
    for (const SummaryItem& item : summary.items()) {
      if (item.key == key) return item.value;
    }
    return std::nullopt;
  };
  const std::optional<double> tokens = get("tokens_generated");
  const std::optional<double> training = get("training_tokens");
  const std::optional<double> it = get("it_energy_J");
  const std::optional<double> facility = get("facility_energy_J");
  const auto per = [](std::optional<double> work, std::optional<double> energy, double scale) {
    return work && energy && *energy > 0.0 && *work > 0.0
               ? std::optional<double>(*work / (*energy / scale))
               : std::nullopt;
  };
  constexpr double kJ_per_kWh = 3.6e6;
  summary.add(SummaryItem{"inference_tokens_per_it_J", per(tokens, it, 1.0),
                          "Inference tokens generated per joule of IT energy", "1/J", 1.0, 0.0});
  summary.add(SummaryItem{"inference_tokens_per_facility_kWh", per(tokens, facility, kJ_per_kWh),
                          "Inference tokens generated per facility kWh", "1/kWh", 1.0, 0.0});
  summary.add(SummaryItem{"training_tokens_per_facility_kWh", per(training, facility, kJ_per_kWh),
                          "Training tokens per facility kWh", "1/kWh", 1.0, 0.0});
}

std::optional<double> WorkloadExecutor::meanQueueingDelay() const noexcept {
  double delay = 0.0;
  std::uint64_t started = 0;
  for (const InferenceWorkload* job : inference_) {
    delay += job->server().queueingDelaySum();
    started += job->server().requestsStarted();
  }
  for (const ModelInferenceWorkload* job : model_) {
    delay += job->server().queueingDelaySum();
    started += job->server().requestsStarted();
  }
  if (started == 0) return std::nullopt;
  return delay / static_cast<double>(started);
}

std::optional<double> WorkloadExecutor::meanIterationPeriod() const noexcept {
  double periods = 0.0;
  double count = 0.0;
  for (const TrainingWorkload* job : training_) {
    periods += job->periodSum();
    count += static_cast<double>(job->iterations());
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
  for (const std::unique_ptr<WorkloadJob>& job : jobs_)
    job->reset(state.time, site_);
  last_time_ = state.time;
  if (placement_.hasScheduler()) {
    placement_.reset(state);
    runScheduler(state.time);
  }
  // Everything is written afresh (the air loads too), from inputs read afresh.
  written_to_ = nullptr;
  checkTarget(state);
  scanInputs(state);
  inputs_may_change_ = true;  // models initialised after this one may publish their inputs
  // The demand at the instant state.time: a unit weight on the phase each job is in.
  loads_.clear();
  for (const std::unique_ptr<WorkloadJob>& job : jobs_)
    job->addDemandAt(state.time, site_, loads_);
  std::fill(gpu_E_demand_.begin(), gpu_E_demand_.end(), 0.0);
  std::fill(rack_demand_held_.begin(), rack_demand_held_.end(), 0.0);
  std::fill(rack_demand_time_.begin(), rack_demand_time_.end(), 0.0);
  std::fill(rack_demand_changed_.begin(), rack_demand_changed_.end(), 0);
  writeDemands(state, 0.0, true);  // the initial record: the demands at this instant
}

void WorkloadExecutor::checkTarget(const SiteState& state) noexcept {
  if (written_to_ == state.gpu_P_demand.data()) return;
  written_to_ = state.gpu_P_demand.data();
  std::fill(rack_written_.begin(), rack_written_.end(), 0);
  std::fill(rack_chips_written_.begin(), rack_chips_written_.end(), 0);
  inputs_valid_ = false;
}

void WorkloadExecutor::scanInputs(const SiteState& state) noexcept {
  // Once per thermal step, when the inputs may have changed: each rack compares its GPUs' inputs
  // with the copy it kept, blocks of racks side by side (a whole-site comparison first would
  // read the inputs twice whenever the junctions moved, as they do every thermal step).
  forEachItem(pool_, layout_.rack_count, kRackBlock,
              [&](std::size_t r) { scanRackInputs(r, state); });
  inputs_valid_ = true;
}

void WorkloadExecutor::scanRackInputs(std::size_t r, const SiteState& state) noexcept {
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
    placement_.noteRackShutdown(r, shutdown, n);
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

void WorkloadExecutor::useThreads(ThreadPool& pool) {
  pool_ = pool.size() > 1 && layout_.rack_count > kRackBlock ? &pool : nullptr;
}

void WorkloadExecutor::writeDemands(SiteState& state, double dt, bool publish) noexcept {
  // A rack's demands depend on its own loads and inputs only: blocks of racks side by side.
  forEachItem(pool_, layout_.rack_count, kRackBlock, [&](std::size_t r) {
    writeRack(r, state);
    rack_demand_held_[r] += dt;
    rack_demand_time_[r] += dt;
    if (publish) publishRackDemandMean(r);
  });
}

void WorkloadExecutor::flushRackDemand(std::size_t r) noexcept {
  const double held = rack_demand_held_[r];
  if (!(held > 0.0)) return;
  rack_demand_held_[r] = 0.0;
  rack_demand_changed_[r] = 1;
  const std::size_t g0 = layout_.rack_gpu_begin[r], g1 = layout_.rack_gpu_begin[r + 1];
  const double* P = gpu_P_demand_.data();
  double* E = gpu_E_demand_.data();
  for (std::size_t g = g0; g < g1; ++g)
    E[g] += P[g] * held;
}

void WorkloadExecutor::publishRackDemandMean(std::size_t r) noexcept {
  const std::size_t g0 = layout_.rack_gpu_begin[r], g1 = layout_.rack_gpu_begin[r + 1];
  const double* P = gpu_P_demand_.data();
  double* mean = gpu_P_demand_mean_.data();
  if (rack_demand_changed_[r] == 0) {
    // Held all the step (or the initial instant, when nothing was held): the mean is the
    // demand, with its bits. A change was booked only after a time held, so the step's time is
    // positive below.
    std::copy(P + g0, P + g1, mean + g0);
  } else {
    // Over the rack's own sum of its sub-steps, so the held parts and the whole agree.
    const double held = rack_demand_held_[r];
    const double inv = 1.0 / rack_demand_time_[r];
    double* E = gpu_E_demand_.data();
    for (std::size_t g = g0; g < g1; ++g) {
      mean[g] = (E[g] + P[g] * held) * inv;
      E[g] = 0.0;
    }
  }
  rack_demand_held_[r] = 0.0;
  rack_demand_time_[r] = 0.0;
  rack_demand_changed_[r] = 0;
}

void WorkloadExecutor::writeRack(std::size_t r, SiteState& state) noexcept {
  {
    const RackPower& p = rack_power_[r];
    const double busy = std::min(loads_.busy[r], 1.0);
    const double idle = 1.0 - busy;
    if (loads_.trace_job[r] >= 0) {
      writeReplayDemands(r, state);
    } else {
      const double P_gpu = loads_.gpu_P[r] + idle * p.gpu_P_idle;
      const double P_gpu_capped =
          loads_.gpu_P_capped[r] + idle * std::min(p.gpu_P_idle, p.gpu_P_throttled);
      if (rack_written_[r] != 1 || rack_inputs_changed_[r] != 0 || P_gpu != rack_last_P_[r]
          || P_gpu_capped != rack_last_P_capped_[r]) {
        writeRackDemands(r, P_gpu, P_gpu_capped, state);
      }
    }
    rack_inputs_changed_[r] = 0;
    if (rack_chips_written_[r] != 0 && busy == rack_last_busy_[r]) return;
    rack_chips_written_[r] = 1;
    rack_last_busy_[r] = busy;
    ++state.rack_demand_version[r];
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
  const ReplayJob& job = *job_traces_[static_cast<std::size_t>(loads_.trace_job[r])];
  const std::span<const std::uint32_t> changed = job.changed();
  const double share = loads_.trace_share[r];
  // Only the GPUs whose trace GPU changed, unless the rack's share, inputs or mode changed.
  const bool all = rack_written_[r] != 2 || rack_written_replay_[r] != loads_.trace_job[r]
                   || rack_inputs_changed_[r] != 0 || share != rack_last_P_[r];
  if (!all && changed.empty()) return;
  flushRackDemand(r);
  ++state.rack_demand_version[r];
  rack_written_[r] = 2;
  rack_written_replay_[r] = loads_.trace_job[r];
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
  const std::size_t offset = loads_.trace_offset[r] % n;
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
  flushRackDemand(r);
  ++state.rack_demand_version[r];
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

void WorkloadExecutor::runScheduler(double now) noexcept {
  for (const std::uint32_t j : placement_.schedule(now))
    jobs_[j]->place(now, site_);
}

void WorkloadExecutor::advance(double t, double dt, SiteState& state) {
  RACKTWIN_ASSERT(dt > 0.0, "advance needs dt > 0");
  checkTarget(state);
  // Scheduling events fall on sub-step boundaries: a job submitted, or racks freed, inside a
  // sub-step starts at the next one.
  placement_.noteRacksDown(state);
  if (placement_.due(t)) runScheduler(t);
  // The slow models write the GPU inputs between macro steps, so only a sub-step that follows a
  // macro step's last one (or a driver that does not sub-step) can see them changed.
  if (inputs_may_change_ || !inputs_valid_) scanInputs(state);
  inputs_may_change_ = state.last_substep;
  const SubStep step{t, t + dt, dt};
  last_time_ = step.t1;
  loads_.clear();
  for (const std::unique_ptr<WorkloadJob>& job : jobs_)
    job->advance(step, state, site_, loads_);
  writeDemands(state, dt, state.last_substep);
}

void WorkloadExecutor::declareChannels(Recorder& recorder) {
  // One channel per channel of a kind, a column per job of the kind. A channel without entities
  // would read as a scalar, so kinds without jobs declare nothing.
  for (const KindViews& k : kinds_) {
    std::vector<std::string> ids;
    for (const std::uint32_t j : k.jobs)
      ids.push_back(jobs_[j]->id());
    for (std::size_t c = 0; c < k.channels.size(); ++c) {
      const JobChannel& channel = k.channels[c];
      if (channel.with_scheduler_only && !placement_.hasScheduler()) continue;
      recorder.add(ChannelInfo{channel.group, channel.name, channel.unit, channel.description, ids,
                               channel.aggregation},
                   job_views_.data() + k.offset + c * k.jobs.size());
    }
  }
  if (placement_.hasScheduler()) {
    recorder.add(ChannelInfo{"site",
                             "jobs_queued",
                             "1",
                             "Scheduled jobs submitted and waiting for racks",
                             {},
                             Aggregation::Sample},
                 placement_.queuedView());
  }
  if (layout_.gpu_count > 0) {
    recorder.add(ChannelInfo{"gpu", "P_demand", "W",
                             "GPU power demanded by the workload, mean over the macro step",
                             layout_.gpu_ids, Aggregation::Mean},
                 gpu_P_demand_mean_.data());
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
  if (!model_.empty() || trainingTokens() > 0.0) {
    // Delivered work of the jobs derived from a model (docs/workloads.md).
    std::uint64_t on_target = 0, prompt = 0;
    for (const ModelInferenceWorkload* job : model_) {
      on_target += job->server().requestsMeetingTarget();
      prompt += job->server().promptTokensServed();
    }
    summary.add(SummaryItem{"prompt_tokens_served", static_cast<double>(prompt),
                            "Prompt tokens processed by inference", "", 1.0, 0.0});
    summary.add(SummaryItem{"requests_meeting_latency_target", static_cast<double>(on_target),
                            "Inference requests within their TTFT and TPOT targets", "", 1.0, 0.0});
    summary.add(SummaryItem{"training_tokens", trainingTokens(),
                            "Training tokens of the completed iterations", "", 1.0, 0.0});
    summary.add(SummaryItem{"delivered_flops", deliveredFlops(),
                            "Model FLOPs delivered by inference and training", "FLOP", 1.0, 0.0});
  }
  summary.add(SummaryItem{"jobs_completed", static_cast<double>(jobsCompleted()),
                          "Jobs run to their end", "", 1.0, 0.0});
  summary.add(SummaryItem{"jobs_queued_at_end", static_cast<double>(jobsQueued()),
                          "Scheduled jobs still queued at the end", "", 1.0, 0.0});
  summary.add(SummaryItem{"mean_job_wait_s", meanJobWait(),
                          "Mean wait of the started scheduled jobs", "s", 1.0, 0.0});
  for (const std::unique_ptr<WorkloadJob>& job : jobs_)
    job->summarise(summary);
  // Per scheduled job (of every kind, in scenario order): start, wait and placement (one key per
  // rack, as the summary holds numbers only).
  for (const std::uint32_t j : placement_.queueOrder()) {
    const std::string& id = jobs_[j]->id();
    const std::optional<double> start = placement_.startOf(j);
    summary.add(
        SummaryItem{"job_" + id + "_start_s", start, "Job " + id + ": start", "s", 1.0, 0.0});
    summary.add(
        SummaryItem{"job_" + id + "_wait_s",
                    start ? std::optional<double>(*start - placement_.submitOf(j)) : std::nullopt,
                    "Job " + id + ": wait", "s", 1.0, 0.0});
    for (const std::uint32_t r : placement_.placedRacks(j)) {
      summary.add(SummaryItem{"job_" + id + "_rack_" + layout_.rack_ids[r], 1.0,
                              "Job " + id + ": on rack " + layout_.rack_ids[r], "", 1.0, 0.0});
    }
  }
}

void WorkloadExecutor::visitState(StateArchive& a, const SiteState& state) {
  a.section("workload");
  placement_.visitState(a);
  for (const std::unique_ptr<WorkloadJob>& job : jobs_)
    job->visitState(a);
  a(last_time_);
  a.trivial(rack_power_);
  a(loads_.busy, loads_.gpu_P, loads_.gpu_P_capped, loads_.trace_job, loads_.trace_share,
    loads_.trace_offset, job_views_, gpu_P_demand_, gpu_E_demand_, gpu_P_demand_mean_,
    rack_demand_held_, rack_demand_time_, rack_demand_changed_, leak_T_, leak_P_, rack_written_,
    rack_chips_written_, rack_written_replay_, rack_last_P_, rack_last_P_capped_, rack_last_busy_);
  // The demands were written to this run's SiteState (or to none): an address does not survive
  // a process, whether it was this state's does.
  bool wrote_state = written_to_ != nullptr && written_to_ == state.gpu_P_demand.data();
  a(wrote_state);
  written_to_ = wrote_state ? state.gpu_P_demand.data() : nullptr;
  a(inputs_valid_, inputs_may_change_, any_leakage_, seen_throttled_, seen_shutdown_,
    rack_inputs_changed_, rack_flags_clear_, seen_speed_, seen_T_, rack_min_speed_);
}

}  // namespace racktwin::core
