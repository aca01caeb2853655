#include "SmallSite.hpp"

#include <string>

#include "racktwin/core/Units.hpp"

namespace racktwin::test {

core::SiteSpec smallSite(int trays, int gpus_per_tray) {
  using core::fromCelsius;
  constexpr double lpm = core::kLitrePerMinute_m3_per_s;
  core::SiteSpec site;
  site.name = "small";
  site.simulation = {600.0, 1.0, 10, 1.0, 1};
  site.secondary_coolant = {"PG25", 0.25};
  site.facility.T_supply = fromCelsius(32.0);
  site.room = {fromCelsius(24.0), 2000.0, 1e5, 2e6, 0.02};

  core::ChipSpec chip;
  chip.P_max = 1400.0;
  chip.P_idle = 200.0;
  chip.heat_capacity = 600.0;
  chip.R_junction_case = 0.005;
  chip.T_slowdown = fromCelsius(87.0);
  chip.T_slowdown_release = fromCelsius(84.0);
  chip.throttled_power_fraction = 0.7;
  chip.cold_plate = {"ocp", 0.0161661, 1.398728e-7, 0.2 * lpm, {60e3, 1.5 * lpm, 1.85}, 30e-6};

  core::RackTypeSpec type;
  type.type = "test";
  type.compute_trays = trays;
  type.gpus_per_tray = gpus_per_tray;
  type.cpus_per_tray = 0;
  type.switch_trays = 0;
  type.switches_per_tray = 0;
  type.gpu = chip;
  type.cpu = chip;
  type.nvswitch = chip;
  type.quick_disconnect = {15e3, 10.0 * lpm, 2.0};
  type.manifold_segment = {0.089, 0.05, 1.5e-6, 1};
  type.hose = {2.0, 0.05, 1.5e-6, 8};
  type.power.psu_efficiency = {{0.1, 0.2, 0.5, 1.0}, {0.90, 0.94, 0.96, 0.91}};

  core::CduSpec cdu;
  cdu.id = core::ComponentId("row1/cdu1");
  cdu.type = "test";
  // A CDU sized to the small rack: 1.5 kW per GPU, 1.5 L/min per kW, 10 K facility rise.
  const double Q_nominal = 1500.0 * trays * gpus_per_tray;
  cdu.Q_flow_nominal = Q_nominal;
  cdu.approach_nominal = 4.0;
  cdu.secondary_V_flow_nominal = 1.5 * lpm * Q_nominal / 1000.0;
  cdu.facility_V_flow_nominal = Q_nominal / (4180.0 * 10.0 * 995.0);
  cdu.hx_secondary_dp.power_law = {50e3, 375.0 * lpm, 2.0};
  cdu.hx_secondary_volume = 5e-3;
  cdu.pump = {250e3, 450.0 * lpm, 0.85, 0.6, 1e-3};
  cdu.T_supply_set = fromCelsius(36.0);
  cdu.valve_gain = 0.1;
  cdu.valve_integral_time = 60.0;
  cdu.valve_opening_min = 0.05;
  cdu.valve_stroke_time = 30.0;
  site.cdus.push_back(cdu);

  core::RackSpec rack;
  rack.id = core::ComponentId("row1/rack01");
  rack.type = type;
  rack.cdu = "row1/cdu1";
  site.racks.push_back(rack);
  return site;
}

core::SiteSpec rowSite(int racks, core::RowHeaderSpec::Return arrangement, core::PipeSpec segment,
                       int trays, int gpus_per_tray) {
  core::SiteSpec site = smallSite(trays, gpus_per_tray);
  core::CduSpec& cdu = site.cdus[0];
  cdu.Q_flow_nominal *= racks;
  cdu.secondary_V_flow_nominal *= racks;
  cdu.facility_V_flow_nominal *= racks;
  cdu.headers.present = true;
  cdu.headers.segment = segment;
  cdu.headers.return_arrangement = arrangement;
  const core::RackSpec first = site.racks[0];
  site.racks.clear();
  for (int r = 1; r <= racks; ++r) {
    core::RackSpec rack = first;
    rack.id = core::ComponentId("row1/rack0" + std::to_string(r));
    site.racks.push_back(rack);
  }
  return site;
}

}  // namespace racktwin::test
