// A weather year in a run (docs/scenario-format.md, "Weather files"): scenarios/facility-loop-rack
// on the sample EPW for a week at 60 s steps sees the file's hourly dry bulb at the hours and the
// linear interpolation between them, and the psychrometric wet bulb of the file's dry bulb, dew
// point and pressure; the summary's peak day and plant hours are consistent with the run's totals.
// The file is read here independently of the program's EPW reader.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "PeakDay.hpp"
#include "ScenarioTestUtil.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/StateArchive.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"
#include "racktwin/thermal/Psychrometrics.hpp"

namespace {

using racktwin::test::ChannelTap;
using racktwin::test::readText;
using racktwin::test::replaced;
using racktwin::test::sourcePath;

constexpr double kZeroC = 273.15;
constexpr double kHour = 3600.0;
constexpr double kDay = 86400.0;

struct Hour {
  double dry_degC, dew_degC, p_Pa;
};

/// The data records of an EPW file (after its 8 header lines): dry bulb, dew point, pressure.
std::vector<Hour> epwHours(const std::string& path) {
  std::istringstream in(readText(path));
  std::string line;
  std::vector<Hour> hours;
  for (int n = 1; std::getline(in, line); ++n) {
    if (n <= 8 || line.empty()) continue;
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');)
      f.push_back(field);
    hours.push_back({std::stod(f.at(6)), std::stod(f.at(7)), std::stod(f.at(9))});
  }
  return hours;
}

}  // namespace

TEST_CASE("a July week of the facility-loop rack on the sample EPW at 60 s steps",
          "[scenarios][weather]") {
  const std::string scenario = sourcePath("scenarios/facility-loop-rack.yaml");
  std::string text = readText(scenario);
  // 1 July 00:00 (4344 h into the year), a week, 60 s steps, records every 30 min; the
  // training job runs throughout.
  text = replaced(text, "ambient:\n  dry_bulb: 35 degC\n  wet_bulb: 24 degC\n",
                  "ambient: {weather: ../data/weather/new-york-synthetic.epw, weather_start: "
                  "4344 h}\n");
  text = replaced(text, "duration: 3600 s\n  step: 1 s", "duration: 168 h\n  step: 60 s");
  text = replaced(text, "record_interval: 1 s", "record_interval: 1800 s");
  text = replaced(text, "    duration: 3600 s\n", "    duration: 168 h\n");
  racktwin::core::SiteSpec site = racktwin::scenarios::loadScenarioFromString(text, scenario, "");
  const double T_set = site.facility.T_supply;
  racktwin::scenarios::Twin twin(std::move(site));
  ChannelTap tap({"ambient/T_dry_bulb", "ambient/T_wet_bulb"});
  twin.addSink(tap);
  twin.initialize();
  while (twin.step()) {
  }
  const racktwin::core::Summary summary = twin.finish(true);

  const std::vector<Hour> year = epwHours(sourcePath("data/weather/new-york-synthetic.epw"));
  REQUIRE(year.size() == 8760);
  // Record r (0-based) of the file ends at hour r + 1 of the year; simulation time t is hour
  // 4344 + t / 3600.
  const auto at_hour = [&](double t) {
    return year[static_cast<std::size_t>(4344 + t / kHour) - 1];
  };
  const auto wet = [](const Hour& h) {
    namespace psy = racktwin::thermal::psychrometrics;
    return psy::wetBulbFromDewPoint(h.dry_degC + kZeroC, h.dew_degC + kZeroC, h.p_Pa);
  };
  const auto& dry_records = tap.samples("ambient/T_dry_bulb");
  REQUIRE(dry_records.size() == 337);  // t = 0, 1800, ..., 168 h
  int hours_checked = 0, halves_checked = 0;
  for (const auto& [t, T_dry] : dry_records) {
    INFO("t = " << t << " s");
    const double T_wet = tap.at("ambient/T_wet_bulb", t);
    if (std::fmod(t, kHour) == 0.0) {
      const Hour h = at_hour(t);
      CHECK(T_dry == Approx(h.dry_degC + kZeroC).epsilon(1e-9));
      CHECK(T_wet == Approx(wet(h)).epsilon(1e-9));
      ++hours_checked;
    } else {
      const Hour before = at_hour(t - 1800.0), after = at_hour(t + 1800.0);
      CHECK(T_dry == Approx(0.5 * (before.dry_degC + after.dry_degC) + kZeroC).epsilon(1e-9));
      CHECK(T_wet == Approx(0.5 * (wet(before) + wet(after))).epsilon(1e-9));
      ++halves_checked;
    }
  }
  CHECK(hours_checked == 169);
  CHECK(halves_checked == 168);

  // Peak day: seven whole days (1 to 7 July, days 182 to 188 of the year); the highest of them
  // holds at least a seventh of the run's facility energy and at most all of it.
  const double facility = summary.value("facility_energy_J").value();
  const double peak = summary.value("peak_day_facility_energy_J").value();
  const double day = summary.value("peak_day_number").value();
  CHECK(day >= 182.0);
  CHECK(day <= 188.0);
  CHECK(peak >= facility / 7.0 * (1.0 - 1e-12));
  CHECK(peak <= facility);
  CHECK(summary.value("peak_day_facility_power_mean_W").value() == Approx(peak / kDay));
  // Plant hours: with a chiller, free cooling and chiller time share the run. Free cooling needs
  // water leaving the dry cooler within the 0.5 K dead band of the set-point, so a dry bulb below
  // set-point + 0.5 K (a dry cooler never cools water below the dry bulb). At or below
  // set-point - 6 K (the dry cooler's design approach at its full 1.5 MW rating, ten times this
  // rack's heat) the dry cooler holds the set-point alone. Times from the hourly records
  // interpolated linearly, as the run reads them; 10 min per crossing of a threshold for the
  // water's transit through the loop.
  const auto time_below = [&](double T_threshold, int& crossings) {
    double below = 0.0;
    for (double t = 0.0; t < 7.0 * kDay; t += kHour) {
      const double a = at_hour(t).dry_degC + kZeroC, b = at_hour(t + kHour).dry_degC + kZeroC;
      if (a < T_threshold && b < T_threshold) {
        below += kHour;
      } else if ((a < T_threshold) != (b < T_threshold)) {
        ++crossings;
        below += kHour * (T_threshold - std::min(a, b)) / std::abs(b - a);
      }
    }
    return below;
  };
  const double chiller = summary.value("chiller_time_s").value();
  const double free = summary.value("free_cooling_time_s").value();
  CHECK(chiller + free == Approx(7.0 * kDay).epsilon(1e-12));
  int crossings = 0;
  const double below_setpoint = time_below(T_set + 0.5, crossings);
  CHECK(free <= below_setpoint + crossings * 600.0);
  crossings = 0;
  const double below_design = time_below(T_set - 6.0, crossings);
  CHECK(free >= below_design - crossings * 600.0);
  INFO("free cooling " << free / kHour << " h, dry bulb below the set-point "
                       << below_setpoint / kHour << " h, below set-point - 6 K "
                       << below_design / kHour << " h");
  CHECK(below_design > 0.0);  // the check above is not empty
  CHECK(summary.value("energy_balance_relative_error").value() < 1e-9);
}

TEST_CASE("the peak day takes whole days of the weather file's calendar", "[scenarios][weather]") {
  namespace d = racktwin::scenarios::detail;
  // A run starting at 03:00 of the file with steps of 7000 s (no divisor of a day) and a power of
  // 1 MW on day 2 of the file, 2 MW on day 3, 1.5 MW on day 4: the peak is day 3 with 2 MW x 1 d.
  racktwin::core::AmbientSpec a;
  a.file_time_at_start = 3.0 * kHour;
  d::PeakDay peak(a);
  const auto power = [&](double t) {
    const double file_day = std::floor((t + a.file_time_at_start) / kDay) + 1.0;
    return file_day == 3.0 ? 2e6 : file_day == 4.0 ? 1.5e6 : 1e6;
  };
  // Energy by exact integration of the piecewise constant power.
  const auto energy = [&](double t) {
    double E = 0.0;
    for (double s = 0.0; s < t;) {
      const double next_midnight =
          (std::floor((s + a.file_time_at_start) / kDay) + 1.0) * kDay - a.file_time_at_start;
      const double until = std::min(t, next_midnight);
      E += power(s) * (until - s);
      s = until;
    }
    return E;
  };
  racktwin::core::Summary empty;
  peak.summarise(empty);
  CHECK(!empty.value("peak_day_number").has_value());
  const double step = 7000.0;
  for (double t = 0.0; t < 4.5 * kDay; t += step) {
    if (peak.reachesDayEnd(t + step)) peak.record(t, energy(t), t + step, energy(t + step));
  }
  CHECK(peak.completeDays() == 3);  // days 2, 3 and 4 of the file; day 1 began before the run
  racktwin::core::Summary s;
  peak.summarise(s);
  CHECK(s.value("peak_day_number").value() == 3.0);
  // The day's ends fall inside steps, where the energy is interpolated: exact here only where a
  // step holds one power, so the tolerance is one step's share of a 1 MW difference.
  CHECK(s.value("peak_day_facility_energy_J").value() == Approx(2e6 * kDay).margin(1e6 * step));
  CHECK(s.value("peak_day_facility_power_mean_W").value() == Approx(2e6).margin(1e6 * step / kDay));

  // Saved and restored mid-run, it continues where it was.
  racktwin::core::StateArchive saving = racktwin::core::StateArchive::saving();
  peak.visitState(saving);
  d::PeakDay other(a);
  racktwin::core::StateArchive restoring = racktwin::core::StateArchive::restoring(saving.bytes());
  other.visitState(restoring);
  restoring.finish();
  racktwin::core::Summary again;
  other.summarise(again);
  CHECK(again.value("peak_day_facility_energy_J") == s.value("peak_day_facility_energy_J"));
}
