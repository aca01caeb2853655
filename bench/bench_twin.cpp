// Wall time of the coupled step loop without any output: loads a scenario, runs it `repeat`
// times on `threads` threads, prints the best time per run (assembly and initialisation apart
// from the step loop), per macro step and per GPU-step, and the loop's speed against real time.
// Then a memory-bandwidth bound: the bytes a macro step must at least move through memory (the
// per-cell, per-chip-node and per-GPU arrays each pass reads and writes, counted below) against
// this machine's bandwidth measured by a STREAM triad on `threads` threads. Last, where the best
// run's step loop went: each model's advance, the recorder and the engine (Engine::timeSteps).
//   bench_twin SCENARIO [repeat=3] [threads=1]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include <thread>
#include <vector>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/HugePageHeap.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

namespace {

/// STREAM triad a = b + s c over arrays far larger than the caches, on `threads` threads, best
/// of three: bytes per second counted as STREAM does (24 bytes an element).
double triadBandwidth(unsigned threads) {
  const std::size_t n = std::size_t{1} << 25;  // 32 Mi doubles, 256 MiB per array
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  double best = 1e300;
  for (int round = 0; round < 3; ++round) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> team;
    for (unsigned t = 0; t < threads; ++t)
      team.emplace_back([&, t] {
        const std::size_t begin = n * t / threads, end = n * (t + 1) / threads;
        for (std::size_t i = begin; i < end; ++i)
          a[i] = b[i] + 3.0 * c[i];
      });
    for (std::thread& member : team)
      member.join();
    best = std::min(
        best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return 24.0 * static_cast<double>(n) / best;
}

}  // namespace

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
    // As `racktwin run` does: with RACKTWIN_HUGE_PAGES=1, a large site's state on huge pages
    // (core/HugePageHeap.hpp).
    const std::size_t marked = racktwin::core::reserveHugePageHeapFor(site);
    double best = 1e300, best_loop = 1e300, best_setup = 1e300;
    std::size_t steps = 0, gpus = 0;
    double simulated = 0.0;
    std::size_t cells = 0, nodes = 0, loops = 0;
    int loop_solves = 0;  // hydraulic solves in the step loop (pump speeds, viscosity)
    std::vector<racktwin::core::Engine::PartTime> parts;  // of the best loop
    for (int r = 0; r < repeat; ++r) {
      const auto start = Clock::now();
      racktwin::scenarios::Twin twin(site, threads);
      twin.initialize();
      twin.timeSteps();
      const auto loop = Clock::now();
      const int solves_before = twin.cooling().hydraulicSolves();
      steps = 0;
      while (twin.step())
        ++steps;
      ++steps;
      const auto looped = Clock::now();
      loop_solves = twin.cooling().hydraulicSolves() - solves_before;
      simulated = twin.time();
      twin.finish(true);
      gpus = twin.layout().gpu_count;
      cells = twin.cooling().coolantCells();
      nodes = twin.cooling().chipNodes();
      loops = twin.cooling().coolantLoops();
      const auto end = Clock::now();
      best = std::min(best, seconds(start, end));
      if (seconds(loop, looped) < best_loop) parts = twin.stepTimes();
      best_loop = std::min(best_loop, seconds(loop, looped));
      best_setup = std::min(best_setup, seconds(start, loop));
    }
    std::printf("scenario %s: %zu macro steps, %zu GPUs, %u threads\n", path, steps, gpus, threads);
    std::printf("heap on transparent huge pages: %.0f MB marked\n",
                static_cast<double>(marked) / 1e6);
    std::printf("best of %d: %.3f s per run, %.2f us per macro step, %.3f us per GPU-step\n",
                repeat, best, 1e6 * best / steps, 1e6 * best / (steps * gpus));
    std::printf(
        "step loop alone: %.3f s (%.2f us per macro step, %.0fx real time); assembly "
        "and initialisation %.3f s\n",
        best_loop, 1e6 * best_loop / steps, simulated / best_loop, best_setup);
    // Bytes a macro step moves at least, from the arrays each pass streams (8-byte values):
    //  coolant cell: sweep 6 (p, T_old, f, gamma, C, and T, in which s and alpha are formed),
    //  audit 3;
    //  chip node: sweep 11 (d0 stays in the thread's cache; the die's alpha is formed in the
    //  back-substitution), audit 10, junction 4, step power 3;
    //  GPU: publish 10, executor's input scan 3, the energies flushed once (4); the sub-steps
    //  compare no demands while their versions stand.
    const double bytes = 8.0
                         * (9.0 * static_cast<double>(cells) + 28.0 * static_cast<double>(nodes)
                            + 17.0 * static_cast<double>(gpus));
    const double bandwidth = triadBandwidth(threads);
    std::printf(
        "thermal network: %zu coolant cells, %zu chip nodes, %zu coolant loops; %d hydraulic "
        "solves in the step loop\n",
        cells, nodes, loops, loop_solves);
    std::printf(
        "memory bound: %.1f MB a macro step at %.1f GB/s (STREAM triad, %u threads) = "
        "%.2f ms; the step takes %.2f ms, %.1f times the bound\n",
        bytes / 1e6, bandwidth / 1e9, threads, 1e3 * bytes / bandwidth, 1e3 * best_loop / steps,
        (best_loop / steps) / (bytes / bandwidth));
    std::printf("where the best step loop went (wall time, passes on the threads included):\n");
    for (const auto& part : parts) {
      std::printf("  %-12s %8.3f s  %5.1f %%  %8.1f us a macro step\n", part.name.c_str(),
                  part.seconds, 100.0 * part.seconds / best_loop, 1e6 * part.seconds / steps);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_twin: %s\n", error.what());
    return 1;
  }
  return 0;
}
