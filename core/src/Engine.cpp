#include "racktwin/core/Engine.hpp"

#include <algorithm>
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
}

void Engine::addFastModel(Model& model) {
  fast_.push_back(&model);
  all_.insert(all_.begin() + static_cast<std::ptrdiff_t>(fast_.size() - 1), &model);
}

void Engine::addSlowModel(Model& model) {
  slow_.push_back(&model);
  all_.push_back(&model);
}

void Engine::schedule(const EventSpec& event) {
  queue_.push_back(Queued{event, sequence_++});
  std::push_heap(queue_.begin(), queue_.end(), Later{});
}

void Engine::initialize() {
  time_ = 0.0;
  steps_ = 0;
  state_.time = 0.0;
  for (Model* model : all_)
    model->initialize(state_);
  if (recorder_ != nullptr) recorder_->sample(0.0);
}

void Engine::resume(StateArchive& archive) {
  RACKTWIN_ASSERT(!archive.isSaving(), "Engine::resume needs a restoring archive");
  state_.time = 0.0;
  for (Model* model : all_)
    model->initialize(state_);
  visitState(archive);
}

void Engine::saveState(StateArchive& archive) {
  RACKTWIN_ASSERT(archive.isSaving(), "Engine::saveState needs a saving archive");
  visitState(archive);
}

void Engine::visitState(StateArchive& archive) {
  archive.section("engine");
  std::uint64_t events = queue_.size();
  archive(events, sequence_, time_, steps_, total_steps_);
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

void Engine::applyDueEvents() {
  const double due = time_ + 1e-9 * simulation_.step;
  while (!queue_.empty() && queue_.front().event.time <= due) {
    std::pop_heap(queue_.begin(), queue_.end(), Later{});
    const EventSpec event = queue_.back().event;
    queue_.pop_back();
    bool handled = false;
    for (Model* model : all_)
      handled = model->applyEvent(event, state_) || handled;
    if (!handled) {
      throw RuntimeError("event at t = " + std::to_string(event.time) + " s for '" + event.target
                         + "' was not handled by any model");
    }
  }
}

bool Engine::step() {
  if (steps_ >= total_steps_) return false;
  applyDueEvents();
  state_.clearStepAccumulators();
  state_.step_start = time_;

  // Fast models: sub-steps of equal length; times computed, not accumulated, to avoid drift.
  const double h = simulation_.step / simulation_.substeps;
  for (int k = 0; k < simulation_.substeps; ++k) {
    state_.time = time_ + k * h;
    state_.last_substep = k + 1 == simulation_.substeps;
    for (Model* model : fast_)
      model->advance(state_.time, h, state_);
    // The fast models' rates change inside the step: their records integrate every sub-step.
    if (recorder_ != nullptr) recorder_->accumulateSubstep(h);
  }
  // Slow models: one step with the energies the fast models accumulated.
  state_.time = time_;
  state_.last_substep = true;
  for (Model* model : slow_)
    model->advance(time_, simulation_.step, state_);

  ++steps_;
  time_ = static_cast<double>(steps_) * simulation_.step;
  state_.time = time_;
  if (recorder_ != nullptr) recorder_->sample(time_);
  return steps_ < total_steps_;
}

void Engine::finalize() {
  for (Model* model : all_)
    model->finalize(state_);
}

}  // namespace racktwin::core
