// Failures are clear and leave no half-written curve: bad specs, OpenFOAM missing, a diverging
// solver, a program that hangs or fails.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "CfdTestUtil.hpp"
#include "racktwin/cfd/CaseWriter.hpp"
#include "racktwin/cfd/CfdError.hpp"
#include "racktwin/cfd/ChannelCase.hpp"
#include "racktwin/cfd/ColdPlateCase.hpp"
#include "racktwin/core/Error.hpp"

using namespace racktwin::cfd;
namespace fs = std::filesystem;

namespace {

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// The 1-based line of the first occurrence of `needle` in `text`.
int lineOf(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  int line = 1;
  for (std::size_t i = 0; i < at; ++i)
    line += text[i] == '\n';
  return line;
}

}  // namespace

TEST_CASE("bad cold-plate specs name the file, line and key", "[cfd][errors]") {
  const std::string good = racktwin::test::miniPlateYaml();
  REQUIRE_NOTHROW(parseColdPlateSpec(good, "mini.yaml"));

  struct Bad {
    std::string from, to, key, says, at;  // `at`: text on the line the error must name
  };
  for (const Bad& bad :
       {Bad{"width: 1 mm", "width: -1 mm", "channels.width", "positive", "width: -1 mm"},
        Bad{"thickness: 2 mm", "thickness: 0 mm", "base.thickness", "positive", "thickness: 0"},
        Bad{"count: 3", "count: 30", "channels.count", "wider than the plate", "count: 30"},
        Bad{"length: 20 mm\nheater", "length: 10 mm\nheater", "heater.length",
            "longer than the channels", "length: 20 mm\n  width: 4.5 mm\n  power"},
        Bad{"height: 2 mm", "height: 2 kg", "channels.height", "length", "height: 2 kg"},
        Bad{"power: 125 W", "powr: 125 W", "heater.powr", "unknown key", "powr"},
        Bad{"fluid: water", "fluid: oil", "coolant", "water", ""}}) {
    const std::string text = replaced(good, bad.from, bad.to);
    try {
      parseColdPlateSpec(text, "bad.yaml");
      FAIL("accepted: " << bad.to);
    } catch (const racktwin::core::InputError& e) {
      INFO(e.what());
      CHECK(e.where().file == "bad.yaml");
      CHECK(e.key() == bad.key);
      CHECK(std::string(e.what()).find(bad.says) != std::string::npos);
      if (!bad.at.empty()) CHECK(e.where().line == lineOf(text, bad.at));
    }
  }
}

TEST_CASE("a bad spec on the command line writes nothing", "[cfd][errors]") {
  const fs::path dir = racktwin::test::cfdScratch("bad-spec-cli");
  writeTextFile(dir / "bad.yaml",
                replaced(racktwin::test::miniPlateYaml(), "count: 3", "count: 30"));
  std::string output;
  const int code = racktwin::test::runCli(
      "cfd coldplate " + (dir / "bad.yaml").string() + " -o " + (dir / "curve.yaml").string(),
      output);
  CHECK(code == 2);
  CHECK(output.find("channels.count") != std::string::npos);
  CHECK(output.find("bad.yaml:") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "curve.yaml"));
  CHECK_FALSE(fs::exists(dir / "curve.yaml.partial"));
}

TEST_CASE("missing OpenFOAM is reported before anything runs", "[cfd][errors]") {
  const fs::path dir = racktwin::test::cfdScratch("missing-openfoam");
  ChannelSpec spec;

  OpenFoamEnvironment no_project = OpenFoamEnvironment::fromProcess();
  no_project.project_dir = "/nonexistent/openfoam";
  try {
    runChannel(spec, dir / "a", ProcessRunner(no_project));
    FAIL("no error");
  } catch (const OpenFoamMissing& e) {
    CHECK(std::string(e.what()).find("WM_PROJECT_DIR=/nonexistent/openfoam") != std::string::npos);
  }

  OpenFoamEnvironment no_path = OpenFoamEnvironment::fromProcess();
  no_path.search_path = "/nonexistent/bin";
  try {
    runChannel(spec, dir / "b", ProcessRunner(no_path));
    FAIL("no error");
  } catch (const OpenFoamMissing& e) {
    CHECK(std::string(e.what()).find("'blockMesh' not found") != std::string::npos);
  }

  // The lookup is injectable: a locator that finds nothing.
  OpenFoamEnvironment none = OpenFoamEnvironment::fromProcess();
  none.locate = [](const std::string&) { return std::optional<fs::path>(); };
  CHECK_THROWS_AS(runColdPlatePoint(ColdPlateSpec{}, 3e-6, dir / "c", ProcessRunner(none), {}),
                  OpenFoamMissing);

  // The command line: a previous curve stays as it was, no partial file is left.
  writeTextFile(dir / "mini.yaml", racktwin::test::miniPlateYaml());
  writeTextFile(dir / "curve.yaml", "previous\n");
  std::string output;
  const int code =
      racktwin::test::runCli("cfd coldplate " + (dir / "mini.yaml").string()
                                 + " --flows 0.1,0.2 -o " + (dir / "curve.yaml").string(),
                             output, "WM_PROJECT_DIR=/nonexistent/openfoam");
  CHECK(code == 1);
  CHECK(output.find("OpenFOAM not found") != std::string::npos);
  CHECK(readTextFile(dir / "curve.yaml") == "previous\n");
  CHECK_FALSE(fs::exists(dir / "curve.yaml.partial"));
}

TEST_CASE("a diverging solver is reported as diverged", "[cfd][errors][openfoam]") {
  // Plain SIMPLE without under-relaxation blows up (a floating-point trap after ~20 iterations).
  ChannelSpec spec;
  spec.cells_across = 10;
  spec.consistent = false;
  spec.relaxation_U = 1.0;
  spec.relaxation_p = 1.0;
  try {
    runChannel(spec, racktwin::test::cfdScratch("diverging"),
               ProcessRunner(OpenFoamEnvironment::fromProcess()));
    FAIL("no error");
  } catch (const SolverDiverged& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find("simpleFoam") != std::string::npos);
    CHECK(std::string(e.what()).find("diverged") != std::string::npos);
    CHECK(std::string(e.what()).find("log.simpleFoam") != std::string::npos);
  }
}

TEST_CASE("a cold-plate solver printing NaN residuals leaves no curve", "[cfd][errors]") {
  // A stand-in solver first in PATH: it prints what a diverging OpenFOAM solver prints and exits 0.
  const fs::path dir = racktwin::test::cfdScratch("nan-solver");
  const fs::path bin = dir / "bin";
  writeTextFile(bin / "chtMultiRegionSimpleFoam",
                "#!/bin/sh\necho 'Time = 1'\n"
                "echo 'DILUPBiCGStab:  Solving for h, Initial residual = nan, Final residual = "
                "nan, No Iterations 1000'\nexit 0\n");
  fs::permissions(bin / "chtMultiRegionSimpleFoam", fs::perms::owner_all);
  writeTextFile(dir / "mini.yaml", racktwin::test::miniPlateYaml());
  std::string output;
  const std::string path = "PATH=" + bin.string() + ":$PATH";
  const int code =
      racktwin::test::runCli("cfd coldplate " + (dir / "mini.yaml").string()
                                 + " --flows 0.1,0.2 -o " + (dir / "curve.yaml").string(),
                             output, path);
  INFO(output);
  CHECK(code == 1);
  CHECK(output.find("diverged") != std::string::npos);
  CHECK(output.find("no curve written") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "curve.yaml"));
  CHECK_FALSE(fs::exists(dir / "curve.yaml.partial"));
}

TEST_CASE("the runner stops a program at its timeout and reports exit codes", "[cfd][errors]") {
  const fs::path dir = racktwin::test::cfdScratch("runner");
  OpenFoamEnvironment env = OpenFoamEnvironment::fromProcess();
  env.locate = [](const std::string& name) -> std::optional<fs::path> {
    if (name == "hang") return fs::path("/bin/sleep");
    if (name == "fail") return fs::path("/bin/false");
    return std::nullopt;
  };
  const ProcessRunner runner(env);
  ProcessRequest hang{"hang", {"30"}, dir, "log.hang", 0.3};
  try {
    runner.runChecked(hang);
    FAIL("no error");
  } catch (const CfdError& e) {
    CHECK(std::string(e.what()).find("timeout") != std::string::npos);
  }
  ProcessRequest fail{"fail", {}, dir, "log.fail", 10.0};
  const ProcessResult r = runner.run(fail);
  CHECK(r.exit_code == 1);
  CHECK(fs::exists(dir / "log.fail"));
  CHECK_THROWS_WITH(runner.runChecked(fail), Catch::Contains("exit code 1"));
}
