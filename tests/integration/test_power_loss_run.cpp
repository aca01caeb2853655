// The 64-rack cluster whose generators fail to start, end to end: when the UPS batteries run
// down every GPU loses power, and the training job on them fails instead of training on.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>

#include "RunProgram.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

using namespace racktwin;

TEST_CASE("Training stops when its GPUs lose power and restarts after the utility returns",
          "[integration]") {
  const std::string scenario = "scenarios/faults/generator-fails-to-start.yaml";
  const std::string dir = test::scratchDirectory("power-loss-" + std::to_string(getpid()));
  const std::string result = dir + "/p.h5";
  const auto run = test::runProgram(std::string(RACKTWIN_CLI) + " run " + scenario + " -q -o "
                                    + result + " --summary-json " + dir + "/p.json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto s = nlohmann::json::parse(test::readFile(dir + "/p.json"));
  const core::SiteSpec site = scenarios::loadScenario(scenario);
  REQUIRE(site.jobs.size() == 1);
  const core::TrainingJobSpec& job = site.jobs[0];
  const double period = job.compute_duration + job.communication_duration;
  // The fault as the scenario describes it: every GPU goes dark for a while.
  REQUIRE(s.at("gpus_unpowered_max").get<double>() == 4608.0);
  CHECK(s.at("training_failures").get<double>() >= 1.0);

  // When the outage ends, from the recorded site/gpus_unpowered: after the last dark sample and
  // by the first lit one after it.
  const auto t = core::readResultDataset(result, "/time", nullptr);
  const auto off = core::readResultDataset(result, "/site/gpus_unpowered", nullptr);
  REQUIRE(off.size() == t.size());
  std::size_t last_dark = off.size();
  for (std::size_t k = 0; k < off.size(); ++k)
    if (off[k] > 0.0) last_dark = k;
  REQUIRE(last_dark + 1 < off.size());  // power returns before the end
  const double end = job.start + job.duration;
  // The job's one checkpoint would fall at its end (interval = duration), so the failure loses
  // every iteration done before it: what counts is trained after power returns, at most
  // (end - last dark sample) / period, at least (end - first lit sample - restart) / period - 1.
  REQUIRE(job.checkpoint_interval >= job.duration);
  const double iterations = s.at("training_iterations").get<double>();
  CHECK(iterations <= std::floor((end - t[last_dark]) / period));
  CHECK(iterations >= std::floor((end - t[last_dark + 1] - job.restart_duration) / period) - 1.0);
  // Fewer than the job would do with power throughout: duration / period.
  CHECK(iterations < std::floor(job.duration / period));

  // The UPS batteries carried the site while neither utility nor generator could: the energy
  // they gave up is facility energy, so PUE stays above 1 (from the tree's input alone it was
  // 0.50). Facility energy = tree input - change of stored energy + cooling.
  const double stored = s.at("electrical_storage_energy_change_J").get<double>();
  CHECK(stored < 0.0);
  const double facility = s.at("facility_electrical_energy_J").get<double>() - stored
                          + s.at("cooling_energy_J").get<double>();
  CHECK(s.at("facility_energy_J").get<double>() == Approx(facility).epsilon(1e-12));
  CHECK(s.at("pue").get<double>() > 1.0);
  CHECK(s.at("pue").get<double>()
        == Approx(facility / s.at("it_energy_J").get<double>()).epsilon(1e-12));
}
