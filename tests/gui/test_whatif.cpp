// Live what-if: a pump trip injected from the window's fault button, against the same run
// without it; and the window stays responsive while the twin runs in its thread.
#include <QListWidget>
#include <QPushButton>
#include <QTest>
#include <QTimer>
#include <set>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "GuiTestApp.hpp"
#include "MainWindow.hpp"
#include "WhatIfPanel.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/viz/SiteGeometry.hpp"

using namespace racktwin::gui;

namespace {

struct Run {
  std::vector<double> gpu_T;      // hottest GPU of the rack, K
  std::vector<double> coolant_T;  // rack outlet (flow-weighted trays), K
  std::vector<double> pumps;      // CDU pumps running
  std::vector<double> t;
};

Run collect(MainWindow& window) {
  Run run;
  Quantities& q = *window.quantities();
  run.gpu_T = q.series("row1/rack01", EntityKind::Rack, Quantity::GpuJunctionTemperature);
  run.coolant_T = q.series("row1/rack01", EntityKind::Rack, Quantity::CoolantTemperature);
  run.t = window.store().times();
  const auto pumps = window.store().find("cdu", "pumps_running");
  REQUIRE(pumps);
  for (std::size_t s = 0; s < window.store().samples(); ++s)
    run.pumps.push_back(window.store().value(s, *pumps, 0));
  return run;
}

double maxFrom(const Run& run, const std::vector<double>& values, double t0) {
  double result = -INFINITY;
  for (std::size_t s = 0; s < values.size(); ++s) {
    if (run.t[s] >= t0) result = std::max(result, values[s]);
  }
  return result;
}

double at(const Run& run, const std::vector<double>& values, double t) {
  for (std::size_t s = 0; s < values.size(); ++s) {
    if (std::abs(run.t[s] - t) < 1e-6) return values[s];
  }
  FAIL("no sample at t = " << t);
  return NAN;
}

}  // namespace

TEST_CASE("A pump trip injected from the window raises the loop's temperatures", "[gui]") {
  test::ensureApplication();
  const QString scenario = test::sourcePath("scenarios/nvl72-rack.yaml");
  constexpr double kTrip = 30.0, kEnd = 120.0;

  MainWindow reference;
  REQUIRE(reference.openScenario(scenario));
  REQUIRE(reference.runTo(kEnd));
  const Run without = collect(reference);

  MainWindow window;
  REQUIRE(window.openScenario(scenario));
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  REQUIRE(window.runTo(kTrip));
  // The fault button of the what-if panel, as a user presses it (the CDU is preselected).
  auto* trip = window.whatIf()->findChild<QPushButton*>(
      QString("fault_%1").arg(static_cast<int>(racktwin::core::EventKind::PumpTrip)));
  REQUIRE(trip != nullptr);
  REQUIRE(trip->isEnabled());
  QTest::mouseClick(trip, Qt::LeftButton);
  REQUIRE(window.runTo(kEnd));
  const Run with = collect(window);
  REQUIRE(with.t.size() == without.t.size());

  // Same run up to the trip (the twin is deterministic for a seed): a fair comparison.
  CHECK(at(with, with.gpu_T, kTrip) == Approx(at(without, without.gpu_T, kTrip)).margin(1e-9));
  // Specified behaviour of the CDU (data/cdus/inrack-250kw.yaml: one duty + one standby pump,
  // standby_switchover_time 5 s): no pump runs just after the trip, the standby one after 5 s.
  CHECK(at(with, with.pumps, kTrip + 2.0) == 0.0);
  CHECK(at(with, with.pumps, kTrip + 10.0) == 1.0);
  CHECK(at(without, without.pumps, kTrip + 2.0) == 1.0);
  // Five seconds without flow: the chips heat their stagnant cold plates and the coolant in
  // them, so the loop runs hotter than without the trip.
  const double gpu_rise = maxFrom(with, with.gpu_T, kTrip) - maxFrom(without, without.gpu_T, kTrip);
  const double coolant_rise =
      maxFrom(with, with.coolant_T, kTrip) - maxFrom(without, without.coolant_T, kTrip);
  INFO("GPU rise " << gpu_rise << " K, coolant rise " << coolant_rise << " K");
  CHECK(gpu_rise > 1.0);
  CHECK(coolant_rise > 1.0);
}

TEST_CASE("The window stays responsive while the twin runs in its thread", "[gui]") {
  test::ensureApplication();
  MainWindow window;
  REQUIRE(window.openScenario(test::sourcePath("scenarios/cluster-64-racks.yaml")));
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  // The first render compiles the shaders (a few hundred ms on a software renderer): not part of
  // running.
  window.grabView();
  test::settle(100);
  // A 20 ms timer in the GUI thread notes the simulated time the window shows. A GUI that waited
  // for the solver would see nothing between the start and the end of the run; one whose worker
  // hands rows over as it steps sees the time advance through many intermediate values.
  std::set<double> seen;
  QTimer timer;
  timer.setInterval(20);
  QObject::connect(&timer, &QTimer::timeout, [&] { seen.insert(window.store().lastTime()); });
  timer.start();
  REQUIRE(window.runTo(900.0));
  timer.stop();
  CHECK(window.store().lastTime() == Approx(900.0));
  std::size_t intermediate = 0;
  for (const double t : seen)
    intermediate += t > 0.0 && t < 900.0 ? 1 : 0;
  INFO("simulated times seen by the GUI thread during the run: " << seen.size());
  CHECK(intermediate >= 3);
}

TEST_CASE("Pausing the training job from the workload-mix buttons idles the rack until resumed",
          "[gui]") {
  test::ensureApplication();
  MainWindow window;
  REQUIRE(window.openScenario(test::sourcePath("scenarios/nvl72-rack.yaml")));
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  const auto button = [&](racktwin::core::EventKind kind) {
    return window.whatIf()->findChild<QPushButton*>(QString("job_%1").arg(static_cast<int>(kind)));
  };
  QPushButton* pause = button(racktwin::core::EventKind::PauseJob);
  QPushButton* resume = button(racktwin::core::EventKind::ResumeJob);
  REQUIRE(pause != nullptr);
  REQUIRE(resume != nullptr);
  // The default scenario has no electrical section: feed events and caps would find no model.
  auto* drop_feed = window.whatIf()->findChild<QPushButton*>(
      QString("fault_%1").arg(static_cast<int>(racktwin::core::EventKind::FeedLoss)));
  REQUIRE(drop_feed != nullptr);
  CHECK_FALSE(drop_feed->isEnabled());
  REQUIRE(window.runTo(20.0));
  QTest::mouseClick(pause, Qt::LeftButton);
  REQUIRE(window.runTo(60.0));
  QTest::mouseClick(resume, Qt::LeftButton);
  REQUIRE(window.runTo(90.0));

  Quantities& q = *window.quantities();
  const std::vector<double> P = q.series("row1/rack01", EntityKind::Rack, Quantity::RackPower);
  const std::vector<double>& t = window.store().times();
  double paused_max = 0.0, before_max = 0.0, after_max = 0.0;
  for (std::size_t s = 0; s < t.size(); ++s) {
    if (t[s] > 5.0 && t[s] <= 20.0) before_max = std::max(before_max, P[s]);
    if (t[s] > 25.0 && t[s] <= 60.0) paused_max = std::max(paused_max, P[s]);
    if (t[s] > 65.0) after_max = std::max(after_max, P[s]);
  }
  // Training draws up to 95 % of 1,400 W per GPU; paused, the GPUs sit at idle (about 200 W).
  INFO("rack power before " << before_max << " W, paused " << paused_max << " W, after "
                            << after_max << " W");
  CHECK(paused_max < 0.5 * before_max);
  CHECK(after_max == Approx(before_max).epsilon(0.05));
}

TEST_CASE("The what-if targets follow the picked component: a rack's pump trip goes to its CDU",
          "[gui]") {
  // Issue 20: after picking a rack in row 4 the CDU box stayed on row 1's CDU, so a pump trip
  // went to the wrong CDU.
  test::ensureApplication();
  MainWindow window;
  window.resize(1200, 760);
  REQUIRE(window.openScenario(test::sourcePath("scenarios/cluster-64-racks.yaml")));
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  // The scenario records every 10 s: run to a record time.
  REQUIRE(window.runTo(10.0));
  test::settle(100);
  const auto trip_target = [&] {
    return window.whatIf()->faultEvent(racktwin::core::EventKind::PumpTrip).target;
  };
  // Picked in the 3D view: the first rack outside row 1 that a click at its position selects.
  const racktwin::viz::SiteGeometry& geometry = *window.geometry();
  QString picked;
  for (std::size_t r = 0; r < geometry.rackCount() && picked.isEmpty(); ++r) {
    const QString id = QString::fromStdString(geometry.racks()[r].id);
    if (id.startsWith("row1/")) continue;
    const QPoint vtk = window.rackDisplayPosition(id);
    if (window.pickAt(vtk.x(), vtk.y()) == id) picked = id;
  }
  REQUIRE_FALSE(picked.isEmpty());
  const std::string row = picked.section('/', 0, 0).toStdString();
  INFO("picked " << picked.toStdString());
  CHECK(trip_target() == row + "/cdu1");
  // Chosen in the tree: a rack in row 4, then one of its GPUs, then another row's CDU itself.
  REQUIRE(window.selectEntity("row4/rack03"));
  CHECK(trip_target() == "row4/cdu1");
  CHECK(window.whatIf()->powerCapEvent().target == "row4/rack03");
  REQUIRE(window.selectEntity("row6/rack02/tray05/gpu1"));
  CHECK(trip_target() == "row6/cdu1");
  CHECK(window.whatIf()->powerCapEvent().target == "row6/rack02");
  REQUIRE(window.selectEntity("row7/cdu1"));
  CHECK(trip_target() == "row7/cdu1");

  // The buttons a user presses apply there: the log names row 4's CDU, and failing the CDU stops
  // row 4's pumps while row 1's run on.
  REQUIRE(window.selectEntity("row4/rack03"));
  const auto button = [&](racktwin::core::EventKind kind) {
    auto* found =
        window.whatIf()->findChild<QPushButton*>(QString("fault_%1").arg(static_cast<int>(kind)));
    REQUIRE(found != nullptr);
    return found;
  };
  QTest::mouseClick(button(racktwin::core::EventKind::PumpTrip), Qt::LeftButton);
  QTest::mouseClick(button(racktwin::core::EventKind::CduLoss), Qt::LeftButton);
  auto* log = window.whatIf()->findChild<QListWidget*>();
  REQUIRE(log != nullptr);
  REQUIRE(log->count() == 2);
  CHECK(log->item(0)->text().endsWith("pump trip on row4/cdu1"));
  CHECK(log->item(1)->text().endsWith("CDU loss on row4/cdu1"));
  REQUIRE(window.runTo(20.0));
  const auto pumps = window.store().find("cdu", "pumps_running");
  REQUIRE(pumps);
  const auto& channel = window.store().channels()[*pumps];
  const std::size_t last = window.store().samples() - 1;
  const double row4 = window.store().value(last, *pumps, channel.column_of.at("row4/cdu1"));
  const double row1 = window.store().value(last, *pumps, channel.column_of.at("row1/cdu1"));
  CHECK(row4 == 0.0);
  CHECK(row1 > 0.0);
}

TEST_CASE("On a ring, a rack's what-if CDU is the ring's CDU nearest to its tap", "[gui]") {
  test::ensureApplication();
  MainWindow window;
  REQUIRE(window.openScenario(test::sourcePath("scenarios/ring-16-racks.yaml")));
  const racktwin::core::SiteSpec site = racktwin::scenarios::loadScenario(
      test::sourcePath("scenarios/ring-16-racks.yaml").toStdString());
  REQUIRE(site.rings.size() == 1);
  const std::vector<std::string>& taps = site.rings.front().taps;
  for (std::size_t k = 0; k < taps.size(); ++k) {
    if (taps[k].find("rack") == std::string::npos) continue;
    REQUIRE(window.selectEntity(QString::fromStdString(taps[k])));
    const std::string cdu = window.whatIf()->faultEvent(racktwin::core::EventKind::PumpTrip).target;
    // The chosen CDU is a tap of the ring, and none is nearer around it.
    const auto at = std::find(taps.begin(), taps.end(), cdu);
    REQUIRE(at != taps.end());
    const auto distance = [&](std::size_t a, std::size_t b) {
      const std::size_t d = a > b ? a - b : b - a;
      return std::min(d, taps.size() - d);
    };
    const std::size_t chosen = distance(k, static_cast<std::size_t>(at - taps.begin()));
    for (std::size_t j = 0; j < taps.size(); ++j)
      if (taps[j].find("cdu") != std::string::npos) CHECK(chosen <= distance(k, j));
  }
}
