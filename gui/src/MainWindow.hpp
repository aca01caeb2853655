#pragma once
// The racktwin-gui main window: site tree with search, 3D view of the site coloured by a chosen
// quantity, details of the selection, charts of the selected entities, a timeline and what-if
// controls. It shows either a live run (a Twin in a worker thread, see Simulation.hpp) or a
// replayed result file. The public methods are what the menus, the scripted command line and the
// tests drive.
#include <QMainWindow>
#include <QString>
#include <QStringList>

#include <memory>
#include <utility>
#include <vector>

#include <vtkSmartPointer.h>

#include "Quantities.hpp"
#include "ResultStore.hpp"
#include "Simulation.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/viz/Frame.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSlider;
class QTextBrowser;
class QTimer;
class QTreeView;
class QToolButton;
class vtkRenderer;

namespace racktwin::viz {
class ResultFrames;
class Scene;
class SiteGeometry;
}  // namespace racktwin::viz

namespace racktwin::gui {

class ChartPanel;
class SiteTreeFilter;
class SiteTreeModel;
class VtkView;
class WhatIfPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Loads a scenario and starts a live run at t = 0 (paused). False with `error` set on bad input.
  bool openScenario(const QString& path, QString* error = nullptr);
  /// Opens a result file for replay. False with `error` set when it cannot be read.
  bool openResult(const QString& path, QString* error = nullptr);
  /// Opens a scenario (.yaml/.yml) or a result (anything else).
  bool openFile(const QString& path, QString* error = nullptr);

  /// Live: runs the simulation to time t as fast as it goes, keeping the window responsive, and
  /// shows that time. Replay: shows time t. False when the run failed or `timeout_ms` passed.
  bool runTo(double t, int timeout_ms = 600000);
  /// Schedules a what-if event now (live runs only); false when there is no live run.
  bool scheduleEvent(const core::EventSpec& event);

  void setQuantity(Quantity quantity);
  Quantity quantity() const noexcept { return quantity_; }
  /// Units of the charts, the details and the scene's legend: SI (°C, kW, L/min; the default) or
  /// US customary (°F, kW, gpm). Results and the summary JSON stay SI.
  void setUnitSystem(core::UnitSystem units);
  core::UnitSystem unitSystem() const noexcept { return units_; }
  /// Writes the HTML report of the open result (or the last one saved) and, with `show`, opens
  /// it in the browser; returns its path, or an empty string with `error` set.
  QString openReport(QString* error = nullptr, bool show = true);
  /// Selects an entity in the tree (and so in the 3D view, the details and the charts).
  bool selectEntity(const QString& id);
  QStringList selectedEntities() const;
  /// The rack under VTK display position (x, y) (origin bottom-left), selected as a click does;
  /// returns its id or an empty string.
  QString pickAt(int x, int y);
  /// Where rack `id`'s centre appears in the 3D view, VTK display coordinates; (-1, -1) if absent.
  QPoint rackDisplayPosition(const QString& id);
  /// The rack the 3D view outlines, or -1.
  int highlightedRack() const;

  double viewTime() const noexcept { return view_t_; }
  void setViewTime(double t);
  bool isLive() const noexcept { return simulation_ != nullptr; }
  bool runFinished() const noexcept { return run_finished_; }
  const ResultStore& store() const noexcept { return store_; }
  Quantities* quantities() noexcept { return quantities_.get(); }
  const viz::SiteGeometry* geometry() const noexcept;
  const viz::Scene* scene() const noexcept { return scene_.get(); }
  /// The details panel's text as shown.
  QString detailsText() const;
  VtkView* view() const noexcept { return view_; }
  vtkRenderer* renderer() const noexcept;
  ChartPanel* charts() const noexcept { return charts_; }
  WhatIfPanel* whatIf() const noexcept { return what_if_; }
  QTreeView* tree() const noexcept { return tree_; }
  QLineEdit* searchField() const noexcept { return search_; }

  /// The 3D view's framebuffer as shown.
  QImage grabView();
  /// The whole window, with the 3D view's framebuffer painted in (QWidget::grab alone may leave a
  /// GL child black on some platforms).
  QImage grabWindow();
  /// Writes the current samples as a RackTwin HDF5 result. False with `error` set on failure.
  bool saveResult(const QString& path, QString* error = nullptr);

 public slots:
  void play();
  void pause();
  /// Simulated seconds per wall second; 0 = as fast as the simulation goes.
  void setSpeed(double speed);

 signals:
  /// New samples arrived or the view time moved.
  void viewUpdated(double time);

 private:
  void buildUi();
  void buildMenus();
  void clearSite();
  void setupSite(const core::SiteSpec* site, const viz::SiteGeometry& geometry);
  void onOpened(const RunOpened& run);
  void onSamples(const SampleBatch& batch);
  void onProgress(double time, double target, double duration);
  void onFinished(const QString& summary_json, bool complete);
  void onFailed(const QString& message);
  void onEventRequested(const core::EventSpec& event, const QString& description);
  void onSelectionChanged();
  void onTick();
  void onSliderMoved(int value);
  void refreshView();
  void applyRange();
  void refreshCharts();
  void refreshDetails(std::size_t sample);
  std::pair<QString, EntityKind> entityOf(const QModelIndex& proxy_index) const;
  int rackOfEntity(const QString& id) const;
  void updateTimeline();
  double endTime() const;

  // Site and data.
  std::unique_ptr<core::SiteSpec> site_;
  ResultStore store_;
  std::unique_ptr<Quantities> quantities_;
  std::unique_ptr<viz::SiteGeometry> geometry_;
  std::unique_ptr<viz::Scene> scene_;
  std::unique_ptr<viz::ResultFrames> replay_;
  std::vector<double> live_frames_;  // one viz::Frame::values per stored sample (live runs)
  viz::Frame frame_;
  std::unique_ptr<Simulation> simulation_;
  int run_generation_ = 0;
  bool run_finished_ = false;
  bool run_failed_ = false;
  QString summary_json_;
  QString source_path_;
  std::vector<std::pair<double, QString>> applied_events_;
  double duration_ = 0.0;
  double sim_time_ = 0.0;

  // View state.
  Quantity quantity_ = Quantity::GpuJunctionTemperature;
  core::UnitSystem units_ = core::UnitSystem::SI;
  QString result_path_;  // the result file open for replay, or the last saved
  double view_t_ = 0.0;
  bool playing_ = false;
  bool follow_live_ = true;
  double speed_ = 60.0;
  qint64 last_tick_ms_ = 0;
  qint64 last_progress_ms_ = 0;
  unsigned chart_divider_ = 0;
  bool charts_dirty_ = true;
  bool view_dirty_ = true;
  bool camera_pending_ = true;

  // Widgets.
  VtkView* view_ = nullptr;
  vtkSmartPointer<vtkRenderer> renderer_;
  SiteTreeModel* tree_model_ = nullptr;
  SiteTreeFilter* tree_filter_ = nullptr;
  QTreeView* tree_ = nullptr;
  QLineEdit* search_ = nullptr;
  QTextBrowser* details_ = nullptr;
  ChartPanel* charts_ = nullptr;
  WhatIfPanel* what_if_ = nullptr;
  QComboBox* quantity_box_ = nullptr;
  QToolButton* play_button_ = nullptr;
  QComboBox* speed_box_ = nullptr;
  QSlider* slider_ = nullptr;
  QLabel* time_label_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_button_ = nullptr;
  QTimer* timer_ = nullptr;
};

/// The OpenGL format VTK needs (3.2 core, no multisampling); set before QApplication exists.
void setDefaultSurfaceFormat();

}  // namespace racktwin::gui
