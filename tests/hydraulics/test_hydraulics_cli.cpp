// `racktwin hydraulics`: its JSON output and its exit codes.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "RunProgram.hpp"

using racktwin::test::runProgram;

TEST_CASE("racktwin hydraulics --json prints the specified keys", "[hydraulics]") {
  const auto run = runProgram(std::string(RACKTWIN_CLI)
                              + " hydraulics tests/hydraulics/data/Net1.inp --time 3600 --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json out = nlohmann::json::parse(run.out);
  REQUIRE(out["nodes"].size() == 11);
  REQUIRE(out["links"].size() == 13);
  for (const auto& node : out["nodes"]) {
    CHECK(node.contains("id"));
    CHECK(node["head"].is_number());
    CHECK(node["pressure"].is_number());
  }
  CHECK(out["links"][0]["id"] == "10");
  CHECK(out["links"][0]["flow"].is_number());
  CHECK(out["iterations"].get<int>() >= 1);
  CHECK(out["relative_flow_change"].get<double>() <= 0.001);  // Net1's ACCURACY
  // The reservoir's head is its file value (ft).
  CHECK(out["nodes"][9]["id"] == "9");
  CHECK(out["nodes"][9]["head"].get<double>() == Approx(800.0).epsilon(1e-12));
}

TEST_CASE("racktwin hydraulics --extended-period moves the tanks over the run", "[hydraulics]") {
  const auto run = runProgram(
      std::string(RACKTWIN_CLI)
      + " hydraulics tests/hydraulics/data/Net1.inp --time 3600 --extended-period --json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json out = nlohmann::json::parse(run.out);
  // Tank 2 (node index 10) at EPANET's stored head for t = 1 h (validation.md), where the steady
  // solve keeps its file level, 850 + 120 ft.
  REQUIRE(out["nodes"][10]["id"] == "2");
  CHECK(out["nodes"][10]["head"].get<double>() == Approx(973.06814).margin(1e-3));
}

TEST_CASE("racktwin hydraulics prints a table in the file's units", "[hydraulics]") {
  const auto run =
      runProgram(std::string(RACKTWIN_CLI) + " hydraulics tests/hydraulics/data/Net2.inp");
  REQUIRE(run.exit_code == 0);
  CHECK(run.out.find("head ft") != std::string::npos);
  CHECK(run.out.find("pressure psi") != std::string::npos);
  CHECK(run.out.find("flow GPM") != std::string::npos);
  CHECK(run.out.find("converged") != std::string::npos);
}

TEST_CASE("A bad .inp exits 2 naming file and line", "[hydraulics]") {
  struct Case {
    const char* file;
    const char* line;
    const char* says;
  };
  const Case cases[] = {{"bad_section.inp", ":9:", "unknown section"},
                        {"bad_node.inp", ":9:", "'J9' is not defined"},
                        {"bad_number.inp", ":8:", "'1x2' is not a number"}};
  for (const Case& c : cases) {
    const auto run = runProgram(std::string(RACKTWIN_CLI) + " hydraulics tests/hydraulics/data/"
                                + c.file + " --json");
    INFO(c.file << ": " << run.err);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find(std::string(c.file) + c.line) != std::string::npos);
    CHECK(run.err.find(c.says) != std::string::npos);
    CHECK(run.out.empty());
  }
  const auto missing = runProgram(std::string(RACKTWIN_CLI) + " hydraulics no/such/file.inp");
  CHECK(missing.exit_code == 2);
  // Not a file at all, and bytes that are no .inp: a clear error, never a crash.
  const auto directory =
      runProgram(std::string(RACKTWIN_CLI) + " hydraulics tests/hydraulics/data");
  CHECK(directory.exit_code == 2);
  CHECK(directory.err.find("directory") != std::string::npos);
  const auto binary = runProgram(std::string(RACKTWIN_CLI) + " hydraulics " RACKTWIN_CLI);
  CHECK(binary.exit_code == 2);
}
