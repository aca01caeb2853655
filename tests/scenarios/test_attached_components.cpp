// Coolant components attached to racks by their kind (`attach:`): read by the kind's schema from
// its data file and the scenario, with every mistake reported at its file, line and key.
#include <catch2/catch.hpp>

#include <string>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/thermal/CoolantComponent.hpp"

namespace {

using racktwin::scenarios::loadScenarioFromString;
using racktwin::test::ExpectedError;
using racktwin::test::requireInputError;

std::string scenario(const std::string& attach, const std::string& facility = "") {
  return "racktwin_scenario: 1\n"
         "name: attach\n"
         "simulation: {duration: 60 s}\n"
         "coolant: PG25\n"
         "facility_water: {supply_temperature: 32 degC" + facility + "}\n"
         "cdus:\n"
         "  - {id: row1/cdu1, type: inrack-250kw, supply_temperature_setpoint: 36 degC}\n"
         "racks:\n"
         "  - id: row1/rack01\n"
         "    type: gb300-nvl72\n"
         "    cdu: row1/cdu1\n"
         "    attach:\n" + attach;
}

racktwin::core::SiteSpec load(const std::string& text) {
  return loadScenarioFromString(text, "attach.yaml", racktwin::test::sourcePath("data"));
}

}  // namespace

TEST_CASE("A rear door is read by its kind's schema, data file first, then the scenario",
          "[scenarios][attach]") {
  const auto site =
      load(scenario("      - {kind: rear-door-hx, type: active-rdhx-75kw, fan_speed: 60 %}\n"));
  REQUIRE(site.racks.at(0).attachments.size() == 1);
  const racktwin::core::AttachedComponentSpec& door = site.racks[0].attachments[0];
  CHECK(door.id.str() == "row1/rack01/rear-door-hx");
  CHECK(door.water == racktwin::core::AttachedComponentSpec::Water::Cdu);
  const auto* kind = racktwin::thermal::findCoolantComponentKind("rear-door-hx");
  REQUIRE(kind != nullptr);
  // data/rear-doors/active-rdhx-75kw.yaml: 75 kW, 150 L/min; the scenario's 60 % fan speed.
  CHECK(door.values.at(kind->parameterIndex("Q_flow_nominal")) == Approx(75e3));
  CHECK(door.values.at(kind->parameterIndex("V_flow_liquid_nominal")) == Approx(150e-3 / 60.0));
  CHECK(door.values.at(kind->parameterIndex("fan_speed")) == Approx(0.6));
  CHECK(door.pressure_drop.power_law.dp_nominal == Approx(60e3));
  // The data file is one of the scenario's inputs (never an output).
  bool listed = false;
  for (const std::string& f : site.input_files)
    listed = listed || f.find("rear-doors/active-rdhx-75kw.yaml") != std::string::npos;
  CHECK(listed);
}

TEST_CASE("Mistakes in an attached component are reported at their line and key",
          "[scenarios][attach]") {
  SECTION("an unknown kind") {
    requireInputError([] { load(scenario("      - {kind: side-door, type: x}\n")); },
                      ExpectedError{"attach.yaml",
                                    13,
                                    "racks[0].attach[0].kind",
                                    {"unknown coolant component kind", "rear-door-hx"}});
  }
  SECTION("an unknown type") {
    requireInputError(
        [] { load(scenario("      - {kind: rear-door-hx, type: rdhx-9000}\n")); },
        ExpectedError{"attach.yaml", 13, "racks[0].attach[0].type", {"rdhx-9000", "available"}});
  }
  SECTION("a key of another kind, or of none") {
    requireInputError(
        [] {
          load(scenario("      - {kind: rear-door-hx, type: active-rdhx-75kw, length: 2 m}\n"));
        },
        ExpectedError{
            "attach.yaml", 13, "racks[0].attach[0].length", {"not a parameter of a rear-door-hx"}});
  }
  SECTION("a value outside its physical range") {
    requireInputError(
        [] {
          load(
              scenario("      - {kind: rear-door-hx, type: active-rdhx-75kw, fan_speed: 150 %}\n"));
        },
        ExpectedError{"attach.yaml", 13, "racks[0].attach[0].fan_speed", {"must be within"}});
  }
  SECTION("a rating the coil cannot reach") {
    // 75 kW across 1 K of entering difference needs more than the air can carry.
    requireInputError(
        [] {
          load(
              scenario("      - {kind: rear-door-hx, type: active-rdhx-75kw, "
                       "T_air_in_nominal: 19 degC}\n"));
        },
        ExpectedError{"attach.yaml", 13, "racks[0].attach[0].type", {"cannot be rated"}});
  }
  SECTION("facility water when it is a modelled loop") {
    const std::string base =
        racktwin::test::readText(racktwin::test::sourcePath("scenarios/facility-loop-rack.yaml"));
    const std::string text = racktwin::test::replaced(
        base, "    cdu: row1/cdu1\n",
        "    cdu: row1/cdu1\n    attach:\n"
        "      - {kind: rear-door-hx, type: active-rdhx-75kw, water: facility}\n");
    requireInputError(
        [&] {
          loadScenarioFromString(text, racktwin::test::sourcePath("scenarios/loop.yaml"), "");
        },
        ExpectedError{racktwin::test::sourcePath("scenarios/loop.yaml"),
                      79,
                      "racks[0].attach[0].water",
                      {"does not carry attached components"}});
  }
  SECTION("water that is neither") {
    requireInputError(
        [] {
          load(scenario("      - {kind: rear-door-hx, type: active-rdhx-75kw, water: tap}\n"));
        },
        ExpectedError{"attach.yaml", 13, "racks[0].attach[0].water", {"'cdu' or 'facility'"}});
  }
}
