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
  // Supply - set-point of any CDU: its largest excursion over the run, and over the last
  // `tail` seconds; when the first CDU was recognised as hunting.
  double excursion_max_K = 0.0, tail_excursion_max_K = 0.0;
  double hunting = 0.0;
  std::optional<double> reported_swing, control_step_final;
  std::vector<std::string> warnings;
  std::string summary_json;
};

HuntRun runHall(double step, double control_step, double duration, double tail,
                unsigned threads = 1) {
  SiteSpec site = racktwin::scenarios::loadScenario(
      racktwin::test::sourcePath("scenarios/cluster-64-racks.yaml"));
  site.simulation.step = step;
  site.simulation.control_step = control_step;
  site.simulation.substeps = 1;
  site.simulation.duration = duration;
  site.simulation.record_interval = duration;
  Twin twin(site, threads);
  twin.initialize();
  HuntRun run;
  while (twin.step()) {
    for (std::size_t c = 0; c < site.cdus.size(); ++c) {
      const double e = std::abs(twin.cooling().cduSupplyTemperature(c) - site.cdus[c].T_supply_set);
      run.excursion_max_K = std::max(run.excursion_max_K, e);
      if (twin.time() > duration - tail)
        run.tail_excursion_max_K = std::max(run.tail_excursion_max_K, e);
    }
  }
  const racktwin::core::Summary summary = twin.finish(true);
  run.hunting = summary.value("cdus_hunting").value_or(-1.0);
  run.reported_swing = summary.value("cdu_hunting_swing_max_K");
  run.control_step_final = summary.value("control_step_final_s");
  run.warnings = twin.runWarnings();
  run.summary_json = summary.toJson();
  return run;
}

bool mentions(const std::vector<std::string>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& line) { return line.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("a CDU valve PI sampled every 10 s hunts, and the run says so and samples it more often",
          "[scenarios][hunting]") {
  // 1,700 s: the job's first checkpoint (at 1,800 s) stays outside.
  const HuntRun slow = runHall(10.0, 10.0, 1700.0, 500.0);
  INFO("largest excursion " << slow.excursion_max_K << " K, over the last 500 s "
                            << slow.tail_excursion_max_K << " K");
  // Seen and reported: a swing of kelvins, named with the CDU and the sample interval.
  CHECK(slow.hunting >= 1.0);
  REQUIRE(slow.reported_swing.has_value());
  CHECK(*slow.reported_swing > 1.0);
  CHECK(*slow.reported_swing <= slow.excursion_max_K + 1e-9);  // no swing larger than any seen
  CHECK(mentions(slow.warnings, "hunted from t = "));
  CHECK(mentions(slow.warnings, "sampled every 10 s"));
  // Answered: the control step halved until nothing hunts (10 -> 5 -> 2.5 s here), after which
  // the supplies hold their set-point as at fine steps (within 0.1 K, below).
  CHECK(mentions(slow.warnings, "halved from 10 s to 5 s"));
  REQUIRE(slow.control_step_final.has_value());
  CHECK(*slow.control_step_final <= 5.0);
  CHECK(*slow.control_step_final >= 0.25);
  CHECK(slow.tail_excursion_max_K < 0.1);
}

TEST_CASE("the same PI sampled every second holds its set-point: nothing is reported",
          "[scenarios][hunting]") {
  const HuntRun fine = runHall(1.0, 2.0, 1700.0, 850.0);
  INFO("excursion over the second half " << fine.tail_excursion_max_K << " K");
  CHECK(fine.tail_excursion_max_K < 0.1);
  CHECK(fine.hunting == 0.0);
  CHECK_FALSE(fine.reported_swing.has_value());
  CHECK(fine.control_step_final == 2.0);
  CHECK(fine.warnings.empty());
}

TEST_CASE("the answer to hunting is the same on 1 and 2 threads", "[scenarios][hunting]") {
  const HuntRun one = runHall(10.0, 10.0, 1000.0, 100.0, 1);
  const HuntRun two = runHall(10.0, 10.0, 1000.0, 100.0, 2);
  CHECK(one.hunting >= 1.0);
  CHECK(one.summary_json == two.summary_json);
  CHECK(one.warnings == two.warnings);
}
