#pragma once
// The subcommands of the racktwin program. Each returns the process exit code.
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace racktwin::cli {

/// Exit codes: 0 success, 1 the run failed, 2 bad input or usage, 130 interrupted (SIGINT),
/// 143 terminated (SIGTERM): 128 + the signal, as a shell reports a process the signal killed.
enum ExitCode : int {
  kSuccess = 0,
  kRunFailed = 1,
  kBadInput = 2,
  kInterrupted = 130,
  kTerminated = 143
};

struct RunArguments {
  std::string scenario;
  std::string output;  // empty: out/<scenario name>.h5
  std::optional<double> duration_s;
  std::optional<double> step_s;
  std::optional<double> record_interval_s;
  std::string summary_json;
  bool quiet = false;
  bool no_space_check = false;       // run even when the result's size estimate exceeds free space
  bool allow_outside_paths = false;  // the scenario may read files outside its folder
  // Checkpoints (<output>.resume): every so many simulated seconds (0 or unset: none by
  // simulated time), and once so many seconds of the run's wall time have passed since the last
  // (0: none by the clock; unset: the default).
  std::optional<double> save_state_interval_s;
  std::optional<double> save_state_wall_interval_s;
  std::string resume;     // --resume: the result (or <result>.partial) of an interrupted run
  bool us_units = false;  // --units us: the printed summary in US customary units
  // The result's level of detail and compression (override the scenario's `output` keys).
  std::optional<std::string> per_gpu;       // --per-gpu auto|all|none|ID,...
  std::optional<std::string> hottest_gpus;  // --hottest-gpus N|auto
  std::optional<std::string> aggregates;    // --aggregates auto|none|rack,row,hall
  std::optional<std::string> compression;   // --compression 0-9
  unsigned threads = 0;  // --threads: the models' threads; 0 = the processors it may run on
};

/// By default a run saves a checkpoint after every 5 minutes of its wall time: that bounds the work
/// a crash loses whatever the run's speed, and costs little (a 100k-GPU site's checkpoint takes
/// 0.35-0.42 s). A checkpoint every so many simulated seconds would cost a fast run more than it
/// protects (a 25 s hour of the 100k site, 5 of them) and a slow one could lose hours.
inline constexpr double kDefaultSaveStateWallInterval_s = 300.0;

struct HydraulicsArguments {
  std::string input;  // EPANET .inp file
  double time_s = 0.0;
  bool json = false;
  bool extended_period = false;  // simulate from 0 to time_s, tank levels moving
};

/// A subcommand that lives in its own file: it declares its options on the parser and hands back
/// what runs it once the command line has been parsed.
struct Subcommand {
  CLI::App* command = nullptr;
  std::function<int()> run;
};

/// Runs a command's body and turns the errors it reports into exit codes, printed as
/// "racktwin: <message>" on stderr: core::InputError -> kBadInput, any other core::Error ->
/// kRunFailed (CommandErrors.cpp).
int exitCodeOf(const std::function<int()>& body);

/// `racktwin cfd channel` and `racktwin cfd coldplate` (CfdCommand.cpp).
std::vector<Subcommand> addCfdCommands(CLI::App& app);
/// `racktwin export-csv` (CsvCommand.cpp).
std::vector<Subcommand> addCsvCommand(CLI::App& app);
/// `racktwin report` (ReportCommand.cpp).
std::vector<Subcommand> addReportCommand(CLI::App& app);
/// `racktwin sweep`, `racktwin envelope` and `racktwin compare` (SweepCommands.cpp).
std::vector<Subcommand> addSweepCommands(CLI::App& app);
/// `racktwin export-vtk` and `racktwin render` (VtkCommands.cpp; needs the VTK scene library).
std::vector<Subcommand> addVtkCommands(CLI::App& app);

int runCommand(const RunArguments& arguments);
int hydraulicsCommand(const HydraulicsArguments& arguments);
int infoCommand(const std::string& result_path);

}  // namespace racktwin::cli
