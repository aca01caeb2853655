// `racktwin run`: load, validate, simulate, write the result and the summary.
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "Commands.hpp"
#include "OutputFiles.hpp"
#include "Progress.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/core/Version.hpp"
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

// The result's size before the run: float64 values per record (time and every channel's
// columns) × records × 8 bytes × kCompressionFactor. Shuffle + deflate gave 0.26 (cluster-64-racks)
// to 0.30 (nvl72-rack) of the raw size over 600 s (`ls -l` against the float values h5py
// counts); 0.5 leaves room for less regular data. Metadata and checksums add well under 1 %.
constexpr double kCompressionFactor = 0.5;
constexpr double kWarnBytes = 10e9;  // warn above 10 GB

double estimatedResultBytes(const scenarios::Twin& twin) {
  double values_per_record = 1.0;  // time
  for (const core::ChannelInfo& channel : twin.recorder().channels())
    values_per_record += static_cast<double>(channel.width());
  const core::SimulationSpec& simulation = twin.site().simulation;
  // t = 0, one record per interval, and a last one at the end when the run ends between them.
  const double records = std::floor(simulation.duration / simulation.record_interval + 1e-9) + 2.0;
  return values_per_record * records * 8.0 * kCompressionFactor;
}

/// Refuses (InputError) a run whose estimated result does not fit the free space of the output's
/// file system, and warns about a large one.
void checkFreeSpace(const scenarios::Twin& twin, const std::string& output, bool skip) {
  const double estimate = estimatedResultBytes(twin);
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
                  "less often (simulation.record_interval), record fewer channels, shorten the "
                  "run, or free space (--no-space-check runs anyway)",
                  estimate / 1e9, available / 1e9, folder.string().c_str());
    throw core::InputError({"<command line>", 0, 0}, "-o", text);
  }
  if (estimate > kWarnBytes) {
    std::fprintf(stderr,
                 "racktwin: warning: the result will take about %.3g GB (%.3g GB free); "
                 "simulation.record_interval records less often\n",
                 estimate / 1e9, available / 1e9);
  }
}

void printSummary(const core::Summary& summary, const scenarios::Twin& twin,
                  const std::string& output, double wall_s) {
  const core::SiteSpec& site = twin.site();
  std::printf("%s: %s\n", std::string(core::programVersion()).c_str(), site.name.c_str());
  std::printf("  scenario   %s\n", site.scenario_path.c_str());
  std::printf("  simulated  %.0f s in %g s steps (%d sub-steps), %zu samples every %g s\n",
              twin.time(), site.simulation.step, site.simulation.substeps,
              twin.recorder().samplesTaken(), site.simulation.record_interval);
  std::printf("  result     %s\n", output.c_str());
  std::printf("  wall time  %.2f s\n\n", wall_s);
  for (const core::SummaryItem& item : summary.items()) {
    std::string label = item.label.empty() ? item.key : item.label;
    label += ' ';
    while (label.size() < 44)
      label += '.';
    if (item.value) {
      const double shown = *item.value * item.display_scale + item.display_offset;
      const bool tiny = std::abs(shown) > 0.0 && std::abs(shown) < 1e-3;
      std::printf("  %s %12.*g%s%s\n", label.c_str(), tiny ? 3 : 6, shown,
                  item.display_unit.empty() ? "" : " ", item.display_unit.c_str());
    } else {
      std::printf("  %s %12s\n", label.c_str(), "n/a");
    }
  }
  // Values outside their engineering range (docs/scenario-format.md, "Plausible ranges").
  if (!site.input_warnings.empty()) std::printf("\n  input warnings:\n");
  for (const std::string& warning : site.input_warnings)
    std::printf("    %s\n", warning.c_str());
}

}  // namespace

int runCommand(const RunArguments& arguments) {
  core::SiteSpec site;
  try {
    // Command-line overrides are checked by the loader with the file's rules; errors name them.
    scenarios::SimulationOverrides overrides;
    overrides.step = arguments.step_s;
    overrides.duration = arguments.duration_s;
    overrides.record_interval = arguments.record_interval_s;
    site = scenarios::loadScenario(arguments.scenario, overrides,
                                  arguments.allow_outside_paths
                                      ? scenarios::OutsidePaths::Allowed
                                      : scenarios::OutsidePaths::ScenarioDecides);
  } catch (const core::InputError& error) {
    std::fprintf(stderr, "racktwin: %s\n", error.what());
    return kBadInput;
  }
  for (const std::string& warning : site.input_warnings)
    std::fprintf(stderr, "racktwin: %s\n", warning.c_str());

  const std::string output =
      arguments.output.empty() ? defaultOutput(arguments.scenario) : arguments.output;
  try {
    checkOutputs(arguments, output, site);
  } catch (const core::InputError& error) {
    std::fprintf(stderr, "racktwin: %s\n", error.what());
    return kBadInput;
  }
  std::unique_ptr<scenarios::Twin> twin;
  try {
    twin = std::make_unique<scenarios::Twin>(std::move(site));
  } catch (const std::invalid_argument& error) {
    // A combination of valid values the models cannot build (e.g. an impossible CDU rating).
    std::fprintf(stderr, "racktwin: %s: %s\n", arguments.scenario.c_str(), error.what());
    return kBadInput;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "racktwin: cannot assemble the site: %s\n", error.what());
    return kRunFailed;
  }
  try {
    checkFreeSpace(*twin, output, arguments.no_space_check);
  } catch (const core::InputError& error) {
    std::fprintf(stderr, "racktwin: %s\n", error.what());
    return kBadInput;
  }

  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<core::RecorderSink> sink;
  bool complete = false;
  core::Summary summary;
  try {
    const std::filesystem::path parent = std::filesystem::path(output).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
    sink = core::makeHdf5Sink(output);
    twin->addSink(*sink);
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    twin->initialize();
    Progress progress(twin->duration());
    while (g_interrupted == 0 && twin->step()) {
      if (!arguments.quiet) progress.update(twin->time());
    }
    progress.finish();
    complete = g_interrupted == 0;
    summary = twin->finish(complete);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "racktwin: the run failed at t = %.3f s: %s\n", twin->time(),
                 error.what());
    // The sink keeps the rows so far in <output>.partial (complete = 0); a previous result under
    // the output's name stays as it was.
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

  if (!arguments.summary_json.empty()) {
    try {
      writeFileAtomically(arguments.summary_json, summary.toJson());
    } catch (const std::exception& error) {
      std::fprintf(stderr, "racktwin: %s\n", error.what());
      return kRunFailed;
    }
  }
  if (!arguments.quiet) printSummary(summary, *twin, output, wall_s);
  if (!complete) {
    std::fprintf(stderr, "racktwin: %s at t = %.0f s; %s holds the run so far (complete = 0)\n",
                 g_interrupted == SIGTERM ? "terminated" : "interrupted", twin->time(),
                 output.c_str());
    return g_interrupted == SIGTERM ? kTerminated : kInterrupted;
  }
  return kSuccess;
}

}  // namespace racktwin::cli
