#include "MainWindow.hpp"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QComboBox>
#include <QDateTime>
#include <QDesktopServices>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QSplitter>
#include <QStatusBar>
#include <QSurfaceFormat>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include <vtkCamera.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkRenderer.h>

#include "ChartPanel.hpp"
#include "ResultReport.hpp"
#include "SiteTree.hpp"
#include "VtkView.hpp"
#include "WhatIfPanel.hpp"
#include "racktwin/core/DisplayUnits.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/scenarios/ResultScenario.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/viz/ResultFrames.hpp"
#include "racktwin/viz/Scene.hpp"
#include "racktwin/viz/SceneVtk.hpp"
#include "racktwin/viz/SiteGeometry.hpp"

namespace racktwin::gui {

namespace {

constexpr int kTickMs = 33;  // timeline and view refresh, ~30 Hz

struct SpeedChoice {
  const char* label;
  double speed;  // simulated s per wall s; 0 = as fast as it goes
};
constexpr SpeedChoice kSpeeds[] = {{"1×", 1.0},     {"10×", 10.0},     {"60×", 60.0},
                                   {"300×", 300.0}, {"1800×", 1800.0}, {"max", 0.0}};

QString formatTime(double t) {
  const long long s = static_cast<long long>(std::floor(t + 1e-9));
  return QString("%1:%2:%3")
      .arg(s / 3600, 2, 10, QChar('0'))
      .arg((s / 60) % 60, 2, 10, QChar('0'))
      .arg(s % 60, 2, 10, QChar('0'));
}

/// A recorded value in the user's units (core::displayUnitFor), with about four significant digits.
QString formatValue(double value, const std::string& unit, core::UnitSystem units) {
  if (!std::isfinite(value)) return "–";
  const core::DisplayUnit shown = core::displayUnitFor(unit, units, std::abs(value));
  const double v = value * shown.scale + shown.offset;
  const double magnitude = std::abs(v);
  const int decimals =
      magnitude == 0.0 ? 0
                       : std::clamp(3 - static_cast<int>(std::floor(std::log10(magnitude))), 0, 6);
  const QString text = magnitude != 0.0 && (magnitude < 1e-3 || magnitude >= 1e7)
                           ? QString::number(v, 'g', 4)
                           : QString::number(v, 'f', decimals);
  const std::string suffix = unitText(shown.unit);
  return suffix.empty() || suffix == "1" ? text : text + " " + QString::fromStdString(suffix);
}

}  // namespace

void setDefaultSurfaceFormat() {
  QSurfaceFormat format;
  format.setRenderableType(QSurfaceFormat::OpenGL);
  format.setVersion(3, 2);
  format.setProfile(QSurfaceFormat::CoreProfile);
  format.setDepthBufferSize(8);
  format.setAlphaBufferSize(8);
  format.setStencilBufferSize(0);
  format.setSamples(0);
  QSurfaceFormat::setDefaultFormat(format);
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  buildUi();
  buildMenus();
  timer_ = new QTimer(this);
  timer_->setInterval(kTickMs);
  connect(timer_, &QTimer::timeout, this, &MainWindow::onTick);
  timer_->start();
  setWindowTitle("RackTwin");
  resize(1280, 800);
}

MainWindow::~MainWindow() {
  simulation_.reset();  // stops the worker thread before the data it feeds goes away
  if (scene_ && renderer_) viz::removeFromRenderer(*scene_, renderer_);
}

vtkRenderer* MainWindow::renderer() const noexcept {
  return renderer_.GetPointer();
}

const viz::SiteGeometry* MainWindow::geometry() const noexcept {
  return geometry_.get();
}

void MainWindow::buildUi() {
  // Centre: the 3D view over the charts.
  view_ = new VtkView();
  renderer_ = vtkSmartPointer<vtkRenderer>::New();
  renderer_->SetBackground(0.96, 0.96, 0.97);
  view_->renderWindow()->AddRenderer(renderer_);
  connect(view_, &VtkView::clicked, this, [this](int x, int y) { pickAt(x, y); });
  charts_ = new ChartPanel();
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(view_);
  splitter->addWidget(charts_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  setCentralWidget(splitter);

  // Left: search, tree, details.
  auto* left = new QWidget();
  auto* left_layout = new QVBoxLayout(left);
  left_layout->setContentsMargins(4, 4, 4, 4);
  search_ = new QLineEdit();
  search_->setPlaceholderText("Search racks, trays, CDUs… (e.g. rack03, cdu, gpu2)");
  search_->setClearButtonEnabled(true);
  tree_model_ = new SiteTreeModel(this);
  tree_filter_ = new SiteTreeFilter(this);
  tree_filter_->setSourceModel(tree_model_);
  tree_ = new QTreeView();
  tree_->setModel(tree_filter_);
  tree_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  tree_->setUniformRowHeights(true);
  tree_->header()->setVisible(false);
  connect(search_, &QLineEdit::textChanged, this, [this](const QString& text) {
    tree_filter_->setFilterFixedString(text);
    if (!text.isEmpty()) tree_->expandAll();
  });
  connect(tree_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          &MainWindow::onSelectionChanged);
  details_ = new QTextBrowser();
  details_->setMinimumHeight(140);
  auto* left_split = new QSplitter(Qt::Vertical);
  auto* tree_box = new QWidget();
  auto* tree_layout = new QVBoxLayout(tree_box);
  tree_layout->setContentsMargins(0, 0, 0, 0);
  tree_layout->addWidget(search_);
  tree_layout->addWidget(tree_);
  left_split->addWidget(tree_box);
  left_split->addWidget(details_);
  left_split->setStretchFactor(0, 3);
  left_split->setStretchFactor(1, 2);
  left_layout->addWidget(left_split);
  auto* left_dock = new QDockWidget("Site", this);
  left_dock->setObjectName("site_dock");
  left_dock->setWidget(left);
  left_dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  addDockWidget(Qt::LeftDockWidgetArea, left_dock);

  // Right: what-if.
  what_if_ = new WhatIfPanel();
  connect(what_if_, &WhatIfPanel::eventRequested, this, &MainWindow::onEventRequested);
  auto* right_dock = new QDockWidget("What-if", this);
  right_dock->setObjectName("whatif_dock");
  right_dock->setWidget(what_if_);
  right_dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable
                          | QDockWidget::DockWidgetClosable);
  addDockWidget(Qt::RightDockWidgetArea, right_dock);
  resizeDocks({left_dock, right_dock}, {300, 280}, Qt::Horizontal);

  // Top: colour quantity.
  auto* top = addToolBar("View");
  top->setObjectName("view_toolbar");
  top->addWidget(new QLabel(" Colour by "));
  quantity_box_ = new QComboBox();
  for (const Quantity q : viz::kAllQuantities)
    quantity_box_->addItem(display(q).label, static_cast<int>(q));
  connect(quantity_box_, &QComboBox::currentIndexChanged, this, [this](int index) {
    setQuantity(static_cast<Quantity>(quantity_box_->itemData(index).toInt()));
  });
  top->addWidget(quantity_box_);

  // Bottom: the timeline.
  auto* timeline = new QToolBar("Timeline");
  timeline->setObjectName("timeline_toolbar");
  addToolBar(Qt::BottomToolBarArea, timeline);
  play_button_ = new QToolButton();
  play_button_->setText("▶ Play");
  play_button_->setToolTip("Play / pause (space)");
  play_button_->setShortcut(Qt::Key_Space);
  connect(play_button_, &QToolButton::clicked, this, [this] { playing_ ? pause() : play(); });
  timeline->addWidget(play_button_);
  speed_box_ = new QComboBox();
  for (const SpeedChoice& choice : kSpeeds)
    speed_box_->addItem(choice.label, choice.speed);
  speed_box_->setCurrentIndex(2);
  speed_box_->setToolTip("Simulated seconds per wall-clock second");
  connect(speed_box_, &QComboBox::currentIndexChanged, this,
          [this](int index) { setSpeed(speed_box_->itemData(index).toDouble()); });
  timeline->addWidget(speed_box_);
  slider_ = new QSlider(Qt::Horizontal);
  slider_->setRange(0, 0);
  slider_->setMinimumWidth(300);
  slider_->setToolTip("Scrub through the recorded samples");
  connect(slider_, &QSlider::valueChanged, this, &MainWindow::onSliderMoved);
  timeline->addWidget(slider_);
  time_label_ = new QLabel("00:00:00");
  time_label_->setMinimumWidth(160);
  timeline->addWidget(time_label_);
  progress_ = new QProgressBar();
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(160);
  progress_->setFormat("simulated %p%");
  timeline->addWidget(progress_);
  cancel_button_ = new QPushButton("Stop");
  cancel_button_->setToolTip("Stop the simulation where it is");
  cancel_button_->setEnabled(false);
  connect(cancel_button_, &QPushButton::clicked, this, [this] {
    pause();
    if (simulation_) simulation_->cancel();
  });
  timeline->addWidget(cancel_button_);
  statusBar()->showMessage("Open a scenario (.yaml) or a result (.h5)");
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu("&File");
  file->addAction("&Open scenario or result…", QKeySequence::Open, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, "Open", QString(), "Scenarios and results (*.yaml *.yml *.h5);;All files (*)");
    QString error;
    if (!path.isEmpty() && !openFile(path, &error)) QMessageBox::warning(this, "Open", error);
  });
  file->addAction("&Restart the run", this, [this] {
    QString error;
    if (site_ && !source_path_.isEmpty() && !openScenario(source_path_, &error))
      QMessageBox::warning(this, "Restart", error);
  });
  file->addAction("&Save result as…", QKeySequence::Save, this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, "Save result", "result.h5", "RackTwin result (*.h5)");
    QString error;
    if (!path.isEmpty() && !saveResult(path, &error))
      QMessageBox::warning(this, "Save result", error);
  });
  file->addAction("Open &report of the result", this,
                  [this] {
                    QString error;
                    if (openReport(&error).isEmpty())
                      QMessageBox::warning(this, "Open report", error);
                  })
      ->setObjectName("open_report");
  file->addAction("Export &screenshot…", this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, "Export screenshot", "racktwin.png", "PNG (*.png)");
    if (!path.isEmpty() && !grabWindow().save(path, "PNG"))
      QMessageBox::warning(this, "Export screenshot", "Cannot write " + path);
  });
  file->addAction("Export &3D view…", this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, "Export 3D view", "racktwin-3d.png", "PNG (*.png)");
    if (!path.isEmpty() && !grabView().save(path, "PNG"))
      QMessageBox::warning(this, "Export 3D view", "Cannot write " + path);
  });
  file->addSeparator();
  file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);
  QMenu* run = menuBar()->addMenu("&Run");
  run->addAction("&End the run now", this, [this] {
    pause();
    if (simulation_ && !run_finished_) simulation_->finishRun();
  });
  run->addAction("Run &summary", this, [this] {
    QMessageBox::information(this, "Run summary",
                             summary_json_.isEmpty()
                                 ? QString("The summary is made when the run ends (Run > End the "
                                           "run now, or play it to the end).")
                                 : summary_json_);
  });
  QMenu* view = menuBar()->addMenu("&View");
  view->addAction("Reset &camera", this, [this] {
    camera_pending_ = true;
    refreshView();
  });
  QMenu* units = view->addMenu("&Units");
  auto* unit_group = new QActionGroup(this);
  for (const auto& [text, system] :
       {std::pair{"&SI (°C, kW, L/min, kPa)", core::UnitSystem::SI},
        std::pair{"&US customary (°F, kW, gpm, psi)", core::UnitSystem::US}}) {
    QAction* action = units->addAction(text, this, [this, s = system] { setUnitSystem(s); });
    action->setCheckable(true);
    action->setChecked(system == units_);
    action->setObjectName(system == core::UnitSystem::SI ? "units_si" : "units_us");
    unit_group->addAction(action);
  }
}

void MainWindow::clearSite() {
  simulation_.reset();
  ++run_generation_;
  pause();
  if (scene_) viz::removeFromRenderer(*scene_, renderer_);
  scene_.reset();
  replay_.reset();
  quantities_.reset();
  geometry_.reset();
  site_.reset();
  store_ = ResultStore();
  live_frames_.clear();
  applied_events_.clear();
  summary_json_.clear();
  result_path_.clear();
  run_finished_ = false;
  run_failed_ = false;
  view_t_ = 0.0;
  sim_time_ = 0.0;
  follow_live_ = true;
  charts_->setLines({}, QString(), QString());
  what_if_->setLive(false);
  cancel_button_->setEnabled(false);
  progress_->setValue(0);
}

void MainWindow::setupSite(const core::SiteSpec* site, const viz::SiteGeometry& geometry) {
  geometry_ = std::make_unique<viz::SiteGeometry>(geometry);
  scene_ = std::make_unique<viz::Scene>(*geometry_);
  scene_->setQuantity(quantity_);
  scene_->setUnitSystem(units_);
  viz::addToRenderer(*scene_, renderer_);
  frame_ = viz::Frame(*geometry_);
  if (site != nullptr) {
    tree_model_->build(*site);
    what_if_->setSite(*site);
    scene_->setTitle(site->name);
  } else {
    std::vector<std::string> racks, cdus;
    for (const viz::RackPlacement& rack : geometry_->racks())
      racks.push_back(rack.id);
    for (const viz::CduPlacement& cdu : geometry_->cdus())
      cdus.push_back(cdu.id);
    tree_model_->buildFromIds(QString::fromStdString(store_.metadata().site_name), racks, cdus);
  }
  // Rows and racks open, trays closed: what an engineer looks for first.
  tree_->expandToDepth(2);
  camera_pending_ = true;
  const core::SiteSpec empty;
  quantities_ = std::make_unique<Quantities>(site != nullptr ? *site : empty, store_);
  applyRange();
  // The first rack is selected so the details and charts show something from the start.
  if (!geometry_->racks().empty()) selectEntity(QString::fromStdString(geometry_->racks()[0].id));
  view_->requestRender();
}

void MainWindow::applyRange() {
  if (!scene_) return;
  // Fixed colour ranges keep a colour's meaning over time: a replay uses the run's own extremes,
  // a live run physical bounds (coolant set-point up to the GPUs' slowdown temperature, idle to
  // the rack's full power). Flows have no such natural bound and follow each frame.
  if (replay_) {
    const auto [low, high] = replay_->range(quantity_);
    if (quantity_ == Quantity::DesignMarginUsed && std::isfinite(high)) {
      scene_->setRange(0.0, std::max(100.0, high));  // red at the rating and beyond
    } else if (std::isfinite(low) && std::isfinite(high)) {
      scene_->setRange(low, high);
    } else {
      scene_->setAutoRange();
    }
    return;
  }
  if (!site_ || site_->racks.empty()) {
    scene_->setAutoRange();
    return;
  }
  const core::RackTypeSpec& rack = site_->racks.front().type;
  double T_low = site_->facility.T_supply;
  for (const core::CduSpec& cdu : site_->cdus)
    T_low = std::min(T_low, cdu.T_supply_set);
  switch (quantity_) {
    case Quantity::GpuJunctionTemperature:
      scene_->setRange(T_low, std::max(T_low + 1.0, rack.gpu.T_slowdown));
      break;
    case Quantity::CoolantTemperature:
      scene_->setRange(T_low, T_low + 20.0);
      break;
    case Quantity::RackPower: {
      const double P_max =
          rack.compute_trays
              * (rack.gpus_per_tray * rack.gpu.P_max + rack.cpus_per_tray * rack.cpu.P_max
                 + rack.compute_tray_air_P)
          + rack.switch_trays
                * (rack.switches_per_tray * rack.nvswitch.P_max + rack.switch_tray_air_P);
      scene_->setRange(0.0, std::max(1.0, P_max));
      break;
    }
    case Quantity::CoolantFlow:
    case Quantity::DesignMarginUsed:  // a live run has no design limits until it ends
      scene_->setAutoRange();
      break;
  }
}

bool MainWindow::openFile(const QString& path, QString* error) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == "yaml" || suffix == "yml") return openScenario(path, error);
  return openResult(path, error);
}

bool MainWindow::openScenario(const QString& path, QString* error) {
  core::SiteSpec site;
  try {
    site = scenarios::loadScenario(path.toStdString());
  } catch (const std::exception& failure) {
    if (error) *error = QString::fromStdString(failure.what());
    statusBar()->showMessage(QString::fromStdString(failure.what()));
    return false;
  }
  clearSite();
  source_path_ = path;
  site_ = std::make_unique<core::SiteSpec>(site);
  duration_ = site.simulation.duration;
  setupSite(site_.get(), viz::SiteGeometry::build(*site_));

  simulation_ = std::make_unique<Simulation>(site);
  SimulationWorker* worker = simulation_->worker();
  // Signals of an earlier run may still be queued when a new one starts: each run has its own
  // generation and the window drops what belongs to another.
  const int run = ++run_generation_;
  connect(worker, &SimulationWorker::opened, this, [this, run](const RunOpened& opened) {
    if (run == run_generation_) onOpened(opened);
  });
  connect(worker, &SimulationWorker::samples, this, [this, run](const SampleBatch& batch) {
    if (run == run_generation_) onSamples(batch);
  });
  connect(worker, &SimulationWorker::progress, this,
          [this, run](double time, double target, double duration) {
            if (run == run_generation_) onProgress(time, target, duration);
          });
  connect(worker, &SimulationWorker::finished, this,
          [this, run](const QString& summary, bool complete) {
            if (run == run_generation_) onFinished(summary, complete);
          });
  connect(worker, &SimulationWorker::failed, this, [this, run](const QString& message) {
    if (run == run_generation_) onFailed(message);
  });
  QMetaObject::invokeMethod(worker, &SimulationWorker::open, Qt::QueuedConnection);
  what_if_->setLive(true);
  setWindowTitle("RackTwin – " + QString::fromStdString(site.name) + " (live)");
  statusBar()->showMessage("Live run of " + path + ": press Play, or apply a what-if");
  return true;
}

bool MainWindow::openResult(const QString& path, QString* error) {
  ResultStore store;
  std::unique_ptr<viz::ResultFrames> frames;
  try {
    store = ResultStore::fromHdf5(path.toStdString());
    frames = std::make_unique<viz::ResultFrames>(path.toStdString());
  } catch (const std::exception& failure) {
    if (error) *error = QString::fromStdString(failure.what());
    statusBar()->showMessage(QString::fromStdString(failure.what()));
    return false;
  }
  clearSite();
  source_path_ = path;
  result_path_ = path;
  store_ = std::move(store);
  replay_ = std::move(frames);
  duration_ = store_.lastTime();
  sim_time_ = duration_;  // a result is simulated to its end
  run_finished_ = true;

  // The tree needs the scenario: the one the file stores, else the file it names (the columns
  // are named by the file's ids either way).
  scenarios::ResultScenario loaded =
      scenarios::loadResultScenario(path.toStdString(), store_.metadata().scenario_path);
  if (loaded.site) site_ = std::make_unique<core::SiteSpec>(std::move(*loaded.site));
  const QString problem = QString::fromStdString(loaded.problem);
  if (!site_) {
    // The geometry's rack and CDU names (the file's ids, numbered in a file without them) name
    // the store's columns too, so the tree and the charts agree.
    std::vector<std::string> racks, cdus;
    for (const viz::RackPlacement& rack : replay_->geometry().racks())
      racks.push_back(rack.id);
    for (const viz::CduPlacement& cdu : replay_->geometry().cdus())
      cdus.push_back(cdu.id);
    store_.renameEntities("rack", racks);
    store_.renameEntities("cdu", cdus);
  }
  setupSite(site_.get(), replay_->geometry());
  scene_->setTitle(replay_->siteName());
  what_if_->setLive(false);
  follow_live_ = false;
  setViewTime(0.0);
  updateTimeline();
  setWindowTitle("RackTwin – " + QString::fromStdString(replay_->siteName()) + " (result "
                 + QFileInfo(path).fileName() + ")");
  QString notes;
  for (const std::string& note : replay_->notes())
    notes += "; " + QString::fromStdString(note);
  statusBar()->showMessage(
      "Replaying " + path
      + (site_ ? QString() : " (scenario not found: tree from the result's ids. " + problem + ")")
      + notes);
  charts_dirty_ = true;
  view_dirty_ = true;
  return true;
}

void MainWindow::onOpened(const RunOpened& run) {
  store_.reset(run.metadata, run.channels);
  if (quantities_) quantities_->invalidate();
  live_frames_.clear();
  if (run.metadata.record_interval > 0.0)
    live_frames_.reserve(
        static_cast<std::size_t>(run.metadata.duration / run.metadata.record_interval + 2.0)
        * frame_.values.size());
  cancel_button_->setEnabled(true);
}

void MainWindow::onSamples(const SampleBatch& batch) {
  const std::size_t width = store_.rowWidth();
  const std::size_t frame_width = frame_.values.size();
  if (batch.rows.size() != batch.times.size() * width) return;  // not this run's rows
  for (std::size_t i = 0; i < batch.times.size(); ++i)
    store_.append(batch.times[i], std::span<const double>(batch.rows.data() + i * width, width));
  if (batch.frames.size() == batch.times.size() * frame_width)
    live_frames_.insert(live_frames_.end(), batch.frames.begin(), batch.frames.end());
  if (follow_live_ && !playing_) view_t_ = store_.lastTime();
  charts_dirty_ = true;
  view_dirty_ = true;
}

void MainWindow::onProgress(double time, double /*target*/, double duration) {
  // The bar is updated by the timeline tick: QProgressBar repaints at once on every change, and
  // with a GL child that recomposes the whole window.
  sim_time_ = time;
  duration_ = duration;
}

void MainWindow::onFinished(const QString& summary_json, bool complete) {
  summary_json_ = summary_json;
  run_finished_ = true;
  cancel_button_->setEnabled(false);
  what_if_->setLive(false);
  statusBar()->showMessage(complete ? "The run reached its end" : "The run was ended early");
}

void MainWindow::onFailed(const QString& message) {
  run_failed_ = true;
  run_finished_ = true;
  pause();
  cancel_button_->setEnabled(false);
  what_if_->setLive(false);
  statusBar()->showMessage("The run failed: " + message);
  if (isVisible() && !QApplication::arguments().contains("--run")) {
    // Not modal: the window (and a script or test driving it) goes on.
    auto* box = new QMessageBox(QMessageBox::Warning, "Simulation", "The run failed: " + message,
                                QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
  }
}

bool MainWindow::scheduleEvent(const core::EventSpec& event) {
  if (!simulation_ || run_finished_) return false;
  onEventRequested(event, describe(event));
  return true;
}

void MainWindow::onEventRequested(const core::EventSpec& event, const QString& description) {
  if (!simulation_ || run_finished_) return;
  core::EventSpec now = event;
  now.time = sim_time_;  // the Twin moves it to its own time if that is later
  simulation_->schedule(now);
  applied_events_.emplace_back(sim_time_, description);
  what_if_->logEvent(sim_time_, description);
  statusBar()->showMessage(QString("At t = %1 s: %2").arg(sim_time_, 0, 'f', 0).arg(description));
}

void MainWindow::play() {
  if (store_.samples() == 0 && !simulation_) return;
  // Replaying from the end starts over.
  if (!simulation_ && view_t_ >= endTime()) view_t_ = 0.0;
  playing_ = true;
  last_tick_ms_ = QDateTime::currentMSecsSinceEpoch();
  play_button_->setText("⏸ Pause");
  if (simulation_ && speed_ <= 0.0) {
    follow_live_ = true;
    simulation_->runUntil(duration_);
  }
}

void MainWindow::pause() {
  playing_ = false;
  follow_live_ = false;  // rows still in flight do not move the paused view
  play_button_->setText("▶ Play");
  // A live run stops computing ahead of what the view shows.
  if (simulation_ && !run_finished_) simulation_->cancel();
}

void MainWindow::setSpeed(double speed) {
  speed_ = speed;
  const int index = speed_box_->findData(speed);
  if (index >= 0 && index != speed_box_->currentIndex()) speed_box_->setCurrentIndex(index);
  if (playing_) play();
}

double MainWindow::endTime() const {
  return simulation_ ? duration_ : store_.lastTime();
}

void MainWindow::onTick() {
  const qint64 now = QDateTime::currentMSecsSinceEpoch();
  const double dt_wall = std::clamp(static_cast<double>(now - last_tick_ms_) / 1000.0, 0.0, 0.5);
  last_tick_ms_ = now;
  if (playing_) {
    if (speed_ <= 0.0) {
      view_t_ = store_.lastTime();  // as fast as it goes: follow the newest sample
    } else {
      view_t_ += speed_ * dt_wall;
      if (simulation_ && !run_finished_) {
        // Keep the simulation half a second of wall time ahead of the view.
        simulation_->runUntil(std::min(duration_, view_t_ + 0.5 * speed_ + 1.0));
      }
      view_t_ = std::min(view_t_, store_.lastTime());
    }
    follow_live_ = true;
    view_dirty_ = true;
    if (view_t_ >= endTime() - 1e-9 && (run_finished_ || !simulation_)) pause();
  }
  if (view_dirty_) refreshView();
  const int progress = duration_ > 0.0 ? static_cast<int>(1000.0 * sim_time_ / duration_) : 0;
  if (progress != progress_->value() && now - last_progress_ms_ > 250) {
    progress_->setValue(progress);
    last_progress_ms_ = now;
  }
  // Charts redraw at most ~4 times a second: thousands of points per line.
  if (charts_dirty_ && (++chart_divider_ % 8 == 0 || !playing_)) refreshCharts();
}

void MainWindow::setViewTime(double t) {
  view_t_ = std::clamp(t, 0.0, std::max(0.0, store_.lastTime()));
  follow_live_ = view_t_ >= store_.lastTime();
  view_dirty_ = true;
  refreshView();
}

void MainWindow::onSliderMoved(int value) {
  if (store_.samples() == 0) return;
  const std::size_t sample =
      std::min<std::size_t>(static_cast<std::size_t>(std::max(0, value)), store_.samples() - 1);
  if (store_.sampleAt(view_t_) == sample) return;
  view_t_ = store_.time(sample);
  follow_live_ = sample + 1 == store_.samples();
  view_dirty_ = true;
}

void MainWindow::updateTimeline() {
  const int last = static_cast<int>(store_.samples()) - 1;
  const QSignalBlocker block(slider_);
  slider_->setRange(0, std::max(0, last));
  slider_->setValue(static_cast<int>(store_.sampleAt(view_t_)));
  time_label_->setText(formatTime(view_t_) + " / " + formatTime(endTime()));
}

void MainWindow::refreshView() {
  view_dirty_ = false;
  updateTimeline();
  if (!scene_ || store_.samples() == 0) {
    view_->requestRender();
    return;
  }
  if (camera_pending_ && view_->isVisible() && view_->width() > 0) {
    // Only once the window is laid out: the camera fits the site to the view's final aspect.
    // The camera fits the site to the view's aspect: set the size it will render at first.
    const double dpr = view_->devicePixelRatioF();
    view_->renderWindow()->SetSize(static_cast<int>(view_->width() * dpr),
                                   static_cast<int>(view_->height() * dpr));
    viz::resetCamera(*scene_, renderer_);
    renderer_->ResetCameraClippingRange();
    camera_pending_ = false;
  }
  const std::size_t sample = store_.sampleAt(view_t_);
  if (replay_) {
    replay_->frame(std::min(sample, replay_->size() - 1), frame_);
  } else {
    const std::size_t width = frame_.values.size();
    if ((sample + 1) * width <= live_frames_.size())
      std::copy_n(live_frames_.data() + sample * width, width, frame_.values.data());
    frame_.time = store_.time(sample);
  }
  scene_->update(frame_);
  view_->requestRender();
  charts_->setCursor(store_.time(sample));
  refreshDetails(sample);
  emit viewUpdated(view_t_);
}

std::pair<QString, EntityKind> MainWindow::entityOf(const QModelIndex& proxy_index) const {
  return {proxy_index.data(SiteTreeModel::IdRole).toString(),
          static_cast<EntityKind>(proxy_index.data(SiteTreeModel::KindRole).toInt())};
}

int MainWindow::rackOfEntity(const QString& id) const {
  if (!geometry_) return -1;
  std::string path = id.toStdString();
  while (!path.empty()) {
    const int rack = geometry_->findRack(path);
    if (rack >= 0) return rack;
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos) break;
    path.resize(slash);
  }
  return -1;
}

void MainWindow::onSelectionChanged() {
  const QModelIndexList selected = tree_->selectionModel()->selectedIndexes();
  int rack = -1;
  for (const QModelIndex& index : selected) {
    rack = rackOfEntity(entityOf(index).first);
    if (rack >= 0) break;
  }
  if (scene_) scene_->highlightRack(rack);
  if (!selected.isEmpty()) {
    // The what-if targets follow the pick: a rack, or anything in it, and its CDU.
    const QString id = entityOf(selected.front()).first;
    const int in_rack = rackOfEntity(id);
    what_if_->follow(
        id, in_rack >= 0 ? QString::fromStdString(geometry_->racks()[in_rack].id) : QString());
  }
  charts_dirty_ = true;
  view_dirty_ = true;
}

bool MainWindow::selectEntity(const QString& id) {
  const QModelIndex source = tree_model_->indexOf(id);
  if (!source.isValid()) return false;
  if (!tree_filter_->mapFromSource(source).isValid()) search_->clear();
  const QModelIndex index = tree_filter_->mapFromSource(source);
  tree_->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect);
  tree_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::NoUpdate);
  tree_->scrollTo(index);
  return true;
}

QStringList MainWindow::selectedEntities() const {
  QStringList ids;
  for (const QModelIndex& index : tree_->selectionModel()->selectedIndexes())
    ids << entityOf(index).first;
  return ids;
}

QString MainWindow::pickAt(int x, int y) {
  if (!scene_) return QString();
  const int entity = viz::pickEntity(*scene_, renderer_, x, y);
  if (entity < 0) return QString();
  const QString id = QString::fromStdString(geometry_->entityId(static_cast<std::size_t>(entity)));
  // Pipes are not in the tree: a pipe of a rack selects the rack.
  const int rack = rackOfEntity(id);
  const bool is_cdu =
      static_cast<std::size_t>(entity) >= geometry_->rackCount()
      && static_cast<std::size_t>(entity) < geometry_->rackCount() + geometry_->cduCount();
  const QString chosen =
      is_cdu ? id : (rack >= 0 ? QString::fromStdString(geometry_->racks()[rack].id) : QString());
  if (chosen.isEmpty() || !selectEntity(chosen)) return QString();
  view_->requestRender();
  return chosen;
}

QPoint MainWindow::rackDisplayPosition(const QString& id) {
  if (!geometry_) return {-1, -1};
  const int rack = geometry_->findRack(id.toStdString());
  if (rack < 0) return {-1, -1};
  const viz::Box& box = geometry_->racks()[static_cast<std::size_t>(rack)].box;
  // The centre of the face that looks most directly at the camera: a point of the rack that its
  // neighbours cannot hide (its centre could be behind the nearer rack beside it).
  double camera[3];
  renderer_->GetActiveCamera()->GetPosition(camera);
  double best[3] = {0.0, 0.0, 0.0};
  double best_cos = -2.0;
  for (int axis = 0; axis < 3; ++axis) {
    for (int side = 0; side < 2; ++side) {
      double face[3];
      for (int k = 0; k < 3; ++k)
        face[k] =
            0.5 * (box.min[static_cast<std::size_t>(k)] + box.max[static_cast<std::size_t>(k)]);
      face[axis] = side == 0 ? box.min[static_cast<std::size_t>(axis)]
                             : box.max[static_cast<std::size_t>(axis)];
      double to_camera[3] = {camera[0] - face[0], camera[1] - face[1], camera[2] - face[2]};
      const double length = std::sqrt(to_camera[0] * to_camera[0] + to_camera[1] * to_camera[1]
                                      + to_camera[2] * to_camera[2]);
      const double cosine =
          (side == 0 ? -to_camera[axis] : to_camera[axis]) / std::max(length, 1e-12);
      if (cosine > best_cos) {
        best_cos = cosine;
        std::copy_n(face, 3, best);
      }
    }
  }
  renderer_->SetWorldPoint(best[0], best[1], best[2], 1.0);
  renderer_->WorldToDisplay();
  double display[3];
  renderer_->GetDisplayPoint(display);
  return {static_cast<int>(std::lround(display[0])), static_cast<int>(std::lround(display[1]))};
}

int MainWindow::highlightedRack() const {
  return scene_ ? scene_->highlightedRack() : -1;
}

void MainWindow::setQuantity(Quantity quantity) {
  quantity_ = quantity;
  const int index = quantity_box_->findData(static_cast<int>(quantity));
  if (index >= 0 && index != quantity_box_->currentIndex()) {
    const QSignalBlocker block(quantity_box_);
    quantity_box_->setCurrentIndex(index);
  }
  if (scene_) scene_->setQuantity(quantity);
  applyRange();
  charts_dirty_ = true;
  view_dirty_ = true;
  refreshView();
}

void MainWindow::refreshCharts() {
  charts_dirty_ = false;
  if (!quantities_ || store_.samples() == 0) return;
  std::vector<ChartLine> lines;
  for (const QModelIndex& index : tree_->selectionModel()->selectedIndexes()) {
    if (lines.size() >= 8) break;
    const auto [id, kind] = entityOf(index);
    if (kind == EntityKind::Group) continue;
    ChartLine line;
    line.name = id.isEmpty() ? QString("site") : id;
    line.t = store_.times();
    line.y = quantities_->series(id.toStdString(), kind, quantity_);
    lines.push_back(std::move(line));
  }
  // One unit for every line, chosen by the largest value shown (kW or MW, never W in exponents).
  double magnitude = 0.0;
  for (const ChartLine& line : lines)
    for (const double y : line.y)
      if (std::isfinite(y)) magnitude = std::max(magnitude, std::abs(y));
  const QuantityDisplay shown = display(quantity_, units_, magnitude);
  for (ChartLine& line : lines)
    for (double& y : line.y)
      y = y * shown.scale + shown.offset;
  charts_->setLines(lines, shown.label, QString::fromStdString(shown.unit));
  charts_->setCursor(view_t_);
}

void MainWindow::refreshDetails(std::size_t sample) {
  const QModelIndexList selected = tree_->selectionModel()->selectedIndexes();
  if (selected.isEmpty() || !quantities_) {
    details_->setHtml(
        "<p style='color:gray'>Click a rack in the 3D view or pick an entity in "
        "the tree.</p>");
    return;
  }
  const auto [id, kind] = entityOf(selected.front());
  QString html = "<b>" + (id.isEmpty() ? QString("Site") : id.toHtmlEscaped()) + "</b>";
  html +=
      QString("<br><span style='color:gray'>t = %1 s</span>").arg(store_.time(sample), 0, 'f', 0);
  html += "<table cellspacing='2'>";
  for (const Quantity q : viz::kAllQuantities) {
    const double value = quantities_->value(id.toStdString(), kind, q, sample);
    if (!std::isfinite(value)) continue;
    const QuantityDisplay shown = display(q, units_, std::abs(value));
    html += QString("<tr><td>%1</td><td align='right'><b>%2</b> %3</td></tr>")
                .arg(shown.label)
                .arg(value * shown.scale + shown.offset, 0, 'f', 2)
                .arg(QString::fromStdString(shown.unit));
  }
  // Every recorded channel of exactly this entity.
  if (!id.isEmpty()) {
    const std::string key = id.toStdString();
    for (std::size_t c = 0; c < store_.channels().size(); ++c) {
      const ResultStore::Channel& channel = store_.channels()[c];
      const auto column = channel.column_of.find(key);
      if (column == channel.column_of.end()) continue;
      // An argmax or a hottest ranking names a GPU (CPU, tray) by its index: show its id.
      const double value = store_.value(sample, c, column->second);
      const std::optional<std::string> named = store_.indexedEntity(c, value);
      html += QString("<tr><td>%1/%2</td><td align='right'>%3</td></tr>")
                  .arg(QString::fromStdString(channel.info.group))
                  .arg(QString::fromStdString(channel.info.name))
                  .arg(named ? QString::fromStdString(*named).toHtmlEscaped()
                             : formatValue(value, channel.info.unit, units_));
    }
  }
  html += "</table>";
  details_->setHtml(html);
}

bool MainWindow::runTo(double t, int timeout_ms) {
  if (!simulation_) {
    setViewTime(t);
    return store_.samples() > 0;
  }
  const double target = std::min(t, duration_ > 0.0 ? duration_ : t);
  pause();
  follow_live_ = true;
  simulation_->runUntil(target);
  QElapsedTimer clock;
  clock.start();
  const double tolerance = 0.5 * (site_ ? site_->simulation.step : 1.0);
  // The worker hands over rows at least every ~40 ms; the GUI stays live meanwhile.
  while (!run_failed_ && clock.elapsed() < timeout_ms) {
    if (store_.samples() > 0 && store_.lastTime() + tolerance >= target) break;
    if (run_finished_ && store_.samples() > 0) break;
    QEventLoop loop;
    QTimer::singleShot(10, &loop, &QEventLoop::quit);
    loop.exec();
  }
  view_t_ = store_.lastTime();
  view_dirty_ = true;
  charts_dirty_ = true;
  refreshView();
  refreshCharts();
  return !run_failed_ && store_.samples() > 0 && store_.lastTime() + tolerance >= target;
}

QImage MainWindow::grabView() {
  refreshView();
  return view_->grabView();
}

QImage MainWindow::grabWindow() {
  refreshView();
  QImage window = grab().toImage().convertToFormat(QImage::Format_RGB32);
  const QImage view = view_->grabView();
  QPainter painter(&window);
  const QPoint origin = view_->mapTo(this, QPoint(0, 0));
  painter.drawImage(QRect(origin, view_->size()), view);
  painter.end();
  return window;
}

void MainWindow::setUnitSystem(core::UnitSystem units) {
  units_ = units;
  for (QAction* action : findChildren<QAction*>())
    if (action->objectName() == (units == core::UnitSystem::SI ? "units_si" : "units_us"))
      action->setChecked(true);
  if (scene_) scene_->setUnitSystem(units);
  charts_dirty_ = true;
  view_dirty_ = true;
  refreshView();
  refreshCharts();
  if (store_.samples() > 0) refreshDetails(store_.sampleAt(view_t_));
}

QString MainWindow::detailsText() const {
  return details_->toPlainText();
}

QString MainWindow::openReport(QString* error, bool show) {
  if (result_path_.isEmpty()) {
    if (error)
      *error =
          "A report is made from a result file: open one, or save this run first "
          "(File > Save result as…).";
    return {};
  }
  const QString path = writeResultReport(result_path_, units_, error);
  if (!path.isEmpty() && show) QDesktopServices::openUrl(QUrl::fromLocalFile(path));
  if (!path.isEmpty()) statusBar()->showMessage("Report: " + path);
  return path;
}

bool MainWindow::saveResult(const QString& path, QString* error) {
  if (store_.samples() == 0) {
    if (error) *error = "There is nothing to save yet: run the simulation first.";
    return false;
  }
  try {
    // The recorded rows go through the same HDF5 sink a batch run uses, so the file is a normal
    // result; the what-if events are appended to the stored scenario text as comments.
    core::RunMetadata metadata = store_.metadata();
    if (!applied_events_.empty()) {
      metadata.scenario_text += "\n# What-if events applied in racktwin-gui:\n";
      for (const auto& [t, text] : applied_events_)
        metadata.scenario_text +=
            "#   t = " + std::to_string(t) + " s: " + text.toStdString() + "\n";
    }
    const std::unique_ptr<core::RecorderSink> sink = core::makeHdf5Sink(path.toStdString());
    const bool complete = run_finished_ && !run_failed_ && !summary_json_.isEmpty();
    store_.writeTo(*sink, metadata, complete, summary_json_.toStdString());
  } catch (const std::exception& failure) {
    if (error) *error = QString::fromStdString(failure.what());
    return false;
  }
  statusBar()->showMessage("Saved " + path);
  result_path_ = path;
  return true;
}

}  // namespace racktwin::gui
