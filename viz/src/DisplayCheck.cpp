// Whether an X display can be opened. Its own file: Xlib's macros (Status, None, Bool) must not
// meet VTK's headers.
#include <X11/Xlib.h>

#include <cstdlib>
#include <mutex>

#include "racktwin/viz/Scene.hpp"

namespace racktwin::viz {

bool Scene::displayAvailable() {
  // The probe's connection stays open for the life of the process: an X server without
  // -noreset (xvfb-run's default) resets when its last client leaves, and a window opened right
  // after a probe that closed its connection would meet the reset and abort VTK.
  static std::mutex mutex;
  static Display* probe = nullptr;
  const std::lock_guard<std::mutex> lock(mutex);
  if (probe != nullptr) return true;
  const char* name = std::getenv("DISPLAY");
  if (name == nullptr || *name == '\0') return false;
  probe = XOpenDisplay(name);
  return probe != nullptr;
}

}  // namespace racktwin::viz
