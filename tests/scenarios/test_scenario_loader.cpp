// The default scenario (scenarios/nvl72-rack.yaml) and the component data it names load into a
// SiteSpec in SI. Expected values are the sourced inputs of docs/scenario-format.md and the
// GB300 NVL72 reference sheet (gb300_nvl72.md), converted by hand.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace {

using racktwin::core::EventKind;
using racktwin::core::InputError;
using racktwin::core::SiteSpec;
using racktwin::scenarios::loadScenario;
using racktwin::scenarios::loadScenarioFromString;
using racktwin::test::sourcePath;

constexpr double kRel = 1e-12;
constexpr double kLpm = racktwin::core::kLitrePerMinute_m3_per_s;
constexpr double kZeroC = 273.15;

const SiteSpec& defaultSite() {
  static const SiteSpec site = loadScenario(sourcePath("scenarios/nvl72-rack.yaml"));
  return site;
}

// A small valid scenario for variations; data from the source tree.
const char* const kBase = R"(racktwin_scenario: 1
name: "base"
simulation: {duration: 600 s, step: 0.5 s}
coolant: water
facility_water: {supply_temperature: 27 degC}
cdus:
  - id: row1/cdu1
    type: inrack-250kw
    pump_speed: 70 %
    supply_temperature_setpoint: 31 degC
racks:
  - id: row1/rack01
    type: gb300-nvl72
    cdu: row1/cdu1
    gpu_power_limit: 1200 W
    gpu_slowdown_temperature: 85 degC
    gpu_slowdown_release_temperature: 80 degC
  - {id: row1/rack02, type: gb300-nvl72, cdu: row1/cdu1}
room:
  crah_capacity: 150 kW
workload:
  - id: a
    type: training
    racks: [row1/rack02]
    start: 100 s
    duration: 200 s
    iteration: {compute: 2 s, compute_power: 90 %, communication: 0 s, communication_power: 0 %}
  - id: b
    type: training
    racks: [row1/rack02, row1/rack01]
    start: 300 s
    iteration: {compute: 1 s, compute_power: 1, communication: 1 s, communication_power: 0.5}
events:
  - {at: 500 s, action: set_pump_speed, target: row1/cdu1, value: 50 %}
  - {at: 120 s, action: pump_trip, target: row1/cdu1}
  - {at: 120 s, action: set_facility_supply_temperature, value: 95 degF}
  - {at: 0 s, action: set_supply_temperature_setpoint, target: row1/cdu1, value: 308.15 K}
)";

SiteSpec loadBase() {
  return loadScenarioFromString(kBase, "base.yaml", sourcePath("data"));
}

}  // namespace

TEST_CASE("the default scenario has one GB300 NVL72 rack on one CDU", "[scenarios]") {
  const SiteSpec& site = defaultSite();
  CHECK(site.name == "GB300 NVL72 rack on an in-rack CDU at W32");
  REQUIRE(site.cdus.size() == 1);
  REQUIRE(site.racks.size() == 1);
  CHECK(site.cdus[0].id.str() == "row1/cdu1");
  CHECK(site.cdus[0].type == "inrack-250kw");
  CHECK(site.racks[0].id.str() == "row1/rack01");
  CHECK(site.racks[0].cdu == "row1/cdu1");
  const auto& t = site.racks[0].type;
  CHECK(t.type == "gb300-nvl72");
  // gb300_nvl72.md §1 [P]: 18 compute trays of 4 GPUs + 2 CPUs, 72 GPUs / 36 CPUs per rack,
  // 9 switch trays; 8 shelves x 6 PSUs.
  CHECK(t.compute_trays * t.gpus_per_tray == 72);
  CHECK(t.compute_trays * t.cpus_per_tray == 36);
  CHECK(t.switch_trays == 9);
  CHECK(t.switch_trays * t.switches_per_tray == 18);
  CHECK(t.power.shelves * t.power.psus_per_shelf == 48);
  // Nameplate 8 x 6 x 5.5 kW = 264 kW (gb300_nvl72.md §1).
  CHECK(t.power.shelves * t.power.psus_per_shelf * t.power.psu_P_rated
        == Approx(264.0e3).epsilon(kRel));
}

TEST_CASE("the default scenario's values arrive in SI", "[scenarios]") {
  const SiteSpec& site = defaultSite();
  const auto& sim = site.simulation;
  CHECK(sim.duration == Approx(3600.0).epsilon(kRel));
  CHECK(sim.step == Approx(1.0).epsilon(kRel));
  CHECK(sim.substeps == 10);
  CHECK(sim.record_interval == Approx(1.0).epsilon(kRel));
  CHECK(sim.seed == 1u);
  CHECK(site.secondary_coolant.name == "PG25");
  CHECK(site.secondary_coolant.glycol_mass_fraction == Approx(0.25).epsilon(kRel));
  CHECK(site.facility.T_supply == Approx(305.15).epsilon(kRel));  // 32 degC, ASHRAE W32

  const auto& room = site.room;
  CHECK(room.T_supply_air == Approx(24.0 + kZeroC).epsilon(kRel));
  CHECK(room.crah_conductance == Approx(2000.0).epsilon(kRel));
  CHECK(room.crah_Q_flow_max == Approx(100.0e3).epsilon(kRel));
  CHECK(room.heat_capacity == Approx(2.0e6).epsilon(kRel));
  CHECK(room.crah_fan_power_fraction == Approx(0.02).epsilon(kRel));

  const auto& c = site.cdus[0];
  CHECK(c.Q_flow_nominal == Approx(250.0e3).epsilon(kRel));
  CHECK(c.approach_nominal == Approx(4.0).epsilon(kRel));
  CHECK(c.secondary_V_flow_nominal == Approx(375.0 * kLpm).epsilon(kRel));
  CHECK(c.facility_V_flow_nominal == Approx(360.0 * kLpm).epsilon(kRel));
  CHECK(c.hx_secondary_dp.power_law.dp_nominal == Approx(50.0e3).epsilon(kRel));
  CHECK(c.hx_secondary_dp.power_law.V_flow_nominal == Approx(375.0 * kLpm).epsilon(kRel));
  CHECK(c.hx_secondary_dp.power_law.exponent == Approx(2.0).epsilon(kRel));
  CHECK(c.hx_secondary_volume == Approx(5.0e-3).epsilon(kRel));
  CHECK(c.pump.dp_shutoff == Approx(250.0e3).epsilon(kRel));
  CHECK(c.pump.V_flow_max == Approx(0.0075).epsilon(kRel));  // 450 L/min
  CHECK(c.pump.speed == Approx(0.85).epsilon(kRel));
  CHECK(c.pump.efficiency == Approx(0.60).epsilon(kRel));
  CHECK(c.pump.volume == Approx(1.0e-3).epsilon(kRel));
  // gb300_nvl72.md §2a: the Supermicro 250 kW in-rack CDU has N+1 redundant pumps.
  CHECK(c.pumps_installed == 2);
  CHECK(c.pumps_duty == 1);
  CHECK(c.standby_switchover_time == Approx(5.0).epsilon(kRel));
  CHECK_FALSE(c.has_strainer);
  CHECK(c.T_supply_set == Approx(36.0 + kZeroC).epsilon(kRel));
  CHECK(c.valve_gain == Approx(0.1).epsilon(kRel));
  CHECK(c.valve_integral_time == Approx(60.0).epsilon(kRel));
  CHECK(c.valve_opening_min == Approx(0.05).epsilon(kRel));
  CHECK(c.valve_stroke_time == Approx(30.0).epsilon(kRel));

  const auto& t = site.racks[0].type;
  CHECK(t.compute_tray_air_P == Approx(400.0).epsilon(kRel));
  CHECK(t.switch_tray_air_P == Approx(500.0).epsilon(kRel));
  CHECK(t.cpu_P_busy == Approx(250.0).epsilon(kRel));
  CHECK(t.switch_P_busy == Approx(550.0).epsilon(kRel));
  CHECK(t.quick_disconnect.dp_nominal == Approx(15.0e3).epsilon(kRel));
  CHECK(t.quick_disconnect.V_flow_nominal == Approx(10.0 * kLpm).epsilon(kRel));
  CHECK(t.quick_disconnect.exponent == Approx(2.0).epsilon(kRel));
  CHECK(t.manifold_segment.length == Approx(0.089).epsilon(kRel));
  CHECK(t.manifold_segment.diameter == Approx(0.050).epsilon(kRel));
  CHECK(t.manifold_segment.roughness == Approx(1.5e-6).epsilon(kRel));
  CHECK(t.manifold_segment.cells == 1);
  CHECK(t.hose.length == Approx(2.0).epsilon(kRel));
  CHECK(t.hose.diameter == Approx(0.050).epsilon(kRel));
  CHECK(t.hose.roughness == Approx(1.5e-6).epsilon(kRel));
  CHECK(t.hose.cells == 8);
  CHECK(t.power.psu_P_rated == Approx(5500.0).epsilon(kRel));
  CHECK(t.power.power_factor == Approx(0.99).epsilon(kRel));
  // 80 PLUS Titanium, 230 V internal redundant: 90/94/96/91 % at 10/20/50/100 % (§1).
  REQUIRE(t.power.psu_efficiency.load_fraction.size() == 4);
  REQUIRE(t.power.psu_efficiency.efficiency.size() == 4);
  const double load[] = {0.10, 0.20, 0.50, 1.00};
  const double eff[] = {0.90, 0.94, 0.96, 0.91};
  for (int i = 0; i < 4; ++i) {
    CHECK(t.power.psu_efficiency.load_fraction[i] == Approx(load[i]).epsilon(kRel));
    CHECK(t.power.psu_efficiency.efficiency[i] == Approx(eff[i]).epsilon(kRel));
  }
}

TEST_CASE("the default scenario's chips and cold plates", "[scenarios]") {
  const auto& t = defaultSite().racks[0].type;
  const auto& gpu = t.gpu;
  CHECK(gpu.P_max == Approx(1400.0).epsilon(kRel));  // B300 power limit, §1 [P]
  CHECK(gpu.P_idle == Approx(200.0).epsilon(kRel));
  CHECK(gpu.heat_capacity == Approx(600.0).epsilon(kRel));
  CHECK(gpu.R_junction_case == Approx(0.005).epsilon(kRel));
  CHECK(gpu.T_slowdown == Approx(87.0 + kZeroC).epsilon(kRel));
  CHECK(gpu.T_slowdown_release == Approx(84.0 + kZeroC).epsilon(kRel));
  CHECK(gpu.throttled_power_fraction == Approx(0.70).epsilon(kRel));
  const auto& cpu = t.cpu;
  CHECK(cpu.P_max == Approx(300.0).epsilon(kRel));
  CHECK(cpu.P_idle == Approx(60.0).epsilon(kRel));
  CHECK(cpu.heat_capacity == Approx(300.0).epsilon(kRel));
  CHECK(cpu.R_junction_case == Approx(0.01).epsilon(kRel));
  CHECK(cpu.T_slowdown == Approx(95.0 + kZeroC).epsilon(kRel));
  CHECK(cpu.T_slowdown_release == Approx(92.0 + kZeroC).epsilon(kRel));
  CHECK(cpu.throttled_power_fraction == Approx(0.70).epsilon(kRel));
  const auto& sw = t.nvswitch;
  CHECK(sw.P_max == Approx(600.0).epsilon(kRel));
  CHECK(sw.P_idle == Approx(200.0).epsilon(kRel));
  CHECK(sw.heat_capacity == Approx(300.0).epsilon(kRel));
  CHECK(sw.R_junction_case == Approx(0.01).epsilon(kRel));
  CHECK(sw.T_slowdown == Approx(95.0 + kZeroC).epsilon(kRel));
  CHECK(sw.T_slowdown_release == Approx(92.0 + kZeroC).epsilon(kRel));
  CHECK(sw.throttled_power_fraction == Approx(0.70).epsilon(kRel));

  for (const auto* chip : {&gpu, &cpu, &sw}) {
    const auto& cp = chip->cold_plate;
    CHECK(cp.type == "ocp-oai-1kw-pg25");
    CHECK(cp.R_constant == Approx(0.0161661).epsilon(kRel));  // fit of §2b
    CHECK(cp.R_flow == Approx(1.398728e-7).epsilon(kRel));
    CHECK(cp.V_flow_min == Approx(0.2 * kLpm).epsilon(kRel));
    CHECK(cp.dp.dp_nominal == Approx(60.0e3).epsilon(kRel));
    CHECK(cp.dp.V_flow_nominal == Approx(1.5 * kLpm).epsilon(kRel));
    CHECK(cp.dp.exponent == Approx(1.85).epsilon(kRel));
    CHECK(cp.volume == Approx(30.0e-6).epsilon(kRel));
  }
}

TEST_CASE("the default rack's liquid-cooled power fits the reference and the CDU", "[scenarios]") {
  const SiteSpec& site = defaultSite();
  const auto& t = site.racks[0].type;
  const double liquid =
      t.compute_trays * (t.gpus_per_tray * t.gpu.P_max + t.cpus_per_tray * t.cpu.P_max)
      + t.switch_trays * t.switches_per_tray * t.nvswitch.P_max;
  const double air = t.compute_trays * t.compute_tray_air_P + t.switch_trays * t.switch_tray_air_P;
  // gb300_nvl72.md §2: 121-128 kW of a GB300 rack goes to liquid; §1: up to 142 kW per rack [P].
  CHECK(liquid >= 121.0e3);
  CHECK(liquid <= 128.0e3);
  CHECK(liquid + air <= 142.0e3);
  CHECK(liquid < site.cdus[0].Q_flow_nominal);
}

TEST_CASE("the default scenario's training job", "[scenarios]") {
  const SiteSpec& site = defaultSite();
  REQUIRE(site.jobs.size() == 1);
  const auto& j = site.jobs[0];
  CHECK(j.id == "train1");
  REQUIRE(j.racks.size() == 1);
  CHECK(j.racks[0].str() == "row1/rack01");
  CHECK(j.start == Approx(0.0).margin(1e-15));
  CHECK(j.duration == Approx(3600.0).epsilon(kRel));
  CHECK(j.compute_duration == Approx(3.2).epsilon(kRel));
  CHECK(j.compute_power_fraction == Approx(0.95).epsilon(kRel));
  CHECK(j.communication_duration == Approx(0.8).epsilon(kRel));
  CHECK(j.communication_power_fraction == Approx(0.40).epsilon(kRel));
  CHECK(j.checkpoint_interval == Approx(1800.0).epsilon(kRel));
  CHECK(j.checkpoint_duration == Approx(30.0).epsilon(kRel));
  CHECK(j.checkpoint_power_fraction == Approx(0.15).epsilon(kRel));
  CHECK(site.events.empty());
}

TEST_CASE("the loader keeps the scenario's path and its exact bytes", "[scenarios]") {
  const std::string path = sourcePath("scenarios/nvl72-rack.yaml");
  const SiteSpec& site = defaultSite();
  CHECK(site.scenario_path == path);
  CHECK(site.scenario_text == racktwin::test::readText(path));
  CHECK_FALSE(site.scenario_text.empty());
}

TEST_CASE("scenario overrides replace the data-file values", "[scenarios]") {
  const SiteSpec site = loadBase();
  CHECK(site.secondary_coolant.name == "water");
  CHECK(site.secondary_coolant.glycol_mass_fraction == 0.0);
  CHECK(site.facility.T_supply == Approx(300.15).epsilon(kRel));
  CHECK(site.cdus[0].pump.speed == Approx(0.70).epsilon(kRel));
  CHECK(site.cdus[0].T_supply_set == Approx(304.15).epsilon(kRel));
  const auto& gpu0 = site.racks[0].type.gpu;
  CHECK(gpu0.P_max == Approx(1200.0).epsilon(kRel));
  CHECK(gpu0.T_slowdown == Approx(358.15).epsilon(kRel));
  CHECK(gpu0.T_slowdown_release == Approx(353.15).epsilon(kRel));
  // The second rack has no overrides: the data-file values.
  const auto& gpu1 = site.racks[1].type.gpu;
  CHECK(gpu1.P_max == Approx(1400.0).epsilon(kRel));
  CHECK(gpu1.T_slowdown == Approx(360.15).epsilon(kRel));
  // Room: one key overridden, the rest from data/rooms/default.yaml.
  CHECK(site.room.crah_Q_flow_max == Approx(150.0e3).epsilon(kRel));
  CHECK(site.room.crah_conductance == Approx(2000.0).epsilon(kRel));
}

TEST_CASE("simulation keys have documented defaults", "[scenarios]") {
  const SiteSpec site = loadBase();
  CHECK(site.simulation.step == Approx(0.5).epsilon(kRel));
  CHECK(site.simulation.record_interval == Approx(0.5).epsilon(kRel));  // default: the step
  CHECK(site.simulation.substeps == 10);
  CHECK(site.simulation.seed == 0u);
}

TEST_CASE("jobs take rack lists, default durations and need no checkpoint", "[scenarios]") {
  const SiteSpec site = loadBase();
  REQUIRE(site.jobs.size() == 2);
  const auto& a = site.jobs[0];
  CHECK(a.racks.size() == 1);
  CHECK(a.checkpoint_interval == 0.0);  // none
  CHECK(a.communication_duration == 0.0);
  const auto& b = site.jobs[1];
  REQUIRE(b.racks.size() == 2);
  CHECK(b.racks[0].str() == "row1/rack02");
  CHECK(b.racks[1].str() == "row1/rack01");
  CHECK(b.start == Approx(300.0).epsilon(kRel));
  CHECK(b.duration == Approx(300.0).epsilon(kRel));  // default: to the end of the simulation
  CHECK(b.compute_power_fraction == Approx(1.0).epsilon(kRel));
  CHECK(b.communication_power_fraction == Approx(0.5).epsilon(kRel));
}

TEST_CASE("events are converted and ordered by time, ties in file order", "[scenarios]") {
  const SiteSpec site = loadBase();
  REQUIRE(site.events.size() == 4);
  const auto& e = site.events;
  CHECK(e[0].kind == EventKind::SetSupplySetpoint);
  CHECK(e[0].time == 0.0);
  CHECK(e[0].target == "row1/cdu1");
  CHECK(e[0].value == Approx(308.15).epsilon(kRel));
  CHECK(e[1].kind == EventKind::PumpTrip);
  CHECK(e[1].time == Approx(120.0).epsilon(kRel));
  CHECK(e[1].target == "row1/cdu1");
  CHECK(e[2].kind == EventKind::SetFacilitySupplyTemperature);
  CHECK(e[2].target.empty());
  CHECK(e[2].value == Approx(308.15).epsilon(kRel));  // 95 degF = 35 degC
  CHECK(e[3].kind == EventKind::SetPumpSpeed);
  CHECK(e[3].value == Approx(0.5).epsilon(kRel));
  // Each event remembers where it was written, for messages at run time.
  CHECK(e[3].where.file == "base.yaml");
  CHECK(e[3].where.line == racktwin::test::lineOf(kBase, "action: set_pump_speed"));
}

TEST_CASE("the data directory: argument, data_dir key relative to the file", "[scenarios]") {
  // Without a data_dir key the argument is used.
  CHECK_NOTHROW(loadBase());
  // A data_dir key is resolved against the scenario file's folder.
  const std::string with_key =
      racktwin::test::replaced(kBase, "name: \"base\"\n", "name: \"base\"\ndata_dir: ../data\n");
  const SiteSpec site =
      loadScenarioFromString(with_key, sourcePath("scenarios/x.yaml"), "/nonexistent");
  CHECK(site.racks.size() == 2);
  // An argument that holds no data names the file it looked for.
  try {
    (void)loadScenarioFromString(kBase, "base.yaml", "/nonexistent/data");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.key() == "room.type");
    CHECK_THAT(e.message(), Catch::Contains("/nonexistent/data/rooms/default.yaml"));
  }
}

TEST_CASE("pause_job and resume_job name a training job", "[scenarios]") {
  const std::string anchor = "  - {at: 0 s, action: set_supply_temperature_setpoint";
  const std::string with_pause =
      racktwin::test::replaced(kBase, anchor,
                               "  - {at: 150 s, action: pause_job, target: a}\n"
                               "  - {at: 180 s, action: resume_job, target: a}\n"
                                   + anchor);
  const SiteSpec site = loadScenarioFromString(with_pause, "base.yaml", sourcePath("data"));
  int found = 0;
  for (const auto& e : site.events) {
    if (e.kind == EventKind::PauseJob) found += e.target == "a" && e.time == 150.0 ? 1 : 0;
    if (e.kind == EventKind::ResumeJob) found += e.target == "a" && e.time == 180.0 ? 1 : 0;
  }
  CHECK(found == 2);

  const std::string unknown = racktwin::test::replaced(
      kBase, anchor, "  - {at: 150 s, action: pause_job, target: c}\n" + anchor);
  racktwin::test::requireInputError(
      [&] { (void)loadScenarioFromString(unknown, "base.yaml", sourcePath("data")); },
      {"base.yaml",
       racktwin::test::lineOf(unknown, "pause_job"),
       "events[3].target",
       {"unknown training job 'c'", "a, b"}});
}
