// The limit monitor's arithmetic on hand-made records: margins, first and last violation, time
// exceeded, round-off at the rating, and the pump run-out formula against a hand calculation.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "racktwin/core/DesignLimits.hpp"
#include "racktwin/core/LimitMonitor.hpp"
#include "racktwin/core/Units.hpp"

namespace {

using racktwin::core::ChannelInfo;
using racktwin::core::DesignLimit;
using racktwin::core::LimitFormula;
using racktwin::core::LimitInput;
using racktwin::core::LimitMonitor;

ChannelInfo channel(const char* group, const char* name, std::vector<std::string> ids) {
  ChannelInfo c;
  c.group = group;
  c.name = name;
  c.unit = "1";
  c.entity_ids = std::move(ids);
  c.aggregation = racktwin::core::Aggregation::Sample;
  return c;
}

DesignLimit heatLimit() {
  DesignLimit l;
  l.component = "cdu1";
  l.name = "rated_heat";
  l.group = "cdu1";
  l.group_kind = "cdu";
  l.unit = "W";
  l.rating = 1000.0;
  l.scale = 1000.0;
  LimitInput in;
  in.channel = "cdu/Q_flow";
  in.entities = {"cdu1"};
  l.inputs = {in};
  return l;
}

}  // namespace

TEST_CASE("the monitor keeps the worst margin, the violations and their duration",
          "[capacity][limits]") {
  LimitMonitor monitor({heatLimit()});
  monitor.open({}, {channel("cdu", "Q_flow", {"cdu0", "cdu1"})});
  // Records every 10 s; t = 0 is the initial state and is not checked.
  const double Q[] = {5000.0, 900.0, 1100.0, 1200.0, 1000.0 * (1.0 + 1e-12), 950.0};
  for (int k = 0; k < 6; ++k) {
    const double row[2] = {0.0, Q[k]};
    monitor.append(10.0 * k, row);
  }
  const auto& o = monitor.outcomes().front();
  REQUIRE(o.checked);
  CHECK(o.worst_value == 1200.0);
  CHECK(o.worst_margin == -200.0);
  CHECK(o.worst_time == 30.0);
  CHECK(o.first_violation == 20.0);
  CHECK(o.last_violation == 30.0);  // 1000 (1 + 1e-12) is the rating within round-off
  CHECK(o.violated_time == 20.0);   // two 10 s intervals beyond the rating
  CHECK(monitor.violatedCount() == 1);
  const auto rows = monitor.headroom();
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].worst_margin_fraction == Approx(-0.2));
}

TEST_CASE("a limit whose channel is not recorded is listed as unchecked", "[capacity][limits]") {
  LimitMonitor monitor({heatLimit()});
  monitor.open({}, {channel("cdu", "V_flow", {"cdu1"})});
  const double row[1] = {1e9};
  monitor.append(0.0, row);
  monitor.append(10.0, row);
  CHECK_FALSE(monitor.outcomes().front().checked);
  CHECK(monitor.violatedCount() == 0);
  CHECK(monitor.limitTable().find("checked")->numbers.front() == 0.0);
}

TEST_CASE("pump run-out: the flow of one pump over its zero-head flow at the speed its head shows",
          "[capacity][limits]") {
  // XDU1350 pump (data/cdus/xdu1350.yaml): dp0 = 650 kPa, V_max = 2547 L/min. At speed 0.8 and
  // 1320 L/min the curve's head is 0.64 x 650 x (1 - (1320 / (0.8 x 2547))^2) = 241.4 kPa and the
  // flow is 1320 / 2037.6 = 0.6478 of the zero-head flow at that speed.
  constexpr double lpm = racktwin::core::kLitrePerMinute_m3_per_s;
  DesignLimit l;
  l.component = "cdu1";
  l.name = "pump_runout";
  l.unit = "1";
  l.rating = 0.85;
  l.scale = 0.85;
  l.formula = LimitFormula::PumpRunout;
  l.c0 = 650e3;
  l.c1 = 2547.0 * lpm;
  for (const char* name : {"cdu/V_flow", "cdu/pump_dp", "cdu/pumps_running"}) {
    LimitInput in;
    in.channel = name;
    in.entities = {"cdu1"};
    l.inputs.push_back(in);
  }
  LimitMonitor monitor({l});
  monitor.open({}, {channel("cdu", "V_flow", {"cdu1"}), channel("cdu", "pump_dp", {"cdu1"}),
                    channel("cdu", "pumps_running", {"cdu1"})});
  const double q = 1320.0 / (0.8 * 2547.0);
  const double dp = 0.64 * 650e3 * (1.0 - q * q);
  const double row[3] = {2 * 1320.0 * lpm, dp, 2.0};  // two pumps sharing twice the flow
  monitor.append(0.0, row);
  monitor.append(10.0, row);
  CHECK(monitor.outcomes().front().worst_value == Approx(0.6478).epsilon(1e-3));
  CHECK(monitor.outcomes().front().worst_value == Approx(q).epsilon(1e-12));
}

TEST_CASE("ASHRAE W-classes: the class number is the highest facility supply in degC",
          "[capacity][limits]") {
  using racktwin::core::ashraeWClassLimit;
  using racktwin::core::ashraeWClassName;
  using racktwin::core::fromCelsius;
  CHECK(ashraeWClassName(fromCelsius(32.0)) == "W32");
  CHECK(ashraeWClassName(fromCelsius(32.5)) == "W40");
  CHECK(ashraeWClassName(fromCelsius(10.0)) == "W17");
  CHECK(ashraeWClassName(fromCelsius(46.0)) == "W+");
  CHECK(ashraeWClassLimit(fromCelsius(27.0)) == Approx(fromCelsius(27.0)));
  CHECK(ashraeWClassLimit(fromCelsius(46.0)) == 0.0);
}
