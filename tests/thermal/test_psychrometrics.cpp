// Psychrometrics against published values (docs/references/weather.md):
//  - ASHRAE Handbook - Fundamentals (2017) ch. 1, Table 1 (standard atmosphere), Table 2 (moist
//    air at saturation, 101.325 kPa) and Table 3 (saturation pressure of water), as transcribed
//    with their tolerances in the test suite of PsychroLib (D. Meyer and D. Thevenard, J. Open
//    Source Softw. 4(33), 1137, 2019; tests/test_psychrolib_si.py);
//  - the humidity ratio of 30 degC dry bulb / 25 degC wet bulb and of -1 / -5 degC at 95.461 kPa
//    as computed independently (spreadsheet) by the same PsychroLib tests;
//  - ASHRAE Fundamentals 2017 ch. 1 Example 1 (40 degC dry bulb, 20 degC wet bulb, 101.325 kPa:
//    W = 0.0065 kg/kg).
// The numbers are typed from those references, not from this program's output.
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

#include "racktwin/core/Units.hpp"
#include "racktwin/thermal/Psychrometrics.hpp"

namespace psy = racktwin::thermal::psychrometrics;
using racktwin::core::fromCelsius;

namespace {
double relativeError(double value, double reference) {
  return std::abs(value - reference) / std::abs(reference);
}
}  // namespace

TEST_CASE("saturation pressure agrees with ASHRAE Fundamentals Table 3 within 300 ppm",
          "[thermal][psychrometrics]") {
  // ASHRAE states the Hyland-Wexler equations agree with the table within 300 ppm (-60 degC is
  // the exception PsychroLib notes: 1.08 Pa to 0.01 Pa).
  struct Point {
    double t_degC, p_Pa;
  };
  for (const Point& point :
       {Point{-20.0, 103.24}, Point{-5.0, 401.74}, Point{5.0, 872.6}, Point{25.0, 3169.7},
        Point{50.0, 12351.3}, Point{100.0, 101418.0}, Point{150.0, 476101.4}}) {
    INFO("t = " << point.t_degC << " degC");
    CHECK(relativeError(psy::saturationPressure(fromCelsius(point.t_degC)), point.p_Pa) < 3e-4);
  }
  CHECK(psy::saturationPressure(fromCelsius(-60.0)) == Approx(1.08).margin(0.01));
}

TEST_CASE("saturation humidity ratio agrees with ASHRAE Fundamentals Table 2",
          "[thermal][psychrometrics]") {
  // W_s = 0.621945 p_ws / (p - p_ws) at 101.325 kPa; the table's values carry the enhancement
  // factor the ideal-gas relation leaves out, hence PsychroLib's 0.5 to 1 % tolerances.
  struct Point {
    double t_degC, W, tolerance;
  };
  for (const Point& point :
       {Point{-20.0, 0.0006373, 0.01}, Point{-5.0, 0.0024863, 0.005}, Point{5.0, 0.005425, 0.005},
        Point{25.0, 0.020173, 0.005}, Point{50.0, 0.086863, 0.01}}) {
    INFO("t = " << point.t_degC << " degC");
    const double T = fromCelsius(point.t_degC);
    const double W = psy::humidityRatioFromVapourPressure(psy::saturationPressure(T), 101325.0);
    CHECK(relativeError(W, point.W) < point.tolerance);
  }
}

TEST_CASE("standard atmosphere agrees with ASHRAE Fundamentals Table 1 to 1 Pa",
          "[thermal][psychrometrics]") {
  struct Point {
    double Z_m, p_Pa;
  };
  for (const Point& point :
       {Point{-500.0, 107478.0}, Point{0.0, 101325.0}, Point{500.0, 95461.0},
        Point{1000.0, 89875.0}, Point{4000.0, 61640.0}, Point{10000.0, 26436.0}}) {
    INFO("Z = " << point.Z_m << " m");
    CHECK(psy::standardPressure(point.Z_m) == Approx(point.p_Pa).margin(1.0));
  }
}

TEST_CASE("the wet-bulb energy balance gives the independently computed humidity ratios",
          "[thermal][psychrometrics]") {
  // Above freezing: 30 degC dry bulb, 25 degC wet bulb, 95.461 kPa (standard pressure at 500 m).
  const double W_warm =
      psy::humidityRatioFromWetBulb(fromCelsius(30.0), fromCelsius(25.0), 95461.0);
  CHECK(relativeError(W_warm, 0.0192281274241096) < 3e-4);
  // Below freezing (the ice form of the balance): -1 degC dry bulb, -5 degC wet bulb.
  const double W_cold =
      psy::humidityRatioFromWetBulb(fromCelsius(-1.0), fromCelsius(-5.0), 95461.0);
  CHECK(relativeError(W_cold, 0.00120399819933844) < 3e-4);
  // ASHRAE Fundamentals 2017 ch. 1 Example 1: 40 degC, 20 degC wet bulb, 101.325 kPa.
  CHECK(psy::humidityRatioFromWetBulb(fromCelsius(40.0), fromCelsius(20.0), 101325.0)
        == Approx(0.0065).margin(0.0001));
}

TEST_CASE("the wet bulb from dew point and pressure recovers the reference wet bulbs",
          "[thermal][psychrometrics]") {
  // The dew point of the reference humidity ratio (p_w = W p / (0.621945 + W)), then the wet bulb
  // back from dew point and pressure: 25 degC and -5 degC within 1 mK.
  struct Case {
    double t, t_wet, p, W;
  };
  for (const Case& c : {Case{30.0, 25.0, 95461.0, 0.0192281274241096},
                        Case{-1.0, -5.0, 95461.0, 0.00120399819933844}}) {
    INFO("dry bulb " << c.t << " degC, wet bulb " << c.t_wet << " degC");
    const double p_w = c.W * c.p / (0.621945 + c.W);
    const double T_dew = psy::dewPointFromVapourPressure(p_w);
    CHECK(psy::wetBulbFromDewPoint(fromCelsius(c.t), T_dew, c.p)
          == Approx(fromCelsius(c.t_wet)).margin(1e-3));
  }
}

TEST_CASE("wet bulb: between dew point and dry bulb, equal to both at saturation",
          "[thermal][psychrometrics]") {
  const double p = 101325.0;
  for (double t = -30.0; t <= 50.0; t += 5.0) {
    const double T = fromCelsius(t);
    CHECK(psy::wetBulbFromDewPoint(T, T, p) == T);
    double previous = 0.0;
    for (double depression = 30.0; depression >= 0.5; depression -= 2.5) {
      const double T_dew = T - depression;
      const double T_wet = psy::wetBulbFromDewPoint(T, T_dew, p);
      INFO("t = " << t << " degC, dew point depression " << depression << " K");
      CHECK(T_wet >= T_dew - 1e-9);
      CHECK(T_wet <= T + 1e-9);
      CHECK(T_wet > previous);  // a higher dew point, a higher wet bulb
      previous = T_wet;
    }
  }
  // Lower pressure (altitude) evaporates more readily: the wet bulb falls.
  const double T = fromCelsius(35.0), T_dew = fromCelsius(15.0);
  CHECK(psy::wetBulbFromDewPoint(T, T_dew, 80000.0) < psy::wetBulbFromDewPoint(T, T_dew, p));
}

TEST_CASE("dew point inverts the saturation pressure", "[thermal][psychrometrics]") {
  for (double t = -90.0; t <= 190.0; t += 7.0) {
    const double T = fromCelsius(t);
    CHECK(psy::dewPointFromVapourPressure(psy::saturationPressure(T)) == Approx(T).margin(1e-6));
  }
  CHECK(psy::relativeHumidity(fromCelsius(20.0), fromCelsius(20.0)) == 1.0);
}

TEST_CASE("psychrometric functions refuse arguments outside their equations' range",
          "[thermal][psychrometrics]") {
  CHECK_THROWS_AS(psy::saturationPressure(100.0), std::invalid_argument);
  CHECK_THROWS_AS(psy::saturationPressure(std::nan("")), std::invalid_argument);
  CHECK_THROWS_AS(psy::wetBulbFromDewPoint(fromCelsius(20.0), fromCelsius(21.0), 101325.0),
                  std::invalid_argument);
  CHECK_THROWS_AS(psy::wetBulbFromDewPoint(fromCelsius(20.0), fromCelsius(10.0), 0.0),
                  std::invalid_argument);
  CHECK_THROWS_AS(psy::standardPressure(20000.0), std::invalid_argument);
  CHECK_THROWS_AS(psy::dewPointFromVapourPressure(-1.0), std::invalid_argument);
}
