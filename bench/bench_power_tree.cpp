// Speed of the electrical model on the 64-rack cluster's power tree (scenarios/faults/
// feed-a-loss.yaml: 8 transformers, 8 UPSs, 8 switchboards, 16 busways, 128 rack feeds, 3,072
// PSUs, 4,608 GPUs) at a 0.1 s electrical step: simulated time over wall time and the cost of one
// step, best of `repeat` runs. Cases: the electrical model alone under a training square wave,
// the same with GB300 smoothing on every rack, and the workload executor plus the electrical
// model (the engine's fast models), without and with smoothing. Run from the source tree:
// bench_power_tree [seconds] [repeat] [case: all, alone, smoothing, workload,
// workload-smoothing].
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>

#include "racktwin/core/WorkloadExecutor.hpp"
#include "racktwin/power/ElectricalModel.hpp"
#include "racktwin/scenarios/ElectricalLoader.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace {

using namespace racktwin;

std::string readText(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The text without a top-level block (the drafts' electrical section and electrical events, which
/// the scenario loader does not read yet).
std::string withoutTopLevel(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line, out;
  bool skipping = false;
  while (std::getline(in, line)) {
    const bool top = !line.empty() && line[0] != ' ' && line[0] != '#' && line[0] != '-';
    if (top) skipping = line.rfind(key + ":", 0) == 0;
    if (!skipping) out += line + "\n";
  }
  return out;
}

struct Result {
  double best = 1e300;      // s of wall time per run
  double iterations = 0.0;  // mean load-flow iterations per step
};

enum class Case { Electrical, Smoothing, WorkloadAndElectrical, WorkloadSmoothing };

Result run(const core::SiteSpec& base, Case which, double seconds, int repeat) {
  core::SiteSpec site = base;
  if (which == Case::Smoothing || which == Case::WorkloadSmoothing) {
    core::PowerPolicySpec p;
    p.smoothing = core::PowerSmoothingSpec{true, 65.0, 0.6, 700.0, 700.0, 2.0, 0.5};
    site.electrical.power_policies.push_back(p);
  }
  const core::SiteLayout layout = core::SiteLayout::build(site);
  const double dt = 0.1;
  const auto steps = static_cast<int>(seconds / dt + 0.5);
  Result result;
  for (int r = 0; r < repeat; ++r) {
    power::ElectricalModel model(site, layout);
    std::unique_ptr<core::WorkloadExecutor> workload;
    core::SiteState state;
    state.resize(layout, 300.0);
    const core::RackTypeSpec& type = site.racks[0].type;
    const double air = 18 * type.compute_tray_air_P + 9 * type.switch_tray_air_P;
    const auto demands = [&](double gpu) {
      std::fill(state.gpu_P_demand.begin(), state.gpu_P_demand.end(), gpu);
      std::fill(state.cpu_P_demand.begin(), state.cpu_P_demand.end(), type.cpu_P_busy);
      std::fill(state.switch_P_demand.begin(), state.switch_P_demand.end(), type.switch_P_busy);
      std::fill(state.rack_air_P_demand.begin(), state.rack_air_P_demand.end(), air);
    };
    if (which == Case::WorkloadAndElectrical || which == Case::WorkloadSmoothing) {
      workload = std::make_unique<core::WorkloadExecutor>(site, layout);
      workload->initialize(state);
    } else {
      demands(0.95 * type.gpu.P_max);
    }
    model.initialize(state);
    double iterations = 0.0;
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < steps; ++k) {
      const double t = k * dt;
      if (k % 10 == 0) {  // the engine's macro step of 1 s
        state.clearStepAccumulators();
        state.step_start = t;
      }
      state.time = t;
      state.last_substep = k % 10 == 9;  // as the engine: chip energies are read after it
      if (workload) {
        workload->advance(t, dt, state);
      } else if (k % 40 == 0) {
        demands(0.95 * type.gpu.P_max);  // 3.2 s compute, 0.8 s communication
      } else if (k % 40 == 32) {
        demands(0.40 * type.gpu.P_max);
      }
      model.advance(t, dt, state);
      iterations += model.distribution()->tree().lastIterations();
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.best = std::min(result.best, wall);
    result.iterations = iterations / steps;
    if (model.energyBalanceRelativeError() > 1e-9) {
      std::fprintf(stderr, "energy balance error %.3g\n", model.energyBalanceRelativeError());
    }
  }
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 600.0;
  const int repeat = argc > 2 ? std::atoi(argv[2]) : 5;
  const std::string only = argc > 3 ? argv[3] : "all";
  if (only != "all" && only != "alone" && only != "smoothing" && only != "workload"
      && only != "workload-smoothing") {
    std::fprintf(stderr,
                 "bench_power_tree: case must be all, alone, smoothing, workload or "
                 "workload-smoothing\n");
    return 1;
  }
  const std::string path = "scenarios/faults/feed-a-loss.yaml";
  try {
    const std::string text = readText(path);
    core::SiteSpec site = scenarios::loadScenarioFromString(
        withoutTopLevel(withoutTopLevel(text, "electrical"), "events"), path, "");
    site.electrical = scenarios::loadElectricalSection(text, path, "", site);
    const core::SiteLayout layout = core::SiteLayout::build(site);
    {
      power::ElectricalModel probe(site, layout);
      std::printf(
          "%s: %zu racks, %zu GPUs, %zu tree elements (%zu UPSs), 0.1 s steps, %.0f s "
          "simulated, best of %d\n",
          path.c_str(), layout.rack_count, layout.gpu_count, probe.distribution()->elementCount(),
          probe.distribution()->upsCount(), seconds, repeat);
    }
    const double steps = seconds / 0.1;
    for (const auto& [which, name, label] :
         {std::tuple{Case::Electrical, "alone", "electrical model"},
          std::tuple{Case::Smoothing, "smoothing", "electrical model, smoothing on every rack"},
          std::tuple{Case::WorkloadAndElectrical, "workload",
                     "workload executor + electrical model"},
          std::tuple{Case::WorkloadSmoothing, "workload-smoothing",
                     "workload executor + electrical, smoothing"}}) {
      if (only != "all" && only != name) continue;
      const Result r = run(site, which, seconds, repeat);
      std::printf(
          "%-44s %8.0f x real time, %7.2f us per step, %5.2f ns per GPU-step, "
          "%.2f load-flow iterations per step\n",
          label, seconds / r.best, 1e6 * r.best / steps,
          1e9 * r.best / (steps * static_cast<double>(layout.gpu_count)), r.iterations);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_power_tree: %s\n", error.what());
    return 1;
  }
  return 0;
}
