#include "Simulation.hpp"

#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>

#include "racktwin/core/OutputDetail.hpp"
#include "racktwin/core/ThreadPool.hpp"
#include "racktwin/scenarios/OutputPlan.hpp"
#include "racktwin/scenarios/Twin.hpp"
#include "racktwin/viz/LiveFrames.hpp"
#include "racktwin/viz/SiteGeometry.hpp"

namespace racktwin::gui {

// Collects the recorder's rows in the worker thread until the next hand-over.
class SimulationWorker::ForwardSink : public core::RecorderSink {
 public:
  explicit ForwardSink(const viz::LiveFrames& live) : live_(live) {}
  void open(const core::RunMetadata& metadata,
            const std::vector<core::ChannelInfo>& channels) override {
    opened.metadata = metadata;
    opened.channels = channels;
  }
  void append(double time, std::span<const double> row) override {
    pending.times.push_back(time);
    pending.rows.insert(pending.rows.end(), row.begin(), row.end());
    const std::vector<double>& frame = live_.latest().values;
    pending.frames.insert(pending.frames.end(), frame.begin(), frame.end());
  }
  void close(bool /*complete*/, std::string_view /*summary_json*/) override {}

  RunOpened opened;
  SampleBatch pending;

 private:
  const viz::LiveFrames& live_;
};

SimulationWorker::SimulationWorker(core::SiteSpec site) : site_(std::move(site)) {}
SimulationWorker::~SimulationWorker() = default;

void SimulationWorker::open() {
  try {
    twin_ = std::make_unique<scenarios::Twin>(site_, core::ThreadPool::defaultThreads());
    geometry_ = std::make_unique<viz::SiteGeometry>(viz::SiteGeometry::build(twin_->site()));
    live_ = std::make_unique<viz::LiveFrames>(*geometry_, twin_->layout());
    sink_ = std::make_unique<ForwardSink>(*live_);
    detail_ = std::make_unique<core::DetailSink>(scenarios::detailPlanOf(twin_->site()), *sink_);
    twin_->addSink(*live_);
    twin_->addSink(*detail_);
    twin_->initialize();
    emit opened(sink_->opened);
    flush();
    emit idle(twin_->time());
  } catch (const std::exception& error) {
    done_ = true;
    emit failed(QString::fromStdString(error.what()));
  }
}

void SimulationWorker::flush() {
  if (!sink_->pending.times.empty()) {
    emit samples(std::move(sink_->pending));
    sink_->pending = SampleBatch{};
  }
  emit progress(twin_->time(), target_, twin_->duration());
}

void SimulationWorker::runUntil(double t) {
  if (!twin_ || done_) return;
  target_ = std::min(t, twin_->duration());
  if (!slice_queued_) {
    slice_queued_ = true;
    QTimer::singleShot(0, this, &SimulationWorker::slice);
  }
}

void SimulationWorker::stopHere() {
  if (twin_) target_ = twin_->time();
  interrupt_.store(false);
  emit idle(twin_ ? twin_->time() : 0.0);
}

void SimulationWorker::schedule(core::EventSpec event) {
  if (!twin_ || done_) return;
  twin_->schedule(std::move(event));
}

void SimulationWorker::slice() {
  slice_queued_ = false;
  if (!twin_ || done_) return;
  // A slice of at most ~40 ms of wall time, so queued requests (events, new targets, cancel) are
  // served between slices and the window gets fresh rows at about 25 Hz.
  QElapsedTimer clock;
  clock.start();
  const double step = twin_->site().simulation.step;
  bool more = true;
  try {
    while (!interrupt_.load() && twin_->time() + 0.5 * step < target_ && clock.elapsed() < 40) {
      more = twin_->step();
      if (!more) break;
    }
  } catch (const std::exception& error) {
    done_ = true;
    flush();
    emit failed(QString::fromStdString(error.what()));
    return;
  }
  flush();
  if (!more || twin_->time() + 0.5 * step >= twin_->duration()) {
    finishRun();
    return;
  }
  if (interrupt_.load() || twin_->time() + 0.5 * step >= target_) {
    emit idle(twin_->time());
    return;
  }
  slice_queued_ = true;
  QTimer::singleShot(0, this, &SimulationWorker::slice);
}

void SimulationWorker::finishRun() {
  if (!twin_ || done_) return;
  done_ = true;
  try {
    const bool complete = twin_->time() + 0.5 * twin_->site().simulation.step >= twin_->duration();
    const core::Summary summary = twin_->finish(complete);
    flush();
    emit finished(QString::fromStdString(summary.toJson()), complete);
  } catch (const std::exception& error) {
    emit failed(QString::fromStdString(error.what()));
  }
}

Simulation::Simulation(core::SiteSpec site, QObject* parent)
    : QObject(parent), worker_(new SimulationWorker(std::move(site))) {
  qRegisterMetaType<SampleBatch>();
  qRegisterMetaType<RunOpened>();
  qRegisterMetaType<core::EventSpec>();
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
  thread_.setObjectName("racktwin-simulation");
  thread_.start();
}

Simulation::~Simulation() {
  worker_->interrupt();
  thread_.quit();
  thread_.wait();
}

void Simulation::runUntil(double t) {
  QMetaObject::invokeMethod(
      worker_, [w = worker_, t] { w->runUntil(t); }, Qt::QueuedConnection);
}

void Simulation::schedule(const core::EventSpec& event) {
  QMetaObject::invokeMethod(
      worker_, [w = worker_, event] { w->schedule(event); }, Qt::QueuedConnection);
}

void Simulation::cancel() {
  // Stop the slice in progress at once, then drop the target once queued requests are served.
  worker_->interrupt();
  QMetaObject::invokeMethod(
      worker_, [w = worker_] { w->stopHere(); }, Qt::QueuedConnection);
}

void Simulation::finishRun() {
  worker_->interrupt();
  QMetaObject::invokeMethod(
      worker_, [w = worker_] { w->finishRun(); }, Qt::QueuedConnection);
}

}  // namespace racktwin::gui
