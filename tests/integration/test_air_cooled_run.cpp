// An air-cooled rack of HGX H200-class servers, end to end (data/racks/hgx-h200-air.yaml): at
// steady state each GPU's junction sits at T_inlet + P (R_case_air speed^-0.8 + R_jc), with the
// server fans' speed from their law (idle + per-load u + per-K above the reference inlet) and
// their power P_max speed^3 per server, which the rack draws as IT power; an inlet above the
// type's ASHRAE class is counted for the whole run; the site's energy balance closes.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "RunProgram.hpp"
#include "racktwin/core/Hdf5Result.hpp"

using racktwin::test::readFile;
using racktwin::test::runProgram;

namespace {

const std::string kCli = RACKTWIN_CLI;

std::string scenario(const std::string& supply_air) {
  return R"(racktwin_scenario: 1
name: "air-cooled rack"
simulation: {duration: 1800 s, step: 1 s, substeps: 2, record_interval: 60 s}
coolant: PG25
facility_water: {supply_temperature: 32 degC}
room: {supply_air_temperature: )"
         + supply_air + R"(, crah_conductance: 20 kW/K, crah_capacity: 200 kW}
cdus:
  - {id: row1/cdu1, type: inrack-250kw}
racks:
  - {id: row1/rack01, type: hgx-h200-air}
workload:
  - id: train1
    type: training
    racks: all
    start: 0 s
    duration: 1800 s
    iteration: {compute: 3 s, compute_power: 80 %, communication: 1 s, communication_power: 80 %}
)";
}

double last(const std::string& file, const std::string& dataset, std::size_t column = 0,
            std::size_t width = 1) {
  const std::vector<double> v = racktwin::core::readResultDataset(file, dataset);
  REQUIRE(v.size() >= width);
  return v[v.size() - width + column];
}

}  // namespace

TEST_CASE("An air-cooled HGX rack: heat sinks, server fans and the ASHRAE inlet class",
          "[integration][air-cooled]") {
  const std::string dir = racktwin::test::scratchDirectory("air-" + std::to_string(getpid()));
  for (const std::string name : {"cool", "hot"}) {
    std::ofstream(dir + "/" + name + ".yaml") << scenario(name == "cool" ? "24 degC" : "36 degC");
    const auto run = runProgram(kCli + " run " + dir + "/" + name + ".yaml -q -o " + dir + "/"
                                + name + ".h5 --summary-json " + dir + "/" + name + ".json");
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
  }
  // data/racks/hgx-h200-air.yaml: 4 servers x 8 GPUs at 700 W; fans 1.3 kW at full speed,
  // speed = 0.30 + 0.45 u + 0.04 (T_in - 22 degC) within [0.30, 1]; heat sink 0.065 K/W at
  // full speed, junction to case 0.01 K/W.
  for (const std::string name : {"cool", "hot"}) {
    INFO(name);
    const std::string file = dir + "/" + name + ".h5";
    const auto s = nlohmann::json::parse(readFile(dir + "/" + name + ".json"));
    CHECK(s.at("energy_balance_relative_error").get<double>() < 1e-9);
    const double T_in = last(file, "/rack/T_inlet");
    CHECK(T_in
          == Approx(273.15 + (name == "cool" ? 24.0 : 36.0)).margin(1e-9));  // no recirculation
    const double P_gpu = 0.8 * 700.0;
    const double speed = std::clamp(0.30 + 0.45 * 0.8 + 0.04 * (T_in - 295.15), 0.30, 1.0);
    CHECK(last(file, "/rack/fan_P") == Approx(4 * 1300.0 * std::pow(speed, 3)).epsilon(1e-9));
    const double R = 0.065 * std::pow(speed, -0.8) + 0.01;
    const std::size_t gpus = 32;
    for (std::size_t g = 0; g < gpus; g += 7)
      CHECK(last(file, "/gpu/T_junction", g, gpus) == Approx(T_in + P_gpu * R).margin(0.05));
    // The fans are IT power: the rack draws them through its PSUs.
    CHECK(s.at("server_fan_energy_J").get<double>()
          == Approx(4 * 1300.0 * std::pow(speed, 3) * 1800.0).epsilon(0.01));
  }
  // A1 allows 15-32 degC: 36 degC is outside for the whole run, 24 degC never.
  const auto cool = nlohmann::json::parse(readFile(dir + "/cool.json"));
  const auto hot = nlohmann::json::parse(readFile(dir + "/hot.json"));
  CHECK(cool.at("rack_inlet_out_of_class_rack_s").get<double>() == 0.0);
  CHECK(hot.at("rack_inlet_out_of_class_rack_s").get<double>() == Approx(1800.0));
  // Hotter inlet, faster fans: more IT energy for the same work.
  CHECK(hot.at("it_energy_J").get<double>() > cool.at("it_energy_J").get<double>());
}
