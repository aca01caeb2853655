#include "racktwin/core/Engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/StateArchive.hpp"

namespace racktwin::core {
namespace {

// Min-heap order: earlier time first, then the order in which events were scheduled.
struct Later {
  template <class Q>
  bool operator()(const Q& a, const Q& b) const {
    if (a.event.time != b.event.time) return a.event.time > b.event.time;
    return a.sequence > b.sequence;
  }
};

}  // namespace

Engine::Engine(const SimulationSpec& simulation, SiteState& state)
    : simulation_(simulation), state_(state) {
  RACKTWIN_ASSERT(simulation.step > 0.0 && simulation.substeps >= 1, "invalid simulation spec");
  total_steps_ = static_cast<std::size_t>(std::llround(simulation.duration / simulation.step));
  const FastForwardSpec& ff = simulation.fast_forward;
  if (ff.enabled) {
    const auto fine = [&](double t) {
      return static_cast<std::uint64_t>(std::max(1LL, std::llround(t / simulation.step)));
    };
    RACKTWIN_ASSERT(ff.max_step > 0.0 && ff.tolerance > 0.0 && ff.settle >= 0.0,
                    "invalid fast-forward spec");
    max_fine_ = fine(ff.max_step);
    record_fine_ = fine(simulation.record_interval);
    settle_fine_ = ff.settle > 0.0 ? fine(ff.settle) : 0;
  }
}

void Engine::addFastModel(Model& model) {
  fast_.push_back(&model);
  all_.insert(all_.begin() + static_cast<std::ptrdiff_t>(fast_.size() - 1), &model);
  model_s_.assign(all_.size(), 0.0);
}

void Engine::addSlowModel(Model& model) {
  slow_.push_back(&model);
  all_.push_back(&model);
  model_s_.assign(all_.size(), 0.0);
}

void Engine::schedule(const EventSpec& event) {
  queue_.push_back(Queued{event, sequence_++});
  std::push_heap(queue_.begin(), queue_.end(), Later{});
}

template <class Call>
void Engine::watched(const Model& model, Call&& call) {
  if (!watch_) {
    call();
    return;
  }
  const std::vector<std::uint64_t> before = couplingFingerprints(state_);
  call();
  for (std::string& found : core::undeclaredWrites(model, before, couplingFingerprints(state_)))
    undeclared_.push_back(std::move(found));
}

template <class Call>
void Engine::timed(double& seconds, Call&& call) {
  if (!timing_) {
    call();
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  call();
  seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<Engine::PartTime> Engine::stepTimes() const {
  std::vector<PartTime> parts;
  double parts_s = 0.0;
  for (std::size_t i = 0; i < all_.size(); ++i) {
    parts.push_back({std::string(all_[i]->name()), model_s_[i]});
    parts_s += model_s_[i];
  }
  parts.push_back({"recorder", recorder_s_});
  parts.push_back({"engine", std::max(0.0, step_s_ - parts_s - recorder_s_)});
  return parts;
}

void Engine::initialize() {
  time_ = 0.0;
  fine_index_ = 0;
  steps_ = 0;
  state_.time = 0.0;
  for (Model* model : all_)
    watched(*model, [&] { model->initialize(state_); });
  preferred_fine_ = 1;
  settle_until_ = 0;
  fine_steps_taken_ = 0;
  longest_step_ = 0.0;
  if (simulation_.fast_forward.enabled) {
    T_previous_ = state_.gpu_T_junction;
    flags_previous_ = monitoredFlags();
  }
  if (recorder_ != nullptr) recorder_->sample(0.0);
}

void Engine::resume(StateArchive& archive) {
  RACKTWIN_ASSERT(!archive.isSaving(), "Engine::resume needs a restoring archive");
  state_.time = 0.0;
  for (Model* model : all_)
    model->initialize(state_);
  if (simulation_.fast_forward.enabled) T_previous_.assign(state_.gpu_T_junction.size(), 0.0);
  visitState(archive);
}

void Engine::saveState(StateArchive& archive) {
  RACKTWIN_ASSERT(archive.isSaving(), "Engine::saveState needs a saving archive");
  visitState(archive);
}

void Engine::visitState(StateArchive& archive) {
  archive.section("engine");
  std::uint64_t events = queue_.size();
  archive(events, sequence_, time_, fine_index_, steps_, total_steps_, preferred_fine_,
          settle_until_, flags_previous_, fine_steps_taken_, longest_step_);
  if (simulation_.fast_forward.enabled) archive(T_previous_);
  if (!archive.isSaving()) queue_.resize(events);
  for (Queued& queued : queue_) {
    EventSpec& e = queued.event;
    archive(e.time, e.kind, e.target, e.value, e.where.file, e.where.line, e.where.column,
            queued.sequence);
  }
  archive.section("site state");
  state_.visitState(archive);
  for (Model* model : all_) {
    archive.section(model->name());
    model->visitState(archive, state_);
  }
}

bool Engine::eventDue() const noexcept {
  return !queue_.empty() && queue_.front().event.time <= time_ + 1e-9 * simulation_.step;
}

bool Engine::applyDueEvents() {
  bool applied = false;
  while (eventDue()) {
    std::pop_heap(queue_.begin(), queue_.end(), Later{});
    const EventSpec event = queue_.back().event;
    queue_.pop_back();
    bool handled = false;
    for (Model* model : all_)
      watched(*model, [&] { handled = model->applyEvent(event, state_) || handled; });
    if (!handled) {
      throw RuntimeError("event at t = " + std::to_string(event.time) + " s for '" + event.target
                         + "' was not handled by any model");
    }
    applied = true;
  }
  return applied;
}

std::uint64_t Engine::plannedFineSteps() const noexcept {
  if (!simulation_.fast_forward.enabled) return 1;
  if (eventDue() || fine_index_ < settle_until_) return 1;
  std::uint64_t n = preferred_fine_;
  // Steps of max_step end on its multiples, so records at multiples of it cut none short.
  if (n == max_fine_) n = (fine_index_ / max_fine_ + 1) * max_fine_ - fine_index_;
  const std::uint64_t total = total_steps_;
  n = std::min(n, total > fine_index_ ? total - fine_index_ : 1);
  // Never across a record time: records fall on multiples of the record interval.
  n = std::min(n, (fine_index_ / record_fine_ + 1) * record_fine_ - fine_index_);
  if (!queue_.empty()) {
    // Never past the fine-grid time at which fine steps would apply the next event: the first
    // step start at or after its time (eventDue's slack).
    const double at = std::ceil(queue_.front().event.time / simulation_.step - 1e-9);
    const auto event_index = static_cast<std::uint64_t>(std::max(at, 0.0));
    if (event_index > fine_index_) n = std::min(n, event_index - fine_index_);
  }
  return std::max<std::uint64_t>(n, 1);
}

double Engine::nextStepEnd() const noexcept {
  return static_cast<double>(fine_index_ + plannedFineSteps()) * simulation_.step;
}

std::uint64_t Engine::monitoredFlags() const noexcept {
  std::uint64_t flags = 0;
  for (const std::uint8_t f : state_.gpu_throttled)
    flags += f;
  for (const std::uint8_t f : state_.gpu_shutdown)
    flags += f;
  for (const std::uint8_t f : state_.rack_powered)
    flags += f == 0 ? 1 : 0;
  return flags;
}

void Engine::adaptStep(std::uint64_t taken) {
  // The largest change of any GPU junction over the step just taken.
  double change = 0.0;
  const std::vector<double>& T = state_.gpu_T_junction;
  for (std::size_t g = 0; g < T.size(); ++g) {
    change = std::max(change, std::abs(T[g] - T_previous_[g]));
    T_previous_[g] = T[g];
  }
  const std::uint64_t flags = monitoredFlags();
  const bool flags_changed = flags != flags_previous_;
  flags_previous_ = flags;
  // The change a step of the preferred length would have seen, at the rate of the step taken
  // (shorter when a record, an event or the settle time cut it).
  const std::uint64_t preferred = std::max(preferred_fine_, taken);
  const double expected = change * static_cast<double>(preferred) / static_cast<double>(taken);
  const double tolerance = simulation_.fast_forward.tolerance;
  // A NaN change (a non-finite temperature, which the models report) falls back too.
  if (flags_changed || !(expected <= 2.0 * tolerance)) {
    preferred_fine_ = 1;  // a transient: fine steps
  } else if (expected > tolerance) {
    preferred_fine_ = std::max<std::uint64_t>(1, preferred / 2);
  } else if (expected <= 0.5 * tolerance) {
    preferred_fine_ = std::min(2 * preferred, max_fine_);
  } else {
    preferred_fine_ = preferred;
  }
}

bool Engine::step() {
  if (fine_index_ >= total_steps_) return false;
  if (!timing_) return advanceStep();
  bool more = false;
  timed(step_s_, [&] { more = advanceStep(); });
  return more;
}

bool Engine::advanceStep() {
  if (applyDueEvents() && simulation_.fast_forward.enabled) {
    // An event: fine steps now and for the settle time after it.
    settle_until_ = fine_index_ + settle_fine_;
    preferred_fine_ = 1;
  }
  const std::uint64_t n = plannedFineSteps();
  const double dt = n == 1 ? simulation_.step : static_cast<double>(n) * simulation_.step;
  state_.clearStepAccumulators(pool_);
  state_.step_start = time_;

  // Fast models: sub-steps of equal length; times computed, not accumulated, to avoid drift.
  const double h = dt / simulation_.substeps;
  for (int k = 0; k < simulation_.substeps; ++k) {
    state_.time = time_ + k * h;
    state_.last_substep = k + 1 == simulation_.substeps;
    for (std::size_t i = 0; i < fast_.size(); ++i) {
      Model* model = fast_[i];
      timed(model_s_[i], [&] { watched(*model, [&] { model->advance(state_.time, h, state_); }); });
    }
    // The fast models' rates change inside the step: their records integrate every sub-step.
    if (recorder_ != nullptr) timed(recorder_s_, [&] { recorder_->accumulateSubstep(h); });
  }
  // Slow models: one step with the energies the fast models accumulated.
  state_.time = time_;
  state_.last_substep = true;
  for (std::size_t i = 0; i < slow_.size(); ++i) {
    Model* model = slow_[i];
    timed(model_s_[fast_.size() + i],
          [&] { watched(*model, [&] { model->advance(time_, dt, state_); }); });
  }

  ++steps_;
  fine_index_ += n;
  if (n == 1) ++fine_steps_taken_;
  longest_step_ = std::max(longest_step_, dt);
  time_ = static_cast<double>(fine_index_) * simulation_.step;
  state_.time = time_;
  if (simulation_.fast_forward.enabled) adaptStep(n);
  if (recorder_ != nullptr) timed(recorder_s_, [&] { recorder_->sample(time_); });
  return fine_index_ < total_steps_;
}

void Engine::finalize() {
  for (Model* model : all_)
    model->finalize(state_);
}

}  // namespace racktwin::core
