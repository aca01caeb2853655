// `racktwin run`: load, validate, simulate, write the result and the summary.
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "Commands.hpp"
#include "Progress.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/core/Version.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

namespace racktwin::cli {
namespace {

volatile std::sig_atomic_t g_interrupted = 0;
void onInterrupt(int /*signal*/) {
  g_interrupted = 1;
}

std::string defaultOutput(const std::string& scenario) {
  return (std::filesystem::path("out") / std::filesystem::path(scenario).stem()).string() + ".h5";
}

void writeFileAtomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw core::RuntimeError("cannot write " + path);
  }
  std::filesystem::rename(temporary, path);
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
      std::printf("  %s %12.*g %s\n", label.c_str(), tiny ? 3 : 6, shown,
                  item.display_unit.c_str());
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
    site = scenarios::loadScenario(arguments.scenario, overrides);
  } catch (const core::InputError& error) {
    std::fprintf(stderr, "racktwin: %s\n", error.what());
    return kBadInput;
  }
  for (const std::string& warning : site.input_warnings)
    std::fprintf(stderr, "racktwin: %s\n", warning.c_str());

  const std::string output =
      arguments.output.empty() ? defaultOutput(arguments.scenario) : arguments.output;
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
    sink.reset();
    std::error_code ignored;
    std::filesystem::remove(output, ignored);  // never leave a half-written result
    std::filesystem::remove(output + ".partial", ignored);
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
    std::fprintf(stderr,
                 "racktwin: interrupted at t = %.0f s; %s holds the run so far (complete = 0)\n",
                 twin->time(), output.c_str());
    return kInterrupted;
  }
  return kSuccess;
}

}  // namespace racktwin::cli
