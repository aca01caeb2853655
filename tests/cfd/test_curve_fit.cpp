// Curve fits recover known parameters from exact synthetic points.
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "racktwin/cfd/CurveFit.hpp"
#include "racktwin/core/Units.hpp"

using namespace racktwin::cfd;
using racktwin::core::kLitrePerMinute_m3_per_s;

TEST_CASE("R = a + b (V/V_ref)^-n is recovered from three exact points", "[cfd][fit]") {
  struct Case {
    double a, b, n;
    std::vector<double> flows_L_per_min;
  };
  for (const Case& c :
       {Case{0.0123, 0.0100, 0.8, {0.5, 1.0, 2.0}}, Case{0.0161661, 0.008392, 1.0, {0.4, 1.2, 2.4}},
        Case{0.2, 0.5, 0.35, {0.09, 0.18, 0.36}},
        Case{0.01, 0.02, 1.7, {0.75, 1.5, 3.0, 4.0, 6.0}}}) {
    std::vector<double> V, R;
    for (double f : c.flows_L_per_min) {
      V.push_back(f * kLitrePerMinute_m3_per_s);
      R.push_back(c.a + c.b * std::pow(f, -c.n));
    }
    const ResistanceFit fit = fitResistance(V, R, kLitrePerMinute_m3_per_s);
    CHECK(std::abs(fit.constant - c.a) < 1e-6);
    CHECK(std::abs(fit.flow_term - c.b) < 1e-6);
    CHECK(std::abs(fit.exponent - c.n) < 1e-6);
    CHECK(fit.rms_residual < 1e-9);
    CHECK(fit.evaluate(V[1]) == Approx(R[1]).epsilon(1e-9));
  }
}

TEST_CASE("two points fit a and b with the exponent fixed", "[cfd][fit]") {
  const std::vector<double> V{1.0, 2.0};
  const std::vector<double> R{0.03, 0.03 - 0.01};  // a = 0.01, b = 0.02, n = 1
  const ResistanceFit fit = fitResistance(V, R, 1.0);
  CHECK(fit.exponent == 1.0);
  CHECK(fit.constant == Approx(0.01).epsilon(1e-12));
  CHECK(fit.flow_term == Approx(0.02).epsilon(1e-12));
  const ResistanceFit fixed = fitResistance(
      V, std::vector<double>{0.01 + 0.02, 0.01 + 0.02 * std::pow(2.0, -0.8)}, 1.0, 0.8);
  CHECK(fixed.constant == Approx(0.01).epsilon(1e-12));
}

TEST_CASE("dp = k V^m is recovered from exact points", "[cfd][fit]") {
  for (double m : {1.0, 1.37, 1.85}) {
    const double k = 60.0e3 / std::pow(1.5 * kLitrePerMinute_m3_per_s, m);  // 60 kPa at 1.5 L/min
    std::vector<double> V, dp;
    for (double f : {0.75, 1.5, 3.0}) {
      V.push_back(f * kLitrePerMinute_m3_per_s);
      dp.push_back(k * std::pow(V.back(), m));
    }
    const PowerLawFit fit = fitPowerLaw(V, dp);
    CHECK(std::abs(fit.exponent - m) < 1e-6);
    CHECK(std::abs(fit.coefficient / k - 1.0) < 1e-6);
  }
}

TEST_CASE("fits reject what they cannot fit", "[cfd][fit]") {
  const std::vector<double> one{1.0};
  CHECK_THROWS_AS(fitResistance(one, one, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(fitPowerLaw(one, one), std::invalid_argument);
  const std::vector<double> V{1.0, -2.0}, y{1.0, 2.0};
  CHECK_THROWS_AS(fitResistance(V, y, 1.0), std::invalid_argument);
  const std::vector<double> V2{1.0, 2.0}, y2{1.0, 0.0};
  CHECK_THROWS_AS(fitPowerLaw(V2, y2), std::invalid_argument);
  const std::vector<double> same{1.0, 1.0};
  CHECK_THROWS_AS(fitResistance(same, y, 1.0), std::invalid_argument);
}
