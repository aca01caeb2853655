// Design limits checked from the records (core/DesignLimits.hpp, LimitMonitor.hpp): the defect of
// issue 18 (a 1.35 MW CDU "carrying" 18 GB300 racks at W32 while moving 1.74 MW, with no rating
// checked), the limits' arithmetic against hand calculations, and the result file's tables.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/DesignLimits.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/core/LimitMonitor.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

namespace {

using racktwin::core::DesignLimit;
using racktwin::core::LimitMonitor;
using racktwin::core::LimitOutcome;
using racktwin::scenarios::Twin;
using racktwin::test::sourcePath;

/// `racks` GB300 NVL72 racks on one XDU1350 at W32 (facility water a 32 degC boundary), one
/// synchronous training job on all of them, as the issue's user wrote it.
std::string rowOnOneCdu(int racks, double duration_s) {
  std::string text = R"(racktwin_scenario: 1
name: "racks on one XDU1350 at W32"
simulation: {duration: )"
                     + std::to_string(duration_s)
                     + R"( s, step: 1 s, substeps: 10, record_interval: 10 s}
coolant: PG25
facility_water: {supply_temperature: 32 degC}
cdus:
  - id: row1/cdu1
    type: xdu1350
    supply_temperature_setpoint: 36 degC
    headers: {segment_length: 0.6 m, inner_diameter: 102.3 mm, roughness: 0.045 mm, cells: 2, return: reverse}
racks:
)";
  for (int r = 1; r <= racks; ++r) {
    char line[120];
    std::snprintf(line, sizeof line, "  - {id: row1/rack%02d, type: gb300-nvl72, cdu: row1/cdu1}\n",
                  r);
    text += line;
  }
  text += R"(workload:
  - id: train1
    type: training
    racks: all
    start: 0 s
    duration: )"
          + std::to_string(duration_s) + R"( s
    iteration: {compute: 3.2 s, compute_power: 95 %, communication: 0.8 s, communication_power: 40 %}
)";
  return text;
}

std::size_t limitIndex(const LimitMonitor& monitor, const std::string& id) {
  const auto& limits = monitor.limits();
  for (std::size_t i = 0; i < limits.size(); ++i)
    if (limits[i].id() == id) return i;
  FAIL("no limit " << id);
  return 0;
}

}  // namespace

TEST_CASE("a 1.35 MW CDU moving 1.74 MW for 18 GB300 racks at W32 is a violation of its rated heat",
          "[capacity][limits]") {
  // Issue 18, "What was seen": the run carried on and called the row fine.
  Twin twin(racktwin::scenarios::loadScenarioFromString(rowOnOneCdu(18, 900.0), "row18.yaml",
                                                        sourcePath("data")));
  twin.initialize();
  double Q_max = 0.0;  // the CDU's heat as the model reports it, independent of the monitor
  while (twin.step()) {
    if (twin.time() > 0.0) Q_max = std::max(Q_max, twin.cooling().cduHeatFlow(0));
  }
  const racktwin::core::Summary summary = twin.finish(true);
  const LimitMonitor& monitor = twin.limits();
  const std::size_t i = limitIndex(monitor, "row1/cdu1:rated_heat");
  const DesignLimit& limit = monitor.limits()[i];
  const LimitOutcome& outcome = monitor.outcomes()[i];
  CHECK(limit.rating == Approx(1.35e6));  // data/cdus/xdu1350.yaml rated_heat (gb300_nvl72.md §2b)
  REQUIRE(outcome.checked);
  CHECK(outcome.violated());
  // The CDU really moved more than its rating (the issue saw 1.74 MW with the valve open).
  CHECK(Q_max > 1.35e6);
  // Records are 10 s means of the heat: the worst record is at most the highest step value.
  CHECK(outcome.worst_value > 1.35e6);
  CHECK(outcome.worst_value <= Q_max * (1.0 + 1e-12));
  CHECK(outcome.worst_margin == Approx(1.35e6 - outcome.worst_value));
  // The run says so first.
  REQUIRE(!summary.items().empty());
  CHECK(summary.items().front().key == "design_limits_violated");
  CHECK(summary.items().front().value.value_or(0.0) >= 1.0);
  const auto lines = monitor.violationLines();
  CHECK(std::any_of(lines.begin(), lines.end(), [](const std::string& line) {
    return line.find("row1/cdu1: CDU rated heat") != std::string::npos;
  }));
}
