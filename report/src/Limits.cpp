#include "Limits.hpp"

#include <cmath>
#include <limits>

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

}  // namespace racktwin::report
