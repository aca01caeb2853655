// `racktwin export-vtk` (a ParaView time series of a result) and `racktwin render` (a PNG of the
// site coloured by a quantity at one time, offscreen). Both read the result through
// viz::ResultFrames and report bad input (exit 2) before writing anything.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "Commands.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/viz/ResultFrames.hpp"
#include "racktwin/viz/Scene.hpp"
#include "racktwin/viz/VtkExport.hpp"

namespace racktwin::cli {
namespace {

struct ExportArguments {
  std::string result;
  std::string directory;
  std::size_t every = 1;
  std::string name;
};

struct RenderArguments {
  std::string result;
  std::string output;
  std::optional<double> time_s;
  std::string quantity = "gpu-temperature";
  std::string size = "1280x800";
  std::optional<double> min, max;
  std::string highlight;  // rack id
};

void warnGeometry(const viz::ResultFrames& frames) {
  if (!frames.geometryFromScenario()) {
    std::fprintf(stderr,
                 "racktwin: warning: %s: site layout without the scenario (%s); racks and "
                 "CDUs are laid out by the result's ids and pipes are left out\n",
                 frames.path().c_str(), frames.scenarioProblem().c_str());
  }
  for (const std::string& note : frames.notes())
    std::fprintf(stderr, "racktwin: note: %s: %s\n", frames.path().c_str(), note.c_str());
}

int exportVtk(const ExportArguments& a) {
  return exitCodeOf([&] {
    if (a.every == 0) throw core::InputError({}, "--every", "must be at least 1");
    const viz::ResultFrames frames(a.result);
    warnGeometry(frames);
    viz::ExportOptions options;
    options.every = a.every;
    options.name = a.name.empty() ? std::filesystem::path(a.result).stem().string() : a.name;
    const viz::ExportSummary summary = viz::exportVtkSeries(frames, a.directory, options);
    std::printf("%s: %zu time steps, %zu files\n", summary.pvd_path.c_str(), summary.steps,
                summary.files);
    return kSuccess;
  });
}

/// "1280x800" -> {1280, 800}.
std::pair<int, int> parseSize(const std::string& text) {
  int width = 0, height = 0;
  char x = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &width, &x, &height, &extra) != 3 || x != 'x'
      || width < 16 || height < 16 || width > 8192 || height > 8192) {
    throw core::InputError({}, "--size",
                           "'" + text + "' is not WIDTHxHEIGHT in pixels (16..8192 each), e.g. "
                                        "1280x800");
  }
  return {width, height};
}

int render(const RenderArguments& a) {
  return exitCodeOf([&] {
    const viz::Quantity quantity = viz::parseQuantity(a.quantity);
    const auto [width, height] = parseSize(a.size);
    if (a.min && a.max && !(*a.max > *a.min)) {
      throw core::InputError({}, "--max", "must be above --min");
    }
    const viz::ResultFrames frames(a.result);
    warnGeometry(frames);
    const std::vector<double>& times = frames.times();
    const double t = a.time_s.value_or(times.back());
    if (!std::isfinite(t) || t < times.front() || t > times.back()) {
      throw core::InputError({}, "--time",
                             "time " + std::to_string(t) + " s outside the result's "
                                 + std::to_string(times.front()) + " .. "
                                 + std::to_string(times.back()) + " s");
    }
    viz::Scene scene(frames.geometry());
    scene.setQuantity(quantity);
    // The colour range spans the whole run unless given, so pictures at two times compare.
    auto [lo, hi] = frames.range(quantity);
    if (a.min) lo = *a.min;
    if (a.max) hi = *a.max;
    if (!std::isnan(lo) && !std::isnan(hi)) scene.setRange(lo, hi);
    if (!a.highlight.empty()) {
      const int rack = frames.geometry().findRack(a.highlight);
      if (rack < 0) throw core::InputError({}, "--highlight", "no rack '" + a.highlight + "'");
      scene.highlightRack(rack);
    }
    scene.setTitle(frames.siteName());
    scene.update(frames.frame(frames.indexAt(t)));
    scene.renderPng(a.output, width, height);
    std::printf("%s: %s at t = %g s, %dx%d\n", a.output.c_str(),
                std::string(viz::quantityInfo(quantity).label).c_str(),
                frames.times()[frames.indexAt(t)], width, height);
    return kSuccess;
  });
}

}  // namespace

std::vector<Subcommand> addVtkCommands(CLI::App& app) {
  std::vector<Subcommand> commands;

  auto exporting = std::make_shared<ExportArguments>();
  CLI::App* export_command = app.add_subcommand(
      "export-vtk", "Write a result as a ParaView time series (.pvd of .vtp: racks, CDUs, pipes)");
  export_command->add_option("result", exporting->result, "Result file (HDF5)")->required();
  export_command->add_option("directory", exporting->directory, "Output directory")->required();
  export_command->add_option("--every", exporting->every,
                             "Export every N-th recorded sample (and the last)");
  export_command->add_option("--name", exporting->name,
                             "Stem of the .pvd file (default: the result's stem)");
  commands.push_back({export_command, [exporting] { return exportVtk(*exporting); }});

  auto rendering = std::make_shared<RenderArguments>();
  CLI::App* render_command = app.add_subcommand(
      "render",
      "Render the site coloured by a quantity at one time to a PNG (offscreen; needs "
      "an X display, e.g. xvfb-run -a)");
  render_command->add_option("result", rendering->result, "Result file (HDF5)")->required();
  render_command->add_option("-o,--output", rendering->output, "Image file (PNG)")->required();
  render_command->add_option("--time", rendering->time_s,
                             "Simulation time in seconds (nearest sample; default: the last)");
  render_command->add_option("--quantity", rendering->quantity,
                             "Colour by: " + viz::quantityKeys());
  render_command->add_option("--size", rendering->size, "Image size WIDTHxHEIGHT (pixels)");
  render_command->add_option("--min", rendering->min,
                             "Colour range minimum (SI units; default: the run's minimum)");
  render_command->add_option("--max", rendering->max,
                             "Colour range maximum (SI units; default: the run's maximum)");
  render_command->add_option("--highlight", rendering->highlight, "Outline this rack (id)");
  commands.push_back({render_command, [rendering] { return render(*rendering); }});
  return commands;
}

}  // namespace racktwin::cli
