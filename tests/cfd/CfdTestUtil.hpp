#pragma once
// Helpers shared by the CFD tests: scratch directories, the small cold plate, running the CLI.
#include <filesystem>
#include <string>

#include "racktwin/cfd/ColdPlateSpec.hpp"

namespace racktwin::test {

/// A fresh, empty directory under the build tree.
std::filesystem::path cfdScratch(const std::string& name);

/// The mini cold plate of the OpenFOAM notes (3 channels of 1 x 2 mm between 0.5 mm fins on a
/// 2 mm copper base, 20 mm long, 125 W over the whole array), as YAML text, on a coarse mesh.
std::string miniPlateYaml();

/// Runs `racktwin <arguments>` through the shell with `environment` prefixed ("VAR=x ...");
/// returns the exit code, stdout+stderr in `output`.
int runCli(const std::string& arguments, std::string& output, const std::string& environment = {});

}  // namespace racktwin::test
