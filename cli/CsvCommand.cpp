// `racktwin export-csv`: records of a result file as comma-separated text, in SI (as stored) or
// US customary units, for spreadsheets and tools without HDF5.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "Commands.hpp"
#include "OutputFiles.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::cli {
namespace {

struct CsvArguments {
  std::string result;
  std::string output;
  std::vector<std::string> groups;  // groups whose per-entity datasets are exported too
  bool us_units = false;
};

/// One exported dataset: its values and how they are shown.
struct Column {
  std::string path;
  std::vector<double> values;  // row-major (samples, width)
  std::size_t width = 1;
  std::vector<std::string> ids;  // per entity; empty for a scalar dataset
  core::DisplayUnit unit;
};

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    quoted += c;
    if (c == '"') quoted += '"';
  }
  return quoted + "\"";
}

int exportCsv(const CsvArguments& arguments) {
  return exitCodeOf([&arguments] {
    checkOutputTarget(arguments.output, "-o", {arguments.result});
    const core::ResultFileInfo info = core::readResultInfo(arguments.result);
    std::vector<unsigned long long> time_shape;
    const std::vector<double> time =
        core::readResultDataset(arguments.result, "/time", &time_shape);
    const std::size_t samples = time.size();
    std::vector<Column> columns;
    for (const core::DatasetInfo& dataset : info.datasets) {
      if (dataset.type != "float64" || dataset.path == "/time") continue;
      if (dataset.shape.empty() || dataset.shape[0] != samples) continue;  // not a record series
      const std::string group = dataset.path.substr(1, dataset.path.find('/', 1) - 1);
      const bool wanted = dataset.shape.size() == 1
                          || std::find(arguments.groups.begin(), arguments.groups.end(), group)
                                 != arguments.groups.end();
      if (!wanted) continue;
      Column column;
      column.path = dataset.path;
      column.values = core::readResultDataset(arguments.result, dataset.path);
      if (dataset.shape.size() == 2) {
        column.width = dataset.shape[1];
        column.ids = core::readResultStrings(arguments.result, "/" + group + "/ids");
        if (column.ids.size() != column.width) {
          throw core::InputError({arguments.result, 0, 0}, dataset.path,
                                 "has " + std::to_string(column.width) + " columns but /" + group
                                     + "/ids names " + std::to_string(column.ids.size()));
        }
      }
      // Heat flows by the project's naming (Q_flow...): Btu/h in US units.
      const std::string name = dataset.path.substr(dataset.path.rfind('/') + 1);
      const bool heat = name.rfind("Q_", 0) == 0;
      const auto us =
          arguments.us_units ? core::usCustomaryFromSi(dataset.units, heat) : std::nullopt;
      column.unit = us ? *us : core::DisplayUnit{dataset.units, 1.0, 0.0};
      columns.push_back(std::move(column));
    }
    for (const std::string& group : arguments.groups) {
      const bool found = std::any_of(columns.begin(), columns.end(), [&](const Column& c) {
        return c.path.rfind("/" + group + "/", 0) == 0;
      });
      if (!found) {
        // Name the groups it has: a large site records its GPUs as aggregates (gpu_by_rack,
        // gpu_hottest, ...), not in a group 'gpu'.
        std::set<std::string> have;
        for (const core::DatasetInfo& dataset : info.datasets) {
          if (dataset.type == "float64" && dataset.shape.size() == 2 && dataset.shape[0] == samples)
            have.insert(dataset.path.substr(1, dataset.path.find('/', 1) - 1));
        }
        std::string list;
        for (const std::string& name : have)
          list += (list.empty() ? "" : ", ") + name;
        throw core::InputError(
            {"<command line>", 0, 0}, "--group",
            "the result has no per-entity records in a group '" + group.substr(0, 80)
                + "'; it has them in: " + (list.empty() ? "none" : list)
                + (group == "gpu" || group == "cpu" || group == "nvswitch" || group == "tray"
                       ? " (a run records chips one by one where --per-gpu or output.per_gpu "
                         "says so; docs/scenario-format.md)"
                       : ""));
      }
    }

    std::string text = "time (s)";
    for (const Column& c : columns) {
      const std::string unit = c.unit.unit.empty() ? "" : " (" + std::string(c.unit.unit) + ")";
      if (c.ids.empty()) {
        text += "," + csvField(c.path.substr(1) + unit);
      } else {
        for (const std::string& id : c.ids)
          text += "," + csvField(c.path.substr(1) + "[" + id + "]" + unit);
      }
    }
    text += '\n';
    char number[32];
    for (std::size_t k = 0; k < samples; ++k) {
      std::snprintf(number, sizeof number, "%.17g", time[k]);
      text += number;
      for (const Column& c : columns) {
        for (std::size_t j = 0; j < c.width; ++j) {
          const double v = c.values[k * c.width + j] * c.unit.scale + c.unit.offset;
          std::snprintf(number, sizeof number, ",%.10g", v);
          text += number;
        }
      }
      text += '\n';
    }
    writeFileAtomically(arguments.output, text);
    return static_cast<int>(kSuccess);
  });
}

}  // namespace

std::vector<Subcommand> addCsvCommand(CLI::App& app) {
  auto arguments = std::make_shared<CsvArguments>();
  CLI::App* command = app.add_subcommand(
      "export-csv",
      "Write a result's records as CSV: the site-level series, plus the per-entity series of "
      "each --group");
  command->add_option("result", arguments->result, "Result file (HDF5)")->required();
  command->add_option("-o,--output", arguments->output, "CSV file")->required();
  command->add_option("--group", arguments->groups,
                      "Also export every per-entity series of this group (gpu, rack, cdu, ...; "
                      "repeatable)");
  command
      ->add_option_function<std::string>(
          "--units",
          [arguments](const std::string& system) { arguments->us_units = system == "us"; },
          "si (default, as stored) or us: degF, gpm, psi, gal, Btu/h for heat flows (Q_flow*), "
          "kW and kWh for other powers and energies")
      ->check(CLI::IsMember({"si", "us"}));
  return {{command, [arguments] { return exportCsv(*arguments); }}};
}

}  // namespace racktwin::cli
