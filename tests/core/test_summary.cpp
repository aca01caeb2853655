#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "racktwin/core/Summary.hpp"

using racktwin::core::Summary;

TEST_CASE("Summary JSON keeps order, full precision and writes null for missing values", "[core]") {
  Summary summary;
  summary.add({"a_K", 0.1, "", "", 1.0, 0.0});
  summary.add({"b_s", std::nullopt, "", "", 1.0, 0.0});
  summary.add({"c", std::numeric_limits<double>::quiet_NaN(), "", "", 1.0, 0.0});
  summary.add({"a_K", 2.5, "", "", 1.0, 0.0});  // replaces, keeps position
  CHECK(summary.toJson() == "{\n  \"a_K\": 2.5,\n  \"b_s\": null,\n  \"c\": null\n}\n");
  CHECK(summary.value("a_K") == 2.5);
  CHECK_THROWS_AS(summary.value("missing"), std::out_of_range);
}
