#pragma once
// The subcommands of the racktwin program. Each returns the process exit code.
#include <optional>
#include <string>

namespace racktwin::cli {

/// Exit codes: 0 success, 1 the run failed, 2 bad input or usage, 130 interrupted.
enum ExitCode : int { kSuccess = 0, kRunFailed = 1, kBadInput = 2, kInterrupted = 130 };

struct RunArguments {
  std::string scenario;
  std::string output;  // empty: out/<scenario name>.h5
  std::optional<double> duration_s;
  std::optional<double> step_s;
  std::string summary_json;
  bool quiet = false;
};

struct HydraulicsArguments {
  std::string input;  // EPANET .inp file
  double time_s = 0.0;
  bool json = false;
  bool extended_period = false;  // simulate from 0 to time_s, tank levels moving
};

int runCommand(const RunArguments& arguments);
int hydraulicsCommand(const HydraulicsArguments& arguments);
int infoCommand(const std::string& result_path);

}  // namespace racktwin::cli
