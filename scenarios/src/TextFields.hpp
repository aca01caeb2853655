#pragma once
// Reading the text data files (weather, request traces, GPU telemetry): comma-separated fields
// with their columns for error messages, and calendar date-times as whole seconds since 1970 and a
// fraction, so that sub-microsecond digits survive.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace racktwin::scenarios::detail {

/// A field of a row: its text without surrounding blanks and its 1-based column in the line.
struct Field {
  std::string_view text;
  int column = 1;
};

/// Calls `row(line_number, line)` for every line, without the line end and a byte-order mark.
template <typename Row>
void forEachLine(std::string_view text, Row&& row) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  int line_number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    row(line_number, line);
  }
}

/// What a field that failed to parse holds, for an error message, without its text: a data file
/// named by a scenario may be anything (even a file the user should not see echoed), so messages
/// point at its line and column and describe the field: "an empty field", "a field of 12
/// characters".
std::string describeField(std::string_view text);

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

/// A plain decimal number filling all of `text` (from_chars: no leading '+', no thousands
/// separators), finite; nullopt otherwise.
std::optional<double> parseDecimal(std::string_view text);

/// 'YYYY-MM-DD hh:mm:ss[.fraction]' or 'YYYY/MM/DD ...' (nvidia-smi), a 'T' also accepted
/// between date and time; nullopt for anything else.
std::optional<Stamp> parseDateTime(std::string_view text);

}  // namespace racktwin::scenarios::detail
