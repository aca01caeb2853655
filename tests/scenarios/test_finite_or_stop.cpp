// Finite or stop: a run whose state turns non-finite ends with an error naming the quantity, the
// component and the time (core::FiniteCheckSink), before any sink records the row and before
// any summary is given.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/FiniteCheck.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"

using namespace racktwin;

TEST_CASE("The finite check names the first non-finite value of a record", "[scenarios]") {
  core::FiniteCheckSink sink;
  std::vector<core::ChannelInfo> channels(2);
  channels[0] = {"site", "P_it", "W", "IT power", {}};
  channels[1] = {"rack", "P_ac", "W", "AC input", {"row1/rack01", "row1/rack02"}};
  sink.open({}, channels);
  sink.append(1.0, std::vector<double>{1.0, 2.0, 3.0});  // finite: passes
  const double values[] = {std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN()};
  for (const double bad : values) {
    try {
      sink.append(7.0, std::vector<double>{1.0, 2.0, bad});
      FAIL("a non-finite value passed");
    } catch (const core::RuntimeError& e) {
      const std::string what = e.what();
      CHECK(what.find("t = 7 s") != std::string::npos);
      CHECK(what.find("rack/P_ac of row1/rack02") != std::string::npos);
      CHECK(what.find(std::isnan(bad) ? "is NaN" : "is infinite") != std::string::npos);
    }
  }
}

TEST_CASE("The finite check finds a non-finite value at every position of a long row",
          "[scenarios]") {
  // 37 columns: the check sums in blocks of 8 and a tail of 5; every position of both is tried,
  // with huge finite neighbours (their products with 0 are 0, not a cancelling infinity).
  core::FiniteCheckSink sink;
  std::vector<std::string> ids;
  for (int k = 0; k < 37; ++k)
    ids.push_back("gpu" + std::to_string(k));
  sink.open({}, {core::ChannelInfo{"gpu", "T_junction", "K", "junction", ids}});
  std::vector<double> row(37, std::numeric_limits<double>::max());
  sink.append(1.0, row);  // finite: passes
  for (const double bad :
       {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
        std::numeric_limits<double>::quiet_NaN()}) {
    for (std::size_t k = 0; k < row.size(); ++k) {
      std::vector<double> damaged = row;
      damaged[k] = bad;
      INFO("column " << k << " value " << bad);
      CHECK_THROWS_WITH(
          sink.append(2.0, damaged),
          Catch::Matchers::Contains("gpu/T_junction of gpu" + std::to_string(k) + " "));
    }
  }
}

TEST_CASE("A power tree with an absurd impedance stops the run instead of recording inf",
          "[scenarios]") {
  // A switchboard of 1e308 m at 0.005 ohm/km: finite impedance, infinite currents and powers.
  // The loader's ranges refuse such a length; the model is given it directly.
  core::SiteSpec site = scenarios::loadScenario("scenarios/faults/utility-outage.yaml");
  REQUIRE_FALSE(site.electrical.lines.empty());
  site.electrical.lines[0].R = 0.005e-3 * 1e308;
  site.electrical.lines[0].X = 0.005e-3 * 1e308;
  site.simulation.duration = 20.0;
  scenarios::Twin twin(site);
  std::string message;
  try {
    twin.initialize();
    while (twin.step()) {
    }
    twin.finish(true);
  } catch (const core::RuntimeError& e) {
    message = e.what();
  }
  INFO(message);
  CHECK(message.find("non-finite result at t = ") != std::string::npos);
  CHECK(message.find("power_tree/") != std::string::npos);
  // The first infinite value is upstream of the switchboard, on its side A path.
  CHECK(message.find(" of elec/a/") != std::string::npos);
}
