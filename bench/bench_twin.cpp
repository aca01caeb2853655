// Wall time of the coupled step loop without any output: loads a scenario, runs it `repeat`
// times on `threads` threads, prints the best time per run (assembly and initialisation apart
// from the step loop), per macro step and per GPU-step, and the loop's speed against real time.
//   bench_twin SCENARIO [repeat=3] [threads=1]
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
  const unsigned threads = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : 1u;
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  try {
    const racktwin::core::SiteSpec site = racktwin::scenarios::loadScenario(path);
    double best = 1e300, best_loop = 1e300, best_setup = 1e300;
    std::size_t steps = 0, gpus = 0;
    double simulated = 0.0;
    for (int r = 0; r < repeat; ++r) {
      const auto start = Clock::now();
      racktwin::scenarios::Twin twin(site, threads);
      twin.initialize();
      const auto loop = Clock::now();
      steps = 0;
      while (twin.step())
        ++steps;
      ++steps;
      const auto looped = Clock::now();
      simulated = twin.time();
      twin.finish(true);
      gpus = twin.layout().gpu_count;
      const auto end = Clock::now();
      best = std::min(best, seconds(start, end));
      best_loop = std::min(best_loop, seconds(loop, looped));
      best_setup = std::min(best_setup, seconds(start, loop));
    }
    std::printf("scenario %s: %zu macro steps, %zu GPUs, %u threads\n", path, steps, gpus, threads);
    std::printf("best of %d: %.3f s per run, %.2f us per macro step, %.3f us per GPU-step\n",
                repeat, best, 1e6 * best / steps, 1e6 * best / (steps * gpus));
    std::printf(
        "step loop alone: %.3f s (%.2f us per macro step, %.0fx real time); assembly "
        "and initialisation %.3f s\n",
        best_loop, 1e6 * best_loop / steps, simulated / best_loop, best_setup);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_twin: %s\n", error.what());
    return 1;
  }
  return 0;
}
