// GPU trace replay: nvidia-smi and DCGM dmon traces are read with located errors, mapped onto the
// site's GPUs cyclically, and replayed as a zero-order hold whose energy over every sample
// interval is exactly power x interval, whatever the sub-step.
// The expected sample values are read from the trace files here with plain string handling,
// independently of the reader under test.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "Gb300TestSite.hpp"
#include "GpuTrace.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/WorkloadExecutor.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

using namespace racktwin;
using scenarios::detail::GpuTrace;

namespace {

const std::string kData = std::string(RACKTWIN_SOURCE_DIR) + "/tests/workload/data/";
constexpr double kPidle = 200.0;  // W, the test rack's idle power (Gb300TestSite.hpp)

/// DCGM sample powers [gpu][sample], from the 'GPU i P ...' rows in file order.
std::vector<std::vector<double>> dcgmPowers(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<std::vector<double>> P;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string entity;
    std::size_t gpu = 0;
    double power = 0.0;
    if (!(row >> entity) || entity != "GPU") continue;
    row >> gpu >> power;
    if (P.size() <= gpu) P.resize(gpu + 1);
    P[gpu].push_back(power);
  }
  return P;
}

core::ReplayJobSpec replay(const GpuTrace& trace, double start, double duration,
                           std::vector<core::ComponentId> racks) {
  core::ReplayJobSpec job;
  job.id = "replay";
  job.start = start;
  job.duration = duration;
  job.racks = std::move(racks);
  job.sample_begin = trace.sample_begin;
  job.times = trace.times;
  job.power = trace.power;
  return job;
}

struct Run {
  explicit Run(core::SiteSpec s)
      : site(std::move(s)), layout(core::SiteLayout::build(site)), executor(site, layout) {
    state.resize(layout, 300.0);
    executor.initialize(state);
  }
  void step(double t, double dt) {
    state.time = t;
    executor.advance(t, dt, state);
  }
  core::SiteSpec site;
  core::SiteLayout layout;
  core::SiteState state;
  core::WorkloadExecutor executor;
};

GpuTrace dcgm() {
  std::ifstream in(kData + "dcgm-dmon-5gpu.txt");
  std::stringstream text;
  text << in.rdbuf();
  return scenarios::detail::parseDcgmTrace(text.str(), "dcgm-dmon-5gpu.txt", 0.25);
}

GpuTrace nvidiaSmi() {
  std::ifstream in(kData + "nvidia-smi-2gpu.csv");
  std::stringstream text;
  text << in.rdbuf();
  return scenarios::detail::parseNvidiaSmiTrace(text.str(), "nvidia-smi-2gpu.csv");
}

template <typename Parse>
core::InputError parseError(Parse&& parse) {
  try {
    parse();
  } catch (const core::InputError& e) {
    return e;
  }
  FAIL("no error");
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("A DCGM trace is replayed exactly at its own resolution", "[workload][replay]") {
  const std::vector<std::vector<double>> P = dcgmPowers(kData + "dcgm-dmon-5gpu.txt");
  REQUIRE(P.size() == 5);
  const double interval = 0.25;
  const std::size_t samples = P[0].size();
  core::SiteSpec site = test::gb300Site(2);
  site.replay_jobs.push_back(
      replay(dcgm(), 0.0, interval * static_cast<double>(samples),
             {core::ComponentId("row1/rack01"), core::ComponentId("row1/rack02")}));
  Run r(site);
  const std::size_t gpus = r.layout.gpu_count;
  // Sub-steps of interval / 4 (exact in binary), and two samples' worth after the job's end.
  const double dt = interval / 4.0;
  std::vector<std::vector<double>> E(gpus, std::vector<double>(samples + 2, 0.0));
  for (std::size_t i = 0; i < 4 * (samples + 2); ++i) {
    r.step(static_cast<double>(i) * dt, dt);
    for (std::size_t g = 0; g < gpus; ++g)
      E[g][i / 4] += r.state.gpu_P_demand[g] * dt;
  }
  for (std::size_t g = 0; g < gpus; ++g) {
    // Site GPU g is the g-th GPU of the job's racks: trace GPU g mod 5.
    for (std::size_t k = 0; k < samples; ++k) {
      INFO("site GPU " << g << ", sample " << k);
      CHECK(E[g][k] == Approx(P[g % 5][k] * interval).epsilon(1e-12));
    }
    CHECK(E[g][samples] == Approx(kPidle * interval).epsilon(1e-12));
  }
}

TEST_CASE("nvidia-smi replay energy is the step function's integral for any sub-step",
          "[workload][replay]") {
  // The samples of the trace file: (time since the first row, W) per GPU; the last is held.
  const std::vector<std::vector<std::pair<double, double>>> samples = {
      {{0.0, 650.12}, {0.5, 1100.0}, {1.25, 300.0}, {2.0, 210.0}},
      {{0.003, 640.50}, {0.503, 420.25}, {1.253, 1210.75}, {2.003, 205.0}}};
  const double duration = 3.0;
  const auto integral = [&](std::size_t gpu) {
    const auto& s = samples[gpu];
    double E = s[0].second * s[0].first;  // before the first sample: the first sample's power
    for (std::size_t k = 0; k < s.size(); ++k) {
      const double until = k + 1 < s.size() ? s[k + 1].first : duration;
      E += s[k].second * (until - s[k].first);
    }
    return E;
  };
  for (const double dt : {0.25, 0.1, 0.07, 1.0}) {
    core::SiteSpec site = test::gb300Site(1);
    site.replay_jobs.push_back(
        replay(nvidiaSmi(), 0.0, duration, {core::ComponentId("row1/rack01")}));
    Run r(site);
    const int n = static_cast<int>(std::ceil(duration / dt - 1e-9));
    std::vector<double> E(2, 0.0);
    std::vector<double> per_sample(3, 0.0);  // GPU 0 over its sample intervals (dt = 0.25)
    for (int i = 0; i < n; ++i) {
      const double t = i * dt;
      r.step(t, dt);
      for (std::size_t g = 0; g < 2; ++g)
        E[g] += r.state.gpu_P_demand[g] * dt;
      const double mid = t + 0.5 * dt;
      if (mid < 2.0)
        per_sample[mid < 0.5 ? 0 : (mid < 1.25 ? 1 : 2)] += r.state.gpu_P_demand[0] * dt;
    }
    const double after = n * dt - duration;  // idle tail of the last sub-step
    INFO("dt = " << dt);
    for (std::size_t g = 0; g < 2; ++g)
      CHECK(E[g] == Approx(integral(g) + kPidle * after).epsilon(1e-12));
    // Trace GPU 0 drives site GPUs 0, 2, 4, ...; GPU 1 drives 1, 3, ...
    CHECK(r.state.gpu_P_demand[70] == r.state.gpu_P_demand[0]);
    if (dt == 0.25) {
      CHECK(per_sample[0] == Approx(650.12 * 0.5).epsilon(1e-12));
      CHECK(per_sample[1] == Approx(1100.0 * 0.75).epsilon(1e-12));
      CHECK(per_sample[2] == Approx(300.0 * 0.75).epsilon(1e-12));
    }
  }
}

TEST_CASE("Replay demand: instant value, partial sub-steps, throttle cap, shared racks",
          "[workload][replay]") {
  const std::vector<std::vector<double>> P = dcgmPowers(kData + "dcgm-dmon-5gpu.txt");
  {
    // At the start instant every GPU draws its trace GPU's first sample.
    core::SiteSpec site = test::gb300Site(2);
    site.replay_jobs.push_back(replay(
        dcgm(), 0.0, 10.0, {core::ComponentId("row1/rack02"), core::ComponentId("row1/rack01")}));
    Run r(site);
    // The job lists rack02 first: its GPUs are trace GPUs 0, 1, ...; rack01 continues at 72.
    CHECK(r.state.gpu_P_demand[72] == Approx(P[0][0]));
    CHECK(r.state.gpu_P_demand[73] == Approx(P[1][0]));
    CHECK(r.state.gpu_P_demand[0] == Approx(P[72 % 5][0]));
    CHECK(r.state.gpu_P_demand[1] == Approx(P[73 % 5][0]));
  }
  {
    // A job starting mid sub-step: the part before it at idle power.
    core::SiteSpec site = test::gb300Site(1);
    site.replay_jobs.push_back(replay(dcgm(), 0.05, 10.0, {core::ComponentId("row1/rack01")}));
    Run r(site);
    CHECK(r.state.gpu_P_demand[0] == Approx(kPidle));
    r.step(0.0, 0.1);
    CHECK(r.state.gpu_P_demand[0] == Approx(0.5 * (P[0][0] + kPidle)).epsilon(1e-12));
    // A throttled GPU demands at most throttled_power_fraction x P_max.
    const double cap = 0.5 * 1400.0;
    r.state.gpu_throttled[1] = 1;
    r.step(0.1, 0.1);
    CHECK(P[1][0] > cap);
    CHECK(r.state.gpu_P_demand[1] == Approx(cap));
  }
  {
    core::SiteSpec site = test::gb300Site(1);
    site.replay_jobs.push_back(replay(dcgm(), 0.0, 10.0, {core::ComponentId("row1/rack01")}));
    core::TrainingJobSpec train;
    train.id = "train";
    train.duration = 100.0;
    train.racks = {core::ComponentId("row1/rack01")};
    train.compute_duration = 1.0;
    train.compute_power_fraction = 0.9;
    site.jobs.push_back(train);
    const core::SiteLayout layout = core::SiteLayout::build(site);
    CHECK_THROWS_AS(core::WorkloadExecutor(site, layout), std::invalid_argument);
  }
}

TEST_CASE("Malformed GPU traces are reported with file, line and column", "[workload][replay]") {
  const std::string header = "timestamp, index, utilization.gpu [%], power.draw [W]\n";
  const std::string good = "2025/10/01 12:00:00.123, 0, 97 %, 650.12 W\n";
  const auto smi = [](const std::string& text) {
    return parseError([&] { (void)scenarios::detail::parseNvidiaSmiTrace(text, "t.csv"); });
  };
  {
    const core::InputError e = smi(header + good + "2025/10/01 12:00:01.123, 0, 97 %, [N/A]\n");
    CHECK(e.where().file == "t.csv");
    CHECK(e.where().line == 3);
    CHECK(e.where().column == 35);
    CHECK(e.key() == "power.draw");
  }
  {
    const core::InputError e = smi(header + good + "2025/10/01 12:00:00.000, 0, 97 %, 600 W\n");
    CHECK(e.where().line == 3);
    CHECK(e.where().column == 1);
    CHECK(e.message().find("must not decrease") != std::string::npos);
  }
  {
    const core::InputError e = smi(header + good + "2025/10/01 12:00:01.123, x, 97 %, 600 W\n");
    CHECK(e.where().line == 3);
    CHECK(e.where().column == 26);
    CHECK(e.key() == "index");
  }
  CHECK(smi(header + good + "2025/10/01 12:00:01.123, 0, 97 %\n").where().line == 3);
  CHECK(smi("timestamp, index, utilization.gpu [%]\n" + good).key() == "power.draw");
  CHECK(smi("12:00:00, 0, 97, 600\n" + good).where().line == 1);
  CHECK(smi(header).where().line == 1);  // no samples
  // nounits, other columns in another order, CRLF.
  const GpuTrace t = scenarios::detail::parseNvidiaSmiTrace(
      "power.draw [W], name, index, timestamp\r\n100.5, B300, 1, 2025/10/01 12:00:00.250\r\n"
      "90, B300, 0, 2025-10-01 12:00:01.000\r\n",
      "t.csv");
  REQUIRE(t.sample_begin.size() == 3);
  CHECK(t.power[0] == 90.0);  // trace GPU 0 is the smallest index
  CHECK(t.times[0] == Approx(0.75));
  CHECK(t.power[1] == 100.5);

  const auto dcgmError = [](const std::string& text) {
    return parseError([&] { (void)scenarios::detail::parseDcgmTrace(text, "d.txt", 1.0); });
  };
  {
    const core::InputError e = dcgmError("#Entity POWER GPUTL\nGPU 0  650 97\nGPU 1  N/A 97\n");
    CHECK(e.where().file == "d.txt");
    CHECK(e.where().line == 3);
    CHECK(e.where().column == 8);
    CHECK(e.key() == "POWER");
  }
  CHECK(dcgmError("#Entity GPUTL\nGPU 0 97\n").key() == "POWER");
  CHECK(dcgmError("GPU 0 650 97\n").where().line == 1);
  CHECK(dcgmError("#Entity POWER GPUTL\nGPU 0 650\n").where().line == 2);
  CHECK(dcgmError("#Entity POWER GPUTL\nSWITCH 0 650 1\n").where().column == 1);
  CHECK_THROWS_AS(scenarios::detail::parseDcgmTrace("#Entity POWER\nGPU 0 1\n", "d.txt", 0.0),
                  core::InputError);
}

namespace {

std::string scenario(const std::string& job) {
  std::ifstream in(std::string(RACKTWIN_SOURCE_DIR) + "/scenarios/inference-azure.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  return s.substr(0, s.find("workload:")) + "workload:\n" + job;
}

core::SiteSpec load(const std::string& text) {
  return scenarios::loadScenarioFromString(
      text, std::string(RACKTWIN_SOURCE_DIR) + "/scenarios/test-replay.yaml",
      std::string(RACKTWIN_SOURCE_DIR) + "/data", {}, scenarios::OutsidePaths::Allowed);
}

}  // namespace

TEST_CASE("The loader reads replay jobs and reports their errors", "[workload][replay]") {
  const std::string head = "  - id: replay\n    type: replay\n    racks: all\n";
  {
    const core::SiteSpec site =
        load(scenario(head
                      + "    trace: ../tests/workload/data/dcgm-dmon-5gpu.txt\n    format: dcgm\n"
                        "    interval: 250 ms\n"));
    REQUIRE(site.replay_jobs.size() == 1);
    const core::ReplayJobSpec& job = site.replay_jobs[0];
    CHECK(job.sample_begin.size() == 6);
    CHECK(job.times.size() == 20);
    CHECK(job.times[1] == Approx(0.25));
    CHECK(job.duration == Approx(site.simulation.duration));
  }
  {
    const core::SiteSpec site = load(scenario(
        head + "    trace: ../tests/workload/data/nvidia-smi-2gpu.csv\n    format: nvidia-smi\n"));
    REQUIRE(site.replay_jobs.size() == 1);
    CHECK(site.replay_jobs[0].sample_begin.size() == 3);
  }
  const auto fails = [](const std::string& text, const std::string& what) {
    try {
      (void)load(text);
    } catch (const core::InputError& e) {
      INFO(e.what());
      CHECK(e.where().line > 0);
      CHECK(std::string(e.what()).find(what) != std::string::npos);
      return;
    }
    FAIL("no error");
  };
  fails(scenario(head + "    trace: ../tests/workload/data/dcgm-dmon-5gpu.txt\n    format: dcgm\n"),
        "interval");
  fails(scenario(head + "    trace: ../tests/workload/data/nvidia-smi-2gpu.csv\n    format: smi\n"),
        "unknown GPU trace format");
  fails(scenario(head
                 + "    trace: ../tests/workload/data/nvidia-smi-2gpu.csv\n    format: nvidia-smi\n"
                   "    interval: 1 s\n"),
        "only a dcgm trace");
  fails(scenario(head + "    trace: no-such.csv\n    format: nvidia-smi\n"), "no GPU trace file");
  // A trace in the wrong format: the error names the trace file's line.
  fails(
      scenario(head
               + "    trace: ../tests/workload/data/dcgm-dmon-5gpu.txt\n    format: nvidia-smi\n"),
      "dcgm-dmon-5gpu.txt");
}
