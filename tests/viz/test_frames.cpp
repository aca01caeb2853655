// Frames from a result file and from a running twin, checked against the HDF5 datasets.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "RunProgram.hpp"
#include "VizTestData.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"
#include "racktwin/viz/LiveFrames.hpp"
#include "racktwin/viz/ResultFrames.hpp"
#include "racktwin/viz/Scene.hpp"

using namespace racktwin;
using Catch::Matchers::WithinRel;

TEST_CASE("result frames hold the file's values per rack and CDU", "[viz]") {
  const std::string& path = test::clusterResult();
  const viz::ResultFrames frames(path);
  REQUIRE(frames.geometryFromScenario());
  const viz::SiteGeometry& g = frames.geometry();
  REQUIRE(g.rackCount() == 64);

  std::vector<unsigned long long> gpu_shape, tray_shape, rack_shape, cdu_shape;
  const auto time = core::readResultDataset(path, "/time");
  const auto gpu_T = core::readResultDataset(path, "/gpu/T_junction", &gpu_shape);
  const auto rack_P = core::readResultDataset(path, "/rack/P_ac", &rack_shape);
  const auto rack_V = core::readResultDataset(path, "/rack/V_flow");
  const auto tray_T = core::readResultDataset(path, "/tray/T_outlet", &tray_shape);
  const auto tray_V = core::readResultDataset(path, "/tray/V_flow");
  const auto cdu_T = core::readResultDataset(path, "/cdu/T_supply", &cdu_shape);
  // Which rack each column belongs to, by the ids the file stores (not the library's mapping).
  const auto rack_ids = test::readStrings(path, "/rack/ids");
  const auto cdu_ids = test::readStrings(path, "/cdu/ids");
  const auto gpu_ids = test::readStrings(path, "/gpu/ids");
  const auto tray_ids = test::readStrings(path, "/tray/ids");
  const auto owner = [&rack_ids](const std::string& id) {
    for (std::size_t r = 0; r < rack_ids.size(); ++r) {
      if (id.starts_with(rack_ids[r] + "/")) return r;
    }
    return rack_ids.size();
  };
  REQUIRE(frames.size() == time.size());
  REQUIRE(time.size() == 7);  // 60 s at 10 s
  for (std::size_t r = 0; r < 64; ++r)
    CHECK(g.racks()[r].id == rack_ids[r]);
  for (std::size_t c = 0; c < 8; ++c)
    CHECK(g.cdus()[c].id == cdu_ids[c]);

  const std::size_t R = rack_ids.size(), G = gpu_ids.size(), T = tray_ids.size();
  for (std::size_t s = 0; s < time.size(); s += 3) {
    const viz::Frame f = frames.frame(s);
    CHECK(f.time == time[s]);
    std::vector<double> hottest(R, -1.0), vt(R, 0.0), v(R, 0.0), t_lo(R, 1e9), t_hi(R, -1e9);
    for (std::size_t j = 0; j < G; ++j) {
      const std::size_t r = owner(gpu_ids[j]);
      REQUIRE(r < R);
      hottest[r] = std::max(hottest[r], gpu_T[s * G + j]);
    }
    for (std::size_t j = 0; j < T; ++j) {
      const std::size_t r = owner(tray_ids[j]);
      REQUIRE(r < R);
      vt[r] += tray_V[s * T + j] * tray_T[s * T + j];
      v[r] += tray_V[s * T + j];
      t_lo[r] = std::min(t_lo[r], tray_T[s * T + j]);
      t_hi[r] = std::max(t_hi[r], tray_T[s * T + j]);
    }
    for (std::size_t r = 0; r < R; ++r) {
      CHECK(f.value(viz::Quantity::GpuJunctionTemperature, r) == hottest[r]);
      CHECK(f.value(viz::Quantity::RackPower, r) == rack_P[s * R + r]);
      CHECK(f.value(viz::Quantity::CoolantFlow, r) == rack_V[s * R + r]);
      // Rack outlet: the trays mixed by flow (energy balance of the return manifold's mixing),
      // so it lies between the coolest and the hottest tray.
      const double outlet = f.value(viz::Quantity::CoolantTemperature, r);
      CHECK_THAT(outlet, WithinRel(vt[r] / v[r], 1e-12));
      CHECK(outlet >= t_lo[r] - 1e-9);
      CHECK(outlet <= t_hi[r] + 1e-9);
    }
    for (std::size_t c = 0; c < 8; ++c) {
      CHECK(f.value(viz::Quantity::CoolantTemperature, g.cduEntity(c)) == cdu_T[s * 8 + c]);
      CHECK(std::isnan(f.value(viz::Quantity::RackPower, g.cduEntity(c))));
    }
    // A rack's supply hose carries its CDU's supply temperature and its own flow.
    for (std::size_t p = 0; p < g.pipeCount(); ++p) {
      const viz::PipePlacement& pipe = g.pipes()[p];
      if (!pipe.id.ends_with("/supply") || pipe.racks.size() != 1) continue;
      const std::size_t r = pipe.racks[0];
      const auto c = static_cast<std::size_t>(g.racks()[r].cdu);
      CHECK(f.value(viz::Quantity::CoolantTemperature, g.pipeEntity(p)) == cdu_T[s * 8 + c]);
      CHECK(f.value(viz::Quantity::CoolantFlow, g.pipeEntity(p)) == rack_V[s * R + r]);
    }
  }
  const auto [lo, hi] = frames.range(viz::Quantity::RackPower);
  CHECK(lo == *std::min_element(rack_P.begin(), rack_P.end()));
  CHECK(hi == *std::max_element(rack_P.begin(), rack_P.end()));
  CHECK(frames.indexAt(-5.0) == 0);
  CHECK(frames.indexAt(24.0) == 2);
  CHECK(frames.indexAt(26.0) == 3);
  CHECK(frames.indexAt(1e9) == 6);
}

namespace {

/// A copy of the cluster result at `copy` whose scenario_path names a file that does not exist.
std::string copyWithScenarioGone(const std::string& copy) {
  std::filesystem::copy_file(test::clusterResult(), copy,
                             std::filesystem::copy_options::overwrite_existing);
  test::setRootAttribute(copy, "scenario_path", "gone/cluster.yaml");
  return copy;
}

}  // namespace

TEST_CASE("a result whose scenario file is gone draws the scenario it stores", "[viz]") {
  const std::string dir = test::scratchDirectory("viz-moved");
  const std::string copy = copyWithScenarioGone(dir + "/moved.h5");
  const viz::ResultFrames frames(copy), original(test::clusterResult());
  CHECK(frames.geometryFromScenario());
  CHECK(frames.scenarioProblem().empty());
  const viz::SiteGeometry& g = frames.geometry();
  REQUIRE(g.rackCount() == original.geometry().rackCount());
  CHECK(g.cduCount() == original.geometry().cduCount());
  CHECK(g.pipeCount() == original.geometry().pipeCount());
  CHECK(g.pipeCount() > 0);
  const viz::Frame a = frames.frame(6), b = original.frame(6);
  REQUIRE(a.values.size() == b.values.size());
  std::size_t different = 0;  // NaN marks what a quantity does not cover: equal when both are
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    const bool both_nan = std::isnan(a.values[i]) && std::isnan(b.values[i]);
    different += both_nan || a.values[i] == b.values[i] ? 0 : 1;
  }
  CHECK(different == 0);
  // A result that names no scenario file at all still has the text it stores.
  test::setRootAttribute(copy, "scenario_path", "");
  const viz::ResultFrames unnamed(copy);
  CHECK(unnamed.geometryFromScenario());
  CHECK(unnamed.geometry().pipeCount() == original.geometry().pipeCount());
}

TEST_CASE("without a scenario a result shows its racks by their ids with their values", "[viz]") {
  // Scenario file gone and no stored text (a file from before the text was stored).
  const std::string dir = test::scratchDirectory("viz-no-scenario");
  const std::string copy = copyWithScenarioGone(dir + "/bare.h5");
  test::removeDataset(copy, "/scenario/text");
  const viz::ResultFrames frames(copy);
  CHECK_FALSE(frames.geometryFromScenario());
  CHECK(frames.scenarioProblem().find("gone/cluster.yaml") != std::string::npos);
  CHECK(frames.scenarioProblem().find("no scenario text") != std::string::npos);
  const viz::SiteGeometry& g = frames.geometry();
  REQUIRE(g.rackCount() == 64);
  CHECK(g.cduCount() == 8);
  CHECK(g.pipeCount() == 0);
  const auto rack_ids = test::readStrings(copy, "/rack/ids");
  const auto cdu_ids = test::readStrings(copy, "/cdu/ids");
  for (std::size_t r = 0; r < 64; ++r)
    CHECK(g.racks()[r].id == rack_ids[r]);
  for (std::size_t c = 0; c < 8; ++c)
    CHECK(g.cdus()[c].id == cdu_ids[c]);
  const viz::ResultFrames original(test::clusterResult());
  const viz::Frame a = frames.frame(6), b = original.frame(6);
  for (std::size_t r = 0; r < 64; ++r) {  // GPUs and trays to racks by their ids
    CHECK(a.value(viz::Quantity::GpuJunctionTemperature, r)
          == b.value(viz::Quantity::GpuJunctionTemperature, r));
    CHECK(a.value(viz::Quantity::CoolantTemperature, r)
          == b.value(viz::Quantity::CoolantTemperature, r));
  }
  const auto run =
      test::runProgram(std::string(RACKTWIN_CLI) + " export-vtk '" + copy + "' '" + dir + "/out'");
  CHECK(run.exit_code == 0);
  CHECK(run.err.find("warning") != std::string::npos);
}

TEST_CASE("a result's scenario_path does not make the program read files elsewhere", "[viz]") {
  // A valid scenario outside the result's folder, the working directory and the source tree,
  // named by a result that stores no text: a result from elsewhere may name any file, so that
  // one is not read and the frames fall back to the ids the result stores.
  const std::filesystem::path outside =
      std::filesystem::temp_directory_path() / ("racktwin-viz-outside-" + std::to_string(getpid()));
  std::filesystem::create_directories(outside);
  std::ifstream in(std::string(RACKTWIN_SOURCE_DIR) + "/scenarios/cluster-64-racks.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("data_dir: ../data"), 17,
               "data_dir: " + std::string(RACKTWIN_SOURCE_DIR) + "/data");
  const std::string scenario = (outside / "cluster.yaml").string();
  std::ofstream(scenario, std::ios::binary) << text;
  REQUIRE_NOTHROW(scenarios::loadScenario(scenario));  // the file itself is good

  const std::string dir = test::scratchDirectory("viz-outside");
  const std::string copy = copyWithScenarioGone(dir + "/outside.h5");
  test::removeDataset(copy, "/scenario/text");
  test::setRootAttribute(copy, "scenario_path", scenario);
  const viz::ResultFrames frames(copy);
  CHECK_FALSE(frames.geometryFromScenario());
  CHECK(frames.scenarioProblem().find("lies outside") != std::string::npos);
  CHECK(frames.geometry().pipeCount() == 0);
  std::filesystem::remove_all(outside);
}

TEST_CASE("a missing or foreign result file is an input error naming the file", "[viz]") {
  const std::string dir = test::scratchDirectory("viz-bad-files");
  const std::string missing = dir + "/missing.h5";
  const std::string text = dir + "/text.h5";
  const std::string foreign = dir + "/foreign.h5";
  std::ofstream(text) << "not an HDF5 file\n";
  test::writeForeignHdf5(foreign);
  for (const std::string& path : {missing, text, foreign}) {
    try {
      viz::ResultFrames frames(path);
      FAIL("expected InputError for " << path);
    } catch (const core::InputError& e) {
      CHECK(std::string(e.what()).find(path) != std::string::npos);
    }
  }
  const auto run = test::runProgram(std::string(RACKTWIN_CLI) + " export-vtk '" + foreign + "' '"
                                    + dir + "/out'");
  CHECK(run.exit_code == 2);
  CHECK(run.err.find(foreign) != std::string::npos);
  CHECK(run.err.find("not a RackTwin result") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir + "/out/foreign.pvd"));
}

TEST_CASE("live frames follow a running twin", "[viz]") {
  core::SiteSpec site = scenarios::loadScenario(RACKTWIN_SOURCE_DIR "/scenarios/nvl72-rack.yaml");
  site.simulation.duration = 20.0;
  scenarios::Twin twin(site);
  const viz::SiteGeometry g = viz::SiteGeometry::build(twin.site());
  viz::LiveFrames live(g, twin.layout());
  twin.addSink(live);
  twin.initialize();
  CHECK(live.version() == 1);  // the first sample at t = 0
  while (twin.step()) {
  }
  const std::uint64_t samples = live.version();
  CHECK(samples >= 2);
  const viz::Frame& f = live.latest();
  CHECK(std::isfinite(f.value(viz::Quantity::CoolantTemperature, 0)));
  CHECK(f.value(viz::Quantity::CoolantFlow, 0) > 0.0);
  live.refresh(twin.state());
  CHECK(live.version() == samples + 1);
  const auto& T = twin.state().gpu_T_junction;
  CHECK(live.latest().value(viz::Quantity::GpuJunctionTemperature, 0)
        == *std::max_element(T.begin(), T.end()));
  CHECK(live.latest().value(viz::Quantity::RackPower, 0) == twin.state().rack_P_ac[0]);
  twin.finish(true);
}

// The time of a colour update is measured by bench/bench_viz, not here.
TEST_CASE("a colour update of the 64-rack scene follows the frame's range, or a fixed one",
          "[viz]") {
  const viz::ResultFrames frames(test::clusterResult());
  viz::Scene scene(frames.geometry());  // no render window: needs no display
  scene.setQuantity(viz::Quantity::CoolantTemperature);
  viz::Frame f(frames.geometry());
  frames.frame(frames.size() - 1, f);
  scene.update(f);  // auto range by default
  const auto [lo, hi] = f.range(viz::Quantity::CoolantTemperature);
  CHECK(scene.colorMap().min() == lo);
  CHECK(scene.colorMap().max() == hi);
  scene.setRange(300.0, 320.0);
  scene.update(f);
  CHECK_FALSE(scene.autoRange());
  CHECK(scene.colorMap().max() == 320.0);
  scene.highlightRack(5);
  CHECK(scene.highlightedRack() == 5);
  scene.highlightRack(64);
  CHECK(scene.highlightedRack() == -1);
}

TEST_CASE("a result with aggregates only colours racks by their hottest GPU as a full one",
          "[viz]") {
  // The same 60 s run with every GPU, and with the GPUs of row 2 only plus the per-rack
  // aggregates: the same hottest GPU per rack, rack powers and flows; the outlet temperature is
  // the trays' plain mean, which the notes say.
  const std::string& full_path = test::clusterResult();
  const std::string dir = test::scratchDirectory("viz-aggregated-" + std::to_string(getpid()));
  const std::string path = dir + "/aggregated.h5";
  const test::ProgramResult run =
      test::runProgram(std::string(RACKTWIN_CLI) + " run scenarios/cluster-64-racks.yaml "
                       "--duration 60 -q --per-gpu row2 --aggregates rack -o " + path);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const viz::ResultFrames full(full_path), reduced(path);
  REQUIRE(reduced.geometryFromScenario());
  REQUIRE(full.notes().empty());
  REQUIRE(reduced.notes().size() == 2);
  CHECK_THAT(reduced.notes()[0], Catch::Contains("/gpu_by_rack/T_junction.max"));
  CHECK_THAT(reduced.notes()[1], Catch::Contains("plain mean"));
  REQUIRE(reduced.size() == full.size());
  const auto tray_T = core::readResultDataset(full_path, "/tray/T_outlet");
  for (std::size_t s = 0; s < full.size(); ++s) {
    const viz::Frame a = full.frame(s), b = reduced.frame(s);
    for (std::size_t r = 0; r < 64; ++r) {
      CHECK(b.value(viz::Quantity::GpuJunctionTemperature, r)
            == a.value(viz::Quantity::GpuJunctionTemperature, r));
      CHECK(b.value(viz::Quantity::RackPower, r) == a.value(viz::Quantity::RackPower, r));
      CHECK(b.value(viz::Quantity::CoolantFlow, r) == a.value(viz::Quantity::CoolantFlow, r));
      // The plain mean of the rack's 27 trays, from the full file's tray columns.
      double sum = 0.0;
      for (std::size_t k = 0; k < 27; ++k)
        sum += tray_T[s * 64 * 27 + r * 27 + k];
      CHECK_THAT(b.value(viz::Quantity::CoolantTemperature, r), WithinRel(sum / 27.0, 1e-13));
    }
  }
}
