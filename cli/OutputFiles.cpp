#include "OutputFiles.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "racktwin/core/Error.hpp"

namespace racktwin::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCaseMarker = ".racktwin-case";

[[noreturn]] void refuse(const char* option, const std::string& message) {
  throw core::InputError({"<command line>", 0, 0}, option, message);
}

const char* typeName(fs::file_type type) {
  switch (type) {
    case fs::file_type::directory:
      return "a directory";
    case fs::file_type::symlink:
      return "a symbolic link";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::character:
      return "a character device";
    case fs::file_type::fifo:
      return "a FIFO";
    case fs::file_type::socket:
      return "a socket";
    default:
      return "not a regular file";
  }
}

void requireRegularOrMissing(const fs::path& path, const char* option) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(path, error);
  if (status.type() == fs::file_type::not_found) return;
  if (error) refuse(option, "cannot inspect '" + path.string() + "': " + error.message());
  if (status.type() == fs::file_type::regular) return;
  refuse(option, "'" + path.string() + "' exists and is " + typeName(status.type())
                     + "; only a regular file or a new path is written (nothing was changed)");
}

}  // namespace

void checkOutputTarget(const fs::path& target, const char* option,
                       const std::vector<std::string>& inputs) {
  requireRegularOrMissing(target, option);
  fs::path partial = target;
  partial += ".partial";
  requireRegularOrMissing(partial, option);
  std::error_code error;
  if (!fs::exists(target, error)) return;
  for (const std::string& input : inputs) {
    std::error_code ignored;
    if (fs::equivalent(target, input, ignored)) {
      refuse(option, "'" + target.string() + "' is an input of this run (" + input
                         + "); choose another output file");
    }
  }
}

void writeFileAtomically(const fs::path& path, const std::string& text) {
  fs::path temporary = path;
  temporary += ".partial";
  {
    errno = 0;
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      // The stream keeps no reason; the failed write(2) left it in errno (ENOSPC, EACCES, ...).
      const int reason = errno;
      out.close();
      std::error_code ignored;
      fs::remove(temporary, ignored);
      throw core::RuntimeError("cannot write " + path.string()
                               + (reason != 0 ? std::string(": ") + std::strerror(reason) : ""));
    }
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw core::RuntimeError("cannot rename " + temporary.string() + " to " + path.string() + ": "
                             + error.message());
  }
}

void claimCaseFolder(const fs::path& dir, bool force, const char* option) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(dir, error);
  if (status.type() == fs::file_type::not_found) {
    fs::create_directories(dir, error);
    if (error) refuse(option, "cannot create '" + dir.string() + "': " + error.message());
  } else if (status.type() != fs::file_type::directory) {
    refuse(option, "'" + dir.string() + "' exists and is " + typeName(status.type())
                       + ", not a case folder");
  } else if (!force && !fs::is_empty(dir, error)
             && !fs::is_regular_file(dir / kCaseMarker, error)) {
    refuse(option, "'" + dir.string()
                       + "' is a folder this program did not create and is not empty; its "
                         "contents would be removed (give an empty or new folder, or --force)");
  }
  markCaseFolder(dir);
}

void markCaseFolder(const fs::path& dir) noexcept {
  try {
    std::ofstream(dir / kCaseMarker, std::ios::trunc)
        << "A case folder of racktwin cfd: it removes and rewrites what is in here.\n";
  } catch (...) {  // NOLINT(bugprone-empty-catch): a missing marker only makes the next run ask
  }
}

}  // namespace racktwin::cli
