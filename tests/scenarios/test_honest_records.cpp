// Honest records: a record of a rate is the mean over its record interval, a temperature keeps its
// sample and adds the interval's maximum. Checked on the training-swing rack (a 5 s iteration
// period: 3.5 s compute, 1.5 s communication) recorded every 10 s, where instantaneous samples
// strobe one phase of the iteration, against the run's own energy totals and against the same run
// recorded every second.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"

namespace fs = std::filesystem;
namespace core = racktwin::core;
using racktwin::scenarios::loadScenario;
using racktwin::scenarios::Twin;
using racktwin::test::sourcePath;

namespace {

struct Recorded {
  std::string file;
  double it_energy_J = 0.0;
};

/// Runs scenarios/training-swing.yaml for `duration` s recording every `interval` s into `name`.
Recorded runSwing(const std::string& name, double duration, double interval) {
  core::SiteSpec site = loadScenario(sourcePath("scenarios/training-swing.yaml"));
  site.simulation.duration = duration;
  site.simulation.record_interval = interval;
  const fs::path dir = fs::temp_directory_path() / "racktwin-honest-records";
  fs::create_directories(dir);
  Recorded out;
  out.file = (dir / name).string();
  Twin twin(std::move(site));
  const auto sink = core::makeHdf5Sink(out.file);
  twin.addSink(*sink);
  twin.initialize();
  while (twin.step()) {
  }
  const core::Summary summary = twin.finish(true);
  out.it_energy_J = summary.value("it_energy_J").value_or(-1.0);
  return out;
}

/// Sum over records k >= 1 of value_k * (t_k - t_(k-1)) of a scalar dataset: its integral when
/// the record at t_k is the mean over (t_(k-1), t_k].
double integral(const std::string& file, const std::string& dataset) {
  const std::vector<double> t = core::readResultDataset(file, "/time");
  std::vector<unsigned long long> shape;
  const std::vector<double> v = core::readResultDataset(file, dataset, &shape);
  const std::size_t columns = shape.size() == 2 ? shape[1] : 1;
  double sum = 0.0;
  for (std::size_t k = 1; k < t.size(); ++k) {
    for (std::size_t c = 0; c < columns; ++c)
      sum += v[k * columns + c] * (t[k] - t[k - 1]);
  }
  return sum;
}

}  // namespace

TEST_CASE("10 s records of a 5 s training iteration integrate to the summary's IT energy",
          "[scenarios][records]") {
  // 125 s: twelve full intervals and a last one of 5 s, recorded at the end.
  const Recorded run = runSwing("swing-10s.h5", 125.0, 10.0);
  REQUIRE(run.it_energy_J > 0.0);
  const std::vector<double> t = core::readResultDataset(run.file, "/time");
  REQUIRE(t.size() == 14);
  CHECK(t.front() == 0.0);
  CHECK(t[12] == Approx(120.0).epsilon(1e-12));
  CHECK(t.back() == Approx(125.0).epsilon(1e-12));
  // The summary's IT energy is the sub-steps' AC power times their length (ElectricalModel).
  CHECK(integral(run.file, "/site/P_it") == Approx(run.it_energy_J).epsilon(1e-9));
  CHECK(integral(run.file, "/site/P_it_mean") == Approx(run.it_energy_J).epsilon(1e-9));
  CHECK(integral(run.file, "/rack/P_ac") == Approx(run.it_energy_J).epsilon(1e-9));
  CHECK(integral(run.file, "/rack/P_ac_mean") == Approx(run.it_energy_J).epsilon(1e-9));

  const core::ResultFileInfo info = core::readResultInfo(run.file);
  const auto aggregation = [&](const std::string& path) {
    for (const core::DatasetInfo& d : info.datasets)
      if (d.path == path) return d.aggregation;
    return std::string("<absent>");
  };
  CHECK(aggregation("/site/P_it") == "mean");
  CHECK(aggregation("/gpu/P") == "mean");
  CHECK(aggregation("/cdu/Q_flow") == "mean");
  CHECK(aggregation("/gpu/T_junction") == "sample");
  CHECK(aggregation("/gpu/T_junction_max") == "max");
  CHECK(aggregation("/job/iterations") == "sample");
  CHECK(aggregation("/gpu/ids").empty());
  // Every float dataset but /time and the run's tables (/limits, /headroom: one row per design
  // limit or group) says how it was aggregated.
  for (const core::DatasetInfo& d : info.datasets) {
    if (d.type != "float64" || d.path == "/time") continue;
    if (d.path.rfind("/limits/", 0) == 0 || d.path.rfind("/headroom/", 0) == 0) continue;
    INFO(d.path);
    CHECK((d.aggregation == "mean" || d.aggregation == "sample" || d.aggregation == "max"));
  }
}

TEST_CASE("A 10 s record is the mean (and the max) of the ten 1 s records of the same run",
          "[scenarios][records]") {
  const Recorded fine = runSwing("swing-1s.h5", 60.0, 1.0);
  const Recorded coarse = runSwing("swing-10s-60.h5", 60.0, 10.0);
  CHECK(coarse.it_energy_J == fine.it_energy_J);  // recording does not change the run

  const std::vector<double> t_fine = core::readResultDataset(fine.file, "/time");
  const std::vector<double> t_coarse = core::readResultDataset(coarse.file, "/time");
  REQUIRE(t_fine.size() == 61);
  REQUIRE(t_coarse.size() == 7);
  for (std::size_t k = 0; k < t_coarse.size(); ++k)
    CHECK(t_coarse[k] == t_fine[10 * k]);

  const core::ResultFileInfo info = core::readResultInfo(coarse.file);
  std::size_t means = 0, maxima = 0, samples = 0;
  for (const core::DatasetInfo& d : info.datasets) {
    if (d.type != "float64" || d.path == "/time") continue;
    if (d.path.rfind("/limits/", 0) == 0 || d.path.rfind("/headroom/", 0) == 0) continue;
    INFO(d.path << " (" << d.aggregation << ")");
    std::vector<unsigned long long> shape;
    const std::vector<double> c = core::readResultDataset(coarse.file, d.path, &shape);
    const std::size_t columns = shape.size() == 2 ? shape[1] : 1;
    // A max is compared with the 1 s samples of its sibling (one step per 1 s record).
    const std::string source =
        d.aggregation == "max" ? d.path.substr(0, d.path.size() - 4) : d.path;
    const std::vector<double> f = core::readResultDataset(fine.file, source);
    REQUIRE(f.size() == 61 * columns);
    double scale = 0.0;
    for (const double value : f)
      scale = std::max(scale, std::abs(value));
    const double tolerance = 1e-12 * std::max(scale, 1e-300);
    std::size_t wrong = 0;
    for (std::size_t col = 0; col < columns; ++col) {
      CHECK(c[col] == f[col]);  // t = 0: the initial state
      for (std::size_t k = 1; k < t_coarse.size(); ++k) {
        double mean = 0.0, max = -INFINITY;
        for (std::size_t j = 10 * k - 9; j <= 10 * k; ++j) {
          mean += f[j * columns + col] / 10.0;
          max = std::max(max, f[j * columns + col]);
        }
        const double expected = d.aggregation == "mean"  ? mean
                                : d.aggregation == "max" ? max
                                                         : f[10 * k * columns + col];
        if (!(std::abs(c[k * columns + col] - expected) <= tolerance)) ++wrong;
      }
    }
    CHECK(wrong == 0);
    means += d.aggregation == "mean" ? 1 : 0;
    maxima += d.aggregation == "max" ? 1 : 0;
    samples += d.aggregation == "sample" ? 1 : 0;
  }
  // The property covers every kind (a check over nothing would prove nothing).
  CHECK(means >= 10);
  CHECK(maxima >= 5);
  CHECK(samples >= 5);

  // A maximum is at least the sample at the record time, and above it somewhere in this run's
  // warm-up (the junctions swing with the 5 s iteration).
  const std::vector<double> T = core::readResultDataset(coarse.file, "/gpu/T_junction");
  const std::vector<double> T_max = core::readResultDataset(coarse.file, "/gpu/T_junction_max");
  REQUIRE(T.size() == T_max.size());
  bool above = false;
  for (std::size_t i = 0; i < T.size(); ++i) {
    CHECK(T_max[i] >= T[i]);
    above = above || T_max[i] > T[i] + 1e-6;
  }
  CHECK(above);
}
