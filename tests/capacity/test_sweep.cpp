// racktwin sweep and envelope (docs/capacity.md): cases from a sweep file, identical results for
// any thread or rank count, a failing case recorded without stopping the others, a killed sweep
// resumed without running its finished cases again, and the envelope's answer checked against
// the recorded data and the ratings of the data files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "RunProgram.hpp"
#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/scenarios/SweepSpec.hpp"
#include "racktwin/study/Sweep.hpp"

namespace {

using racktwin::core::readResultDataset;
using racktwin::core::readResultInfo;
using racktwin::core::readResultStrings;
using racktwin::test::runProgram;
using racktwin::test::scratchDirectory;
using racktwin::test::sourcePath;

const std::string kSmall = "tests/capacity/data/small-sweep.yaml";

std::string cli() {
  return std::string("'") + RACKTWIN_CLI + "'";
}

/// Every /metrics dataset of a sweep file, by path.
std::vector<std::pair<std::string, std::vector<double>>> metrics(const std::string& file) {
  std::vector<std::pair<std::string, std::vector<double>>> out;
  for (const auto& d : readResultInfo(file).datasets)
    if (d.path.rfind("/metrics/", 0) == 0)
      out.emplace_back(d.path, readResultDataset(file, d.path));
  return out;
}

/// Bit for bit (NaN equals NaN).
bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) return false;
  }
  return true;
}

void requireSameSweep(const std::string& a, const std::string& b) {
  const auto ma = metrics(a), mb = metrics(b);
  REQUIRE(ma.size() == mb.size());
  REQUIRE(!ma.empty());
  for (std::size_t k = 0; k < ma.size(); ++k) {
    INFO(ma[k].first);
    CHECK(ma[k].first == mb[k].first);
    CHECK(sameBits(ma[k].second, mb[k].second));
  }
  for (const char* strings : {"/cases/id", "/cases/status", "/cases/error", "/cases/fault",
                              "/cases/patch", "/cases/binding_limit", "/headroom/binding_limit"}) {
    INFO(strings);
    CHECK(readResultStrings(a, strings) == readResultStrings(b, strings));
  }
  CHECK(sameBits(readResultDataset(a, "/headroom/worst_margin_fraction"),
                 readResultDataset(b, "/headroom/worst_margin_fraction")));
}

}  // namespace

TEST_CASE("a sweep file's cases: grid points, then each point's faults", "[capacity][sweep]") {
  const auto spec = racktwin::scenarios::loadSweep(sourcePath(kSmall));
  const auto cases = racktwin::study::sweepCases(spec);
  // 2 supply temperatures x 2 CDU types; a pump trip for each point that loads (the real type).
  REQUIRE(cases.size() == 6);
  CHECK(cases[0].parameter_text == std::vector<std::string>{"27 degC", "inrack-250kw"});
  CHECK(cases[1].fault == "pump_trip row1/cdu1 at 60 s");
  CHECK(cases[2].parameter_text == std::vector<std::string>{"27 degC", "no-such-cdu"});
  CHECK(cases[2].fault.empty());
  CHECK(cases[3].parameter_text.front() == "32 degC");
  for (std::size_t i = 0; i < cases.size(); ++i)
    CHECK(cases[i].index == i);
}

TEST_CASE("a Latin hypercube puts one draw in each stratum of every range", "[capacity][sweep]") {
  racktwin::scenarios::SweepSpec spec = racktwin::scenarios::loadSweep(sourcePath(kSmall));
  spec.faults = {};
  spec.design = racktwin::scenarios::SweepDesign::LatinHypercube;
  spec.samples = 10;
  spec.seed = 7;
  racktwin::scenarios::SweepParameter p;
  p.name = "supply";
  p.keys = {"facility_water.supply_temperature"};
  p.is_range = true;
  p.from = 20.0;
  p.to = 40.0;
  p.unit = "degC";
  spec.parameters = {p};
  const auto cases = racktwin::study::sweepCases(spec);
  REQUIRE(cases.size() == 10);
  std::vector<int> per_stratum(10, 0);
  for (const auto& c : cases) {
    const double x = c.parameter_number.front();
    REQUIRE(x >= 20.0);
    REQUIRE(x < 40.0);
    ++per_stratum[static_cast<std::size_t>((x - 20.0) / 2.0)];
  }
  CHECK(std::all_of(per_stratum.begin(), per_stratum.end(), [](int n) { return n == 1; }));
  // The same seed draws the same cases.
  const auto again = racktwin::study::sweepCases(spec);
  for (std::size_t i = 0; i < cases.size(); ++i)
    CHECK(again[i].patches.back().value == cases[i].patches.back().value);
}

TEST_CASE("a sweep gives the same file on 1 and 2 threads, failed cases are kept",
          "[capacity][sweep]") {
  const std::string dir = scratchDirectory("sweep-threads");
  const auto one = runProgram(cli() + " sweep " + kSmall + " -j 1 -q -o " + dir + "/j1.h5");
  REQUIRE(one.exit_code == 0);
  const auto two = runProgram(cli() + " sweep " + kSmall + " -j 2 -q -o " + dir + "/j2.h5");
  REQUIRE(two.exit_code == 0);
  requireSameSweep(dir + "/j1.h5", dir + "/j2.h5");
  const auto status = readResultStrings(dir + "/j1.h5", "/cases/status");
  const auto error = readResultStrings(dir + "/j1.h5", "/cases/error");
  REQUIRE(status.size() == 6);
  CHECK(status[2] == "failed");
  CHECK(error[2].find("no-such-cdu") != std::string::npos);
  CHECK(status[0] == "ok");
  CHECK(status[5] == "failed");
  CHECK(one.err.find("2 of 6 cases failed") != std::string::npos);
  // The CSV holds the same cases.
  const std::string csv = racktwin::test::readFile(dir + "/j1.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 7);
  CHECK(csv.find("max_gpu_temperature_K [K]") != std::string::npos);
  // The existing reader's checks accept the file (checksummed strings included).
  CHECK(runProgram(cli() + " info " + dir + "/j1.h5").exit_code == 0);
  // compare lists every case of a sweep file with its metrics and headroom.
  const auto compared = runProgram(cli() + " compare " + dir + "/j1.h5");
  REQUIRE(compared.exit_code == 0);
  CHECK(compared.out.find("j1.h5:case-0005 32 degC no-such-cdu") != std::string::npos);
  CHECK(compared.out.find("max_gpu_temperature_K") != std::string::npos);
  CHECK(compared.out.find("row1/cdu1") != std::string::npos);
}

TEST_CASE("a sweep keeps metrics whose keys hold an element id with a '/'", "[capacity][sweep]") {
  // Every site's MV feeders are named "hall1/mv-feeder": their summary keys hold a '/', which an
  // HDF5 name cannot. A sweep over such a site ran all its cases and then failed to write its
  // file. The dataset's name is the key percent-encoded ('/' as %2F, '%' as %25).
  const std::string dir = scratchDirectory("sweep-feeders");
  const std::string sweep = dir + "/feeders.h5";
  const auto swept =
      runProgram(cli() + " sweep tests/capacity/data/two-feeders-sweep.yaml -j 2 -q -o " + sweep);
  INFO(swept.err);
  REQUIRE(swept.exit_code == 0);
  const std::string key = "mv_feeder_hall1/mv-feeder_current_max_A";
  const std::vector<double> column =
      readResultDataset(sweep, "/metrics/mv_feeder_hall1%2Fmv-feeder_current_max_A");
  REQUIRE(column.size() == 2);
  // The second case is the base scenario as it is: a run of it gives the same number, bit for bit.
  const std::string summary = dir + "/base.json";
  REQUIRE(runProgram(cli() + " run tests/capacity/data/two-feeders.yaml -q -o " + dir
                     + "/base.h5 --summary-json " + summary)
              .exit_code
          == 0);
  const std::string json = racktwin::test::readFile(summary);
  const std::size_t at = json.find("\"" + key + "\":");
  REQUIRE(at != std::string::npos);
  const double base = std::stod(json.substr(at + key.size() + 3));
  CHECK(base > 0.0);
  CHECK(std::memcmp(&column[1], &base, sizeof base) == 0);
  CHECK(column[0] > 0.0);
  // compare reads it back under its key.
  const auto compared = runProgram(cli() + " compare " + sweep);
  REQUIRE(compared.exit_code == 0);
  CHECK(compared.out.find("\n  " + key + " ") != std::string::npos);
  CHECK(compared.out.find("mv_feeder_hall2/mv-feeder_utilisation_max") != std::string::npos);
  // The report reads the file (tests/report's report_sweep_feeders checks its page).
  CHECK(runProgram(cli() + " report " + sweep + " -o " + dir + "/report.html").exit_code == 0);
}

TEST_CASE("a sweep's full result is the file racktwin run writes for the case",
          "[capacity][sweep]") {
  // Above 10,000 GPUs a run keeps per-rack, per-row and per-hall aggregates (the scenario's
  // output: per_gpu auto). A sweep's full results bypassed that level of detail and the
  // scenario's compression: every GPU of the 100k site in its own columns.
  const std::string dir = scratchDirectory("sweep-full-results");
  const auto swept = runProgram(cli() + " sweep tests/capacity/data/site-full-results.yaml -q -o "
                                + dir + "/full.h5");
  INFO(swept.err);
  REQUIRE(swept.exit_code == 0);
  const std::string case_file = dir + "/full.cases/case-0000.h5";
  const std::string run_file = dir + "/run.h5";
  REQUIRE(runProgram(cli() + " run scenarios/site-100k.yaml --duration 2 --record-interval 1 -q -o "
                     + run_file)
              .exit_code
          == 0);
  const auto paths = [](const std::string& file) {
    std::vector<std::string> out;
    for (const auto& d : readResultInfo(file).datasets)
      out.push_back(d.path);
    std::sort(out.begin(), out.end());
    return out;
  };
  const std::vector<std::string> in_case = paths(case_file), in_run = paths(run_file);
  CHECK(std::find(in_case.begin(), in_case.end(), "/gpu/T_junction") == in_case.end());
  CHECK(in_case == in_run);
  // The case is the base scenario as it is: the same numbers as the run.
  for (const char* path : {"/gpu_by_rack/T_junction.max", "/gpu_hottest/T_junction",
                           "/site/P_facility", "/cdu/T_return"}) {
    INFO(path);
    const std::vector<double> a = readResultDataset(case_file, path);
    REQUIRE(!a.empty());
    CHECK(sameBits(a, readResultDataset(run_file, path)));
  }
}

#ifdef RACKTWIN_WITH_MPI
TEST_CASE("a sweep over 3 MPI ranks gives the threaded run's file", "[capacity][sweep][mpi]") {
  const std::string dir = scratchDirectory("sweep-mpi");
  REQUIRE(runProgram(cli() + " sweep " + kSmall + " -j 1 -q -o " + dir + "/j1.h5").exit_code == 0);
  // As root in a container: Open MPI needs its explicit consent. Under the debug preset
  // (AddressSanitizer) Open MPI's own leaks, in components it has unloaded by the exit (no
  // module to suppress them by), would end every rank with LeakSanitizer's exit code: the ranks
  // run without leak detection; the sweep's own code is leak-checked by the -j runs above and
  // below. A plain build ignores the setting.
  const auto mpi = runProgram(
      "ASAN_OPTIONS=detect_leaks=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "mpirun --oversubscribe -np 3 "
      + cli() + " sweep " + kSmall + " -q -o " + dir + "/np3.h5");
  INFO(mpi.err);
  REQUIRE(mpi.exit_code == 0);
  requireSameSweep(dir + "/j1.h5", dir + "/np3.h5");
}
#endif

TEST_CASE("a killed sweep resumes without running its finished cases again", "[capacity][sweep]") {
  const std::string dir = scratchDirectory("sweep-resume");
  REQUIRE(runProgram(cli() + " sweep " + kSmall + " -q -o " + dir + "/whole.h5").exit_code == 0);
  const auto killed = runProgram("RACKTWIN_TEST_SWEEP_KILL_AFTER=3 " + cli() + " sweep " + kSmall
                                 + " -o " + dir + "/cut.h5");
  CHECK(killed.exit_code != 0);
  CHECK_FALSE(std::filesystem::exists(dir + "/cut.h5"));
  REQUIRE(std::filesystem::exists(dir + "/cut.h5.journal"));
  const auto resumed = runProgram(cli() + " sweep " + kSmall + " -o " + dir + "/cut.h5");
  REQUIRE(resumed.exit_code == 0);
  // Only the three unfinished cases ran: their progress lines count on from 4.
  CHECK(resumed.err.find("[4/6]") != std::string::npos);
  CHECK(resumed.err.find("[3/6]") == std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir + "/cut.h5.journal"));
  requireSameSweep(dir + "/whole.h5", dir + "/cut.h5");
}

TEST_CASE("racks per XDU1350 at W32: the envelope's answer meets the ratings the data give",
          "[capacity][envelope]") {
  const std::string dir = scratchDirectory("envelope");
  const auto run = runProgram(cli() + " envelope tests/capacity/data/row-envelope.yaml -j 2 -o "
                              + dir + "/env.h5");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const std::string file = dir + "/env.h5";
  REQUIRE(readResultStrings(file, "/envelope/answer") == std::vector<std::string>{"found"});
  const double answer = readResultDataset(file, "/envelope/value").front();
  const double failing = readResultDataset(file, "/envelope/first_failing").front();
  const std::string binding = readResultStrings(file, "/envelope/binding_limit").front();
  CHECK(failing == answer + 1.0);  // whole racks: resolution 1
  // Independent of the program: the CDU's rated heat over one rack's heat into liquid from the
  // rack data (data/racks/gb300-nvl72.yaml) bounds the answer. Training at 95 % of 1400 W for
  // 3.2 s and 40 % for 0.8 s: 72 x 1400 x (0.95 x 3.2 + 0.4 x 0.8) / 4 = 84.7 kW of GPUs, 36 CPUs
  // x 250 W busy, 18 NVSwitches x 550 W busy: 103.6 kW; leakage at W32 adds, so 95 % of it is a
  // floor of what each rack puts into the loop.
  const double rack_heat_floor =
      0.95 * (72 * 1400.0 * (0.95 * 3.2 + 0.4 * 0.8) / 4.0 + 36 * 250.0 + 18 * 550.0);
  CHECK(answer <= std::floor(1.35e6 / rack_heat_floor));
  // The recorded data of the answer's case and of the first failing one, against the named
  // rating: the answer's row stays within it after the warm-up, the next rack exceeds it.
  const auto ids = readResultStrings(file, "/cases/id");
  const auto patches = readResultStrings(file, "/cases/patch");
  const auto caseFile = [&](double racks) {
    const std::string key =
        "template.racks_per_row: " + std::to_string(static_cast<int>(racks)) + "\n";
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (patches[i].find(key) != std::string::npos) return dir + "/env.cases/" + ids[i] + ".h5";
    FAIL("no case with " << key);
    return std::string();
  };
  const auto peakAfterWarmUp = [](const std::string& result, const std::string& dataset) {
    const auto t = readResultDataset(result, "/time");
    const auto v = readResultDataset(result, dataset);
    double peak = -1e300;
    for (std::size_t k = 0; k < t.size(); ++k)
      if (t[k] > 600.0) peak = std::max(peak, v[k]);
    return peak;
  };
  INFO("binding limit " << binding);
  REQUIRE(binding == "row1/cdu1:secondary_flow");
  // data/cdus/xdu1350.yaml ratings.secondary_flow_max: 1469 L/min.
  const double rated = 1469.0 * racktwin::core::kLitrePerMinute_m3_per_s;
  CHECK(peakAfterWarmUp(caseFile(answer), "/cdu/V_flow") <= rated);
  CHECK(peakAfterWarmUp(caseFile(failing), "/cdu/V_flow") > rated);
  // And the answer respects the CDU's rated heat (data/cdus/xdu1350.yaml: 1350 kW).
  CHECK(peakAfterWarmUp(caseFile(answer), "/cdu/Q_flow") <= 1.35e6);
}

TEST_CASE("compare prints the headroom groups of least margin first, and counts the rest",
          "[capacity]") {
  // A site has hundreds of groups (701 on the 100,000-GPU site): compare printed all of them
  // by name. The 100k site for 20 s: more groups than compare shows.
  const std::string dir = scratchDirectory("compare-groups");
  const std::string result = dir + "/site-100k.h5";
  REQUIRE(
      runProgram(cli() + " run scenarios/site-100k.yaml --duration 20 -q -o " + result).exit_code
      == 0);
  const std::vector<std::string> groups = readResultStrings(result, "/headroom/group");
  const std::vector<double> margins = readResultDataset(result, "/headroom/worst_margin_fraction");
  REQUIRE(groups.size() == margins.size());
  REQUIRE(groups.size() > 50);
  // The order the file's margins give (all finite here), ties by name.
  std::vector<std::size_t> order(groups.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return margins[a] != margins[b] ? margins[a] < margins[b] : groups[a] < groups[b];
  });
  // The printed groups: the lines of two spaces and a name after the headroom heading.
  const auto printedGroups = [](const std::string& out) {
    std::vector<std::string> names;
    const std::size_t heading = out.find("headroom: worst margin");
    std::size_t at = out.find('\n', heading) + 1;
    while (at < out.size()) {
      const std::size_t end = out.find('\n', at);
      const std::string line = out.substr(at, end - at);
      at = end + 1;
      if (line.rfind("    ", 0) == 0 || line.rfind("  ...", 0) == 0) continue;
      if (line.rfind("  ", 0) == 0) names.push_back(line.substr(2));
    }
    return names;
  };
  const auto some = runProgram(cli() + " compare " + result);
  REQUIRE(some.exit_code == 0);
  std::vector<std::string> want;
  for (std::size_t k = 0; k < 50; ++k)
    want.push_back(groups[order[k]]);
  CHECK(printedGroups(some.out) == want);
  char rest[160];
  std::snprintf(rest, sizeof rest,
                "  ... %zu more groups, each with a worst margin of at least %.1f %% in every file",
                groups.size() - 50, 100.0 * margins[order[50]]);
  CHECK(some.out.find(rest) != std::string::npos);
  const auto all = runProgram(cli() + " compare --all-groups " + result);
  REQUIRE(all.exit_code == 0);
  want.clear();
  for (const std::size_t k : order)
    want.push_back(groups[k]);
  CHECK(printedGroups(all.out) == want);
  CHECK(all.out.find("more groups") == std::string::npos);
}
