// Bad input gives an InputError that names the file, the 1-based line and column, the key, and
// what was expected (docs/scenario-format.md, "Errors"). The files in bad/ are fixed, so their
// lines are written out; the inline variants find the offending line by its text.
#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace {

using racktwin::core::InputError;
using racktwin::scenarios::loadScenario;
using racktwin::scenarios::loadScenarioFromString;
using racktwin::test::lineOf;
using racktwin::test::replaced;
using racktwin::test::sourcePath;

using Expected = racktwin::test::ExpectedError;
using racktwin::test::requireInputError;

std::string badFile(const std::string& name) {
  return sourcePath("tests/scenarios/bad/" + name);
}

void requireFileError(const std::string& name, int line, const std::string& key,
                      const std::vector<std::string>& parts, int column = 0) {
  const std::string path = badFile(name);
  requireInputError([&] { (void)loadScenario(path); }, Expected{path, line, key, parts, column});
}

// A valid scenario; each inline case breaks one thing in it.
const std::string kBase = R"(racktwin_scenario: 1
name: "inline"
simulation: {duration: 3600 s, step: 1 s}
coolant: PG25
facility_water: {supply_temperature: 32 degC}
cdus:
  - id: row1/cdu1
    type: inrack-250kw
racks:
  - id: row1/rack01
    type: gb300-nvl72
    cdu: row1/cdu1
workload:
  - id: train1
    type: training
    racks: all
    iteration: {compute: 3.2 s, compute_power: 95 %, communication: 0.8 s, communication_power: 40 %}
    checkpoint: {interval: 30 min, duration: 30 s, power: 15 %}
events:
  - {at: 600 s, action: pump_trip, target: row1/cdu1}
)";

constexpr const char* kInline = "inline.yaml";

void loadInline(const std::string& text) {
  (void)loadScenarioFromString(text, kInline, sourcePath("data"));
}

/// Replaces `from` by `to` in the base scenario and expects an error on the line that holds
/// `marker` (in the changed text).
void requireInlineError(const std::string& from, const std::string& to, const std::string& marker,
                        const std::string& key, const std::vector<std::string>& parts) {
  const std::string text = replaced(kBase, from, to);
  INFO("scenario:\n" << text);
  const int line = lineOf(text, marker);
  REQUIRE(line > 0);
  requireInputError([&] { loadInline(text); }, Expected{kInline, line, key, parts});
}

}  // namespace

TEST_CASE("the base of the inline cases is valid", "[scenarios]") {
  CHECK_NOTHROW(loadInline(kBase));
}

TEST_CASE("bad/missing_key: a missing required key", "[scenarios]") {
  requireFileError("missing_key.yaml", 5, "simulation.duration",
                   {"required key is missing", "expected a time in s, ms, min, h"}, 1);
}

TEST_CASE("bad/unknown_key: an unknown key lists the accepted ones", "[scenarios]") {
  requireFileError(
      "unknown_key.yaml", 7, "simulation.setp",
      {"unknown key; expected one of: duration, step, substeps, record_interval, seed"}, 3);
}

TEST_CASE("bad/wrong_unit: a flow where a temperature belongs", "[scenarios]") {
  requireFileError("wrong_unit.yaml", 8, "facility_water.supply_temperature",
                   {"expected a temperature in K, degC, °C, degF, °F, got '32 L/min'"}, 23);
}

TEST_CASE("bad/negative_duration: a negative job duration", "[scenarios]") {
  requireFileError("negative_duration.yaml", 16, "workload[0].duration",
                   {"must be > 0, got '-60 s'"}, 15);
}

TEST_CASE("bad/negative_flow: a negative flow in a data file names the data file", "[scenarios]") {
  const std::string path = badFile("negative_flow.yaml");
  const std::string data_file = std::filesystem::path(badFile("bad-data/cdus/negative-flow.yaml"))
                                    .lexically_normal()
                                    .string();
  requireInputError(
      [&] { (void)loadScenario(path); },
      Expected{data_file, 7, "secondary_nominal_flow", {"must be > 0, got '-5 L/min'"}, 25});
}

TEST_CASE("bad/: absurd values are refused at their line (plausible ranges)", "[scenarios]") {
  requireFileError("gpu_power_limit_gigawatt.yaml", 15, "racks[0].gpu_power_limit",
                   {"must be at most 5000 W", "got '1e9 kW'"}, 22);
  requireFileError("cdu_setpoint_boiling.yaml", 11, "cdus[0].supply_temperature_setpoint",
                   {"must be at most 100 degC", "boiling point"}, 34);
  requireFileError("facility_water_frozen.yaml", 7, "facility_water.supply_temperature",
                   {"must be at least 0 degC", "freezing point of water"}, 38);
}

TEST_CASE("bad/unknown_component: a rack on a CDU that does not exist", "[scenarios]") {
  requireFileError("unknown_component.yaml", 14, "racks[0].cdu",
                   {"unknown component 'row1/cdu9'; defined CDUs: row1/cdu1"}, 10);
}

TEST_CASE("bad/unknown_rack_type: names the data file it looked for", "[scenarios]") {
  const std::string looked_for =
      std::filesystem::path(sourcePath("data/racks/gb400-nvl144.yaml")).lexically_normal().string();
  requireFileError("unknown_rack_type.yaml", 13, "racks[0].type",
                   {"unknown rack type 'gb400-nvl144': no data file " + looked_for,
                    "available: gb200-nvl72, gb300-nvl72"},
                   11);
}

TEST_CASE("bad/syntax_error: a YAML syntax error has its line", "[scenarios]") {
  requireFileError("syntax_error.yaml", 7, "", {"YAML syntax error"});
}

TEST_CASE("bad/unknown_event_target: an event on a CDU that does not exist", "[scenarios]") {
  requireFileError("unknown_event_target.yaml", 14, "events[1].target",
                   {"unknown component 'row1/cdu2'; defined CDUs: row1/cdu1"});
}

TEST_CASE("bad/duration_not_multiple: the duration must be whole steps", "[scenarios]") {
  requireFileError("duration_not_multiple.yaml", 6, "simulation.duration",
                   {"must be a whole number of steps (step 0.3 s)", "1000 s"}, 13);
}

TEST_CASE("InputError::what() reads FILE:LINE:COLUMN: key 'KEY': MESSAGE", "[scenarios]") {
  const std::string path = badFile("unknown_component.yaml");
  try {
    (void)loadScenario(path);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == path + ":14:10: key 'racks[0].cdu': " + e.message());
  }
}

TEST_CASE("a file that cannot be read", "[scenarios]") {
  const std::string path = badFile("does-not-exist.yaml");
  requireInputError([&] { (void)loadScenario(path); },
                    Expected{path, 0, "", {"cannot open the file"}});
  const std::string folder = sourcePath("tests/scenarios/bad");
  requireInputError([&] { (void)loadScenario(folder); },
                    Expected{folder, 0, "", {"is a directory, not a file"}});
}

TEST_CASE("format version and document shape", "[scenarios]") {
  requireInlineError("racktwin_scenario: 1", "racktwin_scenario: 2", "racktwin_scenario",
                     "racktwin_scenario",
                     {"unsupported scenario format version '2'; this program reads version 1"});
  requireInlineError("racktwin_scenario: 1\n", "", "name:", "racktwin_scenario",
                     {"required key is missing", "racktwin_scenario: 1"});
  requireInputError([] { loadInline(""); }, Expected{kInline, 0, "", {"expected a map"}});
  requireInputError([] { loadInline("- a\n- b\n"); },
                    Expected{kInline, 1, "", {"expected a map", "got a list"}});
  requireInlineError("simulation: {duration: 3600 s, step: 1 s}", "simulation: 5",
                     "simulation:", "simulation", {"expected a map with the keys duration, step"});
  requireInlineError("coolant: PG25\n", "coolant: PG25\ncoolant: water\n", "coolant: water",
                     "coolant", {"duplicate key; first given at line 4"});
}

TEST_CASE("YAML that cannot be parsed never crashes the loader", "[scenarios]") {
  // Deep nesting hits yaml-cpp's depth guard; an unclosed flow map fails at its end.
  requireInputError([] { loadInline(std::string(5000, '[')); },
                    Expected{kInline, 1, "", {"YAML syntax error"}});
  const std::string text = replaced(kBase, "step: 1 s}", "step: 1 s");
  try {
    loadInline(text);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.where().file == kInline);
    CHECK(e.where().line >= 3);
    CHECK_THAT(e.message(), Catch::Contains("YAML syntax error"));
  }
}

TEST_CASE("simulation values are checked", "[scenarios]") {
  requireInlineError("step: 1 s}", "step: 0 s}", "simulation:", "simulation.step",
                     {"must be > 0, got '0 s'"});
  requireInlineError("step: 1 s}", "step: 1 s, substeps: 0}", "simulation:", "simulation.substeps",
                     {"must be from 1 to 1000, got '0'"});
  requireInlineError("step: 1 s}", "step: 1 s, substeps: 2.5}",
                     "simulation:", "simulation.substeps",
                     {"expected an integer from 1 to 1000, got '2.5'"});
  requireInlineError("step: 1 s}", "step: 1 s, record_interval: 1.5 s}",
                     "simulation:", "simulation.record_interval",
                     {"must be a whole number of steps (step 1 s)"});
  requireInlineError("step: 1 s}", "step: 1 s, record_interval: 2 h}",
                     "simulation:", "simulation.record_interval",
                     {"must not exceed the duration (3600 s)"});
  requireInlineError("duration: 3600 s", "duration: 1e12 s", "simulation:", "simulation.duration",
                     {"at most 1e+09 steps"});
  requireInlineError("duration: 3600 s", "duration: .nan s", "simulation:", "simulation.duration",
                     {"expected a time in s, ms, min, h, got '.nan s'"});
}

TEST_CASE("fast-forward values are checked", "[scenarios][fast_forward]") {
  const auto ff = [](const std::string& map) { return "step: 1 s, fast_forward: " + map + "}"; };
  const std::string key = "simulation.fast_forward.";
  requireInlineError("step: 1 s}", ff("{max_step: 2.5 s, tolerance: 0.05 K}"),
                     "simulation:", key + "max_step",
                     {"must be a whole number of steps (step 1 s)"});
  requireInlineError("step: 1 s}", ff("{max_step: 0 s, tolerance: 0.05 K}"),
                     "simulation:", key + "max_step", {"must be > 0, got '0 s'"});
  requireInlineError("step: 1 s}", ff("{max_step: 300 s, tolerance: 0 K}"),
                     "simulation:", key + "tolerance", {"must be > 0, got '0 K'"});
  requireInlineError("step: 1 s}", ff("{max_step: 300 s, tolerance: -0.1 K}"),
                     "simulation:", key + "tolerance", {"must be > 0"});
  requireInlineError("step: 1 s}", ff("{max_step: 300 s, tolerance: 0.05 s}"),
                     "simulation:", key + "tolerance", {"expected a temperature difference"});
  requireInlineError("step: 1 s}", ff("{max_step: 300 s}"), "simulation:", key + "tolerance",
                     {"required key is missing"});
  requireInlineError("step: 1 s}", ff("{max_step: 300 s, tolerance: 0.05 K, settle: 1.5 s}"),
                     "simulation:", key + "settle", {"must be a whole number of steps (step 1 s)"});
  requireInlineError("step: 1 s}", ff("{max_step: 300 s, tolerance: 0.05 K, settle: -1 s}"),
                     "simulation:", key + "settle", {"must be >= 0"});
  requireInlineError("step: 1 s}", ff("{max_step: 300 s, tolerance: 0.05 K, step: 2 s}"),
                     "simulation:", key + "step", {"unknown key; expected one of: max_step"});
  requireInlineError("    racks: all\n", "    racks: all\n    power: peak\n", "power: peak",
                     "workload[0].power", {"must be 'phases'", "or 'average'", "got 'peak'"});
  CHECK_NOTHROW(
      loadInline(replaced(kBase, "step: 1 s}", ff("{max_step: 300 s, tolerance: 0.05 K}"))));
}

TEST_CASE("coolant, facility and room values are checked", "[scenarios]") {
  requireInlineError("coolant: PG25", "coolant: glycol", "coolant:", "coolant",
                     {"expected 'water' or 'PG<percent>'", "got 'glycol'"});
  requireInlineError("coolant: PG25", "coolant: PG70", "coolant:", "coolant", {"got 'PG70'"});
  requireInlineError("coolant: PG25", "coolant: {a: 1}", "coolant:", "coolant", {"got a map"});
  requireInlineError("supply_temperature: 32 degC", "supply_temperature: -300 degC",
                     "facility_water", "facility_water.supply_temperature",
                     {"at or above absolute zero"});
  requireInlineError("coolant: PG25\n", "coolant: PG25\nroom: {crah_fan_power_fraction: 120 %}\n",
                     "room:", "room.crah_fan_power_fraction",
                     {"must be a fraction from 0 to 1", "got '120 %'"});
  requireInlineError("coolant: PG25\n", "coolant: PG25\nroom: {type: attic}\n",
                     "room:", "room.type",
                     {"unknown room type 'attic': no data file", "rooms/attic.yaml"});
}

TEST_CASE("ids are valid and unique, references resolve", "[scenarios]") {
  requireInlineError("  - id: row1/cdu1", "  - id: Row1/CDU1", "Row1/CDU1", "cdus[0].id",
                     {"is not a component id"});
  requireInlineError("  - id: row1/rack01", "  - id: row1/cdu1", "  - id: row1/cdu1\n    type: gb",
                     "racks[0].id",
                     {"duplicate id 'row1/cdu1'; already used by the CDU at line 7"});
  requireInlineError("    cdu: row1/cdu1", "    cdu: row1/rack01", "cdu: row1/rack01",
                     "racks[0].cdu",
                     {"'row1/rack01' is a rack, not a CDU; defined CDUs: row1/cdu1"});
  requireInlineError("    type: gb300-nvl72", "    type: ../racks/gb300-nvl72", "../racks",
                     "racks[0].type", {"expected a type name of lower-case letters"});
  requireInlineError("    type: inrack-250kw", "    type: inrack-900kw", "inrack-900kw",
                     "cdus[0].type",
                     {"unknown CDU type 'inrack-900kw': no data file", "available: inrack-250kw"});
  requireInlineError("cdus:\n  - id: row1/cdu1\n    type: inrack-250kw\n", "cdus: []\n",
                     "cdus:", "cdus", {"expected at least one CDU"});
  requireInlineError("cdus:\n  - id: row1/cdu1\n    type: inrack-250kw\n", "", "racktwin_scenario",
                     "cdus", {"required key is missing", "a list of CDUs"});
}

TEST_CASE("CDU and rack overrides are checked", "[scenarios]") {
  requireInlineError("    type: inrack-250kw\n", "    type: inrack-250kw\n    pump_speed: 0 %\n",
                     "pump_speed", "cdus[0].pump_speed", {"must be a fraction above 0"});
  requireInlineError("    type: inrack-250kw\n",
                     "    type: inrack-250kw\n    supply_temperature_setpoint: 36 K/W\n",
                     "supply_temperature_setpoint", "cdus[0].supply_temperature_setpoint",
                     {"expected a temperature"});
  requireInlineError("    type: inrack-250kw\n", "    type: inrack-250kw\n    pump_sped: 50 %\n",
                     "pump_sped", "cdus[0].pump_sped",
                     {"unknown key; expected one of: id, type, supply_temperature_setpoint, "
                      "pump_speed"});
  requireInlineError("    cdu: row1/cdu1\n",
                     "    cdu: row1/cdu1\n    gpu_slowdown_temperature: 80 degC\n",
                     "gpu_slowdown_temperature", "racks[0].gpu_slowdown_temperature",
                     {"release temperature (84 degC) must be below the slowdown temperature "
                      "(80 degC)"});
  requireInlineError("    cdu: row1/cdu1\n", "    cdu: row1/cdu1\n    gpu_power_limit: 150 W\n",
                     "gpu_power_limit", "racks[0].gpu_power_limit",
                     {"must be above the GPU idle power of the rack type (200 W)"});
}

TEST_CASE("row header keys are checked", "[scenarios]") {
  const std::string cdu = "    type: inrack-250kw\n";
  auto with = [&](const std::string& headers) { return cdu + "    headers: " + headers + "\n"; };
  const std::string good =
      "segment_length: 0.6 m, inner_diameter: 100 mm, roughness: 0.045 mm, cells: 2, ";
  requireInlineError(cdu, with("{" + good + "return: direct, lenght: 1 m}"),
                     "headers:", "cdus[0].headers.lenght",
                     {"unknown key; expected one of: segment_length, inner_diameter, roughness, "
                      "cells, return"});
  requireInlineError(
      cdu,
      with("{segment_length: 0.6 kPa, inner_diameter: 100 mm, roughness: 0.045 mm, cells: 2, "
           "return: direct}"),
      "headers:", "cdus[0].headers.segment_length", {"expected a length", "0.6 kPa"});
  requireInlineError(
      cdu,
      with("{segment_length: -0.6 m, inner_diameter: 100 mm, roughness: 0.045 mm, cells: 2, "
           "return: direct}"),
      "headers:", "cdus[0].headers.segment_length", {"must be > 0", "-0.6 m"});
  requireInlineError(
      cdu,
      with("{segment_length: 0.6 m, inner_diameter: 100 mm, roughness: -1 mm, cells: 2, "
           "return: direct}"),
      "headers:", "cdus[0].headers.roughness", {"-1 mm"});
  requireInlineError(cdu, with("{" + good + "return: tichelmann}"),
                     "headers:", "cdus[0].headers.return",
                     {"expected 'direct'", "'reverse'", "got 'tichelmann'"});
  requireInlineError(
      cdu,
      with("{segment_length: 0.6 m, inner_diameter: 100 mm, roughness: 0.045 mm, cells: 0, "
           "return: direct}"),
      "headers:", "cdus[0].headers.cells", {"must be from 1 to 1000"});
  requireInlineError(cdu,
                     with("{segment_length: 0.6 m, inner_diameter: 100 mm, roughness: 0.045 mm, "
                          "cells: 2}"),
                     "headers:", "cdus[0].headers.return", {"required key is missing"});
  // The message's line is the one of the bad value in a block map too.
  requireInlineError(cdu,
                     cdu + "    headers:\n      segment_length: 0.6 m\n      inner_diameter: 4 "
                           "degC\n      roughness: 0 mm\n      cells: 1\n      return: direct\n",
                     "inner_diameter:", "cdus[0].headers.inner_diameter", {"expected a length"});
}

TEST_CASE("workload values are checked", "[scenarios]") {
  requireInlineError("    type: training", "    type: serving", "serving", "workload[0].type",
                     {"unknown workload type 'serving'; supported: training, inference"});
  requireInlineError("    racks: all", "    racks: some", "racks: some", "workload[0].racks",
                     {"expected 'all' or a list of rack ids, got 'some'"});
  requireInlineError("    racks: all", "    racks: [row1/rack01, row1/rack02]", "racks: [",
                     "workload[0].racks[1]",
                     {"unknown component 'row1/rack02'; defined racks: row1/rack01"});
  requireInlineError("    racks: all", "    racks: [row1/cdu1]", "racks: [", "workload[0].racks[0]",
                     {"'row1/cdu1' is a CDU, not a rack"});
  requireInlineError("    racks: all", "    racks: all\n    start: 3600 s",
                     "start:", "workload[0].start",
                     {"must be before the end of the simulation (3600 s)"});
  requireInlineError("compute_power: 95 %", "compute_power: 105 %",
                     "iteration:", "workload[0].iteration.compute_power",
                     {"must be a fraction from 0 to 1"});
  requireInlineError("compute: 3.2 s", "compute: 0 s",
                     "iteration:", "workload[0].iteration.compute", {"must be > 0"});
  requireInlineError("duration: 30 s, power", "duration: 30 min, power",
                     "checkpoint:", "workload[0].checkpoint.duration",
                     {"must be shorter than the checkpoint interval (1800 s)"});
  const std::string second_job = R"(  - id: train2
    type: training
    racks: [row1/rack01]
    start: 1000 s
    iteration: {compute: 1 s, compute_power: 95 %, communication: 1 s, communication_power: 40 %}
events:)";
  requireInlineError("events:", second_job, "racks: [row1/rack01]", "workload[1].racks",
                     {"rack 'row1/rack01' is already used by job 'train1' from 0 s to 3600 s"});
}

TEST_CASE("events are checked", "[scenarios]") {
  const std::string ev = "  - {at: 600 s, action: pump_trip, target: row1/cdu1}";
  requireInlineError(ev, "  - {at: 4000 s, action: pump_trip, target: row1/cdu1}", "at: 4000",
                     "events[0].at", {"must be from 0 s to the end of the simulation (3600 s)"});
  requireInlineError(ev, "  - {at: -1 s, action: pump_trip, target: row1/cdu1}", "at: -1",
                     "events[0].at", {"must be from 0 s"});
  requireInlineError(ev, "  - {at: 60 s, action: pump_trip, target: row1/cdu1, value: 1}",
                     "at: 60 s", "events[0].value",
                     {"not used by action pump_trip; expected one of: at, action, target"});
  requireInlineError(ev, "  - {at: 60 s, action: explode, target: row1/cdu1}", "explode",
                     "events[0].action", {"unknown action 'explode'; expected one of: pump_trip"});
  requireInlineError(ev, "  - {at: 60 s, action: set_pump_speed, target: row1/cdu1, value: 120 %}",
                     "set_pump_speed", "events[0].value", {"must be a fraction from 0 to 1"});
  requireInlineError(ev, "  - {at: 60 s, action: set_pump_speed, target: row1/cdu1}",
                     "set_pump_speed", "events[0].value",
                     {"required key is missing", "expected a number"});
  requireInlineError(ev, "  - {at: 60 s, action: set_facility_supply_temperature, value: 5 bar}",
                     "set_facility", "events[0].value", {"expected a temperature"});
  requireInlineError(ev, "  - {at: 60 s, action: set_pump_speed, target: row1/rack01, value: 0}",
                     "set_pump_speed", "events[0].target", {"'row1/rack01' is a rack, not a CDU"});
}

// ---- Secondary rings (docs/scenario-format.md, rings[]) ----

namespace {
// The base scenario with a second CDU and the rack on a ring of both.
const std::string kRingCdus = R"(cdus:
  - id: row1/cdu1
    type: inrack-250kw
  - id: row1/cdu2
    type: inrack-250kw
rings:
  - id: row1/ring
    segment: {length: 1 m, inner_diameter: 50 mm, roughness: 0.045 mm, cells: 1}
    taps: [row1/cdu1, row1/rack01, row1/cdu2]
racks:)";

std::string ringBase() {
  std::string text =
      replaced(kBase, "cdus:\n  - id: row1/cdu1\n    type: inrack-250kw\nracks:", kRingCdus);
  return replaced(text, "    cdu: row1/cdu1\n", "");
}

void requireRingError(const std::string& from, const std::string& to, const std::string& marker,
                      const std::string& key, const std::vector<std::string>& parts) {
  const std::string text = replaced(ringBase(), from, to);
  INFO("scenario:\n" << text);
  const int line = lineOf(text, marker);
  REQUIRE(line > 0);
  requireInputError([&] { loadInline(text); }, Expected{kInline, line, key, parts});
}
}  // namespace

TEST_CASE("rings: a valid ring loads with its taps in order", "[scenarios]") {
  const auto site = loadScenarioFromString(ringBase(), kInline, sourcePath("data"));
  REQUIRE(site.rings.size() == 1);
  CHECK(site.rings[0].taps == std::vector<std::string>{"row1/cdu1", "row1/rack01", "row1/cdu2"});
  CHECK(site.racks[0].ring == "row1/ring");
  CHECK(site.racks[0].cdu.empty());
  CHECK(site.rings[0].segment.diameter == Approx(0.05).epsilon(1e-12));
}

TEST_CASE("rings: a rack on no CDU and no ring", "[scenarios]") {
  requireRingError("taps: [row1/cdu1, row1/rack01, row1/cdu2]", "taps: [row1/cdu1, row1/cdu2]",
                   "  - id: row1/rack01", "racks[0].cdu",
                   {"required key is missing", "or list the rack in a ring's taps"});
}

TEST_CASE("rings: a rack with a cdu key listed in a ring", "[scenarios]") {
  requireRingError("    type: gb300-nvl72\n", "    type: gb300-nvl72\n    cdu: row1/cdu1\n",
                   "    taps:", "rings[0].taps[1]",
                   {"rack 'row1/rack01' is served by CDU 'row1/cdu1'", "has no cdu key"});
}

TEST_CASE("rings: a tap that is neither a CDU nor a rack", "[scenarios]") {
  requireRingError("row1/rack01, row1/cdu2]", "row1/rack01, row1/cdu9]",
                   "    taps:", "rings[0].taps[2]", {"unknown component 'row1/cdu9'"});
}

TEST_CASE("rings: a ring without a CDU", "[scenarios]") {
  requireRingError("taps: [row1/cdu1, row1/rack01, row1/cdu2]", "taps: [row1/rack01]",
                   "    taps:", "rings[0].taps", {"expected at least one CDU on the ring"});
}

// ---- The facility water loop and the outdoor ambient (docs/scenario-format.md) ----

namespace {
const std::string kLoop = R"(facility_water:
  supply_temperature: 32 degC
  loop:
    pump: {shutoff_pressure: 250 kPa, max_flow: 720 L/min, efficiency: 65 %, volume: 10 L}
    control: {differential_pressure: 100 kPa, proportional_gain_per_kPa: 0.001, integral_time: 10 s, minimum_speed: 30 %}
    plant_pipe: {length: 30 m, inner_diameter: 77.9 mm, roughness: 0.045 mm, cells: 5}
    heat_rejection: {type: dry-cooler-1500kw, units: 1}
    chiller: {type: trim-chiller-500kw}
ambient: {dry_bulb: 35 degC, wet_bulb: 24 degC}
)";

/// The base scenario with a facility loop on a constant ambient.
std::string loopBase() {
  return replaced(kBase, "facility_water: {supply_temperature: 32 degC}\n", kLoop);
}

void requireLoopError(const std::string& from, const std::string& to, const std::string& marker,
                      const std::string& key, const std::vector<std::string>& parts) {
  const std::string text = replaced(loopBase(), from, to);
  INFO("scenario:\n" << text);
  const int line = lineOf(text, marker);
  REQUIRE(line > 0);
  requireInputError([&] { loadInline(text); }, Expected{kInline, line, key, parts});
}
}  // namespace

TEST_CASE("loop: the base with a facility loop and its events is valid", "[scenarios]") {
  const std::string text =
      replaced(loopBase(), "  - {at: 600 s, action: pump_trip, target: row1/cdu1}\n",
               "  - {at: 600 s, action: facility_pump_trip}\n"
               "  - {at: 900 s, action: heat_rejection_fan_loss, value: 50 %}\n");
  const auto site = loadScenarioFromString(text, kInline, sourcePath("data"));
  CHECK(site.facility.loop.present);
  REQUIRE(site.events.size() == 2);
  CHECK(site.events[0].kind == racktwin::core::EventKind::FacilityPumpTrip);
  CHECK(site.events[0].time == 600.0);
  CHECK(site.events[1].kind == racktwin::core::EventKind::HeatRejectionFanLoss);
  CHECK(site.events[1].value == Approx(0.5).epsilon(1e-12));
}

TEST_CASE("loop: the ambient is required with a loop and refused without one", "[scenarios]") {
  requireLoopError("ambient: {dry_bulb: 35 degC, wet_bulb: 24 degC}\n", "", "racktwin_scenario",
                   "ambient",
                   {"required key is missing", "facility_water.loop at line 7",
                    "expected a map with dry_bulb and wet_bulb, or weather"});
  requireInlineError("facility_water: {supply_temperature: 32 degC}\n",
                     "facility_water: {supply_temperature: 32 degC}\n"
                     "ambient: {dry_bulb: 35 degC, wet_bulb: 24 degC}\n",
                     "ambient:", "ambient",
                     {"used only by a facility loop; add facility_water.loop or remove ambient"});
}

TEST_CASE("loop: ambient values are checked", "[scenarios]") {
  requireLoopError("wet_bulb: 24 degC", "wet_bulb: 36 degC", "ambient:", "ambient.wet_bulb",
                   {"must not exceed the dry bulb (35 degC), got 36 degC"});
  requireLoopError("dry_bulb: 35 degC", "dry_bulb: 95 K", "ambient:", "ambient.dry_bulb",
                   {"must be an outdoor air temperature, -100 to 70 degC, got -178.15 degC"});
  requireLoopError("wet_bulb: 24 degC", "wet_bulb: 24 kPa", "ambient:", "ambient.wet_bulb",
                   {"expected a temperature"});
  requireLoopError("ambient: {dry_bulb: 35 degC, wet_bulb: 24 degC}",
                   "ambient: {weather: w.csv, dry_bulb: 35 degC}", "ambient:", "ambient.dry_bulb",
                   {"not used with a weather file", "expected one of: weather, weather_start"});
  requireLoopError("ambient: {dry_bulb: 35 degC, wet_bulb: 24 degC}",
                   "ambient: {dry_bulb: 35 degC, wet_bulb: 24 degC, weather_start: 2 h}",
                   "ambient:", "ambient.weather_start", {"not used without a weather file"});
  requireLoopError("ambient: {dry_bulb: 35 degC, wet_bulb: 24 degC}", "ambient: {}",
                   "ambient:", "ambient.dry_bulb",
                   {"required key is missing", "dry_bulb and wet_bulb", "or weather"});
  requireLoopError("ambient: {dry_bulb: 35 degC, wet_bulb: 24 degC}",
                   "ambient: {dry_bulb: 35 degC}", "ambient:", "ambient.wet_bulb",
                   {"required key is missing"});
}

TEST_CASE("loop: plant data types resolve to data files", "[scenarios]") {
  const auto file = [](const std::string& relative) {
    return std::filesystem::path(sourcePath("data/" + relative)).lexically_normal().string();
  };
  requireLoopError("type: dry-cooler-1500kw", "type: dry-cooler-9mw", "dry-cooler-9mw",
                   "facility_water.loop.heat_rejection.type",
                   {"unknown heat-rejection type 'dry-cooler-9mw': no data file "
                        + file("heat-rejection/dry-cooler-9mw.yaml"),
                    "available: cooling-tower-1500kw, dry-cooler-1500kw"});
  requireLoopError("type: trim-chiller-500kw", "type: trim-chiller-2mw", "trim-chiller-2mw",
                   "facility_water.loop.chiller.type",
                   {"unknown chiller type 'trim-chiller-2mw': no data file "
                        + file("chillers/trim-chiller-2mw.yaml"),
                    "available: trim-chiller-1500kw, trim-chiller-500kw"});
  requireLoopError("type: dry-cooler-1500kw", "type: ../dry", "type: ../dry",
                   "facility_water.loop.heat_rejection.type", {"expected a type name"});
}

TEST_CASE("loop: plant values and units are checked", "[scenarios]") {
  requireLoopError("differential_pressure: 100 kPa", "differential_pressure: 100 kW",
                   "control:", "facility_water.loop.control.differential_pressure",
                   {"expected a pressure in Pa, kPa"});
  requireLoopError("max_flow: 720 L/min", "max_flow: 720 L",
                   "pump:", "facility_water.loop.pump.max_flow", {"expected a volume flow"});
  requireLoopError("proportional_gain_per_kPa: 0.001", "proportional_gain_per_kPa: 1 %/kPa",
                   "control:", "facility_water.loop.control.proportional_gain_per_kPa",
                   {"expected a plain number (the key name gives the unit)"});
  requireLoopError("minimum_speed: 30 %", "minimum_speed: 100 %",
                   "control:", "facility_water.loop.control.minimum_speed",
                   {"must be below 100 %"});
  requireLoopError("efficiency: 65 %,", "speed: 80 %, efficiency: 65 %,",
                   "pump:", "facility_water.loop.pump.speed",
                   {"give either pump.speed (a fixed speed) or control, not both"});
  requireLoopError("volume: 10 L}", "volume: 10 L, installed: 2}",
                   "pump:", "facility_water.loop.pump.standby_switchover_time",
                   {"required key is missing", "expected a time"});
  requireLoopError("units: 1}", "units: 0}",
                   "heat_rejection:", "facility_water.loop.heat_rejection.units",
                   {"must be from 1 to 1000"});
  requireLoopError("    chiller: {type: trim-chiller-500kw}\n",
                   "    chillr: {type: trim-chiller-500kw}\n", "chillr",
                   "facility_water.loop.chillr",
                   {"unknown key; expected one of: pump, control, plant_pipe, header_segment, "
                    "heat_rejection, chiller"});
  requireLoopError("  supply_temperature: 32 degC\n", "  supply_temperature: 120 degC\n",
                   "supply_temperature", "facility_water.supply_temperature",
                   {"must be liquid water", "got 120 degC"});
  requireLoopError("cdus:\n  - id: row1/cdu1\n    type: inrack-250kw\n",
                   "cdus:\n  - id: row1/cdu1\n    type: inrack-250kw\n"
                   "  - id: row1/cdu2\n    type: inrack-250kw\n",
                   "  loop:", "facility_water.loop.header_segment",
                   {"required key is missing: with 2 CDUs", "expected a pipe"});
}

TEST_CASE("loop: facility events need a loop and check their keys", "[scenarios]") {
  const std::string ev = "  - {at: 600 s, action: pump_trip, target: row1/cdu1}";
  requireInlineError(ev, "  - {at: 600 s, action: facility_pump_trip}", "facility_pump_trip",
                     "events[0].action",
                     {"action facility_pump_trip needs a facility loop (facility_water.loop)"});
  requireLoopError(ev, "  - {at: 600 s, action: facility_pump_trip, target: row1/cdu1}",
                   "facility_pump_trip", "events[0].target",
                   {"the single facility_water.loop has no id: remove target"});
  requireLoopError(ev, "  - {at: 600 s, action: heat_rejection_fan_loss, value: 150 %}",
                   "heat_rejection_fan_loss", "events[0].value",
                   {"must be a fraction from 0 to 1"});
  requireLoopError(ev, "  - {at: 600 s, action: set_facility_supply_temperature, value: 101 degC}",
                   "set_facility", "events[0].value",
                   {"the facility loop's supply set-point must be liquid water"});
}

TEST_CASE("electrical actions without an electrical section are refused", "[scenarios]") {
  requireInlineError("  - {at: 600 s, action: pump_trip, target: row1/cdu1}",
                     "  - {at: 600 s, action: feed_loss, feed: a}", "action: feed_loss",
                     "events[0].action", {"needs an electrical section"});
}

TEST_CASE("A CDU's pump_control maps to the pump dp PI in SI", "[scenarios]") {
  const std::string text =
      replaced(kBase, "    type: inrack-250kw\n",
               "    type: inrack-250kw\n    pump_control: {differential_pressure: "
               "0.8 bar, proportional_gain_per_kPa: 0.002, integral_time: "
               "0.5 min, minimum_speed: 30 %}\n");
  const auto site = loadScenarioFromString(text, kInline, sourcePath("data"));
  const auto& c = site.cdus[0];
  CHECK(c.pump_dp_set == Approx(80e3).epsilon(1e-12));   // 0.8 bar = 80 kPa
  CHECK(c.pump_dp_gain == Approx(2e-6).epsilon(1e-12));  // 0.002 per kPa = 2e-6 per Pa
  CHECK(c.pump_dp_integral_time == Approx(30.0).epsilon(1e-12));
  CHECK(c.pump_speed_min == Approx(0.3).epsilon(1e-12));
  requireInlineError("    type: inrack-250kw\n",
                     "    type: inrack-250kw\n    pump_control: {differential_pressure: 80 kPa, "
                     "proportional_gain_per_kPa: 0.002, integral_time: 30 s, minimum_speed: 0 %}\n",
                     "pump_control", "cdus[0].pump_control.minimum_speed", {"must be"});
}

TEST_CASE("A CDU's drive rise time and facility dp come from its data, overridden per CDU",
          "[scenarios]") {
  const auto base = loadScenarioFromString(kBase, kInline, sourcePath("data"));
  CHECK(base.cdus[0].pump_rise_time == Approx(30.0).epsilon(1e-12));  // inrack-250kw.yaml
  CHECK(base.cdus[0].facility_dp_boundary == 0.0);  // the default: nominal flow at full opening
  const std::string text = replaced(
      kBase, "    type: inrack-250kw\n",
      "    type: inrack-250kw\n    pump_rise_time: 0.2 min\n    facility_differential_pressure: "
      "0.9 bar\n    pump_control: {differential_pressure: 80 kPa, minimum_speed: 30 %}\n");
  const auto site = loadScenarioFromString(text, kInline, sourcePath("data"));
  const auto& c = site.cdus[0];
  CHECK(c.pump_rise_time == Approx(12.0).epsilon(1e-12));
  CHECK(c.facility_dp_boundary == Approx(90e3).epsilon(1e-12));
  // pump_control without gains: Buildings' CDU example, 1/60 per kPa and 120 s.
  CHECK(c.pump_dp_gain == Approx(1.0 / 60e3).epsilon(1e-12));
  CHECK(c.pump_dp_integral_time == Approx(120.0).epsilon(1e-12));
  requireInlineError("    type: inrack-250kw\n",
                     "    type: inrack-250kw\n    pump_rise_time: -1 s\n", "pump_rise_time",
                     "cdus[0].pump_rise_time", {"must be"});
  requireInlineError("    type: inrack-250kw\n",
                     "    type: inrack-250kw\n    facility_differential_pressure: 0 kPa\n",
                     "facility_differential_pressure", "cdus[0].facility_differential_pressure",
                     {"must be"});
}
