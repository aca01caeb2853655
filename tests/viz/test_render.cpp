// Offscreen renders (run under xvfb-run by ctest): the picture shows the site, matches its
// baseline, picking finds the rack under a pixel, and the render command works.
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPNGReader.h>
#include <vtkPointData.h>
#include <vtkUnsignedCharArray.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "RunProgram.hpp"
#include "SceneVtkImpl.hpp"
#include "VizTestData.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/viz/Scene.hpp"
#include "racktwin/viz/SceneVtk.hpp"

using namespace racktwin;
namespace fs = std::filesystem;

namespace {

constexpr int kWidth = 640, kHeight = 400;

bool haveDisplay() {
  if (viz::Scene::displayAvailable()) return true;
  WARN("no X display: render tests skipped (ctest runs them under xvfb-run -a)");
  return false;
}

/// The cluster with rack r's hottest GPU at 300 + r K over a fixed 300..363 K range: the last
/// rack at the top colour, the first at the bottom one.
std::unique_ptr<viz::Scene> rampScene() {
  const core::SiteSpec site =
      scenarios::loadScenario(RACKTWIN_SOURCE_DIR "/scenarios/cluster-64-racks.yaml");
  auto scene = std::make_unique<viz::Scene>(viz::SiteGeometry::build(site));
  viz::Frame frame(scene->geometry());
  frame.time = 1234.0;
  for (std::size_t r = 0; r < scene->geometry().rackCount(); ++r) {
    frame.value(viz::Quantity::GpuJunctionTemperature, r) = 300.0 + static_cast<double>(r);
  }
  scene->setQuantity(viz::Quantity::GpuJunctionTemperature);
  scene->setRange(300.0, 363.0);
  scene->update(frame);
  return scene;
}

/// RGB pixels of a PNG, rows from the top (VTK's reader gives them from the bottom).
std::vector<std::uint8_t> readPng(const std::string& path, int& width, int& height) {
  vtkNew<vtkPNGReader> reader;
  reader->SetFileName(path.c_str());
  reader->Update();
  vtkImageData* image = reader->GetOutput();
  const int* dims = image->GetDimensions();
  width = dims[0];
  height = dims[1];
  auto* scalars = vtkUnsignedCharArray::SafeDownCast(image->GetPointData()->GetScalars());
  const int components = scalars->GetNumberOfComponents();
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(width * height * 3));
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < 3; ++c) {
        rgb[static_cast<std::size_t>(((height - 1 - y) * width + x) * 3 + c)] =
            static_cast<std::uint8_t>(scalars->GetComponent(y * width + x, c));
      }
    }
  }
  (void)components;
  return rgb;
}

/// Share of pixels whose largest channel difference exceeds 40 of 255.
double differingFraction(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  if (a.size() != b.size() || a.empty()) return 1.0;
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.size(); i += 3) {
    int d = 0;
    for (std::size_t c = 0; c < 3; ++c)
      d = std::max(d, std::abs(a[i + c] - b[i + c]));
    if (d > 40) ++differing;
  }
  return static_cast<double>(differing) / static_cast<double>(a.size() / 3);
}

}  // namespace

TEST_CASE("the cluster renders offscreen and matches its baseline", "[viz][render]") {
  if (!haveDisplay()) return;
  auto scene = rampScene();
  const std::vector<std::uint8_t> rgb = scene->renderRgb(kWidth, kHeight);
  REQUIRE(rgb.size() == static_cast<std::size_t>(kWidth * kHeight * 3));
  // The background (0.12, 0.13, 0.16) fills the corner; a good share of the picture is not it,
  // and both ends of the colour table appear (the coolest and the hottest racks).
  const std::uint8_t bg[3] = {rgb[0], rgb[1], rgb[2]};
  CHECK(std::abs(bg[0] - 31) <= 2);
  CHECK(std::abs(bg[2] - 41) <= 2);
  std::size_t other = 0, reddish = 0, bluish = 0;
  for (std::size_t i = 0; i < rgb.size(); i += 3) {
    const int r = rgb[i], g = rgb[i + 1], b = rgb[i + 2];
    if (std::abs(r - bg[0]) + std::abs(g - bg[1]) + std::abs(b - bg[2]) > 30) ++other;
    if (r > 120 && r > 2 * b && r > 2 * g) ++reddish;
    if (b > 120 && b > r + 40) ++bluish;
  }
  const double pixels = kWidth * kHeight;
  CHECK(static_cast<double>(other) / pixels > 0.2);
  CHECK(reddish > 200);
  CHECK(bluish > 200);

  const std::string baseline = RACKTWIN_VIZ_BASELINES "/cluster_ramp.png";
  const std::string image = test::scratchDirectory("viz-render") + "/cluster_ramp.png";
  scene->renderPng(image, kWidth, kHeight);
  REQUIRE(fs::exists(image));
  if (!fs::exists(baseline)) {
    fs::copy_file(image, baseline);
    WARN("baseline " << baseline << " was missing: wrote it from this render; check it by eye");
    return;
  }
  int w = 0, h = 0, bw = 0, bh = 0;
  const auto now = readPng(image, w, h);
  const auto base = readPng(baseline, bw, bh);
  REQUIRE(w == bw);
  REQUIRE(h == bh);
  // The PNG holds what renderRgb returned, and the picture matches the baseline: f3d-style, few
  // pixels may differ by more than a small amount (driver rounding, text antialiasing).
  CHECK(differingFraction(now, rgb) < 0.002);
  CHECK(differingFraction(now, base) < 0.02);
}

TEST_CASE("picking finds the rack under a pixel", "[viz][render]") {
  if (!haveDisplay()) return;
  auto scene = rampScene();
  scene->renderRgb(kWidth, kHeight);
  vtkRenderer* renderer = scene->vtk().own_renderer;
  for (const int rack : {0, 3, 7}) {
    // The centre of the rack's front face (the camera looks from the front row).
    const viz::Box& b = scene->geometry().racks()[static_cast<std::size_t>(rack)].box;
    renderer->SetWorldPoint(0.5 * (b.min[0] + b.max[0]), b.min[1], 1.0, 1.0);
    renderer->WorldToDisplay();
    const double* d = renderer->GetDisplayPoint();
    CHECK(viz::pickRack(*scene, renderer, static_cast<int>(std::lround(d[0])),
                        static_cast<int>(std::lround(d[1])))
          == rack);
  }
  CHECK(viz::pickRack(*scene, renderer, 2, kHeight - 3) == -1);  // the top-left corner is empty
}

TEST_CASE("racktwin render writes a PNG and says when there is no display", "[viz][render]") {
  if (!haveDisplay()) return;
  const std::string dir = test::scratchDirectory("viz-render-cli");
  const std::string& result = test::clusterResult();
  const auto ok = test::runProgram(std::string(RACKTWIN_CLI) + " render '" + result
                                   + "' --time 30 --quantity coolant-flow --size 320x200 -o '" + dir
                                   + "/flow.png'");
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  int w = 0, h = 0;
  if (fs::exists(dir + "/flow.png")) {
    readPng(dir + "/flow.png", w, h);
  }
  CHECK(w == 320);
  CHECK(h == 200);
  const auto bad_time = test::runProgram(std::string(RACKTWIN_CLI) + " render '" + result
                                         + "' --time 999 -o '" + dir + "/late.png'");
  CHECK(bad_time.exit_code == 2);
  CHECK(bad_time.err.find("outside") != std::string::npos);
  const auto headless = test::runProgram("env -u DISPLAY " + std::string(RACKTWIN_CLI) + " render '"
                                         + result + "' -o '" + dir + "/none.png'");
  CHECK(headless.exit_code == 1);
  CHECK(headless.err.find("xvfb-run") != std::string::npos);
  CHECK_FALSE(fs::exists(dir + "/none.png"));
}
