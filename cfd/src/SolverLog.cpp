#include "racktwin/cfd/SolverLog.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace racktwin::cfd {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

// The number after `key` in `line`, or NaN-flag when it is written as nan/inf.
bool numberAfter(std::string_view line, std::string_view key, double& value, bool& non_finite) {
  const std::size_t at = line.find(key);
  if (at == std::string_view::npos) return false;
  std::string rest(trim(line.substr(at + key.size())));
  const std::string low = lower(rest);
  if (low.starts_with("nan") || low.starts_with("-nan") || low.starts_with("inf")
      || low.starts_with("-inf")) {
    non_finite = true;
    return false;
  }
  char* end = nullptr;
  value = std::strtod(rest.c_str(), &end);
  return end != rest.c_str();
}

}  // namespace

LogScan scanLog(std::string_view text) {
  LogScan scan;
  std::size_t pos = 0;
  bool in_fatal = false;
  int fatal_lines = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;

    if (in_fatal) {
      if (fatal_lines < 12 && !trim(line).empty()) {
        scan.fatal += "\n  ";
        scan.fatal += trim(line);
        ++fatal_lines;
      }
      continue;
    }
    if (line.find("FOAM FATAL") != std::string_view::npos) {
      in_fatal = true;
      scan.fatal = std::string(trim(line));
      continue;
    }
    if (scan.version.empty() && line.starts_with("Build")
        && line.find("OPENFOAM=") != std::string_view::npos) {
      const std::size_t at = line.find("OPENFOAM=") + 9;
      std::size_t stop = line.find(' ', at);
      if (stop == std::string_view::npos) stop = line.size();
      scan.version = "OpenFOAM v" + std::string(line.substr(at, stop - at));
      const std::size_t patch = line.find("patch=");
      if (patch != std::string_view::npos)
        scan.version += " (patch " + std::string(trim(line.substr(patch + 6))) + ")";
      continue;
    }
    // The stack trace OpenFOAM prints when its floating-point trap fires (the banner's
    // "trapFpe: Floating point exception trapping enabled" is not one).
    if (line.find("sigFpe::sigHandler") != std::string_view::npos) {
      scan.fpe = true;
    }
    if (line.starts_with("Time = ")) {
      scan.last_time_step = std::atoi(std::string(line.substr(7)).c_str());
      continue;
    }
    double value = 0.0;
    if (numberAfter(line, "Initial residual =", value, scan.non_finite)) {
      if (!std::isfinite(value)) scan.non_finite = true;
      scan.max_initial_residual = std::max(scan.max_initial_residual, value);
    }
    double ignored = 0.0;
    numberAfter(line, "Final residual =", ignored, scan.non_finite);
  }
  return scan;
}

std::string tailLines(std::string_view text, int lines) {
  std::size_t pos = text.size();
  if (pos > 0 && text[pos - 1] == '\n') --pos;
  int count = 0;
  while (pos > 0) {
    if (text[pos - 1] == '\n' && ++count == lines) break;
    --pos;
  }
  return std::string(text.substr(pos));
}

}  // namespace racktwin::cfd
