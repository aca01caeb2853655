// EnergyPlus weather files (scenarios/src/EpwWeather): records at the end of their hour, the wet
// bulb from dry bulb, dew point and station pressure, missing values filled and reported, the
// calendar across a new year and 29 February, a whole year repeating from `weather_start`, bad
// files located to file, line, column and field without quoting them, and the sample file being
// the synthetic year data/weather/README.md says it is (against the NOAA normals typed here).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "EpwWeather.hpp"
#include "Plausibility.hpp"
#include "ScenarioTestUtil.hpp"
#include "WeatherFile.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/thermal/Psychrometrics.hpp"

namespace {

namespace d = racktwin::scenarios::detail;
namespace psy = racktwin::thermal::psychrometrics;
using racktwin::core::InputError;
using racktwin::test::readText;
using racktwin::test::replaced;
using racktwin::test::sourcePath;

constexpr double kZeroC = 273.15;
constexpr double kDay = 86400.0;

// The 25 fields after the station pressure, all at their EPW missing-value codes.
const std::string kTail =
    ",9999,9999,9999,9999,9999,9999,999999,999999,999999,9999,999,999,99,99,9999,99999,9,"
    "999999999,999,0.999,999,99,999,999,99";

std::string header(int per_hour = 1, const std::string& elevation = "40.0") {
  return "LOCATION,Test City,ST,USA,test,999999,40.00,-74.00,-5.0," + elevation
         + "\nDESIGN CONDITIONS,0\nTYPICAL/EXTREME PERIODS,0\nGROUND TEMPERATURES,0\n"
           "HOLIDAYS/DAYLIGHT SAVINGS,No,0,0,0\nCOMMENTS 1,test\nCOMMENTS 2,test\n"
           "DATA PERIODS,1,"
         + std::to_string(per_hour) + ",Data,Monday,1/1,12/31\n";
}

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", v);
  return buffer;
}

std::string record(int month, int day, int hour, double dry, double dew, double rh, double p,
                   int minute = 0) {
  return "2001," + std::to_string(month) + "," + std::to_string(day) + "," + std::to_string(hour)
         + "," + std::to_string(minute) + ",*," + number(dry) + "," + number(dew) + "," + number(rh)
         + "," + number(p) + kTail + "\n";
}

InputError errorOf(const std::string& text) {
  try {
    (void)d::parseEpw(text, "w.epw");
  } catch (const InputError& e) {
    return e;
  }
  FAIL("no InputError for:\n" << text.substr(0, 2000));
  throw;
}

/// The whole-year text of `days` days with constant weather, hourly.
std::string year(int days) {
  const int month_days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  std::string text = header();
  int n = 0;
  for (int m = 1; m <= 12 && n < days; ++m) {
    const int in_month = m == 2 && days == 366 ? 29 : month_days[m - 1];
    for (int day = 1; day <= in_month && n < days; ++day, ++n)
      for (int h = 1; h <= 24; ++h)
        text += record(m, day, h, 10.0 + h, 5.0, 70.0, 100000.0);
  }
  return text;
}

}  // namespace

TEST_CASE("EPW records arrive at the end of their hour with their psychrometric wet bulb",
          "[scenarios][weather]") {
  const std::string text = header() + record(1, 1, 1, 30.0, 20.0, 55.0, 95461.0)
                           + record(1, 1, 2, 25.0, 25.0, 100.0, 101325.0)
                           + record(1, 1, 3, -10.0, -15.0, 65.0, 80000.0);
  const d::EpwWeather w = d::parseEpw(text, "w.epw");
  const auto& a = w.ambient;
  REQUIRE(a.time.size() == 3);
  // Hour 1 is the hour ending at 01:00 (EnergyPlus Auxiliary Programs, field Hour).
  CHECK(a.time[0] == 3600.0);
  CHECK(a.time[1] == 7200.0);
  CHECK(a.time[2] == 10800.0);
  CHECK(a.T_dry_bulb_series[0] == Approx(30.0 + kZeroC).epsilon(1e-15));
  CHECK(w.T_dew_point[2] == Approx(-15.0 + kZeroC).epsilon(1e-15));
  CHECK(w.p_station[2] == 80000.0);
  CHECK(w.elevation == 40.0);
  // The wet bulb of each record from its own dry bulb, dew point and pressure.
  for (std::size_t k = 0; k < 3; ++k) {
    CHECK(a.T_wet_bulb_series[k]
          == psy::wetBulbFromDewPoint(a.T_dry_bulb_series[k], w.T_dew_point[k], w.p_station[k]));
  }
  CHECK(a.T_wet_bulb_series[1] == a.T_dry_bulb_series[1]);  // saturated
  CHECK(a.T_wet_bulb_series[0] > w.T_dew_point[0]);
  CHECK(a.T_wet_bulb_series[0] < a.T_dry_bulb_series[0]);
  CHECK(a.T_dry_bulb == a.T_dry_bulb_series[0]);
  CHECK(a.T_wet_bulb == a.T_wet_bulb_series[0]);
  CHECK(a.period == 0.0);  // three hours are no year
  CHECK(a.calendar_year);
  CHECK(a.weather_path == "w.epw");
}

TEST_CASE("EPW calendar: a new year, 29 February and records every 15 minutes",
          "[scenarios][weather]") {
  // 31 December 23:00 and 24:00, then 1 January 01:00 of the next year.
  const d::EpwWeather new_year = d::parseEpw(header() + record(12, 31, 23, 1.0, 0.0, 90.0, 1e5)
                                                 + record(12, 31, 24, 1.0, 0.0, 90.0, 1e5)
                                                 + record(1, 1, 1, 1.0, 0.0, 90.0, 1e5),
                                             "w.epw");
  CHECK(new_year.ambient.time[0] == (364.0 * kDay + 23.0 * 3600.0));
  CHECK(new_year.ambient.time[1] == 365.0 * kDay);
  CHECK(new_year.ambient.time[2] == 365.0 * kDay + 3600.0);
  // A leap day: 1 March follows 29 February, one day later than in a common year.
  const d::EpwWeather leap = d::parseEpw(
      header() + record(2, 29, 24, 1.0, 0.0, 90.0, 1e5) + record(3, 1, 1, 1.0, 0.0, 90.0, 1e5),
      "w.epw");
  CHECK(leap.ambient.time[0] == 60.0 * kDay);
  CHECK(leap.ambient.time[1] == 60.0 * kDay + 3600.0);
  // Four records an hour: minutes 15, 30, 45, 60 end the intervals.
  std::string quarter = header(4);
  for (int k = 1; k <= 4; ++k)
    quarter += record(1, 1, 1, 1.0 * k, 0.0, 90.0, 1e5, 15 * k);
  quarter += record(1, 1, 2, 5.0, 0.0, 90.0, 1e5, 15);
  const d::EpwWeather q = d::parseEpw(quarter, "w.epw");
  REQUIRE(q.ambient.time.size() == 5);
  CHECK(q.records_per_hour == 4);
  for (std::size_t k = 0; k < 5; ++k)
    CHECK(q.ambient.time[k] == 900.0 * static_cast<double>(k + 1));
}

TEST_CASE("a whole EPW year repeats from weather_start", "[scenarios][weather]") {
  const d::EpwWeather common = d::parseEpw(year(365), "w.epw");
  CHECK(common.ambient.period == 365.0 * kDay);
  CHECK(common.ambient.time.back() == 365.0 * kDay);
  const d::EpwWeather leap = d::parseEpw(year(366), "w.epw");
  CHECK(leap.ambient.period == 366.0 * kDay);
  CHECK(d::parseEpw(year(200), "w.epw").ambient.period == 0.0);

  // Rotated to start at 01:30 on 1 January: time 0 is half way between hours 1 and 2
  // (11 and 12 degC); the year's last hour (34 degC, hour 24) leads into 01:00 (11 degC).
  const racktwin::core::AmbientSpec r = d::startAt(common.ambient, 1.5 * 3600.0);
  CHECK(r.file_time_at_start == 1.5 * 3600.0);
  CHECK(r.time.front() == 0.0);
  CHECK(r.time.back() == r.period);
  CHECK(r.T_dry_bulb_series.front() == Approx(11.5 + kZeroC).epsilon(1e-15));
  CHECK(r.T_dry_bulb_series.back() == r.T_dry_bulb_series.front());
  CHECK(r.T_dry_bulb == r.T_dry_bulb_series.front());
  for (std::size_t k = 1; k < r.time.size(); ++k)
    REQUIRE(r.time[k] > r.time[k - 1]);
  // The record of hour 2 at 0.5 h; the last record of the year at 365 d - 1.5 h; 01:00 at
  // 365 d - 0.5 h.
  CHECK(r.time[1] == 1800.0);
  CHECK(r.T_dry_bulb_series[1] == Approx(12.0 + kZeroC).epsilon(1e-15));
  const std::size_t n = r.time.size();
  CHECK(r.time[n - 3] == 365.0 * kDay - 5400.0);
  CHECK(r.T_dry_bulb_series[n - 3] == Approx(34.0 + kZeroC).epsilon(1e-15));
  CHECK(r.time[n - 2] == 365.0 * kDay - 1800.0);
  CHECK(r.T_dry_bulb_series[n - 2] == Approx(11.0 + kZeroC).epsilon(1e-15));
  // A start beyond the year wraps: 365 d + 1.5 h is the same series.
  CHECK(d::startAt(common.ambient, 365.0 * kDay + 5400.0).time == r.time);
  // A start at midnight: the year as it is, with its last hour at time 0 as well.
  const racktwin::core::AmbientSpec m = d::startAt(common.ambient, 0.0);
  CHECK(m.time.size() == common.ambient.time.size() + 1);
  CHECK(m.T_dry_bulb_series.front() == m.T_dry_bulb_series.back());
}

TEST_CASE("missing EPW values are filled and reported as warnings", "[scenarios][weather]") {
  d::LoadSession session;
  const std::string text = header()                                         // lines 1-8
                           + record(1, 1, 1, 10.0, 2.0, 57.0, 100000.0)     // line 9
                           + record(1, 1, 2, 99.9, 2.0, 57.0, 100000.0)     // dry bulb missing
                           + record(1, 1, 3, 99.9, 99.9, 50.0, 999999.0)    // dew from humidity
                           + record(1, 1, 4, 16.0, 99.9, 999.0, 100000.0);  // dew interpolated
  const d::EpwWeather w = d::parseEpw(text, "w.epw");
  const auto& a = w.ambient;
  // Dry bulb: linear between 10 degC (hour 1) and 16 degC (hour 4).
  CHECK(a.T_dry_bulb_series[1] == Approx(12.0 + kZeroC).epsilon(1e-12));
  CHECK(a.T_dry_bulb_series[2] == Approx(14.0 + kZeroC).epsilon(1e-12));
  // Dew point of hour 3 from its relative humidity at its (filled) dry bulb: p_w = 0.5 p_ws.
  const double p_w = 0.5 * psy::saturationPressure(14.0 + kZeroC);
  CHECK(w.T_dew_point[2] == Approx(psy::dewPointFromVapourPressure(p_w)).epsilon(1e-12));
  // Dew point of hour 4 (no humidity either): held from hour 3 at the end of the file.
  CHECK(w.T_dew_point[3] == w.T_dew_point[2]);
  // Pressure of hour 3: the standard atmosphere at 40 m (ASHRAE Fundamentals ch. 1 eq. 3).
  CHECK(w.p_station[2] == Approx(101325.0 * std::pow(1.0 - 2.25577e-5 * 40.0, 5.2559)));
  REQUIRE(session.warnings.size() == 4);
  CHECK_THAT(session.warnings[0], Catch::StartsWith("w.epw:10:")
                                      && Catch::Contains("dry bulb temperature (field 7)")
                                      && Catch::Contains("2 records had no dry bulb (missing)"));
  CHECK_THAT(session.warnings[1],
             Catch::StartsWith("w.epw:11:") && Catch::Contains("taken from the relative humidity"));
  CHECK_THAT(session.warnings[2],
             Catch::StartsWith("w.epw:12:") && Catch::Contains("filled by linear interpolation"));
  CHECK_THAT(session.warnings[3],
             Catch::StartsWith("w.epw:11:") && Catch::Contains("station pressure (missing)"));
}

TEST_CASE("unusual EPW values are warnings, a dew point at rounding above the dry bulb saturated",
          "[scenarios][weather]") {
  d::LoadSession session;
  const d::EpwWeather w =
      d::parseEpw(header() + record(7, 1, 1, 55.0, 36.0, 35.0, 100000.0)
                      + record(7, 1, 2, 20.0, 20.5, 100.0, 80000.0),  // 20 % below 40 m's
                  "w.epw");
  CHECK(w.T_dew_point[1] == w.ambient.T_dry_bulb_series[1]);
  CHECK(w.ambient.T_wet_bulb_series[1] == w.ambient.T_dry_bulb_series[1]);
  REQUIRE(session.warnings.size() == 4);
  CHECK_THAT(session.warnings[0], Catch::Contains("outside -50 to 50 degC"));
  CHECK_THAT(session.warnings[1], Catch::Contains("dew point above 35 degC"));
  CHECK_THAT(session.warnings[2], Catch::Contains("taken as saturated air"));
  CHECK_THAT(session.warnings[3],
             Catch::StartsWith("w.epw:10:") && Catch::Contains("more than 10 % away"));
}

TEST_CASE("bad EPW files give the file, line, column and field", "[scenarios][weather]") {
  struct Case {
    std::string text;
    int line, column;
    std::string key, says;
  };
  const std::string h = header();
  const std::string ok = record(1, 1, 1, 10.0, 5.0, 70.0, 100000.0);
  const std::vector<Case> cases = {
      {"DESIGN CONDITIONS,0\n", 1, 1, "", "expected the LOCATION header record"},
      {replaced(h, "COMMENTS 2,test\n", ""), 7, 1, "", "expected the COMMENTS 2 header record"},
      {replaced(h, "COMMENTS 2,test\nDATA PERIODS,1,1,Data,Monday,1/1,12/31\n", ""), 7, 1, "",
       "the file ends inside its header"},
      {h, 8, 1, "", "no data records"},
      {header(7) + ok, 8, 16, "records per hour (DATA PERIODS field 3)", "divides an hour"},
      {header(1, "high") + ok, 1, 57, "elevation (LOCATION field 10)",
       "expected a number of metres, got a field of 4 characters"},
      {header(1, "12000") + ok, 1, 57, "elevation (LOCATION field 10)", "outside the EPW range"},
      {h + "2001,1,1,1,0,*,10.0\n", 9, 16, "dew point temperature (field 8)",
       "a data record of 7 fields"},
      {h + record(13, 1, 1, 10.0, 5.0, 70.0, 1e5), 9, 6, "month (field 2)", "from 1 to 12"},
      {h + record(4, 31, 1, 10.0, 5.0, 70.0, 1e5), 9, 8, "day (field 3)", "from 1 to 30"},
      {h + record(1, 1, 0, 10.0, 5.0, 70.0, 1e5), 9, 10, "hour (field 4)", "from 1 to 24"},
      {h + record(1, 1, 1, 75.0, 5.0, 70.0, 1e5), 9, 16, "dry bulb temperature (field 7)",
       "75 degC, outside the EPW range above -70 and below 70 degC"},
      {h + record(1, 1, 1, 10.0, 13.0, 70.0, 1e5), 9, 21, "dew point temperature (field 8)",
       "more than 1 K above the dry bulb"},
      {h + record(1, 1, 1, 10.0, 5.0, 150.0, 1e5), 9, 25, "relative humidity (field 9)",
       "150 %, outside the EPW range 0 to 110 %"},
      {h + record(1, 1, 1, 10.0, 5.0, 70.0, 1013.0), 9, 30,
       "atmospheric station pressure (field 10)", "1013 Pa, outside the EPW range"},
      {h + ok + record(1, 1, 3, 10.0, 5.0, 70.0, 1e5), 10, 6, "month (field 2)",
       "does not follow the previous one (line 9) by 60 min"},
      {h + ok + ok, 10, 6, "month (field 2)", "does not follow the previous one"},
      {header(4) + record(1, 1, 1, 10.0, 5.0, 70.0, 1e5, 10), 9, 12, "minute (field 5)",
       "the minute ends an interval: 15, 30, ... 60"},
  };
  for (const Case& c : cases) {
    const InputError e = errorOf(c.text);
    INFO("what(): " << e.what());
    CHECK(e.where().file == "w.epw");
    CHECK(e.where().line == c.line);
    CHECK(e.where().column == c.column);
    CHECK(e.key() == c.key);
    CHECK_THAT(e.message(), Catch::Contains(c.says));
  }
  // More than 6 h of missing dry bulbs in a row: an error at the first of them.
  std::string gap = h + ok;
  for (int hour = 2; hour <= 8; ++hour)
    gap += record(1, 1, hour, 99.9, 5.0, 70.0, 1e5);
  gap += record(1, 1, 9, 10.0, 5.0, 70.0, 1e5);
  const InputError e = errorOf(gap);
  CHECK(e.where().line == 10);
  CHECK(e.key() == "dry bulb temperature (field 7)");
  CHECK_THAT(e.message(), Catch::Contains("7 records in a row from here have no value"));
}

TEST_CASE("EPW errors never quote the file's text", "[scenarios][weather]") {
  const std::string secret = "SECRETHASH" + std::string(200, 'x');
  const std::string h = header();
  for (const std::string& text :
       {secret + "\n" + h, header(1, secret),
        replaced(h, "DATA PERIODS,1,1", "DATA PERIODS,1," + secret),
        h + "2001,1,1,1,0,*," + secret + ",5,70,100000" + kTail + "\n",
        h + "2001," + secret + ",1,1,0,*,10,5,70,100000" + kTail + "\n"}) {
    const InputError e = errorOf(text);
    INFO("what(): " << e.what());
    CHECK(std::string(e.what()).find("SECRETHASH") == std::string::npos);
    CHECK(e.where().line > 0);
  }
}

TEST_CASE("the sample EPW is the synthetic New York year data/weather/README.md states",
          "[scenarios][weather]") {
  // NOAA normals for New York, Central Park (the README's source): mean daily maximum and minimum
  // dry bulb, degF. Every day's hottest hour is its maximum and its coolest hour its minimum (the
  // ASHRAE daily-range profile), and the day-to-day anomalies have zero monthly mean, so the
  // monthly means of the daily extremes are the normals, to the file's 0.1 K rounding.
  const double max_degF[12] = {38.3, 41.6, 49.7, 61.2, 70.8, 79.3,
                               84.1, 82.6, 75.2, 63.8, 53.8, 43.0};
  const double min_degF[12] = {26.9, 28.9, 35.2, 44.8, 54.0, 63.6,
                               68.8, 67.8, 60.8, 50.0, 41.6, 32.0};
  const int month_days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  d::LoadSession session;
  const std::string path = sourcePath("data/weather/new-york-synthetic.epw");
  const d::EpwWeather w = d::readEpw(path);
  CHECK(session.warnings.empty());
  const auto& a = w.ambient;
  REQUIRE(a.time.size() == 8760);
  CHECK(a.period == 365.0 * kDay);
  CHECK(w.elevation == 40.0);
  std::size_t k = 0;
  for (int m = 0; m < 12; ++m) {
    double sum_max = 0.0, sum_min = 0.0;
    for (int day = 0; day < month_days[m]; ++day) {
      double hi = -1e9, lo = 1e9;
      for (int h = 0; h < 24; ++h, ++k) {
        hi = std::max(hi, a.T_dry_bulb_series[k]);
        lo = std::min(lo, a.T_dry_bulb_series[k]);
      }
      sum_max += hi;
      sum_min += lo;
    }
    INFO("month " << m + 1);
    CHECK(sum_max / month_days[m] - kZeroC == Approx((max_degF[m] - 32.0) / 1.8).margin(0.05));
    CHECK(sum_min / month_days[m] - kZeroC == Approx((min_degF[m] - 32.0) / 1.8).margin(0.05));
  }
  // Pressure near the standard atmosphere at the stated 40 m, every dew point at or below its
  // dry bulb, the file says it is synthetic.
  const double p0 = 101325.0 * std::pow(1.0 - 2.25577e-5 * 40.0, 5.2559);
  for (std::size_t r = 0; r < 8760; ++r) {
    REQUIRE(std::abs(w.p_station[r] - p0) < 0.05 * p0);
    REQUIRE(w.T_dew_point[r] <= a.T_dry_bulb_series[r]);
  }
  const std::string text = readText(path);
  CHECK(text.find("SYNTHETIC typical year for demonstration only") != std::string::npos);
}

TEST_CASE("a scenario's EPW weather starts at weather_start and repeats with the year",
          "[scenarios][weather]") {
  // July 1, 00:00 is 181 days into a common year: 4344 h.
  const std::string scenario_path = sourcePath("scenarios/facility-loop-rack.yaml");
  const std::string text = replaced(
      readText(scenario_path), "ambient:\n  dry_bulb: 35 degC\n  wet_bulb: 24 degC\n",
      "ambient: {weather: ../data/weather/new-york-synthetic.epw, weather_start: 4344 h}\n");
  const racktwin::core::SiteSpec site =
      racktwin::scenarios::loadScenarioFromString(text, scenario_path, "");
  const auto& a = site.ambient;
  const d::EpwWeather w = d::readEpw(sourcePath("data/weather/new-york-synthetic.epw"));
  CHECK(a.period == 365.0 * kDay);
  CHECK(a.file_time_at_start == 4344.0 * 3600.0);
  REQUIRE(a.time.size() == 8761);
  // Record 4344 (0-based 4343) ends 1 July 00:00 (30 June, hour 24); record 4345 is 01:00.
  CHECK(a.time[0] == 0.0);
  CHECK(a.T_dry_bulb_series[0] == w.ambient.T_dry_bulb_series[4343]);
  CHECK(a.time[1] == 3600.0);
  CHECK(a.T_dry_bulb_series[1] == w.ambient.T_dry_bulb_series[4344]);
  CHECK(a.T_wet_bulb_series[1] == w.ambient.T_wet_bulb_series[4344]);
  CHECK(a.T_dry_bulb_series.back() == a.T_dry_bulb_series.front());
}

TEST_CASE("a run beyond a weather file's records is a warning at ambient.weather",
          "[scenarios][weather]") {
  // Three hourly records (01:00 to 03:00 of 1 January): with weather_start 1 h they cover 0 to
  // 2 h of the run. A 1 h run stays inside; a 4 h run holds the last record for 2 h.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path()
      / ("racktwin-epw-" + std::to_string(std::hash<std::string>{}(sourcePath(""))));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "short.epw", std::ios::binary)
        << header() + record(1, 1, 1, 10.0, 5.0, 70.0, 1e5) + record(1, 1, 2, 11.0, 5.0, 70.0, 1e5)
               + record(1, 1, 3, 12.0, 5.0, 70.0, 1e5);
  }
  const std::string base =
      replaced(replaced(readText(sourcePath("scenarios/facility-loop-rack.yaml")),
                        "ambient:\n  dry_bulb: 35 degC\n  wet_bulb: 24 degC\n",
                        "ambient: {weather: short.epw, weather_start: 1 h}\n"),
               "data_dir: ../data\n", "data_dir: " + sourcePath("data") + "\n");
  const std::string scenario = (dir / "site.yaml").string();
  const auto warningsOf = [&](const std::string& duration) {
    const std::string text =
        replaced(base, "duration: 3600 s\n  step", "duration: " + duration + "\n  step");
    return racktwin::scenarios::loadScenarioFromString(text, scenario, "").input_warnings;
  };
  CHECK(warningsOf("3600 s").empty());
  const std::vector<std::string> beyond = warningsOf("4 h");
  REQUIRE(beyond.size() == 1);
  CHECK_THAT(beyond[0], Catch::Contains("key 'ambient.weather'")
                            && Catch::Contains("the run (0 to 14400 s) reaches beyond the file's "
                                               "records (0 to 7200 s")
                            && Catch::Contains("its first and last values hold there"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("EPW: a filled dry bulb below its record's dew point clamps the dew point",
          "[scenarios][weather]") {
  // Hour 2's dry bulb is missing: interpolated to 20 degC, below the dew point the file gives
  // (25 degC). The file did not say the two disagree, so it is no error: saturated air.
  d::LoadSession session;
  const d::EpwWeather w = d::parseEpw(header() + record(1, 1, 1, 30.0, 25.0, 75.0, 1e5)
                                          + record(1, 1, 2, 99.9, 25.0, 75.0, 1e5)
                                          + record(1, 1, 3, 10.0, 9.0, 93.0, 1e5),
                                      "w.epw");
  CHECK(w.ambient.T_dry_bulb_series[1] == Approx(20.0 + kZeroC).epsilon(1e-12));
  CHECK(w.T_dew_point[1] == w.ambient.T_dry_bulb_series[1]);
  CHECK(w.ambient.T_wet_bulb_series[1] == w.ambient.T_dry_bulb_series[1]);
  REQUIRE(session.warnings.size() == 2);
  CHECK_THAT(session.warnings[1],
             Catch::StartsWith("w.epw:10:") && Catch::Contains("taken as saturated air"));
}

TEST_CASE("EPW text with Windows line ends and a byte-order mark", "[scenarios][weather]") {
  std::string text = "\xEF\xBB\xBF" + header() + record(1, 1, 1, 10.0, 5.0, 70.0, 1e5)
                     + record(1, 1, 2, 11.0, 5.0, 70.0, 1e5);
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 2))
    text.replace(at, 1, "\r\n");
  const d::EpwWeather w = d::parseEpw(text, "w.epw");
  REQUIRE(w.ambient.time.size() == 2);
  CHECK(w.ambient.T_dry_bulb_series[1] == Approx(11.0 + kZeroC).epsilon(1e-15));
  CHECK(w.p_station[1] == 1e5);
}
