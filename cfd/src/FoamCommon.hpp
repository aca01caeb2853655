#pragma once
// Pieces shared by the channel and cold-plate cases: common dictionaries, OpenFOAM list syntax,
// time directories.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "racktwin/cfd/FoamDictionary.hpp"

namespace racktwin::cfd::detail {

/// "( name { ... } name { ... } )": OpenFOAM's list of named dictionaries (blockMesh boundary,
/// sampled sets and surfaces).
std::string namedDictionaryList(const std::vector<std::pair<std::string, FoamDictionary>>& items,
                                int indent = 1);

/// A boundary condition { type T; value V; } (no value when empty).
FoamDictionary bc(const std::string& type, const std::string& value = {});

/// A field file: dimensions, internalField and one boundary condition per patch.
FoamDictionary field(const std::string& dimensions, const std::string& internal,
                     const std::vector<std::pair<std::string, FoamDictionary>>& patches);

/// The controlDict of a steady run: time = iteration, written once at the end (or when converged).
FoamDictionary steadyControlDict(const std::string& application, int max_iterations);

/// Minimal system/fvSchemes and fvSolution: every v1912 tool (blockMesh, splitMeshRegions) reads
/// them even when it solves nothing.
FoamDictionary emptySchemes();
FoamDictionary emptySolution();

/// The largest numeric time directory of a case (or of a processor directory); "" when none.
std::string latestTime(const std::filesystem::path& case_dir);

/// Recursive copy; throws core::RuntimeError.
void copyTree(const std::filesystem::path& from, const std::filesystem::path& to);

/// Number of cells in constant/[<region>/]polyMesh/owner (its header's note).
long meshCells(const std::filesystem::path& case_dir, const std::string& region);

}  // namespace racktwin::cfd::detail
