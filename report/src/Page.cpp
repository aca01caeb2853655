#include "Page.hpp"

#include "Assets.hpp"
#include "ChartLibrary.hpp"
#include "Html.hpp"

namespace racktwin::report {

Page::Page(std::string title) : title_(std::move(title)) {}

void Page::section(std::string_view id, std::string_view title) {
  body_ += "<h2 id=\"" + escapeHtml(id) + "\">" + escapeHtml(title) + "</h2>\n";
  contents_.emplace_back(std::string(id), std::string(title));
}

void Page::subsection(std::string_view title) {
  body_ += "<h3>" + escapeHtml(title) + "</h3>\n";
}

void Page::paragraph(std::string_view text, std::string_view css_class) {
  body_ += css_class.empty() ? "<p>" : "<p class=\"" + escapeHtml(css_class) + "\">";
  body_ += escapeHtml(text) + "</p>\n";
}

std::string Page::figure(nlohmann::json traces, nlohmann::json layout, std::string_view caption,
                         int height_px) {
  const std::string id = "figure-" + std::to_string(figures_.size() + 1);
  layout["height"] = height_px;
  if (!layout.contains("margin")) layout["margin"] = {{"l", 70}, {"r", 30}, {"t", 30}, {"b", 50}};
  layout["font"] = {{"family", "DejaVu Sans, Arial, sans-serif"}, {"size", 12}};
  layout["paper_bgcolor"] = "#ffffff";
  layout["plot_bgcolor"] = "#ffffff";
  if (!layout.contains("legend")) layout["legend"] = {{"orientation", "h"}, {"y", -0.18}};
  // Axes: grid lines, no exponent notation, separated thousands.
  for (const char* axis : {"xaxis", "yaxis", "yaxis2"}) {
    if (!layout.contains(axis)) continue;
    nlohmann::json& a = layout[axis];
    if (!a.contains("gridcolor")) a["gridcolor"] = "#e3e7ee";
    if (!a.contains("exponentformat")) a["exponentformat"] = "none";
    a["separatethousands"] = true;
    a["automargin"] = true;
  }
  figures_.push_back({{"id", id}, {"data", std::move(traces)}, {"layout", std::move(layout)}});
  body_ += "<figure><div class=\"plot\" id=\"" + id
           + "\" style=\"height:" + std::to_string(height_px) + "px\"></div>";
  if (!caption.empty()) body_ += "<figcaption>" + escapeHtml(caption) + "</figcaption>";
  body_ += "</figure>\n";
  return id;
}

std::string Page::numberCell(std::optional<double> si_value, std::optional<double> shown,
                             std::string_view unit, std::string_view key,
                             std::string_view css_class) {
  std::string cell = "<td class=\"num";
  if (!css_class.empty()) cell += " " + escapeHtml(css_class);
  cell += "\"";
  if (!key.empty()) cell += " data-key=\"" + escapeHtml(key) + "\"";
  if (si_value) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", *si_value);
    cell += std::string(" data-si=\"") + text + "\"";
  }
  if (shown) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", *shown);
    cell += std::string(" data-shown=\"") + text + "\"";
  }
  cell += ">" + escapeHtml(formatNumber(shown));
  if (shown && !unit.empty()) cell += " " + escapeHtml(shownUnit(unit));
  return cell + "</td>";
}

std::string Page::render() const {
  std::string out;
  const std::string& library = chartLibrary();
  out.reserve(library.size() + body_.size() + 1024);
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  // Nothing may be fetched: the page is whole, and a hostile file cannot make it call out.
  out +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data: "
      "blob:; font-src data:\">\n";
  out += "<title>" + escapeHtml(title_) + "</title>\n";
  out += "<style>\n" + std::string(kReportStyle) + "</style>\n";
  // Errors are collected from the first script on, so the library's own are caught too.
  out +=
      "<script>window.racktwinCheck={errors:[],plots:[],done:false};"
      "window.addEventListener('error',function(e){window.racktwinCheck.errors.push("
      "String(e.message))});(function(){var f=console.error;console.error=function(){"
      "window.racktwinCheck.errors.push(Array.prototype.join.call(arguments,' '));"
      "f.apply(console,arguments)}})();</script>\n";
  out += "<script>\n" + library + "\n</script>\n</head>\n<body>\n";
  out += "<header><h1>" + escapeHtml(title_) + "</h1></header>\n<nav>";
  for (const auto& [id, title] : contents_)
    out += "<a href=\"#" + escapeHtml(id) + "\">" + escapeHtml(title) + "</a>";
  out += "</nav>\n<main>\n" + body_ + "</main>\n";
  out += "<script type=\"application/json\" id=\"report-data\">"
         + jsonForScript({{"figures", figures_}}) + "</script>\n";
  out += "<pre id=\"render-check\"></pre>\n";
  out += "<script>\n" + std::string(kReportScript) + "</script>\n</body>\n</html>\n";
  return out;
}

Table::Table(std::vector<std::string> header, std::string_view css_class) {
  head_ = css_class.empty() ? "<table>" : "<table class=\"" + escapeHtml(css_class) + "\">";
  if (!header.empty()) {
    head_ += "<thead><tr>";
    for (const std::string& h : header)
      head_ += "<th>" + escapeHtml(h) + "</th>";
    head_ += "</tr></thead>";
  }
  head_ += "<tbody>";
}

Table& Table::row(std::string_view css_class) {
  if (open_) rows_ += "</tr>";
  rows_ += css_class.empty() ? "<tr>" : "<tr class=\"" + escapeHtml(css_class) + "\">";
  open_ = true;
  return *this;
}

Table& Table::cell(std::string_view text, std::string_view css_class) {
  rows_ += css_class.empty() ? "<td>" : "<td class=\"" + escapeHtml(css_class) + "\">";
  rows_ += escapeHtml(text) + "</td>";
  return *this;
}

Table& Table::markup(std::string_view html) {
  rows_ += html;
  return *this;
}

std::string Table::html() const {
  return head_ + rows_ + (open_ ? "</tr>" : "") + "</tbody></table>\n";
}

}  // namespace racktwin::report
