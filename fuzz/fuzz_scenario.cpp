// libFuzzer target: the scenario loader (YAML text -> validated SiteSpec), as `racktwin run`
// and the GUI call it. core::InputError is the loader's documented answer to bad input; anything
// else (a crash, a sanitizer report, a leak, a hang, another exception) is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // A scenario in scenarios/: relative references (weather, traces) resolve as for the examples,
  // and data_dir defaults to the source tree's data/.
  static const std::string path = std::string(RACKTWIN_SOURCE_DIR) + "/scenarios/fuzz-input.yaml";
  try {
    (void)racktwin::scenarios::loadScenarioFromString(text, path, "");
  } catch (const racktwin::core::InputError&) {
    // bad input, reported as specified
  }
  return 0;
}
