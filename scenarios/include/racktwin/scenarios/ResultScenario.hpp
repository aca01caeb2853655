#pragma once
// The scenario a result file was run from, for replaying it (GUI, VTK export, rendering).
#include <optional>
#include <string>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::scenarios {

struct ResultScenario {
  std::optional<core::SiteSpec> site;  // empty when no way of loading it worked
  bool from_stored_text = false;       // loaded from the text the result stores
  std::string problem;                 // why not, when `site` is empty (the first failure)
};

/// Loads the scenario of the result at `result_path` whose root attribute scenario_path is
/// `scenario_path`. The scenario text the result stores (/scenario/text, what the run used) comes
/// first; its relative paths (data_dir, traces, weather) resolve from the first of these places
/// where it loads: scenario_path as given (relative to the working directory, as the run saw
/// it), beside the result, and in the source tree next to the data directory. Without a stored
/// text (older files), or when it loads from none of them, the scenario file found at those
/// places is loaded instead. An empty scenario_path resolves the stored text's relative paths
/// beside the result, else from the source tree's scenarios/ folder. Never throws for a missing
/// or invalid scenario: `problem` says why.
ResultScenario loadResultScenario(const std::string& result_path, const std::string& scenario_path);

}  // namespace racktwin::scenarios
