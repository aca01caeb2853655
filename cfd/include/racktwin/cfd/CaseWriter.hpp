#pragma once
// Writes the files of one OpenFOAM case directory. Paths are relative to the case
// ("system/controlDict", "0/fluid/T"); directories are created as needed. Any failure to write is a
// core::RuntimeError naming the file.
#include <filesystem>
#include <string>
#include <string_view>

#include "racktwin/cfd/FoamDictionary.hpp"

namespace racktwin::cfd {

class CaseWriter {
 public:
  explicit CaseWriter(std::filesystem::path case_dir);

  const std::filesystem::path& caseDir() const noexcept { return case_dir_; }

  /// Writes an OpenFOAM file; the header's location and object come from the relative path.
  void write(const std::filesystem::path& relative, std::string_view class_name,
             const FoamDictionary& body) const;
  /// A dictionary file (class "dictionary").
  void dictionary(const std::filesystem::path& relative, const FoamDictionary& body) const {
    write(relative, "dictionary", body);
  }
  /// A plain text file.
  void text(const std::filesystem::path& relative, std::string_view content) const;

  /// Removes the whole case directory and creates it empty.
  void clean() const;

 private:
  std::filesystem::path case_dir_;
};

/// Writes `content` to `path` (creating parent directories), throwing core::RuntimeError on
/// failure.
void writeTextFile(const std::filesystem::path& path, std::string_view content);
/// Reads a whole file, throwing core::RuntimeError on failure.
std::string readTextFile(const std::filesystem::path& path);

}  // namespace racktwin::cfd
