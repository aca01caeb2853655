// Two results side by side: every summary item of both with its difference, the main series
// overlaid, the headroom of both, and what changed in the scenario.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <unordered_map>

#include "Html.hpp"
#include "Limits.hpp"
#include "Page.hpp"
#include "ResultData.hpp"
#include "Series.hpp"
#include "SummaryDisplay.hpp"
#include "racktwin/core/DisplayUnits.hpp"
#include "racktwin/report/Report.hpp"
#include "racktwin/report/SummaryLayout.hpp"

namespace racktwin::report {
namespace {

/// Values differ when their relative difference exceeds 1e-9 or one of them is missing.
bool differs(std::optional<double> a, std::optional<double> b) {
  if (!a || !b) return a.has_value() != b.has_value();
  const double scale = std::max({std::abs(*a), std::abs(*b), 1e-300});
  return std::abs(*a - *b) > 1e-9 * scale;
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

/// A line diff (longest common subsequence) of two scenario texts, as marked-up <pre> content.
std::string lineDiff(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::size_t n = a.size(), m = b.size();
  if (n * m > 4'000'000)
    return "<p class=\"note\">(the scenarios are too long to compare line by line)</p>";
  std::vector<std::vector<unsigned>> lcs(n + 1, std::vector<unsigned>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::string out = "<pre class=\"diff\">";
  std::size_t i = 0, j = 0, changes = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      out += "  " + escapeHtml(a[i]) + "\n";
      ++i, ++j;
    } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out += "<span class=\"added\">+ " + escapeHtml(b[j]) + "</span>";
      ++j, ++changes;
    } else {
      out += "<span class=\"removed\">- " + escapeHtml(a[i]) + "</span>";
      ++i, ++changes;
    }
  }
  out += "</pre>\n";
  if (changes == 0) return "<p>The two results were run from the same scenario text.</p>\n";
  return out;
}

std::string scenarioText(const ResultData& data) {
  const std::vector<std::string> text = data.strings("/scenario/text");
  return text.empty() ? std::string() : text.front();
}

/// The hottest GPU and the facility (or IT) power of both runs on one time axis.
void overlays(Page& page, const ResultData& a, const ResultData& b, core::UnitSystem units) {
  const double duration =
      std::max(a.time().empty() ? 0.0 : a.time().back(), b.time().empty() ? 0.0 : b.time().back());
  const bool minutes = duration > 1200.0;
  const double t_scale = minutes ? 1.0 / 60.0 : 1.0;
  const nlohmann::json time_axis = {{"title", {{"text", minutes ? "time (min)" : "time (s)"}}}};
  const auto trace = [&](const ResultData& d, const std::vector<double>& si,
                         const core::DisplayUnit& unit, const std::string& name,
                         const std::string& source, const char* colour) {
    std::vector<double> t(d.time().size()), y(si.size());
    for (std::size_t k = 0; k < t.size(); ++k)
      t[k] = d.time()[k] * t_scale;
    for (std::size_t k = 0; k < y.size(); ++k)
      y[k] = si[k] * unit.scale + unit.offset;
    const Line l = decimate(t, y);
    return nlohmann::json{{"type", "scatter"},
                          {"mode", "lines"},
                          {"name", sanitizeUtf8(name)},
                          {"x", l.x},
                          {"y", l.y},
                          {"line", {{"color", colour}}},
                          {"meta",
                           {{"source", source},
                            {"reduction", "row_max"},
                            {"scale", unit.scale},
                            {"offset", unit.offset},
                            {"file", name.rfind("A", 0) == 0 ? "a" : "b"}}}};
  };
  const auto hottest = [](const ResultData& d,
                          std::string* used) -> std::optional<std::vector<double>> {
    std::optional<Matrix> m = d.series(*used = "/gpu/T_junction_max");
    if (!m) m = d.series(*used = "/gpu/T_junction");
    if (!m) return std::nullopt;
    return rowMax(*m);
  };
  std::string used_a, used_b;
  const auto Ta = hottest(a, &used_a), Tb = hottest(b, &used_b);
  if (Ta && Tb) {
    const core::DisplayUnit unit = core::displayUnitFor("K", units);
    page.figure(nlohmann::json::array({trace(a, *Ta, unit, "A: hottest GPU", used_a, "#1f77b4"),
                                       trace(b, *Tb, unit, "B: hottest GPU", used_b, "#d62728")}),
                {{"xaxis", time_axis},
                 {"yaxis", {{"title", {{"text", "junction (" + shownUnit(unit.unit) + ")"}}}}}},
                "The hottest GPU junction of each run at each record.");
  }
  const auto power = [](const ResultData& d, std::string* used) -> std::optional<Matrix> {
    std::optional<Matrix> m = d.series(*used = "/site/P_facility");
    if (!m) m = d.series(*used = "/site/P_it");
    return m;
  };
  std::string pa, pb;
  const auto Pa = power(a, &pa), Pb = power(b, &pb);
  if (Pa && Pb) {
    double magnitude = 0.0;
    for (double v : Pa->values)
      magnitude = std::max(magnitude, std::abs(v));
    for (double v : Pb->values)
      magnitude = std::max(magnitude, std::abs(v));
    const core::DisplayUnit unit = core::displayUnitFor("W", units, magnitude);
    nlohmann::json ta = trace(a, Pa->values, unit, "A: " + pa, pa, "#1f77b4");
    nlohmann::json tb = trace(b, Pb->values, unit, "B: " + pb, pb, "#d62728");
    ta["meta"]["reduction"] = tb["meta"]["reduction"] = "column";
    page.figure(
        nlohmann::json::array({ta, tb}),
        {{"xaxis", time_axis},
         {"yaxis",
          {{"title", {{"text", "power (" + shownUnit(unit.unit) + ")"}}},
           {"rangemode", "tozero"}}}},
        "Facility power (the power tree's input, or IT power without a tree), record means.");
  }
}

}  // namespace

std::string comparisonReport(const std::string& baseline_path, const std::string& candidate_path,
                             const ReportOptions& options) {
  const ResultData a(baseline_path), b(candidate_path);
  Page page("RackTwin comparison: " + a.attribute("site_name") + " (A) and "
            + b.attribute("site_name") + " (B)");
  page.section("files", "The two results");
  Table files({"", "A (baseline)", "B (candidate)"});
  for (const char* attribute : {"site_name", "scenario_path", "program_version", "duration_s",
                                "record_interval_s", "complete"}) {
    const std::string va = a.attribute(attribute), vb = b.attribute(attribute);
    files.row().cell(attribute).cell(va).cell(vb, va != vb ? "diff" : "");
  }
  files.row().cell("file").cell(a.path()).cell(b.path());
  page.append(files.html());

  // Every key of either file, arranged as the summary is.
  std::vector<std::string> keys;
  std::vector<std::optional<double>> values;
  for (const StoredSummaryItem& item : a.summary()) {
    keys.push_back(item.key);
    values.push_back(item.value);
  }
  for (const StoredSummaryItem& item : b.summary()) {
    if (std::find(keys.begin(), keys.end(), item.key) != keys.end()) continue;
    keys.push_back(item.key);
    values.push_back(item.value);
  }
  std::vector<std::optional<double>> either(values.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto va = a.summaryValue(keys[i]), vb = b.summaryValue(keys[i]);
    either[i] = differs(va, vb) ? std::optional<double>(1.0) : (va ? va : vb);
  }
  page.section("summary", "Summary side by side");
  page.paragraph(
      "Highlighted: the items whose values differ (relative difference above 1e-9, or "
      "given in one result only). B − A in the display unit.",
      "note");
  std::size_t differing = 0;
  for (const SummaryGroup& group : arrangeSummary(keys, either)) {
    page.subsection(sectionTitle(group.section));
    Table table({"", "A", "B", "B − A", "relative", "key"});
    for (std::size_t i : group.items) {
      const auto va = a.summaryValue(keys[i]), vb = b.summaryValue(keys[i]);
      // Both columns in one unit, the one the larger value needs, so the difference reads in it.
      const double both[2] = {va.value_or(std::nan("")), vb.value_or(std::nan(""))};
      const std::optional<double> unit_for = unitReference(both, 2);
      const SummaryDisplay da = displaySummaryItem(keys[i], va, options.units, unit_for);
      const SummaryDisplay db = displaySummaryItem(keys[i], vb, options.units, unit_for);
      const bool d = differs(va, vb);
      differing += d ? 1 : 0;
      std::optional<double> delta, relative;
      if (da.shown && db.shown) delta = *db.shown - *da.shown;
      if (va && vb && *va != 0.0) relative = (*vb - *va) / std::abs(*va);
      const std::string b_cell = Page::numberCell(vb, db.shown, db.unit, keys[i], d ? "diff" : "");
      table.row(d ? "changed" : "")
          .cell(da.label)
          .markup(Page::numberCell(va, da.shown, da.unit, keys[i]))
          .markup(b_cell)
          .markup(Page::numberCell(std::nullopt, delta,
                                   da.unit == "degC"   ? "K"
                                   : da.unit == "degF" ? "delta_degF"
                                                       : da.unit))
          .markup(Page::numberCell(
              std::nullopt, relative ? std::optional<double>(*relative * 100.0) : std::nullopt,
              "%"))
          .cell(keys[i], "key");
    }
    page.append(table.html());
  }
  page.paragraph(std::to_string(differing) + " of " + std::to_string(keys.size())
                 + " summary items differ.");

  page.section("series", "Over time");
  overlays(page, a, b, options.units);

  const std::optional<DesignLimits> la = readDesignLimits(a), lb = readDesignLimits(b);
  if (la && lb) {
    page.section("headroom", "Headroom");
    // Each group once, in A's order then B's new ones; looked up by name (a site has thousands).
    std::vector<std::string> groups;
    std::unordered_map<std::string, std::pair<const HeadroomRow*, const HeadroomRow*>> of;
    for (const HeadroomRow& g : la->headroom)
      if (of.try_emplace(g.group, &g, nullptr).second) groups.push_back(g.group);
    for (const HeadroomRow& g : lb->headroom) {
      const auto [at, added] = of.try_emplace(g.group, nullptr, &g);
      if (added) {
        groups.push_back(g.group);
      } else if (at->second.second == nullptr) {
        at->second.second = &g;
      }
    }
    const auto margin = [](const HeadroomRow* g) {
      return g ? std::optional<double>(g->worst_margin_fraction) : std::nullopt;
    };
    // The least of a group's two margins orders it (HeadroomRow's order: NaN and absent last).
    std::vector<HeadroomRow> order;
    for (const std::string& group : groups) {
      const auto [ga, gb] = of.at(group);
      double least = std::nan("");
      for (const HeadroomRow* g : {ga, gb})
        if (g && !std::isnan(g->worst_margin_fraction) && !(g->worst_margin_fraction >= least))
          least = g->worst_margin_fraction;
      order.push_back(HeadroomRow{group, "", "", least, 0.0, 0.0});
    }
    orderByMargin(order);
    const std::size_t shown = std::min(order.size(), kGroupRowsShown);
    Table table({"group", "A worst margin", "B worst margin", "A binding limit", "B binding limit"},
                "headroom");
    for (std::size_t i = 0; i < shown; ++i) {
      const std::string& group = order[i].group;
      const auto [ga, gb] = of.at(group);
      const auto percent = [](std::optional<double> v) {
        return v ? std::optional<double>(*v * 100.0) : std::nullopt;
      };
      table.row(differs(margin(ga), margin(gb)) ? "changed" : "")
          .cell(group)
          .markup(Page::numberCell(margin(ga), percent(margin(ga)), "%"))
          .markup(Page::numberCell(margin(gb), percent(margin(gb)), "%"))
          .cell(ga ? ga->binding_limit : "")
          .cell(gb ? gb->binding_limit : "");
    }
    page.append(table.html());
    if (shown < order.size()) {
      std::size_t changed = 0;
      for (const std::string& group : groups) {
        const auto [ga, gb] = of.at(group);
        changed += differs(margin(ga), margin(gb)) ? 1 : 0;
      }
      page.paragraph("The " + formatNumber(static_cast<double>(shown))
                         + " groups with the least margin in either result, of "
                         + formatNumber(static_cast<double>(order.size())) + " ("
                         + formatNumber(static_cast<double>(changed))
                         + " with a margin that differs); the others are in the files "
                           "(/headroom, docs/capacity.md).",
                     "note");
    }
  }

  page.section("scenario", "What changed in the scenario");
  page.paragraph("Lines of A's scenario text removed (red) and B's added (green).", "note");
  page.append(lineDiff(splitLines(scenarioText(a)), splitLines(scenarioText(b))));
  return page.render();
}

}  // namespace racktwin::report
