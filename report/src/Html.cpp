#include "Html.hpp"

#include <cmath>
#include <cstdio>

namespace racktwin::report {

std::string sanitizeUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      if (c >= 0x20 || c == '\n' || c == '\t') out += static_cast<char>(c);
      if (c == '\r' && (i + 1 >= n || s[i + 1] != '\n')) out += '\n';
      ++i;
      continue;
    }
    // Length and lowest code point of the sequence this lead byte starts.
    std::size_t length = 0;
    unsigned long minimum = 0;
    unsigned long code = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2, minimum = 0x80, code = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3, minimum = 0x800, code = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4, minimum = 0x10000, code = c & 0x07u;
    }
    bool valid = length > 0 && i + length <= n;
    for (std::size_t k = 1; valid && k < length; ++k) {
      valid = (s[i + k] & 0xC0u) == 0x80u;
      code = (code << 6) | (s[i + k] & 0x3Fu);
    }
    valid = valid && code >= minimum && code <= 0x10FFFF && !(code >= 0xD800 && code <= 0xDFFF);
    if (valid) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD
      ++i;
    }
  }
  return out;
}

std::string escapeHtml(std::string_view text) {
  const std::string clean = sanitizeUtf8(text);
  std::string out;
  out.reserve(clean.size() + clean.size() / 8);
  for (const char c : clean) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string jsonForScript(const nlohmann::json& value) {
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + 64);
  for (const char c : text) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string shownUnit(std::string_view unit) {
  if (unit == "degC") return "\u00B0C";
  if (unit == "degF") return "\u00B0F";
  if (unit == "delta_degF") return "\u0394\u00B0F";
  return std::string(unit);
}

namespace {

/// Decimals that give about four significant digits (none at 1000 and above).
int decimalsFor(double magnitude) {
  if (magnitude == 0.0) return 0;
  const int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
  return std::max(0, 3 - exponent);
}

bool plainNotation(double magnitude) {
  return magnitude == 0.0 || (magnitude >= 1e-3 && magnitude < 1e6);
}

}  // namespace

std::string formatNumber(std::optional<double> value) {
  if (!value) return "n/a";
  const double v = *value;
  if (!std::isfinite(v)) return "n/a";
  const double magnitude = std::abs(v);
  char text[64];
  if (!plainNotation(magnitude)) {
    std::snprintf(text, sizeof text, "%.3g", v);
    return text;
  }
  // An integer value shows as one (counts, GPUs).
  const int decimals = v == std::round(v) ? 0 : decimalsFor(magnitude);
  std::snprintf(text, sizeof text, "%.*f", decimals, v);
  std::string digits = text;
  // Group thousands of the integer part.
  const std::size_t sign = digits[0] == '-' ? 1 : 0;
  std::size_t point = digits.find('.');
  if (point == std::string::npos) point = digits.size();
  for (std::size_t at = point; at > sign + 3; at -= 3)
    digits.insert(at - 3, ",");
  return digits;
}

double formatTolerance(double value) {
  const double magnitude = std::abs(value);
  if (!std::isfinite(value)) return 0.0;
  if (!plainNotation(magnitude)) return 0.5e-2 * magnitude;  // three significant digits
  if (value == std::round(value)) return 0.0;
  return 0.5 * std::pow(10.0, -decimalsFor(magnitude));
}

}  // namespace racktwin::report
