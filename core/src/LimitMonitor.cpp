#include "racktwin/core/LimitMonitor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <utility>

#include "racktwin/core/StateArchive.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::core {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kRoundOff = 1e-9;  // relative: a margin this small is the rating itself
// The unit of the columns whose unit differs by row.
constexpr const char* kPerRow = "per row: /limits/unit";

double marginFraction(const DesignLimit& limit, const LimitOutcome& outcome) {
  return outcome.worst_margin / limit.scale;
}

std::string printed(double value, const char* unit) {
  char text[64];
  std::snprintf(text, sizeof text, "%.4g %s", value, unit);
  return text;
}

/// Where each channel's values start in a recorder row, by "<group>/<name>".
std::map<std::string, std::size_t> channelOffsets(const std::vector<ChannelInfo>& channels) {
  std::map<std::string, std::size_t> out;
  std::size_t offset = 0;
  for (const ChannelInfo& c : channels) {
    out.emplace(c.group + "/" + c.name, offset);
    offset += c.width();
  }
  return out;
}

/// A channel's entity ids sorted, with their columns: exact ids and id prefixes found by binary
/// search (a site has thousands of limits over channels of up to hundreds of thousands of
/// columns: a scan per limit would be quadratic in the site).
class EntityIndex {
 public:
  explicit EntityIndex(const std::vector<std::string>& ids) : ids_(&ids), order_(ids.size()) {
    std::iota(order_.begin(), order_.end(), std::size_t{0});
    std::sort(order_.begin(), order_.end(),
              [&](std::size_t a, std::size_t b) { return ids[a] < ids[b]; });
  }
  /// The column of an id (the first in column order when ids repeat), or npos.
  std::size_t find(const std::string& id) const {
    const auto at =
        std::lower_bound(order_.begin(), order_.end(), id,
                         [&](std::size_t k, const std::string& v) { return (*ids_)[k] < v; });
    std::size_t best = std::string::npos;
    for (auto it = at; it != order_.end() && (*ids_)[*it] == id; ++it)
      best = std::min(best, *it);
    return best;
  }
  /// The columns whose ids start with `prefix`, in column order.
  void withPrefix(const std::string& prefix, std::vector<std::size_t>& out) const {
    const auto at =
        std::lower_bound(order_.begin(), order_.end(), prefix,
                         [&](std::size_t k, const std::string& v) { return (*ids_)[k] < v; });
    const std::size_t first = out.size();
    for (auto it = at; it != order_.end() && (*ids_)[*it].compare(0, prefix.size(), prefix) == 0;
         ++it)
      out.push_back(*it);
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
  }

 private:
  const std::vector<std::string>* ids_;
  std::vector<std::size_t> order_;
};

}  // namespace

std::string formatLimitValue(double value, const std::string& unit) {
  if (unit == "W") return printed(value / 1e3, "kW");
  if (unit == "K") return printed(toCelsius(value), "degC");
  if (unit == "m3/s") return printed(toLitrePerMinute(value), "L/min");
  if (unit == "m3/s/W") return printed(toLitrePerMinute(value) * 1e3, "L/min per kW");
  if (unit == "Pa") return printed(value / 1e3, "kPa");
  if (unit == "1") return printed(value * 100.0, "%");
  return printed(value, unit.c_str());
}

std::string formatLimitDifference(double value, const std::string& unit) {
  if (unit == "K") return printed(value, "K");
  return formatLimitValue(value, unit);
}

LimitMonitor::LimitMonitor(std::vector<DesignLimit> limits)
    : limits_(std::move(limits)), resolved_(limits_.size()), outcomes_(limits_.size()) {}

void LimitMonitor::open(const RunMetadata& /*metadata*/, const std::vector<ChannelInfo>& channels) {
  const std::map<std::string, std::size_t> offsets = channelOffsets(channels);
  std::map<std::string, const ChannelInfo*> by_name;
  std::map<const ChannelInfo*, std::unique_ptr<EntityIndex>> indexes;  // built when first needed
  for (const ChannelInfo& c : channels)
    by_name.emplace(c.group + "/" + c.name, &c);
  for (std::size_t i = 0; i < limits_.size(); ++i) {
    Resolved& resolved = resolved_[i];
    resolved.inputs.clear();
    bool checked = true;
    for (const LimitInput& in : limits_[i].inputs) {
      std::string name = in.channel;
      if (in.peak && by_name.count(name + "_max") != 0) name += "_max";
      const auto found = by_name.find(name);
      ResolvedInput r;
      r.reduce = in.reduce;
      if (found == by_name.end()) {
        checked = false;
        resolved.inputs.push_back(std::move(r));
        continue;
      }
      const ChannelInfo& channel = *found->second;
      const std::size_t base = offsets.at(name);
      if (channel.entity_ids.empty()) {
        if (in.entities.empty() && in.prefix.empty()) r.offsets.push_back(base);
      } else {
        auto [slot, fresh] = indexes.try_emplace(&channel);
        if (fresh) slot->second = std::make_unique<EntityIndex>(channel.entity_ids);
        const EntityIndex& index = *slot->second;
        if (!in.prefix.empty()) {
          std::vector<std::size_t> columns;
          index.withPrefix(in.prefix, columns);
          for (const std::size_t k : columns)
            r.offsets.push_back(base + k);
        } else {
          for (const std::string& entity : in.entities) {
            const std::size_t k = index.find(entity);
            if (k == std::string::npos) {
              r.offsets.clear();
              break;
            }
            r.offsets.push_back(base + k);
          }
        }
      }
      if (r.offsets.empty()) checked = false;
      resolved.inputs.push_back(std::move(r));
    }
    outcomes_[i] = LimitOutcome{};
    outcomes_[i].checked = checked;
  }
  last_time_ = 0.0;
  started_ = false;
}

double LimitMonitor::evaluate(std::size_t limit, std::span<const double> row) const noexcept {
  const DesignLimit& l = limits_[limit];
  const Resolved& r = resolved_[limit];
  double x[3] = {0.0, 0.0, 0.0};
  for (std::size_t k = 0; k < r.inputs.size() && k < 3; ++k) {
    const ResolvedInput& in = r.inputs[k];
    double v = in.reduce == LimitInput::Reduce::Min   ? std::numeric_limits<double>::infinity()
               : in.reduce == LimitInput::Reduce::Max ? -std::numeric_limits<double>::infinity()
                                                      : 0.0;
    for (const std::size_t offset : in.offsets) {
      const double value = row[offset];
      switch (in.reduce) {
        case LimitInput::Reduce::Max:
          v = std::max(v, value);
          break;
        case LimitInput::Reduce::Min:
          v = std::min(v, value);
          break;
        case LimitInput::Reduce::Sum:
          v += value;
          break;
      }
    }
    x[k] = v;
  }
  switch (l.formula) {
    case LimitFormula::Value:
      return x[0];
    case LimitFormula::Affine:
      return x[0] + l.c0 * x[1] + l.c1;
    case LimitFormula::PerHeat: {
      const double heat = x[1] - l.c0;
      return heat > 0.0 ? x[0] / heat : kNaN;
    }
    case LimitFormula::PumpRunout: {
      const double pumps = std::round(x[2]);
      if (!(pumps >= 1.0) || !(l.c0 > 0.0) || !(l.c1 > 0.0)) return 0.0;
      const double q = std::max(x[0], 0.0) / pumps;
      const double s = std::sqrt(std::max(x[1], 0.0) / l.c0 + (q / l.c1) * (q / l.c1));
      return s > 0.0 ? q / (s * l.c1) : 0.0;
    }
  }
  return kNaN;
}

void LimitMonitor::append(double time, std::span<const double> row) {
  // The record at t = 0 is the initial state, set by the scenario rather than simulated.
  const double interval = started_ ? time - last_time_ : 0.0;
  const bool check = started_ && time > 0.0;
  started_ = true;
  last_time_ = time;
  if (!check) return;
  for (std::size_t i = 0; i < limits_.size(); ++i) {
    LimitOutcome& o = outcomes_[i];
    if (!o.checked) continue;
    const double value = evaluate(i, row);
    if (!std::isfinite(value)) continue;
    const DesignLimit& l = limits_[i];
    // Within round-off of its rating a value is at the rating, not beyond it.
    const double raw = l.at_most ? l.rating - value : value - l.rating;
    const double margin = std::abs(raw) <= kRoundOff * std::abs(l.rating) ? 0.0 : raw;
    if (!o.evaluated || margin < o.worst_margin) {
      o.evaluated = true;
      o.worst_margin = margin;
      o.worst_value = value;
      o.worst_time = time;
    }
    if (margin < 0.0) {
      if (o.first_violation < 0.0) o.first_violation = time;
      o.last_violation = time;
      o.violated_time += interval;
    }
  }
}

void LimitMonitor::close(bool /*complete*/, std::string_view /*summary_json*/) {}

std::size_t LimitMonitor::violatedCount() const noexcept {
  return static_cast<std::size_t>(std::count_if(
      outcomes_.begin(), outcomes_.end(), [](const LimitOutcome& o) { return o.violated(); }));
}

std::size_t LimitMonitor::checkedCount() const noexcept {
  return static_cast<std::size_t>(std::count_if(outcomes_.begin(), outcomes_.end(),
                                                [](const LimitOutcome& o) { return o.checked; }));
}

std::size_t LimitMonitor::bindingLimit() const noexcept {
  std::size_t best = limits_.size();
  for (std::size_t i = 0; i < limits_.size(); ++i) {
    if (!outcomes_[i].evaluated) continue;
    if (best == limits_.size()
        || marginFraction(limits_[i], outcomes_[i])
               < marginFraction(limits_[best], outcomes_[best]))
      best = i;
  }
  return best;
}

std::vector<HeadroomRow> LimitMonitor::headroom() const {
  std::vector<HeadroomRow> rows;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < limits_.size(); ++i) {
    const LimitOutcome& o = outcomes_[i];
    if (!o.evaluated) continue;
    const DesignLimit& l = limits_[i];
    const double fraction = marginFraction(l, o);
    const auto [at, inserted] = index.emplace(l.group, rows.size());
    if (inserted) {
      rows.push_back({l.group, l.group_kind, fraction, o.worst_time, i, 0});
    } else if (fraction < rows[at->second].worst_margin_fraction) {
      HeadroomRow& row = rows[at->second];
      row.worst_margin_fraction = fraction;
      row.worst_time = o.worst_time;
      row.binding = i;
    }
    if (o.violated()) ++rows[at->second].violations;
  }
  return rows;
}

std::vector<std::string> LimitMonitor::violationLines() const {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < limits_.size(); ++i)
    if (outcomes_[i].violated()) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return marginFraction(limits_[a], outcomes_[a]) < marginFraction(limits_[b], outcomes_[b]);
  });
  std::vector<std::string> lines;
  for (const std::size_t i : order) {
    const DesignLimit& l = limits_[i];
    const LimitOutcome& o = outcomes_[i];
    char text[600];
    std::snprintf(text, sizeof text,
                  "%s: %s: %s %s %s by %s (%s at t = %.0f s; first at t = %.0f s, exceeded for "
                  "%.0f s)",
                  l.component.c_str(), l.label.c_str(), l.at_most ? "at most" : "at least",
                  formatLimitValue(l.rating, l.unit).c_str(), l.at_most ? "exceeded" : "undershot",
                  formatLimitDifference(-o.worst_margin, l.unit).c_str(),
                  formatLimitValue(o.worst_value, l.unit).c_str(), o.worst_time, o.first_violation,
                  o.violated_time);
    lines.emplace_back(text);
  }
  return lines;
}

void LimitMonitor::summarise(Summary& summary) const {
  const std::size_t binding = bindingLimit();
  summary.add({"design_limits_checked", static_cast<double>(checkedCount()),
               "Design limits checked (rated components)", "", 1.0, 0.0});
  summary.add({"design_margin_min",
               binding < limits_.size()
                   ? std::optional<double>(marginFraction(limits_[binding], outcomes_[binding]))
                   : std::nullopt,
               "Smallest design margin, fraction of its rating (10 K for temperatures)", "%", 100.0,
               0.0});
}

ResultTable LimitMonitor::limitTable() const {
  ResultTable t;
  t.group = "limits";
  t.description =
      "Design limits checked at every record: rating, worst margin, when (docs/capacity.md)";
  auto& id = t.strings("id", "Limit id: <component>:<limit>");
  auto& component = t.strings("component", "The rated component");
  auto& group = t.strings("group", "Row of the headroom table: CDU, row, feeder or site");
  auto& kind = t.strings("group_kind", "cdu, row, feeder or site");
  auto& name = t.strings("limit", "The limit's name");
  auto& label = t.strings("label", "The limit, for people");
  auto& quantity = t.strings("quantity", "The recorded datasets the value is computed from");
  auto& unit = t.strings("unit", "SI unit of value, rating and margin");
  auto& sense = t.strings("sense", "max: value at or below the rating; min: at or above");
  auto& source = t.strings("source", "Where the rating comes from");
  auto& rating = t.numbers("rating", kPerRow, "The rating, in the row's unit");
  auto& value =
      t.numbers("worst_value", kPerRow, "The value at the worst record, in the row's unit");
  auto& margin = t.numbers("worst_margin", kPerRow,
                           "Rating - value (max) or value - rating (min); < 0: exceeded");
  auto& fraction = t.numbers("worst_margin_fraction", "1",
                             "worst_margin over the rating (10 K for temperatures)");
  auto& when = t.numbers("worst_time", "s", "Record time of the worst margin");
  auto& first =
      t.numbers("first_violation_time", "s", "First record exceeding the rating; NaN if none");
  auto& last =
      t.numbers("last_violation_time", "s", "Last record exceeding the rating; NaN if none");
  auto& during =
      t.numbers("violated_time", "s", "Total length of the record intervals exceeding it");
  auto& checked =
      t.numbers("checked", "1", "1, or 0 when a channel the limit needs was not recorded");
  for (std::size_t i = 0; i < limits_.size(); ++i) {
    const DesignLimit& l = limits_[i];
    const LimitOutcome& o = outcomes_[i];
    id.strings.push_back(l.id());
    component.strings.push_back(l.component);
    group.strings.push_back(l.group);
    kind.strings.push_back(l.group_kind);
    name.strings.push_back(l.name);
    label.strings.push_back(l.label);
    quantity.strings.push_back(l.quantity());
    unit.strings.push_back(l.unit);
    sense.strings.push_back(l.at_most ? "max" : "min");
    source.strings.push_back(l.source);
    rating.numbers.push_back(l.rating);
    value.numbers.push_back(o.evaluated ? o.worst_value : kNaN);
    margin.numbers.push_back(o.evaluated ? o.worst_margin : kNaN);
    fraction.numbers.push_back(o.evaluated ? marginFraction(l, o) : kNaN);
    when.numbers.push_back(o.evaluated ? o.worst_time : kNaN);
    first.numbers.push_back(o.violated() ? o.first_violation : kNaN);
    last.numbers.push_back(o.violated() ? o.last_violation : kNaN);
    during.numbers.push_back(o.violated_time);
    checked.numbers.push_back(o.checked ? 1.0 : 0.0);
  }
  return t;
}

ResultTable LimitMonitor::headroomTable() const {
  ResultTable t;
  t.group = "headroom";
  t.description = "Worst design margin per CDU, row, feeder and the site (docs/capacity.md)";
  auto& group = t.strings("group", "CDU id, row, feeder (electrical element) or site");
  auto& kind = t.strings("group_kind", "cdu, row, feeder or site");
  auto& fraction =
      t.numbers("worst_margin_fraction", "1", "Smallest margin fraction of the group's limits");
  auto& when = t.numbers("worst_time", "s", "When it happened");
  auto& binding = t.strings("binding_limit", "Id of that limit in /limits");
  auto& violations = t.numbers("violations", "1", "Limits of the group that were exceeded");
  for (const HeadroomRow& row : headroom()) {
    group.strings.push_back(row.group);
    kind.strings.push_back(row.group_kind);
    fraction.numbers.push_back(row.worst_margin_fraction);
    when.numbers.push_back(row.worst_time);
    binding.strings.push_back(limits_[row.binding].id());
    violations.numbers.push_back(static_cast<double>(row.violations));
  }
  return t;
}

void LimitMonitor::visitState(StateArchive& archive) {
  archive.section("design limits");
  archive(last_time_, started_);
  archive.each(outcomes_, [](StateArchive& a, LimitOutcome& o) {
    a(o.checked, o.evaluated, o.worst_value, o.worst_margin, o.worst_time, o.first_violation,
      o.last_violation, o.violated_time);
  });
}

}  // namespace racktwin::core
