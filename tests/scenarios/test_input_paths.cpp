// Where a scenario may read files from (scenarios/src/InputPaths.hpp) and what error messages
// may show of what was read (core::quoteForMessage, detail::describeField).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "GpuTrace.hpp"
#include "RequestTrace.hpp"
#include "ScenarioTestUtil.hpp"
#include "WeatherCsv.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace fs = std::filesystem;
using racktwin::core::InputError;
using racktwin::scenarios::loadScenario;
using racktwin::scenarios::OutsidePaths;
using namespace racktwin::test;

namespace {

// A line such as /etc/shadow holds; the tests put it in files of their own folder.
const std::string kSecret = "root:$6$SECRETHASHxyz$Q1w2e3r4t5:19700:0:99999:7:::";

/// A folder `<tmp>/racktwin-paths-<pid>/` with `site/` (the scenario's folder) and a copy of the
/// Azure request trace both inside `site/` and beside it (outside the scenario's folder).
struct PathFixture {
  fs::path root = fs::temp_directory_path() / ("racktwin-paths-" + std::to_string(getpid()));
  fs::path site = root / "site";
  PathFixture() {
    fs::remove_all(root);
    fs::create_directories(site);
    fs::copy_file(sourcePath("data/workload/azure-code-2023.csv"), root / "outside.csv");
    fs::copy_file(sourcePath("data/workload/azure-code-2023.csv"), site / "inside.csv");
  }
  ~PathFixture() { fs::remove_all(root); }
  PathFixture(const PathFixture&) = delete;
  PathFixture& operator=(const PathFixture&) = delete;

  /// Writes the Azure inference scenario into site/ with `trace` as its request trace and the
  /// data library named by its absolute path; returns the scenario's path.
  std::string scenario(const std::string& trace, const std::string& top = "") const {
    std::string text = readText(sourcePath("scenarios/inference-azure.yaml"));
    text = replaced(text, "data_dir: ../data", top + "data_dir: " + sourcePath("data"));
    text = replaced(text, "trace: ../data/workload/azure-code-2023.csv", "trace: " + trace);
    const fs::path path = site / "scenario.yaml";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    return path.string();
  }
};

/// The InputError `load` throws; fails the test when it throws none.
template <class Load>
InputError errorOf(Load load) {
  try {
    load();
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no InputError was thrown");
  return InputError({}, "", "");
}

}  // namespace

TEST_CASE("a scenario reads files in its folder and the data library, nothing else unless allowed",
          "[scenarios]") {
  const PathFixture f;
  // Inside the folder, and the data library by its absolute path: read.
  CHECK_NOTHROW(loadScenario(f.scenario("inside.csv")));
  CHECK_NOTHROW(loadScenario(f.scenario(sourcePath("data/workload/azure-code-2023.csv"))));

  // '..' leaving the folder, an absolute path elsewhere, a link inside pointing outside: refused
  // at the key, with the way to allow it.
  fs::create_symlink(f.root / "outside.csv", f.site / "link.csv");
  for (const std::string& trace : {std::string("../outside.csv"), (f.root / "outside.csv").string(),
                                   std::string("link.csv"), std::string("sub/../../outside.csv")}) {
    INFO("trace: " << trace);
    const std::string path = f.scenario(trace);
    const InputError e = errorOf([&] { (void)loadScenario(path); });
    CHECK(e.where().file == path);
    CHECK(e.where().line == lineOf(readText(path), "trace: " + trace));
    CHECK(e.key() == "workload[0].trace");
    CHECK_THAT(e.message(), Catch::Contains("lies outside the scenario's folder"));
    CHECK_THAT(e.message(), Catch::Contains("--allow-outside-paths"));
    // The user's --allow-outside-paths, or the scenario's own key, lets it read them.
    CHECK_NOTHROW(loadScenario(path, {}, OutsidePaths::Allowed));
    CHECK_NOTHROW(loadScenario(f.scenario(trace, "allow_outside_paths: true\n")));
    // A scenario stored in a result file does not decide for itself.
    const std::string allowing = f.scenario(trace, "allow_outside_paths: true\n");
    CHECK(errorOf([&] { (void)loadScenario(allowing, {}, OutsidePaths::Refused); }).key()
          == "workload[0].trace");
  }
  // data_dir falls under the same rule.
  const std::string data_elsewhere = replaced(readText(f.scenario("inside.csv")),
                                              "data_dir: " + sourcePath("data"), "data_dir: ..");
  std::ofstream(f.site / "scenario.yaml", std::ios::binary | std::ios::trunc) << data_elsewhere;
  CHECK(errorOf([&] { (void)loadScenario((f.site / "scenario.yaml").string()); }).key()
        == "data_dir");
}

TEST_CASE("errors about a data file never show its contents", "[scenarios]") {
  namespace d = racktwin::scenarios::detail;
  const auto check = [](const InputError& e) {
    INFO("what(): " << e.what());
    CHECK(std::string(e.what()).find("SECRETHASH") == std::string::npos);
    CHECK(e.where().line > 0);
  };
  // As a header row and as a data row of each of the three data file formats.
  check(errorOf([] { (void)d::parseRequestTrace(kSecret + "\n", "t.csv"); }));
  check(errorOf([] {
    (void)d::parseRequestTrace("TIMESTAMP,ContextTokens,GeneratedTokens\n" + kSecret + ",1,2\n",
                               "t.csv");
  }));
  check(errorOf([] {
    (void)d::parseRequestTrace("TIMESTAMP,ContextTokens,GeneratedTokens\n0," + kSecret + ",2\n",
                               "t.csv");
  }));
  check(errorOf([] { (void)d::parseWeatherCsv(kSecret + "\n0,30,20\n", "w.csv"); }));
  check(errorOf([] {
    (void)d::parseWeatherCsv("time_h,dry_bulb_degC,wet_bulb_degC\n0," + kSecret + ",20\n", "w.csv");
  }));
  check(errorOf([] {
    (void)d::parseNvidiaSmiTrace(
        "timestamp, index, utilization.gpu [%], power.draw [W]\n" + kSecret + ", 0, 50 %, 700 W\n",
        "g.csv");
  }));
  check(errorOf([] {
    (void)d::parseNvidiaSmiTrace(
        "timestamp, index, utilization.gpu [%], power.draw [W]\n"
        "2024/01/01 00:00:00.000, 0, 50 %, "
            + kSecret + "\n",
        "g.csv");
  }));
  check(errorOf([] {
    (void)d::parseDcgmTrace("#Entity POWER\nID W\n" + kSecret + " 0 700\n", "g.txt", 1.0);
  }));
}

TEST_CASE("a 5 MB value or key is quoted to 80 characters, not echoed", "[scenarios]") {
  const std::string huge(5'000'000, '7');
  const std::string base = readText(sourcePath("scenarios/nvl72-rack.yaml"));
  const std::string set = "supply_temperature_setpoint: 36 degC";
  const InputError value = errorOf([&] {
    (void)racktwin::scenarios::loadScenarioFromString(
        replaced(base, set, set + "\n    pump_speed: x" + huge), sourcePath("scenarios/big.yaml"),
        "");
  });
  const std::string what = value.what();
  CHECK(what.size() < 400);
  CHECK_THAT(what, Catch::Contains("'x" + std::string(79, '7') + "'... (5000001 characters)"));
  const InputError key = errorOf([&] {
    (void)racktwin::scenarios::loadScenarioFromString(
        replaced(base, set, set + "\n    k" + huge + ": 1"), sourcePath("scenarios/big.yaml"), "");
  });
  CHECK(std::string(key.what()).size() < InputError::kMaxMessageChars + 300);
  // quoteForMessage itself: characters, not bytes; control characters shown as '?'.
  CHECK(racktwin::core::quoteForMessage("°C\x1b[2J", 3) == "'°C?'... (6 characters)");
  CHECK(racktwin::core::quoteForMessage("short") == "'short'");
}
