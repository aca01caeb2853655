// A passive rear-door heat exchanger on a GB300 rack's CDU loop, end to end: the door's heat
// leaves the room and enters the coolant. Checked against eps-NTU computed here from the recorded
// flows and temperatures, by the site's energy balance (heat the room loses and the coolant gains
// must be the same, or the stored heat no longer matches the books), by the energy audit (the
// door's enthalpy balance every step; a run whose audit fails exits 1), and against the same rack
// without a door: the CDU carries at least the door's heat more (a little more still, as the
// warmer loop raises the GPUs' leakage), and the room runs cooler.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cmath>
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

// Constant load: compute and communication at the same power, so the loop settles.
std::string scenario(const std::string& attach) {
  return R"(racktwin_scenario: 1
name: "rear door"
simulation: {duration: 2400 s, step: 1 s, substeps: 2, record_interval: 60 s}
coolant: PG25
facility_water: {supply_temperature: 32 degC}
room: {supply_air_temperature: 24 degC}
cdus:
  - {id: row1/cdu1, type: inrack-250kw, supply_temperature_setpoint: 36 degC}
racks:
  - id: row1/rack01
    type: gb300-nvl72
    cdu: row1/cdu1
)" + attach
         + R"(workload:
  - id: train1
    type: training
    racks: all
    start: 0 s
    duration: 2400 s
    iteration: {compute: 3 s, compute_power: 80 %, communication: 1 s, communication_power: 80 %}
)";
}

double last(const std::string& file, const std::string& dataset) {
  const std::vector<double> v = racktwin::core::readResultDataset(file, dataset);
  REQUIRE_FALSE(v.empty());
  return v.back();
}

}  // namespace

TEST_CASE("A rear door moves rack exhaust heat from the room into the CDU loop",
          "[integration][rear-door]") {
  const std::string dir = racktwin::test::scratchDirectory("rear-door-" + std::to_string(getpid()));
  std::ofstream(dir + "/bare.yaml") << scenario("");
  std::ofstream(dir + "/door.yaml") << scenario(
      "    attach:\n      - {kind: rear-door-hx, type: active-rdhx-75kw, fan_power_nominal: 0 "
      "W}\n");
  for (const char* name : {"bare", "door"}) {
    const auto run = runProgram(kCli + " run " + dir + "/" + name + ".yaml -q -o " + dir + "/"
                                + name + ".h5 --summary-json " + dir + "/" + name + ".json");
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
  }
  const std::string bare = dir + "/bare.h5", door = dir + "/door.h5";
  const double Q_door = last(door, "/rear_door_hx/Q_flow");  // W from air into the coolant
  // Passive: no fan power; the servers' 0.65 m3/s carries the rack's air heat (over 40 degC
  // exhaust) past 36 degC coolant.
  CHECK(last(door, "/rear_door_hx/fan_P") == 0.0);
  CHECK(Q_door > 1e3);
  CHECK(Q_door < 75e3);
  const double cdu_bare = last(bare, "/cdu/Q_flow"), cdu_door = last(door, "/cdu/Q_flow");
  CHECK(cdu_door - cdu_bare >= Q_door);
  CHECK(cdu_door - cdu_bare <= 1.15 * Q_door);
  CHECK(last(door, "/room/T_air") < last(bare, "/room/T_air"));

  // eps-NTU from the recorded water flow, the air that passes (the rack's own 0.65 m3/s,
  // data/racks/gb300-nvl72.yaml) and the air leaving: T_air_in = T_air_out + Q / C_air;
  // T_water_in is the CDU's supply.
  const double C_air = 0.65 * racktwin::thermal::kAirCapacityPerFlow;
  const double T_air_out = last(door, "/rear_door_hx/T_air_outlet");
  const double T_air_in = T_air_out + Q_door / C_air;
  // The rack's exhaust: the supply air plus the rack's air heat carried by that air.
  CHECK(T_air_in > 273.15 + 24.0);
  const double T_water_in = last(door, "/cdu/T_supply");
  const double V_water = last(door, "/rear_door_hx/V_flow");
  CHECK(V_water > 0.0);
  // The coolant's rho cp at 36 degC (PG25, gb300_nvl72.md section 3: 1011.5 kg/m3, 3963 J/(kg K)).
  const double C_water = V_water * 1011.5 * 3963.0;
  const racktwin::thermal::CrossFlowCoil coil = racktwin::thermal::CrossFlowCoil::fromRating(
      75e3, 150e-3 / 60.0 * 1011.5 * 3963.0, 6.0 * racktwin::thermal::kAirCapacityPerFlow,
      45.0 - 18.0);
  const double Q_expected = coil.conductance(C_water, C_air) * (T_air_in - T_water_in);
  CHECK(Q_door == Approx(Q_expected).epsilon(0.02));

  const auto s = nlohmann::json::parse(readFile(dir + "/door.json"));
  CHECK(s.at("energy_audit_relative_error_max").get<double>() < 1e-8);
  CHECK(s.at("rack_exchanger_heat_J").get<double>() > 0.0);
  CHECK(s.at("energy_balance_relative_error").get<double>() < 1e-9);
}
