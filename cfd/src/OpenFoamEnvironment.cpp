#include "racktwin/cfd/OpenFoamEnvironment.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include "racktwin/cfd/CfdError.hpp"

extern char** environ;

namespace racktwin::cfd {

namespace fs = std::filesystem;

std::optional<fs::path> findInPath(const std::string& program, const std::string& search_path) {
  if (program.find('/') != std::string::npos) {
    if (::access(program.c_str(), X_OK) == 0) return fs::path(program);
    return std::nullopt;
  }
  std::size_t start = 0;
  while (start <= search_path.size()) {
    std::size_t end = search_path.find(':', start);
    if (end == std::string::npos) end = search_path.size();
    const std::string dir = search_path.substr(start, end - start);
    if (!dir.empty()) {
      const fs::path candidate = fs::path(dir) / program;
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
        return candidate;
    }
    start = end + 1;
  }
  return std::nullopt;
}

OpenFoamEnvironment OpenFoamEnvironment::fromProcess() {
  OpenFoamEnvironment env;
  const char* project = std::getenv("WM_PROJECT_DIR");
  env.project_dir = project && *project ? fs::path(project) : fs::path("/usr/share/openfoam");
  const char* path = std::getenv("PATH");
  env.search_path = path ? path : "/usr/local/bin:/usr/bin:/bin";
  return env;
}

void OpenFoamEnvironment::check() const {
  std::error_code ec;
  if (!fs::is_regular_file(project_dir / "etc" / "controlDict", ec)) {
    throw OpenFoamMissing("OpenFOAM not found: WM_PROJECT_DIR=" + project_dir.string() +
                          " has no etc/controlDict (expected an OpenFOAM v1912 installation, "
                          "e.g. the Debian package 'openfoam' with WM_PROJECT_DIR=" +
                          "/usr/share/openfoam)");
  }
}

fs::path OpenFoamEnvironment::program(const std::string& name) const {
  std::optional<fs::path> found = locate ? locate(name) : findInPath(name, search_path);
  if (!found) {
    throw OpenFoamMissing("OpenFOAM program '" + name + "' not found in PATH=" + search_path
                          + " (install OpenFOAM v1912 or put its programs in PATH)");
  }
  return *found;
}

std::vector<std::string> OpenFoamEnvironment::childEnvironment() const {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    if (entry.starts_with("WM_PROJECT_DIR=") || entry.starts_with("PATH=")
        || entry.starts_with("OMPI_ALLOW_RUN_AS_ROOT"))
      continue;
    out.emplace_back(entry);
  }
  out.push_back("WM_PROJECT_DIR=" + project_dir.string());
  out.push_back("PATH=" + search_path);
  // Containers often run as root; Open MPI refuses that unless told twice.
  out.push_back("OMPI_ALLOW_RUN_AS_ROOT=1");
  out.push_back("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1");
  return out;
}

}  // namespace racktwin::cfd
