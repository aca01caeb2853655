#include "racktwin/cfd/ProcessRunner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "racktwin/cfd/CaseWriter.hpp"
#include "racktwin/cfd/CfdError.hpp"

namespace racktwin::cfd {

namespace fs = std::filesystem;

namespace {

// Owns the spawn attribute objects so every exit path releases them.
struct SpawnSetup {
  posix_spawn_file_actions_t actions{};
  posix_spawnattr_t attributes{};
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

std::string describe(const ProcessRequest& request) {
  std::string out = request.program;
  for (const std::string& a : request.arguments)
    out += " " + a;
  return out;
}

}  // namespace

ProcessRunner::ProcessRunner(OpenFoamEnvironment environment)
    : environment_(std::move(environment)) {}

ProcessResult ProcessRunner::run(const ProcessRequest& request) const {
  environment_.check();
  const fs::path program = environment_.program(request.program);
  const fs::path log =
      request.log_file.is_absolute() ? request.log_file : request.working_dir / request.log_file;
  writeTextFile(log, "");  // creates the directory and truncates an old log

  std::vector<std::string> argv_strings;
  argv_strings.push_back(program.string());
  for (const std::string& a : request.arguments)
    argv_strings.push_back(a);
  std::vector<char*> argv;
  for (std::string& s : argv_strings)
    argv.push_back(s.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings = environment_.childEnvironment();
  std::vector<char*> envp;
  for (std::string& s : env_strings)
    envp.push_back(s.data());
  envp.push_back(nullptr);

  SpawnSetup setup;
  posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&setup.actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&setup.actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addchdir_np(&setup.actions, request.working_dir.c_str());
  // The child stays in our process group, so an interrupt at the terminal (or a kill of the
  // whole job) stops it with us; a timeout signals the child, and mpirun passes that on to its
  // ranks.
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, program.c_str(), &setup.actions, &setup.attributes, argv.data(),
                             envp.data());
  if (rc != 0) {
    throw CfdError("cannot start " + program.string() + " in " + request.working_dir.string() + ": "
                   + std::strerror(rc));
  }

  ProcessResult result;
  result.log_file = log;
  int status = 0;
  auto sleep = std::chrono::milliseconds(2);
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      throw CfdError("lost track of " + request.program + ": " + std::strerror(errno));
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > request.timeout_s) {
      result.timed_out = true;
      ::kill(pid, SIGTERM);  // a second to stop, then SIGKILL
      bool reaped = false;
      for (int i = 0; i < 50 && !reaped; ++i) {
        reaped = ::waitpid(pid, &status, WNOHANG) == pid;
        if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      if (!reaped) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
      }
      break;
    }
    std::this_thread::sleep_for(sleep);
    if (sleep < std::chrono::milliseconds(50)) sleep *= 2;
  }
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  result.log = scanLog(readTextFile(log));
  return result;
}

ProcessResult ProcessRunner::runChecked(const ProcessRequest& request) const {
  ProcessResult result = run(request);
  const std::string where = "'" + describe(request) + "' in " + request.working_dir.string()
                            + " (log " + result.log_file.string() + ")";
  auto details = [&]() {
    if (!result.log.fatal.empty()) return "\n  " + result.log.fatal;
    return "\n  last lines of the log:\n" + tailLines(readTextFile(result.log_file), 8);
  };
  if (result.timed_out) {
    throw CfdError(where + " did not finish within its timeout of "
                   + std::to_string(static_cast<int>(request.timeout_s)) + " s and was stopped");
  }
  if (result.log.non_finite || result.log.fpe || result.signal == SIGFPE) {
    throw SolverDiverged(where + " diverged: "
                         + (result.log.fpe || result.signal == SIGFPE
                                ? "floating-point exception (NaN or overflow)"
                                : "residuals became NaN/Inf")
                         + details());
  }
  if (result.signal != 0) {
    throw CfdError(where + " was killed by signal " + std::to_string(result.signal) + details());
  }
  if (result.exit_code != 0) {
    throw CfdError(where + " failed with exit code " + std::to_string(result.exit_code)
                   + details());
  }
  return result;
}

}  // namespace racktwin::cfd
