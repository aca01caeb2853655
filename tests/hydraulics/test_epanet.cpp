// EPANET networks: EPANET's own stored results for Net1, continuity at every junction, and
// convergence of the larger example networks.
#include <unistd.h>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <string>

#include "RunProgram.hpp"
#include "ValidationRecord.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/EpanetInput.hpp"

using namespace racktwin;

namespace {

const std::string kData = RACKTWIN_SOURCE_DIR "/tests/hydraulics/data/";

double totalDemand(const scenarios::EpanetSolution& solution, const scenarios::EpanetModel& model) {
  double sum = 0.0;
  for (double d : solution.demand)
    sum += std::abs(d);
  return sum / model.units.flow_per_m3s;  // m3/s
}

void checkMassBalance(const scenarios::EpanetModel& model,
                      const scenarios::EpanetSolution& solution) {
  // Continuity holds to the round-off of the Schur system after every Newton iteration of the
  // global gradient method: far below the flow tolerance (ACCURACY 1e-3 or 1e-4 of the flows).
  INFO(model.path);
  CHECK(solution.largest_imbalance <= 1e-6 * totalDemand(solution, model));
  for (std::size_t n = 0; n < solution.head.size(); ++n) {
    CHECK(std::isfinite(solution.head[n]));
    CHECK(std::isfinite(solution.pressure[n]));
  }
  for (double q : solution.flow)
    CHECK(std::isfinite(q));
}

}  // namespace

TEST_CASE("Net1 at t = 1 h reproduces EPANET's stored results", "[hydraulics][validation]") {
  // EPANET tests/outfile/test_output.cpp via validation.md: flows (GPM) at t = 1 h in link order
  // 10, 11, 12, 21, 22, 31, 110, 111, 112, 113, 121, 122 and pump 9; node 11 head and pressure.
  // Tank 2 is held at its EPANET head at t = 1 h, 973.06814 ft (validation.md).
  scenarios::EpanetModel model = scenarios::readEpanetInput(kData + "Net1.inp");
  scenarios::holdTankHead(model, "2", 973.06814);
  scenarios::EpanetSolveOptions options;
  options.time = 3600.0;
  const scenarios::EpanetSolution solution = scenarios::solveEpanet(model, options);
  REQUIRE(solution.status.converged);
  const char* ids[] = {"10",  "11",  "12",  "21",  "22",  "31", "110",
                       "111", "112", "113", "121", "122", "9"};
  const double epanet[] = {1848.5812, 1220.4274,  130.11162, 187.6893,  119.8884,
                           40.464489, -748.58112, 478.15378, 191.73459, 30.111609,
                           140.46449, 59.535515,  1848.5812};
  REQUIRE(model.links.size() == 13);
  test::WorstError flow;
  for (std::size_t i = 0; i < 13; ++i) {
    INFO("link " << ids[i]);
    REQUIRE(model.links[i].id == ids[i]);
    CHECK(solution.flow[i] == Approx(epanet[i]).margin(1e-3));
    flow.add(solution.flow[i], epanet[i]);
  }
  const auto node11 = model.findNode("11");
  REQUIRE(node11);
  CHECK(solution.head[*node11] == Approx(987.98358).margin(1e-3));
  CHECK(solution.pressure[*node11] == Approx(120.45029).margin(1e-3));
  checkMassBalance(model, solution);
  const char* name = "Net1 at t = 1 h reproduces EPANET's stored results";
  test::recordValidation({"Hydraulic network solver (global gradient algorithm)",
                          "EPANET Net1 at t = 1 h, tank 2 held at its level then: 13 link flows",
                          "EPANET 2.2 stored results", "epanet-net1.md", name, "GPM", false, 1e-3,
                          flow.value()});
  test::WorstError node;
  node.add(solution.head[*node11], 987.98358);
  test::recordValidation({"Hydraulic network solver (global gradient algorithm)",
                          "EPANET Net1 at t = 1 h: head at node 11", "EPANET 2.2 stored results",
                          "epanet-net1.md", name, "ft", false, 1e-3, node.value()});
  test::WorstError pressure;
  pressure.add(solution.pressure[*node11], 120.45029);
  test::recordValidation({"Hydraulic network solver (global gradient algorithm)",
                          "EPANET Net1 at t = 1 h: pressure at node 11",
                          "EPANET 2.2 stored results", "epanet-net1.md", name, "psi", false, 1e-3,
                          pressure.value()});
}

TEST_CASE("Net1, Net2 and Net3 converge with continuity at every junction", "[hydraulics]") {
  for (const char* name : {"Net1.inp", "Net2.inp", "Net3.inp"}) {
    const scenarios::EpanetModel model = scenarios::readEpanetInput(kData + name);
    for (double t : {0.0, 3600.0, 13.0 * 3600.0}) {
      scenarios::EpanetSolveOptions options;
      options.time = t;
      const scenarios::EpanetSolution solution = scenarios::solveEpanet(model, options);
      INFO(name << " at t = " << t << ": " << solution.status.message);
      CHECK(solution.status.converged);
      CHECK(solution.status.relative_flow_change <= model.accuracy);
      CHECK(solution.status.disconnected_nodes.empty());
      checkMassBalance(model, solution);
    }
  }
}

TEST_CASE("Net3's controls stand as at the requested time", "[hydraulics]") {
  // Net3 [CONTROLS]: pump 10 OPEN AT TIME 1, CLOSED AT TIME 15; tank 1 starts at level 13.1 ft,
  // below 17.1, so pump 335 is open and bypass pipe 330 closed.
  const scenarios::EpanetModel model = scenarios::readEpanetInput(kData + "Net3.inp");
  auto link = [&](const char* id) {
    for (std::size_t l = 0; l < model.links.size(); ++l)
      if (model.links[l].id == id) return l;
    FAIL("no link " << id);
    return std::size_t{0};
  };
  scenarios::EpanetSolveOptions options;
  for (double t : {0.0, 2.0 * 3600.0, 16.0 * 3600.0}) {
    options.time = t;
    const scenarios::EpanetSolution solution = scenarios::solveEpanet(model, options);
    INFO("t = " << t);
    const bool pump10_on = t >= 3600.0 && t < 15.0 * 3600.0;
    CHECK((solution.state[link("10")] == thermal::LinkState::Closed) == !pump10_on);
    CHECK((solution.flow[link("10")] == 0.0) == !pump10_on);
    CHECK(solution.state[link("335")] == thermal::LinkState::Open);
    CHECK(solution.state[link("330")] == thermal::LinkState::Closed);
    CHECK(solution.flow[link("330")] == 0.0);
  }
}

TEST_CASE("A looped grid from gen_grid_inp.py converges with continuity", "[hydraulics]") {
  const std::string dir = test::scratchDirectory("grid-" + std::to_string(::getpid()));
  const auto run = test::runProgram("/usr/bin/python3 bench/gen_grid_inp.py 20");
  REQUIRE(run.exit_code == 0);
  {
    std::ofstream file(dir + "/grid20.inp");
    file << run.out;
  }
  const scenarios::EpanetModel model = scenarios::readEpanetInput(dir + "/grid20.inp");
  CHECK(model.nodes.size() == 401);
  CHECK(model.links.size() == 2 * 20 * 19 + 1);
  const scenarios::EpanetSolution solution = scenarios::solveEpanet(model);
  REQUIRE(solution.status.converged);
  CHECK(solution.status.relative_flow_change <= 1e-4);  // the file's ACCURACY
  checkMassBalance(model, solution);
  // All demand enters through the one supply pipe PS (the last link).
  double demand = 0.0;
  for (double d : solution.demand)
    demand += d;
  CHECK(solution.flow.back() == Approx(demand).epsilon(1e-9));
}

TEST_CASE("Net1 simulated over its first hour reaches EPANET's tank level and stored results",
          "[hydraulics][validation]") {
  // validation.md: the tank levels at t = 1 h come from simulating the first hour (EPANET's
  // explicit tank update); EPANET's stored results give tank 2 at 973.06814 ft, node 11 at
  // 987.98358 ft and the link flows below at t = 1 h.
  const scenarios::EpanetModel model = scenarios::readEpanetInput(kData + "Net1.inp");
  scenarios::EpanetSolveOptions options;
  options.time = 3600.0;
  const scenarios::EpanetSolution solution = scenarios::simulateEpanet(model, options);
  REQUIRE(solution.status.converged);
  const auto tank = model.findNode("2");
  REQUIRE(tank);
  CHECK(solution.head[*tank] == Approx(973.06814).margin(1e-3));
  const double epanet[] = {1848.5812, 1220.4274,  130.11162, 187.6893,  119.8884,
                           40.464489, -748.58112, 478.15378, 191.73459, 30.111609,
                           140.46449, 59.535515,  1848.5812};
  test::WorstError flow, level;
  level.add(solution.head[*tank], 973.06814);
  for (std::size_t i = 0; i < 13; ++i) {
    INFO("link " << model.links[i].id);
    CHECK(solution.flow[i] == Approx(epanet[i]).margin(1e-3));
    flow.add(solution.flow[i], epanet[i]);
  }
  const char* name =
      "Net1 simulated over its first hour reaches EPANET's tank level and stored results";
  test::recordValidation({"Extended-period hydraulics (explicit tank update)",
                          "EPANET Net1 simulated from 0 to 1 h: head of tank 2",
                          "EPANET 2.2 stored results", "epanet-net1.md", name, "ft", false, 1e-3,
                          level.value()});
  test::recordValidation({"Extended-period hydraulics (explicit tank update)",
                          "EPANET Net1 simulated from 0 to 1 h: 13 link flows",
                          "EPANET 2.2 stored results", "epanet-net1.md", name, "GPM", false, 1e-3,
                          flow.value()});
  const auto node11 = model.findNode("11");
  CHECK(solution.head[*node11] == Approx(987.98358).margin(1e-3));
  checkMassBalance(model, solution);
}

TEST_CASE("Counts in [OPTIONS] outside int are refused with the line and key", "[hydraulics]") {
  // Found by fuzz_epanet (fuzz/findings/fuzz_epanet/maxcheck-beyond-int.inp): MAXCHECK 4.4e122
  // was converted to int, which is undefined behaviour.
  const std::string dir = test::scratchDirectory("epanet-counts-" + std::to_string(::getpid()));
  const std::string body =
      "[JUNCTIONS]\n J1 0 1\n[RESERVOIRS]\n R1 10\n[PIPES]\n P1 R1 J1 100 12 100\n";
  for (const char* option :
       {"TRIALS 1e12", "MAXCHECK 4.4e122", "CHECKFREQ -3", "TRIALS 0", "UNBALANCED CONTINUE 3e9"}) {
    INFO(option);
    const std::string path = dir + "/counts.inp";
    {
      std::ofstream file(path);
      file << body << "[OPTIONS]\n " << option << "\n[END]\n";
    }
    try {
      (void)scenarios::readEpanetInput(path);
      FAIL("no error");
    } catch (const core::InputError& error) {
      CHECK(error.where().line == 8);
      CHECK(error.key().find("OPTIONS") != std::string::npos);
      CHECK(error.message().find("whole number from") != std::string::npos);
    }
  }
  // An ordinary count is still read, truncated as EPANET does.
  {
    std::ofstream file(dir + "/counts.inp");
    file << body << "[OPTIONS]\n TRIALS 40.7\n[END]\n";
  }
  CHECK(scenarios::readEpanetInput(dir + "/counts.inp").trials == 40);
}
