// Plausibility warnings (docs/scenario-format.md, "Plausible ranges") reach every place a user
// or a later reader looks: stderr, the printed summary, the summary JSON (`input_warnings`) and
// the result file (root attribute `input_warnings`). Command-line overrides are refused as the
// file's values are.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "RunProgram.hpp"
#include "racktwin/core/Hdf5Result.hpp"

using racktwin::test::readFile;
using racktwin::test::runProgram;

namespace {

/// 1-based line of the first occurrence of `needle` in `text`.
int lineOf(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  int line = 1;
  for (std::size_t i = 0; i < at; ++i)
    line += text[i] == '\n' ? 1 : 0;
  return line;
}

std::string replacedOnce(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("A value outside its engineering range runs, and the warning is reported everywhere",
          "[integration]") {
  const std::string dir =
      racktwin::test::scratchDirectory("input-warnings-" + std::to_string(getpid()));
  std::string text = readFile(RACKTWIN_SOURCE_DIR "/scenarios/nvl72-rack.yaml");
  text = replacedOnce(text, "data_dir: ../data", "data_dir: " RACKTWIN_SOURCE_DIR "/data");
  // 35 degC room air: above ASHRAE A1's 32 degC allowable limit, a warning, not an error.
  text = replacedOnce(text, "supply_air_temperature: 24 degC", "supply_air_temperature: 35 degC");
  const std::string scenario = dir + "/warm-room.yaml";
  std::ofstream(scenario, std::ios::binary) << text;
  const std::string where = scenario + ":" + std::to_string(lineOf(text, "35 degC")) + ":";
  const std::string key = "key 'room.supply_air_temperature'";

  const auto run = runProgram(std::string(RACKTWIN_CLI) + " run " + scenario + " --duration 10 -o "
                              + dir + "/r.h5 --summary-json " + dir + "/r.json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  // stderr: one located warning.
  CHECK(run.err.find(where) != std::string::npos);
  CHECK(run.err.find(key + ": warning: '35 degC'") != std::string::npos);
  CHECK(run.err.find("ASHRAE class A1") != std::string::npos);
  // The printed summary: the count and the line.
  CHECK(run.out.find("input warnings:") != std::string::npos);
  CHECK(run.out.find(where) != std::string::npos);
  // The summary JSON counts it.
  const auto json = nlohmann::json::parse(readFile(dir + "/r.json"));
  CHECK(json.at("input_warnings").get<double>() == 1.0);
  // The result file lists it and its stored summary counts it.
  const auto info = racktwin::core::readResultInfo(dir + "/r.h5");
  const std::string& stored = info.attributes.at("input_warnings");
  CHECK(stored.find(where) != std::string::npos);
  CHECK(stored.find(key) != std::string::npos);
  CHECK(nlohmann::json::parse(info.attributes.at("summary_json")).at("input_warnings") == 1.0);

  // A shipped scenario has none: no attribute and a count of 0.
  const auto clean =
      runProgram(std::string(RACKTWIN_CLI) + " run scenarios/nvl72-rack.yaml --duration 10 -q -o "
                 + dir + "/c.h5 --summary-json " + dir + "/c.json");
  REQUIRE(clean.exit_code == 0);
  CHECK(clean.err.find("warning") == std::string::npos);
  CHECK(nlohmann::json::parse(readFile(dir + "/c.json")).at("input_warnings") == 0.0);
  CHECK(racktwin::core::readResultInfo(dir + "/c.h5").attributes.count("input_warnings") == 0);
}

TEST_CASE("A --duration shorter than a scheduled fault is refused, naming the option and event",
          "[integration]") {
  const std::string dir =
      racktwin::test::scratchDirectory("short-duration-" + std::to_string(getpid()));
  const auto run =
      runProgram(std::string(RACKTWIN_CLI)
                 + " run scenarios/faults/cdu-pump-trip.yaml --duration 300 -o " + dir + "/x.h5");
  INFO(run.err);
  CHECK(run.exit_code == 2);
  const std::string text = readFile(RACKTWIN_SOURCE_DIR "/scenarios/faults/cdu-pump-trip.yaml");
  const int line = lineOf(text, "events:\n  - {at: 600 s, action: pump_trip") + 1;
  CHECK(run.err.find("scenarios/faults/cdu-pump-trip.yaml:" + std::to_string(line) + ":")
        != std::string::npos);
  CHECK(run.err.find("key 'events[0].at'") != std::string::npos);
  CHECK(run.err.find("300 s, set by --duration") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir + "/x.h5"));
}
