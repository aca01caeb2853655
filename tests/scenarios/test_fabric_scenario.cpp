// The `fabric` key: switch counts from the site's GPUs, the switches' power as IT load and their
// heat in the hall's air (the energy ledger closes with it, the CRAHs remove more), the leaf and
// spine lines checked against the tree, and bad input located by file, line and key.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"

using racktwin::core::SiteSpec;
using racktwin::scenarios::loadScenarioFromString;
using racktwin::test::readText;
using racktwin::test::replaced;
using racktwin::test::requireInputError;
using racktwin::test::sourcePath;

namespace {

// W per switch: 2,300 W without optics + 144 ports x 14 W (data/network/quantum-x800-q3400.yaml).
constexpr double kSwitchW = 2300.0 + 144 * 14.0;

std::string rackScenario(const std::string& fabric) {
  std::string text = readText(sourcePath("scenarios/nvl72-rack.yaml"));
  text = replaced(text, "duration: 3600 s", "duration: 120 s");
  return text + fabric;
}

racktwin::core::Summary run(const std::string& text) {
  SiteSpec site = loadScenarioFromString(text, sourcePath("scenarios/nvl72-rack.yaml"), "");
  racktwin::scenarios::Twin twin(std::move(site));
  twin.initialize();
  while (twin.step()) {
  }
  return twin.finish(true);
}

}  // namespace

TEST_CASE("a fabric on one rack is one switch, its power is IT load and its heat room air",
          "[scenarios]") {
  const std::string fabric = "fabric:\n  type: quantum-x800-q3400\n";
  const SiteSpec site =
      loadScenarioFromString(rackScenario(fabric), sourcePath("scenarios/nvl72-rack.yaml"), "");
  REQUIRE(site.fabric.present);
  CHECK(site.fabric.size.tiers == 1);  // 72 GPUs within one switch's 144 ports
  CHECK(site.fabric.size.total() == 1);
  CHECK(site.fabric.switchPower() == Approx(kSwitchW).epsilon(1e-12));

  const auto with = run(rackScenario(fabric));
  const auto without = run(rackScenario(""));
  const double E_fabric = kSwitchW * 120.0;
  CHECK(with.value("fabric_energy_J").value_or(0.0) == Approx(E_fabric).epsilon(1e-9));
  // IT counts it (the racks draw the same with or without it: their heat goes to coolant).
  CHECK(with.value("it_energy_J").value_or(0.0) - without.value("it_energy_J").value_or(0.0)
        == Approx(E_fabric).epsilon(1e-6));
  CHECK(with.value("fabric_it_share").value_or(0.0)
        == Approx(E_fabric / with.value("it_energy_J").value_or(1.0)).epsilon(1e-9));
  // The heat ledger closes with the switches' heat in the room, which the CRAHs now remove.
  CHECK(with.value("energy_balance_relative_error").value_or(1.0) < 1e-9);
  CHECK(with.value("heat_rejected_to_air_J").value_or(0.0)
        > without.value("heat_rejected_to_air_J").value_or(0.0));
  // PUE = facility / IT with the fabric in IT.
  CHECK(with.value("pue").value_or(0.0)
        == Approx(with.value("facility_energy_J").value_or(0.0)
                  / with.value("it_energy_J").value_or(1.0))
               .epsilon(1e-12));
}

TEST_CASE("the 64-rack cluster's fabric: 2 tiers, a leaf per rack and a line per row",
          "[scenarios]") {
  // 64 racks x 72 GPUs = 4,608 GPUs, rows of 8: 8 leaves per row (72 GPUs each = k/2), 64
  // leaves <= k = 144, so 2 tiers with ceil(64 / 2) = 32 spines.
  std::string text = readText(sourcePath("scenarios/faults/feed-a-loss.yaml"));
  text +=
      "fabric:\n  type: quantum-x800-q3400\n  leaf_line: elec/a/swbd1\n"
      "  spine_line: elec/b/swbd1\n";
  const SiteSpec site =
      loadScenarioFromString(text, sourcePath("scenarios/faults/feed-a-loss.yaml"), "");
  CHECK(site.fabric.size.tiers == 2);
  CHECK(site.fabric.size.leaves == 64);
  CHECK(site.fabric.size.top == 32);
  REQUIRE(site.fabric.groups.size() == 8);
  CHECK(site.fabric.groups[0].id == "row1");
  CHECK(site.fabric.groups[0].leaves == 8);
  CHECK(site.fabric.groups[0].line == "elec/a/swbd1");
}

TEST_CASE("bad fabric input names the file, line and key", "[scenarios]") {
  const std::string path = sourcePath("scenarios/nvl72-rack.yaml");
  const std::string base = readText(path);
  const auto at = [&](const std::string& fabric, const std::string& needle, const std::string& key,
                      std::vector<std::string> parts) {
    const std::string text = base + fabric;
    requireInputError([&] { (void)loadScenarioFromString(text, path, ""); },
                      {path, racktwin::test::lineOf(text, needle), key, std::move(parts)});
  };
  at("fabric:\n  type: no-such-switch\n", "no-such-switch", "fabric.type",
     {"unknown network switch type", "quantum-x800-q3400"});
  at("fabric:\n  type: quantum-x800-q3400\n  group: three racks\n", "three racks", "fabric.group",
     {"expected row, hall or '<N> racks'"});
  at("fabric:\n  type: quantum-x800-q3400\n  group: 0 racks\n", "0 racks", "fabric.group",
     {"expected row, hall or '<N> racks'"});
  at("fabric:\n  type: quantum-x800-q3400\n  leaf_line: elec/rpp\n", "elec/rpp", "fabric.leaf_line",
     {"no electrical section"});
  at("fabric:\n  type: quantum-x800-q3400\n  tiers: 4\n", "tiers: 4", "fabric.tiers", {"4"});
  at("fabric:\n  type: quantum-x800-q3400\n  speed: 1\n", "speed: 1", "fabric.speed",
     {"unknown key"});

  // With a tree: a line that is not an element, and a missing spine line.
  const std::string fpath = sourcePath("scenarios/faults/feed-a-loss.yaml");
  const std::string tree = readText(fpath);
  const auto at_tree = [&](const std::string& fabric, const std::string& needle,
                           const std::string& key, std::vector<std::string> parts) {
    const std::string text = tree + fabric;
    requireInputError([&] { (void)loadScenarioFromString(text, fpath, ""); },
                      {fpath, racktwin::test::lineOf(text, needle), key, std::move(parts)});
  };
  at_tree(
      "fabric:\n  type: quantum-x800-q3400\n  leaf_line: \"{group}/rpp\"\n"
      "  spine_line: elec/b/swbd1\n",
      "{group}/rpp", "fabric.leaf_line", {"no electrical element 'row1/rpp'", "row1"});
  at_tree("fabric:\n  type: quantum-x800-q3400\n  leaf_line: elec/a/swbd1\n",
          "fabric:", "fabric.spine_line", {"required key is missing"});
  at_tree("fabric:\n  type: quantum-x800-q3400\n", "fabric:", "fabric.leaf_line",
          {"required key is missing"});
  // Two tiers asked for more leaves than a spine has ports: 64 racks in groups of one rack each
  // still fit (64 leaves); one tier does not.
  at_tree("fabric:\n  type: quantum-x800-q3400\n  tiers: 1\n  leaf_line: elec/a/swbd1\n",
          "tiers: 1", "fabric.tiers", {"one switch serves one group"});
}

TEST_CASE("a fabric group of more racks than a few rows warns", "[scenarios]") {
  const std::string path = sourcePath("scenarios/faults/feed-a-loss.yaml");
  std::string text = readText(path);
  text +=
      "fabric:\n  type: quantum-x800-q3400\n  group: 64 racks\n  leaf_line: elec/a/swbd1\n"
      "  spine_line: elec/b/swbd1\n";
  SiteSpec site = loadScenarioFromString(text, path, "");
  CHECK(site.input_warnings.empty());
  text = replaced(text, "group: 64 racks", "group: 65 racks");
  site = loadScenarioFromString(text, path, "");
  REQUIRE(site.input_warnings.size() == 1);
  CHECK_THAT(site.input_warnings[0], Catch::Contains("fabric.group"));
}

TEST_CASE("the shipped sites: halls of rows, an MV feeder per hall, a 3-tier fabric",
          "[scenarios]") {
  struct Site {
    const char* path;
    std::size_t racks, halls, rows;
  };
  // 300k: 4 halls x 131 rows x 8 racks = 4,192 racks (301,824 GPUs), the halls from the template.
  // 100k: 173 rows of 8 and one of 5 = 1,389 racks (100,008 GPUs) in 2 halls of 87 rows.
  for (const Site& s : {Site{"scenarios/site-300k.yaml", 4192, 4, 524},
                        Site{"scenarios/site-100k.yaml", 1389, 2, 174}}) {
    INFO(s.path);
    const SiteSpec site = racktwin::scenarios::loadScenario(sourcePath(s.path));
    CHECK(site.input_warnings.empty());
    REQUIRE(site.racks.size() == s.racks);
    CHECK(site.floor.halls.size() == s.halls);
    CHECK(site.floor.rows.size() == s.rows);
    // One leaf per NVL72 rack (72 GPUs = k/2 of radix 144); more than k = 144 leaves need three
    // tiers: as many aggregation switches, and ceil(racks / 2) cores.
    CHECK(site.fabric.size.tiers == 3);
    CHECK(site.fabric.size.leaves == s.racks);
    CHECK(site.fabric.size.aggregation == s.racks);
    CHECK(site.fabric.size.top == (s.racks + 1) / 2);
    // An MV feeder per hall and one for the network room, all on the MV bus; every transformer
    // hangs on one of them.
    std::size_t feeders = 0;
    for (const auto& line : site.electrical.lines) {
      CHECK(line.parent.empty());
      CHECK(line.I_rated > 0.0);
      CHECK(line.breaker.present);
      ++feeders;
    }
    CHECK(feeders == s.halls + 1);
    for (const auto& t : site.electrical.transformers)
      CHECK(t.parent.find("/mv-feeder") != std::string::npos);
    // Each rack on its own row's A and B transformers.
    REQUIRE(site.electrical.rack_feeds.size() == s.racks);
    const auto& f = site.electrical.rack_feeds.back();
    const std::string row = f.rack.substr(0, f.rack.rfind('/'));
    CHECK(f.parent_a == row + "/tx-a");
    CHECK(f.parent_b == row + "/tx-b");
  }
}
