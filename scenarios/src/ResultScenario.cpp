#include "racktwin/scenarios/ResultScenario.hpp"

#include <exception>
#include <filesystem>
#include <system_error>
#include <vector>

#include "InputPaths.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace racktwin::scenarios {
namespace fs = std::filesystem;

ResultScenario loadResultScenario(const std::string& result_path,
                                  const std::string& scenario_path) {
  ResultScenario result;
  // Without a scenario_path the stored text's relative paths resolve beside the result,
  const fs::path given = scenario_path.empty()
                             ? fs::path(result_path).parent_path() / "scenario.yaml"
                             : fs::path(scenario_path);
  std::vector<fs::path> places{given};
  if (scenario_path.empty()) {
    // or as if in the source tree's scenarios/ folder (where `data_dir: ../data` points).
    places.push_back(fs::path(defaultDataDir()).parent_path() / "scenarios" / "scenario.yaml");
  } else if (given.is_relative()) {
    places.push_back(fs::path(result_path).parent_path() / given);
    places.push_back(fs::path(defaultDataDir()).parent_path() / given);
  }

  // A result file may come from anyone: its scenario_path must not make the program read (or
  // resolve the stored text's paths in) any folder on the machine. A place counts only inside
  // the result's folder, the working directory or the source tree the data library is in.
  const fs::path source_tree = fs::path(defaultDataDir()).parent_path();
  std::string refused;
  std::erase_if(places, [&](const fs::path& place) {
    const bool allowed = detail::isInside(place, fs::path(result_path).parent_path())
                         || detail::isInside(place, fs::current_path())
                         || detail::isInside(place, source_tree);
    if (!allowed && refused.empty()) {
      refused = "its scenario_path " + core::quoteForMessage(place.string())
                + " lies outside the result's folder, the working directory and the source tree "
                  "(not read)";
    }
    return !allowed;
  });
  if (places.empty()) places.push_back(fs::path(result_path).parent_path() / "scenario.yaml");

  std::string text, text_problem;
  try {
    const std::vector<std::string> stored = core::readResultStrings(result_path, "/scenario/text");
    if (stored.size() == 1) text = stored.front();
  } catch (const std::exception&) {
    text_problem = "the result stores no scenario text";
  }
  for (const fs::path& place : places) {
    if (text.empty()) break;
    try {
      result.site = loadScenarioFromString(text, place.string(), "", {}, OutsidePaths::Refused);
      result.from_stored_text = true;
      return result;
    } catch (const std::exception& e) {
      if (text_problem.empty()) text_problem = std::string("its stored scenario: ") + e.what();
    }
  }
  std::string file_problem;
  for (const fs::path& place : places) {
    if (scenario_path.empty()) break;  // no file was named
    std::error_code ec;
    if (!fs::is_regular_file(place, ec)) continue;
    try {
      result.site = loadScenario(place.string(), {}, OutsidePaths::Refused);
      return result;
    } catch (const std::exception& e) {
      if (file_problem.empty()) file_problem = e.what();
    }
  }
  if (file_problem.empty()) {
    file_problem = !refused.empty() ? refused
                   : scenario_path.empty()
                       ? "the result names no scenario_path"
                       : "scenario file " + core::quoteForMessage(scenario_path) + " not found";
  }
  result.problem = text_problem.empty() ? file_problem : file_problem + "; " + text_problem;
  return result;
}

}  // namespace racktwin::scenarios
