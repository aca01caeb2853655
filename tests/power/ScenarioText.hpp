#pragma once
// Helpers for the electrical scenario drafts: until the scenario loader reads `electrical:` and
// the electrical event actions, a draft is loaded in two parts, the rest of the scenario by
// loadScenarioFromString and the electrical section by loadElectricalSection.
#include <fstream>
#include <sstream>
#include <string>

namespace racktwin::test {

inline std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The text without the top-level `key:` block (from its line to the next top-level key).
inline std::string withoutTopLevel(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line, out;
  bool skipping = false;
  while (std::getline(in, line)) {
    const bool top = !line.empty() && line[0] != ' ' && line[0] != '#' && line[0] != '-';
    if (top) skipping = line.rfind(key + ":", 0) == 0;
    if (!skipping) out += line + "\n";
  }
  return out;
}

}  // namespace racktwin::test
