// The scenario's `layout` (rows, halls, spacing) and `output` (level of detail) sections, their
// errors at file, line and key, and the command-line overrides of `output`.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/FloorPlan.hpp"
#include "racktwin/scenarios/OutputPlan.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace {

using racktwin::core::InputError;
using racktwin::core::OutputSpec;
using racktwin::core::SiteSpec;
using racktwin::scenarios::loadScenarioFromString;
using racktwin::test::lineOf;
using racktwin::test::requireInputError;
using racktwin::test::sourcePath;
using Expected = racktwin::test::ExpectedError;

// Six racks: two rows of two in hall h1, one row of two in hall h2 (by their ids).
const std::string kBase = R"(racktwin_scenario: 1
name: "layout"
simulation: {duration: 60 s, step: 1 s}
coolant: PG25
facility_water: {supply_temperature: 32 degC}
cdus:
  - {id: h1/row1/cdu1, type: inrack-250kw}
  - {id: h1/row1/cdu2, type: inrack-250kw}
  - {id: h1/row2/cdu1, type: inrack-250kw}
  - {id: h1/row2/cdu2, type: inrack-250kw}
  - {id: h2/row1/cdu1, type: inrack-250kw}
  - {id: h2/row1/cdu2, type: inrack-250kw}
racks:
  - {id: h1/row1/rack01, type: gb300-nvl72, cdu: h1/row1/cdu1}
  - {id: h1/row1/rack02, type: gb300-nvl72, cdu: h1/row1/cdu2}
  - {id: h1/row2/rack01, type: gb300-nvl72, cdu: h1/row2/cdu1}
  - {id: h1/row2/rack02, type: gb300-nvl72, cdu: h1/row2/cdu2}
  - {id: h2/row1/rack01, type: gb300-nvl72, cdu: h2/row1/cdu1}
  - {id: h2/row1/rack02, type: gb300-nvl72, cdu: h2/row1/cdu2}
)";

constexpr const char* kFile = "layout.yaml";

SiteSpec load(const std::string& extra) {
  return loadScenarioFromString(kBase + extra, kFile, sourcePath("data"));
}

void requireError(const std::string& extra, const std::string& marker, const std::string& key,
                  const std::vector<std::string>& parts) {
  const std::string text = kBase + extra;
  INFO("scenario:\n" << text);
  const int line = lineOf(text, marker);
  REQUIRE(line > 0);
  requireInputError([&] { (void)loadScenarioFromString(text, kFile, sourcePath("data")); },
                    Expected{kFile, line, key, parts});
}

std::vector<std::string> rowIds(const SiteSpec& site) {
  std::vector<std::string> ids;
  for (const auto& row : site.floor.rows)
    ids.push_back(row.id);
  return ids;
}

}  // namespace

TEST_CASE("layout: without the key, rows by id prefix in one hall", "[scenarios][layout]") {
  const SiteSpec site = load("");
  CHECK(rowIds(site) == std::vector<std::string>{"h1/row1", "h1/row2", "h2/row1"});
  REQUIRE(site.floor.halls.size() == 1);
  CHECK(site.floor.halls[0].id == "hall");
  CHECK(site.floor.halls[0].rows == std::vector<std::uint32_t>{0, 1, 2});
  CHECK(site.floor.rows[1].racks == std::vector<std::uint32_t>{2, 3});
  CHECK(site.floor.row_pitch == 3.6);
  // A hand-built spec gets the same plan.
  SiteSpec bare = site;
  bare.floor = {};
  const auto plan = racktwin::scenarios::floorPlanOf(bare);
  REQUIRE(plan.rows.size() == 3);
  CHECK(plan.rows[2].racks == std::vector<std::uint32_t>{4, 5});
  CHECK(plan.halls.size() == 1);
}

TEST_CASE("layout: halls group rows by id or prefix, with spacing", "[scenarios][layout]") {
  const SiteSpec site = load(R"(layout:
  row_pitch: 4 m
  aisle_width: 2 m
  rows_per_bay: 1
  halls:
    - {id: north, rows: [h1/*], origin: {x: 0 m, y: 50 m}}
    - {id: south, rows: [h2/row1], rows_per_bay: 3}
)");
  CHECK(site.floor.row_pitch == 4.0);
  CHECK(site.floor.aisle_width == 2.0);
  REQUIRE(site.floor.halls.size() == 2);
  CHECK(site.floor.halls[0].rows == std::vector<std::uint32_t>{0, 1});
  CHECK(site.floor.halls[0].origin_given);
  CHECK(site.floor.halls[0].origin_y == 50.0);
  CHECK(site.floor.halls[0].rows_per_bay == 1);
  CHECK(site.floor.halls[1].rows == std::vector<std::uint32_t>{2});
  CHECK(site.floor.halls[1].rows_per_bay == 3);
  CHECK(site.floor.rows[2].hall == 1);
}

TEST_CASE("layout: errors name the file, line and key", "[scenarios][layout]") {
  requireError("layout:\n  halls:\n    - {id: a, rows: [h1/*, h3/row9]}\n", "h3/row9",
               "layout.halls[0].rows[1]", {"no row 'h3/row9'", "h1/row1"});
  requireError(
      "layout:\n  halls:\n    - {id: a, rows: [h1/*]}\n    - {id: b, rows: [h1/row2, h2/*]}\n",
      "id: b", "layout.halls[1].rows[0]", {"row 'h1/row2' is already in hall 'a'"});
  requireError("layout:\n  halls:\n    - {id: a, rows: [h1/*]}\n", "- {id: a", "layout.halls",
               {"row 'h2/row1' is in no hall"});
  requireError("layout:\n  row_pitch: 0.1 m\n", "row_pitch", "layout.row_pitch",
               {"must be at least 0.5 m"});
  requireError(
      "layout:\n  halls:\n    - {id: a, rows: [h1/*, h2/*]}\n    - {id: a, rows: [h1/*]}\n",
      "- {id: a, rows: [h1/*]}", "layout.halls[1].id", {"hall 'a' is defined twice"});
}

TEST_CASE("layout: an unusual row pitch is a warning", "[scenarios][layout]") {
  const SiteSpec site = load("layout: {row_pitch: 2 m}\n");
  REQUIRE(site.input_warnings.size() == 1);
  CHECK_THAT(site.input_warnings[0], Catch::Contains("layout.row_pitch"));
}

TEST_CASE("output: defaults and keys", "[scenarios][output]") {
  const SiteSpec plain = load("");
  CHECK(plain.output.per_gpu == OutputSpec::PerGpu::Auto);
  CHECK(plain.output.compression == 1);
  // Six racks (432 GPUs) are below the limit: every GPU, no aggregates, no hottest list.
  const racktwin::core::DetailPlan automatic = racktwin::scenarios::detailPlanOf(plain);
  CHECK(automatic.rack_detail.empty());
  CHECK(automatic.levels.empty());
  CHECK(automatic.hottest == 0);

  const SiteSpec site = load(
      "output: {per_gpu: [h1/row2, h2/row1/rack01], hottest_gpus: 3, aggregates: [row, hall], "
      "compression: 0, shuffle: false, chunk_columns: 64}\n");
  CHECK(site.output.per_gpu == OutputSpec::PerGpu::Selected);
  CHECK(site.output.compression == 0);
  CHECK_FALSE(site.output.shuffle);
  CHECK(site.output.chunk_columns == 64);
  const racktwin::core::DetailPlan plan = racktwin::scenarios::detailPlanOf(site);
  CHECK(plan.rack_detail == std::vector<std::uint8_t>{0, 0, 1, 1, 1, 0});
  REQUIRE(plan.levels.size() == 2);
  CHECK(plan.levels[0].name == "row");
  CHECK(plan.levels[0].of_rack == std::vector<std::uint32_t>{0, 0, 1, 1, 2, 2});
  CHECK(plan.levels[1].ids == std::vector<std::string>{"hall"});
  CHECK(plan.hottest == 3);

  const SiteSpec none = load("output: {per_gpu: none}\n");
  const racktwin::core::DetailPlan aggregated = racktwin::scenarios::detailPlanOf(none);
  CHECK(aggregated.rack_detail == std::vector<std::uint8_t>(6, 0));
  REQUIRE(aggregated.levels.size() == 2);  // rack and row: one hall
  CHECK(aggregated.levels[0].groups == std::vector<std::string>{"gpu", "tray"});
  CHECK(aggregated.levels[1].groups.empty());
  CHECK(aggregated.hottest == 16);
}

TEST_CASE("output: errors name the file, line and key", "[scenarios][output]") {
  requireError("output:\n  per_gpu: [h1/row7]\n", "h1/row7", "output.per_gpu[0]",
               {"'h1/row7' is no rack, row or hall"});
  requireError("output:\n  per_gpu: some\n", "per_gpu", "output.per_gpu",
               {"expected auto, all, none or a list"});
  requireError("output:\n  aggregates: [rack, aisle]\n", "aisle", "output.aggregates[1]",
               {"expected rack, row or hall"});
  requireError("output:\n  compression: 12\n", "compression", "output.compression", {"12"});
}

TEST_CASE("output: command-line overrides are checked at <command line>", "[scenarios][output]") {
  SiteSpec site = load("");
  racktwin::scenarios::OutputOverrides o;
  o.per_gpu = "h1/row1,h2";
  requireInputError([&] { racktwin::scenarios::applyOutputOverrides(site, o); },
                    Expected{"<command line>", 0, "--per-gpu", {"'h2' is no rack, row or hall"}});
  o.per_gpu = "h1/row1,hall";
  o.hottest_gpus = "8";
  o.aggregates = "rack";
  o.compression = "0";
  racktwin::scenarios::applyOutputOverrides(site, o);
  CHECK(site.output.per_gpu == OutputSpec::PerGpu::Selected);
  CHECK(site.output.per_gpu_ids == std::vector<std::string>{"h1/row1", "hall"});
  CHECK(site.output.hottest_gpus == 8);
  CHECK(site.output.aggregates == std::vector<std::string>{"rack"});
  CHECK(site.output.compression == 0);
  o = {};
  o.compression = "fast";
  requireInputError([&] { racktwin::scenarios::applyOutputOverrides(site, o); },
                    Expected{"<command line>", 0, "--compression", {"0 (none) to 9"}});
  o = {};
  o.aggregates = "row,row";
  requireInputError([&] { racktwin::scenarios::applyOutputOverrides(site, o); },
                    Expected{"<command line>", 0, "--aggregates", {"given twice"}});
}
