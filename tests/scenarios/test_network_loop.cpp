// A loop's piping from an EPANET input file (docs/scenario-format.md, networks[]):
//  - a property: row 1 of scenarios/cluster-64-racks.yaml written as an .inp gives the flows and
//    temperatures of the built-in reverse-return row headers (two paths that must agree);
//  - the file solved on its own (`racktwin hydraulics`: readEpanetInput + solveEpanet) with the
//    loop's flows at the CDU and racks as demands gives the loop's first solve, link by link;
//  - networks that cannot be closed coolant loops are refused, located in the scenario or the file.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "CoolingRig.hpp"
#include "ScenarioTestUtil.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/scenarios/EpanetInput.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/thermal/Coolant.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

using namespace racktwin;
using racktwin::test::lineOf;
using racktwin::test::replaced;
using racktwin::test::requireInputError;
using racktwin::test::sourcePath;

namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("racktwin-network-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string number(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

using Rig = test::CoolingRig;

// ---- Row 1 of scenarios/cluster-64-racks.yaml: an XDU1350 and eight GB300 NVL72 racks on
// reverse-return headers of 0.6 m DN100 segments (102.3 mm bore, 0.045 mm, 2 cells each). ----
constexpr int kRowRacks = 8;
constexpr double kSegment_m = 0.6;
constexpr int kSegmentCells = 2;

std::string rowScenario(bool network) {
  std::string text = R"(racktwin_scenario: 1
name: "row 1 of the 64-rack cluster"
simulation: {duration: 600 s, step: 1 s}
coolant: PG25
facility_water: {supply_temperature: 32 degC}
cdus:
  - id: row1/cdu1
    type: xdu1350
    supply_temperature_setpoint: 36 degC
)";
  if (!network) {
    text +=
        "    headers: {segment_length: 0.6 m, inner_diameter: 102.3 mm, roughness: 0.045 mm, "
        "cells: 2, return: reverse}\n";
  } else {
    text += R"(networks:
  - id: row1/piping
    file: row1.inp
    cell_length: 0.3 m
    cdus: [{id: row1/cdu1, suction: T, supply: S0}]
    racks:
)";
    for (int k = 1; k <= kRowRacks; ++k) {
      text += "      - {id: row1/rack0" + std::to_string(k) + ", supply: S" + std::to_string(k)
              + ", return: R" + std::to_string(k) + "}\n";
    }
  }
  text += "racks:\n";
  for (int k = 1; k <= kRowRacks; ++k) {
    text += "  - {id: row1/rack0" + std::to_string(k) + ", type: gb300-nvl72"
            + (network ? "" : ", cdu: row1/cdu1") + "}\n";
  }
  return text;
}

/// The same headers as an EPANET file: the supply header from the CDU's supply S0 through the
/// taps S1..S8, the return header from R1 to R8 and one pipe as long as the supply header back to
/// the CDU's suction, the tank T.
std::string rowInp() {
  std::string pipes;
  auto pipe = [&](const std::string& id, const std::string& a, const std::string& b, double L) {
    pipes += id + " " + a + " " + b + " " + number(L) + " 102.3 0.045 0 Open\n";
  };
  std::string junctions = "S0 0\n";
  for (int k = 1; k <= kRowRacks; ++k) {
    const std::string n = std::to_string(k);
    junctions += "S" + n + " 0\nR" + n + " 0\n";
    pipe("SH" + n, "S" + std::to_string(k - 1), "S" + n, kSegment_m);
    if (k > 1) pipe("RH" + n, "R" + std::to_string(k - 1), "R" + n, kSegment_m);
  }
  pipe("RP", "R" + std::to_string(kRowRacks), "T", kSegment_m * kRowRacks);
  return "[TITLE]\nrow 1 headers, reverse return\n[JUNCTIONS]\n" + junctions
         + "[TANKS]\nT 0 1 0 2 0.5 0\n[PIPES]\n" + pipes
         + "[OPTIONS]\nUNITS LPS\nHEADLOSS D-W\n[END]\n";
}

double relative(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(b), 1e-30);
}

}  // namespace

TEST_CASE("Row 1 of the cluster as an EPANET network runs as the built-in row headers",
          "[scenarios][network]") {
  const fs::path dir = scratch("row1");
  writeFile(dir / "row1.inp", rowInp());
  writeFile(dir / "builtin.yaml", rowScenario(false));
  writeFile(dir / "network.yaml", rowScenario(true));
  Rig builtin(scenarios::loadScenario((dir / "builtin.yaml").string()));
  Rig network(scenarios::loadScenario((dir / "network.yaml").string()));
  REQUIRE(network.site.rings.size() == 1);
  REQUIRE(network.site.rings[0].network);
  // The return pipe takes 16 cells of 0.3 m, as the built-in one takes n x 2.
  const auto& links = network.site.rings[0].network->links;
  CHECK(links.back().id == "RP");
  CHECK(links.back().cells == kRowRacks * kSegmentCells);

  // The first solve: both loops solve the same equations to the solver's tolerance (sum |dQ| /
  // sum |Q| <= 1e-7, kHydraulicTolerance); the pipes are turbulent (Re 1.6e4 to 1.3e5), where
  // EPANET's friction factor and the loop's are both Swamee-Jain's.
  const double Q = builtin.model.cduSecondaryFlow(0);
  REQUIRE(Q > 0.01);
  CHECK(relative(network.model.cduSecondaryFlow(0), Q) < 1e-6);
  CHECK(relative(network.model.cduPumpHead(0), builtin.model.cduPumpHead(0)) < 1e-6);
  const auto rack_a = builtin.model.rackFlows(), rack_b = network.model.rackFlows();
  REQUIRE(rack_a.size() == kRowRacks);
  for (std::size_t r = 0; r < rack_a.size(); ++r) {
    INFO("rack " << r + 1);
    CHECK(std::abs(rack_b[r] - rack_a[r]) < 1e-6 * Q);
    CHECK(std::abs(network.model.rackDifferentialPressures()[r]
                   - builtin.model.rackDifferentialPressures()[r])
          < 1e-6 * builtin.model.cduPumpHead(0));
  }
  const auto plate_a = builtin.model.gpuColdPlateFlows(),
             plate_b = network.model.gpuColdPlateFlows();
  REQUIRE(plate_a.size() == plate_b.size());
  for (std::size_t g = 0; g < plate_a.size(); ++g)
    REQUIRE(std::abs(plate_b[g] - plate_a[g]) < 1e-6 * Q);

  // Ten minutes of training heat: 1,330 W per GPU (95 % of 1,400 W) and 15 kW of air per rack.
  // The heat sweeps see the same cells in a different order: temperatures agree to the flows'
  // tolerance, far below a millikelvin.
  for (int s = 0; s < 600; ++s) {
    builtin.step(1330.0, 1.0, 15000.0);
    network.step(1330.0, 1.0, 15000.0);
  }
  CHECK(network.model.hydraulicSolves() == builtin.model.hydraulicSolves());
  CHECK(std::abs(network.model.cduSupplyTemperature(0) - builtin.model.cduSupplyTemperature(0))
        < 1e-5);
  CHECK(std::abs(network.model.cduReturnTemperature(0) - builtin.model.cduReturnTemperature(0))
        < 1e-5);
  CHECK(relative(network.model.cduHeatFlow(0), builtin.model.cduHeatFlow(0)) < 1e-6);
  const double rise = builtin.model.cduReturnTemperature(0) - builtin.model.cduSupplyTemperature(0);
  REQUIRE(rise > 5.0);  // the loop carries the heat: ~1 MW at ~1,300 L/min is ~12 K
  for (int k = 1; k <= kRowRacks; ++k) {
    const std::string tap = "row1/rack0" + std::to_string(k) + "/return_manifold/tap01";
    INFO(tap);
    REQUIRE(builtin.model.nodeTemperature(tap));
    CHECK(std::abs(*network.model.nodeTemperature(tap) - *builtin.model.nodeTemperature(tap))
          < 1e-5);
  }
  double worst = 0.0;
  for (std::size_t g = 0; g < builtin.state.gpu_T_junction.size(); ++g)
    worst = std::max(worst,
                     std::abs(network.state.gpu_T_junction[g] - builtin.state.gpu_T_junction[g]));
  CHECK(worst < 1e-5);
  fs::remove_all(dir);
}

TEST_CASE("The network file solved on its own agrees with the loop's first solve",
          "[scenarios][network]") {
  // The shipped example: its CDU and racks replace a pump and four throttles of the file. The
  // file's own solve (what `racktwin hydraulics` does) with those links closed, the loop's rack
  // flows as demands, the CDU as a source of fixed head at its supply node and the loop's coolant
  // as the fluid must give the loop's flow in every remaining pipe and valve, and its potentials:
  // the same laws and solver, the racks and the CDU seen from the piping as flows.
  const std::string scenario = sourcePath("scenarios/epanet-loop-rack.yaml");
  Rig rig(scenarios::loadScenario(scenario));
  REQUIRE(rig.site.rings.size() == 1);
  const core::SecondaryRingSpec& ring = rig.site.rings[0];
  REQUIRE(ring.network);
  const core::PipingNetworkSpec& net = *ring.network;
  const std::string base = ring.id.str() + "/";

  scenarios::EpanetModel file = scenarios::readEpanetInput(net.path);
  const double T_set = rig.site.cdus[0].T_supply_set;
  const thermal::CoolantProperties fluid =
      thermal::Coolant::fromSpec(rig.site.secondary_coolant).at(T_set);
  // Closed in the file: the CDU's pump and the racks' throttles. With them closed the supply
  // side (S0 to the racks' supply hoses) has no fixed head; a reservoir joined to S0 gives it
  // one and delivers the CDU's flow, as the CDU does. The racks draw their flows from their
  // supply node and return them at their return node.
  std::string status = "CDU1 CLOSED\n";
  std::string demands;
  const double per_m3s = file.units.flow_per_m3s;
  for (int k = 1; k <= 4; ++k) {
    const std::string n = std::to_string(k);
    status += "RACK" + n + " CLOSED\n";
    const double V = rig.model.rackFlows()[static_cast<std::size_t>(k - 1)];
    demands += "B" + n + " " + number(V * per_m3s) + "\nR" + n + " " + number(-V * per_m3s) + "\n";
  }
  std::string text = test::readText(net.path);
  text = replaced(text, "[END]",
                  "[RESERVOIRS]\nCDU 50\n[PIPES]\nCDUFEED CDU S0 1 102.3 0.045 0 Open\n[STATUS]\n"
                      + status + "[DEMANDS]\n" + demands + "[OPTIONS]\nVISCOSITY "
                      + number(fluid.mu / fluid.rho) + "\nSPECIFIC GRAVITY "
                      + number(fluid.rho / 1000.0) + "\nACCURACY 1e-9\n[END]");
  const fs::path dir = scratch("alone");
  writeFile(dir / "alone.inp", text);
  scenarios::EpanetModel alone = scenarios::readEpanetInput((dir / "alone.inp").string());
  const scenarios::EpanetSolution solution = scenarios::solveEpanet(alone);
  REQUIRE(solution.status.converged);

  const double Q = rig.model.cduSecondaryFlow(0);
  int compared = 0;
  for (std::size_t l = 0; l < alone.links.size(); ++l) {
    const double V_file = solution.flow[l] / per_m3s;
    if (alone.links[l].id == "CDUFEED") CHECK(std::abs(V_file - Q) < 1e-6 * Q);
    const auto V = rig.model.linkFlow(base + alone.links[l].id);
    if (!V) continue;  // replaced, or the feed
    INFO("link " << alone.links[l].id << ": file " << V_file << " m3/s, loop " << *V);
    CHECK(std::abs(V_file - *V) < 1e-6 * Q);
    ++compared;
  }
  CHECK(compared == 14);  // 10 pipes (the spare tap's closed one too) and 4 balancing valves
  // Potentials, in Pa with the file's rho g: on the supply side over S0's, on the return side
  // (the racks' return nodes to the tank) over the tank's.
  const double rho_g = alone.fluid.rho * alone.fluid.g;
  const double p_scale = rig.model.cduPumpHead(0);
  int nodes = 0;
  for (std::size_t n = 0; n < file.nodes.size(); ++n) {
    const std::string& id = file.nodes[n].id;
    if (id == "X5") continue;  // behind a closed pipe: no potential to compare
    const bool supply_side = id[0] == 'S' || id[0] == 'B';
    const std::string ref = supply_side ? "S0" : "T1";
    const double head_Pa =
        (solution.head[n] - solution.head[*alone.findNode(ref)]) * alone.units.length_m * rho_g;
    const double p = *rig.model.nodePressure(base + id) - *rig.model.nodePressure(base + ref);
    INFO("node " << id << " over " << ref << ": file " << head_Pa << " Pa, loop " << p);
    CHECK(std::abs(head_Pa - p) < 1e-6 * p_scale);
    ++nodes;
  }
  CHECK(nodes == 14);
  fs::remove_all(dir);
}

// ---- Networks that cannot be a closed coolant loop, and bad names ----

namespace {

/// One CDU and two small racks on a loop: the CDU from the tank T to S0, headers S0-S1-S2 and
/// R2-R1-T, racks at (S1, R1) and (S2, R2).
const std::string kInp = R"([JUNCTIONS]
S0 0
S1 0
S2 0
R1 0
R2 0
[TANKS]
T 0 1 0 2 0.5 0
[PIPES]
P1 S0 S1 1 50 0.045 0 Open
P2 S1 S2 1 50 0.045 0 Open
P3 R2 R1 1 50 0.045 0 Open
P4 R1 T 1 50 0.045 0 Open
[OPTIONS]
UNITS LPS
HEADLOSS D-W
[END]
)";

const std::string kScenario = R"(racktwin_scenario: 1
name: "two racks on a network"
simulation: {duration: 60 s, step: 1 s}
coolant: PG25
facility_water: {supply_temperature: 32 degC}
cdus:
  - id: row1/cdu1
    type: inrack-250kw
networks:
  - id: row1/piping
    file: loop.inp
    cdus:
      - {id: row1/cdu1, suction: T, supply: S0}
    racks:
      - {id: row1/rack01, supply: S1, return: R1}
      - {id: row1/rack02, supply: S2, return: R2}
racks:
  - {id: row1/rack01, type: gb300-nvl72}
  - {id: row1/rack02, type: gb300-nvl72}
)";

int case_count = 0;

struct Case {
  fs::path dir = scratch("case" + std::to_string(++case_count));
  std::string scenario = kScenario;
  std::string inp = kInp;
  core::SiteSpec load() {
    writeFile(dir / "loop.inp", inp);
    writeFile(dir / "case.yaml", scenario);
    return scenarios::loadScenario((dir / "case.yaml").string());
  }
  std::string yaml() const { return (dir / "case.yaml").string(); }
  std::string inpPath() const { return (dir / "loop.inp").string(); }
  ~Case() { fs::remove_all(dir); }
};

}  // namespace

TEST_CASE("A network loop loads with its nodes, links, tank and attachments",
          "[scenarios][network]") {
  Case c;
  const core::SiteSpec site = c.load();
  REQUIRE(site.rings.size() == 1);
  CHECK(site.rings[0].taps == std::vector<std::string>{"row1/cdu1", "row1/rack01", "row1/rack02"});
  CHECK(site.racks[0].ring == "row1/piping");
  const core::PipingNetworkSpec& net = *site.rings[0].network;
  CHECK(net.nodes.size() == 6);
  CHECK(net.links.size() == 4);
  CHECK(net.nodes[net.tank].id == "T");
  CHECK(net.links[0].diameter == Approx(0.05).epsilon(1e-12));  // mm in an SI file
  CHECK(net.links[0].roughness == Approx(45e-6).epsilon(1e-12));
  CHECK(net.links[0].cells == 1);  // no cell_length: one cell per pipe
  REQUIRE(net.racks.size() == 2);
  CHECK(net.nodes[net.racks[1].a].id == "S2");
  CHECK(net.nodes[net.racks[1].b].id == "R2");
  // A file in US units: feet, inches and millifeet, converted by the reader.
  Case us;
  us.inp = replaced(replaced(us.inp, "UNITS LPS", "UNITS GPM"), "P1 S0 S1 1 50 0.045 0 Open",
                    "P1 S0 S1 10 2 0.15 0 Open");
  const core::SiteSpec us_site = us.load();
  const core::PipingNetworkSpec::Link& p1 = us_site.rings[0].network->links[0];
  CHECK(p1.length == Approx(3.048).epsilon(1e-12));
  CHECK(p1.diameter == Approx(0.0508).epsilon(1e-12));
  CHECK(p1.roughness == Approx(0.15e-3 * 0.3048).epsilon(1e-12));
  // It runs: the CDU's flow is the racks' flow.
  Rig rig(site);
  const auto V = rig.model.rackFlows();
  CHECK(V[0] + V[1] == Approx(rig.model.cduSecondaryFlow(0)).epsilon(1e-9));
  CHECK(V[1] > 0.0);
}

TEST_CASE("A network with a loop that bypasses the CDU is refused", "[scenarios][network]") {
  Case c;
  // Rack 2's return piped straight back to its supply, and the return header cut: rack 2 sits
  // on a cycle of its own that no CDU's pump drives.
  c.inp = replaced(c.inp, "P3 R2 R1 1 50 0.045 0 Open", "P3 R2 S2 1 50 0.045 0 Open");
  const int line = lineOf(c.scenario, "      - {id: row1/rack02");
  requireInputError([&] { c.load(); },
                    {c.yaml(),
                     line,
                     "networks[0].racks[1]",
                     {"rack 'row1/rack02' (supply 'S2', return 'R2') lies on no flow cycle that "
                      "passes a CDU",
                      "Every flow cycle of a coolant loop must pass a CDU"}});
}

TEST_CASE("A CDU whose supply has no way back to its suction is refused", "[scenarios][network]") {
  Case c;
  c.inp = replaced(c.inp, "P4 R1 T 1 50 0.045 0 Open", "P4 R1 S0 1 50 0.045 0 Open");
  const int line = lineOf(c.scenario, "      - {id: row1/cdu1");
  requireInputError([&] { c.load(); },
                    {c.yaml(),
                     line,
                     "networks[0].cdus[0]",
                     {"CDU 'row1/cdu1' (suction 'T', supply 'S0') has no way from its supply back "
                      "to its suction"}});
}

TEST_CASE("An unknown node name is an error at its key", "[scenarios][network]") {
  Case c;
  c.scenario = replaced(c.scenario, "supply: S2,", "supply: S9,");
  requireInputError([&] { c.load(); },
                    {c.yaml(),
                     lineOf(c.scenario, "supply: S9"),
                     "networks[0].racks[1].supply",
                     {"node 'S9' is not in loop.inp", "its nodes: S0, S1, S2, R1, R2, T"}});
  Case d;
  d.scenario = replaced(d.scenario, "{id: row1/cdu1, suction: T, supply: S0}",
                        "{id: row1/cdu1, replaces: PUMP9}");
  requireInputError([&] { d.load(); },
                    {d.yaml(),
                     lineOf(d.scenario, "replaces: PUMP9"),
                     "networks[0].cdus[0].replaces",
                     {"link 'PUMP9' is not in loop.inp", "its links: P1, P2, P3, P4"}});
}

TEST_CASE("A rack or a CDU attached twice is an error", "[scenarios][network]") {
  Case c;
  c.scenario = replaced(c.scenario, "{id: row1/rack02, supply: S2", "{id: row1/rack01, supply: S2");
  requireInputError([&] { c.load(); },
                    {c.yaml(),
                     lineOf(c.scenario, "      - {id: row1/rack01, supply: S2"),
                     "networks[0].racks[1].id",
                     {"rack 'row1/rack01' is attached twice (to 'row1/piping')"}});
  Case d;
  d.scenario = replaced(d.scenario, "      - {id: row1/cdu1, suction: T, supply: S0}\n",
                        "      - {id: row1/cdu1, suction: T, supply: S0}\n"
                        "      - {id: row1/cdu1, suction: R2, supply: S2}\n");
  requireInputError([&] { d.load(); }, {d.yaml(),
                                        lineOf(d.scenario, "suction: R2"),
                                        "networks[0].cdus[1].id",
                                        {"CDU 'row1/cdu1' is attached twice"}});
  Case e;  // a rack on the network that also names a CDU
  e.scenario = replaced(e.scenario, "  - {id: row1/rack02, type: gb300-nvl72}",
                        "  - {id: row1/rack02, type: gb300-nvl72, cdu: row1/cdu1}");
  requireInputError([&] { e.load(); }, {e.yaml(),
                                        lineOf(e.scenario, "      - {id: row1/rack02"),
                                        "networks[0].racks[1].id",
                                        {"is served by CDU 'row1/cdu1' (its cdu key)"}});
}

TEST_CASE("What an open water network holds and a coolant loop cannot is refused in the file",
          "[scenarios][network]") {
  struct Refusal {
    std::string from, to, marker, key;
    std::vector<std::string> parts;
  };
  const std::vector<Refusal> refusals{
      {"S1 0\n", "S1 0 0.5\n", "S1 0 0.5", "junction S1 demand", {"has no demands"}},
      {"[TANKS]\n",
       "[RESERVOIRS]\nFILL 10\n[TANKS]\n",
       "T 0 1 0 2",
       "[TANKS] T",
       {"one fixed pressure, its expansion tank ('FILL', line", "second tank or reservoir"}},
      {"P4 R1 T 1 50 0.045 0 Open\n",
       "P4 R1 T 1 50 0.045 0 Open\n[PUMPS]\nBOOST S1 S2 HEAD C1\n[CURVES]\nC1 1 10\n",
       "BOOST",
       "[PUMPS] BOOST",
       {"is not replaced by a CDU", "'replaces: BOOST'"}},
      {"[OPTIONS]",
       "[VALVES]\nV2 S1 S2 50 PRV 20 0\n[OPTIONS]",
       "V2 S1 S2 50 PRV",
       "[VALVES] V2",
       {"a PRV holds an absolute pressure", "use a TCV"}},
      {"[OPTIONS]",
       "[VALVES]\nV2 S1 S2 50 PBV 20 0\n[OPTIONS]",
       "V2 S1 S2 50 PBV",
       "[VALVES] V2",
       {"a PBV forces its drop whatever the flow", "use a TCV"}},
      {"[OPTIONS]",
       "[CONTROLS]\nLINK P2 CLOSED AT TIME 1\n[OPTIONS]",
       "LINK P2 CLOSED",
       "[CONTROLS]",
       {"controls are not applied in a coolant loop"}},
      {"[OPTIONS]", "[EMITTERS]\nS1 0.1\n[OPTIONS]", "S1 0.1", "[EMITTERS]", {"no emitters"}},
  };
  for (const Refusal& r : refusals) {
    Case c;
    c.inp = replaced(c.inp, r.from, r.to);
    INFO("file:\n" << c.inp);
    requireInputError([&] { c.load(); }, {c.inpPath(), lineOf(c.inp, r.marker), r.key, r.parts});
  }
}

TEST_CASE("An INP with Hazen-Williams pipes warns on a glycol coolant", "[scenarios][network]") {
  Case c;
  c.inp = replaced(c.inp, "HEADLOSS D-W", "HEADLOSS H-W");
  c.inp = replaced(c.inp, "P1 S0 S1 1 50 0.045 0 Open", "P1 S0 S1 1 50 130 0 Open");
  const core::SiteSpec site = c.load();
  int warned = 0;
  for (const std::string& w : site.input_warnings) {
    if (w.find("Hazen-Williams") == std::string::npos) continue;
    ++warned;
    CHECK_THAT(w, Catch::Contains("loop.inp:" + std::to_string(lineOf(c.inp, "P1 S0")) + ":")
                      && Catch::Contains("key '[PIPES] P1'") && Catch::Contains("PG25"));
  }
  CHECK(warned == 1);  // once per file
  CHECK(site.rings[0].network->links[0].hazen_williams_C == 130.0);
}

TEST_CASE("Two CDUs in parallel between the same nodes share the racks and ride through a loss",
          "[scenarios][network]") {
  // N+1 CDUs on a common header: both draw from the tank and feed S0. Their suctions are one
  // node, which the heat sweep tears once for both.
  Case c;
  c.scenario = replaced(c.scenario, "    type: inrack-250kw\n",
                        "    type: inrack-250kw\n  - id: row1/cdu2\n    type: inrack-250kw\n");
  c.scenario = replaced(c.scenario, "      - {id: row1/cdu1, suction: T, supply: S0}\n",
                        "      - {id: row1/cdu1, suction: T, supply: S0}\n"
                        "      - {id: row1/cdu2, suction: T, supply: S0}\n");
  Rig rig(c.load());
  const double V1 = rig.model.cduSecondaryFlow(0), V2 = rig.model.cduSecondaryFlow(1);
  CHECK(V2 == Approx(V1).epsilon(1e-9));  // identical units in parallel
  const auto racks = rig.model.rackFlows();
  CHECK(racks[0] + racks[1] == Approx(V1 + V2).epsilon(1e-9));
  for (int s = 0; s < 300; ++s)
    rig.step(1000.0, 1.0, 10000.0);
  CHECK(rig.model.cduHeatFlow(1) == Approx(rig.model.cduHeatFlow(0)).epsilon(1e-6));
  REQUIRE(rig.event(core::EventKind::CduLoss, "row1/cdu2"));
  for (int s = 0; s < 300; ++s)
    rig.step(1000.0, 1.0, 10000.0);
  // The stopped CDU closes like a check valve: no flow back through it.
  CHECK(rig.model.cduSecondaryFlow(1) == 0.0);
  const auto after = rig.model.rackFlows();
  CHECK(after[0] + after[1] == Approx(rig.model.cduSecondaryFlow(0)).epsilon(1e-9));
  CHECK(after[1] > 0.0);
  CHECK(rig.balance() < 1e-9);  // heat in = rejected + stored, over the whole run
}
