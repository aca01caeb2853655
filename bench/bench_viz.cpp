// The VTK scene of a result (default: a one-hour run of the 64-rack cluster, made with
// `racktwin run scenarios/cluster-64-racks.yaml -o /tmp/c64.h5`): time to open the result,
// colour update per step, and offscreen frames per second (llvmpipe under xvfb-run -a).
//   xvfb-run -a build/release/bench/bench_viz [RESULT.h5] [WIDTHxHEIGHT]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>

#include "racktwin/viz/ResultFrames.hpp"
#include "racktwin/viz/Scene.hpp"

namespace {

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace racktwin::viz;
  const std::string path = argc > 1 ? argv[1] : "/tmp/c64.h5";
  int width = 1280, height = 800;
  if (argc > 2 && std::sscanf(argv[2], "%dx%d", &width, &height) != 2) {
    std::fprintf(stderr, "bench_viz: size '%s' is not WIDTHxHEIGHT\n", argv[2]);
    return 2;
  }
  try {
    // Open: best of three (the first also pays for the page cache).
    double open_best = 1e300;
    for (int i = 0; i < 3; ++i) {
      const auto start = std::chrono::steady_clock::now();
      const ResultFrames probe(path);
      open_best = std::min(open_best, seconds(start));
    }
    const ResultFrames frames(path);
    const SiteGeometry& g = frames.geometry();
    std::printf("result %s: %zu samples, %zu racks, %zu CDUs, %zu pipes%s\n", path.c_str(),
                frames.size(), g.rackCount(), g.cduCount(), g.pipeCount(),
                frames.geometryFromScenario() ? "" : " (no scenario: fallback layout)");
    std::printf("open (read, reduce, lay out): %.3f s (best of 3)\n", open_best);

    const auto build_start = std::chrono::steady_clock::now();
    Scene scene(g);
    std::printf("scene build: %.2f ms\n", 1e3 * seconds(build_start));

    Frame frame(g);
    for (const Quantity q : kAllQuantities) {
      scene.setQuantity(q);
      const std::size_t passes = 5;
      const auto start = std::chrono::steady_clock::now();
      for (std::size_t p = 0; p < passes; ++p) {
        for (std::size_t i = 0; i < frames.size(); ++i) {
          frames.frame(i, frame);
          scene.update(frame);
        }
      }
      const double per = seconds(start) / static_cast<double>(passes * frames.size());
      std::printf("colour update (%s, frame copy + scalars + auto range): %.1f us per step\n",
                  std::string(quantityInfo(q).key).c_str(), 1e6 * per);
    }

    if (!Scene::displayAvailable()) {
      std::printf("render: skipped, no X display (run under xvfb-run -a)\n");
      return 0;
    }
    scene.setQuantity(Quantity::GpuJunctionTemperature);
    const auto [lo, hi] = frames.range(Quantity::GpuJunctionTemperature);
    scene.setRange(lo, hi);
    const auto first = std::chrono::steady_clock::now();
    scene.renderRgb(width, height);
    std::printf("first render %dx%d (window, context, shaders): %.3f s\n", width, height,
                seconds(first));
    const int n = 60;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
      frames.frame(static_cast<std::size_t>(i) * frames.size() / n, frame);
      scene.update(frame);
      scene.renderRgb(width, height);
    }
    const double per = seconds(start) / n;
    std::printf("playback %dx%d (update + render + read back): %.1f ms per frame, %.1f fps\n",
                width, height, 1e3 * per, 1.0 / per);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_viz: %s\n", error.what());
    return 1;
  }
  return 0;
}
