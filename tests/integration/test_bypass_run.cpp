// A bypass attached to a rack (kind `bypass`, data/bypasses/orifice-20lpm.yaml): its recorded
// flow follows its power law at the recorded differential pressure across the rack's manifolds,
// dp = 100 kPa (V / 20 L/min)^2, and continuity holds at the rack's taps: the hose carries the
// trays' flows plus the bypass's.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "RunProgram.hpp"
#include "racktwin/core/Hdf5Result.hpp"

using racktwin::test::runProgram;

TEST_CASE("A bypass attached to a rack passes the flow of its law at the rack's dp",
          "[integration][bypass]") {
  const std::string dir = racktwin::test::scratchDirectory("bypass-" + std::to_string(getpid()));
  std::ofstream(dir + "/bypass.yaml") << R"(racktwin_scenario: 1
name: "bypass"
simulation: {duration: 120 s, step: 1 s, substeps: 2, record_interval: 10 s}
coolant: PG25
facility_water: {supply_temperature: 32 degC}
cdus:
  - {id: row1/cdu1, type: inrack-250kw}
racks:
  - {id: row1/rack01, type: gb300-nvl72, cdu: row1/cdu1, attach: [{kind: bypass, type: orifice-20lpm}]}
)";
  const std::string result = dir + "/bypass.h5";
  const auto run =
      runProgram(RACKTWIN_CLI + std::string(" run ") + dir + "/bypass.yaml -q -o " + result);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const double V = racktwin::core::readResultDataset(result, "/bypass/V_flow").back();
  const double dp = racktwin::core::readResultDataset(result, "/rack/dp_available").back();
  CHECK(V == Approx(20e-3 / 60.0 * std::sqrt(dp / 100e3)).epsilon(1e-6));
  CHECK(V > 0.0);
  const std::vector<double> trays = racktwin::core::readResultDataset(result, "/tray/V_flow");
  const std::size_t n_trays = 27;  // 18 compute + 9 switch trays
  REQUIRE(trays.size() % n_trays == 0);
  const double tray_sum = std::accumulate(trays.end() - n_trays, trays.end(), 0.0);
  const double hose = racktwin::core::readResultDataset(result, "/rack/V_flow").back();
  CHECK(hose == Approx(tray_sum + V).epsilon(1e-6));
}
