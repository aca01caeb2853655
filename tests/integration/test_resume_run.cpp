// `racktwin run --resume`: a run killed (SIGKILL), terminated or interrupted continues from its
// last checkpoint, and the finished file is the uninterrupted run's: h5diff (HDF5's own tool)
// finds no difference apart from /resume, the group that records the resumes. Damaged,
// mismatched or missing checkpoints are refused with exit 2, leaving every file as it was.
// Runs are stopped at exact simulated times by the program's test hook (RACKTWIN_TEST_SIGNAL_AT_S),
// which raises the signal itself, so no test races a timer.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "RunProgram.hpp"
#include "racktwin/core/Hdf5Result.hpp"

namespace fs = std::filesystem;
using racktwin::test::readFile;
using racktwin::test::runProgram;

namespace {

const std::string kCli = RACKTWIN_CLI;

std::string scratch(const std::string& name) {
  return racktwin::test::scratchDirectory(name + "-" + std::to_string(getpid()));
}

std::string killedAt(double t, const std::string& signal = "KILL") {
  return "RACKTWIN_TEST_SIGNAL=" + signal + " RACKTWIN_TEST_SIGNAL_AT_S=" + std::to_string(t) + " ";
}

/// The JSON header of a checkpoint (its second line).
nlohmann::json checkpointHeader(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string magic, header;
  std::getline(in, magic);
  std::getline(in, header);
  return nlohmann::json::parse(header);
}

unsigned long long rowsOf(const std::string& result) {
  for (const auto& d : racktwin::core::readResultInfo(result).datasets)
    if (d.path == "/time") return d.shape.at(0);
  return 0;
}

}  // namespace

TEST_CASE(
    "A run killed with SIGKILL three times and resumed each time equals the uninterrupted run",
    "[integration][resume]") {
  struct Case {
    const char* scenario;
    const char* options;
    double kills[3];
  };
  // cluster-64-racks: a checkpoint every 600 simulated seconds with 10 s records, flushed every
  // 60 records: the kill at 1795 s comes after a flush (1790 s) past the checkpoint (1200 s), so
  // the resumed run must cut rows the killed one had made durable. The power-loss scenario
  // checkpoints every 120 s through its outage, generator failure and battery discharge.
  const Case c = GENERATE(
      Case{
          "scenarios/cluster-64-racks.yaml", "--save-state-interval 600", {1795.0, 2400.0, 3001.0}},
      Case{"scenarios/faults/generator-fails-to-start.yaml",
           "--save-state-interval 120",
           {333.0, 840.0, 1500.0}});
  INFO("scenario " << c.scenario);
  const std::string dir = scratch("resume-kill");
  const std::string ref = dir + "/reference.h5", out = dir + "/resumed.h5";
  const auto reference = runProgram(kCli + " run " + c.scenario + " -q -o " + ref
                                    + " --summary-json " + dir + "/reference.json");
  REQUIRE(reference.exit_code == 0);
  CHECK_FALSE(fs::exists(ref + ".resume"));  // a completed run leaves no checkpoint

  const auto first = runProgram(killedAt(c.kills[0]) + kCli + " run " + c.scenario + " " + c.options
                                + " -q -o " + out + " --summary-json " + dir + "/resumed.json");
  CHECK(first.exit_code == 128 + 9);
  REQUIRE(fs::exists(out + ".partial"));
  REQUIRE(fs::exists(out + ".resume"));
  const auto header = checkpointHeader(out + ".resume");
  CHECK(header.at("time_s").get<double>() <= c.kills[0]);
  if (std::string(c.scenario).find("cluster") != std::string::npos) {
    // Rows past the checkpoint reached the disk before the kill.
    CHECK(rowsOf(out + ".partial") > header.at("rows").get<unsigned long long>());
  }

  // Resumed from <result>.partial, then from the result's name: both are accepted.
  const auto second =
      runProgram(killedAt(c.kills[1]) + kCli + " run --resume " + out + ".partial -q");
  INFO(second.err);
  CHECK(second.exit_code == 128 + 9);
  const auto third = runProgram(killedAt(c.kills[2]) + kCli + " run --resume " + out + " -q");
  INFO(third.err);
  CHECK(third.exit_code == 128 + 9);
  CHECK(checkpointHeader(out + ".resume").at("time_s").get<double>() > c.kills[1]);
  // Checkpoints rotate: <result>.resume.partial holds the one the last checkpoint replaced, and
  // the next checkpoint is written over it.
  REQUIRE(fs::exists(out + ".resume.partial"));
  CHECK(checkpointHeader(out + ".resume.partial").at("time_s").get<double>()
        < checkpointHeader(out + ".resume").at("time_s").get<double>());
  const auto last = runProgram(kCli + " run --resume " + out + " -q");
  INFO(last.err);
  REQUIRE(last.exit_code == 0);
  CHECK_FALSE(fs::exists(out + ".partial"));
  CHECK_FALSE(fs::exists(out + ".resume"));
  CHECK_FALSE(fs::exists(out + ".resume.partial"));  // the completed run removes both
  CHECK_FALSE(fs::exists(ref + ".resume.partial"));

  const auto same = runProgram("h5diff --exclude-path /resume " + ref + " " + out);
  INFO(same.out << same.err);
  CHECK(same.exit_code == 0);
  // The resume is recorded, and h5diff sees it when it is not excluded.
  CHECK(runProgram("h5diff " + ref + " " + out).exit_code == 1);
  const auto count = runProgram("h5dump -a /resume/count " + out);
  CHECK(count.out.find("(0): 3") != std::string::npos);
  CHECK(readFile(dir + "/reference.json") == readFile(dir + "/resumed.json"));
}

TEST_CASE(
    "SIGTERM and SIGINT keep a checkpoint at the step they stop, and --resume completes the run",
    "[integration][resume]") {
  const std::string signal = GENERATE("TERM", "INT");
  const std::string dir = scratch("resume-signal");
  const std::string ref = dir + "/reference.h5", out = dir + "/resumed.h5";
  REQUIRE(runProgram(kCli + " run scenarios/faults/cdu-pump-trip.yaml -q -o " + ref).exit_code
          == 0);
  const auto stopped = runProgram(killedAt(417.0, signal) + kCli
                                  + " run scenarios/faults/cdu-pump-trip.yaml -q -o " + out);
  INFO(stopped.err);
  CHECK(stopped.exit_code == (signal == "TERM" ? 143 : 130));
  CHECK(stopped.err.find("--resume") != std::string::npos);
  // The stopped run's file is under the result's name with complete = 0, as before.
  CHECK(racktwin::core::readResultInfo(out).attributes.at("complete") == "0");
  const auto header = checkpointHeader(out + ".resume");
  CHECK(header.at("time_s").get<double>() == Approx(417.0));
  // The defaults: no checkpoints by simulated time, one after every 5 minutes of wall time.
  CHECK(header.at("save_state_interval_s").get<double>() == 0.0);
  CHECK(header.at("save_state_wall_interval_s").get<double>() == 300.0);
  const auto resumed = runProgram(kCli + " run --resume " + out + " -q");
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK(racktwin::core::readResultInfo(out).attributes.at("complete") == "1");
  CHECK(runProgram("h5diff --exclude-path /resume " + ref + " " + out).exit_code == 0);
}

TEST_CASE("Resuming refuses a checkpoint that is damaged, missing or from another input",
          "[integration][resume]") {
  const std::string dir = scratch("resume-refused");
  const std::string scenario = dir + "/rack.yaml", out = dir + "/r.h5";
  // The shipped rack without its `data_dir: ../data` (the data library is the default).
  std::string text = readFile("scenarios/nvl72-rack.yaml");
  const std::size_t at = text.find("data_dir:");
  REQUIRE(at != std::string::npos);
  text.erase(at, text.find('\n', at) - at);
  std::ofstream(scenario, std::ios::binary) << text;
  auto stop = [&] {
    fs::remove(out + ".partial");
    fs::remove(out + ".resume");
    REQUIRE(runProgram(killedAt(700.0) + kCli + " run " + scenario
                       + " --save-state-interval 300 -q -o " + out)
                .exit_code
            == 137);
  };
  auto refused = [&](const std::string& arguments, const std::string& words) {
    const auto before = fs::file_size(out + ".partial");
    const auto run = runProgram(kCli + " run " + arguments + " -q");
    INFO(run.err);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find(words) != std::string::npos);
    CHECK(run.err.find('\n') == run.err.size() - 1);   // one line
    CHECK(fs::file_size(out + ".partial") == before);  // the interrupted file is kept as it was
  };
  stop();
  SECTION("a flipped byte in the saved state") {
    std::fstream f(out + ".resume", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-100, std::ios::end);
    f.put('\x5a');
    f.close();
    refused("--resume " + out, "checksum");
  }
  SECTION("a checkpoint cut short") {
    fs::resize_file(out + ".resume", fs::file_size(out + ".resume") / 2);
    refused("--resume " + out, "bytes of state");
  }
  SECTION("not a checkpoint") {
    std::ofstream(out + ".resume") << "key: value\n";
    refused("--resume " + out, "RACKTWIN-STATE");
  }
  SECTION("the scenario has changed since the run was started") {
    std::ofstream(scenario, std::ios::app) << "# edited\n";
    refused("--resume " + out, "has changed");
  }
  SECTION("another scenario named with --resume") {
    refused("scenarios/training-swing.yaml --resume " + out, "is not the scenario");
  }
  SECTION("options that would change the run") {
    refused("--resume " + out + " --step 2", "cannot be given");
  }
  SECTION("a damaged result file") {
    {
      std::fstream f(out + ".partial", std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(0);
      f.write("\0\0\0\0\0\0\0\0", 8);  // the HDF5 signature
    }
    refused("--resume " + out, "cannot be resumed");
  }
  SECTION("a symbolic link where the checkpoint's rotation file goes") {
    // A new run of this output would write its checkpoints over <output>.resume.partial: a link
    // there is refused before the run, and its target is left as it was.
    fs::remove(out + ".partial");
    fs::remove(out + ".resume");
    fs::remove(out + ".resume.partial");
    std::ofstream(dir + "/victim.txt") << "keep me\n";
    fs::create_symlink(dir + "/victim.txt", out + ".resume.partial");
    const auto run = runProgram(kCli + " run " + scenario + " -q -o " + out);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find(".resume.partial") != std::string::npos);
    CHECK(readFile(dir + "/victim.txt") == "keep me\n");
  }
  SECTION("a completed run has no checkpoint") {
    fs::remove(out + ".partial");
    fs::remove(out + ".resume");
    REQUIRE(runProgram(kCli + " run " + scenario + " -q -o " + out).exit_code == 0);
    const auto run = runProgram(kCli + " run --resume " + out + " -q");
    CHECK(run.exit_code == 2);
    CHECK(run.err.find("no checkpoint") != std::string::npos);
  }
}

TEST_CASE(
    "A run saves checkpoints by the wall clock, and one resumed from them equals the "
    "uninterrupted run",
    "[integration][resume]") {
  const std::string dir = scratch("resume-wall");
  const std::string scenario = "scenarios/faults/cdu-pump-trip.yaml";
  const std::string ref = dir + "/reference.h5", out = dir + "/resumed.h5";
  REQUIRE(runProgram(kCli + " run " + scenario + " -q -o " + ref).exit_code == 0);
  // By default a run that ends within 5 minutes of wall time saves none: killed, it leaves none.
  const auto unsaved = runProgram(killedAt(700.0) + kCli + " run " + scenario + " -q -o " + out);
  CHECK(unsaved.exit_code == 128 + 9);
  CHECK_FALSE(fs::exists(out + ".resume"));
  fs::remove(out + ".partial");
  // With a wall-clock interval of 1 ms, a checkpoint follows the first step end of each
  // millisecond: the last one before the kill is at most 700 s.
  const auto killed = runProgram(killedAt(700.0) + kCli + " run " + scenario
                                 + " --save-state-wall-interval 0.001 -q -o " + out);
  CHECK(killed.exit_code == 128 + 9);
  REQUIRE(fs::exists(out + ".resume"));
  const auto header = checkpointHeader(out + ".resume");
  CHECK(header.at("time_s").get<double>() > 0.0);
  CHECK(header.at("time_s").get<double>() <= 700.0);
  CHECK(header.at("save_state_interval_s").get<double>() == 0.0);
  CHECK(header.at("save_state_wall_interval_s").get<double>() == 0.001);
  const auto resumed = runProgram(kCli + " run --resume " + out + " -q");
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  CHECK(runProgram("h5diff --exclude-path /resume " + ref + " " + out).exit_code == 0);
  // The interval is checked like every other number of the command line.
  for (const char* bad : {"-1", "nan", "inf"}) {
    const auto run = runProgram(kCli + " run " + scenario + " --save-state-wall-interval " + bad
                                + " -q -o " + dir + "/bad.h5");
    INFO(bad << ": " << run.err);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find("'--save-state-wall-interval'") != std::string::npos);
    CHECK_FALSE(fs::exists(dir + "/bad.h5"));
  }
}
