// The sweep file's tables and its CSV (docs/capacity.md, "Sweep files").
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "racktwin/core/Version.hpp"
#include "racktwin/study/Sweep.hpp"

namespace racktwin::study {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool endsWith(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size()
         && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

/// The metric keys of every case, in order of first appearance.
std::vector<std::string> metricKeys(const std::vector<CaseResult>& results) {
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const CaseResult& r : results)
    for (const auto& [key, value] : r.metrics)
      if (seen.insert(key).second) keys.push_back(key);
  return keys;
}

std::vector<std::string> headroomGroups(const std::vector<CaseResult>& results) {
  std::vector<std::string> groups;
  std::set<std::string> seen;
  for (const CaseResult& r : results)
    for (const CaseHeadroom& h : r.headroom)
      if (seen.insert(h.group).second) groups.push_back(h.group);
  return groups;
}

std::map<std::string, double> metricsOf(const CaseResult& r) {
  std::map<std::string, double> out;
  for (const auto& [key, value] : r.metrics)
    out[key] = value ? *value : kNaN;
  return out;
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char c : text)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csvNumber(double value) {
  if (!std::isfinite(value)) return "";
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

}  // namespace

std::string metricUnit(const std::string& key) {
  // The summary's keys carry their unit in a suffix (core/Summary.hpp).
  static const std::pair<const char*, const char*> kSuffixes[] = {{"_m3_per_s", "m3/s"},
                                                                  {"_L_per_kWh", "L/kWh"},
                                                                  {"_J", "J"},
                                                                  {"_K", "K"},
                                                                  {"_W", "W"},
                                                                  {"_Pa", "Pa"},
                                                                  {"_s", "s"},
                                                                  {"_m3", "m3"},
                                                                  {"_Hz", "Hz"},
                                                                  {"_V", "V"},
                                                                  {"_A", "A"}};
  for (const auto& [suffix, unit] : kSuffixes)
    if (endsWith(key, suffix)) return unit;
  return "1";
}

core::TableFile sweepTables(const scenarios::SweepSpec& spec, const std::vector<SweepCase>& cases,
                            const std::vector<CaseResult>& results) {
  core::TableFile t;
  std::size_t failed = 0;
  for (const CaseResult& r : results)
    failed += r.ok ? 0 : 1;
  t.text_attributes = {
      {"file_kind", "racktwin sweep"}, {"program_version", std::string(core::programVersion())},
      {"sweep_name", spec.name},       {"sweep_path", spec.path},
      {"base_path", spec.base_path},   {"design", scenarios::sweepDesignName(spec.design)}};
  // The order of the parameters and metrics (HDF5 lists a group's datasets by name).
  std::string parameter_names, metric_keys;
  for (const scenarios::SweepParameter& p : spec.parameters)
    parameter_names += p.name + "\n";
  for (const std::string& key : metricKeys(results))
    metric_keys += key + "\n";
  t.text_attributes.emplace_back("parameter_names", parameter_names);
  t.text_attributes.emplace_back("metric_keys", metric_keys);
  t.number_attributes = {{"seed", static_cast<double>(spec.seed)},
                         {"cases", static_cast<double>(cases.size())},
                         {"failed", static_cast<double>(failed)},
                         {"complete", results.size() == cases.size() ? 1.0 : 0.0}};
  t.texts = {{"sweep", spec.text}, {"base", spec.base_text}};

  core::ResultTable c;
  c.group = "cases";
  auto& id = c.strings("id", "Case id");
  auto& status = c.strings("status", "ok, or failed (see error)");
  auto& error = c.strings("error", "What stopped a failed case");
  auto& fault = c.strings("fault", "The case's fault, empty without one");
  auto& patch =
      c.strings("patch", "The case's changes to the base scenario, YAML lines key: value");
  auto& file = c.strings("result_file", "The case's full result file, when kept");
  auto& binding = c.strings("binding_limit", "The design limit with the smallest margin");
  auto& margin = c.numbers("design_margin_min", "1",
                           "Its margin, fraction of its rating (10 K for temperatures)");
  auto& exceeded =
      c.strings("limits_exceeded", "Ids of the exceeded design limits, worst first, one a line");
  auto& wall = c.numbers("wall_time", "s", "Wall time of the case (differs between runs)");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const CaseResult& r = results[i];
    id.strings.push_back(cases[i].id);
    status.strings.push_back(r.ok ? "ok" : "failed");
    error.strings.push_back(r.error);
    fault.strings.push_back(cases[i].fault);
    patch.strings.push_back(scenarios::describePatches(cases[i].patches));
    file.strings.push_back(r.result_file);
    binding.strings.push_back(r.binding);
    margin.numbers.push_back(r.ok && !r.binding.empty() ? r.margin_min : kNaN);
    std::string lines;
    for (const LimitViolation& v : r.violations)
      lines += v.limit + "\n";
    exceeded.strings.push_back(lines);
    wall.numbers.push_back(r.wall_time);
  }
  t.tables.push_back(std::move(c));

  core::ResultTable p;
  p.group = "parameters";
  for (std::size_t k = 0; k < spec.parameters.size(); ++k) {
    const scenarios::SweepParameter& param = spec.parameters[k];
    auto& value = p.numbers(param.name, param.unit.empty() ? "1" : param.unit,
                            "Parameter " + param.name + " (keys: " + param.keys.front()
                                + (param.keys.size() > 1 ? ", ..." : "") + ")");
    auto& text = p.strings(param.name + "_text", "Parameter " + param.name + " as written");
    for (const SweepCase& sc : cases) {
      value.numbers.push_back(sc.parameter_number[k]);
      text.strings.push_back(sc.parameter_text[k]);
    }
  }
  if (!p.columns.empty()) t.tables.push_back(std::move(p));

  core::ResultTable m;
  m.group = "metrics";
  for (const std::string& key : metricKeys(results)) {
    auto& column = m.numbers(key, metricUnit(key), "Summary item " + key + " of each case");
    for (const CaseResult& r : results) {
      const auto values = metricsOf(r);
      const auto found = values.find(key);
      column.numbers.push_back(found == values.end() ? kNaN : found->second);
    }
  }
  t.tables.push_back(std::move(m));

  const std::vector<std::string> groups = headroomGroups(results);
  core::ResultTable h;
  h.group = "headroom";
  auto& names = h.strings("groups", "Headroom groups: CDU ids, rows, feeders, site");
  names.strings = groups;
  auto& fraction =
      h.numbers("worst_margin_fraction", "1",
                "Cases x groups: the group's smallest margin fraction (NaN: no such group)");
  auto& limit = h.strings("binding_limit", "Cases x groups: the limit that set it");
  fraction.width = limit.width = std::max<std::size_t>(groups.size(), 1);
  for (const CaseResult& r : results) {
    std::map<std::string, const CaseHeadroom*> by_group;
    for (const CaseHeadroom& row : r.headroom)
      by_group[row.group] = &row;
    for (std::size_t g = 0; g < fraction.width; ++g) {
      const auto found = g < groups.size() ? by_group.find(groups[g]) : by_group.end();
      fraction.numbers.push_back(found == by_group.end() ? kNaN : found->second->margin_fraction);
      limit.strings.push_back(found == by_group.end() ? "" : found->second->binding);
    }
  }
  t.tables.push_back(std::move(h));
  return t;
}

std::string sweepCsv(const scenarios::SweepSpec& spec, const std::vector<SweepCase>& cases,
                     const std::vector<CaseResult>& results) {
  const std::vector<std::string> keys = metricKeys(results);
  const std::vector<std::string> groups = headroomGroups(results);
  std::string out = "id,status,fault";
  for (const scenarios::SweepParameter& p : spec.parameters)
    out += "," + csvField(p.name);
  for (const std::string& key : keys)
    out += "," + csvField(key + " [" + metricUnit(key) + "]");
  out += ",binding_limit,design_margin_min [1]";
  for (const std::string& g : groups)
    out += "," + csvField("headroom " + g + " [1]");
  out += ",error\n";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const CaseResult& r = results[i];
    out += cases[i].id + "," + (r.ok ? "ok" : "failed") + "," + csvField(cases[i].fault);
    for (const std::string& text : cases[i].parameter_text)
      out += "," + csvField(text);
    const auto values = metricsOf(r);
    for (const std::string& key : keys) {
      const auto found = values.find(key);
      out += "," + (found == values.end() ? std::string() : csvNumber(found->second));
    }
    out += "," + csvField(r.binding) + ","
           + (r.ok && !r.binding.empty() ? csvNumber(r.margin_min) : "");
    std::map<std::string, double> margins;
    for (const CaseHeadroom& h : r.headroom)
      margins[h.group] = h.margin_fraction;
    for (const std::string& g : groups) {
      const auto found = margins.find(g);
      out += "," + (found == margins.end() ? std::string() : csvNumber(found->second));
    }
    out += "," + csvField(r.error) + "\n";
  }
  return out;
}

}  // namespace racktwin::study
