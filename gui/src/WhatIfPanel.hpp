#pragma once
// What-if controls: set-points, faults and the workload mix (pausing and resuming training jobs)
// that become core::EventSpec for Twin::schedule, applied at the start of the next simulated step.
#include <QString>
#include <QWidget>

#include <map>

#include "racktwin/core/SiteSpec.hpp"

class QComboBox;
class QDoubleSpinBox;
class QListWidget;
class QPushButton;

namespace racktwin::gui {

class WhatIfPanel : public QWidget {
  Q_OBJECT
 public:
  explicit WhatIfPanel(QWidget* parent = nullptr);

  /// Fills the target lists and current values from a site; enables the controls.
  void setSite(const core::SiteSpec& site);
  /// Live runs only: a replayed result cannot change.
  void setLive(bool live);
  /// Adds a line to the log of applied events.
  void logEvent(double time, const QString& text);

  /// Builds the event of each control (used by the buttons, and by tests and scripts).
  core::EventSpec facilitySupplyEvent() const;
  core::EventSpec setpointEvent() const;
  core::EventSpec pumpSpeedEvent() const;
  core::EventSpec powerCapEvent() const;
  core::EventSpec faultEvent(core::EventKind kind) const;
  void selectCdu(const QString& id);
  void selectRack(const QString& id);
  /// The targets follow what the user picked: a CDU is the CDU target; a rack, or anything in
  /// it (`rack` is that rack's id), becomes the rack target and its CDU the CDU target (on a
  /// ring, the ring's CDU nearest to the rack's tap). Other entities change nothing.
  void follow(const QString& id, const QString& rack);

 signals:
  void eventRequested(racktwin::core::EventSpec event, QString description);

 private:
  QString selectedCdu() const;
  QString selectedRack() const;  // empty: every rack

  QComboBox* cdu_;
  QComboBox* rack_;
  QComboBox* job_;  // training jobs: the workload mix (pause, resume)
  QDoubleSpinBox* facility_T_;
  QDoubleSpinBox* setpoint_T_;
  QDoubleSpinBox* pump_speed_;
  QDoubleSpinBox* power_cap_;
  QListWidget* log_;
  QWidget* controls_;
  std::map<QString, QString> cdu_of_rack_;  // rack id -> the CDU a what-if on it should reach
};

/// "pump trip on row1/cdu1", "facility supply 35.0 °C": the event in a user's words.
QString describe(const core::EventSpec& event);

}  // namespace racktwin::gui
