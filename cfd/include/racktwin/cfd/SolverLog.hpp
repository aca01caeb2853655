#pragma once
// What an OpenFOAM log says beyond the exit code: the version banner, fatal errors, NaN or
// exploding residuals, and the last iteration.
#include <string>
#include <string_view>

namespace racktwin::cfd {

struct LogScan {
  std::string version;                // "OpenFOAM v1912 (patch 200626)"; empty when no banner
  std::string fatal;                  // the "FOAM FATAL ..." block, trimmed; empty when none
  bool non_finite = false;            // a residual or value printed as nan/inf
  bool fpe = false;                   // "Floating point exception" (trapFpe)
  double max_initial_residual = 0.0;  // the largest "Initial residual" in the log
  int last_time_step = -1;            // the last "Time = N" (steady solvers: the iteration count)
};

LogScan scanLog(std::string_view text);

/// The last `lines` lines of a text, for error messages.
std::string tailLines(std::string_view text, int lines);

}  // namespace racktwin::cfd
