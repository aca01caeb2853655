#pragma once
// The readers of EPANET and HDF5 files take a path, so a fuzz input is written to a file first:
// one file per process and input under the temporary directory, removed when the input is done.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace racktwin::fuzz {

class FuzzInputFile {
 public:
  /// Writes `size` bytes to <tmp>/racktwin-fuzz-<pid>-<n><extension>. A new name for every input:
  /// the result reader probes a file once per (path, size, mtime), and two inputs of one size
  /// written within a clock tick would otherwise look like the same file.
  FuzzInputFile(const std::uint8_t* data, std::size_t size, const char* extension) {
    static unsigned long long counter = 0;
    std::error_code error;
    path_ = (std::filesystem::temp_directory_path(error)
             / ("racktwin-fuzz-" + std::to_string(getpid()) + "-" + std::to_string(counter++)
                + extension))
                .string();
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) std::perror(path_.c_str());
  }
  ~FuzzInputFile() { std::remove(path_.c_str()); }
  FuzzInputFile(const FuzzInputFile&) = delete;
  FuzzInputFile& operator=(const FuzzInputFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace racktwin::fuzz
