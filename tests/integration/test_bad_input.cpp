// Bad scenarios end the program with exit code 2, a message naming file, line and key, and no
// result file.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>

#include "RunProgram.hpp"

using racktwin::test::runProgram;

TEST_CASE("Every bad scenario gives a located error and leaves no result file", "[integration]") {
  const std::string dir = racktwin::test::scratchDirectory("bad-input-" + std::to_string(getpid()));
  int checked = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(RACKTWIN_SOURCE_DIR "/tests/scenarios/bad")) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string name = entry.path().filename().string();
    const std::string output = dir + "/" + entry.path().stem().string() + ".h5";
    const auto run = runProgram(std::string(RACKTWIN_CLI) + " run tests/scenarios/bad/" + name
                                + " -o " + output + " --summary-json " + output + ".json");
    INFO(name << ": " << run.err);
    CHECK(run.exit_code == 2);
    // FILE:LINE:COLUMN of the scenario, or of the data file it names when the fault is there.
    CHECK(std::regex_search(run.err, std::regex(R"(\.yaml:[0-9]+:[0-9]+: )")));
    // Every fault but a YAML syntax error belongs to a key.
    if (name.find("syntax") == std::string::npos) CHECK(run.err.find("key '") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(output));
    CHECK_FALSE(std::filesystem::exists(output + ".json"));
    ++checked;
  }
  CHECK(checked >= 6);
}

TEST_CASE("Bad command-line values are refused before anything is written", "[integration]") {
  const std::string dir =
      racktwin::test::scratchDirectory("bad-options-" + std::to_string(getpid()));
  const auto run =
      runProgram(std::string(RACKTWIN_CLI)
                 + " run scenarios/nvl72-rack.yaml --duration 10.5 --step 1 -o " + dir + "/x.h5");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("--duration") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir + "/x.h5"));
  CHECK(runProgram(std::string(RACKTWIN_CLI) + " run does-not-exist.yaml").exit_code == 2);
  // A step so small the run would never end is refused, not started.
  const auto tiny =
      runProgram(std::string(RACKTWIN_CLI) + " run scenarios/nvl72-rack.yaml --step 1e-300 -o "
                 + dir + "/y.h5");
  CHECK(tiny.exit_code == 2);
  CHECK(tiny.err.find("--step") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir + "/y.h5"));
  CHECK(runProgram(std::string(RACKTWIN_CLI) + " frobnicate").exit_code == 2);
}
