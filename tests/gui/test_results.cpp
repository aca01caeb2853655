// Results: the current run saved as HDF5 holds what the window recorded, and opening it replays
// the same values under the same entity names.
#include <QTest>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "GuiTestApp.hpp"
#include "MainWindow.hpp"
#include "racktwin/core/Hdf5Result.hpp"

using namespace racktwin::gui;

TEST_CASE("A live run saved as HDF5 replays with the same values", "[gui]") {
  test::ensureApplication();
  const std::string path = test::outputPath("saved-run.h5").toStdString();
  std::filesystem::remove(path);

  MainWindow live;
  REQUIRE(live.openScenario(test::sourcePath("scenarios/nvl72-rack.yaml")));
  REQUIRE(live.runTo(60.0));
  QString error;
  REQUIRE(live.saveResult(QString::fromStdString(path), &error));
  INFO(error.toStdString());
  const ResultStore& recorded = live.store();

  // Read back by the core reader, independently of the window: the same samples and values.
  std::vector<unsigned long long> shape;
  const std::vector<double> times = racktwin::core::readResultDataset(path, "/time", &shape);
  REQUIRE(times.size() == recorded.samples());
  CHECK(times.back() == Approx(60.0));
  const std::vector<double> rack_P = racktwin::core::readResultDataset(path, "/rack/P_ac", &shape);
  const auto channel = recorded.find("rack", "P_ac");
  REQUIRE(channel);
  REQUIRE(rack_P.size() == recorded.samples());
  for (std::size_t s = 0; s < recorded.samples(); ++s)
    CHECK(rack_P[s] == recorded.value(s, *channel, 0));
  const racktwin::core::ResultFileInfo info = racktwin::core::readResultInfo(path);
  CHECK(info.attributes.at("complete") == "0");  // the scenario runs an hour: not finished

  // Replay: entity names come back (from the stored scenario path), values match by name.
  MainWindow replay;
  REQUIRE(replay.openResult(QString::fromStdString(path), &error));
  CHECK_FALSE(replay.isLive());
  REQUIRE(replay.store().samples() == recorded.samples());
  const std::string gpu = "row1/rack01/tray05/gpu3";
  const auto live_T = recorded.find("gpu", "T_junction");
  const auto replay_T = replay.store().find("gpu", "T_junction");
  REQUIRE(live_T);
  REQUIRE(replay_T);
  const std::size_t live_column = recorded.channels()[*live_T].column_of.at(gpu);
  const std::size_t replay_column = replay.store().channels()[*replay_T].column_of.at(gpu);
  for (std::size_t s = 0; s < recorded.samples(); s += 7)
    CHECK(replay.store().value(s, *replay_T, replay_column)
          == recorded.value(s, *live_T, live_column));
  // The tree and the rack aggregate work on the replay too.
  CHECK(replay.selectEntity("row1/rack01"));
  const double live_max = live.quantities()->value("row1/rack01", EntityKind::Rack,
                                                   Quantity::GpuJunctionTemperature, 30);
  const double replay_max = replay.quantities()->value("row1/rack01", EntityKind::Rack,
                                                       Quantity::GpuJunctionTemperature, 30);
  CHECK(replay_max == live_max);
  // The timeline moves through the file.
  replay.setViewTime(30.0);
  CHECK(replay.viewTime() == Approx(30.0));
}

TEST_CASE("Opening a file that is not a result reports it and keeps the window usable", "[gui]") {
  test::ensureApplication();
  MainWindow window;
  QString error;
  CHECK_FALSE(window.openResult(test::sourcePath("scenarios/nvl72-rack.yaml"), &error));
  CHECK_FALSE(error.isEmpty());
  CHECK_FALSE(window.openScenario(test::sourcePath("scenarios/no-such-file.yaml"), &error));
  CHECK(error.contains("no-such-file"));
  REQUIRE(window.openScenario(test::sourcePath("scenarios/nvl72-rack.yaml"), &error));
  CHECK(window.runTo(5.0));
}

TEST_CASE("A result whose scenario file is gone replays with the scenario it stores", "[gui]") {
  // The run's scenario is a copy (data_dir made absolute) deleted after the run: the replay
  // still has the scenario's tree (chips included) and names every column by the file's ids.
  test::ensureApplication();
  const std::filesystem::path dir = test::outputPath("gone-scenario").toStdString();
  std::filesystem::create_directories(dir);
  const std::filesystem::path scenario = dir / "copy.yaml";
  const std::filesystem::path result = dir / "run.h5";
  {
    std::ifstream in(test::sourcePath("scenarios/nvl72-rack.yaml").toStdString());
    std::ofstream out(scenario);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("data_dir:", 0) == 0)
        line = "data_dir: " + test::sourcePath("data").toStdString();
      out << line << '\n';
    }
  }
  QString error;
  {
    MainWindow live;
    REQUIRE(live.openScenario(QString::fromStdString(scenario.string())));
    REQUIRE(live.runTo(20.0));
    REQUIRE(live.saveResult(QString::fromStdString(result.string()), &error));
  }
  std::filesystem::remove(scenario);

  MainWindow replay;
  REQUIRE(replay.openResult(QString::fromStdString(result.string()), &error));
  INFO(error.toStdString());
  CHECK(replay.selectEntity("row1/rack01/tray05/gpu3"));  // the scenario's tree, down to chips
  const auto T = replay.store().find("gpu", "T_junction");
  REQUIRE(T);
  CHECK(replay.store().channels()[*T].column_of.count("row1/rack01/tray05/gpu3") == 1);
  CHECK(replay.store().metadata().scenario_text.find("data_dir:") != std::string::npos);
}

TEST_CASE("A result of per-rack aggregates shows a rack's hottest GPU, named", "[gui]") {
  // Above 10,000 GPUs a result keeps per-rack aggregates: the rack's chart and details were
  // empty and its hottest GPU showed as an index ("68.00"). The same run recorded both ways:
  // the aggregate replay shows the hottest of the GPUs the full one holds, and names it.
  test::ensureApplication();
  const std::string aggregates = test::outputPath("aggregates.h5").toStdString();
  const std::string full = test::outputPath("every-gpu.h5").toStdString();
  for (const auto& [path, per_gpu] : {std::pair{aggregates, "none"}, std::pair{full, "all"}}) {
    const std::string command = std::string(RACKTWIN_CLI) + " run "
                                + test::sourcePath("scenarios/nvl72-rack.yaml").toStdString()
                                + " --duration 120 -q --save-state-wall-interval 0 --per-gpu "
                                + per_gpu + " -o " + path;
    REQUIRE(std::system(command.c_str()) == 0);
  }
  std::vector<unsigned long long> shape;
  const std::vector<double> T = racktwin::core::readResultDataset(full, "/gpu/T_junction", &shape);
  const std::vector<std::string> ids = racktwin::core::readResultStrings(full, "/gpu/ids");
  REQUIRE(shape.size() == 2);
  REQUIRE(ids.size() == shape[1]);
  const std::size_t sample = shape[0] - 1;  // the last record, t = 120 s
  double hottest = -1.0;
  std::string hottest_id;
  for (std::size_t g = 0; g < ids.size(); ++g) {
    if (ids[g].rfind("row1/rack01/", 0) != 0) continue;
    const double value = T[sample * shape[1] + g];
    if (value > hottest) {  // the first on a tie, as the aggregates
      hottest = value;
      hottest_id = ids[g];
    }
  }
  REQUIRE_FALSE(hottest_id.empty());

  MainWindow replay;
  QString error;
  REQUIRE(replay.openResult(QString::fromStdString(aggregates), &error));
  REQUIRE_FALSE(replay.store().find("gpu", "T_junction"));  // aggregates only
  REQUIRE(replay.store().samples() == shape[0]);
  CHECK(replay.quantities()->value("row1/rack01", EntityKind::Rack,
                                   Quantity::GpuJunctionTemperature, sample)
        == hottest);
  REQUIRE(replay.selectEntity("row1/rack01"));
  replay.setViewTime(120.0);
  const std::string details = replay.detailsText().toStdString();
  INFO(details);
  CHECK(details.find(hottest_id) != std::string::npos);
}
