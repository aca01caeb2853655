// Site geometry: the racks, CDUs and pipes a scenario lays out (docs/viz.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <set>
#include <vector>

#include <vtkPolyData.h>
#include "ScenePolyData.hpp"
#include "racktwin/scenarios/FloorPlan.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/viz/SiteGeometry.hpp"

using namespace racktwin;
using Catch::Matchers::WithinAbs;

namespace {

bool overlap(const viz::Box& a, const viz::Box& b) {
  for (int i = 0; i < 3; ++i) {
    if (a.max[i] <= b.min[i] + 1e-9 || b.max[i] <= a.min[i] + 1e-9) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("the 64-rack cluster lays out 64 rack boxes in 8 rows with a CDU at each row start",
          "[viz]") {
  const core::SiteSpec site =
      scenarios::loadScenario(RACKTWIN_SOURCE_DIR "/scenarios/cluster-64-racks.yaml");
  const viz::SiteGeometry g = viz::SiteGeometry::build(site);
  REQUIRE(g.rackCount() == 64);
  REQUIRE(g.cduCount() == 8);
  CHECK(g.rowCount() == 8);
  for (std::size_t r = 0; r < g.rackCount(); ++r) {
    const viz::RackPlacement& rack = g.racks()[r];
    CHECK(rack.id == site.racks[r].id.str());  // the recorder's entity ids, in scenario order
    CHECK_THAT(rack.box.max[0] - rack.box.min[0], WithinAbs(0.6, 1e-12));
    CHECK_THAT(rack.box.max[2] - rack.box.min[2], WithinAbs(2.3, 1e-12));
    CHECK(rack.box.min[2] == 0.0);
    for (std::size_t s = r + 1; s < g.rackCount(); ++s)
      CHECK_FALSE(overlap(rack.box, g.racks()[s].box));
    // Its CDU stands at the start of its row, beside rack01.
    REQUIRE(rack.cdu >= 0);
    const viz::Box& cdu = g.cdus()[static_cast<std::size_t>(rack.cdu)].box;
    CHECK(cdu.max[0] < rack.box.min[0]);
    CHECK(cdu.min[1] == rack.box.min[1]);
    CHECK(g.cdus()[static_cast<std::size_t>(rack.cdu)].id == site.racks[r].cdu);
  }
  // Rows hold eight racks each.
  std::vector<int> per_row(8, 0);
  for (const auto& rack : g.racks())
    ++per_row[static_cast<std::size_t>(rack.row)];
  for (int n : per_row)
    CHECK(n == 8);

  // Bounds: racks span 8 x 0.6 m along x from 0, rows 7 x 3.6 + 1.2 m across.
  const viz::Box b = g.bounds();
  CHECK(b.max[0] >= 4.8 - 1e-12);
  CHECK(b.min[0] <= -0.9 + 1e-12);  // the CDUs
  CHECK_THAT(g.racks().back().box.max[1], WithinAbs(7 * 3.6 + 1.2, 1e-9));
  CHECK(b.min[2] == 0.0);

  // Pipes (reverse-return headers): per row 8 supply segments, 7 return segments and a return
  // leg, a hose pair per rack; with the facility loop 4 pipes per CDU.
  CHECK(g.pipeCount() == 8 * (8 + 7 + 1 + 16) + 8 * 4);
  std::multiset<std::uint32_t> supplied;
  for (const viz::PipePlacement& pipe : g.pipes()) {
    REQUIRE(pipe.points.size() >= 2);
    if (pipe.id.ends_with("/supply_header/1") || pipe.id.ends_with("/return_leg")) {
      CHECK(pipe.racks.size() == 8);  // the first supply segment and the leg carry the whole row
    }
    if (pipe.id.ends_with("/supply") && pipe.racks.size() == 1) supplied.insert(pipe.racks[0]);
  }
  for (std::uint32_t r = 0; r < 64; ++r)
    CHECK(supplied.count(r) == 1);  // one hose each

  // Polydata: 6 quads and 8 points per box, each cell naming its rack.
  const auto boxes = viz::makeBoxes(g, false);
  CHECK(boxes->GetNumberOfCells() == 64 * 6);
  CHECK(boxes->GetNumberOfPoints() == 64 * 8);
  double pb[6];
  boxes->GetBounds(pb);
  CHECK_THAT(pb[0], WithinAbs(0.0, 1e-12));
  CHECK_THAT(pb[1], WithinAbs(4.8, 1e-12));
  CHECK_THAT(pb[5], WithinAbs(2.3, 1e-12));
  const auto tubes = viz::makePipeTubes(g);
  CHECK(tubes->GetNumberOfCells() > static_cast<vtkIdType>(g.pipeCount()));
}

TEST_CASE("a ring's CDUs stand at the ends of the rows that follow them in tap order", "[viz]") {
  const core::SiteSpec site =
      scenarios::loadScenario(RACKTWIN_SOURCE_DIR "/scenarios/ring-16-racks.yaml");
  const viz::SiteGeometry g = viz::SiteGeometry::build(site);
  REQUIRE(g.rackCount() == 16);
  REQUIRE(g.cduCount() == 3);
  CHECK(g.rowCount() == 2);  // no extra row: cdu1 and cdu2 at row starts, cdu3 at row 2's end
  const viz::Box& cdu3 = g.cdus()[2].box;
  CHECK(cdu3.min[0] > g.racks()[15].box.max[0]);
  CHECK(cdu3.min[1] == g.racks()[15].box.min[1]);
  // Ring mains: one supply and one return segment per tap (19 taps), closed.
  std::size_t mains = 0;
  for (const viz::PipePlacement& pipe : g.pipes()) {
    if (pipe.id.starts_with("hall/ring1/")) {
      ++mains;
      CHECK_FALSE(pipe.flow_known);
    }
  }
  CHECK(mains == 2 * 19);
}

TEST_CASE("without a scenario racks are grouped in rows by id prefix", "[viz]") {
  const viz::SiteGeometry g =
      viz::SiteGeometry::fromIds({"a/r1", "a/r2", "b/r1", "b/r2", "b/r3"}, {"b/cdu", "lonely"});
  CHECK(g.rowCount() == 3);  // rows a and b, and the CDU without a row
  CHECK(g.racks()[2].row == 1);
  CHECK(g.cdus()[0].box.max[0] < g.racks()[2].box.min[0]);  // at row b's start
  CHECK(g.cdus()[1].box.min[1] > g.racks()[4].box.max[1]);  // after the rows
  CHECK(g.findRack("b/r3") == 4);
  CHECK(g.findRack("c") == -1);
  CHECK(g.entityId(g.cduEntity(1)) == "lonely");
}

namespace {

/// A hand-built site of `rows` rows of `per_row` racks, each row on one CDU ("rowN/cdu1") without
/// headers; rack ids "<hall>/rowN/rackK" when `halls` > 1 (rows split evenly), else "rowN/rackK".
core::SiteSpec gridSite(std::size_t rows, std::size_t per_row, std::size_t halls = 1) {
  core::SiteSpec site;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::string row = (halls > 1 ? "hall" + std::to_string(r * halls / rows + 1) + "/" : "")
                            + "row" + std::to_string(r + 1);
    core::CduSpec cdu;
    cdu.id = core::ComponentId(row + "/cdu1");
    site.cdus.push_back(cdu);
    for (std::size_t k = 0; k < per_row; ++k) {
      core::RackSpec rack;
      rack.id = core::ComponentId(row + "/rack" + std::to_string(k + 1));
      rack.cdu = row + "/cdu1";
      site.racks.push_back(rack);
    }
  }
  return site;
}

void requireNoOverlaps(const viz::SiteGeometry& g) {
  std::vector<viz::Box> boxes;
  for (const auto& rack : g.racks())
    boxes.push_back(rack.box);
  for (const auto& cdu : g.cdus())
    boxes.push_back(cdu.box);
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
      INFO("boxes " << i << " and " << j);
      REQUIRE_FALSE(overlap(boxes[i], boxes[j]));
    }
  }
}

}  // namespace

TEST_CASE("a hall of many rows is laid out in bays, about square, without overlaps", "[viz]") {
  // 40 rows of 8: a bay pitch of 8 x 0.6 + 2 x 0.9 (CDUs) + 3 m (aisle) = 9.6 m and a row pitch
  // of 3.6 m make ceil(sqrt(40 x 9.6 / 3.6)) = 11 rows a bay: 4 bays, 11 + 11 + 11 + 7 rows.
  const viz::SiteGeometry g = viz::SiteGeometry::build(gridSite(40, 8));
  REQUIRE(g.rows().size() == 40);
  REQUIRE(g.halls().size() == 1);
  requireNoOverlaps(g);
  std::set<double> bay_x, row_y;
  for (const viz::RowPlacement& row : g.rows()) {
    bay_x.insert(row.box.min[0]);
    row_y.insert(row.box.min[1]);
    for (const std::uint32_t r : row.racks)
      CHECK(g.racks()[r].box.min[1] == row.box.min[1]);
  }
  CHECK(bay_x.size() == 4);
  CHECK(row_y.size() == 11);
  CHECK_THAT(*std::next(bay_x.begin()) - *bay_x.begin(), WithinAbs(9.6, 1e-9));
  CHECK_THAT(*std::next(row_y.begin()) - *row_y.begin(), WithinAbs(3.6, 1e-9));
  const viz::Box hall = g.halls()[0].box;
  const double aspect = (hall.max[0] - hall.min[0]) / (hall.max[1] - hall.min[1]);
  CHECK(aspect > 0.7);
  CHECK(aspect < 1.4);
  // A bay's CDUs clear the racks of the bay before it by the cross aisle.
  for (const viz::RackPlacement& rack : g.racks()) {
    for (const viz::CduPlacement& cdu : g.cdus()) {
      if (cdu.box.min[1] == rack.box.min[1] && cdu.box.min[0] > rack.box.max[0]) {
        CHECK(cdu.box.min[0] - rack.box.max[0] >= 3.0 - 1e-9);
      }
    }
  }
  CHECK(g.findRack("row40/rack8") == 319);
  CHECK(g.findCdu("row40/cdu1") == 39);
}

TEST_CASE("halls stand side by side, or at their origin, and group their rows", "[viz]") {
  core::SiteSpec site = gridSite(6, 4, 2);  // hall1: rows 1-3, hall2: rows 4-6
  core::FloorPlanSpec floor = scenarios::defaultFloorPlan(site);
  floor.halls = {{"north", {0, 1, 2}, false, 0.0, 0.0, 0},
                 {"south", {3, 4, 5}, false, 0.0, 0.0, 0}};
  site.floor = floor;
  const viz::SiteGeometry side = viz::SiteGeometry::build(site);
  REQUIRE(side.halls().size() == 2);
  CHECK(side.halls()[1].rows == std::vector<std::uint32_t>{3, 4, 5});
  CHECK(side.rows()[4].hall == 1);
  requireNoOverlaps(side);
  // Apart by the hall gap (10 m) and the CDUs standing at both halls' ends.
  CHECK(side.halls()[1].box.min[0] - side.halls()[0].box.max[0] >= 10.0 + 2 * 0.9 - 1e-9);
  CHECK(side.halls()[1].box.min[1] == side.halls()[0].box.min[1]);

  site.floor.halls[1].origin_given = true;
  site.floor.halls[1].origin_x = 0.0;
  site.floor.halls[1].origin_y = 40.0;
  const viz::SiteGeometry placed = viz::SiteGeometry::build(site);
  CHECK(placed.halls()[1].box.min[0] == 0.0);
  CHECK(placed.halls()[1].box.min[1] == 40.0);
  requireNoOverlaps(placed);
}

namespace {
/// The axis-aligned rectangles (x0, y0, x1, y1) of a floor's quads, and their height.
std::vector<std::array<double, 4>> floorRects(vtkPolyData& floor, double& z) {
  std::vector<std::array<double, 4>> rects;
  for (vtkIdType c = 0; c < floor.GetNumberOfCells(); ++c) {
    double b[6];
    floor.GetCellBounds(c, b);
    REQUIRE(b[4] == b[5]);  // flat
    z = b[4];
    rects.push_back({b[0], b[2], b[1], b[3]});
  }
  return rects;
}
double area(const std::array<double, 4>& r) {
  return (r[2] - r[0]) * (r[3] - r[1]);
}
double overlapArea(const std::array<double, 4>& a, const std::array<double, 4>& b) {
  const double w = std::min(a[2], b[2]) - std::max(a[0], b[0]);
  const double h = std::min(a[3], b[3]) - std::max(a[1], b[1]);
  return w > 0.0 && h > 0.0 ? w * h : 0.0;
}
}  // namespace

TEST_CASE("the site's floor and the halls' floors tile the ground without overlapping", "[viz]") {
  // Floors of one height that overlap flicker through each other on a large site (seen on the
  // 100,000-GPU site rendered under Xvfb): the site's floor leaves out the halls' floors.
  core::SiteSpec site = gridSite(6, 4, 2);
  core::FloorPlanSpec plan = scenarios::defaultFloorPlan(site);
  plan.halls = {{"north", {0, 1, 2}, false, 0.0, 0.0, 0}, {"south", {3, 4, 5}, false, 0.0, 0.0, 0}};
  site.floor = plan;
  for (const bool second_at_origin : {false, true}) {
    if (second_at_origin) {
      site.floor.halls[1].origin_given = true;
      site.floor.halls[1].origin_x = 0.0;
      site.floor.halls[1].origin_y = 40.0;
    }
    const viz::SiteGeometry g = viz::SiteGeometry::build(site);
    REQUIRE(g.halls().size() == 2);
    double z_site = 0.0, z_halls = 1.0;
    const auto site_floor = viz::makeSiteFloor(g);
    const auto hall_floors = viz::makeHallFloors(g);
    const auto ground = floorRects(*site_floor, z_site);
    const auto halls = floorRects(*hall_floors, z_halls);
    REQUIRE(halls.size() == 2);
    CHECK(z_site == z_halls);
    CHECK(z_site < 0.0);  // under the racks
    double covered = 0.0;
    for (const auto& r : ground) {
      covered += area(r);
      for (const auto& h : halls)
        CHECK(overlapArea(r, h) == 0.0);
    }
    for (const auto& h : halls)
      covered += area(h);
    // Together they cover the site's footprint and 2 m around it, exactly once.
    const viz::Box b = g.bounds();
    const double whole = (b.max[0] - b.min[0] + 4.0) * (b.max[1] - b.min[1] + 4.0);
    CHECK_THAT(covered, WithinAbs(whole, 1e-6 * whole));
  }
  // One hall: its floor is not drawn, and the site's is one quad.
  const viz::SiteGeometry one = viz::SiteGeometry::build(gridSite(6, 4));
  REQUIRE(one.halls().size() == 1);
  CHECK(viz::makeSiteFloor(one)->GetNumberOfCells() == 1);
}
