#pragma once
// A hand-built site of GB300 NVL72-like racks for the electrical tests (no scenario file, no data
// directory). Composition and PSU data: gb300_nvl72.md section 1.
#include <string>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::test {

inline core::RackTypeSpec gb300RackType() {
  core::RackTypeSpec type;
  type.type = "gb300-nvl72";
  type.compute_trays = 18;  // gb300_nvl72.md s1: 18 compute trays, 4 GPU + 2 CPU each
  type.gpus_per_tray = 4;
  type.cpus_per_tray = 2;
  type.switch_trays = 9;  // 9 NVLink switch trays
  type.switches_per_tray = 2;
  type.gpu.P_max = 1400.0;  // s1: B300 power limit 1,400 W
  type.gpu.P_idle = 200.0;  // s5: idle 150-250 W (estimate)
  type.gpu.throttled_power_fraction = 0.5;
  type.cpu.P_max = 300.0;  // s1: Grace ~300 W (estimate)
  type.cpu.P_idle = 100.0;
  type.nvswitch.P_max = 150.0;
  type.nvswitch.P_idle = 60.0;
  type.cpu_P_busy = 300.0;
  type.switch_P_busy = 120.0;
  type.compute_tray_air_P = 400.0;  // s1: 6.6 kW drawn vs 6.2 kW liquid per compute tray
  type.switch_tray_air_P = 200.0;
  type.power.shelves = 8;  // s1: 8 shelves x 6 PSUs x 5.5 kW
  type.power.psus_per_shelf = 6;
  type.power.psu_P_rated = 5500.0;
  // s1: 80 PLUS Titanium, 230 V internal redundant: 90/94/96/91 % at 10/20/50/100 % load.
  type.power.psu_efficiency.load_fraction = {0.10, 0.20, 0.50, 1.00};
  type.power.psu_efficiency.efficiency = {0.90, 0.94, 0.96, 0.91};
  return type;
}

inline core::SiteSpec gb300Site(int racks) {
  core::SiteSpec site;
  site.name = "test";
  for (int r = 1; r <= racks; ++r) {
    core::RackSpec rack;
    rack.id = core::ComponentId("row1/rack0" + std::to_string(r));
    rack.type = gb300RackType();
    rack.cdu = "cdu1";
    site.racks.push_back(rack);
  }
  return site;
}

}  // namespace racktwin::test
