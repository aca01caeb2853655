#include "RunProgram.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace racktwin::test {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string scratchDirectory(const std::string& name) {
  const auto dir = std::filesystem::path(RACKTWIN_BINARY_DIR) / "test-scratch" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

ProgramResult runProgram(const std::string& command) {
  static int counter = 0;
  // ctest runs test cases as separate processes in parallel: name by process and call.
  const std::string dir =
      scratchDirectory("run-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  const std::string out = dir + "/stdout", err = dir + "/stderr";
  const std::string line =
      "cd '" RACKTWIN_SOURCE_DIR "' && " + command + " >'" + out + "' 2>'" + err + "' </dev/null";
  const int status = std::system(line.c_str());
  ProgramResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = readFile(out);
  result.err = readFile(err);
  return result;
}

}  // namespace racktwin::test
