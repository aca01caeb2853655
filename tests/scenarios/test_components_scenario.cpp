// Coolant components in data files and scenarios: quick disconnects by flow coefficient, tabulated
// pressure drops with their checks, the CDU strainer, N+1 pumps and the ride-through of a pump trip
// in the default scenario.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

namespace {

namespace fs = std::filesystem;
using racktwin::core::InputError;
using racktwin::core::SiteSpec;
using racktwin::scenarios::loadScenarioFromString;
using racktwin::test::lineOf;
using racktwin::test::readText;
using racktwin::test::replaced;
using racktwin::test::sourcePath;

constexpr double kLpm = 1.0e-3 / 60.0;
constexpr double kGpm = 3.785411784e-3 / 60.0;  // exact US gallon
constexpr double kPsi = 6894.757293168;         // Pa (NIST SP 811)

const std::string kScenario = R"(racktwin_scenario: 1
name: "components"
simulation: {duration: 60 s}
coolant: PG25
facility_water: {supply_temperature: 32 degC}
cdus:
  - {id: row1/cdu1, type: inrack-250kw, supply_temperature_setpoint: 36 degC}
racks:
  - {id: row1/rack01, type: gb300-nvl72, cdu: row1/cdu1}
)";

/// A copy of data/ in a scratch folder, with one file's text replaced.
class DataCopy {
 public:
  DataCopy(const std::string& relative, const std::string& from, const std::string& to) {
    static int counter = 0;
    root_ = fs::temp_directory_path()
            / ("racktwin-components-" + std::to_string(getpid()) + "-" + std::to_string(++counter));
    fs::remove_all(root_);
    fs::copy(sourcePath("data"), root_, fs::copy_options::recursive);
    file_ = (root_ / relative).string();
    text_ = replaced(readText(file_), from, to);
    std::ofstream(file_, std::ios::binary | std::ios::trunc) << text_;
  }
  ~DataCopy() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  SiteSpec load(const std::string& scenario = kScenario) const {
    return loadScenarioFromString(scenario, "components.yaml", root_.string());
  }
  const std::string& file() const { return file_; }
  const std::string& text() const { return text_; }

 private:
  fs::path root_;
  std::string file_, text_;
};

const std::string kQd = R"(quick_disconnect:
  pressure_drop:
    nominal: 15 kPa  # [E] x
    at_flow: 10 L/min  # [E] x
    exponent: 2  # [E] x
)";
const std::string kHx = R"(  secondary_pressure_drop:
    nominal: 50 kPa  # [E] x
    at_flow: 375 L/min  # [E] x
    exponent: 2  # [E] x
)";

/// The rack file with its QD block replaced (matched by the start of its first lines).
DataCopy rackWithQd(const std::string& block) {
  const std::string rack = readText(sourcePath("data/racks/gb300-nvl72.yaml"));
  const std::size_t at = rack.find("quick_disconnect:\n");
  const std::size_t end = rack.find("\n\n", at);
  return DataCopy("racks/gb300-nvl72.yaml", rack.substr(at, end - at + 1), block);
}

DataCopy cduWithHx(const std::string& block) {
  const std::string cdu = readText(sourcePath("data/cdus/inrack-250kw.yaml"));
  const std::size_t at = cdu.find("  secondary_pressure_drop:\n");
  const std::size_t end = cdu.find("  secondary_volume:", at);
  return DataCopy("cdus/inrack-250kw.yaml", cdu.substr(at, end - at), block);
}

void requireDataError(const DataCopy& data, const std::string& marker, const std::string& key,
                      const std::string& part) {
  INFO(data.text());
  try {
    (void)data.load();
  } catch (const InputError& e) {
    INFO("what(): " << e.what());
    CHECK(e.where().file == data.file());
    CHECK(e.where().line == lineOf(data.text(), marker));
    CHECK(e.key() == key);
    CHECK_THAT(e.message(), Catch::Contains(part));
    return;
  }
  FAIL("no InputError was thrown");
}

}  // namespace

TEST_CASE("a QD by flow coefficient becomes the Cv power law for the loop's coolant",
          "[scenarios]") {
  const DataCopy data = rackWithQd("quick_disconnect:\n  flow_coefficient_Cv: 1.9  # [E] test\n");
  const SiteSpec site = data.load();
  const auto& qd = site.racks[0].type.quick_disconnect;
  // ISA-75.01: dp = SG (Q / Cv)^2 psi. SG = PG25 at the 36 degC set-point over 999 kg/m3 (water
  // at 60 degF): 1011.98 kg/m3, interpolated from 1012.5 (35 degC) and 1009.9 (40 degC) in the
  // Melinder 2010 table of gb300_nvl72.md §3.
  const double SG = 1011.98 / 999.0;
  CHECK(qd.dp_nominal == Approx(SG * kPsi).epsilon(2e-4));
  CHECK(qd.V_flow_nominal == Approx(1.9 * kGpm).epsilon(1e-12));
  CHECK(qd.exponent == 2.0);
  CHECK(site.racks[0].type.quick_disconnect_Cv == 1.9);
}

TEST_CASE("a QD takes a power law or a flow coefficient, exactly one", "[scenarios]") {
  const std::string both = kQd + "  flow_coefficient_Cv: 1.9  # [E] test\n";
  requireDataError(rackWithQd(both), "flow_coefficient_Cv", "quick_disconnect.flow_coefficient_Cv",
                   "exactly one");
  requireDataError(rackWithQd("quick_disconnect:\n  flow_coefficient_Cv: -1  # [E] test\n"),
                   "flow_coefficient_Cv", "quick_disconnect.flow_coefficient_Cv", "> 0");
}

TEST_CASE("a pressure-drop table in a data file arrives in SI", "[scenarios]") {
  const DataCopy data = cduWithHx(
      "  secondary_pressure_drop_table:  # [E] test\n"
      "    flow: [100 L/min, 200 L/min, 400 L/min]  # [E] test\n"
      "    dp: [5 kPa, 15 kPa, 0.5 bar]  # [E] test\n");
  const SiteSpec site = data.load();
  const auto& hx = site.cdus[0].hx_secondary_dp;
  REQUIRE(hx.form == racktwin::core::PressureDropLaw::Form::Table);
  REQUIRE(hx.table.V_flow.size() == 3);
  CHECK(hx.table.V_flow[2] == Approx(400.0 * kLpm).epsilon(1e-12));
  CHECK(hx.table.dp[2] == Approx(50e3).epsilon(1e-12));
}

TEST_CASE("pressure-drop tables are checked with file and line", "[scenarios]") {
  const std::string head = "  secondary_pressure_drop_table:  # [E] t\n";
  requireDataError(cduWithHx(head
                             + "    flow: [100 L/min, 90 L/min]  # [E] t\n"
                               "    dp: [5 kPa, 15 kPa]  # [E] t\n"),
                   "    flow: [", "heat_exchanger.secondary_pressure_drop_table.flow[1]",
                   "flows must increase strictly");
  requireDataError(cduWithHx(head
                             + "    flow: [100 L/min, 200 L/min]  # [E] t\n"
                               "    dp: [15 kPa, 5 kPa]  # [E] t\n"),
                   "    dp: [", "heat_exchanger.secondary_pressure_drop_table.dp[1]",
                   "must increase strictly");
  requireDataError(cduWithHx(head
                             + "    flow: [100 L/min]  # [E] t\n"
                               "    dp: [5 kPa]  # [E] t\n"),
                   "    flow: [", "heat_exchanger.secondary_pressure_drop_table.flow",
                   "at least two points");
  requireDataError(cduWithHx(head
                             + "    flow: [100 L/min, 200 L/min]  # [E] t\n"
                               "    dp: [-5 kPa, 15 kPa]  # [E] t\n"),
                   "    dp: [", "heat_exchanger.secondary_pressure_drop_table.dp[0]", "> 0");
  requireDataError(cduWithHx(head
                             + "    flow: [100 L/min, 200 L/min]  # [E] t\n"
                               "    dp: [5 kPa]  # [E] t\n"),
                   "    dp: [", "heat_exchanger.secondary_pressure_drop_table.dp", "one per flow");
  requireDataError(cduWithHx(kHx + head
                             + "    flow: [100 L/min, 200 L/min]  # [E] t\n"
                               "    dp: [5 kPa, 15 kPa]  # [E] t\n"),
                   "    flow: [",  // a block map's value starts at its first key
                   "heat_exchanger.secondary_pressure_drop_table", "not both");
}

TEST_CASE("the XDU1350 strainer as its own law sums to the lumped law within 1 %", "[scenarios]") {
  // gb300_nvl72.md §2b: exchanger 84 kPa (exponent 2 here) and strainer 65 kPa at nominal flow,
  // exponent 1.76; the former single law was 149 kPa with exponent 1.90 over 50-120 % flow.
  const SiteSpec site = loadScenarioFromString(
      replaced(kScenario, "type: inrack-250kw", "type: xdu1350"), "x.yaml", sourcePath("data"));
  const auto& c = site.cdus[0];
  for (double x = 0.5; x <= 1.2001; x += 0.05) {
    const auto& hx = c.hx_secondary_dp.power_law;
    const auto& st = c.strainer_dp.power_law;
    const double sum =
        hx.dp_nominal * std::pow(x, hx.exponent) + st.dp_nominal * std::pow(x, st.exponent);
    INFO("flow fraction " << x);
    CHECK(sum == Approx(149e3 * std::pow(x, 1.9)).epsilon(0.01));
  }
}

TEST_CASE("pump counts: duty within installed, standby needs its switch-over time", "[scenarios]") {
  const std::string cdu = readText(sourcePath("data/cdus/inrack-250kw.yaml"));
  const std::size_t at = cdu.find("  installed: 2");
  const std::size_t end = cdu.find("\n\n", at);
  const std::string block = cdu.substr(at, end - at + 1);
  requireDataError(DataCopy("cdus/inrack-250kw.yaml", block,
                            "  installed: 2  # [E] t\n  duty: 3  # [E] t\n"
                            "  standby_switchover_time: 5 s  # [E] t\n"),
                   "duty: 3", "pump.duty", "must not exceed");
  requireDataError(
      DataCopy("cdus/inrack-250kw.yaml", block, "  installed: 2  # [E] t\n  duty: 1  # [E] t\n"),
      "pump:", "pump.standby_switchover_time", "required key is missing");
  // A scenario may remove the standby, not go below the duty pumps.
  const SiteSpec one =
      loadScenarioFromString(replaced(kScenario, "supply_temperature_setpoint: 36 degC",
                                      "supply_temperature_setpoint: 36 degC, pumps_installed: 1"),
                             "one.yaml", sourcePath("data"));
  CHECK(one.cdus[0].pumps_installed == 1);
  CHECK_THROWS_AS(loadScenarioFromString(replaced(kScenario, "supply_temperature_setpoint: 36 degC",
                                                  "supply_temperature_setpoint: 36 degC, "
                                                  "pumps_installed: 0"),
                                         "zero.yaml", sourcePath("data")),
                  InputError);
}

namespace {

struct TripRun {
  double flow_before = 0.0, flow_during_max = 0.0, flow_after = 0.0, throttled_s = 0.0;
};

// The default scenario, cut to 15 minutes, with a pump trip at 300 s.
TripRun defaultWithTrip(const std::string& cdu_extra) {
  std::string text = readText(sourcePath("scenarios/nvl72-rack.yaml"));
  text = replaced(text, "duration: 3600 s\n  step", "duration: 900 s\n  step");
  text = replaced(text, "    duration: 3600 s\n", "");
  text = replaced(text, "supply_temperature_setpoint: 36 degC",
                  cdu_extra + "supply_temperature_setpoint: 36 degC");
  text += "events:\n  - {at: 300 s, action: pump_trip, target: row1/cdu1}\n";
  SiteSpec site = loadScenarioFromString(text, sourcePath("scenarios/nvl72-rack.yaml"), "");
  racktwin::scenarios::Twin twin(std::move(site));
  twin.initialize();
  TripRun r;
  while (twin.step()) {
    const double t = twin.time();
    const double V = twin.cooling().cduSecondaryFlow(0);
    if (t == 300.0) r.flow_before = V;  // the step from 299 s to 300 s, before the trip
    if (t > 300.0 && t <= 305.0) r.flow_during_max = std::max(r.flow_during_max, std::abs(V));
    if (t > 306.0) r.flow_after = V;
  }
  const auto summary = twin.finish(true);
  r.throttled_s = summary.value("throttled_gpu_seconds").value_or(-1.0);
  return r;
}

}  // namespace

TEST_CASE("the default rack rides through a pump trip on its standby pump", "[scenarios]") {
  // inrack-250kw: N+1 pumps (gb300_nvl72.md §2a) and a 5 s switch-over: 5 s without flow, then
  // the pre-trip flow, and no GPU reaches its slowdown temperature.
  const TripRun r = defaultWithTrip("");
  REQUIRE(r.flow_before > 0.0);
  CHECK(r.flow_during_max < 1e-9);
  CHECK(r.flow_after == Approx(r.flow_before).epsilon(1e-3));  // viscosity may move it slightly
  CHECK(r.throttled_s == 0.0);
}

TEST_CASE("without a standby the default rack's flow stays stopped and GPUs throttle",
          "[scenarios]") {
  const TripRun r = defaultWithTrip("pumps_installed: 1\n    ");
  REQUIRE(r.flow_before > 0.0);
  CHECK(r.flow_during_max < 1e-9);
  CHECK(std::abs(r.flow_after) < 1e-9);
  CHECK(r.throttled_s > 0.0);
}

namespace {
// The OCP plate rewritten in the power-law form a CFD curve uses.
const std::string kOcpResistance = R"(thermal_resistance:
  constant: 0.0161661 K/W  # [C] least-squares fit R = a + b/V to the OCP OAI PG25 curve (Chen et al. 2023), within -4.5 %/+1.4 % (gb300_nvl72.md §2b)
  flow_coefficient_K_m3_per_W_s: 1.398728e-7  # [C] same fit, b in K/W x m3/s (V_flow in m3/s) (gb300_nvl72.md §2b))";

const std::string kScenarioCfdPlate =
    replaced(kScenario, "cdu: row1/cdu1}", "cdu: row1/cdu1, gpu_cold_plate: ocp-power-law}");
}  // namespace

TEST_CASE("a cold plate in the power-law form R = a + b (V/V_ref)^-n, named by a rack",
          "[scenarios]") {
  // R(V) = 0.012 + 0.010 (V / 1 L/min)^-0.8 K/W, the form racktwin cfd coldplate writes.
  const DataCopy data("cold-plates/ocp-oai-1kw-pg25.yaml", kOcpResistance,
                      "thermal_resistance: {constant: 0.012 K/W, flow_term: 0.010 K/W, "
                      "reference_flow: 1 L/min, flow_exponent: 0.8}\ncfd: {program: test}");
  // The rewritten plate under its own name; the OCP plate itself back as shipped.
  fs::copy_file(data.file(), fs::path(data.file()).parent_path() / "ocp-power-law.yaml");
  std::ofstream(data.file(), std::ios::binary | std::ios::trunc)
      << readText(sourcePath("data/cold-plates/ocp-oai-1kw-pg25.yaml"));
  const SiteSpec site = data.load(kScenarioCfdPlate);
  const auto& plate = site.racks.at(0).type.gpu.cold_plate;
  CHECK(plate.type == "ocp-power-law");
  CHECK(plate.resistance(1.0 * kLpm) == Approx(0.022).epsilon(1e-12));
  CHECK(plate.resistance(2.0 * kLpm) == Approx(0.012 + 0.010 * std::pow(2.0, -0.8)).epsilon(1e-12));
  // Below the minimum flow (0.2 L/min in the file) the resistance stays finite and flat.
  CHECK(plate.resistance(0.0) == Approx(plate.resistance(0.2 * kLpm)).epsilon(1e-12));
  // The CPU plates keep the rack type's OCP curve: R = a + b / V.
  const auto& cpu = site.racks.at(0).type.cpu.cold_plate;
  CHECK(cpu.resistance(1.0 * kLpm) == Approx(0.0161661 + 1.398728e-7 / kLpm).epsilon(1e-9));
}

TEST_CASE("a cold plate takes one resistance form and a positive exponent", "[scenarios]") {
  SECTION("both forms at once") {
    const DataCopy data("cold-plates/ocp-oai-1kw-pg25.yaml", kOcpResistance,
                        "thermal_resistance: {constant: 0.012 K/W, flow_term: 0.010 K/W, "
                        "flow_coefficient_K_m3_per_W_s: 1e-7}");
    CHECK_THROWS_WITH(data.load(), Catch::Contains("thermal_resistance.flow_term")
                                       && Catch::Contains("ocp-oai-1kw-pg25.yaml"));
  }
  SECTION("a negative exponent") {
    const DataCopy data("cold-plates/ocp-oai-1kw-pg25.yaml", kOcpResistance,
                        "thermal_resistance: {constant: 0.012 K/W, flow_term: 0.010 K/W, "
                        "reference_flow: 1 L/min, flow_exponent: -0.8}");
    CHECK_THROWS_WITH(data.load(), Catch::Contains("thermal_resistance.flow_exponent"));
  }
  SECTION("provenance that is not a map") {
    const DataCopy data("cold-plates/ocp-oai-1kw-pg25.yaml", kOcpResistance,
                        kOcpResistance + "\ncfd: 3");
    CHECK_THROWS_WITH(data.load(), Catch::Contains("cfd") && Catch::Contains("expected a map"));
  }
}

namespace {
/// The number before the unit on the line of `key` in a data file's text ("  constant: 0.012 K/W").
double numberAfter(const std::string& text, const std::string& key) {
  const std::size_t at = text.find("  " + key + ": ");
  if (at == std::string::npos) return std::nan("");
  return std::stod(text.substr(at + key.size() + 4));
}
}  // namespace

TEST_CASE("scenarios/coldplate-cfd.yaml gives the GPUs the CFD curve and closes its balance",
          "[scenarios]") {
  const std::string curve_text = readText(sourcePath("data/cold-plates/cfd-microchannel-1kw.yaml"));
  const double a = numberAfter(curve_text, "constant");
  const double b = numberAfter(curve_text, "flow_term");
  const double n = numberAfter(curve_text, "flow_exponent");
  REQUIRE(std::isfinite(a + b + n));

  std::string text = readText(sourcePath("scenarios/coldplate-cfd.yaml"));
  text = replaced(text, "duration: 3600 s\n  step", "duration: 600 s\n  step");
  text = replaced(text, "    duration: 3600 s\n", "");
  SiteSpec site = loadScenarioFromString(text, sourcePath("scenarios/coldplate-cfd.yaml"), "");
  const auto& rack = site.racks.at(0).type;
  CHECK(rack.gpu.cold_plate.type == "cfd-microchannel-1kw");
  CHECK(rack.cpu.cold_plate.type == "ocp-oai-1kw-pg25");
  // The curve file's own fit, R = a + b (V / 1 L/min)^-n, at 1 and 2 L/min.
  CHECK(rack.gpu.cold_plate.resistance(kLpm) == Approx(a + b).epsilon(1e-9));
  CHECK(rack.gpu.cold_plate.resistance(2.0 * kLpm)
        == Approx(a + b * std::pow(2.0, -n)).epsilon(1e-9));

  racktwin::scenarios::Twin twin(std::move(site));
  twin.initialize();
  while (twin.step()) {
  }
  const auto summary = twin.finish(true);
  CHECK(summary.value("energy_balance_relative_error").value_or(1.0) < 1e-9);
  // A 1 kW plate at ~0.02 K/W on 36 degC water: junctions stay well below the 87 degC slowdown.
  CHECK(summary.value("max_gpu_temperature_K").value_or(1e9) < 87.0 + 273.15);
  CHECK(summary.value("throttled_gpu_seconds").value_or(1.0) == 0.0);
}
