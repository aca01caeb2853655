// Scenario templates (docs/scenario-format.md, "Templates") and key-path patches
// (ScenarioPatch.hpp): the 64-rack cluster written as a template is the explicit file's site;
// counts, CDUs per N racks, alternating feeds, explicit entries overriding generated ones, and
// errors that keep file, line and key.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/ScenarioPatch.hpp"
#include "racktwin/scenarios/Twin.hpp"

namespace {

using racktwin::core::CduSpec;
using racktwin::core::InputError;
using racktwin::core::RackSpec;
using racktwin::core::SiteSpec;
using racktwin::scenarios::loadPatchedScenario;
using racktwin::scenarios::loadScenario;
using racktwin::scenarios::loadScenarioFromString;
using racktwin::scenarios::ScenarioPatch;
using racktwin::test::lineOf;
using racktwin::test::replaced;
using racktwin::test::requireInputError;
using racktwin::test::sourcePath;

void requireSameCdu(const CduSpec& a, const CduSpec& b) {
  INFO("CDU " << a.id.str());
  CHECK(a.id == b.id);
  CHECK(a.type == b.type);
  CHECK(a.Q_flow_nominal == b.Q_flow_nominal);
  CHECK(a.T_supply_set == b.T_supply_set);
  CHECK(a.pump.speed == b.pump.speed);
  CHECK(a.pumps_installed == b.pumps_installed);
  CHECK(a.headers.present == b.headers.present);
  CHECK(a.headers.segment.length == b.headers.segment.length);
  CHECK(a.headers.segment.diameter == b.headers.segment.diameter);
  CHECK(a.headers.segment.roughness == b.headers.segment.roughness);
  CHECK(a.headers.segment.cells == b.headers.segment.cells);
  CHECK(a.headers.return_arrangement == b.headers.return_arrangement);
  CHECK(a.ratings.p_secondary_design == b.ratings.p_secondary_design);
}

void requireSameRack(const RackSpec& a, const RackSpec& b) {
  INFO("rack " << a.id.str());
  CHECK(a.id == b.id);
  CHECK(a.type.type == b.type.type);
  CHECK(a.cdu == b.cdu);
  CHECK(a.ring == b.ring);
  CHECK(a.type.gpu.P_max == b.type.gpu.P_max);
  CHECK(a.type.quick_disconnect.dp_nominal == b.type.quick_disconnect.dp_nominal);
  CHECK(a.type.ratings.T_inlet_max == b.type.ratings.T_inlet_max);
}

/// The same CDUs and racks, in the same order.
void requireSameCdusAndRacks(const SiteSpec& a, const SiteSpec& b) {
  REQUIRE(a.cdus.size() == b.cdus.size());
  REQUIRE(a.racks.size() == b.racks.size());
  for (std::size_t i = 0; i < a.cdus.size(); ++i)
    requireSameCdu(a.cdus[i], b.cdus[i]);
  for (std::size_t i = 0; i < a.racks.size(); ++i)
    requireSameRack(a.racks[i], b.racks[i]);
}

/// A short run of a site: the summary as JSON (every figure at 17 significant digits).
std::string runBriefly(SiteSpec site) {
  site.simulation.duration = 30.0;
  for (auto& job : site.jobs)
    job.duration = std::min(job.duration, 30.0);
  racktwin::scenarios::Twin twin(std::move(site));
  twin.initialize();
  while (twin.step()) {
  }
  return twin.finish(true).toJson();
}

const char* const kBase = R"(racktwin_scenario: 1
name: "template"
simulation: {duration: 60 s}
coolant: PG25
facility_water: {supply_temperature: 32 degC}
template:
  rows: 2
  racks_per_row: 6
  racks_per_cdu: 4
  rack: {id: "r{row}/rack{rack:02}", type: gb300-nvl72}
  cdu:
    id: "r{row}/cdu{cdu}"
    type: xdu1350
    supply_temperature_setpoint: 36 degC
)";

}  // namespace

TEST_CASE("the 64-rack cluster as a template is the explicit file's site",
          "[capacity][templates]") {
  const SiteSpec explicit_site = loadScenario(sourcePath("scenarios/cluster-64-racks.yaml"));
  const SiteSpec generated =
      loadScenario(sourcePath("tests/capacity/data/cluster-64-template.yaml"));
  requireSameCdusAndRacks(generated, explicit_site);
  CHECK(generated.jobs.size() == explicit_site.jobs.size());
  CHECK(generated.facility.T_supply == explicit_site.facility.T_supply);
  // Everything else the models build from: the same site simulates to the same bits.
  CHECK(runBriefly(generated) == runBriefly(explicit_site));
}

TEST_CASE("two halls as a template are the site written out, loops and layout included",
          "[capacity][templates][halls]") {
  const SiteSpec explicit_site =
      loadScenario(sourcePath("tests/capacity/data/halls-2-explicit.yaml"));
  const SiteSpec generated = loadScenario(sourcePath("tests/capacity/data/halls-2-template.yaml"));
  requireSameCdusAndRacks(generated, explicit_site);
  // One facility loop per hall, serving the hall's CDUs in order.
  REQUIRE(generated.facility.loops.size() == 2);
  for (std::size_t l = 0; l < 2; ++l) {
    const auto& a = generated.facility.loops[l];
    const auto& b = explicit_site.facility.loops[l];
    CHECK(a.id == b.id);
    CHECK(a.cdus == b.cdus);
    CHECK(a.pump.V_flow_max == b.pump.V_flow_max);
    CHECK(a.header_segment.length == b.header_segment.length);
    CHECK(a.heat_rejection.units == b.heat_rejection.units);
  }
  CHECK(generated.facility.loops[1].cdus == std::vector<std::uint32_t>{2, 3});
  // layout.halls filled per hall: each hall's rows.
  REQUIRE(generated.floor.halls.size() == 2);
  for (std::size_t h = 0; h < 2; ++h) {
    CHECK(generated.floor.halls[h].id == explicit_site.floor.halls[h].id);
    CHECK(generated.floor.halls[h].rows == explicit_site.floor.halls[h].rows);
  }
  CHECK(generated.floor.rows[generated.floor.halls[1].rows[0]].id == "hall2/row01");
  // Everything else the models build from: the same site simulates to the same bits.
  CHECK(runBriefly(generated) == runBriefly(explicit_site));
}

TEST_CASE("template halls: ids need {hall}, loops need a CDU pattern",
          "[capacity][templates][halls]") {
  const std::string base = std::string(kBase) + "  halls: 2\n";
  const auto load = [](const std::string& text) {
    return [text] { (void)loadScenarioFromString(text, "t.yaml", sourcePath("data")); };
  };
  SECTION("ids the halls would repeat") {
    requireInputError(load(base), {"t.yaml",
                                   lineOf(base, "    id: \"r{row}/cdu{cdu}\""),
                                   "template.cdu",
                                   {"'r1/cdu1' twice", "{hall}"}});
  }
  SECTION("a facility loop without a template cdu") {
    // kBase's racks without its CDUs, a loop per hall.
    std::string text = base.substr(0, base.find("  racks_per_cdu:"));
    text +=
        "  rack: {id: \"h{hall}/r{row}/rack{rack:02}\", type: gb300-nvl72}\n"
        "  facility_loop: {id: \"hall{hall}\"}\n  halls: 2\n";
    requireInputError(load(text), {"t.yaml",
                                   lineOf(text, "  facility_loop:"),
                                   "template.facility_loop",
                                   {"only with a template cdu"}});
  }
  SECTION("racks without a row prefix cannot be placed in halls") {
    const std::string text =
        replaced(replaced(base, "\"r{row}/rack{rack:02}\"", "\"h{hall}r{row}rack{rack:02}\""),
                 "\"r{row}/cdu{cdu}\"", "\"h{hall}/r{row}/cdu{cdu}\"");
    requireInputError(load(text),
                      {"t.yaml", lineOf(text, "  rack:"), "template.rack", {"row prefix"}});
  }
}

TEST_CASE("a template makes CDUs per N racks of a row, in row order", "[capacity][templates]") {
  const SiteSpec site = loadScenarioFromString(kBase, "t.yaml", sourcePath("data"));
  // 6 racks per row at 4 per CDU: 2 CDUs per row, the second serving racks 5 and 6.
  REQUIRE(site.cdus.size() == 4);
  CHECK(site.cdus[0].id.str() == "r1/cdu1");
  CHECK(site.cdus[1].id.str() == "r1/cdu2");
  CHECK(site.cdus[3].id.str() == "r2/cdu2");
  REQUIRE(site.racks.size() == 12);
  CHECK(site.racks[0].id.str() == "r1/rack01");
  CHECK(site.racks[3].cdu == "r1/cdu1");
  CHECK(site.racks[4].cdu == "r1/cdu2");
  CHECK(site.racks[6].id.str() == "r2/rack01");
  CHECK(site.racks[11].cdu == "r2/cdu2");
  CHECK(site.cdus[2].T_supply_set == Approx(273.15 + 36.0));
}

TEST_CASE("explicit entries replace generated ones in place and add others after them",
          "[capacity][templates]") {
  const std::string text = std::string(kBase) + R"(racks:
  - {id: r1/rack03, type: gb300-nvl72, cdu: r1/cdu2, gpu_power_limit: 1200 W}
  - {id: r3/rack01, type: gb300-nvl72, cdu: r1/cdu1}
cdus:
  - {id: r2/cdu2, type: inrack-250kw}
)";
  const SiteSpec site = loadScenarioFromString(text, "t.yaml", sourcePath("data"));
  REQUIRE(site.racks.size() == 13);
  CHECK(site.racks[2].id.str() == "r1/rack03");
  CHECK(site.racks[2].cdu == "r1/cdu2");
  CHECK(site.racks[2].type.gpu.P_max == Approx(1200.0));
  CHECK(site.racks[3].type.gpu.P_max == Approx(1400.0));  // data/racks/gb300-nvl72.yaml
  CHECK(site.racks[12].id.str() == "r3/rack01");
  REQUIRE(site.cdus.size() == 4);
  CHECK(site.cdus[3].type == "inrack-250kw");
}

TEST_CASE("template feeds alternate A and B along a row", "[capacity][templates]") {
  const std::string text = R"(racktwin_scenario: 1
name: "feeds"
simulation: {duration: 60 s}
coolant: PG25
facility_water: {supply_temperature: 32 degC}
template:
  rows: 1
  racks_per_row: 3
  rack: {id: "row1/rack{rack}", type: gb300-nvl72}
  cdu: {id: row1/cdu1, type: xdu1350, supply_temperature_setpoint: 36 degC}
  feeds: {a: "busway-a", b: "busway-b", alternate: true}
electrical:
  utility: {voltage: 415 V}
  lines:
    - {id: busway-a, kind: busway, length: 20 m, resistance_ohm_per_km: 0.02, reactance_ohm_per_km: 0.02, rating_A: 2000}
    - {id: busway-b, kind: busway, length: 20 m, resistance_ohm_per_km: 0.02, reactance_ohm_per_km: 0.02, rating_A: 2000}
  rack_feeds:
    a: {length: 10 m, resistance_ohm_per_km: 0.29, reactance_ohm_per_km: 0.02, rating_A: 240}
)";
  const SiteSpec site = loadScenarioFromString(text, "feeds.yaml", sourcePath("data"));
  REQUIRE(site.electrical.rack_feeds.size() == 3);
  const auto& f = site.electrical.rack_feeds;
  CHECK(f[0].rack == "row1/rack1");
  CHECK(f[0].parent_a == "busway-a");
  CHECK(f[0].parent_b == "busway-b");
  CHECK(f[1].parent_a == "busway-b");  // the second rack swaps
  CHECK(f[1].parent_b == "busway-a");
  CHECK(f[2].parent_a == "busway-a");
}

TEST_CASE("errors in a template name the file, line and key", "[capacity][templates]") {
  SECTION("a bad value the generated racks share points at the template's line") {
    const std::string text = std::string(kBase) + "";
    std::string bad = text;
    bad.replace(bad.find("type: gb300-nvl72"), 17, "type: gb900-nvl72");
    try {
      (void)loadScenarioFromString(bad, "t.yaml", sourcePath("data"));
      FAIL("expected an InputError");
    } catch (const InputError& e) {
      CHECK(e.where().file == "t.yaml");
      CHECK(e.where().line == lineOf(bad, "gb900-nvl72"));
      CHECK(std::string(e.what()).find("gb900-nvl72") != std::string::npos);
    }
  }
  SECTION("an unknown field of a name pattern") {
    std::string bad = kBase;
    bad.replace(bad.find("rack{rack:02}"), 13, "rack{slot}");
    try {
      (void)loadScenarioFromString(bad, "t.yaml", sourcePath("data"));
      FAIL("expected an InputError");
    } catch (const InputError& e) {
      CHECK(e.where().line == lineOf(bad, "rack: {id"));
      CHECK(e.key() == "template.rack");
      CHECK(e.message().find("{slot}") != std::string::npos);
    }
  }
  SECTION("a pattern that gives one id twice") {
    std::string bad = kBase;
    bad.replace(bad.find("r{row}/rack{rack:02}"), 20, "r{row}/rack");
    try {
      (void)loadScenarioFromString(bad, "t.yaml", sourcePath("data"));
      FAIL("expected an InputError");
    } catch (const InputError& e) {
      CHECK(e.where().line == lineOf(bad, "rack: {id"));
      CHECK(e.message().find("twice") != std::string::npos);
    }
  }
  SECTION("a count out of range") {
    std::string bad = kBase;
    bad.replace(bad.find("rows: 2"), 7, "rows: 0");
    try {
      (void)loadScenarioFromString(bad, "t.yaml", sourcePath("data"));
      FAIL("expected an InputError");
    } catch (const InputError& e) {
      CHECK(e.where().line == lineOf(bad, "rows: 0"));
      CHECK(e.key() == "template.rows");
    }
  }
}

TEST_CASE("patches set values at key paths before the site is read", "[capacity][templates]") {
  const SiteSpec site =
      loadPatchedScenario(kBase, "t.yaml",
                          {{"template.racks_per_row", "8"},
                           {"facility_water.supply_temperature", "27 degC"},
                           {"cdus[*].supply_temperature_setpoint", "31 degC"},
                           {"cdus[id=r2/cdu1].pump_speed", "70 %"},
                           {"events[+]", "{at: 30 s, action: pump_trip, target: r1/cdu1}"}},
                          sourcePath("data"));
  CHECK(site.racks.size() == 16);
  CHECK(site.cdus.size() == 4);  // 8 racks at 4 per CDU: two per row
  CHECK(site.facility.T_supply == Approx(273.15 + 27.0));
  for (const CduSpec& c : site.cdus)
    CHECK(c.T_supply_set == Approx(273.15 + 31.0));
  CHECK(site.cdus[2].pump.speed == Approx(0.7));
  CHECK(site.cdus[0].pump.speed == Approx(0.8));  // data/cdus/xdu1350.yaml, unchanged
  REQUIRE(site.events.size() == 1);
  CHECK(site.events[0].target == "r1/cdu1");
}

TEST_CASE("a patch whose path does not exist is an error naming it", "[capacity][templates]") {
  const auto fails = [](const ScenarioPatch& patch, const char* words) {
    try {
      (void)loadPatchedScenario(kBase, "t.yaml", {patch}, sourcePath("data"));
      FAIL("expected an InputError for " << patch.key);
    } catch (const InputError& e) {
      CHECK(e.where().file == "<patch>");
      CHECK(e.key() == patch.key);
      CHECK(e.message().find(words) != std::string::npos);
    }
  };
  fails({"cdus[9].type", "xdu1350"}, "no item [9]");
  fails({"cdus[id=nowhere].type", "xdu1350"}, "no item with id 'nowhere'");
  fails({"cdus[", "x"}, "not a key path");
}
