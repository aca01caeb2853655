// A liquid-to-air ("sidecar") CDU, end to end: a GB300 rack at part load on a 70 kW in-row unit
// with no facility water, in a room whose CRAH units can carry the rack's whole heat (10 kW/K). Its
// coil's heat (eps-NTU, computed here from the recorded flows and temperatures) goes to the room
// and from there to the CRAH units; nothing reaches facility water; the fans' PI holds the
// secondary supply at its set-point; the site's energy balance and the loop's energy audit close.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "RunProgram.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/thermal/CrossFlowCoil.hpp"

using racktwin::test::readFile;
using racktwin::test::runProgram;

namespace {

const std::string kCli = RACKTWIN_CLI;

double last(const std::string& file, const std::string& dataset) {
  const std::vector<double> v = racktwin::core::readResultDataset(file, dataset);
  REQUIRE_FALSE(v.empty());
  return v.back();
}

}  // namespace

TEST_CASE("A liquid-to-air CDU rejects a rack's heat into the room", "[integration][sidecar]") {
  const std::string dir = racktwin::test::scratchDirectory("sidecar-" + std::to_string(getpid()));
  std::ofstream(dir + "/sidecar.yaml") << R"(racktwin_scenario: 1
name: "sidecar"
simulation: {duration: 2400 s, step: 1 s, substeps: 2, record_interval: 60 s}
coolant: PG25
facility_water: {supply_temperature: 32 degC}
room: {supply_air_temperature: 24 degC, crah_conductance: 10 kW/K, crah_capacity: 200 kW}
cdus:
  - {id: row1/cdu1, type: sidecar-l2a-70kw}
racks:
  - {id: row1/rack01, type: gb300-nvl72, cdu: row1/cdu1}
workload:
  - id: train1
    type: training
    racks: all
    start: 0 s
    duration: 2400 s
    iteration: {compute: 3 s, compute_power: 35 %, communication: 1 s, communication_power: 35 %}
)";
  const std::string result = dir + "/sidecar.h5";
  const auto run = runProgram(kCli + " run " + dir + "/sidecar.yaml -q -o " + result
                              + " --summary-json " + dir + "/s.json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto s = nlohmann::json::parse(readFile(dir + "/s.json"));
  CHECK(s.at("heat_rejected_to_facility_water_J").get<double>() == 0.0);
  CHECK(s.at("energy_balance_relative_error").get<double>() < 1e-9);
  CHECK(s.at("energy_audit_relative_error_max").get<double>() < 1e-8);

  // The coil's heat at the last record against eps-NTU from the recorded quantities: coolant
  // entering at the return (+ the pump's heat, small), air at the room's temperature through fans
  // at the PI's speed (data/cdus/sidecar-l2a-70kw.yaml: 7 m3/s at full speed).
  const double Q = last(result, "/cdu/Q_flow");
  CHECK(Q > 30e3);
  const double speed = last(result, "/cdu/valve_opening");
  CHECK(speed >= 0.2);
  CHECK(speed <= 1.0);
  const double C_air = speed * 7.0 * racktwin::thermal::kAirCapacityPerFlow;
  // PG25 near 44 degC (gb300_nvl72.md section 3): 1007.7 kg/m3, 3979 J/(kg K).
  const double rho_cp = 1007.7 * 3979.0;
  const double C_coolant = last(result, "/cdu/V_flow") * rho_cp;
  const racktwin::thermal::CrossFlowCoil coil = racktwin::thermal::CrossFlowCoil::fromRating(
      70e3, 105e-3 / 60.0 * rho_cp, 7.0 * racktwin::thermal::kAirCapacityPerFlow, 48.0 - 30.0);
  const double T_in =
      last(result, "/cdu/T_return") + last(result, "/cdu/pump_P_hydraulic") / C_coolant;
  const double T_room = last(result, "/room/T_air");
  CHECK(Q == Approx(coil.conductance(C_coolant, C_air) * (T_in - T_room)).epsilon(0.02));
  // The PI holds the supply (data: 40 degC).
  CHECK(last(result, "/cdu/T_supply") == Approx(273.15 + 40.0).margin(0.5));
  // The room carries it: the CRAH units remove more than the rack's coolant heat.
  CHECK(last(result, "/room/Q_flow_crah") > 0.9 * Q);
}
