#pragma once
// Where OpenFOAM lives and what its programs need: WM_PROJECT_DIR (every v1912 tool reads
// $WM_PROJECT_DIR/etc/controlDict) and a PATH holding the programs. The program lookup is a
// replaceable function so tests can point it nowhere (or at a stand-in program).
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace racktwin::cfd {

/// Finds a program by name; nullopt when it does not exist.
using ProgramLocator =
    std::function<std::optional<std::filesystem::path>(const std::string& program)>;

/// The first executable `program` in the colon-separated `search_path`.
std::optional<std::filesystem::path> findInPath(const std::string& program,
                                                const std::string& search_path);

struct OpenFoamEnvironment {
  std::filesystem::path project_dir;  // WM_PROJECT_DIR
  std::string search_path;            // PATH for the lookup and for the child processes
  ProgramLocator locate;              // empty: findInPath(program, search_path)

  /// From this process's environment: WM_PROJECT_DIR (default /usr/share/openfoam) and PATH.
  static OpenFoamEnvironment fromProcess();

  /// Throws OpenFoamMissing unless project_dir holds etc/controlDict.
  void check() const;
  /// The absolute path of a program; throws OpenFoamMissing naming the program and the PATH.
  std::filesystem::path program(const std::string& name) const;
  /// The child's environment ("KEY=value"): this process's environment with WM_PROJECT_DIR and
  /// PATH replaced, and Open MPI allowed to run as root.
  std::vector<std::string> childEnvironment() const;
};

}  // namespace racktwin::cfd
