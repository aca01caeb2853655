// Levels of detail of a real run (core/OutputDetail.hpp, `racktwin run --per-gpu ...`): every
// aggregate the program writes equals the same statistic computed here from the per-GPU (CPU,
// NVSwitch, tray) datasets of the same file; an aggregated run is the same numbers as a full
// one; an aggregated run killed and resumed equals the uninterrupted one; h5py reads it.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "RunProgram.hpp"
#include "racktwin/core/Hdf5Result.hpp"

using racktwin::test::runProgram;
namespace rc = racktwin::core;

namespace {

const std::string kCli = RACKTWIN_CLI;

std::string scratch(const std::string& name) {
  return racktwin::test::scratchDirectory(name + "-" + std::to_string(getpid()));
}

/// The entity of `level` ids each id lies in: the level id that is a '/'-prefix of it.
std::vector<std::size_t> ownerOf(const std::vector<std::string>& ids,
                                 const std::vector<std::string>& level) {
  std::vector<std::size_t> owner(ids.size(), level.size());
  for (std::size_t j = 0; j < ids.size(); ++j) {
    for (std::size_t e = 0; e < level.size(); ++e) {
      if (ids[j].compare(0, level[e].size(), level[e]) == 0 && ids[j].size() > level[e].size()
          && ids[j][level[e].size()] == '/') {
        owner[j] = e;
      }
    }
  }
  return owner;
}

}  // namespace

TEST_CASE("Aggregates written by a run equal the statistics of its per-GPU datasets",
          "[integration][output_detail]") {
  const std::string dir = scratch("detail-property");
  const std::string out = dir + "/all.h5";
  // scheduler-queue: 8 racks in two rows, six jobs starting and ending (GPUs idle, busy, in
  // checkpoints), so racks differ; every GPU kept and every aggregate written.
  const auto run =
      runProgram(kCli + " run scenarios/scheduler-queue.yaml --record-interval 30 -q -o " + out
                 + " --per-gpu all --aggregates rack,row,hall --hottest-gpus 7");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const rc::ResultFileInfo info = rc::readResultInfo(out);
  std::map<std::string, const rc::DatasetInfo*> by_path;
  for (const rc::DatasetInfo& d : info.datasets)
    by_path[d.path] = &d;

  std::size_t checked = 0;
  for (const rc::DatasetInfo& d : info.datasets) {
    if (d.statistic != "mean" && d.statistic != "max" && d.statistic != "argmax") continue;
    INFO(d.path << " from " << d.source);
    // /<group>_by_<level>/<name>.<statistic>
    const std::string group_level = d.path.substr(1, d.path.rfind('/') - 1);
    const std::string group = group_level.substr(0, group_level.find("_by_"));
    const std::string level = group_level.substr(group_level.find("_by_") + 4);
    REQUIRE(by_path.count(d.source) == 1);
    CHECK(d.aggregation
          == (by_path[d.source]->aggregation == "max" ? "max" : by_path[d.source]->aggregation));
    std::vector<unsigned long long> source_shape, shape;
    const std::vector<double> source = rc::readResultDataset(out, d.source, &source_shape);
    const std::vector<double> written = rc::readResultDataset(out, d.path, &shape);
    const std::vector<std::string> ids = rc::readResultStrings(out, "/" + group + "/ids");
    CHECK(rc::readResultStrings(out, "/entities/" + group) == ids);
    const std::vector<std::string> level_ids =
        rc::readResultStrings(out, "/" + group_level + "/ids");
    // Rows are the racks' id prefixes; the site is one hall.
    std::vector<std::size_t> owner;
    if (level == "hall") {
      owner.assign(ids.size(), 0);
      CHECK(level_ids == std::vector<std::string>{"hall"});
    } else {
      owner = ownerOf(ids, level_ids);
    }
    REQUIRE(std::none_of(owner.begin(), owner.end(),
                         [&](std::size_t o) { return o == level_ids.size(); }));
    const std::size_t rows = source_shape[0], columns = source_shape[1];
    REQUIRE(shape == std::vector<unsigned long long>{rows, level_ids.size()});
    for (std::size_t t = 0; t < rows; ++t) {
      for (std::size_t e = 0; e < level_ids.size(); ++e) {
        double sum = 0.0, max = -INFINITY;
        std::size_t count = 0, argmax = 0;
        for (std::size_t j = 0; j < columns; ++j) {
          if (owner[j] != e) continue;
          const double v = source[t * columns + j];
          sum += v;
          ++count;
          if (v > max) max = v, argmax = j;
        }
        const double value = written[t * level_ids.size() + e];
        if (d.statistic == "mean") CHECK(value == Approx(sum / count).epsilon(1e-13));
        if (d.statistic == "max") CHECK(value == max);
        if (d.statistic == "argmax") CHECK(value == static_cast<double>(argmax));
      }
    }
    ++checked;
  }
  // GPUs (7 channels), CPUs and NVSwitches (2), trays (3) at three levels.
  CHECK(checked > 3 * 14);

  // The hottest GPUs: by T_junction_max, hottest first, with the per-GPU values.
  std::vector<unsigned long long> shape;
  const std::vector<double> index = rc::readResultDataset(out, "/gpu_hottest/index", &shape);
  const std::vector<double> hot_max = rc::readResultDataset(out, "/gpu_hottest/T_junction_max");
  const std::vector<double> hot_power = rc::readResultDataset(out, "/gpu_hottest/P");
  std::vector<unsigned long long> gpu_shape;
  const std::vector<double> t_max = rc::readResultDataset(out, "/gpu/T_junction_max", &gpu_shape);
  const std::vector<double> power = rc::readResultDataset(out, "/gpu/P");
  REQUIRE(shape[1] == 7);
  const std::size_t gpus = gpu_shape[1];
  for (std::size_t t = 0; t < shape[0]; ++t) {
    std::vector<double> sorted(t_max.begin() + static_cast<std::ptrdiff_t>(t * gpus),
                               t_max.begin() + static_cast<std::ptrdiff_t>((t + 1) * gpus));
    std::sort(sorted.rbegin(), sorted.rend());
    for (std::size_t k = 0; k < 7; ++k) {
      const auto g = static_cast<std::size_t>(index[t * 7 + k]);
      CHECK(hot_max[t * 7 + k] == sorted[k]);
      CHECK(hot_max[t * 7 + k] == t_max[t * gpus + g]);
      CHECK(hot_power[t * 7 + k] == power[t * gpus + g]);
    }
  }

  const auto check = runProgram("tests/hdf5/check_result.py " + out);
  INFO(check.out << check.err);
  CHECK(check.exit_code == 0);
}

TEST_CASE("An aggregated run holds the full run's numbers and resumes bit for bit",
          "[integration][output_detail][resume]") {
  const std::string dir = scratch("detail-resume");
  const std::string full = dir + "/full.h5", ref = dir + "/reference.h5", out = dir + "/resumed.h5";
  const std::string scenario = "scenarios/cluster-64-racks.yaml --duration 1200";
  // One row keeps its GPUs: the kept columns are the full run's.
  const std::string options = " --per-gpu row3 --compression 4";
  REQUIRE(runProgram(kCli + " run " + scenario + " -q -o " + full).exit_code == 0);
  const auto reference = runProgram(kCli + " run " + scenario + options + " -q -o " + ref);
  INFO(reference.err);
  REQUIRE(reference.exit_code == 0);
  const std::vector<std::string> kept = rc::readResultStrings(ref, "/gpu/ids");
  const std::vector<std::string> all = rc::readResultStrings(full, "/gpu/ids");
  REQUIRE(kept.size() == 8 * 72);
  const auto first = std::find(all.begin(), all.end(), kept.front()) - all.begin();
  CHECK(std::equal(kept.begin(), kept.end(), all.begin() + first));
  std::vector<unsigned long long> full_shape, kept_shape;
  const std::vector<double> full_t = rc::readResultDataset(full, "/gpu/T_junction", &full_shape);
  const std::vector<double> kept_t = rc::readResultDataset(ref, "/gpu/T_junction", &kept_shape);
  REQUIRE(full_shape[0] == kept_shape[0]);
  for (std::size_t t = 0; t < full_shape[0]; ++t) {
    for (std::size_t j = 0; j < kept.size(); ++j) {
      REQUIRE(kept_t[t * kept.size() + j]
              == full_t[t * full_shape[1] + static_cast<std::size_t>(first) + j]);
    }
  }
  // The rack datasets are the same numbers whatever the level of detail.
  CHECK(rc::readResultDataset(full, "/rack/P_ac") == rc::readResultDataset(ref, "/rack/P_ac"));

  const auto killed =
      runProgram("RACKTWIN_TEST_SIGNAL=KILL RACKTWIN_TEST_SIGNAL_AT_S=725 " + kCli + " run "
                 + scenario + options + " --save-state-interval 600 -q -o " + out);
  CHECK(killed.exit_code == 128 + 9);
  // The options are the run's: they cannot be changed on resume.
  const auto changed = runProgram(kCli + " run --resume " + out + " --per-gpu all -q");
  CHECK(changed.exit_code == 2);
  const auto resumed = runProgram(kCli + " run --resume " + out + " -q");
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  const auto same = runProgram("h5diff --exclude-path /resume " + ref + " " + out);
  INFO(same.out << same.err);
  CHECK(same.exit_code == 0);
}
