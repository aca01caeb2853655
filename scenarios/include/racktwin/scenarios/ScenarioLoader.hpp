#pragma once
// Scenario format v1 (docs/scenario-format.md): a YAML file that names the site's CDUs, racks,
// workload and events, and the component data files (data/) they are built from. Loading
// validates everything and converts every quantity to SI; the models only ever see the SiteSpec.
#include <optional>
#include <string>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::scenarios {

/// The scenario format version this program reads (the `racktwin_scenario:` key).
inline constexpr int kScenarioFormatVersion = 1;
/// The data file format version this program reads (the `racktwin_data:` key).
inline constexpr int kDataFormatVersion = 1;

/// The data directory used when a scenario has no `data_dir:` key: $RACKTWIN_DATA_DIR when set
/// and not empty, else the data/ folder of the source tree this program was built from.
std::string defaultDataDir();

/// Command-line values that replace the file's `simulation:` keys. They are checked where the
/// file's values are, with the same rules (whole steps, events and jobs inside the run), and an
/// error names the option ("--duration") at "<command line>".
struct SimulationOverrides {
  std::optional<double> step;             // s, --step
  std::optional<double> duration;         // s, --duration
  std::optional<double> record_interval;  // s, --record-interval
};

/// Whether a scenario may read files outside its folder and the data library.
enum class OutsidePaths {
  ScenarioDecides,  // only when the scenario says `allow_outside_paths: true`
  Allowed,          // the user allows it (--allow-outside-paths)
  Refused,          // never, whatever the scenario says (a scenario stored in a result file)
};

/// Loads and validates a scenario and the data files it names. Throws core::InputError naming
/// file, line and key. SiteSpec::scenario_text holds the file's bytes, read once;
/// SiteSpec::input_warnings the values outside their engineering range.
/// The files a scenario names (data_dir, traces, weather) must lie in the scenario's folder or
/// the data library unless `outside` allows more (see OutsidePaths).
core::SiteSpec loadScenario(const std::string& path, const SimulationOverrides& overrides = {},
                            OutsidePaths outside = OutsidePaths::ScenarioDecides);

/// As loadScenario, from text already in memory. `path_for_messages` names the text in messages
/// and is the base of a relative `data_dir:`; `data_dir` replaces defaultDataDir() when the text
/// has no `data_dir:` key (empty: use defaultDataDir()). Its folder is the scenario's folder.
core::SiteSpec loadScenarioFromString(const std::string& text, const std::string& path_for_messages,
                                      const std::string& data_dir,
                                      const SimulationOverrides& overrides = {},
                                      OutsidePaths outside = OutsidePaths::ScenarioDecides);

}  // namespace racktwin::scenarios
