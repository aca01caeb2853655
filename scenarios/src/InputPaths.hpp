#pragma once
// Where a scenario may read files from. A scenario names traces, weather files and data folders;
// a scenario (or a result file's scenario_path) from someone else must not make the program read
// any file on the machine. Relative paths resolve against the scenario's folder and may not leave
// it; the data library (defaultDataDir) is always readable; anything else is read only when the
// user allows it (`--allow-outside-paths`, or `allow_outside_paths: true` in the scenario).
#include <filesystem>
#include <string>
#include <string_view>

namespace racktwin::scenarios::detail {

class MapReader;

/// The rule of the load in progress on this thread (set by loadScenarioFromString).
class InputPathScope {
 public:
  InputPathScope(std::filesystem::path scenario_folder, bool allow_outside,
                 bool scenario_may_allow);
  InputPathScope(const InputPathScope&) = delete;
  InputPathScope& operator=(const InputPathScope&) = delete;
  ~InputPathScope();

  static InputPathScope* current() noexcept;
  void allowOutside() noexcept { allow_outside_ = true; }
  bool allowsOutside() const noexcept { return allow_outside_; }
  /// Whether the scenario's `allow_outside_paths: true` counts.
  bool scenarioMayAllow() const noexcept { return scenario_may_allow_; }
  const std::filesystem::path& scenarioFolder() const noexcept { return folder_; }

 private:
  std::filesystem::path folder_;
  bool allow_outside_;
  bool scenario_may_allow_;
  InputPathScope* previous_;
};

/// True when `path` (resolved, symbolic links followed as far as it exists) lies in `folder`.
bool isInside(const std::filesystem::path& path, const std::filesystem::path& folder);

/// The path the scenario's value `raw` of `key` names: relative to the scenario's folder,
/// normalised. Fails (InputError at the key) when it lies outside the scenario's folder and the
/// data library and the current scope does not allow that. `what` names the file for messages
/// ("weather file").
std::filesystem::path resolveInputPath(const MapReader& m, std::string_view key,
                                       const std::string& raw, std::string_view what);

}  // namespace racktwin::scenarios::detail
