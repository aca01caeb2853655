#include "CfdTestUtil.hpp"

#include <sys/wait.h>

#include <array>
#include <cstdio>

namespace racktwin::test {

namespace fs = std::filesystem;

fs::path cfdScratch(const std::string& name) {
  const fs::path dir = fs::path(RACKTWIN_BINARY_DIR) / "cfd-tests" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string miniPlateYaml() {
  return R"(racktwin_data: 1
kind: cold_plate_cfd_spec
description: "mini plate"
base:
  thickness: 2 mm
  width: 4.5 mm
  conductivity_W_per_m_K: 390
channels:
  count: 3
  width: 1 mm
  height: 2 mm
  fin_thickness: 0.5 mm
  length: 20 mm
heater:
  length: 20 mm
  width: 4.5 mm
  power: 125 W
plenums:
  length: 2 mm
coolant:
  fluid: water
  inlet_temperature: 300 K
model:
  slice_channels: 3
  cells_across_channel: 6
  cells_across_fin: 2
  cells_base: 4
  cells_height: 8
  cells_along: 40
)";
}

int runCli(const std::string& arguments, std::string& output, const std::string& environment) {
  const std::string command =
      environment + " " + std::string(RACKTWIN_CLI) + " " + arguments + " 2>&1";
  output.clear();
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return -1;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe))
    output += buffer.data();
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace racktwin::test
