#pragma once
// Runs OpenFOAM programs as child processes (posix_spawn, never a shell): the environment they
// need, stdout and stderr captured to a log file in the case, a wall-clock timeout after which the
// child is terminated (mpirun passes the signal to its ranks).
#include <filesystem>
#include <string>
#include <vector>

#include "racktwin/cfd/OpenFoamEnvironment.hpp"
#include "racktwin/cfd/SolverLog.hpp"

namespace racktwin::cfd {

struct ProcessRequest {
  std::string program;  // a name looked up through the environment ("simpleFoam", "mpirun")
  std::vector<std::string> arguments;
  std::filesystem::path working_dir;
  std::filesystem::path log_file;  // stdout and stderr; relative paths are in working_dir
  double timeout_s = 600.0;
};

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
  double wall_s = 0.0;
  std::filesystem::path log_file;
  LogScan log;
};

class ProcessRunner {
 public:
  explicit ProcessRunner(OpenFoamEnvironment environment);

  const OpenFoamEnvironment& environment() const noexcept { return environment_; }

  /// Runs the program to completion (or timeout). Throws OpenFoamMissing when the program cannot
  /// be found and CfdError when it cannot be started.
  ProcessResult run(const ProcessRequest& request) const;

  /// run(), then throws SolverDiverged when the log shows NaN residuals or a floating-point trap,
  /// and CfdError on a timeout, a signal or a non-zero exit; the message names the program, the
  /// case directory and the log, and quotes the fatal error or the log's last lines.
  ProcessResult runChecked(const ProcessRequest& request) const;

 private:
  OpenFoamEnvironment environment_;
};

}  // namespace racktwin::cfd
