// Records at steps longer than the controllers' sampling: a macro step cycled in several thermal
// cycles still records interval means, so the file's powers integrate to the summary's energies
// (README "Reading a result"). Facility-loop rack and the mixed hall at 60 s steps.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "RunProgram.hpp"
#include "racktwin/core/Hdf5Result.hpp"

using racktwin::test::readFile;
using racktwin::test::runProgram;

namespace {

/// sum over records k >= 1 of P_k (t_k - t_(k-1)), summed over the dataset's columns.
double integral(const std::string& file, const std::string& dataset) {
  const std::vector<double> t = racktwin::core::readResultDataset(file, "/time");
  const std::vector<double> P = racktwin::core::readResultDataset(file, dataset);
  REQUIRE(P.size() % t.size() == 0);
  const std::size_t width = P.size() / t.size();
  double E = 0.0;
  for (std::size_t k = 1; k < t.size(); ++k)
    for (std::size_t j = 0; j < width; ++j)
      E += P[k * width + j] * (t[k] - t[k - 1]);
  return E;
}

}  // namespace

TEST_CASE("At 60 s steps the recorded plant powers integrate to the summary's energies",
          "[integration][records]") {
  const std::string dir = racktwin::test::scratchDirectory("long-" + std::to_string(getpid()));
  struct Case {
    const char* scenario;
    std::vector<std::pair<const char*, const char*>> pairs;  // dataset, summary key
  };
  const Case cases[] = {
      {"scenarios/facility-loop-rack.yaml",
       {{"/facility/pump_P", "facility_pump_energy_J"},
        {"/facility/fan_P", "heat_rejection_fan_energy_J"},
        {"/facility/chiller_P", "chiller_energy_J"},
        {"/room/Q_flow_crah", "heat_rejected_to_air_J"}}},
      {"scenarios/mixed-hall.yaml",
       {{"/air_plant/P", "air_plant_energy_J"},
        {"/air_plant/chiller_P", "air_plant_chiller_energy_J"},
        {"/rear_door_hx/Q_flow", "rack_exchanger_heat_J"},
        {"/room/Q_flow_crah", "heat_rejected_to_air_J"}}},
  };
  for (const Case& c : cases) {
    INFO(c.scenario);
    const std::string out = dir + "/r.h5", json = dir + "/s.json";
    const auto run = runProgram(RACKTWIN_CLI + std::string(" run ") + c.scenario
                                + " --duration 1200 --step 60 --record-interval 120 -q -o " + out
                                + " --summary-json " + json);
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const auto s = nlohmann::json::parse(readFile(json));
    for (const auto& [dataset, key] : c.pairs) {
      INFO(dataset << " against " << key);
      const double E = s.at(key).get<double>();
      CHECK(integral(out, dataset) == Approx(E).epsilon(1e-9).margin(1e-3));
    }
  }
}
