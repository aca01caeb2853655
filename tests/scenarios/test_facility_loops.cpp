// Several facility loops, one per hall (docs/scenario-format.md, facility_water.loops): a site of
// two identical halls, each on its own loop, is two copies of one hall alone; a plant fault on
// one hall's loop leaves the other hall untouched; the books close and add the loops up; bad
// loop lists and plant events give located errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/DesignLimits.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"
#include "racktwin/thermal/CoolingModel.hpp"
#include "racktwin/thermal/FacilityLoop.hpp"

namespace {

using racktwin::core::SiteSpec;
using racktwin::scenarios::loadScenarioFromString;
using racktwin::scenarios::Twin;
using racktwin::test::ExpectedError;
using racktwin::test::lineOf;
using racktwin::test::readText;
using racktwin::test::replaced;
using racktwin::test::requireInputError;
using racktwin::test::sourcePath;

const std::string kShipped = "scenarios/facility-loop-rack.yaml";

/// The shipped one-rack facility-loop scenario, shortened to `duration` (its training job runs
/// to the end of the run).
std::string oneHall(const std::string& duration) {
  std::string text = readText(sourcePath(kShipped));
  text = replaced(text, "duration: 3600 s\n  step", "duration: " + duration + "\n  step");
  return replaced(text, "    duration: 3600 s\n", "");
}

/// `text` with every line indented by `spaces` more.
std::string indented(const std::string& text, int spaces) {
  const std::string pad(static_cast<std::size_t>(spaces), ' ');
  std::string out;
  std::size_t begin = 0;
  while (begin < text.size()) {
    const std::size_t end = text.find('\n', begin);
    const std::string line = text.substr(begin, end - begin);
    out += (line.empty() ? "" : pad) + line + "\n";
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return out;
}

/// The same scenario as a site of `halls` identical halls: hall<h>/row1/rack01 on
/// hall<h>/row1/cdu1, each hall on its own facility loop (the shipped loop's keys, word for
/// word) and its own training job.
std::string halls(int count, const std::string& duration) {
  std::string text = oneHall(duration);
  const std::size_t loop_at = text.find("  loop:\n");
  const std::size_t loop_end = text.find("\n\n# Outdoor air");
  const std::string loop_keys = text.substr(loop_at + 8, loop_end - loop_at - 8);
  std::string loops = "  loops:\n";
  for (int h = 1; h <= count; ++h) {
    const std::string hall = "hall" + std::to_string(h);
    loops += "    - id: " + hall + "\n      cdus: [" + hall + "/*]\n" + indented(loop_keys, 2);
  }
  text.replace(loop_at, loop_end - loop_at, loops);
  const std::size_t cdus_at = text.find("cdus:\n");
  const std::size_t workload_end = text.find("\n\n# Facility faults");
  const std::size_t job_at = text.find("  - id: train1\n");
  const std::string job = text.substr(job_at, workload_end - job_at);
  std::string site = "cdus:\n";
  for (int h = 1; h <= count; ++h) {
    const std::string hall = "hall" + std::to_string(h);
    site += "  - {id: " + hall + "/row1/cdu1, type: inrack-250kw, "
            + "supply_temperature_setpoint: 36 degC}\n";
  }
  site += "\nracks:\n";
  for (int h = 1; h <= count; ++h) {
    const std::string hall = "hall" + std::to_string(h);
    site += "  - {id: " + hall + "/row1/rack01, type: gb300-nvl72, cdu: " + hall + "/row1/cdu1}\n";
  }
  site += "\nworkload:\n";
  for (int h = 1; h <= count; ++h) {
    const std::string hall = "hall" + std::to_string(h);
    std::string mine = replaced(job, "id: train1", "id: train" + std::to_string(h));
    site += replaced(mine, "racks: all", "racks: [" + hall + "/row1/rack01]") + "\n";
  }
  text.replace(cdus_at, workload_end - cdus_at, site);
  return text;
}

/// Every channel's columns at every record, by "group/name" and column.
class RowTap : public racktwin::core::RecorderSink {
 public:
  void open(const racktwin::core::RunMetadata&,
            const std::vector<racktwin::core::ChannelInfo>& channels) override {
    std::size_t offset = 0;
    for (const auto& c : channels) {
      channels_[c.group + "/" + c.name] = {offset, c.width(), c.entity_ids};
      offset += c.width();
    }
  }
  void append(double /*time*/, std::span<const double> row) override {
    rows_.emplace_back(row.begin(), row.end());
  }
  void close(bool, std::string_view) override {}
  bool has(const std::string& name) const { return channels_.count(name) == 1; }
  std::size_t width(const std::string& name) const { return channels_.at(name).width; }
  const std::vector<std::string>& ids(const std::string& name) const {
    return channels_.at(name).ids;
  }
  double at(const std::string& name, std::size_t record, std::size_t column = 0) const {
    const Channel& c = channels_.at(name);
    REQUIRE(column < c.width);
    return rows_.at(record)[c.offset + column];
  }
  std::size_t records() const { return rows_.size(); }

 private:
  struct Channel {
    std::size_t offset = 0, width = 0;
    std::vector<std::string> ids;
  };
  std::map<std::string, Channel> channels_;
  std::vector<std::vector<double>> rows_;
};

std::optional<double> summaryValue(const racktwin::core::Summary& s, const std::string& key) {
  for (const auto& item : s.items())
    if (item.key == key) return item.value;
  return std::nullopt;
}

/// |a - b| within round-off of the larger. The halls' networks hold the same links under other
/// names, so their iterative hydraulic solves may sum in another order: copies agree to the
/// solvers' round-off (measured ~1e-12 after a few minutes), not bit for bit.
bool roundOff(double a, double b, double relative = 1e-9) {
  return std::abs(a - b) <= relative * std::max({std::abs(a), std::abs(b), 1e-300});
}

// The scenarios are read as if they were the shipped file (its data_dir is relative to it).
const std::string kFile = sourcePath(kShipped);

}  // namespace

TEST_CASE("two identical halls, each on its own facility loop, are two copies of one hall",
          "[scenarios][facility][halls]") {
  const std::string duration = "240 s";
  Twin one(loadScenarioFromString(oneHall(duration), sourcePath(kShipped), ""));
  Twin two(loadScenarioFromString(halls(2, duration), sourcePath(kShipped), ""));
  REQUIRE(two.site().facility.loops.size() == 2);
  REQUIRE(two.cooling().facilityLoops().size() == 2);
  RowTap tap_one, tap_two;
  one.addSink(tap_one);
  two.addSink(tap_two);
  one.initialize();
  two.initialize();
  const std::size_t gpus = one.layout().gpu_count;
  REQUIRE(two.layout().gpu_count == 2 * gpus);
  // Step by step: every GPU junction and both CDUs' temperatures as the hall alone's, to
  // round-off (the loops never exchange water; the shared room air reaches no liquid path).
  // The hall's own temperatures move by kelvins over the run: 1e-12 of 300 K is far below.
  double worst = 0.0;
  bool running = true;
  while (running) {
    running = one.step();
    REQUIRE(two.step() == running);
    const auto& T1 = one.state().gpu_T_junction;
    const auto& T2 = two.state().gpu_T_junction;
    for (std::size_t h = 0; h < 2; ++h) {
      for (std::size_t g = 0; g < gpus; ++g) {
        worst = std::max(worst, std::abs(T2[h * gpus + g] - T1[g]) / T1[g]);
      }
      const auto& c1 = one.cooling();
      const auto& c2 = two.cooling();
      CHECK(roundOff(c2.cduSupplyTemperature(h), c1.cduSupplyTemperature(0)));
      CHECK(roundOff(c2.cduReturnTemperature(h), c1.cduReturnTemperature(0)));
      CHECK(roundOff(c2.cduValveOpening(h), c1.cduValveOpening(0)));
      CHECK(roundOff(c2.cduFacilityFlow(h), c1.cduFacilityFlow(0)));
    }
  }
  CHECK(worst <= 1e-11);
  const auto s1 = one.finish(true);
  const auto s2 = two.finish(true);
  // The plant energies are twice the one hall's; so are the plant hours (loop hours).
  for (const char* key :
       {"heat_rejected_outdoors_J", "facility_pump_energy_J", "heat_rejection_fan_energy_J",
        "chiller_energy_J", "heat_rejected_to_facility_water_J", "cooling_energy_J",
        "chiller_time_s", "free_cooling_time_s", "supply_above_setpoint_time_s"}) {
    INFO(key);
    const std::optional<double> a = summaryValue(s1, key), b = summaryValue(s2, key);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(roundOff(*b, 2.0 * *a));
  }
  // Channels: the one hall's are single values; the two halls' have a column per loop, each the
  // one hall's value.
  for (const char* name :
       {"facility/T_supply", "facility/T_return", "facility/V_flow", "facility/pump_P",
        "facility/dp_remote", "facility/fan_P", "facility/Q_flow_rejected",
        "facility/Q_flow_chiller", "facility/chiller_P"}) {
    INFO(name);
    REQUIRE(tap_one.has(name));
    REQUIRE(tap_two.has(name));
    CHECK(tap_one.width(name) == 1);
    CHECK(tap_one.ids(name).empty());
    CHECK(tap_two.ids(name) == std::vector<std::string>{"hall1", "hall2"});
    REQUIRE(tap_one.records() == tap_two.records());
    for (std::size_t k = 0; k < tap_one.records(); ++k)
      for (std::size_t h = 0; h < 2; ++h)
        CHECK(roundOff(tap_two.at(name, k, h), tap_one.at(name, k)));
  }
  CHECK(tap_two.width("ambient/T_dry_bulb") == 1);
}

TEST_CASE("a facility pump trip on hall1's loop leaves hall2 as it was",
          "[scenarios][facility][halls]") {
  const std::string duration = "120 s";
  const std::string base = halls(2, duration);
  const std::string faulted =
      base + "\nevents:\n  - {at: 30 s, action: facility_pump_trip, target: hall1}\n";
  Twin calm(loadScenarioFromString(base, kFile, ""));
  Twin trip(loadScenarioFromString(faulted, kFile, ""));
  REQUIRE(trip.site().events.size() == 1);
  CHECK(trip.site().events[0].target == "hall1");
  calm.initialize();
  trip.initialize();
  const std::size_t gpus = calm.layout().gpu_count / 2;
  double hall1_moved = 0.0, hall2_moved = 0.0, plant_flow_drop = 0.0;
  bool running = true;
  while (running) {
    running = calm.step();
    REQUIRE(trip.step() == running);
    const auto& a = calm.state().gpu_T_junction;
    const auto& b = trip.state().gpu_T_junction;
    for (std::size_t g = 0; g < gpus; ++g) {
      hall1_moved = std::max(hall1_moved, std::abs(b[g] - a[g]));
      hall2_moved = std::max(hall2_moved, std::abs(b[gpus + g] - a[gpus + g]));
    }
    CHECK(trip.cooling().cduSupplyTemperature(1) == calm.cooling().cduSupplyTemperature(1));
    CHECK(trip.cooling().cduFacilityFlow(1) == calm.cooling().cduFacilityFlow(1));
    plant_flow_drop = std::max(
        plant_flow_drop, calm.cooling().cduFacilityFlow(0) - trip.cooling().cduFacilityFlow(0));
  }
  // Hall2's GPUs: the same arithmetic on the same numbers.
  CHECK(hall2_moved == 0.0);
  // Hall1's plant lost its duty pump for the 10 s switch-over: its CDU's facility flow fell and
  // its GPUs ran warmer than without the fault.
  CHECK(plant_flow_drop > 0.0);
  CHECK(hall1_moved > 1e-6);
  (void)calm.finish(true);
  (void)trip.finish(true);
}

TEST_CASE("a site of facility loops closes its energy books", "[scenarios][facility][halls]") {
  std::string text = halls(2, "300 s");
  // Hall2's plant runs warmer and loses its fans for a while: the loops differ.
  text = replaced(text, "      cdus: [hall2/*]\n",
                  "      cdus: [hall2/*]\n      supply_temperature: 30 degC\n");
  text +=
      "\nevents:\n"
      "  - {at: 60 s, action: heat_rejection_fan_loss, value: 100 %, target: hall2}\n"
      "  - {at: 120 s, action: set_facility_supply_temperature, value: 33 degC, "
      "target: hall1}\n";
  const SiteSpec site = loadScenarioFromString(text, kFile, "");
  REQUIRE(site.facility.loops.size() == 2);
  CHECK(site.facility.loops[1].T_supply == Approx(303.15).epsilon(1e-12));
  Twin twin(site);
  twin.initialize();
  while (twin.step()) {
  }
  // Each loop's own balance: stored change = heat in + pump heat - rejected - chiller heat.
  for (const auto& loop : twin.cooling().facilityLoops()) {
    const double scale = std::max(loop->energyRejected() + loop->chillerEnergy(), 1.0);
    CHECK(std::abs(loop->energyBalanceResidual()) / scale < 1e-9);
  }
  const auto summary = twin.finish(true);
  CHECK(*summaryValue(summary, "thermal_energy_balance_relative_error") < 1e-9);
  CHECK(*summaryValue(summary, "energy_audit_relative_error_max") < 1e-6);
  CHECK(*summaryValue(summary, "energy_audit_checks") > 0.0);
  // The summary's outdoor heat is the loops' together.
  double outdoors = 0.0;
  for (const auto& loop : twin.cooling().facilityLoops())
    outdoors += loop->energyRejected() + loop->chillerEnergy() + loop->chillerElectricEnergy();
  CHECK(*summaryValue(summary, "heat_rejected_outdoors_J") == Approx(outdoors).epsilon(1e-15));
}

TEST_CASE("each facility loop has its own design limits, grouped by loop",
          "[scenarios][facility][halls]") {
  const SiteSpec site =
      racktwin::scenarios::loadScenario(sourcePath("tests/capacity/data/halls-2-explicit.yaml"));
  const std::vector<racktwin::core::DesignLimit> limits = racktwin::core::designLimits(site);
  std::map<std::string, const racktwin::core::DesignLimit*> by_id;
  for (const auto& l : limits)
    by_id[l.component + ":" + l.name] = &l;
  for (const std::string hall : {"hall1", "hall2"}) {
    INFO(hall);
    const auto* supply = by_id["facility/" + hall + ":facility_supply_class"];
    REQUIRE(supply != nullptr);
    CHECK(supply->group == hall);
    CHECK(supply->group_kind == "facility loop");
    REQUIRE(supply->inputs.size() == 1);
    CHECK(supply->inputs[0].channel == "facility/T_supply");
    CHECK(supply->inputs[0].entities == std::vector<std::string>{hall});
    // dry-cooler-1500kw: 1.5 MW per unit, one unit (data/heat-rejection/dry-cooler-1500kw.yaml).
    const auto* rejected = by_id["facility/" + hall + "/heat_rejection:rated_heat"];
    REQUIRE(rejected != nullptr);
    CHECK(rejected->rating == Approx(1.5e6).epsilon(1e-12));
    CHECK(rejected->inputs[0].entities == std::vector<std::string>{hall});
  }
  // A rack's limits are grouped by its row, the floor plan's (its id's prefix), not its hall.
  bool rack_limit = false;
  for (const auto& l : limits) {
    if (l.component != "hall2/row02/rack01") continue;
    rack_limit = true;
    CHECK(l.group == "hall2/row02");
  }
  CHECK(rack_limit);
}

TEST_CASE("bad facility loop lists and plant events are located errors",
          "[scenarios][facility][halls]") {
  const std::string base = halls(2, "60 s");
  const auto load = [](const std::string& text) {
    return [text] { (void)loadScenarioFromString(text, kFile, ""); };
  };
  SECTION("a CDU on two loops") {
    const std::string text = replaced(base, "cdus: [hall2/*]", "cdus: [hall2/*, hall1/row1/cdu1]");
    requireInputError(load(text),
                      {kFile,
                       lineOf(text, "cdus: [hall2/*, hall1/row1/cdu1]"),
                       "facility_water.loops[1].cdus[1]",
                       {"hall1/row1/cdu1", "already on facility loop 'hall1'", "exactly one"}});
  }
  SECTION("a loop that names no CDU") {
    const std::string text = replaced(base, "cdus: [hall2/*]", "cdus: [hall3/*]");
    requireInputError(load(text), {kFile,
                                   lineOf(text, "cdus: [hall3/*]"),
                                   "facility_water.loops[1].cdus[0]",
                                   {"no CDU 'hall3/*'"}});
  }
  SECTION("a CDU that no loop names") {
    // Hall2's loop left out: its CDU is on none.
    std::string text = base;
    const std::size_t second = text.find("    - id: hall2\n");
    text.erase(second, text.find("\n\n# Outdoor air") - second + 1);
    requireInputError(load(text), {kFile,
                                   lineOf(text, "  loops:"),
                                   "facility_water.loops",
                                   {"hall2/row1/cdu1", "no facility loop names it"}});
  }
  SECTION("loop and loops together") {
    const std::string text = replaced(base, "  loops:\n", "  loop: {}\n  loops:\n");
    requireInputError(load(text), {kFile,
                                   lineOf(text, "    - id: hall1"),
                                   "facility_water.loops",
                                   {"either loop", "or loops"}});
  }
  SECTION("an unknown target") {
    const std::string text =
        base + "\nevents:\n  - {at: 10 s, action: facility_pump_trip, target: hall7}\n";
    requireInputError(load(text), {kFile,
                                   lineOf(text, "target: hall7"),
                                   "events[0].target",
                                   {"unknown facility loop 'hall7'", "hall1, hall2"}});
  }
  SECTION("several loops and an untargeted plant event") {
    const std::string text =
        base + "\nevents:\n  - {at: 10 s, action: heat_rejection_fan_loss, value: 50 %}\n";
    requireInputError(load(text),
                      {kFile,
                       lineOf(text, "value: 50 %}"),
                       "events[0].target",
                       {"required key is missing", "2 facility loops", "hall1, hall2"}});
  }
  SECTION("a target on the single loop, which has no id") {
    std::string text = oneHall("60 s");
    text += "\nevents:\n  - {at: 10 s, action: facility_pump_trip, target: hall1}\n";
    requireInputError(load(text), {kFile,
                                   lineOf(text, "target: hall1"),
                                   "events[0].target",
                                   {"single facility_water.loop has no id"}});
  }
}
