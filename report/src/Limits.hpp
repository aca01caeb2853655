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

/// Rows in order of their margin fraction, the least first; rows never checked (NaN) last; ties
/// by id (limits) or group (headroom). The binding limits come first, in one order on every run
/// (a comparison that is not a strict weak order, as `<` on NaN, leaves std::sort's order, and
/// its behaviour, undefined).
void orderByMargin(std::vector<LimitRow>& rows);
void orderByMargin(std::vector<HeadroomRow>& rows);

/// The limits of one kind of group and one limit (and label): every CDU's secondary flow, every
/// rack feed's current, ...
struct LimitKind {
  std::string group_kind, limit, label;
  std::size_t count = 0, checked = 0, exceeded = 0;
  const LimitRow* least = nullptr;  // the checked row with the least margin fraction
};
/// The limits by kind (O(n log kinds)), in order of their least margin fraction; kinds never
/// checked last; ties by kind, then limit.
std::vector<LimitKind> limitsByKind(const std::vector<LimitRow>& rows);

/// How many rows the report's tables of limits and of groups show: those with the least margin.
/// A site has thousands (11,297 limits on the 100,000-GPU site); the rest are counted under the
/// table and stay in the result file.
inline constexpr std::size_t kLimitRowsShown = 100;
inline constexpr std::size_t kGroupRowsShown = 50;

}  // namespace racktwin::report
