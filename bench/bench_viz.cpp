// The VTK scene of a result (default: a one-hour run of the 64-rack cluster, made with
// `racktwin run scenarios/cluster-64-racks.yaml -o /tmp/c64.h5`), or of a scenario alone: time to
// open, colour update per step, and frames per second under llvmpipe (xvfb-run -a), in a render
// window set up as the desktop program's (viz/SceneVtk.hpp): playback (colour update + render),
// orbiting the whole site, and orbiting close to one row (the pipes drawn).
//   xvfb-run -a build/release/bench/bench_viz [RESULT.h5 | SCENARIO.yaml] [WIDTHxHEIGHT] [PNG_DIR]
// With PNG_DIR it also writes the whole site and the close view there (overview.png, close.png).
#include <vtkCamera.h>
#include <vtkNew.h>
#include <vtkPNGWriter.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkWindowToImageFilter.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>

#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/viz/ResultFrames.hpp"
#include "racktwin/viz/Scene.hpp"
#include "racktwin/viz/SceneVtk.hpp"

namespace {

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void writePng(vtkRenderWindow* window, const std::string& path) {
  vtkNew<vtkWindowToImageFilter> grab;
  grab->SetInput(window);
  grab->ReadFrontBufferOff();
  grab->Update();
  vtkNew<vtkPNGWriter> writer;
  writer->SetFileName(path.c_str());
  writer->SetInputConnection(grab->GetOutputPort());
  writer->Write();
}

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
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
    std::unique_ptr<ResultFrames> frames;
    SiteGeometry geometry;
    if (endsWith(path, ".yaml")) {
      // A scenario as the desktop program opens one: load, lay out (the twin itself not counted).
      const auto start = std::chrono::steady_clock::now();
      const racktwin::core::SiteSpec site = racktwin::scenarios::loadScenario(path);
      const double load = seconds(start);
      const auto lay_start = std::chrono::steady_clock::now();
      geometry = SiteGeometry::build(site);
      std::printf("scenario %s: load %.3f s, lay out %.3f s\n", path.c_str(), load,
                  seconds(lay_start));
    } else {
      // Open: best of three (the first also pays for the page cache).
      double open_best = 1e300;
      for (int i = 0; i < 3; ++i) {
        const auto start = std::chrono::steady_clock::now();
        const ResultFrames probe(path);
        open_best = std::min(open_best, seconds(start));
      }
      frames = std::make_unique<ResultFrames>(path);
      geometry = frames->geometry();
      std::printf("result %s: %zu samples%s\n", path.c_str(), frames->size(),
                  frames->geometryFromScenario() ? "" : " (no scenario: fallback layout)");
      std::printf("open (read, reduce, lay out): %.3f s (best of 3)\n", open_best);
    }
    std::printf("site: %zu racks, %zu rows, %zu halls, %zu CDUs, %zu pipes\n", geometry.rackCount(),
                geometry.rows().size(), geometry.halls().size(), geometry.cduCount(),
                geometry.pipeCount());

    const auto build_start = std::chrono::steady_clock::now();
    Scene scene(geometry);
    std::printf("scene build: %.1f ms\n", 1e3 * seconds(build_start));
    const SiteGeometry& g = scene.geometry();

    // Frames to colour with: the result's, or one made up (a ramp over the entities).
    Frame frame(g);
    std::vector<Frame> synthetic;
    const auto fill = [&](std::size_t i) {
      if (frames) {
        frames->frame(i % frames->size(), frame);
        return;
      }
      for (const Quantity q : kAllQuantities) {
        for (std::size_t e = 0; e < g.entityCount(); ++e)
          frame.value(q, e) = 300.0 + static_cast<double>((e * 7 + i) % 97);
      }
      frame.time = static_cast<double>(i);
    };
    const std::size_t samples = frames ? frames->size() : 100;
    for (const Quantity q : kAllQuantities) {
      scene.setQuantity(q);
      const std::size_t passes = frames ? 3 : 1;
      double spent = 0.0;
      for (std::size_t p = 0; p < passes; ++p) {
        for (std::size_t i = 0; i < samples; ++i) {
          fill(i);
          const auto start = std::chrono::steady_clock::now();
          scene.update(frame);
          spent += seconds(start);
        }
      }
      std::printf("colour update (%s: scalars and range): %.1f us per step\n",
                  std::string(quantityInfo(q).key).c_str(),
                  1e6 * spent / static_cast<double>(passes * samples));
    }

    if (!Scene::displayAvailable()) {
      std::printf("render: skipped, no X display (run under xvfb-run -a)\n");
      return 0;
    }
    // A render window as the desktop program's: the scene's actors in a renderer of our own.
    vtkNew<vtkRenderer> renderer;
    vtkNew<vtkRenderWindow> window;
    window->SetOffScreenRendering(1);
    window->SetMultiSamples(0);
    window->AddRenderer(renderer);
    window->SetSize(width, height);
    scene.setQuantity(Quantity::GpuJunctionTemperature);
    scene.setRange(300.0, 360.0);
    const auto first = std::chrono::steady_clock::now();
    addToRenderer(scene, renderer);
    fill(0);
    scene.update(frame);
    window->Render();
    std::printf("first render %dx%d (context, shaders, upload): %.3f s\n", width, height,
                seconds(first));

    const int n = 60;
    auto start = std::chrono::steady_clock::now();
    double update_spent = 0.0;
    for (int i = 0; i < n; ++i) {
      fill(static_cast<std::size_t>(i) * samples / n);
      const auto u = std::chrono::steady_clock::now();
      scene.update(frame);
      update_spent += seconds(u);
      window->Render();
    }
    double per = seconds(start) / n;
    std::printf(
        "playback, whole site %dx%d (update + render): %.1f ms per frame (update %.2f "
        "ms), %.1f fps\n",
        width, height, 1e3 * per, 1e3 * update_spent / n, 1.0 / per);

    vtkCamera* camera = renderer->GetActiveCamera();
    start = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
      camera->Azimuth(3.0);
      window->Render();
    }
    per = seconds(start) / n;
    std::printf("orbit, whole site: %.1f ms per frame, %.1f fps\n", 1e3 * per, 1.0 / per);
    const std::string png_dir = argc > 3 ? argv[3] : "";
    if (!png_dir.empty()) {
      resetCamera(scene, renderer);
      window->Render();
      writePng(window, png_dir + "/overview.png");
    }

    // Close to the first row: about 15 m across, the pipes drawn.
    resetCamera(scene, renderer);
    const Box row = g.rows().empty() ? g.bounds() : g.rows().front().box;
    const double centre[3] = {0.5 * (row.min[0] + row.max[0]), 0.5 * (row.min[1] + row.max[1]),
                              1.0};
    camera->SetFocalPoint(centre);
    camera->SetPosition(centre[0] - 6.0, centre[1] - 12.0, 9.0);
    renderer->ResetCameraClippingRange();
    start = std::chrono::steady_clock::now();
    update_spent = 0.0;
    for (int i = 0; i < n; ++i) {
      fill(static_cast<std::size_t>(i) * samples / n);
      const auto u = std::chrono::steady_clock::now();
      scene.update(frame);
      update_spent += seconds(u);
      camera->Azimuth(3.0);
      window->Render();
    }
    per = seconds(start) / n;
    std::printf("orbit and playback close to a row: %.1f ms per frame (update %.2f ms), %.1f fps\n",
                1e3 * per, 1e3 * update_spent / n, 1.0 / per);
    if (!png_dir.empty()) writePng(window, png_dir + "/close.png");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_viz: %s\n", error.what());
    return 1;
  }
  return 0;
}
