#pragma once
// What the sections of a run's report share: the file, the scenario it was run from (when it
// loads), the time axis and the units people asked for.
#include <optional>
#include <string>
#include <vector>

#include "Page.hpp"
#include "ResultData.hpp"
#include "racktwin/core/DisplayUnits.hpp"
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::report {

struct RunContext {
  const ResultData& data;
  core::UnitSystem units = core::UnitSystem::SI;
  std::optional<core::SiteSpec> site;  // the stored scenario, loaded; empty when it did not load
  std::string site_problem;            // why not
  std::vector<double> t;               // record times in t_unit
  std::string t_unit;                  // "s", "min" or "h"
  double t_scale = 1.0;                // display = s * t_scale

  /// A trace of a record series in display units: decimated, named, with `meta` saying where it
  /// came from (dataset, reduction, scale, offset) for the tests that check a report's numbers.
  nlohmann::json line(const std::vector<double>& si_values, const core::DisplayUnit& unit,
                      std::string name, std::string source, std::string reduction) const;
  /// {"title": ...} of a time axis.
  nlohmann::json timeAxis() const;
};

/// "K" -> display of the largest |value| in the series given.
core::DisplayUnit unitFor(const RunContext& context, std::string_view si_unit,
                          const std::vector<double>& values, bool heat = false);

// The sections of a run's report, in page order (RunReport.cpp calls them).
void verdictSection(Page& page, const RunContext& context);
void faultSection(Page& page, const RunContext& context);
void temperatureSection(Page& page, const RunContext& context);
void powerSection(Page& page, const RunContext& context);
void spectrumSection(Page& page, const RunContext& context);
void energyFlowSection(Page& page, const RunContext& context);
void electricalSection(Page& page, const RunContext& context);
void coolingSection(Page& page, const RunContext& context);
void summarySection(Page& page, const RunContext& context);
void provenanceSection(Page& page, const RunContext& context);

/// The summary items of the file in table order, each as a row of label, value, unit.
void summaryTable(Page& page, const ResultData& data, core::UnitSystem units, bool headline_only);

}  // namespace racktwin::report
