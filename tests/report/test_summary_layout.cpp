// The summary layout: every key a shipped scenario produces has a row whose label and display
// unit are the model's own, and the arranged summary puts the answers first and leaves out
// sections with nothing in them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "SummaryDisplay.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/report/SummaryLayout.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"

using namespace racktwin;
using report::SummarySection;

namespace {

std::vector<std::string> shippedScenarios() {
  std::vector<std::string> paths;
  for (const char* folder : {"scenarios", "scenarios/faults"})
    for (const auto& entry : std::filesystem::directory_iterator(folder))
      if (entry.path().extension() == ".yaml") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

/// The summary of a short run of a scenario: the keys depend on what the scenario holds, not on
/// how long it runs.
core::Summary shortRunSummary(const std::string& path, double steps = 3.0) {
  core::SiteSpec site = scenarios::loadScenario(path);
  site.simulation.duration = steps * site.simulation.step;
  site.simulation.record_interval = site.simulation.step;
  scenarios::Twin twin(std::move(site));
  twin.initialize();
  while (twin.step()) {
  }
  return twin.finish(true);
}

struct Arranged {
  std::vector<std::string> keys;
  std::vector<std::optional<double>> values;
  std::vector<report::SummaryGroup> groups;
  const report::SummaryGroup* find(SummarySection section) const {
    for (const report::SummaryGroup& g : groups)
      if (g.section == section) return &g;
    return nullptr;
  }
};

Arranged arrange(const core::Summary& summary) {
  Arranged a;
  for (const core::SummaryItem& item : summary.items()) {
    a.keys.push_back(item.key);
    a.values.push_back(item.value);
  }
  a.groups = report::arrangeSummary(a.keys, a.values);
  return a;
}

}  // namespace

TEST_CASE("Every summary key of every shipped scenario has a section, the model's label and unit",
          "[report]") {
  const std::vector<std::string> scenarios = shippedScenarios();
  REQUIRE(scenarios.size() >= 18);
  std::set<std::string> seen;
  for (const std::string& path : scenarios) {
    INFO(path);
    const core::Summary summary = shortRunSummary(path);
    for (const core::SummaryItem& item : summary.items()) {
      INFO(item.key);
      const report::SummaryKeyLayout* layout = report::findSummaryKeyLayout(item.key);
      if (!layout) {
        // The row to add, as the model describes the item (choose its section and order).
        char row[600];
        std::snprintf(row, sizeof row, "{\"%s\", S::?, 0, \"%s\", \"%s\", %.17g, %.17g, %s},",
                      item.key.c_str(), item.label.c_str(), item.display_unit.c_str(),
                      item.display_scale, item.display_offset, item.heat ? "true" : "false");
        FAIL_CHECK("no row in report/src/SummaryLayout.cpp for the summary key " + item.key
                   + "; as the model gives it: " + row);
        continue;
      }
      // The model may append a qualifier to its label (" (after the first minute)").
      const std::string label = report::summaryLabel(*layout, item.key);
      CHECK(item.label.rfind(label, 0) == 0);
      CHECK(item.display_unit == layout->display_unit);
      CHECK(item.display_scale == Approx(layout->display_scale).epsilon(1e-12));
      CHECK(item.display_offset == Approx(layout->display_offset).margin(1e-12));
      CHECK(item.heat == layout->heat);
      seen.insert(item.key);
    }
  }
  CHECK(seen.size() > 90);
}

TEST_CASE("The answers come first, in their order, and are not repeated in their sections",
          "[report]") {
  const Arranged a = arrange(shortRunSummary("scenarios/nvl72-rack.yaml"));
  REQUIRE(!a.groups.empty());
  CHECK(a.groups.front().section == SummarySection::Headline);
  std::vector<std::string> headline;
  for (std::size_t i : a.groups.front().items)
    headline.push_back(a.keys[i]);
  CHECK(headline
        == std::vector<std::string>{"design_limits_violated", "design_margin_min",
                                    "max_gpu_temperature_K", "ride_through_s", "pue",
                                    "wue_L_per_kWh", "facility_power_max_W"});
  // Each item once at most; what is left out sits in an empty section that may be left out.
  std::map<std::size_t, int> count;
  for (const report::SummaryGroup& g : a.groups)
    for (std::size_t i : g.items)
      ++count[i];
  for (const auto& [i, n] : count)
    CHECK(n == 1);
  for (std::size_t i = 0; i < a.keys.size(); ++i) {
    if (count.count(i)) continue;
    INFO(a.keys[i]);
    const report::SummaryKeyLayout* layout = report::findSummaryKeyLayout(a.keys[i]);
    REQUIRE(layout);
    CHECK(report::sectionOmittedWhenEmpty(layout->section));
    CHECK((!a.values[i] || *a.values[i] == 0.0));
  }
}

TEST_CASE(
    "A training run's summary leaves out the inference and job-queue lines, an inference "
    "run's keeps them",
    "[report]") {
  const Arranged training = arrange(shortRunSummary("scenarios/nvl72-rack.yaml", 120.0));
  CHECK(training.find(SummarySection::Training) != nullptr);
  CHECK(training.find(SummarySection::Inference) == nullptr);
  CHECK(training.find(SummarySection::ScheduledJobs) == nullptr);
  CHECK(training.find(SummarySection::Checks) != nullptr);
  // After the answers the domains, not the workload: design limits, then chips.
  REQUIRE(training.groups.size() > 3);
  CHECK(training.groups[1].section == SummarySection::DesignLimits);
  CHECK(training.groups[2].section == SummarySection::Thermal);

  const Arranged inference = arrange(shortRunSummary("scenarios/inference-azure.yaml", 120.0));
  CHECK(inference.find(SummarySection::Inference) != nullptr);
}

TEST_CASE("A key the table does not know is shown under Other, never dropped", "[report]") {
  const std::vector<std::string> keys{"pue", "a_new_metric_W", "requests_served"};
  const std::vector<std::optional<double>> values{1.1, 0.0, 0.0};
  const std::vector<report::SummaryGroup> groups = report::arrangeSummary(keys, values);
  REQUIRE(groups.size() == 2);
  CHECK(groups[0].section == SummarySection::Headline);
  CHECK(groups[1].section == SummarySection::Other);
  CHECK(groups[1].items == std::vector<std::size_t>{1});
}

TEST_CASE("Patterns name the parts they matched", "[report]") {
  const std::string key = "job_pretrain-a_rack_row1/rack01";
  const report::SummaryKeyLayout* layout = report::findSummaryKeyLayout(key);
  REQUIRE(layout);
  CHECK(report::summaryLabel(*layout, key) == "Job pretrain-a: on rack row1/rack01");
  CHECK(report::summaryLabel(*report::findSummaryKeyLayout("electrical_loss_ups_J"),
                             "electrical_loss_ups_J")
        == "Losses: ups");
  CHECK(report::findSummaryKeyLayout("job_") == nullptr);
}

TEST_CASE("A column's numbers and its header share the unit its largest value needs", "[report]") {
  using racktwin::core::UnitSystem;
  using racktwin::report::displaySummaryItem;
  // A site's 203.7 MW with a row's 850 kW: the column is in MW, both numbers and the header.
  const double column[3] = {203.7e6, 850e3, std::nan("")};
  const std::optional<double> unit_for = racktwin::report::unitReference(column, 3);
  REQUIRE(unit_for);
  CHECK(*unit_for == 203.7e6);
  const auto header =
      displaySummaryItem("facility_power_max_W", std::nullopt, UnitSystem::SI, unit_for);
  const auto site = displaySummaryItem("facility_power_max_W", column[0], UnitSystem::SI, unit_for);
  const auto row = displaySummaryItem("facility_power_max_W", column[1], UnitSystem::SI, unit_for);
  CHECK(header.unit == "MW");
  CHECK(site.unit == "MW");
  CHECK(row.unit == "MW");
  CHECK(*site.shown == Approx(203.7).epsilon(1e-12));
  CHECK(*row.shown == Approx(0.85).epsilon(1e-12));
  // A value alone picks its own unit, as a run's summary shows it.
  CHECK(displaySummaryItem("facility_power_max_W", 850e3, UnitSystem::SI).unit == "kW");
  CHECK(displaySummaryItem("facility_power_max_W", 203.7e6, UnitSystem::SI).unit == "MW");
  // In US units a header without a value names the US unit its cells are in (degF, not degC).
  const double peaks[1] = {350.0};
  const auto us = racktwin::report::unitReference(peaks, 1);
  const auto t_header =
      displaySummaryItem("max_gpu_temperature_K", std::nullopt, UnitSystem::US, us);
  const auto t_cell = displaySummaryItem("max_gpu_temperature_K", 350.0, UnitSystem::US, us);
  CHECK(t_header.unit == "degF");
  CHECK(t_cell.unit == "degF");
  CHECK(*t_cell.shown == Approx((350.0 - 273.15) * 1.8 + 32.0).epsilon(1e-12));
  CHECK(displaySummaryItem("max_gpu_temperature_K", std::nullopt, UnitSystem::US).unit == "degF");
  // Nothing finite: no reference.
  const double none[2] = {std::nan(""), INFINITY};
  CHECK_FALSE(racktwin::report::unitReference(none, 2));
}
