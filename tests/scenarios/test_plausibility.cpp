// Plausible ranges of input quantities (docs/scenario-format.md, "Plausible ranges"): a value
// outside its physical range is an InputError naming file, line and key; one outside its
// engineering range loads with a warning naming file, line, key, value, range and reason.
// Command-line overrides pass the checks of the file's keys.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace {

using racktwin::core::SiteSpec;
using racktwin::scenarios::loadScenario;
using racktwin::scenarios::loadScenarioFromString;
using racktwin::scenarios::SimulationOverrides;
using racktwin::test::lineOf;
using racktwin::test::readText;
using racktwin::test::replaced;
using racktwin::test::requireInputError;
using racktwin::test::sourcePath;
using Expected = racktwin::test::ExpectedError;

// Scenario texts are named as if they sat in scenarios/, so `data_dir: ../data` resolves.
const std::string kNvl72 = sourcePath("scenarios/nvl72-rack.yaml");
const std::string kSmoothing = sourcePath("scenarios/power-smoothing.yaml");
const std::string kAs = sourcePath("scenarios/variant.yaml");

/// The line of the last line of `to` in `text` (where the changed value sits).
int lineOfLast(const std::string& text, const std::string& to) {
  std::string t = to;
  while (!t.empty() && t.back() == '\n')
    t.pop_back();
  int extra = 0;
  for (char c : t)
    extra += c == '\n' ? 1 : 0;
  return lineOf(text, to) + extra;
}

/// The variant of `base` with `from` replaced by `to` must fail at the line of `to`, key `key`.
void requireError(const std::string& base, const std::string& from, const std::string& to,
                  const std::string& key, const std::vector<std::string>& parts) {
  const std::string text = replaced(readText(base), from, to);
  requireInputError([&] { (void)loadScenarioFromString(text, kAs, ""); },
                    Expected{kAs, lineOfLast(text, to), key, parts});
}

/// The variant must load with exactly one warning, at the line of `to`, naming `key` and `parts`.
void requireWarning(const std::string& base, const std::string& from, const std::string& to,
                    const std::string& key, const std::vector<std::string>& parts) {
  const std::string text = replaced(readText(base), from, to);
  const SiteSpec site = loadScenarioFromString(text, kAs, "");
  REQUIRE(site.input_warnings.size() == 1);
  const std::string& w = site.input_warnings.front();
  INFO(w);
  CHECK(w.rfind(kAs + ":" + std::to_string(lineOfLast(text, to)) + ":", 0) == 0);
  CHECK(w.find("key '" + key + "'") != std::string::npos);
  CHECK(w.find("warning: ") != std::string::npos);
  for (const std::string& part : parts)
    CHECK(w.find(part) != std::string::npos);
}

TEST_CASE("Shipped scenarios load without errors, only intended ones warn", "[scenarios]") {
  int loaded = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(sourcePath("scenarios"))) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string path = entry.path().string();
    // Sweep files (scenarios/sweeps) name a scenario rather than being one.
    if (racktwin::test::readText(path).find("racktwin_sweep:") != std::string::npos) continue;
    INFO(path);
    SiteSpec site;
    REQUIRE_NOTHROW(site = loadScenario(path));
    for (const std::string& w : site.input_warnings)
      WARN(w);
    // No shipped scenario means to leave the engineering ranges.
    CHECK(site.input_warnings.empty());
    ++loaded;
  }
  CHECK(loaded >= 15);
}

TEST_CASE("A GPU power limit of 1e9 kW is refused, above the data sheet warns", "[scenarios]") {
  const std::string rack = "  - id: row1/rack01\n";
  requireError(kNvl72, rack, rack + "    gpu_power_limit: 1e9 kW\n", "racks[0].gpu_power_limit",
               {"must be at most 5000 W", "got '1e9 kW'"});
  requireWarning(kNvl72, rack, rack + "    gpu_power_limit: 1500 W\n", "racks[0].gpu_power_limit",
                 {"1500 W", "1400 W maximum power limit"});
}

TEST_CASE("A GPU power cap of a policy is checked like a GPU power limit", "[scenarios]") {
  const std::string profile = "        profile: max_p\n";
  const std::string key = "electrical.power_management.policies[0].gpu_power_cap";
  requireError(kSmoothing, profile, profile + "        gpu_power_cap: 1e9 kW\n", key,
               {"must be at most 5000 W"});
  requireWarning(kSmoothing, profile, profile + "        gpu_power_cap: 2 kW\n", key,
                 {"1400 W maximum power limit"});
}

TEST_CASE("Facility water below freezing is refused, outside the W classes warns", "[scenarios]") {
  const std::string key = "facility_water.supply_temperature";
  requireError(kNvl72, "supply_temperature: 32 degC", "supply_temperature: -40 degC", key,
               {"must be at least 0 degC", "freezing point of water", "got '-40 degC'"});
  requireWarning(kNvl72, "supply_temperature: 32 degC", "supply_temperature: 50 degC", key,
                 {"50 degC", "2 degC to 45 degC", "W45"});
}

TEST_CASE("Room air at 1e30 degC is refused, outside ASHRAE A1 warns", "[scenarios]") {
  const std::string key = "room.supply_air_temperature";
  requireError(kNvl72, "supply_air_temperature: 24 degC", "supply_air_temperature: 1e30 degC", key,
               {"must be at most 100 degC", "got '1e30 degC'"});
  requireWarning(kNvl72, "supply_air_temperature: 24 degC", "supply_air_temperature: 35 degC", key,
                 {"15 degC to 32 degC", "ASHRAE class A1"});
}

TEST_CASE("A CDU set-point of 200 degC is refused, coolant freezing points", "[scenarios]") {
  const std::string key = "cdus[0].supply_temperature_setpoint";
  const std::string set = "supply_temperature_setpoint: 36 degC";
  requireError(kNvl72, set, "supply_temperature_setpoint: 200 degC", key,
               {"must be at most 100 degC", "boiling point"});
  // PG25 freezes near -10 degC (Melinder 2010): -5 degC is liquid but outside the TCS window...
  requireWarning(kNvl72, set, "supply_temperature_setpoint: -5 degC", key, {"17 degC to 45 degC"});
  // ... -15 degC is ice, and water freezes at 0 degC.
  requireError(kNvl72, set, "supply_temperature_setpoint: -15 degC", key,
               {"freezing point of the secondary coolant PG25"});
  const std::string water = replaced(readText(kNvl72), "coolant: PG25", "coolant: water");
  const std::string text = replaced(water, set, "supply_temperature_setpoint: -5 degC");
  requireInputError([&] { (void)loadScenarioFromString(text, kAs, ""); },
                    Expected{kAs,
                             lineOf(text, "-5 degC"),
                             key,
                             {"must be at least 0 degC", "secondary coolant water"}});
}

TEST_CASE("A 1000 km rack feed and a 1e308 m line are refused, 500 m warns", "[scenarios]") {
  const std::string feed = "a: {length: 10 m,";
  requireError(kSmoothing, feed, "a: {length: 1000000 m,", "electrical.rack_feeds.a.length",
               {"must be at most 10000 m", "got '1000000 m'"});
  requireError(kSmoothing, "kind: switchboard, parent: elec/ups1, length: 10 m",
               "kind: switchboard, parent: elec/ups1, length: 1e308 m",
               "electrical.lines[0].length", {"must be at most 10000 m"});
  requireWarning(kSmoothing, feed, "a: {length: 500 m,", "electrical.rack_feeds.a.length",
                 {"check the voltage drop"});
}

TEST_CASE("A pump speed of 0.001 % is refused, 10 % warns", "[scenarios]") {
  const std::string set = "supply_temperature_setpoint: 36 degC";
  requireError(kNvl72, set, set + "\n    pump_speed: 0.001 %", "cdus[0].pump_speed",
               {"must be at least 1 %", "got '0.001 %'"});
  requireWarning(kNvl72, set, set + "\n    pump_speed: 10 %", "cdus[0].pump_speed",
                 {"10 %", "minimum speed"});
}

TEST_CASE("A PSU efficiency of 9e-5 % in a data file is refused at its line", "[scenarios]") {
  namespace fs = std::filesystem;
  const fs::path data = fs::temp_directory_path() / ("racktwin-psu-" + std::to_string(getpid()));
  fs::remove_all(data);
  fs::copy(sourcePath("data"), data, fs::copy_options::recursive);
  const fs::path psu = data / "psus" / "titanium-5500w.yaml";
  const std::string original = readText(psu.string());
  const std::string bad = replaced(original, "efficiency: [90 %,", "efficiency: [9e-5 %,");
  std::ofstream(psu, std::ios::binary | std::ios::trunc) << bad;
  const std::string text = replaced(readText(kNvl72), "data_dir: ../data",
                                    "allow_outside_paths: true\ndata_dir: " + data.string());
  requireInputError([&] { (void)loadScenarioFromString(text, kAs, ""); },
                    Expected{psu.string(),
                             lineOf(bad, "9e-5 %"),
                             "efficiency_curve.efficiency[0]",
                             {"must be at least 10 %", "got '9e-5 %'"}});
  fs::remove_all(data);
}

TEST_CASE("A PSU curve whose loss turns negative is refused by the loader, not the model",
          "[scenarios]") {
  namespace fs = std::filesystem;
  const fs::path data = fs::temp_directory_path() / ("racktwin-psu2-" + std::to_string(getpid()));
  fs::remove_all(data);
  fs::copy(sourcePath("data"), data, fs::copy_options::recursive);
  const fs::path psu = data / "psus" / "titanium-5500w.yaml";
  // Losses 0.125 P_rated at 50 % (80 %) and 0.0101 P_rated at 100 % (99 %): the last segment,
  // extended, reaches 0.0101 - 0.2 x 0.2298 = -0.036 P_rated at 120 % load.
  const std::string bad = replaced(readText(psu.string()), "efficiency: [90 %, 94 %, 96 %, 91 %]",
                                   "efficiency: [90 %, 94 %, 80 %, 99 %]");
  std::ofstream(psu, std::ios::binary | std::ios::trunc) << bad;
  const std::string text = replaced(readText(kNvl72), "data_dir: ../data",
                                    "allow_outside_paths: true\ndata_dir: " + data.string());
  requireInputError([&] { (void)loadScenarioFromString(text, kAs, ""); },
                    Expected{psu.string(),
                             lineOf(bad, "efficiency: [90 %"),
                             "efficiency_curve.efficiency",
                             {"the loss must not be negative between 0 and 120 % load"}});
  fs::remove_all(data);
}

TEST_CASE("A CDU whose exchanger cannot be rated is refused by the loader, not the model",
          "[scenarios]") {
  namespace fs = std::filesystem;
  const fs::path data = fs::temp_directory_path() / ("racktwin-cdu-" + std::to_string(getpid()));
  fs::remove_all(data);
  fs::copy(sourcePath("data"), data, fs::copy_options::recursive);
  const fs::path cdu = data / "cdus" / "inrack-250kw.yaml";
  // 10 L/min of facility water takes at most 10/60e3 m3/s x 4180 J/(kg K) x 998 kg/m3 = 694 W/K:
  // 250 kW would need a 360 K rise, far above the hot inlet (a temperature cross).
  const std::string bad = replaced(readText(cdu.string()), "facility_nominal_flow: 360 L/min",
                                   "facility_nominal_flow: 10 L/min");
  std::ofstream(cdu, std::ios::binary | std::ios::trunc) << bad;
  const std::string text = replaced(readText(kNvl72), "data_dir: ../data",
                                    "allow_outside_paths: true\ndata_dir: " + data.string());
  requireInputError([&] { (void)loadScenarioFromString(text, kAs, ""); },
                    Expected{kAs,
                             lineOf(text, "type: inrack-250kw"),
                             "cdus[0].type",
                             {"cannot be rated", "heat exchanger rating is impossible"}});
  fs::remove_all(data);
}

TEST_CASE("A --duration shorter than a scheduled fault is refused like the file", "[scenarios]") {
  const std::string path = sourcePath("scenarios/faults/cdu-pump-trip.yaml");
  SimulationOverrides o;
  o.duration = 300.0;  // the pump trips at 600 s
  const std::string text = readText(path);
  const std::string event = "events:\n  - {at: 600 s, action: pump_trip";
  requireInputError([&] { (void)loadScenario(path, o); },
                    Expected{path,
                             lineOf(text, event) + 1,
                             "events[0].at",
                             {"end of the simulation (300 s, set by --duration)"}});
  // The same duration in the file is refused at the same event.
  const std::string in_file = replaced(text, "duration: 1200 s", "duration: 300 s");
  requireInputError(
      [&] { (void)loadScenarioFromString(in_file, path, ""); },
      Expected{
          path, lineOf(in_file, event) + 1, "events[0].at", {"end of the simulation (300 s)"}});
}

TEST_CASE("Options --step and --duration are checked like the file's keys, naming the option",
          "[scenarios]") {
  auto refused = [](SimulationOverrides o, const std::string& option, const std::string& part) {
    requireInputError([&] { (void)loadScenario(kNvl72, o); },
                      Expected{"<command line>", 0, option, {part}});
  };
  refused({std::nullopt, -5.0, std::nullopt}, "--duration", "must be > 0");
  refused({std::nullopt, 1e300, std::nullopt}, "--duration", "steps are allowed");
  refused({1e300, std::nullopt, std::nullopt}, "--step", "more than a century");
  refused({0.0, std::nullopt, std::nullopt}, "--step", "must be > 0");
  refused({std::nullopt, 10.5, std::nullopt}, "--duration", "whole number of steps");
  refused({1.0, 10.5, std::nullopt}, "--duration",
          "whole number of steps");  // both given: the duration
  refused({0.4, std::nullopt, std::nullopt}, "--step",
          "record_interval must be a whole number of steps");
  refused({std::nullopt, 0.5, std::nullopt}, "--duration", "whole number of steps");
  refused({std::nullopt, std::nullopt, 1.5}, "--record-interval", "whole number of steps");
  refused({std::nullopt, std::nullopt, -1.0}, "--record-interval", "must be > 0");
  refused({std::nullopt, std::nullopt, 1e5}, "--record-interval", "must not exceed the duration");
  SimulationOverrides ok;
  ok.duration = 120.0;
  ok.step = 0.5;
  const SiteSpec site = loadScenario(kNvl72, ok);
  CHECK(site.simulation.duration == 120.0);
  CHECK(site.simulation.step == 0.5);
}

}  // namespace
