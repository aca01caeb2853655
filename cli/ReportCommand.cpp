// `racktwin report`: an HTML report of a result, a sweep, or two results side by side; optionally
// printed to PDF by headless Chromium.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "Commands.hpp"
#include "OutputFiles.hpp"
#include "racktwin/report/Pdf.hpp"
#include "racktwin/report/Report.hpp"

namespace racktwin::cli {
namespace {

struct ReportArguments {
  std::vector<std::string> results;
  std::string output;
  std::string pdf;
  bool us_units = false;
};

/// report.html beside the result: r.h5 -> r.html; two results: a-vs-b.html beside the first.
std::string defaultOutput(const std::vector<std::string>& results) {
  std::filesystem::path first(results.front());
  std::string name = first.stem().string();
  if (results.size() == 2) name += "-vs-" + std::filesystem::path(results[1]).stem().string();
  return (first.parent_path() / (name + ".html")).string();
}

int writeReport(ReportArguments arguments) {
  return exitCodeOf([&arguments] {
    if (arguments.output.empty()) arguments.output = defaultOutput(arguments.results);
    // Never over a device, folder or link, nor over a result the report reads.
    checkOutputTarget(arguments.output, "-o", arguments.results);
    std::vector<std::string> inputs = arguments.results;
    inputs.push_back(arguments.output);
    if (!arguments.pdf.empty()) checkOutputTarget(arguments.pdf, "--pdf", inputs);
    report::ReportOptions options;
    options.units = arguments.us_units ? core::UnitSystem::US : core::UnitSystem::SI;
    writeFileAtomically(arguments.output, report::report(arguments.results, options));
    if (!arguments.pdf.empty()) report::printToPdf(arguments.output, arguments.pdf);
    return static_cast<int>(kSuccess);
  });
}

}  // namespace

std::vector<Subcommand> addReportCommand(CLI::App& app) {
  auto arguments = std::make_shared<ReportArguments>();
  CLI::App* command = app.add_subcommand(
      "report",
      "Write a self-contained HTML report (opens offline) of a result or a sweep file, or of two "
      "results side by side");
  command->add_option("results", arguments->results, "Result file (HDF5), or two to compare")
      ->required()
      ->expected(1, 2);
  command->add_option("-o,--output", arguments->output,
                      "HTML file; default <result>.html (two results: <a>-vs-<b>.html) beside "
                      "the first result");
  command->add_option("--pdf", arguments->pdf,
                      "Also print the report to this PDF file (headless Chromium)");
  command
      ->add_option_function<std::string>(
          "--units",
          [arguments](const std::string& system) { arguments->us_units = system == "us"; },
          "si (default: degC, kW, L/min, kPa) or us (degF, gpm, psi, gal, tons for heat)")
      ->check(CLI::IsMember({"si", "us"}));
  return {{command, [arguments] { return writeReport(*arguments); }}};
}

}  // namespace racktwin::cli
