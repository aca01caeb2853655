// Wall time of the coupled step loop without any output: loads a scenario, runs it `repeat`
// times, prints the best time per run, per macro step and per GPU-step.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "scenarios/nvl72-rack.yaml";
  const int repeat = argc > 2 ? std::atoi(argv[2]) : 3;
  try {
    const racktwin::core::SiteSpec site = racktwin::scenarios::loadScenario(path);
    double best = 1e300;
    std::size_t steps = 0, gpus = 0;
    for (int r = 0; r < repeat; ++r) {
      const auto start = std::chrono::steady_clock::now();
      racktwin::scenarios::Twin twin(site);
      twin.initialize();
      steps = 0;
      while (twin.step())
        ++steps;
      ++steps;
      twin.finish(true);
      gpus = twin.layout().gpu_count;
      best = std::min(
          best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::printf("scenario %s: %zu macro steps, %zu GPUs\n", path, steps, gpus);
    std::printf("best of %d: %.3f s per run, %.2f us per macro step, %.3f us per GPU-step\n",
                repeat, best, 1e6 * best / steps, 1e6 * best / (steps * gpus));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_twin: %s\n", error.what());
    return 1;
  }
  return 0;
}
