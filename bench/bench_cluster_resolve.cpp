// Hydraulic re-solve after a pump-speed change in the 64-rack cluster: builds the cooling model of
// a scenario (default scenarios/cluster-64-racks.yaml), then applies SetPumpSpeed events to the
// first CDU, alternating between two speeds, and prints the best of `repeat` (default 20) in ms.
// Each event re-solves that CDU's loop (pump, exchanger, headers, 8 racks of 27 trays) and
// rebuilds its flow pattern for heat transport. The cluster-hydraulics milestone asks for < 20 ms.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

namespace {

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "scenarios/cluster-64-racks.yaml";
  const int repeat = argc > 2 ? std::max(1, std::atoi(argv[2])) : 20;
  try {
    const racktwin::core::SiteSpec site = racktwin::scenarios::loadScenario(path);
    const racktwin::core::SiteLayout layout = racktwin::core::SiteLayout::build(site);
    auto start = std::chrono::steady_clock::now();
    racktwin::thermal::CoolingModel model(site, layout);
    const double t_build = seconds(start);
    racktwin::core::SiteState state;
    state.resize(layout, site.cdus.front().T_supply_set);
    start = std::chrono::steady_clock::now();
    model.initialize(state);  // the first solve of every loop
    const double t_initialize = seconds(start);

    racktwin::core::EventSpec event;
    event.kind = racktwin::core::EventKind::SetPumpSpeed;
    event.target = site.cdus.front().id.str();
    const double speed = site.cdus.front().pump.speed;
    double best = 1e300, worst = 0.0;
    for (int r = 0; r < repeat; ++r) {
      event.value = r % 2 == 0 ? 0.875 * speed : speed;
      start = std::chrono::steady_clock::now();
      if (!model.applyEvent(event, state)) {
        std::fprintf(stderr, "bench_cluster_resolve: no CDU '%s'\n", event.target.c_str());
        return 1;
      }
      const double t = seconds(start);
      best = std::min(best, t);
      worst = std::max(worst, t);
    }
    std::printf("scenario %s: %zu CDUs, %zu racks, %zu GPUs\n", path, site.cdus.size(),
                layout.rack_count, layout.gpu_count);
    std::printf("cooling model: build %.1f ms, initialize (all loops solved) %.1f ms\n",
                1e3 * t_build, 1e3 * t_initialize);
    std::printf("re-solve of %s after a pump-speed change: best of %d %.3f ms (worst %.3f ms)\n",
                event.target.c_str(), repeat, 1e3 * best, 1e3 * worst);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_cluster_resolve: %s\n", error.what());
    return 1;
  }
  return 0;
}
