#pragma once
// The co-simulation clock. One macro step of length `step`:
//   1. events due at or before the step's start are applied (in time order, then file order);
//   2. the fast models (workload, electrical) advance in `substeps` sub-steps; after each the
//      recorder integrates the fast models' mean channels (Aggregation::SubstepMean);
//   3. the slow models (thermal) advance once with the step-averaged heat;
//   4. the recorder integrates the macro-step channels and records when its interval is due.
//
// With SimulationSpec::fast_forward the macro step varies: a whole number n of fine steps
// (`step`), 1 <= n <= max_step / step. Every step boundary lies on the fine grid; a step never
// crosses a record time, the end of the run or the fine-grid time at which a queued event is
// applied, and a step of max_step ends on a multiple of max_step. The step is one fine step at an
// event and for `settle` after it. Otherwise the rule looks at the largest change of any GPU
// junction temperature (SiteState::gpu_T_junction) over the last step, scaled to the preferred
// length (a step cut short by a record or an event counts at its rate): at most half the
// tolerance, the preferred length doubles; at most the tolerance, it holds; up to twice the
// tolerance, it halves; beyond, or when any GPU's throttle or shutdown flag or any rack's power
// flag changed (their counts), it falls back to one fine step. The sequence depends only on the
// scenario and its seed.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "racktwin/core/Model.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"

namespace racktwin::core {

class Recorder;
class StateArchive;
class ThreadPool;

class Engine {
 public:
  Engine(const SimulationSpec& simulation, SiteState& state);

  void addFastModel(Model& model);
  void addSlowModel(Model& model);
  void setRecorder(Recorder* recorder) { recorder_ = recorder; }
  /// The engine's own per-step work (zeroing the step accumulators) on these threads; the models
  /// get the pool from their owner (Model::useThreads). Null: on the caller.
  void useThreads(ThreadPool* pool) noexcept { pool_ = pool; }
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
  /// The time the next step() will reach (the step rule above), for drivers that act at
  /// boundaries inside a step (the peak day).
  double nextStepEnd() const noexcept;
  double duration() const noexcept { return simulation_.duration; }
  std::size_t stepsTaken() const noexcept { return steps_; }
  /// Steps of one fine step so far (all of them without fast-forward).
  std::size_t fineStepsTaken() const noexcept { return fine_steps_taken_; }
  /// The longest step taken so far, s.
  double longestStep() const noexcept { return longest_step_; }
  /// The models in the order they run (fast, then slow).
  const std::vector<Model*>& models() const noexcept { return all_; }
  /// Checks from now on, around every call of a model (initialise, events, steps), that it
  /// changed only the coupling fields it declares it writes (a fingerprint of every field before
  /// and after: O(state) per call, for tests). What it finds is kept in undeclaredWrites().
  void watchCouplingWrites() noexcept { watch_ = true; }
  const std::vector<std::string>& undeclaredWrites() const noexcept { return undeclared_; }

  /// Times from now on each model's advance and the recorder's work in every step (a clock read
  /// around each call, some 30 a step: for benchmarks, which print where a step's time goes).
  void timeSteps() noexcept { timing_ = true; }
  struct PartTime {
    std::string name;  // a model's name(), "recorder", or "engine" (the rest of step())
    double seconds = 0.0;
  };
  /// Wall time of step() since timeSteps() by part: each model's advance (in models() order, its
  /// passes on the threads included), the recorder's sub-step integration and step sample, and
  /// the rest (events, zeroing the accumulators, the step rule). All zero without timeSteps().
  std::vector<PartTime> stepTimes() const;

 private:
  bool watch_ = false;
  bool timing_ = false;
  std::vector<double> model_s_;  // s, per model in all_ order (timeSteps)
  double recorder_s_ = 0.0;      // s
  double step_s_ = 0.0;          // s, all of step()
  /// call(), its wall time added to `seconds` while timeSteps() is on.
  template <class Call>
  void timed(double& seconds, Call&& call);
  std::vector<std::string> undeclared_;
  /// call() on the model, under watchCouplingWrites when it is on.
  template <class Call>
  void watched(const Model& model, Call&& call);
  /// step() itself (timed as a whole when timeSteps() is on).
  bool advanceStep();
  /// Applies the events due at the step's start; returns whether any was.
  bool applyDueEvents();
  bool eventDue() const noexcept;
  /// Fine steps of the next step (1 without fast-forward).
  std::uint64_t plannedFineSteps() const noexcept;
  /// Fast-forward: measures the step just taken and chooses the preferred length of the next.
  void adaptStep(std::uint64_t taken);
  /// GPUs throttled or shut down plus racks without power: a change is a transient.
  std::uint64_t monitoredFlags() const noexcept;
  void visitState(StateArchive& archive);

  SimulationSpec simulation_;
  SiteState& state_;
  std::vector<Model*> fast_;
  std::vector<Model*> slow_;
  std::vector<Model*> all_;
  Recorder* recorder_ = nullptr;
  ThreadPool* pool_ = nullptr;
  struct Queued {
    EventSpec event;
    std::size_t sequence;
  };
  std::vector<Queued> queue_;  // a min-heap on (time, sequence)
  std::size_t sequence_ = 0;
  double time_ = 0.0;             // s, fine_index_ * step
  std::uint64_t fine_index_ = 0;  // fine steps from the start to time_
  std::size_t steps_ = 0;         // macro steps taken
  std::size_t total_steps_ = 0;   // fine steps of the run
  // Fast-forward (SimulationSpec::fast_forward).
  std::uint64_t max_fine_ = 1;        // fine steps of max_step
  std::uint64_t record_fine_ = 1;     // fine steps of the record interval
  std::uint64_t preferred_fine_ = 1;  // length the step rule asks for next
  std::uint64_t settle_fine_ = 0;     // fine steps of the settle time
  std::uint64_t settle_until_ = 0;    // fine index before which steps stay fine
  std::vector<double> T_previous_;    // K, gpu_T_junction at the last step's start
  std::uint64_t flags_previous_ = 0;  // throttled + shut-down GPUs + unpowered racks then
  std::size_t fine_steps_taken_ = 0;  // steps of one fine step
  double longest_step_ = 0.0;         // s
};

}  // namespace racktwin::core
