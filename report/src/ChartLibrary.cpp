#include "ChartLibrary.hpp"

#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include "racktwin/core/Error.hpp"

#ifndef RACKTWIN_PLOTLY_JS
#define RACKTWIN_PLOTLY_JS "/usr/share/python3-plotly/plotly.js"
#endif

namespace racktwin::report {
namespace {

std::string libraryPath() {
  if (const char* path = std::getenv("RACKTWIN_PLOTLY_JS"); path && *path) return path;
  return RACKTWIN_PLOTLY_JS;
}

std::string readLibrary() {
  const std::string path = libraryPath();
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw core::RuntimeError("cannot read the charting library " + path
                             + " (Debian package python3-plotly; tools/setup.sh installs it)");
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string library = text.str();
  if (library.find("plotly.js v2.") == std::string::npos || library.size() > 64u << 20) {
    throw core::RuntimeError("the charting library " + path + " is not plotly.js 2.x");
  }
  // Inlined into <script>: text that would end the element early must not be there.
  for (const char* marker : {"</script", "</SCRIPT", "<!--"}) {
    if (library.find(marker) != std::string::npos) {
      throw core::RuntimeError("the charting library " + path + " holds '" + marker
                               + "' and cannot be inlined");
    }
  }
  return library;
}

}  // namespace

const std::string& chartLibrary() {
  static std::once_flag once;
  static std::string library;
  std::call_once(once, [] { library = readLibrary(); });
  return library;
}

std::string chartLibraryVersion() {
  const std::string& library = chartLibrary();
  const std::size_t at = library.find("plotly.js v");
  const std::size_t end = library.find_first_of("\r\n", at);
  return library.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace racktwin::report
