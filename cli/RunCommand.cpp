// `racktwin run`: load, validate, simulate, write the result and the summary.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "Commands.hpp"
#include "OutputFiles.hpp"
#include "Progress.hpp"
#include "RunCheckpoint.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/core/HugePageHeap.hpp"
#include "racktwin/core/LimitMonitor.hpp"
#include "racktwin/core/OutputDetail.hpp"
#include "racktwin/core/ThreadPool.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/core/Version.hpp"
#include "racktwin/report/SummaryLayout.hpp"
#include "racktwin/scenarios/OutputPlan.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

namespace racktwin::cli {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;  // the signal that stopped the run, or 0
void onInterrupt(int signal) {
  g_interrupted = signal;
}

std::string defaultOutput(const std::string& scenario) {
  return (std::filesystem::path("out") / std::filesystem::path(scenario).stem()).string() + ".h5";
}

/// Refuses outputs that would destroy something: see OutputFiles.hpp.
void checkOutputs(const RunArguments& arguments, const std::string& output,
                  const core::SiteSpec& site) {
  std::vector<std::string> inputs = site.input_files;
  inputs.push_back(arguments.scenario);
  checkOutputTarget(output, "-o", inputs);
  if (arguments.summary_json.empty()) return;
  checkOutputTarget(arguments.summary_json, "--summary-json", inputs);
  std::error_code ignored;
  if (std::filesystem::absolute(arguments.summary_json).lexically_normal()
          == std::filesystem::absolute(output).lexically_normal()
      || std::filesystem::equivalent(arguments.summary_json, output, ignored)) {
    throw core::InputError({"<command line>", 0, 0}, "--summary-json",
                           "names the result file itself (" + output + ")");
  }
}

/// The result's channels and size before the run (the level of detail applied).
struct ResultEstimate {
  double bytes = 0.0;
  double values_per_record = 0.0;
  double records = 0.0;
};

ResultEstimate estimateResult(const scenarios::Twin& twin, const core::DetailPlan& plan,
                              const core::Hdf5SinkOptions& options) {
  const core::SimulationSpec& simulation = twin.site().simulation;
  const core::DetailSink::Output output = core::DetailSink::output(
      plan, twin.recorder().recordedChannels(simulation.step, simulation.record_interval));
  ResultEstimate estimate;
  // t = 0, one record per interval, and a last one at the end when the run ends between them.
  estimate.records = std::floor(simulation.duration / simulation.record_interval + 1e-9) + 2.0;
  estimate.values_per_record = 1.0;  // time
  for (const core::ChannelInfo& channel : output.channels)
    estimate.values_per_record += static_cast<double>(channel.width());
  estimate.bytes = core::estimatedResultBytes(output.channels, output.entity_lists,
                                              static_cast<std::size_t>(estimate.records), options);
  // The tables written at the end: a row per design limit (twin.limits() knows them all now).
  estimate.bytes += core::estimatedTableBytes(twin.limits().limitTable())
                    + core::estimatedTableBytes(twin.limits().headroomTable());
  return estimate;
}

constexpr double kWarnBytes = 10e9;  // warn above 10 GB

/// Refuses (InputError) a run whose estimated result does not fit the free space of the output's
/// file system, and warns about a large one.
void checkFreeSpace(const ResultEstimate& result, const std::string& output, bool skip) {
  const double estimate = result.bytes;
  std::filesystem::path folder = std::filesystem::absolute(output).parent_path();
  std::error_code error;
  while (!folder.empty() && !std::filesystem::exists(folder, error) && folder.has_parent_path()
         && folder.parent_path() != folder) {
    folder = folder.parent_path();
  }
  const std::filesystem::space_info space = std::filesystem::space(folder, error);
  const double available = error ? -1.0 : static_cast<double>(space.available);
  char text[400];
  if (!skip && available >= 0.0 && estimate > available) {
    std::snprintf(text, sizeof text,
                  "the result would take about %.3g GB but only %.3g GB are free in %s; record "
                  "less often (simulation.record_interval), record fewer GPUs one by one "
                  "(--per-gpu), shorten the run, or free space (--no-space-check runs anyway)",
                  estimate / 1e9, available / 1e9, folder.string().c_str());
    throw core::InputError({"<command line>", 0, 0}, "-o", text);
  }
  if (estimate > kWarnBytes) {
    std::fprintf(stderr,
                 "racktwin: warning: the result will take about %.3g GB (%.3g GB free); "
                 "simulation.record_interval records less often, --per-gpu none records "
                 "aggregates instead of every GPU\n",
                 estimate / 1e9, available / 1e9);
  }
}

/// One line of the summary: label, dots, value and unit (US customary when asked for).
void printSummaryItem(const core::SummaryItem& item, std::size_t label_width, bool us_units) {
  std::string label = item.label.empty() ? item.key : item.label;
  label += ' ';
  while (label.size() < label_width)
    label += '.';
  if (!item.value) {
    std::printf("    %s %12s\n", label.c_str(), "n/a");
    return;
  }
  double shown = *item.value * item.display_scale + item.display_offset;
  std::string_view unit = item.display_unit;
  // Heat in ton-hours; electrical energies and powers stay kWh and kW.
  if (const auto us = us_units ? core::usCustomaryFromMetric(unit, item.heat) : std::nullopt) {
    shown = shown * us->scale + us->offset;
    unit = us->unit;
  }
  const bool tiny = std::abs(shown) > 0.0 && std::abs(shown) < 1e-3;
  std::printf("    %s %12.*g%s%.*s\n", label.c_str(), tiny ? 3 : 6, shown, unit.empty() ? "" : " ",
              static_cast<int>(unit.size()), unit.data());
}

/// What the result will hold and its size, before the run.
void printPlan(const scenarios::Twin& twin, const core::DetailPlan& plan,
               const ResultEstimate& estimate) {
  std::size_t detailed = plan.rack_ids.size();
  if (!plan.rack_detail.empty()) {
    detailed = static_cast<std::size_t>(
        std::count(plan.rack_detail.begin(), plan.rack_detail.end(), std::uint8_t{1}));
  }
  std::string levels;
  for (const core::DetailPlan::Level& level : plan.levels)
    levels += (levels.empty() ? "" : ", ") + level.name;
  std::printf(
      "result: about %.3g MB (%.0f values a record, %.0f records); GPUs, CPUs, NVSwitches "
      "and trays one by one in %zu of %zu racks; aggregates: %s; hottest GPUs: %zu; "
      "deflate %d\n",
      estimate.bytes / 1e6, estimate.values_per_record, estimate.records, detailed,
      plan.rack_ids.size(), levels.empty() ? "none" : levels.c_str(), plan.hottest,
      twin.site().output.compression);
}

/// The exceeded ratings and the headroom table (docs/capacity.md).
void printLimits(const core::LimitMonitor& limits) {
  const std::vector<std::string> violations = limits.violationLines();
  if (!violations.empty()) std::printf("\n  design limits exceeded (worst first):\n");
  for (const std::string& line : violations)
    std::printf("    %s\n", line.c_str());
  const std::vector<core::HeadroomRow> headroom = limits.headroom();
  if (headroom.empty()) return;
  std::printf(
      "\n  headroom (worst margin over the run, fraction of the rating; 10 K for "
      "temperatures):\n");
  std::printf("    %-8s %-24s %9s %9s  %s\n", "kind", "group", "margin", "at", "binding limit");
  for (const core::HeadroomRow& row : headroom) {
    const core::DesignLimit& limit = limits.limits()[row.binding];
    std::printf("    %-8s %-24s %8.1f%% %7.0f s  %s (%s)\n", row.group_kind.c_str(),
                row.group.c_str(), 100.0 * row.worst_margin_fraction, row.worst_time,
                limit.id().c_str(), limit.label.c_str());
  }
}

void printSummary(const core::Summary& summary, const scenarios::Twin& twin,
                  const std::string& output, double wall_s, bool us_units) {
  const core::SiteSpec& site = twin.site();
  std::printf("%s: %s\n", std::string(core::programVersion()).c_str(), site.name.c_str());
  std::printf("  scenario   %s\n", site.scenario_path.c_str());
  std::printf("  simulated  %.0f s in %g s steps (%d sub-steps), %zu samples every %g s\n",
              twin.time(), site.simulation.step, site.simulation.substeps,
              twin.recorder().samplesTaken(), site.simulation.record_interval);
  std::printf("  result     %s\n", output.c_str());
  std::printf("  wall time  %.2f s\n\n", wall_s);
  // The answers first, then one block per domain (report/SummaryLayout: the one table of that
  // order); sections with nothing in them are left out.
  std::vector<std::string> keys;
  std::vector<std::optional<double>> values;
  for (const core::SummaryItem& item : summary.items()) {
    keys.push_back(item.key);
    values.push_back(item.value);
  }
  // Values line up after the longest label (up to 72 characters).
  std::size_t width = 44;
  for (const core::SummaryItem& item : summary.items())
    width = std::max(width, std::min<std::size_t>(item.label.size() + 4, 72));
  bool first = true;
  for (const report::SummaryGroup& group : report::arrangeSummary(keys, values)) {
    std::printf("%s  %s\n", first ? "" : "\n",
                std::string(report::sectionTitle(group.section)).c_str());
    for (const std::size_t i : group.items)
      printSummaryItem(summary.items()[i], width, us_units);
    first = false;
  }
  printLimits(twin.limits());
  // Values outside their engineering range (docs/scenario-format.md, "Plausible ranges").
  if (!site.input_warnings.empty()) std::printf("\n  input warnings:\n");
  for (const std::string& warning : site.input_warnings)
    std::printf("    %s\n", warning.c_str());
}

std::string absolutePath(const std::string& path) {
  return std::filesystem::absolute(path).lexically_normal().string();
}

/// `--resume PATH`: reads the checkpoint beside the result and makes `run` the arguments the run
/// was started with. Returns an exit code, or kSuccess to go on.
int prepareResume(const RunArguments& given, RunArguments& run,
                  std::optional<RunCheckpoint>& checkpoint) {
  if (!given.output.empty() || given.duration_s || given.step_s || given.record_interval_s
      || !given.summary_json.empty() || given.allow_outside_paths || given.save_state_interval_s
      || given.save_state_wall_interval_s || given.per_gpu || given.hottest_gpus || given.aggregates
      || given.compression) {
    std::fprintf(stderr,
                 "racktwin: <command line>: key '--resume': continues the run as it was started; "
                 "-o, --duration, --step, --record-interval, --summary-json, "
                 "--allow-outside-paths, --save-state-interval, --save-state-wall-interval, "
                 "--per-gpu, --hottest-gpus, "
                 "--aggregates and --compression cannot be given with it\n");
    return kBadInput;
  }
  std::string output = given.resume;
  const std::string suffix = ".partial";
  if (output.size() > suffix.size()
      && output.compare(output.size() - suffix.size(), suffix.size(), suffix) == 0) {
    output.resize(output.size() - suffix.size());
  }
  try {
    checkpoint = readRunCheckpoint(checkpointPath(output));
  } catch (const core::InputError& error) {
    std::fprintf(stderr, "racktwin: %s\n", error.what());
    return kBadInput;
  }
  const RunCheckpoint& c = *checkpoint;
  const std::string here(core::programVersion());
  if (c.program_version != here) {
    std::fprintf(stderr,
                 "racktwin: %s: key '--resume': the checkpoint was written by %.80s; this is %s, "
                 "which cannot continue it (run the scenario again)\n",
                 checkpointPath(output).c_str(), c.program_version.c_str(), here.c_str());
    return kBadInput;
  }
  std::error_code ignored;
  if (!given.scenario.empty()
      && !std::filesystem::equivalent(given.scenario, c.scenario_absolute, ignored)) {
    std::fprintf(stderr,
                 "racktwin: <command line>: key 'scenario': %s is not the scenario of the run to "
                 "resume (%s)\n",
                 given.scenario.c_str(), c.scenario_absolute.c_str());
    return kBadInput;
  }
  run = given;
  run.scenario = c.scenario_absolute;
  run.output = output;
  run.summary_json = c.summary_json;
  run.step_s = c.step_s;
  run.duration_s = c.duration_s;
  run.record_interval_s = c.record_interval_s;
  run.allow_outside_paths = c.allow_outside_paths;
  run.save_state_interval_s = c.save_state_interval_s;
  run.save_state_wall_interval_s = c.save_state_wall_interval_s;
  run.per_gpu = c.per_gpu;
  run.hottest_gpus = c.hottest_gpus;
  run.aggregates = c.aggregates;
  run.compression = c.compression;
  return kSuccess;
}

/// The scenario and every file it read must be the bytes the run was started with.
int checkResumeInputs(const RunCheckpoint& c, const core::SiteSpec& site,
                      const std::string& checkpoint) {
  auto refuse = [&](const std::string& what) {
    std::fprintf(stderr,
                 "racktwin: %s: key '--resume': %s since the run was started; it cannot "
                 "be continued (run the scenario again)\n",
                 checkpoint.c_str(), what.c_str());
    return kBadInput;
  };
  if (fnv1a64(site.scenario_text) != c.scenario_hash) {
    return refuse("the scenario " + c.scenario_absolute + " has changed");
  }
  if (site.input_files.size() != c.inputs.size())
    return refuse("the scenario's input files changed");
  for (std::size_t k = 0; k < c.inputs.size(); ++k) {
    const std::optional<std::uint64_t> hash = fileHash(site.input_files[k]);
    if (absolutePath(site.input_files[k]) != c.inputs[k].path || !hash
        || *hash != c.inputs[k].hash) {
      return refuse("the input file " + c.inputs[k].path + " has changed");
    }
  }
  return kSuccess;
}

/// The file a resumed run continues: <output>.partial (killed), or <output> with complete = 0
/// (interrupted, renamed back to <output>.partial). Returns an exit code, or kSuccess.
int locateResumedFile(const std::string& output) {
  const std::string partial = output + ".partial";
  std::error_code ignored;
  try {
    if (!std::filesystem::is_regular_file(partial, ignored)) {
      if (!std::filesystem::is_regular_file(output, ignored)) {
        std::fprintf(stderr, "racktwin: %s: key '--resume': neither %s nor %s exists\n",
                     checkpointPath(output).c_str(), partial.c_str(), output.c_str());
        return kBadInput;
      }
      const core::ResultFileInfo info = core::readResultInfo(output);
      const auto complete = info.attributes.find("complete");
      if (complete == info.attributes.end() || complete->second != "0") {
        std::fprintf(stderr, "racktwin: %s: key '--resume': the run is complete already\n",
                     output.c_str());
        return kBadInput;
      }
      std::filesystem::rename(output, partial);
    }
    // Read through the checked reader first: a damaged file is refused, not written into.
    const core::ResultFileInfo info = core::readResultInfo(partial);
    const auto complete = info.attributes.find("complete");
    if (complete == info.attributes.end() || complete->second != "0") {
      std::fprintf(stderr,
                   "racktwin: %s: key '--resume': not an interrupted result (complete "
                   "is not 0)\n",
                   partial.c_str());
      return kBadInput;
    }
  } catch (const core::InputError& error) {
    std::fprintf(stderr, "racktwin: %s; it cannot be resumed\n", error.what());
    return kBadInput;
  } catch (const std::filesystem::filesystem_error& error) {
    std::fprintf(stderr, "racktwin: %s: %s\n", output.c_str(), error.what());
    return kRunFailed;
  }
  return kSuccess;
}

RunCheckpoint describeRun(const RunArguments& run, const core::SiteSpec& site,
                          const std::string& output) {
  RunCheckpoint c;
  c.program_version = std::string(core::programVersion());
  c.scenario_argument = site.scenario_path;
  c.scenario_absolute = std::filesystem::absolute(run.scenario).lexically_normal().string();
  c.scenario_hash = fnv1a64(site.scenario_text);
  for (const std::string& file : site.input_files)
    c.inputs.push_back({absolutePath(file), fileHash(file).value_or(0)});
  c.step_s = run.step_s;
  c.duration_s = run.duration_s;
  c.record_interval_s = run.record_interval_s;
  c.allow_outside_paths = run.allow_outside_paths;
  c.save_state_interval_s = run.save_state_interval_s.value_or(0.0);
  c.save_state_wall_interval_s =
      run.save_state_wall_interval_s.value_or(kDefaultSaveStateWallInterval_s);
  c.per_gpu = run.per_gpu;
  c.hottest_gpus = run.hottest_gpus;
  c.aggregates = run.aggregates;
  c.compression = run.compression;
  c.output = std::filesystem::absolute(output).lexically_normal().string();
  if (!run.summary_json.empty()) {
    c.summary_json = std::filesystem::absolute(run.summary_json).lexically_normal().string();
  }
  return c;
}

/// Test hook: RACKTWIN_TEST_SIGNAL_AT_S=t makes the process send itself a signal at the end of
/// the first step reaching simulated time t (after any checkpoint due there): SIGKILL, as
/// `kill -9` would, or the one RACKTWIN_TEST_SIGNAL names (TERM, INT). Tests interrupt runs at
/// exact moments this way instead of racing a timer.
struct TestSignal {
  double time = std::numeric_limits<double>::infinity();
  int signal = SIGKILL;
};
TestSignal testSignal() {
  TestSignal hook;
  const char* at = std::getenv("RACKTWIN_TEST_SIGNAL_AT_S");
  if (at == nullptr || *at == '\0') return hook;
  hook.time = std::strtod(at, nullptr);
  const char* name = std::getenv("RACKTWIN_TEST_SIGNAL");
  const std::string which = name == nullptr ? "" : name;
  if (which == "TERM") hook.signal = SIGTERM;
  if (which == "INT") hook.signal = SIGINT;
  return hook;
}

}  // namespace

int runCommand(const RunArguments& arguments) {
  RunArguments run = arguments;
  std::optional<RunCheckpoint> resumed;
  if (!arguments.resume.empty()) {
    if (const int code = prepareResume(arguments, run, resumed); code != kSuccess) return code;
  } else if (arguments.scenario.empty()) {
    std::fprintf(stderr,
                 "racktwin: <command line>: key 'scenario': a scenario file is needed "
                 "(or --resume RESULT to continue an interrupted run)\n");
    return kBadInput;
  }
  if (run.save_state_interval_s
      && !(*run.save_state_interval_s >= 0.0 && std::isfinite(*run.save_state_interval_s))) {
    std::fprintf(stderr,
                 "racktwin: <command line>: key '--save-state-interval': expected "
                 "simulated seconds >= 0 (0: no checkpoints by simulated time)\n");
    return kBadInput;
  }
  if (run.save_state_wall_interval_s
      && !(*run.save_state_wall_interval_s >= 0.0
           && std::isfinite(*run.save_state_wall_interval_s))) {
    std::fprintf(stderr,
                 "racktwin: <command line>: key '--save-state-wall-interval': expected "
                 "wall-clock seconds >= 0 (0: no checkpoints by the clock)\n");
    return kBadInput;
  }

  core::SiteSpec site;
  try {
    // Command-line overrides are checked by the loader with the file's rules; errors name them.
    scenarios::SimulationOverrides overrides;
    overrides.step = run.step_s;
    overrides.duration = run.duration_s;
    overrides.record_interval = run.record_interval_s;
    site =
        scenarios::loadScenario(run.scenario, overrides,
                                run.allow_outside_paths ? scenarios::OutsidePaths::Allowed
                                                        : scenarios::OutsidePaths::ScenarioDecides);
    scenarios::OutputOverrides output_overrides;
    output_overrides.per_gpu = run.per_gpu;
    output_overrides.hottest_gpus = run.hottest_gpus;
    output_overrides.aggregates = run.aggregates;
    output_overrides.compression = run.compression;
    scenarios::applyOutputOverrides(site, output_overrides);
  } catch (const core::InputError& error) {
    std::fprintf(stderr, "racktwin: %s\n", error.what());
    return kBadInput;
  }
  for (const std::string& warning : site.input_warnings)
    std::fprintf(stderr, "racktwin: %s\n", warning.c_str());

  const std::string output = run.output.empty() ? defaultOutput(run.scenario) : run.output;
  const std::string checkpoint_path = checkpointPath(output);
  RunCheckpoint checkpoint;
  if (resumed) {
    if (const int code = checkResumeInputs(*resumed, site, checkpoint_path); code != kSuccess) {
      return code;
    }
    site.scenario_path = resumed->scenario_argument;  // the result records the path as given
    checkpoint = *resumed;
    checkpoint.state.clear();
  } else {
    checkpoint = describeRun(run, site, output);
  }
  try {
    checkOutputs(run, output, site);
    checkOutputTarget(checkpoint_path, "-o", site.input_files);
  } catch (const core::InputError& error) {
    std::fprintf(stderr, "racktwin: %s\n", error.what());
    return kBadInput;
  }
  // With RACKTWIN_HUGE_PAGES=1, a large site's state on transparent huge pages, reserved before
  // the twin allocates it.
  core::reserveHugePageHeapFor(site);
  std::unique_ptr<scenarios::Twin> twin;
  try {
    twin = std::make_unique<scenarios::Twin>(
        std::move(site), run.threads > 0 ? run.threads : core::ThreadPool::defaultThreads());
  } catch (const std::invalid_argument& error) {
    // A combination of valid values the models cannot build (e.g. an impossible CDU rating).
    std::fprintf(stderr, "racktwin: %s: %s\n", run.scenario.c_str(), error.what());
    return kBadInput;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "racktwin: cannot assemble the site: %s\n", error.what());
    return kRunFailed;
  }
  const core::DetailPlan detail_plan = scenarios::detailPlanOf(twin->site());
  const core::Hdf5SinkOptions sink_options = scenarios::sinkOptionsOf(twin->site());
  const ResultEstimate estimate = estimateResult(*twin, detail_plan, sink_options);
  if (!arguments.quiet) printPlan(*twin, detail_plan, estimate);
  if (resumed) {
    if (const int code = locateResumedFile(output); code != kSuccess) return code;
  } else {
    try {
      checkFreeSpace(estimate, output, run.no_space_check);
    } catch (const core::InputError& error) {
      std::fprintf(stderr, "racktwin: %s\n", error.what());
      return kBadInput;
    }
    // A checkpoint left by an earlier run of this output belongs to that run's rows.
    removeRotated(checkpoint_path);
  }

  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<core::RecorderSink> sink;
  std::unique_ptr<core::DetailSink> detail;
  bool complete = false;
  core::Summary summary;
  const double save_interval = checkpoint.save_state_interval_s;
  const double save_wall_interval = checkpoint.save_state_wall_interval_s;
  TestSignal test_signal = testSignal();
  // A checkpoint that cannot be written (a full disk) does not stop the run: the previous one
  // still fits the result file (a resume cuts the rows after it), so it stays.
  bool warned_checkpoint = false;
  auto saveCheckpoint = [&] {
    checkpoint.state = twin->saveState(std::move(checkpoint.state));
    checkpoint.rows = twin->recorder().samplesTaken();
    checkpoint.time_s = twin->time();
    try {
      writeRunCheckpoint(checkpoint_path, checkpoint);
    } catch (const core::RuntimeError& error) {
      if (!warned_checkpoint) {
        std::fprintf(stderr, "racktwin: warning: no checkpoint at t = %.0f s: %s\n", twin->time(),
                     error.what());
      }
      warned_checkpoint = true;
    }
    // The bytes stay allocated for the next checkpoint: the peak is the same, and a save does
    // not fault in (zero) 100 MB of new pages each time.
  };
  try {
    const std::filesystem::path parent = std::filesystem::path(output).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
    core::Hdf5SinkOptions options = sink_options;
    if (resumed) {
      options.resume = true;
      options.resume_rows = resumed->rows;
      options.resume_time = resumed->time_s;
    }
    sink = core::makeHdf5Sink(output, options);
    // The level of detail sits between the recorder and the file (core/OutputDetail.hpp).
    detail = std::make_unique<core::DetailSink>(detail_plan, *sink);
    twin->addSink(*detail);
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    if (resumed) {
      try {
        twin->resume(resumed->state);
      } catch (const core::RuntimeError& error) {
        std::fprintf(stderr, "racktwin: %s: key '--resume': %s\n", checkpoint_path.c_str(),
                     error.what());
        return kBadInput;
      }
      resumed->state.clear();
      resumed->state.shrink_to_fit();
    } else {
      twin->initialize();
    }
    // Checkpoints at the first step end at or after each multiple of the interval.
    const double slack = 1e-9 * twin->site().simulation.step;
    auto nextSave = [&](double t) {
      return save_interval > 0.0 ? (std::floor(t / save_interval + 1e-9) + 1.0) * save_interval
                                 : std::numeric_limits<double>::infinity();
    };
    double next_save = nextSave(twin->time());
    // And at the first step end once the wall-clock interval has passed since the last one (or
    // the run's start). Where they fall changes no result: a resume continues the same state.
    auto last_save_wall = std::chrono::steady_clock::now();
    const auto wallDue = [&] {
      return save_wall_interval > 0.0
             && std::chrono::duration<double>(std::chrono::steady_clock::now() - last_save_wall)
                        .count()
                    >= save_wall_interval;
    };
    Progress progress(twin->duration());
    bool more = true;
    while (g_interrupted == 0 && more) {
      more = twin->step();
      if (!arguments.quiet) progress.update(twin->time());
      if (more && (twin->time() >= next_save - slack || wallDue())) {
        saveCheckpoint();
        next_save = nextSave(twin->time());
        last_save_wall = std::chrono::steady_clock::now();
      }
      if (twin->time() >= test_signal.time - slack) {
        std::raise(test_signal.signal);
        test_signal.time = std::numeric_limits<double>::infinity();
      }
    }
    progress.finish();
    complete = !more;
    // An interrupt ends the run at the end of a step: that step is the checkpoint to go on from.
    if (!complete) saveCheckpoint();
    summary = twin->finish(complete);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "racktwin: the run failed at t = %.3f s: %s\n", twin->time(),
                 error.what());
    // The sink keeps the rows so far in <output>.partial (complete = 0); a previous result under
    // the output's name stays as it was.
    detail.reset();
    sink.reset();
    std::error_code ignored;
    if (std::filesystem::is_regular_file(output + ".partial", ignored)) {
      std::fprintf(
          stderr, "racktwin: %s.partial holds the run so far (complete = 0)%s\n", output.c_str(),
          std::filesystem::exists(output, ignored) ? "; the previous result is unchanged" : "");
    }
    return kRunFailed;
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (complete) removeRotated(checkpoint_path);

  if (!run.summary_json.empty()) {
    try {
      writeFileAtomically(run.summary_json, summary.toJson());
    } catch (const std::exception& error) {
      std::fprintf(stderr, "racktwin: %s\n", error.what());
      return kRunFailed;
    }
  }
  // A rating exceeded is said first, on stderr (the run's answer may be that it is exceeded).
  for (const std::string& line : twin->limits().violationLines())
    std::fprintf(stderr, "racktwin: RATING EXCEEDED: %s\n", line.c_str());
  for (const std::string& line : twin->runWarnings())
    std::fprintf(stderr, "racktwin: warning: %s\n", line.c_str());
  if (!arguments.quiet) printSummary(summary, *twin, output, wall_s, run.us_units);
  if (!complete) {
    std::fprintf(stderr,
                 "racktwin: %s at t = %.0f s; %s holds the run so far (complete = 0); "
                 "`racktwin run --resume %s` continues it\n",
                 g_interrupted == SIGTERM ? "terminated" : "interrupted", twin->time(),
                 output.c_str(), output.c_str());
    return g_interrupted == SIGTERM ? kTerminated : kInterrupted;
  }
  return kSuccess;
}

}  // namespace racktwin::cli
