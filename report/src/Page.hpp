#pragma once
// A report page: trusted markup built with escapeHtml, figures described as plotly.js traces and
// layouts, rendered as one self-contained HTML document (the library, the data and the page
// script inlined; nothing is fetched when it opens).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace racktwin::report {

class Page {
 public:
  explicit Page(std::string title);

  /// Markup the caller built from escaped text.
  void append(std::string_view markup) { body_ += markup; }
  /// <h2 id=...>title</h2>, listed in the page's contents.
  void section(std::string_view id, std::string_view title);
  /// <h3>title</h3>
  void subsection(std::string_view title);
  /// A paragraph of text (escaped here).
  void paragraph(std::string_view text, std::string_view css_class = {});

  /// A figure drawn by plotly.js from `traces` and `layout` (defaults for fonts and margins are
  /// added); `caption` is escaped. Returns the figure's element id.
  std::string figure(nlohmann::json traces, nlohmann::json layout, std::string_view caption,
                     int height_px = 380);

  /// Everything the page shows of a number, for readers and for the tests that compare a report
  /// with its file: the value as displayed, and the SI value and key in data attributes.
  static std::string numberCell(std::optional<double> si_value, std::optional<double> shown,
                                std::string_view unit, std::string_view key = {},
                                std::string_view css_class = {});

  std::string render() const;

 private:
  std::string title_;
  std::string body_;
  std::vector<std::pair<std::string, std::string>> contents_;  // id, title
  nlohmann::json figures_ = nlohmann::json::array();
};

/// <table> builder: cells are escaped unless added as markup.
class Table {
 public:
  explicit Table(std::vector<std::string> header, std::string_view css_class = {});
  Table& row(std::string_view css_class = {});
  Table& cell(std::string_view text, std::string_view css_class = {});
  Table& markup(std::string_view html);  // a whole <td>...</td>
  std::string html() const;

 private:
  std::string head_;
  std::string rows_;
  bool open_ = false;
};

}  // namespace racktwin::report
