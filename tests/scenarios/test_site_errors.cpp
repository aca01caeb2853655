// Bad input in a site's scenario (scenarios/site-100k.yaml: 1,389 racks, 174 CDUs, 353 power-tree
// elements): an unknown id's error names the closest ids and how many there are, not all of
// them (it listed every one of the 353 elements and was cut at 4,000 characters).
#include <catch2/catch.hpp>

#include <string>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace {

using racktwin::test::replaced;
using racktwin::test::sourcePath;

/// The site's scenario with one change, loaded: its InputError.
racktwin::core::InputError errorOf(const std::string& from, const std::string& to) {
  const std::string path = sourcePath("scenarios/site-100k.yaml");
  const std::string text = replaced(racktwin::test::readText(path), from, to);
  try {
    (void)racktwin::scenarios::loadScenarioFromString(text, path, "");
  } catch (const racktwin::core::InputError& e) {
    return e;
  }
  FAIL("no InputError");
  return racktwin::core::InputError({path, 0, 0}, "", "none");  // not reached: FAIL throws
}

}  // namespace

TEST_CASE("An unknown id in a site names the closest ids, not every id", "[scenarios]") {
  {
    const auto e = errorOf("{id: row050/tx-b, type: transformer-3000kva, parent: hall1/mv-feeder}",
                           "{id: row050/tx-b, type: transformer-3000kva, parent: hall1/mv-feedr}");
    INFO(e.what());
    CHECK(e.key() == "electrical.transformers[101].parent");
    const std::string m = e.message();
    CHECK_THAT(m, Catch::StartsWith("unknown element 'hall1/mv-feedr'; defined: 353 (the closest: "
                                    "hall1/mv-feeder, hall2/mv-feeder, "));
    CHECK(m.size() < 300);
    CHECK_THAT(m, Catch::Contains("(leave the key out for the MV bus)"));
  }
  {
    const auto e = errorOf("{id: row174/rack05, type: gb300-nvl72, cdu: row174/cdu1}",
                           "{id: row174/rack05, type: gb300-nvl72, cdu: row174/cdu2}");
    INFO(e.what());
    // The key counts the racks the template generated before the file's own (racks[1388]);
    // the line is the file's.
    CHECK_THAT(e.key(), Catch::StartsWith("racks[") && Catch::EndsWith("].cdu"));
    CHECK(
        e.where().line
        == racktwin::test::lineOf(racktwin::test::readText(sourcePath("scenarios/site-100k.yaml")),
                                  "{id: row174/rack05"));
    const std::string m = e.message();
    CHECK_THAT(
        m, Catch::StartsWith(
               "unknown component 'row174/cdu2'; defined CDUs: 174 (the closest: row174/cdu1, "));
    CHECK(m.size() < 300);
  }
  {
    const auto e =
        errorOf("{racks: row174/*, a: row174/tx-a, b: row174/tx-b}",
                "{racks: [row174/rack01, row174/rack09], a: row174/tx-a, b: row174/tx-b}");
    INFO(e.what());
    const std::string m = e.message();
    // Five racks one character away (row174/rack01 to rack05), in the order they are defined.
    CHECK_THAT(m,
               Catch::StartsWith("unknown rack 'row174/rack09'; defined racks: 1389 (the closest: "
                                 "row174/rack01, row174/rack02, row174/rack03, row174/rack04, "
                                 "row174/rack05, "));
    CHECK(m.size() < 300);
  }
}
