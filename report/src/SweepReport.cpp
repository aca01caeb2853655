// The report of a sweep file (docs/capacity.md, "Sweep files"): the cases, the envelope, each
// headline metric against each parameter, and the limits that bind.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "Html.hpp"
#include "Page.hpp"
#include "ResultData.hpp"
#include "SummaryDisplay.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/ResultTable.hpp"
#include "racktwin/report/Report.hpp"
#include "racktwin/report/SummaryLayout.hpp"

namespace racktwin::report {
namespace {

constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};

/// Column names under a group: "/parameters/x" -> "x" for each float or string dataset, the
/// dataset's name decoded (core::tableColumnName: "%2F" -> '/').
std::vector<std::string> members(const ResultData& data, const std::string& group,
                                 const std::string& type) {
  std::vector<std::string> out;
  const std::string prefix = "/" + group + "/";
  for (const core::DatasetInfo& d : data.info().datasets) {
    if (d.path.rfind(prefix, 0) != 0 || d.type != type) continue;
    const std::string link = d.path.substr(prefix.size());
    if (link.find('/') == std::string::npos) out.push_back(core::tableColumnName(link));
  }
  return out;
}

/// The dataset of a table's column: "/<group>/<its encoded name>".
std::string columnPath(const std::string& group, const std::string& column) {
  return "/" + group + "/" + core::tableLinkName(column);
}

/// A 1-D column of the cases: `cases` values, or an InputError.
std::vector<double> caseColumn(const ResultData& data, const std::string& path, std::size_t cases) {
  const std::optional<Matrix> m = data.matrix(path);
  if (!m || m->rows != cases || m->columns != 1) {
    throw core::InputError(
        {data.path(), 0, 0}, path,
        "is not a float64 column of one value per case (" + std::to_string(cases) + ")");
  }
  return m->values;
}

std::vector<std::string> caseStrings(const ResultData& data, const std::string& path,
                                     std::size_t cases) {
  std::vector<std::string> column = data.strings(path);
  if (column.empty() && !data.dataset(path)) return std::vector<std::string>(cases);
  if (column.size() != cases) {
    throw core::InputError({data.path(), 0, 0}, path,
                           "holds " + std::to_string(column.size()) + " strings for "
                               + std::to_string(cases) + " cases");
  }
  return column;
}

/// The metrics a sweep is read for, in headline order, then the rest of the layout's order.
std::vector<std::string> headlineMetrics(const std::vector<std::string>& metrics) {
  std::vector<std::pair<int, std::string>> ranked;
  for (const std::string& key : metrics) {
    const SummaryKeyLayout* layout = findSummaryKeyLayout(key);
    if (layout && layout->headline > 0) ranked.emplace_back(layout->headline, key);
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (const auto& [rank, key] : ranked)
    out.push_back(key);
  return out;
}

}  // namespace

std::string sweepReport(const std::string& sweep_path, const ReportOptions& options) {
  const ResultData data(sweep_path);
  const std::vector<std::string> ids = data.strings("/cases/id");
  const std::size_t cases = ids.size();
  const std::vector<std::string> status = caseStrings(data, "/cases/status", cases);
  const std::vector<std::string> fault = caseStrings(data, "/cases/fault", cases);
  const std::vector<std::string> patch = caseStrings(data, "/cases/patch", cases);
  const std::vector<std::string> error = caseStrings(data, "/cases/error", cases);

  Page page("RackTwin sweep: " + data.attribute("sweep_path"));
  page.paragraph(data.attribute("program_version") + " · base scenario "
                     + data.attribute("base_path") + " · design " + data.attribute("design") + " · "
                     + std::to_string(cases) + " cases, " + data.attribute("failed") + " failed"
                     + (data.attribute("complete") == "1" ? "" : " · INCOMPLETE"),
                 "note");

  // Parameters: numeric columns (NaN for non-numeric values) with their text beside them.
  std::vector<std::string> parameters;
  for (const std::string& name : members(data, "parameters", "float64"))
    parameters.push_back(name);
  std::map<std::string, std::vector<double>> parameter_values;
  std::map<std::string, std::string> parameter_units;
  for (const std::string& p : parameters) {
    parameter_values[p] = caseColumn(data, columnPath("parameters", p), cases);
    parameter_units[p] = data.dataset(columnPath("parameters", p))->units;
  }
  std::map<std::string, std::vector<double>> metric_values;
  const std::vector<std::string> metrics = members(data, "metrics", "float64");
  for (const std::string& m : metrics)
    metric_values[m] = caseColumn(data, columnPath("metrics", m), cases);
  const std::vector<std::string> headline = headlineMetrics(metrics);
  // One unit for each metric's numbers (its table column, its figures' axes): the one its
  // largest value needs.
  std::map<std::string, std::optional<double>> unit_for;
  for (const std::string& key : headline)
    unit_for[key] = unitReference(metric_values[key].data(), metric_values[key].size());

  // The envelope first: it is the answer a sweep is run for.
  const std::vector<std::string> envelope_text = members(data, "envelope", "string");
  const std::vector<std::string> envelope_numbers = members(data, "envelope", "float64");
  if (!envelope_text.empty() || !envelope_numbers.empty()) {
    page.section("envelope", "Envelope");
    std::vector<std::string> header = envelope_text;
    header.insert(header.end(), envelope_numbers.begin(), envelope_numbers.end());
    Table table(header);
    std::vector<std::vector<std::string>> text;
    std::vector<std::vector<double>> numbers;
    std::size_t rows = 0;
    for (const std::string& c : envelope_text) {
      text.push_back(data.strings(columnPath("envelope", c)));
      rows = std::max(rows, text.back().size());
    }
    for (const std::string& c : envelope_numbers) {
      const auto m = data.matrix(columnPath("envelope", c));
      numbers.push_back(m ? m->values : std::vector<double>());
      rows = std::max(rows, numbers.back().size());
    }
    for (std::size_t r = 0; r < rows; ++r) {
      table.row();
      for (const auto& column : text)
        table.cell(r < column.size() ? column[r] : "");
      for (const auto& column : numbers)
        table.markup(Page::numberCell(
            r < column.size() ? std::optional<double>(column[r]) : std::nullopt,
            r < column.size() ? std::optional<double>(column[r]) : std::nullopt, ""));
    }
    page.append(table.html());
  }

  page.section("cases", "Cases");
  {
    std::vector<std::string> header{"case", "status", "fault"};
    for (const std::string& p : parameters)
      header.push_back(p
                       + (parameter_units[p].empty() || parameter_units[p] == "1"
                              ? ""
                              : " (" + shownUnit(parameter_units[p]) + ")"));
    std::vector<SummaryDisplay> heads;
    for (const std::string& key : headline) {
      const SummaryDisplay d = displaySummaryItem(key, std::nullopt, options.units, unit_for[key]);
      header.push_back(d.label + (d.unit.empty() ? "" : " (" + shownUnit(d.unit) + ")"));
    }
    Table table(header);
    for (std::size_t k = 0; k < cases; ++k) {
      table.row(status[k] == "ok" ? "" : "bad").cell(ids[k]).cell(status[k]).cell(fault[k]);
      for (const std::string& p : parameters) {
        const double v = parameter_values[p][k];
        table.markup(Page::numberCell(std::isfinite(v) ? std::optional<double>(v) : std::nullopt,
                                      std::isfinite(v) ? std::optional<double>(v) : std::nullopt,
                                      ""));
      }
      for (const std::string& key : headline) {
        const double v = metric_values[key][k];
        const std::optional<double> value =
            std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
        const SummaryDisplay d = displaySummaryItem(key, value, options.units, unit_for[key]);
        table.markup(Page::numberCell(value, d.shown, "", key));
      }
    }
    page.append(table.html());
    bool any_error = false;
    for (std::size_t k = 0; k < cases; ++k)
      any_error = any_error || !error[k].empty();
    if (any_error) {
      page.subsection("Failed cases");
      Table failed({"case", "error"});
      for (std::size_t k = 0; k < cases; ++k)
        if (!error[k].empty()) failed.row("bad").cell(ids[k]).cell(error[k]);
      page.append(failed.html());
    }
  }

  // Each headline metric against each numeric parameter: one line per fault and combination of
  // the other parameters (as written), so a line varies one thing only.
  std::map<std::string, std::vector<std::string>> parameter_text;
  for (const std::string& p : parameters)
    parameter_text[p] = caseStrings(data, columnPath("parameters", p + "_text"), cases);
  const auto numeric = [&](const std::string& p) {
    return std::any_of(parameter_values[p].begin(), parameter_values[p].end(),
                       [](double v) { return std::isfinite(v); });
  };
  if (!parameters.empty() && !headline.empty())
    page.section("metrics", "Metrics against parameters");
  for (const std::string& p : parameters) {
    if (!numeric(p)) continue;
    // The line each case belongs to, in case order.
    std::vector<std::string> line_of(cases);
    std::vector<std::string> lines;
    for (std::size_t k = 0; k < cases; ++k) {
      std::string name;
      for (const std::string& other : parameters)
        if (other != p) name += (name.empty() ? "" : ", ") + other + " " + parameter_text[other][k];
      name += (name.empty() ? "" : ", ") + (fault[k].empty() ? std::string("no fault") : fault[k]);
      line_of[k] = name;
      if (std::find(lines.begin(), lines.end(), name) == lines.end()) lines.push_back(name);
    }
    for (const std::string& key : headline) {
      nlohmann::json traces = nlohmann::json::array();
      const SummaryDisplay label =
          displaySummaryItem(key, std::nullopt, options.units, unit_for[key]);
      for (std::size_t f = 0; f < lines.size(); ++f) {
        std::vector<std::pair<double, double>> points;
        for (std::size_t k = 0; k < cases; ++k) {
          const double x = parameter_values[p][k], v = metric_values[key][k];
          if (line_of[k] != lines[f] || !std::isfinite(x) || !std::isfinite(v)) continue;
          const SummaryDisplay d = displaySummaryItem(key, v, options.units, unit_for[key]);
          points.emplace_back(x, *d.shown);
        }
        if (points.empty()) continue;
        std::sort(points.begin(), points.end());
        std::vector<double> xs, ys;
        for (const auto& [x, y] : points) {
          xs.push_back(x);
          ys.push_back(y);
        }
        traces.push_back({{"type", "scatter"},
                          {"mode", "lines+markers"},
                          {"name", sanitizeUtf8(lines[f])},
                          {"x", xs},
                          {"y", ys},
                          {"line", {{"color", kColours[f % 8]}}},
                          {"meta",
                           {{"source", columnPath("metrics", key)},
                            {"parameter", columnPath("parameters", p)},
                            {"reduction", "sweep"}}}});
      }
      if (traces.empty()) continue;
      const std::string p_unit = parameter_units[p].empty() || parameter_units[p] == "1"
                                     ? ""
                                     : " (" + shownUnit(parameter_units[p]) + ")";
      // Axis titles take the label up to its first parenthesis: "PUE", not its definition.
      const std::string short_label = label.label.substr(0, label.label.find(" ("));
      page.figure(
          traces,
          {{"xaxis", {{"title", {{"text", sanitizeUtf8(p + p_unit)}}}}},
           {"yaxis",
            {{"title",
              {{"text", sanitizeUtf8(
                            short_label
                            + (label.unit.empty() ? "" : " (" + shownUnit(label.unit) + ")"))}}}}}},
          label.label + " against " + p + ", one line per fault and value of the other parameters.",
          320);
    }
  }

  // The limits that bind: per case, the group with the least margin and its limit.
  const std::vector<std::string> groups = data.strings("/headroom/groups");
  const std::optional<Matrix> margins = data.matrix("/headroom/worst_margin_fraction");
  const std::vector<std::string> binding = data.strings("/headroom/binding_limit");
  if (!groups.empty() && margins && margins->rows == cases && margins->columns == groups.size()
      && binding.size() == cases * groups.size()) {
    page.section("binding", "Binding limits");
    Table table({"case", "least headroom in", "margin", "binding limit"});
    std::map<std::string, int> binds;
    for (std::size_t k = 0; k < cases; ++k) {
      std::size_t worst = groups.size();
      for (std::size_t g = 0; g < groups.size(); ++g) {
        const double v = margins->at(k, g);
        if (std::isfinite(v) && (worst == groups.size() || v < margins->at(k, worst))) worst = g;
      }
      if (worst == groups.size()) continue;
      const double m = margins->at(k, worst);
      const std::string& limit = binding[k * groups.size() + worst];
      ++binds[limit];
      table.row(m < 0.0   ? "bad"
                : m < 0.1 ? "warn"
                          : "")
          .cell(ids[k])
          .cell(groups[worst])
          .markup(Page::numberCell(m, m * 100.0, "%"))
          .cell(limit);
    }
    page.append(table.html());
    std::vector<std::string> names;
    std::vector<double> counts;
    for (const auto& [limit, count] : binds) {
      names.push_back(sanitizeUtf8(limit));
      counts.push_back(count);
    }
    page.figure(
        nlohmann::json::array(
            {{{"type", "bar"},
              {"x", names},
              {"y", counts},
              {"name", "cases"},
              {"meta", {{"source", "/headroom/binding_limit"}, {"reduction", "count"}}}}}),
        {{"yaxis", {{"title", {{"text", "cases it binds"}}}}}, {"xaxis", {{"automargin", true}}}},
        "How often each limit is the one with the least headroom.", 320);
  }

  if (groups.empty()) {
    page.paragraph(
        "This sweep holds no headroom (/headroom): its cases were run by a build without "
        "the design-limit checks (docs/capacity.md), so no binding limit can be named.",
        "note");
  }
  page.section("inputs", "Sweep and base scenario");
  const std::vector<std::string> sweep_text = data.strings("/sweep/text");
  const std::vector<std::string> base_text = data.strings("/base/text");
  page.subsection("Sweep file");
  page.append("<pre>" + escapeHtml(sweep_text.empty() ? "(not stored)" : sweep_text.front())
              + "</pre>\n");
  page.subsection("Case patches");
  Table patches({"case", "changes to the base scenario"});
  for (std::size_t k = 0; k < cases; ++k)
    patches.row().cell(ids[k]).markup("<td><pre>" + escapeHtml(patch[k]) + "</pre></td>");
  page.append(patches.html());
  page.subsection("Base scenario");
  page.append("<pre>" + escapeHtml(base_text.empty() ? "(not stored)" : base_text.front())
              + "</pre>\n");
  return page.render();
}

}  // namespace racktwin::report
