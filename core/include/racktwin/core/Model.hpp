#pragma once
// The interface every domain model (workload, electrical, thermal) implements, in the shape of a
// co-simulation participant: initialize, advance(dt) many times, finalize.
#include <string>
#include <string_view>
#include <vector>

#include "racktwin/core/CouplingFields.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"

namespace racktwin::core {

class Recorder;
class StateArchive;
class Summary;
class ThreadPool;

class Model {
 public:
  virtual ~Model() = default;

  virtual std::string_view name() const = 0;
  /// The SiteState fields this model writes and reads (CouplingFields.hpp): a twin checks that
  /// each field has one writer and every field read has one. The default declares nothing, which
  /// a twin refuses.
  virtual CouplingFields couplingFields() const { return {}; }
  /// Sets the initial state and the coupling fields this model owns.
  virtual void initialize(SiteState& state) = 0;
  /// Advances from `t` to `t + dt`. @pre dt > 0
  virtual void advance(double t, double dt, SiteState& state) = 0;
  /// Applies a scenario event if it concerns this model; returns whether it did.
  virtual bool applyEvent(const EventSpec& /*event*/, SiteState& /*state*/) { return false; }
  /// Registers the recorder channels this model offers (pointers must stay valid for the run).
  virtual void declareChannels(Recorder& /*recorder*/) {}
  virtual void finalize(SiteState& /*state*/) {}
  /// The run's threads for the model's data-parallel passes (ThreadPool.hpp); a model without
  /// such passes ignores them. Results are the same for any number of threads.
  virtual void useThreads(ThreadPool& /*pool*/) {}
  /// Adds this model's run metrics.
  virtual void summarise(Summary& /*summary*/) const {}
  /// Appends what the run so far gives reason to doubt, one sentence a line (a controller that
  /// hunts at the control step, say): the program prints them as warnings with the summary.
  virtual void runWarnings(std::vector<std::string>& /*lines*/) const {}
  /// Saves or restores every value of this model that a run changes (StateArchive.hpp), for the
  /// checkpoints a run resumes from; `state` is the run's coupling data (saved by the engine).
  /// A model that lists no state cannot be resumed: the default refuses rather than resume it
  /// from its initial state.
  virtual void visitState(StateArchive& /*archive*/, const SiteState& /*state*/) {
    throw RuntimeError("the " + std::string(name()) + " model cannot save its state for a resume");
  }
};

}  // namespace racktwin::core
