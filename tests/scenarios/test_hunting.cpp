// A CDU valve PI sampled too seldom hunts, and the run says so (cooling::HuntingWatch).
//
// The 64-rack hall's in-row CDUs hold their 36 degC supply when the thermal cycle (the valve PI's
// sample interval) is 1 s. At 10 s the same PI overshoots: the supply swings by kelvins about
// the set-point for as long as the run lasts, and the result looks like physics. The swing is
// measured here from the CDU supply temperatures the twin publishes (not from the watch), and
// the summary and the run's warnings must report it; the 1 s run must report nothing.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

namespace {

using racktwin::core::SiteSpec;
using racktwin::scenarios::Twin;

struct HuntRun {
  // Supply - set-point: CDU 0's extremes over the second half of the run, and the largest
  // excursion of any CDU over the whole run.
  double swing_min_K = 0.0, swing_max_K = 0.0, excursion_max_K = 0.0;
  double hunting = 0.0;
  std::optional<double> reported_swing;
  std::vector<std::string> warnings;
};

HuntRun runHall(double step, double control_step, double duration) {
  SiteSpec site = racktwin::scenarios::loadScenario(
      racktwin::test::sourcePath("scenarios/cluster-64-racks.yaml"));
  site.simulation.step = step;
  site.simulation.control_step = control_step;
  site.simulation.substeps = 1;
  site.simulation.duration = duration;
  site.simulation.record_interval = duration;
  const double T_set = site.cdus.at(0).T_supply_set;
  Twin twin(site);
  twin.initialize();
  HuntRun run;
  run.swing_min_K = 1e9;
  run.swing_max_K = -1e9;
  while (twin.step()) {
    for (std::size_t c = 0; c < site.cdus.size(); ++c) {
      const double e_c = twin.cooling().cduSupplyTemperature(c) - site.cdus[c].T_supply_set;
      run.excursion_max_K = std::max(run.excursion_max_K, std::abs(e_c));
    }
    if (twin.time() < duration / 2) continue;  // past the warm-up
    const double e = twin.cooling().cduSupplyTemperature(0) - T_set;
    run.swing_min_K = std::min(run.swing_min_K, e);
    run.swing_max_K = std::max(run.swing_max_K, e);
  }
  const racktwin::core::Summary summary = twin.finish(true);
  run.hunting = summary.value("cdus_hunting").value_or(-1.0);
  run.reported_swing = summary.value("cdu_hunting_swing_max_K");
  run.warnings = twin.runWarnings();
  return run;
}

}  // namespace

TEST_CASE("a CDU valve PI sampled every 10 s hunts, and the run reports it",
          "[scenarios][hunting]") {
  const HuntRun slow = runHall(10.0, 10.0, 1800.0);
  INFO("supply - set-point over the second half: " << slow.swing_min_K << " .. " << slow.swing_max_K
                                                   << " K");
  // The defect itself, from the published temperatures: kelvins on both sides of the set-point.
  CHECK(slow.swing_max_K > 1.0);
  CHECK(slow.swing_min_K < -0.25);
  // Reported: the eight identical rows hunt alike, the swing named is the size of the one seen.
  CHECK(slow.hunting == 8.0);
  REQUIRE(slow.reported_swing.has_value());
  CHECK(*slow.reported_swing > 1.0);
  CHECK(*slow.reported_swing <= slow.excursion_max_K + 1e-9);  // no swing larger than any seen
  // Five named, then how many more.
  REQUIRE(slow.warnings.size() == 6);
  CHECK(slow.warnings[0].find("CDU 'row1/cdu1' hunts") != std::string::npos);
  CHECK(slow.warnings[0].find("sampled every 10 s") != std::string::npos);
  CHECK(slow.warnings[5].find("and 3 more CDUs hunt") != std::string::npos);
}

TEST_CASE("the same PI sampled every second holds its set-point: nothing is reported",
          "[scenarios][hunting]") {
  const HuntRun fine = runHall(1.0, 2.0, 1800.0);
  INFO("supply - set-point over the second half: " << fine.swing_min_K << " .. " << fine.swing_max_K
                                                   << " K");
  // Held within a tenth of a kelvin once warm (the checkpoint at 1800 s is past the end).
  CHECK(fine.swing_max_K < 0.1);
  CHECK(fine.swing_min_K > -0.1);
  CHECK(fine.hunting == 0.0);
  CHECK_FALSE(fine.reported_swing.has_value());
  CHECK(fine.warnings.empty());
}
