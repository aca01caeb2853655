#include "racktwin/cfd/CaseWriter.hpp"

#include <fstream>
#include <sstream>
#include <system_error>

#include "racktwin/core/Error.hpp"

namespace racktwin::cfd {

namespace fs = std::filesystem;

void writeTextFile(const fs::path& path, std::string_view content) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (ec) {
    throw core::RuntimeError("cannot create directory " + path.parent_path().string() + ": "
                             + ec.message());
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) throw core::RuntimeError("cannot write " + path.string());
}

std::string readTextFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::RuntimeError("cannot read " + path.string());
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

CaseWriter::CaseWriter(fs::path case_dir) : case_dir_(std::move(case_dir)) {}

void CaseWriter::write(const fs::path& relative, std::string_view class_name,
                       const FoamDictionary& body) const {
  const std::string location =
      relative.has_parent_path() ? relative.parent_path().generic_string() : std::string();
  writeTextFile(case_dir_ / relative,
                foamFile(class_name, location, relative.filename().string(), body));
}

void CaseWriter::text(const fs::path& relative, std::string_view content) const {
  writeTextFile(case_dir_ / relative, content);
}

void CaseWriter::clean() const {
  std::error_code ec;
  fs::remove_all(case_dir_, ec);
  if (ec) throw core::RuntimeError("cannot remove " + case_dir_.string() + ": " + ec.message());
  fs::create_directories(case_dir_, ec);
  if (ec) throw core::RuntimeError("cannot create " + case_dir_.string() + ": " + ec.message());
}

}  // namespace racktwin::cfd
