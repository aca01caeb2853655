#pragma once
// What the CLI writes must never destroy anything else: a device node, a FIFO, a folder or a link
// given as an output, the run's own inputs, or an unrelated folder given as a CFD case folder.
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
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

/// The same guarantee for a large file made of `pieces` (written one after the other, never
/// joined in memory) that is replaced again and again (a run's checkpoints): the new file is
/// written over `<path>.partial` in place and exchanged with `path` in one step
/// (renameat2 RENAME_EXCHANGE), so `<path>.partial` then holds the file it replaced and the next
/// write reuses its pages instead of taking fresh ones (on a virtual machine whose host takes
/// freed memory back, fresh pages made a 140 MB write some 30 times slower). A file system
/// that cannot exchange gets a plain rename. Remove both files with removeRotated().
void writeFileRotating(const std::filesystem::path& path,
                       std::initializer_list<std::string_view> pieces);
/// Removes `path` and `<path>.partial` when they are regular files; never throws.
void removeRotated(const std::filesystem::path& path);

/// Makes `dir` a case folder this program owns: creates it when missing, and takes an empty
/// folder or one holding the marker this function leaves. Refuses (core::InputError naming
/// `option`) anything else, unless `force`: the cfd commands remove and rewrite case folders.
void claimCaseFolder(const std::filesystem::path& dir, bool force, const char* option);
/// Leaves the marker again (the case writer may have cleaned the folder); never throws.
void markCaseFolder(const std::filesystem::path& dir) noexcept;

}  // namespace racktwin::cli
