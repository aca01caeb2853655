#pragma once
// Design limits and headroom of a run as docs/capacity.md lays them out in a result file
// (/limits/<column>, /headroom/<column>), read when the file has them.
#include <optional>
#include <string>
#include <vector>

#include "ResultData.hpp"

namespace racktwin::report {

struct LimitRow {
  std::string id, component, group, group_kind, limit, label, unit, sense, source;
  double rating = 0.0, worst_value = 0.0, worst_margin = 0.0, worst_margin_fraction = 0.0;
  double worst_time = 0.0, first_violation_time = 0.0, violated_time = 0.0, checked = 0.0;
};

struct HeadroomRow {
  std::string group, group_kind, binding_limit;
  double worst_margin_fraction = 0.0, worst_time = 0.0, violations = 0.0;
};

struct DesignLimits {
  std::vector<LimitRow> limits;
  std::vector<HeadroomRow> headroom;
};

/// The file's design limits; nullopt when it has no /limits group. Throws core::InputError when
/// the columns of a group differ in length.
std::optional<DesignLimits> readDesignLimits(const ResultData& data);

}  // namespace racktwin::report
