// The cooling model on a modelled facility water loop (core::FacilityLoopSpec): the CDU
// exchangers see the loop's supply temperature and valve-driven flow, the loop carries their heat
// to a dry cooler, and the site's energy balance closes through both loops.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "CoolingRig.hpp"
#include "SmallSite.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

using namespace racktwin;

namespace {

/// The small test site (one CDU, one rack) on a facility loop sized to it: a dry cooler with
/// 2 x its CDU's rating, a 32 degC plant supply set-point, 20 degC outdoor air.
core::SiteSpec siteOnFacilityLoop(bool standby = true, double T_dry_degC = 20.0) {
  core::SiteSpec site = test::smallSite(2, 1);
  core::CduSpec& cdu = site.cdus[0];
  const double V = cdu.facility_V_flow_nominal;
  // Valve: 20 kPa fully open at the nominal flow (dp = rho (V / A_v)^2); exchanger side 20 kPa.
  cdu.facility_valve.A_v = V / std::sqrt(20e3 / 995.0);
  cdu.facility_valve.characteristic = core::ControlValveSpec::Characteristic::EqualPercentage;
  cdu.facility_valve.rangeability = 50.0;
  cdu.facility_valve.stroke_time = 30.0;
  cdu.hx_facility_dp.power_law = {20e3, V, 2.0};
  cdu.hx_facility_volume = 1e-3;

  site.facility.T_supply = core::fromCelsius(32.0);
  core::FacilityLoopSpec& l = site.facility.loop;
  l.present = true;
  l.pump = {150e3, 4.0 * V, 1.0, 0.6, 1e-3};
  l.pumps_installed = standby ? 2 : 1;
  l.pumps_duty = 1;
  l.standby_switchover_time = 5.0;
  l.dp_set = 40e3;
  l.pump_gain = 2e-6;
  l.pump_integral_time = 10.0;
  l.pump_speed_min = 0.3;
  l.plant_pipe = {20.0, 0.02, 4.5e-5, 4};
  l.header_segment = {2.0, 0.02, 4.5e-5, 1};
  core::HeatRejectionSpec& r = l.heat_rejection;
  r.kind = core::HeatRejectionSpec::Kind::DryCooler;
  r.type = "test-dry-cooler";
  r.units = 1;
  r.Q_flow_nominal = 2.0 * cdu.Q_flow_nominal;
  r.V_flow_nominal = V;
  r.approach_nominal = 6.0;
  r.T_ambient_nominal = core::fromCelsius(35.0);
  r.fan_P_nominal = 0.02 * r.Q_flow_nominal;
  r.fan_speed_min = 0.2;
  r.dp.power_law = {20e3, V, 2.0};
  r.volume = 5e-3;
  site.ambient.T_dry_bulb = core::fromCelsius(T_dry_degC);
  site.ambient.T_wet_bulb = core::fromCelsius(T_dry_degC - 5.0);
  return site;
}

using Rig = test::CoolingRig;

}  // namespace

TEST_CASE("On a facility loop the CDU holds its set-point and the heat reaches outdoor air",
          "[thermal]") {
  Rig rig(siteOnFacilityLoop());
  constexpr double P = 1000.0;
  for (int s = 0; s < 7200; ++s)
    rig.step(P);
  // The CDU's PI holds the secondary supply; the facility water it sees is the plant's supply.
  CHECK(rig.model.cduSupplyTemperature(0) == Approx(rig.site.cdus[0].T_supply_set).margin(0.05));
  // Steady state: everything the chips and the CDU pump put in leaves at the dry cooler, and the
  // plant pumps' hydraulic heat with it (first law over the last hour).
  const double in0 = rig.model.heatInput(), out0 = rig.summary("heat_rejected_outdoors_J").value();
  const double air0 = rig.summary("heat_rejected_to_air_J").value();
  for (int s = 0; s < 3600; ++s)
    rig.step(P);
  const double in = rig.model.heatInput() - in0;
  const double out = rig.summary("heat_rejected_outdoors_J").value() - out0
                     + rig.summary("heat_rejected_to_air_J").value() - air0;
  CHECK(out == Approx(in).epsilon(2e-3));
  CHECK(rig.summary("heat_rejection_fan_energy_J").value() > 0.0);
  CHECK(rig.summary("facility_pump_energy_J").value() > 0.0);
  CHECK(rig.balance() < 1e-9);
}

TEST_CASE("A facility pump trip without standby warms the secondary loop, with one it recovers",
          "[thermal]") {
  for (const bool standby : {false, true}) {
    Rig rig(siteOnFacilityLoop(standby));
    for (int s = 0; s < 3600; ++s)
      rig.step(1000.0);
    const double T_set = rig.site.cdus[0].T_supply_set;
    core::EventSpec e;
    e.kind = core::EventKind::FacilityPumpTrip;
    e.time = rig.t;
    REQUIRE(rig.model.applyEvent(e, rig.state));
    for (int s = 0; s < 1200; ++s)
      rig.step(1000.0);
    if (standby) {
      CHECK(rig.model.cduSupplyTemperature(0) == Approx(T_set).margin(0.1));
    } else {
      CHECK(rig.model.cduSupplyTemperature(0) > T_set + 5.0);  // no facility flow: no cooling
    }
    CHECK(rig.balance() < 1e-9);
  }
}

TEST_CASE("Without a facility loop the facility events are not applied", "[thermal]") {
  Rig rig(test::smallSite(2, 1));
  core::EventSpec e;
  e.kind = core::EventKind::FacilityPumpTrip;
  CHECK_FALSE(rig.model.applyEvent(e, rig.state));
  e.kind = core::EventKind::HeatRejectionFanLoss;
  e.value = 0.5;
  CHECK_FALSE(rig.model.applyEvent(e, rig.state));
}
