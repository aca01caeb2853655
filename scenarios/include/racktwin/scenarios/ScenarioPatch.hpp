#pragma once
// A scenario with changes at key paths: what a sweep case is (docs/capacity.md). The base text is
// parsed once per load; patches are applied to the document before it is read, so every value
// goes through the loader's checks as if it had been written in the file.
#include <string>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace racktwin::scenarios {

/// `key` is a path such as "facility_water.supply_temperature", "cdus[*].type",
/// "cdus[id=row1/cdu1].pump_speed", "template.racks_per_row" or "events[+]" (appends); `value`
/// is YAML text: "32 degC", "xdu1350", "{at: 1800 s, action: pump_trip, target: row1/cdu1}".
struct ScenarioPatch {
  std::string key;
  std::string value;
};

/// Loads `text` (a scenario, possibly with a `template:`) with `patches` applied, in order; the
/// patches on "template." keys apply before the template expands, the others after. Errors as
/// loadScenarioFromString; a patch whose path does not exist names it at "<patch>".
core::SiteSpec loadPatchedScenario(const std::string& text, const std::string& path_for_messages,
                                   const std::vector<ScenarioPatch>& patches,
                                   const std::string& data_dir = "",
                                   const SimulationOverrides& overrides = {},
                                   OutsidePaths outside = OutsidePaths::ScenarioDecides);

/// The patches as YAML lines "key: value", one per patch (what a sweep file stores per case).
std::string describePatches(const std::vector<ScenarioPatch>& patches);

}  // namespace racktwin::scenarios
