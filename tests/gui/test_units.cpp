// Units the user sees: the scene's legend, the charts and the details in one unit, chosen by the
// user (SI by default, US customary on request), powers in kW rather than W in exponents, and
// chart axes whose labels neither repeat nor need an exponent. And "open report".
#include <QFile>
#include <QTest>

#include <catch2/catch.hpp>

#include <set>

#include "ChartPanel.hpp"
#include "GuiTestApp.hpp"
#include "MainWindow.hpp"
#include "racktwin/viz/Scene.hpp"

using namespace racktwin::gui;
using racktwin::core::UnitSystem;

namespace {

/// Issue 20 saw repeated labels ("45 45 45") and W in exponents: every label distinct, none
/// with an exponent.
void checkReadable(const QStringList& labels) {
  INFO(labels.join(" | ").toStdString());
  CHECK(labels.size() >= 3);
  CHECK(std::set<QString>(labels.begin(), labels.end()).size()
        == static_cast<std::size_t>(labels.size()));
  for (const QString& label : labels)
    CHECK_FALSE(label.contains('e'));
}

}  // namespace

TEST_CASE("The legend, the charts and the details show one unit, chosen by the user", "[gui]") {
  test::ensureApplication();
  MainWindow window;
  window.resize(1200, 760);
  REQUIRE(window.openScenario(test::sourcePath("scenarios/nvl72-rack.yaml")));
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  REQUIRE(window.runTo(60.0));
  REQUIRE(window.selectEntity("row1/rack01"));
  test::settle(100);
  const racktwin::viz::Scene& scene = *window.scene();

  // SI by default: degrees Celsius in the legend (it showed kelvin beside charts in °C).
  CHECK(window.unitSystem() == UnitSystem::SI);
  CHECK(scene.legendTitle() == "GPU junction temperature (max) [\u00B0C]");
  CHECK(scene.legendRange().first == Approx(scene.colorMap().min() - 273.15).margin(1e-9));
  CHECK(scene.legendRange().second == Approx(scene.colorMap().max() - 273.15).margin(1e-9));
  CHECK(window.charts()->valueAxisTitle() == "\u00B0C");
  checkReadable(window.charts()->valueTickLabels());
  checkReadable(window.charts()->timeTickLabels());
  // The details: the rack's recorded channels in °C, kW, L/min; no bare kelvin or watts.
  QString details = window.detailsText();
  INFO(details.toStdString());
  CHECK(details.contains("\u00B0C"));
  CHECK(details.contains(" kW"));
  CHECK(details.contains(" L/min"));
  CHECK_FALSE(details.contains(" K\n"));
  CHECK_FALSE(details.contains("e+0"));

  // Rack power: kW on the axis and the legend, no W in exponents.
  window.setQuantity(racktwin::viz::Quantity::RackPower);
  test::settle(50);
  CHECK(window.charts()->valueAxisTitle() == "kW");
  CHECK(scene.legendTitle().find("[kW]") != std::string::npos);
  CHECK(scene.legendRange().second == Approx(scene.colorMap().max() * 1e-3).epsilon(1e-12));
  checkReadable(window.charts()->valueTickLabels());

  // US customary, chosen from the View menu as a user does: °F and gpm everywhere at once.
  window.setQuantity(racktwin::viz::Quantity::GpuJunctionTemperature);
  QAction* us = window.findChild<QAction*>("units_us");
  REQUIRE(us != nullptr);
  us->trigger();
  test::settle(50);
  CHECK(window.unitSystem() == UnitSystem::US);
  CHECK(scene.legendTitle() == "GPU junction temperature (max) [\u00B0F]");
  // °F = (K - 273.15) x 9/5 + 32: 373.15 K is 212 °F.
  CHECK(scene.legendRange().second
        == Approx((scene.colorMap().max() - 273.15) * 1.8 + 32.0).margin(1e-9));
  CHECK(window.charts()->valueAxisTitle() == "\u00B0F");
  checkReadable(window.charts()->valueTickLabels());
  details = window.detailsText();
  CHECK(details.contains("\u00B0F"));
  CHECK(details.contains(" gpm"));
  CHECK_FALSE(details.contains("\u00B0C"));
  window.setQuantity(racktwin::viz::Quantity::CoolantFlow);
  test::settle(50);
  CHECK(window.charts()->valueAxisTitle() == "gpm");
}

TEST_CASE("Open report writes the HTML report of the result shown", "[gui]") {
  test::ensureApplication();
  MainWindow window;
  REQUIRE(window.openScenario(test::sourcePath("scenarios/training-swing.yaml")));
  REQUIRE(window.runTo(60.0));
  QString error;
  // A live run has no result file until it is saved.
  CHECK(window.openReport(&error, false).isEmpty());
  CHECK(error.contains("save"));
  const QString result = test::outputPath("open-report.h5");
  REQUIRE(window.saveResult(result, &error));
  const QString page = window.openReport(&error, false);
  INFO(error.toStdString());
  REQUIRE_FALSE(page.isEmpty());
  QFile file(page);
  REQUIRE(file.open(QIODevice::ReadOnly));
  const QByteArray html = file.readAll();
  CHECK(html.startsWith("<!DOCTYPE html>"));
  CHECK(html.contains("plotly.js v2"));
  CHECK(html.contains("id=\"verdict\""));

  // A replayed result: the same, from the file that is open.
  MainWindow replay;
  REQUIRE(replay.openResult(result, &error));
  CHECK_FALSE(replay.openReport(&error, false).isEmpty());
}
