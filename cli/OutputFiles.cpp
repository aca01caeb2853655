#include "OutputFiles.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
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

void writeFileRotating(const fs::path& path, std::initializer_list<std::string_view> pieces) {
  fs::path temporary = path;
  temporary += ".partial";
  const auto fail = [&](const std::string& what, int reason) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw core::RuntimeError(what + (reason != 0 ? std::string(": ") + std::strerror(reason) : ""));
  };
  // Not truncated: the pages the file holds are written over. Never through a symbolic link.
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    // Not opened: whatever stands at that name (a link put there meanwhile) is left alone.
    throw core::RuntimeError("cannot write " + path.string() + ": " + std::strerror(errno));
  }
  off_t offset = 0;
  int reason = 0;
  for (const std::string_view piece : pieces) {
    std::size_t done = 0;
    while (reason == 0 && done < piece.size()) {
      const ssize_t n = ::pwrite(fd, piece.data() + done, piece.size() - done, offset);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        reason = n < 0 ? errno : EIO;
        break;
      }
      done += static_cast<std::size_t>(n);
      offset += n;
    }
  }
  if (reason == 0 && ::ftruncate(fd, offset) != 0) reason = errno;
  if (::close(fd) != 0 && reason == 0) reason = errno;
  if (reason != 0) fail("cannot write " + path.string(), reason);
  std::error_code error;
  if (fs::is_regular_file(fs::symlink_status(path, error))) {
    if (::renameat2(AT_FDCWD, temporary.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
      return;
    }
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) {
      fail("cannot exchange " + temporary.string() + " and " + path.string(), errno);
    }
  }
  fs::rename(temporary, path, error);
  if (error) {
    fail("cannot rename " + temporary.string() + " to " + path.string() + ": " + error.message(),
         0);
  }
}

void removeRotated(const fs::path& path) {
  fs::path temporary = path;
  temporary += ".partial";
  for (const fs::path& file : {path, temporary}) {
    std::error_code ignored;
    if (fs::is_regular_file(fs::symlink_status(file, ignored))) fs::remove(file, ignored);
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
