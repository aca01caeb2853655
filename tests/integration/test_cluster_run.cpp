// The 64-rack cluster end to end: 4,608 GPUs on 8 in-row CDUs with reverse-return headers.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "RunProgram.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

using namespace racktwin;

TEST_CASE("The 64-rack cluster hour closes its energy and mass balances", "[integration]") {
  const std::string dir = test::scratchDirectory("cluster-" + std::to_string(getpid()));
  const std::string result = dir + "/c.h5";
  const auto run =
      test::runProgram(std::string(RACKTWIN_CLI) + " run scenarios/cluster-64-racks.yaml -q -o "
                       + result + " --summary-json " + dir + "/c.json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto s = nlohmann::json::parse(test::readFile(dir + "/c.json"));
  CHECK(s.at("gpu_count").get<double>() == 4608.0);  // 64 racks x 72 (Azure ND GB300 v6 scale)
  CHECK(s.at("energy_balance_relative_error").get<double>() < 1e-6);
  CHECK(s.at("max_gpu_temperature_K").get<double>() > 273.15 + 40.0);
  CHECK(s.at("max_gpu_temperature_K").get<double>() < 273.15 + 95.0);
  CHECK(s.at("cold_plates_below_minimum_flow").get<double>() == 0.0);

  const auto check = test::runProgram("/usr/bin/python3 tests/hdf5/check_result.py " + result);
  INFO(check.out << check.err);
  CHECK(check.exit_code == 0);

  // Mass balance at each CDU: its pump flow is the sum of the flows of the racks it serves.
  const core::SiteSpec site = scenarios::loadScenario("scenarios/cluster-64-racks.yaml");
  std::vector<unsigned long long> rack_shape, cdu_shape;
  const auto rack_V = core::readResultDataset(result, "/rack/V_flow", &rack_shape);
  const auto cdu_V = core::readResultDataset(result, "/cdu/V_flow", &cdu_shape);
  REQUIRE(rack_shape[1] == site.racks.size());
  REQUIRE(cdu_shape[1] == site.cdus.size());
  const std::size_t last = rack_shape[0] - 1;
  for (std::size_t c = 0; c < site.cdus.size(); ++c) {
    double sum = 0.0;
    for (std::size_t r = 0; r < site.racks.size(); ++r) {
      if (site.racks[r].cdu == site.cdus[c].id.str()) sum += rack_V[last * rack_shape[1] + r];
    }
    CHECK(sum == Approx(cdu_V[last * cdu_shape[1] + c]).epsilon(1e-9));
  }

  // The facility loop: the plant pumps' flow is the CDUs' facility flows (mass), and the plant
  // holds its W32 supply set-point at the end of the hour.
  REQUIRE(site.facility.loop.present);
  std::vector<unsigned long long> plant_shape, fac_shape;
  const auto plant_V = core::readResultDataset(result, "/facility/V_flow", &plant_shape);
  const auto fac_V = core::readResultDataset(result, "/cdu/V_flow_facility", &fac_shape);
  const auto plant_T = core::readResultDataset(result, "/facility/T_supply", nullptr);
  double cdus = 0.0;
  for (std::size_t c = 0; c < fac_shape[1]; ++c)
    cdus += fac_V[last * fac_shape[1] + c];
  CHECK(cdus == Approx(plant_V[last]).epsilon(1e-6));
  CHECK(plant_T[last] == Approx(site.facility.T_supply).margin(0.2));
  CHECK(s.at("pue").get<double>() > 1.0);
}
