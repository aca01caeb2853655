// The report's order of design limits and groups (report/src/Limits.hpp): the least margin
// first, limits never checked (NaN) last, ties by id; and the overview by kind, counted
// independently here.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "Limits.hpp"

using namespace racktwin::report;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

LimitRow limit(std::string id, std::string kind, std::string name, double fraction,
               double checked = 1.0) {
  LimitRow row;
  row.id = std::move(id);
  row.component = row.id;
  row.group_kind = std::move(kind);
  row.limit = std::move(name);
  row.label = row.limit;
  row.worst_margin_fraction = fraction;
  row.worst_margin = std::isnan(fraction) ? kNaN : 2.0 * fraction;  // same sign as the fraction
  row.checked = checked;
  return row;
}

}  // namespace

TEST_CASE("Limits are ordered by margin, the unchecked last, ties by id", "[report]") {
  // Many NaNs among numbers: `<` alone is no strict weak order on these, and std::sort's result
  // (and behaviour) would be undefined.
  std::vector<LimitRow> rows;
  std::mt19937 random(7);
  std::uniform_real_distribution<double> margin(-0.5, 2.0);
  for (int k = 0; k < 2000; ++k) {
    const double fraction = k % 3 == 0 ? kNaN : k % 7 == 0 ? 0.25 : margin(random);
    rows.push_back(limit("limit" + std::to_string(10000 + (k * 7919) % 2000), "cdu", "flow",
                         fraction, std::isnan(fraction) ? 0.0 : 1.0));
  }
  orderByMargin(rows);
  for (std::size_t i = 0; i + 1 < rows.size(); ++i) {
    const double a = rows[i].worst_margin_fraction, b = rows[i + 1].worst_margin_fraction;
    if (std::isnan(a)) {
      REQUIRE(std::isnan(b));  // once unchecked, unchecked to the end
      REQUIRE(rows[i].id < rows[i + 1].id);
      continue;
    }
    if (!std::isnan(b)) {
      REQUIRE(a <= b);
      if (a == b) REQUIRE(rows[i].id < rows[i + 1].id);  // the 0.25 ties, by id
    }
  }
  // 667 of the 2,000 were never checked (k = 0, 3, ..., 1998): they are the last 667.
  CHECK(std::isnan(rows[2000 - 667].worst_margin_fraction));
  CHECK_FALSE(std::isnan(rows[2000 - 668].worst_margin_fraction));
  CHECK(rows.front().worst_margin_fraction < -0.49);
}

TEST_CASE("Groups are ordered by margin, the unchecked last, ties by name", "[report]") {
  std::vector<HeadroomRow> groups{{"row2/cdu1", "cdu", "flow", 0.1, 10.0, 0.0},
                                  {"row1/cdu1", "cdu", "flow", 0.1, 10.0, 0.0},
                                  {"hall", "feeder", "", kNaN, 0.0, 0.0},
                                  {"row3/cdu1", "cdu", "flow", -0.2, 20.0, 1.0}};
  orderByMargin(groups);
  CHECK(groups[0].group == "row3/cdu1");
  CHECK(groups[1].group == "row1/cdu1");
  CHECK(groups[2].group == "row2/cdu1");
  CHECK(groups[3].group == "hall");
}

TEST_CASE("The limits by kind count every limit and name the least margin", "[report]") {
  std::vector<LimitRow> rows{
      limit("a1", "cdu", "flow", 0.30),   limit("a2", "cdu", "flow", -0.05),
      limit("a3", "cdu", "flow", 0.10),   limit("b1", "rack", "dp", 0.50),
      limit("b2", "rack", "dp", kNaN, 0), limit("c1", "feeder", "current", kNaN, 0)};
  // One limit name with two labels is two kinds (a transformer's and a line's loading).
  rows.push_back(limit("d1", "feeder", "rated_current", 0.40));
  rows.back().label = "Transformer loading";
  rows.push_back(limit("d2", "feeder", "rated_current", 0.20));
  rows.back().label = "Line loading";
  const std::vector<LimitKind> kinds = limitsByKind(rows);
  REQUIRE(kinds.size() == 5);
  // In order of least margin: cdu flow (-0.05), the line (0.20), the transformers (0.40), rack
  // dp (0.50), then the feeders' current that was never checked.
  CHECK(kinds[0].limit == "flow");
  CHECK(kinds[0].count == 3);
  CHECK(kinds[0].checked == 3);
  CHECK(kinds[0].exceeded == 1);
  REQUIRE(kinds[0].least != nullptr);
  CHECK(kinds[0].least->id == "a2");
  CHECK(kinds[1].label == "Line loading");
  CHECK(kinds[2].label == "Transformer loading");
  CHECK(kinds[3].limit == "dp");
  CHECK(kinds[3].count == 2);
  CHECK(kinds[3].checked == 1);
  CHECK(kinds[3].least->id == "b1");
  CHECK(kinds[4].limit == "current");
  CHECK(kinds[4].checked == 0);
  CHECK(kinds[4].least == nullptr);
}
