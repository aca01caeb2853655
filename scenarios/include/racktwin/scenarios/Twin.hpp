#pragma once
// Twin: one simulated site, assembled from a SiteSpec — the workload executor and electrical model
// (fast, sub-stepped), the cooling model (slow), the engine that clocks them, and the recorder.
// All state lives in the Twin object, so two twins can run in two threads.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "racktwin/core/Engine.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/Summary.hpp"

namespace racktwin::core {
class LimitMonitor;
}

namespace racktwin::thermal {
class CoolingModel;
}

namespace racktwin::scenarios {

class Twin {
 public:
  /// `threads`: threads of the models' data-parallel passes (core::ThreadPool); the results are
  /// the same bits for any number.
  explicit Twin(core::SiteSpec site, unsigned threads = 1);
  ~Twin();
  Twin(const Twin&) = delete;
  Twin& operator=(const Twin&) = delete;

  /// Adds a sink (e.g. the HDF5 file); call before initialize(). The Twin does not own it.
  void addSink(core::RecorderSink& sink);
  /// Opens the sinks and sets the initial state (t = 0, first sample).
  void initialize();
  /// Instead of initialize() for a resumed run: opens the sinks (a sink set to resume continues
  /// its file after the records already taken) and restores the state saveState() gave at the end
  /// of a step of a run of the same scenario. Throws core::RuntimeError when the bytes do not fit
  /// this twin (another scenario or build) or are cut short.
  void resume(std::string_view state);
  /// The run's state at the end of the last step (clock, events, models, recorder), after the
  /// sinks have made every record taken so far durable: a checkpoint to resume() from. `buffer`
  /// lends its storage (pass the last checkpoint's bytes back to save without new pages).
  std::string saveState(std::string buffer = {});

  /// Queues an event during the run (a what-if: a pump trip, a set-point, a feed loss). One dated
  /// before time() is moved to time(); it applies at the start of the next step, as file events do.
  /// Targets are component ids; an event whose target no model knows changes nothing.
  void schedule(core::EventSpec event);
  /// Advances one macro step; false once the duration is reached.
  bool step();
  /// Finalises the models, builds the summary and closes the sinks (complete = ran to the end).
  core::Summary finish(bool complete);

  double time() const;
  double duration() const;
  const core::SiteSpec& site() const noexcept;
  const core::SiteLayout& layout() const noexcept;
  const core::SiteState& state() const noexcept;
  const thermal::CoolingModel& cooling() const noexcept;
  const core::Recorder& recorder() const noexcept;
  /// The design limits checked at every record (worst margins, violations; LimitMonitor.hpp).
  const core::LimitMonitor& limits() const noexcept;
  /// The models' warnings about the run so far (core::Model::runWarnings), in model order.
  std::vector<std::string> runWarnings() const;
  /// From now on, checks around every call of a model that it changed only the coupling fields
  /// it declares (core::Engine::watchCouplingWrites; slow, for tests); what it found so far.
  void watchCouplingWrites() noexcept;
  const std::vector<std::string>& undeclaredCouplingWrites() const noexcept;
  /// From now on, times each model's part of every step (core::Engine::timeSteps; for
  /// benchmarks); the wall time of the steps since, by part.
  void timeSteps() noexcept;
  std::vector<core::Engine::PartTime> stepTimes() const;
  /// Threads of the models' passes (the caller's included).
  unsigned threads() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace racktwin::scenarios
