#pragma once
// The co-simulation clock. One macro step of length `step`:
//   1. events due at or before the step's start are applied (in time order, then file order);
//   2. the fast models (workload, electrical) advance in `substeps` sub-steps; after each the
//      recorder integrates the fast models' mean channels (Aggregation::SubstepMean);
//   3. the slow models (thermal) advance once with the step-averaged heat;
//   4. the recorder integrates the macro-step channels and records when its interval is due.
#include <cstddef>
#include <functional>
#include <vector>

#include "racktwin/core/Model.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"

namespace racktwin::core {

class Recorder;
class StateArchive;

class Engine {
 public:
  Engine(const SimulationSpec& simulation, SiteState& state);

  void addFastModel(Model& model);
  void addSlowModel(Model& model);
  void setRecorder(Recorder* recorder) { recorder_ = recorder; }
  /// Queues an event; events may be added before or during the run.
  void schedule(const EventSpec& event);

  void initialize();
  /// Instead of initialize() for a resumed run: initialises the models, then restores the clock,
  /// the event queue, `state` and every model from `archive` (saved by saveState at the same
  /// point of a run of the same scenario). The recorder is restored by its owner.
  void resume(StateArchive& archive);
  /// Saves the clock, the event queue, the coupling data and every model's state.
  void saveState(StateArchive& archive);
  /// Advances one macro step; returns false once the duration is reached.
  bool step();
  void finalize();

  double time() const noexcept { return time_; }
  double duration() const noexcept { return simulation_.duration; }
  std::size_t stepsTaken() const noexcept { return steps_; }
  /// The models in the order they run (fast, then slow).
  const std::vector<Model*>& models() const noexcept { return all_; }

 private:
  void applyDueEvents();
  void visitState(StateArchive& archive);

  SimulationSpec simulation_;
  SiteState& state_;
  std::vector<Model*> fast_;
  std::vector<Model*> slow_;
  std::vector<Model*> all_;
  Recorder* recorder_ = nullptr;
  struct Queued {
    EventSpec event;
    std::size_t sequence;
  };
  std::vector<Queued> queue_;  // a min-heap on (time, sequence)
  std::size_t sequence_ = 0;
  double time_ = 0.0;
  std::size_t steps_ = 0;
  std::size_t total_steps_ = 0;
};

}  // namespace racktwin::core
