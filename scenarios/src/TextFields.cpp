#include "TextFields.hpp"

#include <cmath>
#include <string>

namespace racktwin::scenarios::detail {
namespace {

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

}  // namespace

std::string describeField(std::string_view text) {
  if (text.empty()) return "an empty field";
  std::size_t chars = 0;
  for (const char c : text)
    chars += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U ? 1 : 0;
  return "a field of " + std::to_string(chars) + (chars == 1 ? " character" : " characters");
}

std::optional<double> parseDecimal(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double v = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

std::vector<Field> splitCommas(std::string_view line) {
  std::vector<Field> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
    std::size_t a = start, b = end;
    while (a < b && (line[a] == ' ' || line[a] == '\t'))
      ++a;
    while (b > a && (line[b - 1] == ' ' || line[b - 1] == '\t'))
      --b;
    fields.push_back(Field{line.substr(a, b - a), static_cast<int>(a) + 1});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

std::optional<Stamp> parseDateTime(std::string_view text) {
  const bool shape = text.size() >= 19 && (text[4] == '-' || text[4] == '/') && text[7] == text[4]
                     && (text[10] == ' ' || text[10] == 'T') && text[13] == ':' && text[16] == ':';
  if (!shape) return std::nullopt;
  std::int64_t year = 0;
  unsigned month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!parseWhole(text.substr(0, 4), year) || !parseWhole(text.substr(5, 2), month)
      || !parseWhole(text.substr(8, 2), day) || !parseWhole(text.substr(11, 2), hour)
      || !parseWhole(text.substr(14, 2), minute) || !parseWhole(text.substr(17, 2), second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  Stamp s;
  s.seconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
  const std::string_view rest = text.substr(19);
  if (!rest.empty()) {
    if (rest.size() < 2 || rest[0] != '.') return std::nullopt;
    const std::string_view digits = rest.substr(1);
    for (const char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
    }
    const std::string fraction = "0." + std::string(digits);
    const auto [end, ec] =
        std::from_chars(fraction.data(), fraction.data() + fraction.size(), s.fraction);
    if (ec != std::errc() || end != fraction.data() + fraction.size()) return std::nullopt;
  }
  return s;
}

}  // namespace racktwin::scenarios::detail
