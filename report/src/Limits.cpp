#include "Limits.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "racktwin/core/Error.hpp"

namespace racktwin::report {
namespace {

/// Reads the columns of one group, each of `rows` entries (the first column read sets it).
class ColumnReader {
 public:
  ColumnReader(const ResultData& data, std::string group) : data_(data), group_(std::move(group)) {}

  std::vector<std::string> text(const std::string& name) {
    std::vector<std::string> column = data_.strings(path(name));
    if (column.empty() && !data_.dataset(path(name))) column.resize(rows_.value_or(0));
    check(name, column.size());
    return column;
  }
  std::vector<double> number(const std::string& name) {
    std::vector<double> column;
    if (const auto m = data_.matrix(path(name)); m && m->columns == 1) column = m->values;
    if (column.empty() && !data_.dataset(path(name)))
      column.assign(rows_.value_or(0), std::numeric_limits<double>::quiet_NaN());
    check(name, column.size());
    return column;
  }

 private:
  std::string path(const std::string& name) const { return "/" + group_ + "/" + name; }
  void check(const std::string& name, std::size_t size) {
    if (!rows_) rows_ = size;
    if (size != *rows_) {
      throw core::InputError({data_.path(), 0, 0}, path(name),
                             "has " + std::to_string(size) + " rows, the group's first column "
                                 + std::to_string(*rows_));
    }
  }
  const ResultData& data_;
  std::string group_;
  std::optional<std::size_t> rows_;
};

}  // namespace

std::optional<DesignLimits> readDesignLimits(const ResultData& data) {
  if (!data.dataset("/limits/id")) return std::nullopt;
  DesignLimits out;
  {
    ColumnReader c(data, "limits");
    const auto id = c.text("id"), component = c.text("component"), group = c.text("group"),
               kind = c.text("group_kind"), limit = c.text("limit"), label = c.text("label"),
               unit = c.text("unit"), sense = c.text("sense"), source = c.text("source");
    const auto rating = c.number("rating"), value = c.number("worst_value"),
               margin = c.number("worst_margin"), fraction = c.number("worst_margin_fraction"),
               time = c.number("worst_time"), first = c.number("first_violation_time"),
               violated = c.number("violated_time"), checked = c.number("checked");
    for (std::size_t k = 0; k < id.size(); ++k) {
      out.limits.push_back({id[k], component[k], group[k], kind[k], limit[k], label[k], unit[k],
                            sense[k], source[k], rating[k], value[k], margin[k], fraction[k],
                            time[k], first[k], violated[k], checked[k]});
    }
  }
  if (data.dataset("/headroom/group")) {
    ColumnReader c(data, "headroom");
    const auto group = c.text("group"), kind = c.text("group_kind"),
               binding = c.text("binding_limit");
    const auto fraction = c.number("worst_margin_fraction"), time = c.number("worst_time"),
               violations = c.number("violations");
    for (std::size_t k = 0; k < group.size(); ++k)
      out.headroom.push_back({group[k], kind[k], binding[k], fraction[k], time[k], violations[k]});
  }
  return out;
}

namespace {
/// a before b: the smaller margin fraction, NaN after every number, then the smaller key.
bool marginBefore(double a, double b, const std::string& key_a, const std::string& key_b) {
  const bool a_nan = std::isnan(a), b_nan = std::isnan(b);
  if (a_nan != b_nan) return b_nan;
  if (!a_nan && a != b) return a < b;
  return key_a < key_b;
}
}  // namespace

void orderByMargin(std::vector<LimitRow>& rows) {
  std::sort(rows.begin(), rows.end(), [](const LimitRow& a, const LimitRow& b) {
    return marginBefore(a.worst_margin_fraction, b.worst_margin_fraction, a.id, b.id);
  });
}

void orderByMargin(std::vector<HeadroomRow>& rows) {
  std::sort(rows.begin(), rows.end(), [](const HeadroomRow& a, const HeadroomRow& b) {
    return marginBefore(a.worst_margin_fraction, b.worst_margin_fraction, a.group, b.group);
  });
}

std::vector<LimitKind> limitsByKind(const std::vector<LimitRow>& rows) {
  // By label too: one limit (a current over its rating) reads differently for a transformer
  // and a line of the same kind of group.
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> index;
  std::vector<LimitKind> kinds;
  for (const LimitRow& row : rows) {
    const auto [at, added] =
        index.try_emplace({row.group_kind, row.limit, row.label}, kinds.size());
    if (added) kinds.push_back(LimitKind{row.group_kind, row.limit, row.label});
    LimitKind& kind = kinds[at->second];
    ++kind.count;
    if (!(row.checked > 0.0) || std::isnan(row.worst_margin_fraction)) continue;
    ++kind.checked;
    if (row.worst_margin < 0.0) ++kind.exceeded;
    if (kind.least == nullptr || row.worst_margin_fraction < kind.least->worst_margin_fraction)
      kind.least = &row;
  }
  std::sort(kinds.begin(), kinds.end(), [](const LimitKind& a, const LimitKind& b) {
    const double ma = a.least ? a.least->worst_margin_fraction : std::nan("");
    const double mb = b.least ? b.least->worst_margin_fraction : std::nan("");
    return marginBefore(ma, mb, a.group_kind + '\n' + a.limit + '\n' + a.label,
                        b.group_kind + '\n' + b.limit + '\n' + b.label);
  });
  return kinds;
}

}  // namespace racktwin::report
