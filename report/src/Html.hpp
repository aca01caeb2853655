#pragma once
// Text into HTML: everything a report takes from a result file (scenario text, ids, labels,
// attributes) is untrusted and goes through these functions, never into the page as it is.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace racktwin::report {

/// `text` with invalid UTF-8 sequences replaced by U+FFFD and control characters other than tab
/// and newline removed.
std::string sanitizeUtf8(std::string_view text);

/// Text for an element's content or a quoted attribute value: & < > " ' escaped, sanitised.
std::string escapeHtml(std::string_view text);

/// JSON for a <script type="application/json"> element: '<', '>' and '&' written as \u escapes
/// (no "</script>" or "<!--" can appear), invalid UTF-8 replaced.
std::string jsonForScript(const nlohmann::json& value);

/// A unit as people write it: degC -> °C, degF -> °F, delta_degF -> Δ°F; others as they are.
std::string shownUnit(std::string_view unit);

/// A number for people: about four significant digits without exponent between 1e-3 and 1e6,
/// thousands grouped ("121,329", "69.54", "0.5052"), else "9.38e-13"; "n/a" for nullopt.
std::string formatNumber(std::optional<double> value);

/// The number of significant digits formatNumber shows for `value` (for tests and tolerances).
double formatTolerance(double value);

}  // namespace racktwin::report
