#include "racktwin/report/Pdf.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "racktwin/core/Error.hpp"

extern char** environ;

namespace racktwin::report {
namespace fs = std::filesystem;
namespace {

/// file:// URL of an absolute path, every byte outside the unreserved set percent-encoded.
std::string fileUrl(const fs::path& path) {
  std::string url = "file://";
  for (const unsigned char c : fs::absolute(path).lexically_normal().string()) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      url += static_cast<char>(c);
    } else {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", c);
      url += escaped;
    }
  }
  return url;
}

/// A temporary folder removed when this goes out of scope.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern = (fs::temp_directory_path() / "racktwin-chromium-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
      throw core::RuntimeError("cannot create a temporary folder for Chromium: "
                               + std::string(std::strerror(errno)));
    }
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

void printToPdf(const fs::path& html, const fs::path& pdf, double timeout_s) {
  const char* configured = std::getenv("RACKTWIN_CHROMIUM");
  const std::string program = configured && *configured ? configured : "chromium";
  const TemporaryFolder profile;
  fs::path partial = pdf;
  partial += ".partial";
  std::vector<std::string> arguments{program,
                                     "--headless",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--disable-background-networking",
                                     "--disable-component-update",
                                     "--disable-sync",
                                     "--no-first-run",
                                     "--user-data-dir=" + profile.path().string(),
                                     "--no-pdf-header-footer",
                                     "--run-all-compositor-stages-before-draw",
                                     "--virtual-time-budget=10000",
                                     "--print-to-pdf=" + fs::absolute(partial).string(),
                                     fileUrl(html)};
  std::vector<char*> argv;
  for (std::string& a : arguments)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  const fs::path log = profile.path() / "chromium.log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    throw core::RuntimeError("cannot start " + program + " for --pdf: " + std::strerror(rc)
                             + " (Debian package chromium; tools/setup.sh installs it)");
  }
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw core::RuntimeError("lost track of " + program);
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
        > timeout_s) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      std::error_code ignored;
      fs::remove(partial, ignored);
      throw core::RuntimeError(program + " did not print " + pdf.string() + " within "
                               + std::to_string(static_cast<int>(timeout_s)) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::error_code error;
  const bool printed = WIFEXITED(status) && WEXITSTATUS(status) == 0
                       && fs::is_regular_file(partial, error) && fs::file_size(partial, error) > 0;
  if (!printed) {
    fs::remove(partial, error);
    throw core::RuntimeError(program + " failed to print " + pdf.string() + " (exit status "
                             + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
  }
  fs::rename(partial, pdf, error);
  if (error) {
    throw core::RuntimeError("cannot rename " + partial.string() + " to " + pdf.string() + ": "
                             + error.message());
  }
}

}  // namespace racktwin::report
