// A row whose piping comes from an EPANET file (scenarios/epanet-loop-rack.yaml), end to end: the
// energy books and the audit close, every design limit of its CDU and racks finds its channels
// and they are the limits of the same racks on the CDU's own loop, the CDU carries the racks'
// flow before and after its duty pump trips.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>

#include "RunProgram.hpp"
#include "racktwin/core/DesignLimits.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

using namespace racktwin;

namespace {

std::set<std::pair<std::string, std::string>> limitNames(const core::SiteSpec& site) {
  std::set<std::pair<std::string, std::string>> names;
  for (const core::DesignLimit& l : core::designLimits(site))
    names.emplace(l.component, l.name);
  return names;
}

std::string without(std::string text, const std::string& from, const std::string& to) {
  const std::size_t begin = text.find(from);
  const std::size_t end = text.find(to, begin);
  REQUIRE(begin != std::string::npos);
  REQUIRE(end != std::string::npos);
  return text.erase(begin, end - begin);
}

}  // namespace

TEST_CASE("A row on piping from an EPANET file runs with its books, audit and limits",
          "[integration]") {
  const std::string scenario = "scenarios/epanet-loop-rack.yaml";
  const std::string dir = test::scratchDirectory("network-" + std::to_string(getpid()));
  const std::string result = dir + "/r.h5";
  const auto run = test::runProgram(std::string(RACKTWIN_CLI) + " run " + scenario + " -q -o "
                                    + result + " --summary-json " + dir + "/r.json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto s = nlohmann::json::parse(test::readFile(dir + "/r.json"));
  CHECK(s.at("energy_balance_relative_error").get<double>() < 1e-9);
  // The audit measures enthalpy flows over the network's pipes and valves like any loop's; the
  // run stops above 1e-8 (kAuditTolerance).
  CHECK(s.at("energy_audit_relative_error_max").get<double>() < 1e-8);
  CHECK(s.at("energy_audit_checks").get<double>() > 0.0);

  // Limits: the network's CDU and racks are rated as when the racks hang on the CDU's own
  // loop, and every one of them finds its recorded channels.
  const core::SiteSpec site = scenarios::loadScenario(scenario);
  std::string own_loop = test::readFile(scenario);
  own_loop = without(own_loop, "networks:", "\nracks:\n");
  for (int k = 1; k <= 4; ++k) {
    const std::string rack = "{id: row1/rack0" + std::to_string(k) + ", type: gb300-nvl72";
    own_loop.replace(own_loop.find(rack), rack.size(), rack + ", cdu: row1/cdu1");
  }
  const core::SiteSpec reference = scenarios::loadScenarioFromString(own_loop, scenario, "");
  REQUIRE(reference.rings.empty());
  const auto names = limitNames(site);
  CHECK(names == limitNames(reference));
  CHECK(names.count({"row1/cdu1", "rack_inlet_temperature"}) == 1);  // the CDU sees its racks
  CHECK(s.at("design_limits_checked").get<double>() == static_cast<double>(names.size()));

  // Mass: the CDU's pumped flow is the racks' flow, before and after the duty pump's trip (the
  // standby takes over 5 s later).
  std::vector<unsigned long long> shape, rack_shape, pump_shape;
  const auto t = core::readResultDataset(result, "/time", nullptr);
  const auto V = core::readResultDataset(result, "/cdu/V_flow", &shape);
  const auto rack_V = core::readResultDataset(result, "/rack/V_flow", &rack_shape);
  const auto pumps = core::readResultDataset(result, "/cdu/pumps_running", &pump_shape);
  REQUIRE(shape[1] == 1);
  REQUIRE(rack_shape[1] == 4);
  for (std::size_t k = 0; k < shape[0]; ++k) {
    double racks = 0.0;
    for (std::size_t r = 0; r < 4; ++r) {
      racks += rack_V[k * 4 + r];
      CHECK(rack_V[k * 4 + r] > 0.0);
    }
    CHECK(racks == Approx(V[k]).epsilon(1e-9));  // means over the same interval
    if (t[k] < 900.0 || t[k] > 910.0 + 1e-9) CHECK(pumps[k] == 1.0);
  }
  const auto check = test::runProgram("/usr/bin/python3 tests/hdf5/check_result.py " + result);
  INFO(check.out << check.err);
  CHECK(check.exit_code == 0);
}
