#pragma once
// Reading the text data files (weather, request traces, GPU telemetry): comma-separated fields
// with their columns for error messages, and calendar date-times as whole seconds since 1970 and a
// fraction, so that sub-microsecond digits survive.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

namespace racktwin::scenarios::detail {

/// A field of a row: its text without surrounding blanks and its 1-based column in the line.
struct Field {
  std::string_view text;
  int column = 1;
};

/// Splits a line (comment already removed) at commas; each field is trimmed of spaces and tabs.
std::vector<Field> splitCommas(std::string_view line);

struct Stamp {
  std::int64_t seconds = 0;
  double fraction = 0.0;
};

/// A whole number filling all of `text`.
template <typename T>
bool parseWhole(std::string_view text, T& value) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

/// 'YYYY-MM-DD hh:mm:ss[.fraction]' or 'YYYY/MM/DD ...' (nvidia-smi), a 'T' also accepted
/// between date and time; nullopt for anything else.
std::optional<Stamp> parseDateTime(std::string_view text);

}  // namespace racktwin::scenarios::detail
