// Outputs never destroy: `racktwin run` and `racktwin cfd` write only regular files or new paths,
// never one of the run's inputs, never an unrelated case folder; a failing run leaves an older
// result in place; SIGTERM keeps the file like SIGINT.
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "RunProgram.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace fs = std::filesystem;
using racktwin::test::runProgram;

namespace {

const std::string kCli = RACKTWIN_CLI;

std::string scratch(const std::string& name) {
  return racktwin::test::scratchDirectory(name + "-" + std::to_string(getpid()));
}

void writeText(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("An output that is a device node or a FIFO is refused and left as it is",
          "[integration][outputs]") {
  const std::string dir = scratch("special-outputs");
  const fs::path fifo = fs::path(dir) / "fifo.h5";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::vector<fs::path> targets = {fifo};
  // A character device like /dev/null (1, 3), made here: the real /dev/null is never touched.
  const fs::path device = fs::path(dir) / "null";
  if (mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    targets.push_back(device);
  } else {
    WARN("mknod needs root: only the FIFO is checked");
  }
  for (const fs::path& target : targets) {
    INFO(target);
    const fs::file_type before = fs::symlink_status(target).type();
    const auto run =
        runProgram(kCli + " run scenarios/nvl72-rack.yaml --duration 10 -q -o " + target.string());
    INFO(run.err);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find("not a regular file") == std::string::npos);  // says what it is instead
    CHECK(run.err.find("-o") != std::string::npos);
    CHECK(fs::symlink_status(target).type() == before);
    // The summary JSON is checked the same way.
    const auto json = runProgram(kCli + " run scenarios/nvl72-rack.yaml --duration 10 -q -o " + dir
                                 + "/ok.h5 --summary-json " + target.string());
    CHECK(json.exit_code == 2);
    CHECK(fs::symlink_status(target).type() == before);
    CHECK_FALSE(fs::exists(dir + "/ok.h5"));
  }
}

TEST_CASE("An output that is the scenario or one of its data files is refused",
          "[integration][outputs]") {
  const std::string dir = scratch("input-outputs");
  // Hard links are the same file under another name (std::filesystem::equivalent); renaming over
  // a link would leave the original intact, so this test cannot damage the repository.
  const fs::path scenario_link = fs::path(dir) / "scenario.h5";
  fs::create_hard_link(RACKTWIN_SOURCE_DIR "/scenarios/nvl72-rack.yaml", scenario_link);
  const auto site =
      racktwin::scenarios::loadScenario(RACKTWIN_SOURCE_DIR "/scenarios/nvl72-rack.yaml");
  REQUIRE_FALSE(site.input_files.empty());
  const fs::path data_link = fs::path(dir) / "data.h5";
  fs::create_hard_link(site.input_files.front(), data_link);
  for (const fs::path& target : {scenario_link, data_link}) {
    INFO(target);
    const std::string before = racktwin::test::readFile(target.string());
    const auto run =
        runProgram(kCli + " run scenarios/nvl72-rack.yaml --duration 10 -q -o " + target.string());
    INFO(run.err);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find("input of this run") != std::string::npos);
    CHECK(racktwin::test::readFile(target.string()) == before);
  }
  // The summary JSON may not be the result file either.
  const auto same = runProgram(kCli + " run scenarios/nvl72-rack.yaml --duration 10 -q -o " + dir
                               + "/r.h5 --summary-json " + dir + "/r.h5");
  CHECK(same.exit_code == 2);
  CHECK_FALSE(fs::exists(dir + "/r.h5"));
}

TEST_CASE("SIGTERM exits 143 and keeps the file so far, like SIGINT", "[integration][outputs]") {
  const std::string dir = scratch("terminated");
  const auto run =
      runProgram("timeout --preserve-status -s TERM 1 " + kCli
                 + " run scenarios/nvl72-rack.yaml --duration 360000 -q -o " + dir + "/t.h5");
  INFO(run.err);
  CHECK(run.exit_code == 143);
  CHECK(run.err.find("terminated") != std::string::npos);
  const auto info = racktwin::core::readResultInfo(dir + "/t.h5");
  CHECK(info.attributes.at("complete") == "0");
  CHECK_FALSE(fs::exists(dir + "/t.h5.partial"));
}

TEST_CASE("cfd commands refuse a non-empty case folder they did not create",
          "[integration][outputs]") {
  const std::string dir = scratch("cfd-case-folders");
  // A fake OpenFOAM installation that passes the first check: the case folder is cleaned, then
  // blockMesh is not found.
  fs::create_directories(dir + "/openfoam/etc");
  writeText(dir + "/openfoam/etc/controlDict", "FoamFile {}\n");
  const std::string env = "WM_PROJECT_DIR=" + dir + "/openfoam ";

  fs::create_directories(dir + "/mine");
  writeText(dir + "/mine/thesis.tex", "years of work\n");
  const auto channel = runProgram(env + kCli + " cfd channel --case " + dir + "/mine");
  INFO(channel.err);
  CHECK(channel.exit_code == 2);
  CHECK(channel.err.find("--force") != std::string::npos);
  CHECK(racktwin::test::readFile(dir + "/mine/thesis.tex") == "years of work\n");

  // cfd coldplate: --case, and the default <output>.cases.
  const std::string spec = RACKTWIN_SOURCE_DIR "/data/cold-plates/cfd/microchannel-1kw.yaml";
  const auto plate = runProgram(env + kCli + " cfd coldplate " + spec + " -o " + dir
                                + "/curve.yaml --case " + dir + "/mine");
  CHECK(plate.exit_code == 2);
  CHECK(racktwin::test::readFile(dir + "/mine/thesis.tex") == "years of work\n");
  fs::create_directories(dir + "/curve.yaml.cases");
  writeText(dir + "/curve.yaml.cases/notes.txt", "keep\n");
  const auto cases =
      runProgram(env + kCli + " cfd coldplate " + spec + " -o " + dir + "/curve.yaml");
  CHECK(cases.exit_code == 2);
  CHECK(racktwin::test::readFile(dir + "/curve.yaml.cases/notes.txt") == "keep\n");

  // A new folder is created and taken; a rerun into it (the program's own) is allowed.
  const auto fresh = runProgram(env + kCli + " cfd channel --keep --case " + dir + "/new");
  CHECK(fresh.exit_code == 1);  // blockMesh is missing
  CHECK(fresh.err.find("blockMesh") != std::string::npos);
  writeText(dir + "/new/leftover", "x\n");
  const auto again = runProgram(env + kCli + " cfd channel --keep --case " + dir + "/new");
  CHECK(again.exit_code == 1);
  CHECK(again.err.find("blockMesh") != std::string::npos);
}

namespace {

/// A 2 MB tmpfs mounted on `dir` for the lifetime of this object (needs root).
class SmallDisk {
 public:
  explicit SmallDisk(std::string dir) : dir_(std::move(dir)) {
    mounted_ = mount("tmpfs", dir_.c_str(), "tmpfs", 0, "size=2m") == 0;
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;
  ~SmallDisk() {
    if (mounted_) umount(dir_.c_str());
  }
  bool mounted() const noexcept { return mounted_; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

}  // namespace

TEST_CASE("A full disk: one clear message, the rows so far kept, a previous result unchanged",
          "[integration][outputs]") {
  const std::string dir = scratch("full-disk");
  const SmallDisk disk(dir);
  if (!disk.mounted()) {
    WARN("mounting a tmpfs needs root: the full-disk case is not checked");
    return;
  }
  const std::string result = dir + "/r.h5";
  // A good first result (60 s, about 0.3 MB).
  const auto good = runProgram(kCli + " run scenarios/nvl72-rack.yaml --duration 60 -q -o " + result
                               + " --summary-json " + dir + "/r.json");
  REQUIRE(good.exit_code == 0);
  const std::string previous = racktwin::test::readFile(result);
  const std::string previous_json = racktwin::test::readFile(dir + "/r.json");

  // 10 h would take about 60 MB: refused before the run with the estimate and a hint.
  const auto refused =
      runProgram(kCli + " run scenarios/nvl72-rack.yaml --duration 36000 -q -o " + result);
  INFO(refused.err);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("GB") != std::string::npos);
  CHECK(refused.err.find("record_interval") != std::string::npos);
  CHECK_FALSE(fs::exists(result + ".partial"));

  // Forced: the disk fills during the run.
  const auto full = runProgram(kCli + " run scenarios/nvl72-rack.yaml --duration 36000 -q "
                                      "--no-space-check -o "
                               + result + " --summary-json " + dir + "/r.json");
  INFO(full.err);
  CHECK(full.exit_code == 1);
  CHECK(full.err.find("No space left on device") != std::string::npos);
  // One line for the failure, one saying where the rows are: no HDF5 diagnostics. A checkpoint
  // the full disk could not take is one warning line before them (the run goes on without it).
  const bool checkpoint_warning = full.err.find("warning: no checkpoint") != std::string::npos;
  CHECK(std::count(full.err.begin(), full.err.end(), '\n') == 2 + (checkpoint_warning ? 1 : 0));
  CHECK(racktwin::test::readFile(result) == previous);
  CHECK(racktwin::test::readFile(dir + "/r.json") == previous_json);
  const auto info = racktwin::core::readResultInfo(result + ".partial");
  CHECK(info.attributes.at("complete") == "0");
  std::vector<unsigned long long> shape;
  const auto time = racktwin::core::readResultDataset(result + ".partial", "/time", &shape);
  REQUIRE(shape.size() == 1);
  CHECK(shape[0] > 60);  // more than the first run held: the rows written before the disk filled
  for (std::size_t k = 0; k < shape[0]; ++k)
    CHECK(time[k] == static_cast<double>(k));
}

TEST_CASE("racktwin run reads a scenario's outside files only with --allow-outside-paths",
          "[integration][paths]") {
  // The scenario in site/ keeps its `data_dir: ../data`, which now names a copy of the data
  // library beside site/: outside the scenario's folder and not the data library itself.
  const std::string dir = scratch("outside-paths");
  const fs::path site = fs::path(dir) / "site";
  fs::create_directories(site);
  std::ifstream in("scenarios/nvl72-rack.yaml", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const fs::path copy = fs::path(dir) / "data";
  fs::copy("data", copy, fs::copy_options::recursive);
  writeText(site / "rack.yaml", text);
  const std::string run =
      kCli + " run " + (site / "rack.yaml").string() + " --duration 10 -q -o " + dir + "/out.h5";
  const auto refused = runProgram(run);
  INFO(refused.err);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("key 'data_dir'") != std::string::npos);
  CHECK(refused.err.find("--allow-outside-paths") != std::string::npos);
  CHECK_FALSE(fs::exists(dir + "/out.h5"));
  const auto allowed = runProgram(run + " --allow-outside-paths");
  INFO(allowed.err);
  CHECK(allowed.exit_code == 0);
  CHECK(fs::is_regular_file(dir + "/out.h5"));
}

TEST_CASE("The size printed before a run is not below the file it writes",
          "[integration][outputs]") {
  // The free-space check trusts the estimate. A site's short run is mostly its design-limit
  // table (11,297 rows of ten strings on the 100k site): left out, the estimate said 15.4 MB for
  // a file of 21.0 MB.
  const std::string dir = scratch("estimate");
  for (const char* run : {"scenarios/site-100k.yaml --duration 20",
                          "scenarios/cluster-64-racks.yaml --duration 600"}) {
    const std::string result = dir + "/r.h5";
    const auto done = runProgram(kCli + " run " + run + " -o " + result);
    INFO(run << "\n" << done.out.substr(0, 300));
    REQUIRE(done.exit_code == 0);
    const std::size_t at = done.out.find("result: about ");
    REQUIRE(at != std::string::npos);
    const double estimate_MB = std::stod(done.out.substr(at + 14));
    const double written_MB = static_cast<double>(fs::file_size(result)) / 1e6;
    INFO("estimate " << estimate_MB << " MB, written " << written_MB << " MB");
    CHECK(estimate_MB >= written_MB);
    CHECK(estimate_MB <= 2.0 * written_MB);  // and of the right size
  }
}
