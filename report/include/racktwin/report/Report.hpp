#pragma once
// `racktwin report`: self-contained HTML reports of result files, for people who sign designs.
//
// A report reads result files only through core's validated reader (a result from elsewhere is
// untrusted input: every text it shows is escaped) and returns the page as a string; writing it is
// the caller's (the CLI writes through its safe-output functions). The page inlines plotly.js
// (Debian's python3-plotly) with its data and opens offline in any browser.
#include <string>
#include <vector>

#include "racktwin/core/Units.hpp"

namespace racktwin::report {

struct ReportOptions {
  core::UnitSystem units = core::UnitSystem::SI;
};

/// What a file is: a run's result, or a sweep of runs (docs/capacity.md, file_kind attribute).
enum class ResultKind { Run, Sweep };
/// Throws core::InputError when the file is not a readable RackTwin result.
ResultKind resultKind(const std::string& path);

/// One result: the verdict and headline answers, ride-through and faults, temperatures, power,
/// PUE and WUE, the spectrum of facility power, energy flows, the electrical tree's loading, and
/// the scenario with its provenance.
std::string runReport(const std::string& result_path, const ReportOptions& options = {});

/// A sweep file: the envelope, metrics against each parameter, the binding limits.
std::string sweepReport(const std::string& sweep_path, const ReportOptions& options = {});

/// Two results side by side (a baseline and a candidate), differences highlighted.
std::string comparisonReport(const std::string& baseline_path, const std::string& candidate_path,
                             const ReportOptions& options = {});

/// The report for these files: one run or sweep, or the comparison of two results.
std::string report(const std::vector<std::string>& paths, const ReportOptions& options = {});

}  // namespace racktwin::report
