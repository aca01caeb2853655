#pragma once
// Helpers shared by the scenario tests.
#include <fstream>
#include <sstream>
#include <string>

namespace racktwin::test {

inline std::string sourcePath(const std::string& relative) {
  return std::string(RACKTWIN_SOURCE_DIR) + "/" + relative;
}

inline std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// 1-based number of the first line of `text` that contains `needle`, 0 when none does.
inline int lineOf(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  if (at == std::string::npos) return 0;
  int line = 1;
  for (std::size_t i = 0; i < at; ++i)
    line += text[i] == '\n' ? 1 : 0;
  return line;
}

/// `text` with the first occurrence of `from` replaced by `to`; `from` must occur.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos) return "<test error: '" + from + "' not in the base text>";
  text.replace(at, from.size(), to);
  return text;
}

}  // namespace racktwin::test
