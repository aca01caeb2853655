// The timeline: play advances the view and the live simulation together, pause stops both, the
// slider scrubs back through what was recorded, and the charts follow the selection and the time.
#include <QSlider>
#include <QTest>

#include <catch2/catch.hpp>

#include "ChartPanel.hpp"
#include "GuiTestApp.hpp"
#include "MainWindow.hpp"

using namespace racktwin::gui;

TEST_CASE("Play runs the simulation with the view, pause stops it, the slider scrubs", "[gui]") {
  test::ensureApplication();
  MainWindow window;
  REQUIRE(window.openScenario(test::sourcePath("scenarios/nvl72-rack.yaml")));
  window.show();
  REQUIRE(QTest::qWaitForWindowExposed(&window));
  window.grabView();  // the first render compiles shaders; keep it out of the timing
  REQUIRE(window.runTo(0.0));
  CHECK(window.store().samples() == 1);  // the first sample, t = 0

  window.setSpeed(60.0);
  window.play();
  test::settle(1500);
  window.pause();
  // 1.5 s of wall time at 60x: tens of simulated seconds, however loaded the machine is the view
  // moved and never ran ahead of the recorded samples.
  const double shown = window.viewTime();
  CHECK(shown > 5.0);
  CHECK(shown <= window.store().lastTime() + 1e-9);
  CHECK(window.store().lastTime() < 600.0);  // the run follows the view; it did not run away

  // Paused: the worker stops (its last slice may still land) and then nothing more arrives.
  test::settle(300);
  const std::size_t samples = window.store().samples();
  test::settle(500);
  CHECK(window.store().samples() == samples);
  CHECK(window.viewTime() == shown);

  // Scrub back to the sample at index 3 (t = 3 s with a 1 s record interval).
  auto* slider = window.findChild<QSlider*>();
  REQUIRE(slider != nullptr);
  CHECK(slider->maximum() == static_cast<int>(samples) - 1);
  slider->setValue(3);
  test::settle(100);
  CHECK(window.viewTime() == Approx(window.store().time(3)));

  // Charts: one line per selected entity, the cursor at the shown time.
  REQUIRE(window.selectEntity("row1/cdu1"));
  test::settle(300);
  CHECK(window.charts()->lineCount() == 1);
  CHECK(window.charts()->cursor() == Approx(window.store().time(3)));
}

TEST_CASE("Opening a scenario while a run goes on starts a clean run", "[gui]") {
  test::ensureApplication();
  MainWindow window;
  const QString scenario = test::sourcePath("scenarios/ring-16-racks.yaml");
  REQUIRE(window.openScenario(scenario));
  window.setSpeed(0.0);  // as fast as it goes
  window.play();
  test::settle(300);
  // The first run's rows may still be queued: they must not reach the second run's store.
  REQUIRE(window.openScenario(test::sourcePath("scenarios/nvl72-rack.yaml")));
  REQUIRE(window.runTo(12.0));
  CHECK(window.store().lastTime() == Approx(12.0));
  CHECK(window.store().samples() == 13);  // t = 0..12 s every second, nothing else
  CHECK(window.store().find("rack", "P_ac").has_value());
  CHECK(window.geometry()->rackCount() == 1);
}
