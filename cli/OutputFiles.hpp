#pragma once
// What the CLI writes must never destroy anything else: a device node, a FIFO, a folder or a link
// given as an output, the run's own inputs, or an unrelated folder given as a CFD case folder.
#include <filesystem>
#include <string>
#include <vector>

namespace racktwin::cli {

/// Refuses (core::InputError naming `option`) an output path that exists as anything but a
/// regular file (checked without following a symbolic link), whose temporary sibling
/// `<target>.partial` exists as anything but a regular file, or that is the same file
/// (std::filesystem::equivalent) as one of `inputs`.
void checkOutputTarget(const std::filesystem::path& target, const char* option,
                       const std::vector<std::string>& inputs);

/// Writes `text` to `<path>.partial` and renames it to `path`: a reader never sees half a file
/// and a write that fails leaves a previous file in place. Throws core::RuntimeError.
void writeFileAtomically(const std::filesystem::path& path, const std::string& text);

/// Makes `dir` a case folder this program owns: creates it when missing, and takes an empty
/// folder or one holding the marker this function leaves. Refuses (core::InputError naming
/// `option`) anything else, unless `force`: the cfd commands remove and rewrite case folders.
void claimCaseFolder(const std::filesystem::path& dir, bool force, const char* option);
/// Leaves the marker again (the case writer may have cleaned the folder); never throws.
void markCaseFolder(const std::filesystem::path& dir) noexcept;

}  // namespace racktwin::cli
