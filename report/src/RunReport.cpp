// The report of one run: page order, the verdict, the summary by section and the provenance.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ChartLibrary.hpp"
#include "Html.hpp"
#include "Limits.hpp"
#include "RunContext.hpp"
#include "Series.hpp"
#include "SummaryDisplay.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Version.hpp"
#include "racktwin/report/Report.hpp"
#include "racktwin/report/SummaryLayout.hpp"
#include "racktwin/scenarios/ResultScenario.hpp"

namespace racktwin::report {
namespace {

/// One tile of the verdict: a value that answers a question, coloured by whether it passes.
std::string tile(std::string_view state, std::string_view label, std::string_view value) {
  return "<div class=\"" + escapeHtml(state) + "\"><div class=\"value\">" + escapeHtml(value)
         + "</div><div class=\"label\">" + escapeHtml(label) + "</div></div>";
}

std::string shownText(const SummaryDisplay& d) {
  return formatNumber(d.shown) + (d.shown && !d.unit.empty() ? " " + shownUnit(d.unit) : "");
}

/// How a limit's rating, value and margin read: fractions in %, flow per heat in L/min per kW,
/// the rest by core::displayUnitFor.
core::DisplayUnit limitUnit(const std::string& si_unit, core::UnitSystem units, double magnitude) {
  if (si_unit == "1") return {"%", 100.0, 0.0};
  if (si_unit == "m3/s/W") {
    return units == core::UnitSystem::US ? core::DisplayUnit{"gpm/kW", 60.0e3 / 3.785411784, 0.0}
                                         : core::DisplayUnit{"L/min/kW", 60.0e6, 0.0};
  }
  return core::displayUnitFor(si_unit, units, magnitude);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

/// Under a table that shows the `shown` rows of least margin of `total`: how many it leaves out
/// and the least margin among them, and where they are. The counts are data attributes too, for
/// the report's checks.
std::string restNote(std::string_view id, std::size_t shown, std::size_t total,
                     std::size_t exceeded, double rest_least_fraction, std::string_view what,
                     std::string_view exceeded_words, std::string_view dataset) {
  const auto count = [](std::size_t n) { return formatNumber(static_cast<double>(n)); };
  const std::string rest =
      std::isnan(rest_least_fraction)
          ? "none of them checked"
          : "each with a margin of at least " + formatNumber(rest_least_fraction * 100.0) + " %";
  const std::string text = "The " + count(shown) + " " + std::string(what)
                           + " with the least margin of " + count(total) + " (" + count(exceeded)
                           + " " + std::string(exceeded_words) + "). The other "
                           + count(total - shown) + ", " + rest + ", are in the result file ("
                           + std::string(dataset) + ", docs/capacity.md).";
  return "<p class=\"note\" id=\"" + escapeHtml(id) + "\" data-shown=\"" + std::to_string(shown)
         + "\" data-total=\"" + std::to_string(total) + "\" data-exceeded=\""
         + std::to_string(exceeded) + "\">" + escapeHtml(text) + "</p>\n";
}

/// Every limit the run checked, a row per kind of group and limit: how many, how many exceeded,
/// and the least margin with where and when. The overview of a site's thousands of limits.
void limitsByKindTable(Page& page, const DesignLimits& limits) {
  page.subsection("Design limits by kind");
  Table table({"kind", "limit", "limits", "checked", "exceeded", "least margin", "where", "at"},
              "limits-by-kind");
  for (const LimitKind& k : limitsByKind(limits.limits)) {
    const LimitRow* l = k.least;
    table.row(k.exceeded > 0                                   ? "bad"
              : l != nullptr && l->worst_margin_fraction < 0.1 ? "warn"
                                                               : "")
        .cell(k.group_kind)
        .cell(k.label.empty() ? k.limit : k.label)
        .markup(Page::numberCell(static_cast<double>(k.count), static_cast<double>(k.count), ""))
        .markup(
            Page::numberCell(static_cast<double>(k.checked), static_cast<double>(k.checked), ""))
        .markup(
            Page::numberCell(static_cast<double>(k.exceeded), static_cast<double>(k.exceeded), ""))
        .markup(Page::numberCell(
            l ? std::optional<double>(l->worst_margin_fraction) : std::nullopt,
            l ? std::optional<double>(l->worst_margin_fraction * 100.0) : std::nullopt, "%"))
        .cell(l ? l->component : "")
        .markup(Page::numberCell(l ? std::optional<double>(l->worst_time) : std::nullopt,
                                 l ? std::optional<double>(l->worst_time) : std::nullopt, "s"));
  }
  page.append(table.html());
}

}  // namespace

void summaryTable(Page& page, const ResultData& data, core::UnitSystem units, bool headline_only) {
  std::vector<std::string> keys;
  std::vector<std::optional<double>> values;
  for (const StoredSummaryItem& item : data.summary()) {
    keys.push_back(item.key);
    values.push_back(item.value);
  }
  for (const SummaryGroup& group : arrangeSummary(keys, values)) {
    if (headline_only != (group.section == SummarySection::Headline)) continue;
    if (!headline_only) page.subsection(sectionTitle(group.section));
    Table table({"", "value", "key"}, "summary");
    for (std::size_t i : group.items) {
      const SummaryDisplay d = displaySummaryItem(keys[i], values[i], units);
      table.row().cell(d.label).markup(Page::numberCell(values[i], d.shown, d.unit, keys[i]));
      table.cell(keys[i], "key");
    }
    page.append(table.html());
  }
}

void verdictSection(Page& page, const RunContext& c) {
  const ResultData& data = c.data;
  page.section("verdict", "Verdict");
  const auto item = [&](const std::string& key) {
    return displaySummaryItem(key, data.summaryValue(key), c.units);
  };
  std::string tiles = "<div class=\"verdict\">";
  const std::optional<DesignLimits> limits = readDesignLimits(data);
  if (limits) {
    std::size_t exceeded = 0, checked = 0;
    for (const LimitRow& l : limits->limits) {
      checked += l.checked > 0.0 ? 1 : 0;
      exceeded += l.worst_margin < 0.0 ? 1 : 0;
    }
    tiles += tile(exceeded ? "bad" : "good", "design limits exceeded of those checked",
                  std::to_string(exceeded) + " of " + std::to_string(checked));
  }
  const double throttled = data.summaryValue("throttled_gpu_seconds").value_or(0.0);
  const double shut_down = data.summaryValue("gpus_shut_down").value_or(0.0);
  tiles += tile(shut_down > 0   ? "bad"
                : throttled > 0 ? "warn"
                                : "good",
                "max GPU junction temperature", shownText(item("max_gpu_temperature_K")));
  tiles += tile(throttled > 0 ? "warn" : "good", "GPU thermal throttling",
                throttled > 0 ? shownText(item("throttled_gpu_seconds")) : "none");
  if (shut_down > 0)
    tiles += tile("bad", "GPUs shut down over temperature", formatNumber(shut_down));
  if (const auto ride = data.summaryValue("ride_through_s"))
    tiles += tile("warn", "ride-through, first fault to first throttle",
                  shownText(item("ride_through_s")));
  tiles += tile("good", "PUE", formatNumber(data.summaryValue("pue")));
  const auto audit = data.summaryValue("energy_audit_relative_error_max");
  tiles += tile(audit && *audit <= 1e-8 ? "good" : "bad",
                "energy audit, worst relative residual (limit 1e-8)", formatNumber(audit));
  const std::vector<std::string> warnings = lines(data.attribute("input_warnings"));
  tiles +=
      tile(warnings.empty() ? "good" : "warn", "input warnings", std::to_string(warnings.size()));
  const bool complete = data.attribute("complete") == "1";
  if (!complete)
    tiles += tile("bad", "the run did not finish: figures cover it until it stopped", "incomplete");
  page.append(tiles + "</div>\n");

  page.subsection("Answers");
  if (data.summary().empty()) {
    page.paragraph("The file holds no summary: the run did not finish.", "note");
  } else {
    summaryTable(page, data, c.units, true);
  }
  if (!warnings.empty()) {
    page.subsection("Input warnings (values outside their usual engineering range)");
    std::string list = "<ul>";
    for (const std::string& w : warnings)
      list += "<li>" + escapeHtml(w) + "</li>";
    page.append(list + "</ul>\n");
  }
  if (!limits) {
    page.paragraph(
        "This result holds no design limits (/limits): it was written by a build "
        "without the design-limit checks (docs/capacity.md).",
        "note");
    return;
  }
  limitsByKindTable(page, *limits);
  page.subsection("Headroom by group (the worst limit of each)");
  std::vector<HeadroomRow> groups = limits->headroom;
  orderByMargin(groups);
  Table headroom({"group", "kind", "worst margin", "binding limit", "at", "limits exceeded"},
                 "headroom");
  const std::size_t groups_shown = std::min(groups.size(), kGroupRowsShown);
  std::size_t groups_exceeded = 0;
  for (const HeadroomRow& g : groups)
    groups_exceeded += g.violations > 0 ? 1 : 0;
  for (std::size_t i = 0; i < groups_shown; ++i) {
    const HeadroomRow& g = groups[i];
    headroom.row(g.violations > 0                ? "bad"
                 : g.worst_margin_fraction < 0.1 ? "warn"
                                                 : "")
        .cell(g.group)
        .cell(g.group_kind)
        .markup(Page::numberCell(g.worst_margin_fraction, g.worst_margin_fraction * 100.0, "%"))
        .cell(g.binding_limit)
        .markup(Page::numberCell(g.worst_time, g.worst_time, "s"))
        .markup(Page::numberCell(g.violations, g.violations, ""));
  }
  page.append(headroom.html());
  if (groups_shown < groups.size()) {
    page.append(restNote("headroom-rest", groups_shown, groups.size(), groups_exceeded,
                         groups[groups_shown].worst_margin_fraction, "groups",
                         "with a limit exceeded", "/headroom"));
  }
  page.subsection("Design limits");
  std::vector<LimitRow> rows = limits->limits;
  orderByMargin(rows);
  const std::size_t limits_shown = std::min(rows.size(), kLimitRowsShown);
  std::size_t limits_exceeded = 0;
  for (const LimitRow& l : rows)
    limits_exceeded += l.checked > 0.0 && l.worst_margin < 0.0 ? 1 : 0;
  Table table({"limit", "component", "rating", "worst value", "margin", "at", "exceeded for",
               "rating from"},
              "limits");
  for (std::size_t i = 0; i < limits_shown; ++i) {
    const LimitRow& l = rows[i];
    const bool temperature = l.unit == "K";
    // A rating of temperature is absolute; its margin is a difference.
    const core::DisplayUnit unit = limitUnit(l.unit, c.units, std::abs(l.rating));
    const core::DisplayUnit margin_unit =
        temperature ? core::displayUnitForDifference(c.units) : unit;
    const bool checked = l.checked > 0.0;
    table
        .row(!checked                        ? ""
             : l.worst_margin < 0.0          ? "bad"
             : l.worst_margin_fraction < 0.1 ? "warn"
                                             : "")
        .cell((l.label.empty() ? l.limit : l.label) + (l.sense == "min" ? " (minimum)" : ""))
        .cell(l.component)
        .markup(Page::numberCell(l.rating, l.rating * unit.scale + unit.offset, unit.unit))
        .markup(Page::numberCell(
            l.worst_value,
            checked ? std::optional<double>(l.worst_value * unit.scale + unit.offset)
                    : std::nullopt,
            unit.unit))
        .markup(Page::numberCell(
            l.worst_margin,
            checked ? std::optional<double>(l.worst_margin * margin_unit.scale) : std::nullopt,
            margin_unit.unit))
        .markup(Page::numberCell(l.worst_time,
                                 checked ? std::optional<double>(l.worst_time) : std::nullopt, "s"))
        .markup(Page::numberCell(l.violated_time, l.violated_time, "s"))
        .cell(l.source);
  }
  page.append(table.html());
  if (limits_shown < rows.size()) {
    page.append(restNote("limits-rest", limits_shown, rows.size(), limits_exceeded,
                         rows[limits_shown].worst_margin_fraction, "limits", "exceeded",
                         "/limits"));
  }
}

void summarySection(Page& page, const RunContext& c) {
  page.section("summary", "Summary by domain");
  if (c.data.summary().empty()) {
    page.paragraph("The file holds no summary: the run did not finish.", "note");
    return;
  }
  page.paragraph(
      "Every item of the run's summary (summary_json in the file), in the units chosen; "
      "the key column names the item in the JSON, with its SI unit.",
      "note");
  summaryTable(page, c.data, c.units, false);
}

namespace {

/// The sourced values of a data file: each "key: value  # [TAG] source" line.
std::string dataFileSources(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "<p class=\"note\">(not readable now)</p>";
  std::string description;
  Table table({"key", "value", "source"});
  int rows = 0;
  std::size_t read = 0;
  for (std::string line; std::getline(in, line) && read < (1u << 20);) {
    read += line.size();
    if (line.rfind("description:", 0) == 0) description = line.substr(12);
    const std::size_t hash = line.find("# [");
    const std::size_t colon = line.find(':');
    if (hash == std::string::npos || colon == std::string::npos || colon > hash) continue;
    std::string key = line.substr(0, colon);
    key.erase(0, key.find_first_not_of(' '));
    std::string value = line.substr(colon + 1, hash - colon - 1);
    value.erase(0, value.find_first_not_of(' '));
    value.erase(value.find_last_not_of(' ') + 1);
    table.row().cell(key).cell(value).cell(line.substr(hash + 2));
    if (++rows >= 400) break;
  }
  std::string html;
  if (!description.empty()) html += "<p>" + escapeHtml(description) + "</p>";
  html += rows ? table.html() : "<p class=\"note\">(no tagged values)</p>";
  return html;
}

}  // namespace

void provenanceSection(Page& page, const RunContext& c) {
  const ResultData& data = c.data;
  page.section("provenance", "Scenario and provenance");
  Table table({"", ""});
  const auto row = [&table](std::string_view name, std::string_view value) {
    table.row().cell(name).cell(value);
  };
  row("result file", data.path());
  row("program that ran it", data.attribute("program_version"));
  row("program that wrote this report",
      std::string(core::programVersion()) + ", charts by " + chartLibraryVersion());
  row("site", data.attribute("site_name"));
  row("scenario file", data.attribute("scenario_path"));
  row("seed", data.attribute("seed"));
  row("macro step", data.attribute("step_s") + " s, " + data.attribute("substeps") + " sub-steps");
  row("record interval", data.attribute("record_interval_s") + " s");
  row("duration", data.attribute("duration_s") + " s");
  row("complete", data.attribute("complete") == "1" ? "yes" : "no (the run stopped early)");
  row("text checksum", data.attribute("text_checksum"));
  if (data.dataset("/resume/count") || data.info().attributes.count("resume_count"))
    row("resumed", "yes (see /resume)");
  page.append(table.html());
  page.paragraph(data.attribute("record_convention"), "note");

  page.subsection("Data files");
  if (!c.site) {
    page.paragraph("The stored scenario did not load here, so its data files are not listed: "
                       + c.site_problem,
                   "note");
  } else {
    page.paragraph(
        "The files the stored scenario reads, as found on this machine when the report "
        "was written (loaded from the text the result stores), with the source of each "
        "value: [P] published, [S] secondary source, [C] computed, [E] estimate "
        "(data/README.md).",
        "note");
    for (const std::string& file : c.site->input_files) {
      page.append("<details><summary>" + escapeHtml(file) + "</summary>");
      const std::string extension = std::filesystem::path(file).extension().string();
      if (extension == ".yaml" || extension == ".yml") {
        page.append(dataFileSources(file));
      } else {
        page.append("<p class=\"note\">(a table or trace; its source is described beside it)</p>");
      }
      page.append("</details>\n");
    }
  }
  page.subsection("Scenario text (as the run used it)");
  const std::vector<std::string> text = data.strings("/scenario/text");
  page.append("<pre>" + escapeHtml(text.empty() ? "(not stored)" : text.front()) + "</pre>\n");
}

nlohmann::json RunContext::line(const std::vector<double>& si_values, const core::DisplayUnit& unit,
                                std::string name, std::string source, std::string reduction) const {
  std::vector<double> shown(si_values.size());
  for (std::size_t k = 0; k < shown.size(); ++k)
    shown[k] = si_values[k] * unit.scale + unit.offset;
  const Line l = decimate(t, shown);
  return {{"type", "scatter"},
          {"mode", "lines"},
          {"name", sanitizeUtf8(name)},
          {"x", l.x},
          {"y", l.y},
          {"meta",
           {{"source", source},
            {"reduction", reduction},
            {"scale", unit.scale},
            {"offset", unit.offset},
            {"unit", shownUnit(unit.unit)}}}};
}

nlohmann::json RunContext::timeAxis() const {
  return {{"title", {{"text", "time (" + t_unit + ")"}}}};
}

core::DisplayUnit unitFor(const RunContext& context, std::string_view si_unit,
                          const std::vector<double>& values, bool heat) {
  double magnitude = 0.0;
  for (double v : values)
    if (std::isfinite(v)) magnitude = std::max(magnitude, std::abs(v));
  return core::displayUnitFor(si_unit, context.units, magnitude, heat);
}

std::string runReport(const std::string& result_path, const ReportOptions& options) {
  const ResultData data(result_path);
  RunContext c{data, options.units, std::nullopt, {}, {}, "s", 1.0};
  scenarios::ResultScenario loaded =
      scenarios::loadResultScenario(result_path, data.attribute("scenario_path"));
  c.site = std::move(loaded.site);
  c.site_problem = loaded.problem;
  const double duration = data.time().empty() ? 0.0 : data.time().back();
  if (duration > 2 * 86400.0) {
    c.t_unit = "h", c.t_scale = 1.0 / 3600.0;
  } else if (duration > 1200.0) {
    c.t_unit = "min", c.t_scale = 1.0 / 60.0;
  }
  c.t.resize(data.time().size());
  for (std::size_t k = 0; k < c.t.size(); ++k)
    c.t[k] = data.time()[k] * c.t_scale;

  const std::string site = data.attribute("site_name");
  Page page("RackTwin report: " + (site.empty() ? result_path : site));
  page.paragraph(data.attribute("scenario_path") + " · " + data.attribute("program_version") + " · "
                     + formatNumber(duration) + " s simulated",
                 "note");
  verdictSection(page, c);
  faultSection(page, c);
  temperatureSection(page, c);
  powerSection(page, c);
  spectrumSection(page, c);
  energyFlowSection(page, c);
  electricalSection(page, c);
  coolingSection(page, c);
  summarySection(page, c);
  provenanceSection(page, c);
  return page.render();
}

ResultKind resultKind(const std::string& path) {
  const core::ResultFileInfo info = core::readResultInfo(path);
  const auto kind = info.attributes.find("file_kind");
  return kind != info.attributes.end() && kind->second == "racktwin sweep" ? ResultKind::Sweep
                                                                           : ResultKind::Run;
}

std::string report(const std::vector<std::string>& paths, const ReportOptions& options) {
  if (paths.size() == 2) return comparisonReport(paths[0], paths[1], options);
  if (paths.size() != 1) {
    throw core::InputError({"<command line>", 0, 0}, "result",
                           "give one result (or sweep) file, or two results to compare");
  }
  return resultKind(paths[0]) == ResultKind::Sweep ? sweepReport(paths[0], options)
                                                   : runReport(paths[0], options);
}

}  // namespace racktwin::report
