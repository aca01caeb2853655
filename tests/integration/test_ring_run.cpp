// Sixteen racks on a secondary ring with three CDUs (N+1), end to end: the middle CDU loses both
// pumps and the other two carry the ring.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "RunProgram.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

using namespace racktwin;

TEST_CASE("A ring main of three CDUs rides through the loss of one CDU", "[integration]") {
  const std::string dir = test::scratchDirectory("ring-" + std::to_string(getpid()));
  const std::string result = dir + "/r.h5";
  const auto run =
      test::runProgram(std::string(RACKTWIN_CLI) + " run scenarios/ring-16-racks.yaml -q -o "
                       + result + " --summary-json " + dir + "/r.json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto s = nlohmann::json::parse(test::readFile(dir + "/r.json"));
  CHECK(s.at("energy_balance_relative_error").get<double>() < 1e-9);
  CHECK(s.at("throttled_gpu_seconds").get<double>() == 0.0);  // two 1.35 MW CDUs carry 2.2 MW

  const core::SiteSpec site = scenarios::loadScenario("scenarios/ring-16-racks.yaml");
  REQUIRE(site.rings.size() == 1);
  std::vector<unsigned long long> shape, rack_shape, q_shape;
  const auto t = core::readResultDataset(result, "/time", nullptr);
  const auto V = core::readResultDataset(result, "/cdu/V_flow", &shape);
  const auto Q = core::readResultDataset(result, "/cdu/Q_flow", &q_shape);
  const auto rack_V = core::readResultDataset(result, "/rack/V_flow", &rack_shape);
  REQUIRE(shape[1] == 3);
  for (std::size_t k = 0; k < shape[0]; ++k) {
    // Mass: the CDUs' pumped flow is the racks' flow, before and after the loss.
    double racks = 0.0;
    for (std::size_t r = 0; r < rack_shape[1]; ++r)
      racks += rack_V[k * rack_shape[1] + r];
    CHECK(racks == Approx(V[k * 3] + V[k * 3 + 1] + V[k * 3 + 2]).epsilon(1e-9));
    if (t[k] > 1200.0 + 1e-9) {
      CHECK(V[k * 3 + 1] == 0.0);  // both of cdu2's pumps have tripped
      CHECK(Q[k * 3 + 1] == 0.0);
      CHECK(V[k * 3] == Approx(V[k * 3 + 2]).epsilon(1e-6));  // cdu1 and cdu3 sit symmetrically
    }
    if (t[k] > 610.0 && t[k] < 1200.0) CHECK(V[k * 3 + 1] > 0.0);  // the standby has taken over
  }
  const auto check = test::runProgram("/usr/bin/python3 tests/hdf5/check_result.py " + result);
  INFO(check.out << check.err);
  CHECK(check.exit_code == 0);
}
