// The facility water loop, the outdoor ambient (constant or a weather file) and the CDUs' facility
// side in scenario and data files (docs/scenario-format.md: facility_water.loop, ambient, weather
// files, CDU facility_side). Values arrive in SI as hand arithmetic converts them; the sample
// weather file is the ASHRAE design day it says it is; bad weather files and data files give
// located errors; and the facility-loop scenario runs on the models it feeds.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"

namespace {

namespace fs = std::filesystem;
using racktwin::core::ControlValveSpec;
using racktwin::core::HeatRejectionSpec;
using racktwin::core::InputError;
using racktwin::core::SiteSpec;
using racktwin::scenarios::loadScenario;
using racktwin::scenarios::loadScenarioFromString;
using racktwin::test::lineOf;
using racktwin::test::readText;
using racktwin::test::replaced;
using racktwin::test::sourcePath;

constexpr double kRel = 1e-12;
constexpr double kZeroC = 273.15;
constexpr double kLpm = 1.0e-3 / 60.0;
constexpr double kGpm = 3.785411784e-3 / 60.0;  // exact US gallon
constexpr double kPsi = 6894.757293168;         // Pa (NIST SP 811)
constexpr double kInch = 0.0254;                // m, exact
constexpr double kCv = 2.4014e-5;  // m2 of A_v per Cv: 6.30902e-5 m3/s x sqrt(999 / 6894.757)
double fromF(double degF) {
  return (degF + 459.67) * 5.0 / 9.0;
}

/// A scratch folder, removed with everything in it.
class Scratch {
 public:
  Scratch() {
    static int counter = 0;
    root_ = fs::temp_directory_path()
            / ("racktwin-facility-" + std::to_string(getpid()) + "-" + std::to_string(++counter));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = root_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
    return p.string();
  }
  const fs::path& root() const { return root_; }

 private:
  fs::path root_;
};

/// A copy of data/ in a scratch folder with one file's text replaced.
class DataCopy {
 public:
  DataCopy(const std::string& relative, const std::string& from, const std::string& to) {
    fs::copy(sourcePath("data"), scratch_.root() / "data", fs::copy_options::recursive);
    file_ = (scratch_.root() / "data" / relative).string();
    text_ = replaced(readText(file_), from, to);
    std::ofstream(file_, std::ios::binary | std::ios::trunc) << text_;
  }
  SiteSpec load(const std::string& scenario) const {
    return loadScenarioFromString(scenario, "facility.yaml", (scratch_.root() / "data").string());
  }
  const std::string& file() const { return file_; }
  const std::string& text() const { return text_; }

 private:
  Scratch scratch_;
  std::string file_, text_;
};

using Located = racktwin::test::ExpectedError;
using racktwin::test::requireInputError;

// Two XDU1350 rows on a loop with a cooling tower, every quantity in a unit other than the SI one.
const std::string kTwoRows = R"(racktwin_scenario: 1
name: "two rows"
simulation: {duration: 60 s}
coolant: PG25
facility_water:
  supply_temperature: 86 degF
  loop:
    pump: {shutoff_pressure: 3 bar, max_flow: 500 gpm, speed: 90 %, efficiency: 0.7, volume: 0.05 m3, installed: 3, duty: 2, standby_switchover_time: 0.25 min}
    plant_pipe: {length: 100 ft, inner_diameter: 6 in, roughness: 0.0018 in, cells: 4}
    header_segment: {length: 2 m, inner_diameter: 154.1 mm, roughness: 0.045 mm, cells: 2}
    heat_rejection: {type: cooling-tower-1500kw, units: 2}
ambient: {dry_bulb: 95 degF, wet_bulb: 75 degF}
cdus:
  - {id: row1/cdu1, type: xdu1350, supply_temperature_setpoint: 34 degC}
  - {id: row2/cdu1, type: xdu1350, supply_temperature_setpoint: 34 degC}
racks:
  - {id: row1/rack01, type: gb300-nvl72, cdu: row1/cdu1}
  - {id: row2/rack01, type: gb300-nvl72, cdu: row2/cdu1}
)";

/// The ASHRAE fraction-of-daily-range profile, hours 1 to 24 (ASHRAE Handbook - Fundamentals
/// 2009, ch. 14, from RP-1363), typed here from the method, not from the sample file.
constexpr double kAshraeFraction[24] = {0.88, 0.92, 0.95, 0.98, 1.00, 0.98, 0.91, 0.74,
                                        0.55, 0.38, 0.23, 0.13, 0.05, 0.00, 0.00, 0.06,
                                        0.14, 0.24, 0.39, 0.50, 0.59, 0.68, 0.75, 0.82};

/// scenarios/facility-loop-rack.yaml with another ambient map.
std::string withAmbient(const std::string& ambient) {
  std::string text = readText(sourcePath("scenarios/facility-loop-rack.yaml"));
  return replaced(text, "ambient:\n  dry_bulb: 35 degC\n  wet_bulb: 24 degC\n", ambient);
}

/// As withAmbient, for a scenario file written outside the source tree: data_dir made absolute.
std::string scratchScenario(const std::string& ambient) {
  return replaced(withAmbient(ambient), "data_dir: ../data\n",
                  "data_dir: " + sourcePath("data") + "\n");
}

}  // namespace

TEST_CASE("the facility-loop scenario arrives in the facility loop spec in SI", "[scenarios]") {
  const SiteSpec site = loadScenario(sourcePath("scenarios/facility-loop-rack.yaml"));
  CHECK(site.facility.T_supply == Approx(32.0 + kZeroC).epsilon(kRel));
  const auto& l = site.facility.loop;
  REQUIRE(l.present);
  CHECK(l.pump.dp_shutoff == Approx(250.0e3).epsilon(kRel));
  CHECK(l.pump.V_flow_max == Approx(720.0 * kLpm).epsilon(kRel));
  CHECK(l.pump.speed == 1.0);  // no pump.speed: the control sets it, from full speed
  CHECK(l.pump.efficiency == Approx(0.65).epsilon(kRel));
  CHECK(l.pump.volume == Approx(0.010).epsilon(kRel));
  CHECK(l.pumps_installed == 2);
  CHECK(l.pumps_duty == 1);
  CHECK(l.standby_switchover_time == Approx(10.0).epsilon(kRel));
  CHECK(l.dp_set == Approx(100.0e3).epsilon(kRel));
  CHECK(l.pump_gain == Approx(1.0e-6).epsilon(kRel));  // 0.001 per kPa = 1e-6 per Pa
  CHECK(l.pump_integral_time == Approx(10.0).epsilon(kRel));
  CHECK(l.pump_speed_min == Approx(0.30).epsilon(kRel));
  CHECK(l.plant_pipe.length == Approx(30.0).epsilon(kRel));
  CHECK(l.plant_pipe.diameter == Approx(0.0779).epsilon(kRel));
  CHECK(l.plant_pipe.roughness == Approx(4.5e-5).epsilon(kRel));
  CHECK(l.plant_pipe.cells == 5);

  // data/heat-rejection/dry-cooler-1500kw.yaml.
  const HeatRejectionSpec& h = l.heat_rejection;
  CHECK(h.kind == HeatRejectionSpec::Kind::DryCooler);
  CHECK(h.type == "dry-cooler-1500kw");
  CHECK(h.units == 1);
  CHECK(h.Q_flow_nominal == Approx(1.5e6).epsilon(kRel));
  CHECK(h.V_flow_nominal == Approx(0.04).epsilon(kRel));  // 2400 L/min
  CHECK(h.approach_nominal == Approx(6.0).epsilon(kRel));
  CHECK(h.T_ambient_nominal == Approx(35.0 + kZeroC).epsilon(kRel));
  CHECK(h.fan_P_nominal == Approx(30.0e3).epsilon(kRel));
  CHECK(h.fan_speed_min == Approx(0.20).epsilon(kRel));
  CHECK(h.dp.power_law.dp_nominal == Approx(60.0e3).epsilon(kRel));
  CHECK(h.dp.power_law.V_flow_nominal == Approx(0.04).epsilon(kRel));
  CHECK(h.dp.power_law.exponent == Approx(1.8).epsilon(kRel));
  CHECK(h.volume == Approx(0.400).epsilon(kRel));

  // data/chillers/trim-chiller-500kw.yaml.
  const auto& c = l.chiller;
  REQUIRE(c.present);
  CHECK(c.type == "trim-chiller-500kw");
  CHECK(c.Q_flow_nominal == Approx(500.0e3).epsilon(kRel));
  CHECK(c.carnot_fraction == Approx(0.40).epsilon(kRel));
  CHECK(c.condenser_approach == Approx(12.0).epsilon(kRel));
  CHECK(c.COP_max == Approx(7.0).epsilon(kRel));
  CHECK(c.dp.power_law.dp_nominal == Approx(50.0e3).epsilon(kRel));
  CHECK(c.dp.power_law.V_flow_nominal == Approx(0.04).epsilon(kRel));
  CHECK(c.volume == Approx(0.150).epsilon(kRel));

  CHECK(site.ambient.T_dry_bulb == Approx(35.0 + kZeroC).epsilon(kRel));
  CHECK(site.ambient.T_wet_bulb == Approx(24.0 + kZeroC).epsilon(kRel));
  CHECK(site.ambient.time.empty());

  // data/cdus/inrack-250kw.yaml, facility_side: Cv 39 -> A_v = 39 x 2.4014e-5 m2.
  REQUIRE(site.cdus.size() == 1);
  const auto& cdu = site.cdus[0];
  CHECK(cdu.facility_valve.A_v == Approx(39.0 * kCv).epsilon(kRel));
  CHECK(cdu.facility_valve.A_v == Approx(9.36546e-4).epsilon(kRel));
  CHECK(cdu.facility_valve.characteristic == ControlValveSpec::Characteristic::EqualPercentage);
  CHECK(cdu.facility_valve.rangeability == Approx(50.0).epsilon(kRel));
  CHECK(cdu.facility_valve.leakage == Approx(1.0e-4).epsilon(kRel));  // 0.01 %
  CHECK(cdu.facility_valve.stroke_time == Approx(cdu.valve_stroke_time).epsilon(kRel));
  CHECK(cdu.facility_valve.stroke_time == Approx(30.0).epsilon(kRel));
  CHECK(cdu.hx_facility_dp.form == racktwin::core::PressureDropLaw::Form::PowerLaw);
  CHECK(cdu.hx_facility_dp.power_law.dp_nominal == Approx(40.0e3).epsilon(kRel));
  CHECK(cdu.hx_facility_dp.power_law.V_flow_nominal == Approx(0.006).epsilon(kRel));  // 360 L/min
  CHECK(cdu.hx_facility_dp.power_law.exponent == Approx(2.0).epsilon(kRel));
  CHECK(cdu.hx_facility_volume == Approx(0.005).epsilon(kRel));
}

TEST_CASE("units of a loop scenario convert to SI as hand arithmetic does", "[scenarios]") {
  const SiteSpec site = loadScenarioFromString(kTwoRows, "two-rows.yaml", sourcePath("data"));
  CHECK(site.facility.T_supply == Approx(30.0 + kZeroC).epsilon(kRel));  // 86 degF
  const auto& l = site.facility.loop;
  REQUIRE(l.present);
  CHECK(l.pump.dp_shutoff == Approx(3.0e5).epsilon(kRel));         // 3 bar
  CHECK(l.pump.V_flow_max == Approx(500.0 * kGpm).epsilon(kRel));  // 0.031545 m3/s
  CHECK(l.pump.V_flow_max == Approx(0.0315450982).epsilon(1e-9));
  CHECK(l.pump.speed == Approx(0.90).epsilon(kRel));
  CHECK(l.pump.efficiency == Approx(0.70).epsilon(kRel));
  CHECK(l.pump.volume == Approx(0.05).epsilon(kRel));
  CHECK(l.pumps_installed == 3);
  CHECK(l.pumps_duty == 2);
  CHECK(l.standby_switchover_time == Approx(15.0).epsilon(kRel));  // 0.25 min
  CHECK(l.dp_set == 0.0);  // no control: the pumps run at their fixed speed
  CHECK(l.plant_pipe.length == Approx(30.48).epsilon(kRel));  // 100 ft
  CHECK(l.plant_pipe.diameter == Approx(6.0 * kInch).epsilon(kRel));
  CHECK(l.plant_pipe.roughness == Approx(0.0018 * kInch).epsilon(kRel));
  CHECK(l.plant_pipe.cells == 4);
  CHECK(l.header_segment.length == Approx(2.0).epsilon(kRel));
  CHECK(l.header_segment.diameter == Approx(0.1541).epsilon(kRel));
  CHECK(l.header_segment.cells == 2);
  CHECK_FALSE(l.chiller.present);

  // data/heat-rejection/cooling-tower-1500kw.yaml, two cells.
  const HeatRejectionSpec& h = l.heat_rejection;
  CHECK(h.kind == HeatRejectionSpec::Kind::CoolingTower);
  CHECK(h.units == 2);
  CHECK(h.V_flow_nominal == Approx(3890.0 * kLpm).epsilon(kRel));
  CHECK(h.approach_nominal == Approx(5.6).epsilon(kRel));
  CHECK(h.T_ambient_nominal == Approx(23.9 + kZeroC).epsilon(kRel));
  CHECK(h.fan_P_nominal == Approx(20.0e3).epsilon(kRel));
  CHECK(h.dp.power_law.dp_nominal == Approx(50.0e3).epsilon(kRel));
  CHECK(h.volume == Approx(3.0).epsilon(kRel));
  CHECK(h.cycles_of_concentration == Approx(4.0).epsilon(kRel));
  CHECK(h.drift_fraction == Approx(5.0e-5).epsilon(kRel));  // 0.005 %

  CHECK(site.ambient.T_dry_bulb == Approx(fromF(95.0)).epsilon(kRel));  // 308.15 K
  CHECK(site.ambient.T_dry_bulb == Approx(35.0 + kZeroC).epsilon(kRel));
  CHECK(site.ambient.T_wet_bulb == Approx(fromF(75.0)).epsilon(kRel));  // 297.039 K

  // data/cdus/xdu1350.yaml, facility_side: Cv 99 -> A_v = 2.377386e-3 m2.
  REQUIRE(site.cdus.size() == 2);
  for (const auto& cdu : site.cdus) {
    CHECK(cdu.facility_valve.A_v == Approx(99.0 * kCv).epsilon(kRel));
    CHECK(cdu.facility_valve.A_v == Approx(2.377386e-3).epsilon(kRel));
    CHECK(cdu.facility_valve.stroke_time == Approx(60.0).epsilon(kRel));  // valve.stroke_time
    CHECK(cdu.hx_facility_dp.power_law.dp_nominal == Approx(75.0e3).epsilon(kRel));
    CHECK(cdu.hx_facility_dp.power_law.V_flow_nominal == Approx(1242.0 * kLpm).epsilon(kRel));
    CHECK(cdu.hx_facility_volume == Approx(0.040).epsilon(kRel));
  }
}

TEST_CASE("the CDU facility valves are sized for an authority of about 0.5", "[scenarios]") {
  // Valve authority = valve drop fully open / (valve + exchanger) at the nominal facility flow;
  // the data files size each valve so that its open drop equals the exchanger's (authority 0.5).
  // Open valve: dp = rho (V / A_v)^2 (IEC 60534, A_v form), water at 32 degC: 995.0 kg/m3
  // (IAPWS-95, as the xdu1350 data file quotes).
  const SiteSpec site = loadScenarioFromString(kTwoRows, "two-rows.yaml", sourcePath("data"));
  const SiteSpec rack = loadScenario(sourcePath("scenarios/facility-loop-rack.yaml"));
  for (const auto* cdu : {&site.cdus[0], &rack.cdus[0]}) {
    INFO("CDU type " << cdu->type);
    const double V = cdu->facility_V_flow_nominal;
    const double dp_valve = 995.0 * std::pow(V / cdu->facility_valve.A_v, 2.0);
    const auto& law = cdu->hx_facility_dp.power_law;
    const double dp_hx = law.dp_nominal * std::pow(V / law.V_flow_nominal, law.exponent);
    const double authority = dp_valve / (dp_valve + dp_hx);
    CHECK(authority == Approx(0.5).margin(0.01));  // Cv rounded to a whole number
  }
}

TEST_CASE("the sample weather file is the ASHRAE design day it states", "[scenarios]") {
  // data/weather/hot-day-sample.csv: T(h) = T_design - f(h) x range with 35 degC / 11 K dry bulb
  // and 24 degC / 4 K wet bulb, hours 0 (= 24) to 24, rounded to 0.01 K in the file.
  const std::string scenario_path = sourcePath("scenarios/facility-loop-rack.yaml");
  const SiteSpec site = loadScenarioFromString(
      withAmbient("ambient: {weather: ../data/weather/hot-day-sample.csv}\n"), scenario_path, "");
  const auto& a = site.ambient;
  REQUIRE(a.time.size() == 25);
  REQUIRE(a.T_dry_bulb_series.size() == 25);
  REQUIRE(a.T_wet_bulb_series.size() == 25);
  CHECK(fs::path(a.weather_path)
        == fs::path(sourcePath("data/weather/hot-day-sample.csv")).lexically_normal());
  for (int h = 0; h <= 24; ++h) {
    INFO("hour " << h);
    const double f = kAshraeFraction[(h + 23) % 24];  // hour 0 is hour 24
    const auto i = static_cast<std::size_t>(h);
    CHECK(a.time[i] == Approx(3600.0 * h).margin(1e-9));
    CHECK(a.T_dry_bulb_series[i] == Approx(35.0 - f * 11.0 + kZeroC).margin(0.0051));
    CHECK(a.T_wet_bulb_series[i] == Approx(24.0 - f * 4.0 + kZeroC).margin(0.0051));
    CHECK(a.T_wet_bulb_series[i] <= a.T_dry_bulb_series[i]);
  }
  // The peak at hours 14 and 15 and the low at hour 5, as the profile has them.
  CHECK(a.T_dry_bulb_series[14] == Approx(35.0 + kZeroC).margin(1e-9));
  CHECK(a.T_dry_bulb_series[5] == Approx(24.0 + kZeroC).margin(1e-9));
  CHECK(a.T_dry_bulb == a.T_dry_bulb_series.front());

  // weather_start: simulation time 0 is 14:00 in the file.
  const SiteSpec shifted = loadScenarioFromString(
      withAmbient("ambient: {weather: ../data/weather/hot-day-sample.csv, weather_start: 14 h}\n"),
      scenario_path, "");
  REQUIRE(shifted.ambient.time.size() == 25);
  CHECK(shifted.ambient.time[0] == Approx(-14.0 * 3600.0).margin(1e-9));
  CHECK(shifted.ambient.time[14] == Approx(0.0).margin(1e-9));
}

TEST_CASE("weather files: units, column order, comments, CRLF and a byte-order mark",
          "[scenarios]") {
  Scratch dir;
  dir.write("weather/w.csv",
            "\xEF\xBB\xBF# a test file\r\n"
            "\r\n"
            "wet_bulb_K, time_min ,dry_bulb_degF  # columns in any order\r\n"
            "290,0,86\r\n"
            "  # a comment line between rows\r\n"
            "291.5 , 30, 95\r\n"
            "295,90.5,104");  // no line end at the end of the file
  const std::string path =
      dir.write("site.yaml",
                scratchScenario("ambient:\n  weather: weather/w.csv\n  weather_start: 10 min\n"));
  const SiteSpec site = loadScenario(path);
  const auto& a = site.ambient;
  REQUIRE(a.time.size() == 3);
  CHECK(a.time[0] == Approx(-600.0).margin(1e-9));  // 0 min - 10 min
  CHECK(a.time[1] == Approx(1200.0).epsilon(kRel));
  CHECK(a.time[2] == Approx(90.5 * 60.0 - 600.0).epsilon(kRel));
  CHECK(a.T_dry_bulb_series[0] == Approx(30.0 + kZeroC).epsilon(kRel));  // 86 degF
  CHECK(a.T_dry_bulb_series[1] == Approx(35.0 + kZeroC).epsilon(kRel));  // 95 degF
  CHECK(a.T_dry_bulb_series[2] == Approx(40.0 + kZeroC).epsilon(kRel));  // 104 degF
  CHECK(a.T_wet_bulb_series[0] == Approx(290.0).epsilon(kRel));
  CHECK(a.T_wet_bulb_series[1] == Approx(291.5).epsilon(kRel));
  CHECK(a.T_wet_bulb_series[2] == Approx(295.0).epsilon(kRel));
  CHECK(a.T_dry_bulb == Approx(30.0 + kZeroC).epsilon(kRel));
  CHECK(a.T_wet_bulb == Approx(290.0).epsilon(kRel));
}

TEST_CASE("bad weather files give the file, line, column and column name", "[scenarios]") {
  Scratch dir;
  const std::string scenario =
      dir.write("site.yaml", scratchScenario("ambient: {weather: w.csv}\n"));
  const auto check = [&](const std::string& csv, const Located& where) {
    const std::string file = dir.write("w.csv", csv);
    INFO("weather file:\n" << csv);
    Located x = where;
    x.file = file;
    requireInputError([&] { (void)loadScenario(scenario); }, x);
  };
  const std::string head = "# hot day\ntime_h,dry_bulb_degC,wet_bulb_degC\n";  // lines 1 and 2
  // Time not increasing (line 5 repeats hour 1).
  check(head + "0,30,20\n1,31,21\n1,32,22\n",
        {"", 5, "time_h", {"times must increase strictly"}, 1});
  check(head + "0,30,20\n2,31,21\n1.5,32,22\n",
        {"", 5, "time_h", {"times must increase strictly"}, 1});
  // Wet bulb above the dry bulb of its row.
  check(head + "0,30,20\n1,25,25.5\n",
        {"", 4, "wet_bulb_degC", {"the wet bulb (25.5 degC) is above the dry bulb (25 degC)"}, 6});
  // A value that is not a number, a missing value, a value too many.
  check(head + "0,30,20\n1,warm,21\n",
        {"", 4, "dry_bulb_degC", {"expected a number, got a field of 4 characters"}, 3});
  check(head + "0,30,20\n1, ,21\n",
        {"", 4, "dry_bulb_degC", {"expected a number, got an empty field"}, 4});
  check(head + "0,30\n",
        {"", 3, "wet_bulb_degC", {"missing value", "expected 3 values per row", "got 2"}});
  check(head + "0,30,20,7\n", {"", 3, "column 4", {"a value beyond the last header column"}, 9});
  // Kelvin in a Celsius column.
  check(
      head + "0,303.15,293.15\n",
      {"", 3, "dry_bulb_degC", {"outside the range of outdoor air", "check the column's unit"}, 3});
  // Header problems.
  check("time_h,dry_bulb_degC,humidity_pct\n0,30,40\n",
        {"", 1, "", {"unknown column (a field of 12 characters)", "wet_bulb_degC"}, 22});
  check("time_h,dry_bulb_degC\n0,30\n",
        {"", 1, "", {"no wet-bulb column", "wet_bulb_K, wet_bulb_degC or wet_bulb_degF"}});
  check("time_h,dry_bulb_degC,wet_bulb_degC,dry_bulb_K\n0,30,20,300\n",
        {"", 1, "dry_bulb_K", {"a second dry-bulb column (column 'dry_bulb_degC' came first)"}});
  check(head, {"", 2, "", {"no data rows after the header row"}});
  check("# only comments\n\n", {"", 0, "", {"no header row"}});
}

TEST_CASE("a weather file that does not exist is reported at the scenario key", "[scenarios]") {
  Scratch dir;
  const std::string text = scratchScenario("ambient:\n  weather: missing/w.csv\n");
  const std::string scenario = dir.write("site.yaml", text);
  const std::string looked_for = (dir.root() / "missing/w.csv").lexically_normal().string();
  requireInputError([&] { (void)loadScenario(scenario); },
                    {scenario,
                     lineOf(text, "weather: missing"),
                     "ambient.weather",
                     {"no weather file '" + looked_for + "'", "scenario file's folder"}});
}

TEST_CASE("the CDU facility side is optional without a loop, required with one", "[scenarios]") {
  const std::string cdu_file = "cdus/inrack-250kw.yaml";
  const std::string side_start = "\n# Facility (primary) side";
  const std::string original = readText(sourcePath("data/" + cdu_file));
  const std::size_t at = original.find(side_start);
  REQUIRE(at != std::string::npos);
  const DataCopy data(cdu_file, original.substr(at), "\n");
  REQUIRE(data.text().find("facility_side") == std::string::npos);

  // The default scenario (no loop) does not need it.
  const std::string plain = readText(sourcePath("scenarios/nvl72-rack.yaml"));
  const std::string no_data_dir = replaced(plain, "data_dir: ../data\n", "");
  CHECK(data.load(no_data_dir).cdus.at(0).facility_valve.A_v == 0.0);

  // A loop scenario does, and names the CDU type's data file.
  const std::string text = replaced(readText(sourcePath("scenarios/facility-loop-rack.yaml")),
                                    "data_dir: ../data\n", "");
  requireInputError(
      [&] { (void)data.load(text); },
      {"facility.yaml",
       lineOf(text, "type: inrack-250kw"),
       "cdus[0].type",
       {"CDU type 'inrack-250kw' has no facility_side in its data file " + data.file(),
        "needs each CDU's facility-side valve and exchanger pressure drop"}});
}

TEST_CASE("data-file errors of the facility side, heat rejection and chiller are located",
          "[scenarios]") {
  const std::string text = replaced(readText(sourcePath("scenarios/facility-loop-rack.yaml")),
                                    "data_dir: ../data\n", "");
  struct Case {
    std::string file, from, to, marker, key;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {"cdus/inrack-250kw.yaml",
       "characteristic: equal_percentage",
       "characteristic: quick_opening",
       "quick_opening",
       "facility_side.valve.characteristic",
       {"expected 'equal_percentage' or 'linear', got 'quick_opening'"}},
      {"cdus/inrack-250kw.yaml",
       "characteristic: equal_percentage",
       "characteristic: linear",
       "rangeability",
       "facility_side.valve.rangeability",
       {"not used by a linear characteristic"}},
      {"cdus/inrack-250kw.yaml",
       "rangeability: 50",
       "rangeability: 1",
       "rangeability",
       "facility_side.valve.rangeability",
       {"must be above 1"}},
      {"cdus/inrack-250kw.yaml",
       "flow_coefficient_Cv: 39",
       "flow_coefficient_Cv: 39 gpm",
       "flow_coefficient_Cv",
       "facility_side.valve.flow_coefficient_Cv",
       {"expected a plain number"}},
      {"cdus/inrack-250kw.yaml",
       "leakage: 0.01 %",
       "leakage: 100 %",
       "leakage:",
       "facility_side.valve.leakage",
       {"must be below 100 %"}},
      {"cdus/inrack-250kw.yaml",
       "  volume: 5 L",
       "  volume: 5 kPa",
       "  volume: 5 kPa",
       "facility_side.volume",
       {"expected a volume"}},
      {"heat-rejection/dry-cooler-1500kw.yaml",
       "kind: dry_cooler",
       "kind: chiller",
       "kind: chiller",
       "kind",
       {"expected kind 'dry_cooler' or 'cooling_tower' (this file is read as a heat-rejection "
        "type), got 'chiller'"}},
      {"heat-rejection/dry-cooler-1500kw.yaml",
       "volume: 400 L",
       "volume: 400 L\ndrift: 1 %",
       "drift:",
       "drift",
       {"not used by kind dry_cooler"}},
      {"heat-rejection/dry-cooler-1500kw.yaml",
       "design_ambient: 35 degC",
       "design_ambient: 308 degC",
       "design_ambient",
       "design_ambient",
       {"must be an outdoor air temperature"}},
      {"heat-rejection/dry-cooler-1500kw.yaml",
       "minimum_fan_speed: 20 %",
       "minimum_fan_speed: 100 %",
       "minimum_fan_speed",
       "minimum_fan_speed",
       {"must be below 100 %"}},
      {"chillers/trim-chiller-500kw.yaml",
       "carnot_fraction: 0.40",
       "carnot_fraction: 1.4",
       "carnot_fraction",
       "carnot_fraction",
       {"must be a fraction"}},
      {"chillers/trim-chiller-500kw.yaml",
       "max_cop: 7",
       "max_cop: -7",
       "max_cop",
       "max_cop",
       {"must be > 0"}},
  };
  for (const Case& c : cases) {
    const DataCopy data(c.file, c.from, c.to);
    INFO(c.file << ": " << c.to);
    const int line = lineOf(data.text(), c.marker);
    REQUIRE(line > 0);
    requireInputError([&] { (void)data.load(text); }, {data.file(), line, c.key, c.parts});
  }
}

using racktwin::test::ChannelTap;

TEST_CASE("the facility-loop scenario runs: W32 held by the trim chiller at 35 degC",
          "[scenarios]") {
  std::string text = readText(sourcePath("scenarios/facility-loop-rack.yaml"));
  text = replaced(text, "duration: 3600 s\n  step", "duration: 900 s\n  step");
  text = replaced(text, "    duration: 3600 s\n", "");
  SiteSpec site = loadScenarioFromString(text, sourcePath("scenarios/facility-loop-rack.yaml"), "");
  racktwin::scenarios::Twin twin(std::move(site));
  ChannelTap tap({"facility/T_supply", "facility/V_flow", "facility/dp_remote",
                  "facility/Q_flow_chiller", "ambient/T_dry_bulb", "ambient/T_wet_bulb"});
  twin.addSink(tap);
  twin.initialize();
  while (twin.step()) {
  }
  const auto summary = twin.finish(true);
  REQUIRE(tap.has("facility/T_supply"));
  const double t = 900.0;
  // The ambient is the scenario's.
  CHECK(tap.at("ambient/T_dry_bulb", t) == Approx(35.0 + kZeroC).epsilon(kRel));
  CHECK(tap.at("ambient/T_wet_bulb", t) == Approx(24.0 + kZeroC).epsilon(kRel));
  // The plant holds its 32 degC set-point and the pump PI its 100 kPa.
  CHECK(tap.at("facility/T_supply", t) == Approx(32.0 + kZeroC).margin(0.2));
  CHECK(tap.at("facility/dp_remote", t) == Approx(100.0e3).epsilon(0.02));
  // A dry cooler cannot cool water below the air (second law): the chiller removes at least
  // rho cp V (T_dry_bulb - T_set) = rho cp V x 3 K (water at 32 degC: 995 kg/m3, 4180 J/(kg K)).
  const double V = tap.at("facility/V_flow", t);
  REQUIRE(V > 0.0);
  CHECK(tap.at("facility/Q_flow_chiller", t) >= 0.99 * 995.0 * 4180.0 * V * 3.0);
  CHECK(summary.value("energy_balance_relative_error").value_or(1.0) < 1e-9);
}

TEST_CASE("a weather file drives the recorded ambient", "[scenarios]") {
  // weather_start 8 h: t = 0 is hour 8 (26.86 degC), t = 1800 s half way to hour 9 (28.95 degC).
  std::string text =
      withAmbient("ambient: {weather: ../data/weather/hot-day-sample.csv, weather_start: 8 h}\n");
  text = replaced(text, "duration: 3600 s\n  step", "duration: 1800 s\n  step");
  text = replaced(text, "    duration: 3600 s\n", "");
  SiteSpec site = loadScenarioFromString(text, sourcePath("scenarios/facility-loop-rack.yaml"), "");
  racktwin::scenarios::Twin twin(std::move(site));
  ChannelTap tap({"ambient/T_dry_bulb", "ambient/T_wet_bulb"});
  twin.addSink(tap);
  twin.initialize();
  while (twin.step()) {
  }
  (void)twin.finish(true);
  CHECK(tap.at("ambient/T_dry_bulb", 1800.0)
        == Approx(0.5 * (26.86 + 28.95) + kZeroC).epsilon(1e-9));
  CHECK(tap.at("ambient/T_wet_bulb", 1800.0)
        == Approx(0.5 * (21.04 + 21.80) + kZeroC).epsilon(1e-9));
}

TEST_CASE("the cooling-tower scenario evaporates the rejected heat and reports WUE",
          "[scenarios]") {
  // First law at the tower: every joule it rejects leaves as latent heat of evaporation (the
  // tower model's simplification), h_fg = 2429.8 kJ/kg at 30 degC (IAPWS); drift and blow-down
  // add at most 1/(cycles - 1) of that plus the drift fraction of the circulating flow.
  std::string text = readText(sourcePath("scenarios/cooling-tower-rack.yaml"));
  text = replaced(text, "duration: 3600 s\n  step", "duration: 900 s\n  step");
  text = replaced(text, "    duration: 3600 s\n", "");
  SiteSpec site = loadScenarioFromString(text, sourcePath("scenarios/cooling-tower-rack.yaml"), "");
  const double cycles = site.facility.loop.heat_rejection.cycles_of_concentration;
  racktwin::scenarios::Twin twin(std::move(site));
  twin.initialize();
  while (twin.step()) {
  }
  const auto summary = twin.finish(true);
  const double rejected = summary.value("heat_rejected_outdoors_J").value();
  const double evaporated_m3 = rejected / 2429.8e3 / 995.7;  // water at 30 degC, kg/m3
  const double water = summary.value("water_use_m3").value();
  CHECK(water >= evaporated_m3 * (1.0 - 1e-3));
  CHECK(water <= evaporated_m3 * (1.0 + 1.0 / (cycles - 1.0)) * 1.05);
  CHECK(summary.value("wue_L_per_kWh").value() > 0.0);
  CHECK(summary.value("energy_balance_relative_error").value() < 1e-9);
}
