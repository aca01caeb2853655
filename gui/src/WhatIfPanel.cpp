#include "WhatIfPanel.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>
#include <string>
#include <vector>

namespace racktwin::gui {

namespace {

constexpr double kZeroCelsius = 273.15;

QDoubleSpinBox* spin(double min, double max, double step, int decimals, const QString& suffix) {
  auto* box = new QDoubleSpinBox();
  box->setRange(min, max);
  box->setSingleStep(step);
  box->setDecimals(decimals);
  box->setSuffix(suffix);
  return box;
}

}  // namespace

QString describe(const core::EventSpec& event) {
  const QString target = QString::fromStdString(event.target);
  const QString on = target.isEmpty() ? QString(" (site)") : " on " + target;
  switch (event.kind) {
    case core::EventKind::SetFacilitySupplyTemperature:
      return QString("facility supply %1 °C").arg(event.value - kZeroCelsius, 0, 'f', 1);
    case core::EventKind::SetSupplySetpoint:
      return QString("supply set-point %1 °C").arg(event.value - kZeroCelsius, 0, 'f', 1) + on;
    case core::EventKind::SetPumpSpeed:
      return QString("pump speed %1 %").arg(event.value * 100.0, 0, 'f', 0) + on;
    case core::EventKind::PumpTrip:
      return "pump trip" + on;
    case core::EventKind::CduLoss:
      return "CDU loss" + on;
    case core::EventKind::ValveStuck:
      return "facility valve stuck" + on;
    case core::EventKind::FeedLoss:
      return QString("feed %1 lost").arg(event.value == 0.0 ? "A" : "B")
             + (target.isEmpty() ? QString(" (every rack)") : on);
    case core::EventKind::FeedRestore:
      return QString("feed %1 restored").arg(event.value == 0.0 ? "A" : "B")
             + (target.isEmpty() ? QString(" (every rack)") : on);
    case core::EventKind::SetPowerCap:
      return QString("GPU power cap %1 W").arg(event.value, 0, 'f', 0)
             + (target.isEmpty() ? QString(" (every rack)") : on);
    case core::EventKind::UtilityOutage:
      return "utility outage";
    case core::EventKind::UtilityRestore:
      return "utility restored";
    case core::EventKind::FacilityPumpTrip:
      return "facility pump trip";
    case core::EventKind::HeatRejectionFanLoss:
      return QString("heat-rejection fans lost: %1 %").arg(event.value * 100.0, 0, 'f', 0);
    case core::EventKind::ClogColdPlate:
      return QString("cold plate clogged x%1").arg(event.value) + on;
    case core::EventKind::PauseJob:
      return "job " + target + " paused";
    case core::EventKind::ResumeJob:
      return "job " + target + " resumed";
  }
  return "event";
}

WhatIfPanel::WhatIfPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  controls_ = new QWidget();
  auto* controls_layout = new QVBoxLayout(controls_);
  controls_layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(controls_);

  auto* targets = new QFormLayout();
  cdu_ = new QComboBox();
  rack_ = new QComboBox();
  targets->addRow("CDU", cdu_);
  targets->addRow("Rack", rack_);
  controls_layout->addLayout(targets);

  auto addSetting = [&](QGridLayout* grid, int row, const QString& label, QDoubleSpinBox* box,
                        auto make_event) {
    auto* button = new QPushButton("Apply");
    button->setObjectName(QString("apply_%1").arg(row));
    grid->addWidget(new QLabel(label), row, 0);
    grid->addWidget(box, row, 1);
    grid->addWidget(button, row, 2);
    connect(button, &QPushButton::clicked, this, [this, make_event] {
      const core::EventSpec event = make_event();
      emit eventRequested(event, describe(event));
    });
  };
  auto* settings = new QGroupBox("Set-points");
  auto* grid = new QGridLayout(settings);
  facility_T_ = spin(5.0, 60.0, 0.5, 1, " °C");
  setpoint_T_ = spin(10.0, 60.0, 0.5, 1, " °C");
  pump_speed_ = spin(10.0, 100.0, 5.0, 0, " %");
  power_cap_ = spin(100.0, 2000.0, 50.0, 0, " W/GPU");
  addSetting(grid, 0, "Facility supply", facility_T_, [this] { return facilitySupplyEvent(); });
  addSetting(grid, 1, "CDU supply set-point", setpoint_T_, [this] { return setpointEvent(); });
  addSetting(grid, 2, "CDU pump speed", pump_speed_, [this] { return pumpSpeedEvent(); });
  addSetting(grid, 3, "GPU power cap", power_cap_, [this] { return powerCapEvent(); });
  controls_layout->addWidget(settings);

  auto* faults = new QGroupBox("Inject a fault now");
  auto* fault_grid = new QGridLayout(faults);
  const std::pair<const char*, core::EventKind> fault_buttons[] = {
      {"Trip a pump", core::EventKind::PumpTrip},
      {"Fail the CDU", core::EventKind::CduLoss},
      {"Stick the valve", core::EventKind::ValveStuck},
      {"Drop feed A", core::EventKind::FeedLoss},
      {"Restore feed A", core::EventKind::FeedRestore}};
  int i = 0;
  for (const auto& [text, kind] : fault_buttons) {
    auto* button = new QPushButton(text);
    button->setObjectName(QString("fault_%1").arg(static_cast<int>(kind)));
    fault_grid->addWidget(button, i / 2, i % 2);
    ++i;
    const core::EventKind k = kind;
    connect(button, &QPushButton::clicked, this, [this, k] {
      const core::EventSpec event = faultEvent(k);
      emit eventRequested(event, describe(event));
    });
  }
  controls_layout->addWidget(faults);

  // The workload mix: a training job paused idles its GPUs and makes no progress; resumed, the
  // iteration in flight starts again.
  auto* workload = new QGroupBox("Workload mix");
  auto* workload_grid = new QGridLayout(workload);
  job_ = new QComboBox();
  job_->setObjectName("job");
  workload_grid->addWidget(new QLabel("Training job"), 0, 0);
  workload_grid->addWidget(job_, 0, 1, 1, 2);
  const std::pair<const char*, core::EventKind> job_buttons[] = {
      {"Pause job", core::EventKind::PauseJob}, {"Resume job", core::EventKind::ResumeJob}};
  int column = 1;
  for (const auto& [text, kind] : job_buttons) {
    auto* button = new QPushButton(text);
    button->setObjectName(QString("job_%1").arg(static_cast<int>(kind)));
    workload_grid->addWidget(button, 1, column++);
    const core::EventKind k = kind;
    connect(button, &QPushButton::clicked, this, [this, k] {
      if (job_->currentText().isEmpty()) return;  // the scenario runs no training job
      core::EventSpec event;
      event.kind = k;
      event.target = job_->currentText().toStdString();
      emit eventRequested(event, describe(event));
    });
  }
  controls_layout->addWidget(workload);

  layout->addWidget(new QLabel("Applied events"));
  log_ = new QListWidget();
  log_->setMinimumHeight(60);
  layout->addWidget(log_, 1);
  setLive(false);
}

namespace {

/// The CDU of each rack: its own, or on a ring the CDU tap nearest to the rack's tap (either way
/// around the ring; the first in ring order on a tie).
std::map<QString, QString> cduOfRack(const core::SiteSpec& site) {
  std::map<QString, QString> cdu_of;
  std::vector<std::string> cdus;
  for (const core::CduSpec& cdu : site.cdus)
    cdus.push_back(cdu.id.str());
  for (const core::RackSpec& rack : site.racks)
    if (!rack.cdu.empty())
      cdu_of[QString::fromStdString(rack.id.str())] = QString::fromStdString(rack.cdu);
  for (const core::SecondaryRingSpec& ring : site.rings) {
    const std::vector<std::string>& taps = ring.taps;
    for (std::size_t k = 0; k < taps.size(); ++k) {
      std::size_t best = taps.size();
      std::size_t best_distance = taps.size();
      for (std::size_t j = 0; j < taps.size(); ++j) {
        if (std::find(cdus.begin(), cdus.end(), taps[j]) == cdus.end()) continue;
        const std::size_t d = k > j ? k - j : j - k;
        const std::size_t around = std::min(d, taps.size() - d);
        if (around < best_distance) best = j, best_distance = around;
      }
      if (best < taps.size() && std::find(cdus.begin(), cdus.end(), taps[k]) == cdus.end())
        cdu_of[QString::fromStdString(taps[k])] = QString::fromStdString(taps[best]);
    }
  }
  return cdu_of;
}

}  // namespace

void WhatIfPanel::follow(const QString& id, const QString& rack) {
  if (cdu_->findText(id) >= 0) {
    selectCdu(id);
    return;
  }
  if (rack.isEmpty()) return;
  selectRack(rack);
  if (const auto it = cdu_of_rack_.find(rack); it != cdu_of_rack_.end()) selectCdu(it->second);
}

void WhatIfPanel::setSite(const core::SiteSpec& site) {
  cdu_of_rack_ = cduOfRack(site);
  cdu_->clear();
  for (const core::CduSpec& cdu : site.cdus)
    cdu_->addItem(QString::fromStdString(cdu.id.str()));
  rack_->clear();
  rack_->addItem("(every rack)", QString());
  for (const core::RackSpec& rack : site.racks)
    rack_->addItem(QString::fromStdString(rack.id.str()), QString::fromStdString(rack.id.str()));
  job_->clear();
  for (const core::TrainingJobSpec& job : site.jobs)
    job_->addItem(QString::fromStdString(job.id));
  // Feed events and power caps act on the power tree: without an electrical section no model
  // would take them (and the run would stop on an event nobody handles).
  const bool electrical = site.electrical.present;
  const QString feed_loss = QString("fault_%1").arg(static_cast<int>(core::EventKind::FeedLoss));
  const QString feed_restore =
      QString("fault_%1").arg(static_cast<int>(core::EventKind::FeedRestore));
  for (QPushButton* button : findChildren<QPushButton*>()) {
    const QString name = button->objectName();
    if (name == feed_loss || name == feed_restore || name == "apply_3") {
      button->setEnabled(electrical);
      button->setToolTip(electrical ? QString()
                                    : QString("needs an electrical section in the scenario"));
    } else if (name.startsWith("job_")) {
      button->setEnabled(!site.jobs.empty());
    }
  }
  facility_T_->setValue(site.facility.T_supply - kZeroCelsius);
  if (!site.cdus.empty()) {
    setpoint_T_->setValue(site.cdus.front().T_supply_set - kZeroCelsius);
    pump_speed_->setValue(site.cdus.front().pump.speed * 100.0);
  }
  power_cap_->setValue(site.racks.empty() ? 1400.0 : site.racks.front().type.gpu.P_max);
  log_->clear();
}

void WhatIfPanel::setLive(bool live) {
  controls_->setEnabled(live);
}

void WhatIfPanel::logEvent(double time, const QString& text) {
  log_->addItem(QString("t = %1 s: %2").arg(time, 0, 'f', 0).arg(text));
  log_->scrollToBottom();
}

QString WhatIfPanel::selectedCdu() const {
  return cdu_->currentText();
}

QString WhatIfPanel::selectedRack() const {
  return rack_->currentData().toString();
}

void WhatIfPanel::selectCdu(const QString& id) {
  const int index = cdu_->findText(id);
  if (index >= 0) cdu_->setCurrentIndex(index);
}

void WhatIfPanel::selectRack(const QString& id) {
  const int index = rack_->findData(id);
  if (index >= 0) rack_->setCurrentIndex(index);
}

core::EventSpec WhatIfPanel::facilitySupplyEvent() const {
  core::EventSpec event;
  event.kind = core::EventKind::SetFacilitySupplyTemperature;
  event.value = facility_T_->value() + kZeroCelsius;
  return event;
}

core::EventSpec WhatIfPanel::setpointEvent() const {
  core::EventSpec event;
  event.kind = core::EventKind::SetSupplySetpoint;
  event.target = selectedCdu().toStdString();
  event.value = setpoint_T_->value() + kZeroCelsius;
  return event;
}

core::EventSpec WhatIfPanel::pumpSpeedEvent() const {
  core::EventSpec event;
  event.kind = core::EventKind::SetPumpSpeed;
  event.target = selectedCdu().toStdString();
  event.value = pump_speed_->value() / 100.0;
  return event;
}

core::EventSpec WhatIfPanel::powerCapEvent() const {
  core::EventSpec event;
  event.kind = core::EventKind::SetPowerCap;
  event.target = selectedRack().toStdString();
  event.value = power_cap_->value();
  return event;
}

core::EventSpec WhatIfPanel::faultEvent(core::EventKind kind) const {
  core::EventSpec event;
  event.kind = kind;
  if (kind == core::EventKind::FeedLoss || kind == core::EventKind::FeedRestore) {
    event.target = selectedRack().toStdString();
    event.value = 0.0;  // feed A
  } else {
    event.target = selectedCdu().toStdString();
  }
  return event;
}

}  // namespace racktwin::gui
