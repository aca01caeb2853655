#pragma once
// The live simulation, off the GUI thread. SimulationWorker owns the Twin and lives in its own
// QThread; it advances the Twin in slices of a few tens of milliseconds of wall time toward a
// target time and hands over copies of the recorded rows by queued signals, so the window never
// waits for the solver and never reads the Twin's state. Simulation is its GUI-thread handle.
#include <QObject>
#include <QString>
#include <QThread>

#include <atomic>
#include <memory>
#include <vector>

#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::scenarios {
class Twin;
}
namespace racktwin::core {
class DetailSink;
}
namespace racktwin::viz {
class LiveFrames;
class SiteGeometry;
}  // namespace racktwin::viz

namespace racktwin::gui {

/// Recorded rows handed from the worker to the window.
struct SampleBatch {
  std::vector<double> times;
  std::vector<double> rows;    // times.size() rows, each the recorder's full row
  std::vector<double> frames;  // times.size() viz::Frame::values, one per sample
};

/// What the recorder declared when the run opened.
struct RunOpened {
  core::RunMetadata metadata;
  std::vector<core::ChannelInfo> channels;
};

class SimulationWorker : public QObject {
  Q_OBJECT
 public:
  explicit SimulationWorker(core::SiteSpec site);
  ~SimulationWorker() override;

  /// Stops the slice in progress at its next step (safe from any thread).
  void interrupt() { interrupt_.store(true); }

 public slots:
  /// Builds and initialises the Twin; emits opened() and the first sample.
  void open();
  /// Runs until simulated time t (clamped to the duration) or until interrupted.
  void runUntil(double t);
  /// Drops the target: the run waits where it is (after interrupt(), which stops a slice at once).
  void stopHere();
  /// Queues a what-if event; it applies at the start of the next step.
  void schedule(racktwin::core::EventSpec event);
  /// Ends the run: Twin::finish, then finished().
  void finishRun();

 signals:
  void opened(racktwin::gui::RunOpened run);
  void samples(racktwin::gui::SampleBatch batch);
  void progress(double time, double target, double duration);
  /// The target time was reached (or the run was interrupted there).
  void idle(double time);
  void finished(QString summary_json, bool complete);
  void failed(QString message);

 private:
  class ForwardSink;
  void slice();
  void flush();

  core::SiteSpec site_;
  std::unique_ptr<scenarios::Twin> twin_;
  std::unique_ptr<viz::SiteGeometry> geometry_;
  std::unique_ptr<viz::LiveFrames> live_;  // reduces each sample to a scene frame
  std::unique_ptr<ForwardSink> sink_;      // added after live_, so it sees the sample's frame
  // The result's level of detail between the twin and sink_: the window keeps what a batch run
  // would write (every GPU on a small site, aggregates on a large one: core/OutputDetail.hpp).
  std::unique_ptr<core::DetailSink> detail_;
  double target_ = 0.0;
  bool slice_queued_ = false;
  bool done_ = false;
  std::atomic<bool> interrupt_{false};
};

/// The window's handle on a worker: starts the thread, forwards requests, stops it on delete.
class Simulation : public QObject {
  Q_OBJECT
 public:
  explicit Simulation(core::SiteSpec site, QObject* parent = nullptr);
  ~Simulation() override;

  SimulationWorker* worker() const noexcept { return worker_; }
  void runUntil(double t);
  void schedule(const core::EventSpec& event);
  /// Stops the run in progress where it is (pause or cancel).
  void cancel();
  void finishRun();

 private:
  QThread thread_;
  SimulationWorker* worker_;
};

}  // namespace racktwin::gui

Q_DECLARE_METATYPE(racktwin::gui::SampleBatch)
Q_DECLARE_METATYPE(racktwin::gui::RunOpened)
Q_DECLARE_METATYPE(racktwin::core::EventSpec)
