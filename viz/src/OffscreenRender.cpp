// Offscreen rendering of a Scene. Debian's VTK 9.1 renders through GLX only (no EGL, no OSMesa):
// without an X server vtkXOpenGLRenderWindow aborts the process, so the display is checked first
// and its absence reported as an error that says what to do.
#include <vtkPNGWriter.h>
#include <vtkUnsignedCharArray.h>
#include <vtkWindowToImageFilter.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "SceneVtkImpl.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/viz/SceneVtk.hpp"

namespace racktwin::viz {
namespace {

void renderOwn(Scene& scene, int width, int height) {
  if (width < 16 || height < 16 || width > 8192 || height > 8192) {
    throw core::InputError({}, "size",
                           "image size " + std::to_string(width) + "x" + std::to_string(height)
                               + " out of range; expected 16..8192 pixels each way");
  }
  if (!Scene::displayAvailable()) {
    throw core::RuntimeError(
        "rendering needs an X display and none could be opened (DISPLAY='" +
        std::string(std::getenv("DISPLAY") ? std::getenv("DISPLAY") : "") +
        "'): this VTK renders offscreen through GLX only (no EGL or OSMesa); run under "
        "`xvfb-run -a`");
  }
  Scene::Vtk& v = scene.vtk();
  if (!v.own_window) {
    v.own_renderer = vtkSmartPointer<vtkRenderer>::New();
    v.own_window = vtkSmartPointer<vtkRenderWindow>::New();
    v.own_window->SetOffScreenRendering(1);
    v.own_window->SetMultiSamples(0);
    v.own_window->AddRenderer(v.own_renderer);
    v.own_window->SetSize(width, height);
    addToRenderer(scene, v.own_renderer);
  }
  const int* size = v.own_window->GetSize();
  if (size[0] != width || size[1] != height) {
    v.own_window->SetSize(width, height);
    resetCamera(scene, v.own_renderer);
  }
  v.own_window->Render();
}

}  // namespace

std::vector<std::uint8_t> Scene::renderRgb(int width, int height) {
  renderOwn(*this, width, height);
  vtkNew<vtkUnsignedCharArray> pixels;
  vtk_->own_window->GetPixelData(0, 0, width - 1, height - 1, 0, pixels, 0);
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(width) * static_cast<std::size_t>(height)
                                * 3);
  // VTK's rows run from the bottom; ours from the top.
  const std::size_t row = static_cast<std::size_t>(width) * 3;
  const unsigned char* src = pixels->GetPointer(0);
  for (int y = 0; y < height; ++y) {
    std::copy(src + static_cast<std::size_t>(height - 1 - y) * row,
              src + static_cast<std::size_t>(height - y) * row,
              rgb.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(y) * row));
  }
  return rgb;
}

void Scene::renderPng(const std::string& path, int width, int height) {
  renderOwn(*this, width, height);
  vtkNew<vtkWindowToImageFilter> grab;
  grab->SetInput(vtk_->own_window);
  grab->SetInputBufferTypeToRGB();
  grab->ReadFrontBufferOff();
  grab->Update();
  const std::string partial = path + ".partial";
  vtkNew<vtkPNGWriter> writer;
  writer->SetFileName(partial.c_str());
  writer->SetInputConnection(grab->GetOutputPort());
  writer->Write();
  std::error_code ec;
  if (writer->GetErrorCode() != 0 || !std::filesystem::is_regular_file(partial, ec)) {
    std::filesystem::remove(partial, ec);
    throw core::RuntimeError("cannot write image '" + path + "'");
  }
  std::filesystem::rename(partial, path, ec);
  if (ec) {
    std::filesystem::remove(partial, ec);
    throw core::RuntimeError("cannot write image '" + path + "': " + ec.message());
  }
}

}  // namespace racktwin::viz
