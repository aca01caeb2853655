// Row headers in a scenario (cdus[].headers), the in-row XDU1350 CDU data and the 64-rack GB300
// cluster scenario. Expected values are the inputs converted by hand and the reference sheet
// (gb300_nvl72.md §2b for the CDU record, §6 for the cluster).
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace {

using racktwin::core::RowHeaderSpec;
using racktwin::core::SiteSpec;
using racktwin::scenarios::loadScenario;
using racktwin::scenarios::loadScenarioFromString;
using racktwin::test::sourcePath;

constexpr double kRel = 1e-12;
constexpr double kLpm = racktwin::core::kLitrePerMinute_m3_per_s;

const char* const kTwoCdus = R"(racktwin_scenario: 1
name: "headers"
simulation: {duration: 60 s}
coolant: PG25
facility_water: {supply_temperature: 32 degC}
cdus:
  - id: row1/cdu1
    type: xdu1350
    headers: {segment_length: 120 cm, inner_diameter: 4 in, roughness: 0.045 mm, cells: 3, return: reverse}
  - id: row2/cdu1
    type: xdu1350
    headers:
      segment_length: 0.6 m
      inner_diameter: 80 mm
      roughness: 0 mm
      cells: 1
      return: direct
  - id: row3/cdu1
    type: inrack-250kw
racks:
  - {id: row1/rack01, type: gb300-nvl72, cdu: row1/cdu1}
  - {id: row2/rack01, type: gb300-nvl72, cdu: row2/cdu1}
  - {id: row3/rack01, type: gb300-nvl72, cdu: row3/cdu1}
)";

const SiteSpec& clusterSite() {
  static const SiteSpec site = loadScenario(sourcePath("scenarios/cluster-64-racks.yaml"));
  return site;
}

}  // namespace

TEST_CASE("row header keys arrive in SI with their return arrangement", "[scenarios]") {
  const SiteSpec site = loadScenarioFromString(kTwoCdus, "headers.yaml", sourcePath("data"));
  REQUIRE(site.cdus.size() == 3);
  const RowHeaderSpec& a = site.cdus[0].headers;
  CHECK(a.present);
  CHECK(a.segment.length == Approx(1.2).epsilon(kRel));
  CHECK(a.segment.diameter == Approx(0.1016).epsilon(kRel));  // 4 in = 4 x 25.4 mm
  CHECK(a.segment.roughness == Approx(4.5e-5).epsilon(kRel));
  CHECK(a.segment.cells == 3);
  CHECK(a.return_arrangement == RowHeaderSpec::Return::Reverse);
  const RowHeaderSpec& b = site.cdus[1].headers;
  CHECK(b.present);
  CHECK(b.segment.length == Approx(0.6).epsilon(kRel));
  CHECK(b.segment.diameter == Approx(0.08).epsilon(kRel));
  CHECK(b.segment.roughness == 0.0);
  CHECK(b.segment.cells == 1);
  CHECK(b.return_arrangement == RowHeaderSpec::Return::Direct);
  // Without the key: no headers, the racks join the CDU directly.
  CHECK_FALSE(site.cdus[2].headers.present);
}

TEST_CASE("the XDU1350 data file holds the Modelica Buildings record values", "[scenarios]") {
  const SiteSpec site = loadScenarioFromString(kTwoCdus, "headers.yaml", sourcePath("data"));
  const racktwin::core::CduSpec& c = site.cdus[0];
  CHECK(c.type == "xdu1350");
  // gb300_nvl72.md §2b: 1.35 MW, 4 K approach, HX 84 kPa; strainer 65 kPa at nominal flow with
  // exponent 1.76, a separate link in series.
  CHECK(c.Q_flow_nominal == Approx(1.35e6).epsilon(kRel));
  CHECK(c.approach_nominal == Approx(4.0).epsilon(kRel));
  CHECK(c.hx_secondary_dp.power_law.dp_nominal == Approx(84.0e3).epsilon(kRel));
  REQUIRE(c.has_strainer);
  REQUIRE(c.strainer_dp.form == racktwin::core::PressureDropLaw::Form::PowerLaw);
  CHECK(c.strainer_dp.power_law.dp_nominal == Approx(65.0e3).epsilon(kRel));
  CHECK(c.strainer_dp.power_law.exponent == Approx(1.76).epsilon(kRel));
  CHECK(c.strainer_dp.power_law.V_flow_nominal == Approx(c.secondary_V_flow_nominal).epsilon(kRel));
  // N+1 pumps, one duty (the pump figures are one pump's).
  CHECK(c.pumps_installed == 2);
  CHECK(c.pumps_duty == 1);
  CHECK(c.standby_switchover_time > 0.0);
  // 20.6 kg/s each side: PG20 at 32 degC 1010.1 kg/m3 and water 995.0 kg/m3 (Melinder 2010,
  // IAPWS-95, gb300_nvl72.md §3); the file's flows are rounded to 1 L/min.
  CHECK(c.secondary_V_flow_nominal * 1010.1 == Approx(20.6).epsilon(1e-3));
  CHECK(c.facility_V_flow_nominal * 995.0 == Approx(20.6).epsilon(1e-3));
  // The pump curve passes through the rated point, 500 kPa at the nominal flow, at full speed,
  // with the generic shut-off head of 1.3 x rated head (gb300_nvl72.md §2a).
  const double x = c.secondary_V_flow_nominal / c.pump.V_flow_max;
  CHECK(c.pump.dp_shutoff * (1.0 - x * x) == Approx(500.0e3).epsilon(1e-3));
  CHECK(c.pump.dp_shutoff == Approx(1.3 * 500.0e3).epsilon(kRel));
  // Pump efficiency from the 20.5 kW input power of the CDU 1350 (§2a) at 10.2 kW hydraulic.
  CHECK(500.0e3 * c.secondary_V_flow_nominal / c.pump.efficiency == Approx(20.5e3).epsilon(0.01));
  CHECK(c.secondary_V_flow_nominal == Approx(1224.0 * kLpm).epsilon(kRel));
}

TEST_CASE("the 64-rack cluster: 4,608 GPUs in 8 rows of 8 racks, one CDU per row", "[scenarios]") {
  const SiteSpec& site = clusterSite();
  // gb300_nvl72.md §6: Azure ND GB300 v6, 64 racks x 72 = 4,608 GPUs.
  REQUIRE(site.racks.size() == 64);
  REQUIRE(site.cdus.size() == 8);
  int gpus = 0;
  std::map<std::string, int> racks_per_cdu;
  for (const auto& rack : site.racks) {
    gpus += rack.type.compute_trays * rack.type.gpus_per_tray;
    ++racks_per_cdu[rack.cdu];
    // A rack's row is its CDU's row.
    CHECK(rack.id.str().substr(0, 5) == rack.cdu.substr(0, 5));
  }
  CHECK(gpus == 4608);
  for (const auto& cdu : site.cdus) {
    CHECK(racks_per_cdu[cdu.id.str()] == 8);
    CHECK(cdu.type == "xdu1350");
    CHECK(cdu.headers.present);
    CHECK(cdu.headers.return_arrangement == RowHeaderSpec::Return::Reverse);
    // Eight racks of ~140 kW (gb300_nvl72.md §6: 136-142 kW) fit the 1.35 MW rating.
    CHECK(8 * 142.0e3 < cdu.Q_flow_nominal);
  }
  CHECK(site.secondary_coolant.name == "PG25");
  CHECK(site.facility.T_supply == Approx(305.15).epsilon(kRel));  // W32
  REQUIRE(site.jobs.size() == 1);
  CHECK(site.jobs[0].racks.size() == 64);
  CHECK(site.simulation.duration == Approx(3600.0).epsilon(kRel));
  // At most a few thousand samples per channel.
  CHECK(site.simulation.duration / site.simulation.record_interval <= 3600.0);
}
