// Quantities: what a rack, a tray, a GPU or a CDU shows for each colour quantity, on a hand-built
// store whose values are known.
#include <catch2/catch.hpp>

#include <cmath>

#include "Quantities.hpp"
#include "ResultStore.hpp"

using namespace racktwin::gui;
using racktwin::core::ChannelInfo;

namespace {

racktwin::core::SiteSpec twoRackSite() {
  racktwin::core::SiteSpec site;
  for (const char* id : {"row1/rack01", "row1/rack02"}) {
    racktwin::core::RackSpec rack;
    rack.id = racktwin::core::ComponentId(id);
    rack.cdu = "row1/cdu1";
    site.racks.push_back(rack);
  }
  return site;
}

ResultStore store() {
  ResultStore result;
  std::vector<ChannelInfo> channels;
  channels.push_back(
      {"gpu",
       "T_junction",
       "K",
       "",
       {"row1/rack01/tray01/gpu0", "row1/rack01/tray01/gpu1", "row1/rack02/tray01/gpu0"}});
  channels.push_back({"tray",
                      "T_outlet",
                      "K",
                      "",
                      {"row1/rack01/tray01", "row1/rack01/tray02", "row1/rack02/tray01"}});
  channels.push_back({"tray",
                      "V_flow",
                      "m3/s",
                      "",
                      {"row1/rack01/tray01", "row1/rack01/tray02", "row1/rack02/tray01"}});
  channels.push_back({"rack", "P_ac", "W", "", {"row1/rack01", "row1/rack02"}});
  channels.push_back({"cdu", "T_return", "K", "", {"row1/cdu1"}});
  channels.push_back({"site", "P_it", "W", "", {}});
  result.reset({}, channels);
  // gpu T | tray T | tray V | rack P | cdu T | site P
  result.append(0.0, std::vector<double>{330, 340, 320, 310, 320, 315, 1e-4, 3e-4, 2e-4, 100e3,
                                         90e3, 312, 190e3});
  result.append(1.0, std::vector<double>{331, 339, 321, 311, 321, 316, 0.0, 0.0, 0.0, 101e3, 91e3,
                                         313, 192e3});
  return result;
}

}  // namespace

TEST_CASE("Quantities reduce entities as the legend says", "[gui]") {
  const racktwin::core::SiteSpec site = twoRackSite();
  const ResultStore s = store();
  Quantities q(site, s);
  // Hottest GPU of a rack, of a tray, and a GPU's own.
  CHECK(q.value("row1/rack01", EntityKind::Rack, Quantity::GpuJunctionTemperature, 0) == 340.0);
  CHECK(q.value("row1/rack01/tray01/gpu0", EntityKind::Chip, Quantity::GpuJunctionTemperature, 1)
        == 331.0);
  // The CDU's hottest GPU is over the racks it serves.
  CHECK(q.value("row1/cdu1", EntityKind::Cdu, Quantity::GpuJunctionTemperature, 0) == 340.0);
  // Rack outlet: trays mixed by flow, (310 * 1 + 320 * 3) / 4 = 317.5 K.
  CHECK(q.value("row1/rack01", EntityKind::Rack, Quantity::CoolantTemperature, 0)
        == Approx(317.5).epsilon(1e-12));
  // Without flow the plain mean still says how hot the coolant is: (311 + 321) / 2.
  CHECK(q.value("row1/rack01", EntityKind::Rack, Quantity::CoolantTemperature, 1)
        == Approx(316.0).epsilon(1e-12));
  // A GPU's coolant temperature is its tray's outlet.
  CHECK(q.value("row1/rack01/tray01/gpu1", EntityKind::Chip, Quantity::CoolantTemperature, 0)
        == 310.0);
  // The CDU shows its return temperature; a row sums its racks' power; the site its IT power.
  CHECK(q.value("row1/cdu1", EntityKind::Cdu, Quantity::CoolantTemperature, 1) == 313.0);
  CHECK(q.value("row1", EntityKind::Row, Quantity::RackPower, 0) == 190e3);
  CHECK(q.value("", EntityKind::Site, Quantity::RackPower, 1) == 192e3);
  // "row1/rack0" is a prefix of both racks' ids but no ancestor of either: nothing.
  CHECK(std::isnan(q.value("row1/rack0", EntityKind::Rack, Quantity::RackPower, 0)));
  // Series follow the samples.
  const std::vector<double> series = q.series("row1/rack02", EntityKind::Rack, Quantity::RackPower);
  REQUIRE(series.size() == 2);
  CHECK(series[1] == 91e3);
  CHECK(s.sampleAt(0.5) == 0);
  CHECK(s.sampleAt(7.0) == 1);
}

TEST_CASE("A result of per-rack aggregates shows each rack's hottest GPU and its trays' outlet",
          "[gui]") {
  // Above 10,000 GPUs a result keeps gpu_by_rack and tray_by_rack, not /gpu and /tray: the
  // chart and the details of a rack were empty (seen on the 100,000-GPU site).
  const racktwin::core::SiteSpec site = twoRackSite();
  ResultStore s;
  std::vector<ChannelInfo> channels;
  channels.push_back({"gpu_by_rack", "T_junction.max", "K", "", {"row1/rack01", "row1/rack02"}});
  channels.push_back({"gpu_by_rack", "T_junction.mean", "K", "", {"row1/rack01", "row1/rack02"}});
  channels.push_back({"tray_by_rack", "T_outlet.mean", "K", "", {"row1/rack01", "row1/rack02"}});
  s.reset({}, channels);
  s.append(0.0, std::vector<double>{340, 335, 330, 320, 311, 312});
  Quantities q(site, s);
  CHECK(q.value("row1/rack01", EntityKind::Rack, Quantity::GpuJunctionTemperature, 0) == 340.0);
  CHECK(q.value("row1/rack02", EntityKind::Rack, Quantity::GpuJunctionTemperature, 0) == 335.0);
  // A GPU of rack 2 shows its rack's hottest (the nearest thing recorded); the CDU and the row
  // the hottest of their racks.
  CHECK(q.value("row1/rack02/tray01/gpu0", EntityKind::Chip, Quantity::GpuJunctionTemperature, 0)
        == 335.0);
  CHECK(q.value("row1/cdu1", EntityKind::Cdu, Quantity::GpuJunctionTemperature, 0) == 340.0);
  CHECK(q.value("row1", EntityKind::Row, Quantity::GpuJunctionTemperature, 0) == 340.0);
  // The mean is not taken for the hottest.
  CHECK(q.value("row1/rack01", EntityKind::Rack, Quantity::CoolantTemperature, 0) == 311.0);
  CHECK(q.value("row1", EntityKind::Row, Quantity::CoolantTemperature, 0) == 312.0);
  CHECK(q.series("row1/rack02", EntityKind::Rack, Quantity::GpuJunctionTemperature).size() == 1);
}

TEST_CASE("A hall shows the hottest GPU and the power of its rows' racks", "[gui]") {
  // A hall is a group of rows in the site tree; its id ("north") prefixes none of its racks' ids,
  // so it showed nothing.
  racktwin::core::SiteSpec site;
  for (const char* id : {"row1/rack01", "row1/rack02", "row2/rack01"}) {
    racktwin::core::RackSpec rack;
    rack.id = racktwin::core::ComponentId(id);
    site.racks.push_back(rack);
  }
  racktwin::core::FloorPlanSpec floor;
  floor.rows = {{"row1", {0, 1}, 0}, {"row2", {2}, 1}};
  floor.halls = {{"north", {0}, false, 0.0, 0.0, 0}, {"south", {1}, false, 0.0, 0.0, 0}};
  site.floor = floor;
  ResultStore s;
  std::vector<ChannelInfo> channels;
  const std::vector<std::string> racks{"row1/rack01", "row1/rack02", "row2/rack01"};
  channels.push_back({"gpu_by_rack", "T_junction.max", "K", "", racks});
  channels.push_back({"rack", "P_ac", "W", "", racks});
  s.reset({}, channels);
  s.append(0.0, std::vector<double>{330, 335, 350, 100e3, 110e3, 120e3});
  Quantities q(site, s);
  CHECK(q.value("north", EntityKind::Group, Quantity::GpuJunctionTemperature, 0) == 335.0);
  CHECK(q.value("south", EntityKind::Group, Quantity::GpuJunctionTemperature, 0) == 350.0);
  CHECK(q.value("north", EntityKind::Group, Quantity::RackPower, 0) == 210e3);
  CHECK(q.value("south", EntityKind::Group, Quantity::RackPower, 0) == 120e3);
}
