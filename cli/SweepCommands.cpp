// `racktwin sweep`, `racktwin envelope` and `racktwin compare` (docs/capacity.md).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "Commands.hpp"
#include "OutputFiles.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/core/ResultTable.hpp"
#include "racktwin/scenarios/SweepSpec.hpp"
#include "racktwin/study/Envelope.hpp"
#include "racktwin/study/Sweep.hpp"

namespace racktwin::cli {
namespace {

namespace fs = std::filesystem;

struct SweepArguments {
  std::string sweep;
  std::string output;  // default out/<sweep name>.h5 (envelope: out/<name>-envelope.h5)
  std::string csv;     // default <output stem>.csv
  int threads = 1;
  bool quiet = false;
};

std::string withoutH5(const std::string& path) {
  const fs::path p(path);
  return p.extension() == ".h5" ? (p.parent_path() / p.stem()).string() : path;
}

/// Ends MPI (when a launcher started this process) on every path out of a command.
struct MpiScope {
  ~MpiScope() { study::mpiFinish(); }
};

/// Loads the sweep file and checks the outputs; returns an exit code or nullopt to go on.
std::optional<int> prepare(const SweepArguments& a, const char* suffix, scenarios::SweepSpec& spec,
                           std::string& output, std::string& csv) {
  try {
    spec = scenarios::loadSweep(a.sweep);
    output = a.output.empty()
                 ? (fs::path("out") / (fs::path(a.sweep).stem().string() + suffix)).string()
                 : a.output;
    csv = a.csv.empty() ? withoutH5(output) + ".csv" : a.csv;
    const std::vector<std::string> inputs = {a.sweep, spec.base_path};
    checkOutputTarget(output, "-o", inputs);
    checkOutputTarget(csv, "--csv", inputs);
    checkOutputTarget(output + ".journal", "-o", inputs);
    if (a.threads < 1 || a.threads > 1024) {
      throw core::InputError({"<command line>", 0, 0}, "-j", "expected 1 to 1024 threads");
    }
  } catch (const core::InputError& e) {
    std::fprintf(stderr, "racktwin: %s\n", e.what());
    return kBadInput;
  }
  if (!fs::path(output).parent_path().empty())
    fs::create_directories(fs::path(output).parent_path());
  return std::nullopt;
}

void printCase(const study::SweepCase& c, const study::CaseResult& r, std::size_t done,
               std::size_t total) {
  std::string params;
  for (const std::string& p : c.parameter_text)
    params += (params.empty() ? "" : ", ") + p;
  if (!c.fault.empty()) params += (params.empty() ? "" : "; ") + c.fault;
  if (!r.ok) {
    std::fprintf(stderr, "racktwin: [%zu/%zu] %s (%s) failed: %s\n", done, total, c.id.c_str(),
                 params.c_str(), r.error.c_str());
    return;
  }
  std::fprintf(stderr, "racktwin: [%zu/%zu] %s (%s): %s%s, smallest margin %.1f %% (%s)\n", done,
               total, c.id.c_str(), params.c_str(),
               r.violations.empty() ? "within every rating" : "RATING EXCEEDED: ",
               r.violations.empty() ? "" : r.violations.front().limit.c_str(), 100.0 * r.margin_min,
               r.binding.c_str());
}

int sweepCommand(const SweepArguments& a) {
  const MpiScope mpi;
  scenarios::SweepSpec spec;
  std::string output, csv;
  try {
    (void)study::mpiRanks();  // MPI starts before anything else when a launcher started us
  } catch (const core::Error& e) {
    std::fprintf(stderr, "racktwin: %s\n", e.what());
    return kRunFailed;
  }
  if (const auto code = prepare(a, ".h5", spec, output, csv)) return *code;
  const bool root = study::mpiRank() == 0;
  const std::vector<study::SweepCase> cases = study::sweepCases(spec);
  study::RunOptions options;
  options.threads = a.threads;
  options.journal = output + ".journal";
  if (spec.full_results) options.full_results_dir = withoutH5(output) + ".cases";
  // Test hook: RACKTWIN_TEST_SWEEP_KILL_AFTER=n kills the process (SIGKILL, as `kill -9`) once
  // n cases have finished in this run, so tests interrupt a sweep at an exact case.
  const char* kill_after = std::getenv("RACKTWIN_TEST_SWEEP_KILL_AFTER");
  const long kill_at = kill_after != nullptr ? std::strtol(kill_after, nullptr, 10) : -1;
  std::size_t finished_here = 0;
  options.progress = [&](const study::CaseResult& r, std::size_t done, std::size_t total) {
    if (!a.quiet) printCase(cases[r.index], r, done, total);
    if (kill_at >= 0 && static_cast<long>(++finished_here) >= kill_at) std::raise(SIGKILL);
  };
  std::vector<study::CaseResult> results;
  try {
    results = study::runCases(spec, cases, options);
    if (!root) return kSuccess;
    core::writeTableFile(output, study::sweepTables(spec, cases, results));
    writeFileAtomically(csv, study::sweepCsv(spec, cases, results));
  } catch (const core::InputError& e) {
    std::fprintf(stderr, "racktwin: %s\n", e.what());
    return kBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "racktwin: the sweep failed: %s (finished cases stay in %s.journal)\n",
                 e.what(), output.c_str());
    return kRunFailed;
  }
  std::error_code ignored;
  fs::remove(output + ".journal", ignored);
  std::size_t failed = 0, exceeded = 0;
  for (const study::CaseResult& r : results) {
    failed += r.ok ? 0 : 1;
    exceeded += r.ok && !r.violations.empty() ? 1 : 0;
  }
  if (failed > 0)
    std::fprintf(stderr, "racktwin: %zu of %zu cases failed (their errors are in %s)\n", failed,
                 cases.size(), output.c_str());
  if (!a.quiet) {
    std::printf(
        "%s: %zu cases (%s), %zu failed, %zu with a rating exceeded\n  result  %s\n  csv     %s\n",
        spec.name.c_str(), cases.size(), scenarios::sweepDesignName(spec.design), failed, exceeded,
        output.c_str(), csv.c_str());
  }
  return kSuccess;
}

int envelopeCommand(const SweepArguments& a) {
  const MpiScope mpi;
  scenarios::SweepSpec spec;
  std::string output, csv;
  try {
    (void)study::mpiRanks();
  } catch (const core::Error& e) {
    std::fprintf(stderr, "racktwin: %s\n", e.what());
    return kRunFailed;
  }
  if (const auto code = prepare(a, "-envelope.h5", spec, output, csv)) return *code;
  if (!spec.envelope.present) {
    std::fprintf(stderr,
                 "racktwin: %s: key 'envelope': the sweep file has no envelope: block "
                 "(search key, range, rows)\n",
                 a.sweep.c_str());
    return kBadInput;
  }
  study::RunOptions options;
  options.threads = a.threads;
  if (spec.full_results) options.full_results_dir = withoutH5(output) + ".cases";
  study::Envelope envelope;
  try {
    envelope = study::runEnvelope(spec, options);
    if (study::mpiRank() != 0) return kSuccess;
    core::TableFile file = study::sweepTables(spec, envelope.cases, envelope.results);
    file.tables.push_back(study::envelopeTable(spec, envelope));
    core::writeTableFile(output, file);
    writeFileAtomically(csv, study::sweepCsv(spec, envelope.cases, envelope.results));
  } catch (const core::InputError& e) {
    std::fprintf(stderr, "racktwin: %s\n", e.what());
    return kBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "racktwin: the envelope failed: %s\n", e.what());
    return kRunFailed;
  }
  std::printf("%s", study::envelopeText(spec, envelope).c_str());
  if (!a.quiet) {
    std::printf("\n  %zu cases run\n  result  %s\n  csv     %s\n", envelope.cases.size(),
                output.c_str(), csv.c_str());
  }
  return kSuccess;
}

// --- compare ------------------------------------------------------------------------------

struct Column {
  std::string name;
  std::vector<std::pair<std::string, std::optional<double>>> metrics;
  struct Headroom {
    double margin = 0.0;  // the group's worst margin fraction
    std::string binding;  // its limit, "row1/cdu1:rated_heat"
  };
  std::map<std::string, Headroom> headroom;  // by group
};

/// How many headroom groups compare prints without --all-groups: those of least margin (a site
/// has thousands: 701 on the 100,000-GPU site).
constexpr std::size_t kGroupsShown = 50;

std::string percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", 100.0 * fraction);
  return text;
}

/// A run's result file: its summary and its headroom table.
Column resultColumn(const std::string& path, const core::ResultFileInfo& info) {
  Column c;
  c.name = fs::path(path).filename().string();
  const auto summary = info.attributes.find("summary_json");
  if (summary != info.attributes.end() && !summary->second.empty()) {
    const nlohmann::ordered_json j = nlohmann::ordered_json::parse(summary->second);
    for (const auto& [key, value] : j.items())
      c.metrics.emplace_back(
          key, value.is_number() ? std::optional<double>(value.get<double>()) : std::nullopt);
  }
  bool has_headroom = false;
  for (const core::DatasetInfo& d : info.datasets)
    has_headroom = has_headroom || d.path == "/headroom/group";
  if (has_headroom) {
    const auto groups = core::readResultStrings(path, "/headroom/group");
    const auto binding = core::readResultStrings(path, "/headroom/binding_limit");
    const auto margin = core::readResultDataset(path, "/headroom/worst_margin_fraction");
    for (std::size_t g = 0; g < groups.size() && g < binding.size() && g < margin.size(); ++g)
      c.headroom[groups[g]] = {margin[g], binding[g]};
  }
  return c;
}

/// A sweep file: one column per case.
std::vector<Column> sweepColumns(const std::string& path, const core::ResultFileInfo& info) {
  std::vector<Column> columns;
  const auto ids = core::readResultStrings(path, "/cases/id");
  const auto faults = core::readResultStrings(path, "/cases/fault");
  // In the sweep file's order (its attributes parameter_names and metric_keys, one a line).
  const auto lines = [&info](const char* attribute) {
    std::vector<std::string> out;
    const auto found = info.attributes.find(attribute);
    std::string text = found == info.attributes.end() ? std::string() : found->second;
    for (std::size_t start = 0, end; start < text.size(); start = end + 1) {
      end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      if (end > start) out.push_back(text.substr(start, end - start));
    }
    return out;
  };
  std::vector<std::string> params;
  for (const std::string& name : lines("parameter_names"))
    params.push_back("/parameters/" + core::tableLinkName(name + "_text"));
  for (std::size_t i = 0; i < ids.size(); ++i) {
    Column c;
    c.name = fs::path(path).filename().string() + ":" + ids[i];
    for (const std::string& p : params) {
      const auto texts = core::readResultStrings(path, p);
      if (i < texts.size()) c.name += " " + texts[i];
    }
    if (i < faults.size() && !faults[i].empty()) c.name += " [" + faults[i] + "]";
    columns.push_back(std::move(c));
  }
  for (const std::string& key : lines("metric_keys")) {
    const auto values = core::readResultDataset(path, "/metrics/" + core::tableLinkName(key));
    for (std::size_t i = 0; i < columns.size() && i < values.size(); ++i)
      columns[i].metrics.emplace_back(
          key, std::isfinite(values[i]) ? std::optional<double>(values[i]) : std::nullopt);
  }
  const auto groups = core::readResultStrings(path, "/headroom/groups");
  std::vector<unsigned long long> shape;
  const auto margins = core::readResultDataset(path, "/headroom/worst_margin_fraction", &shape);
  const auto binding = core::readResultStrings(path, "/headroom/binding_limit");
  const std::size_t width = shape.size() == 2 ? shape[1] : 1;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    for (std::size_t g = 0; g < groups.size() && g < width; ++g) {
      const std::size_t k = i * width + g;
      if (k < margins.size() && std::isfinite(margins[k]))
        columns[i].headroom[groups[g]] = {margins[k], k < binding.size() ? binding[k] : ""};
    }
  }
  return columns;
}

std::string cell(const std::optional<double>& v) {
  if (!v) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", *v);
  return text;
}

int compareCommand(const std::vector<std::string>& files, bool all_groups) {
  std::vector<Column> columns;
  try {
    for (const std::string& f : files) {
      const core::ResultFileInfo info = core::readResultInfo(f);
      const auto kind = info.attributes.find("file_kind");
      if (kind != info.attributes.end() && kind->second == "racktwin sweep") {
        for (Column& c : sweepColumns(f, info))
          columns.push_back(std::move(c));
      } else {
        columns.push_back(resultColumn(f, info));
      }
    }
  } catch (const core::InputError& e) {
    std::fprintf(stderr, "racktwin: %s\n", e.what());
    return kBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "racktwin: cannot compare: %s\n", e.what());
    return kBadInput;
  }
  // Every metric key of any column, in order of first appearance; every headroom group, with
  // the least of its margins in the columns.
  std::vector<std::string> keys;
  std::unordered_set<std::string> seen;
  std::map<std::string, double> least;  // NaN: no column gives the group a number
  for (const Column& c : columns) {
    for (const auto& [key, value] : c.metrics)
      if (seen.insert(key).second) keys.push_back(key);
    for (const auto& [group, headroom] : c.headroom) {
      const double v = headroom.margin;
      auto [at, added] = least.try_emplace(group, v);
      if (!added && !std::isnan(v) && !(at->second <= v)) at->second = v;
    }
  }
  // The groups of least margin first (the binding ones), those without a number last, ties by
  // name.
  std::vector<std::pair<std::string, double>> groups(least.begin(), least.end());
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
    const bool a_nan = std::isnan(a.second), b_nan = std::isnan(b.second);
    if (a_nan != b_nan) return b_nan;
    return !a_nan && a.second < b.second;
  });
  for (std::size_t i = 0; i < columns.size(); ++i)
    std::printf("  [%zu] %s\n", i + 1, columns[i].name.c_str());
  std::printf("\n  %-44s", "metric (SI, the summary JSON's keys)");
  for (std::size_t i = 0; i < columns.size(); ++i)
    std::printf(" %14s", ("[" + std::to_string(i + 1) + "]").c_str());
  std::printf("\n");
  for (const std::string& key : keys) {
    std::printf("  %-44s", key.c_str());
    for (const Column& c : columns) {
      std::optional<double> v;
      bool found = false;
      for (const auto& [k, value] : c.metrics)
        if (k == key) {
          v = value;
          found = true;
        }
      std::printf(" %14s", found ? cell(v).c_str() : "-");
    }
    std::printf("\n");
  }
  if (!groups.empty()) {
    const std::size_t shown = all_groups ? groups.size() : std::min(groups.size(), kGroupsShown);
    std::printf(
        "\n  headroom: worst margin (fraction of the rating; 10 K for temperatures) and "
        "its limit, the least margin first\n");
    for (std::size_t k = 0; k < shown; ++k) {
      const std::string& g = groups[k].first;
      std::printf("  %s\n", g.c_str());
      for (std::size_t i = 0; i < columns.size(); ++i) {
        const auto found = columns[i].headroom.find(g);
        const std::string text = found == columns[i].headroom.end()
                                     ? "-"
                                     : percent(found->second.margin) + " " + found->second.binding;
        std::printf("    [%zu] %s\n", i + 1, text.c_str());
      }
    }
    if (shown < groups.size()) {
      const double rest = groups[shown].second;
      std::printf("  ... %zu more groups, %s (--all-groups lists them)\n", groups.size() - shown,
                  std::isnan(rest)
                      ? "without a margin"
                      : ("each with a worst margin of at least " + percent(rest) + " in every file")
                            .c_str());
    }
  }
  return kSuccess;
}

}  // namespace

std::vector<Subcommand> addSweepCommands(CLI::App& app) {
  std::vector<Subcommand> commands;
  const auto options = [](CLI::App* command, SweepArguments& a, const char* output_help) {
    command->add_option("sweep", a.sweep, "Sweep file (YAML, docs/capacity.md)")->required();
    command->add_option("-o,--output", a.output, output_help);
    command->add_option("--csv", a.csv,
                        "Also the cases as CSV here (default: the output's name .csv)");
    command->add_option("-j,--threads", a.threads,
                        "Cases run at once on this machine (default 1); under mpirun or srun each "
                        "rank runs one case at a time");
    command->add_flag("-q,--quiet", a.quiet, "Print nothing but errors (and the envelope table)");
  };
  auto sweep = std::make_shared<SweepArguments>();
  CLI::App* sweep_command = app.add_subcommand(
      "sweep", "Run the cases of a sweep file into one HDF5 file and a CSV (docs/capacity.md)");
  options(sweep_command, *sweep, "Sweep result (HDF5); default out/<sweep file name>.h5");
  commands.push_back({sweep_command, [sweep] { return sweepCommand(*sweep); }});

  auto envelope = std::make_shared<SweepArguments>();
  CLI::App* envelope_command = app.add_subcommand(
      "envelope",
      "Capacity search of a sweep file's envelope: block: the largest value meeting every design "
      "limit, N and N+1, with the binding limit");
  options(envelope_command, *envelope, "The cases it ran (HDF5); default out/<name>-envelope.h5");
  commands.push_back({envelope_command, [envelope] { return envelopeCommand(*envelope); }});

  auto files = std::make_shared<std::vector<std::string>>();
  auto all_groups = std::make_shared<bool>(false);
  CLI::App* compare_command = app.add_subcommand(
      "compare", "Metrics and headroom of results (or a sweep file's cases) side by side");
  compare_command->add_option("results", *files, "Result or sweep files (HDF5)")->required();
  compare_command->add_flag("--all-groups", *all_groups,
                            "Every headroom group (default: the 50 of least margin)");
  commands.push_back(
      {compare_command, [files, all_groups] { return compareCommand(*files, *all_groups); }});
  return commands;
}

}  // namespace racktwin::cli
