#pragma once
#include <string>

namespace racktwin::test {

struct ProgramResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

/// Runs a shell command line from the source directory, capturing stdout and stderr.
ProgramResult runProgram(const std::string& arguments);
/// A fresh, empty directory under the build tree for one test.
std::string scratchDirectory(const std::string& name);
std::string readFile(const std::string& path);

}  // namespace racktwin::test
