// PSU efficiency curve: the 80 PLUS Titanium points (80 PLUS program, 230 V internal redundant
// table, as listed in gb300_nvl72.md section 1), the shape of the loss between and beyond them,
// and the validation of bad curves.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "racktwin/power/PsuEfficiency.hpp"

using racktwin::core::EfficiencyCurve;
using racktwin::power::PsuEfficiency;

namespace {

constexpr double kRated = 5500.0;  // W, GB300 shelf PSU (gb300_nvl72.md s1)

EfficiencyCurve titanium() {
  // 80 PLUS Titanium (230 V internal redundant): 90 / 94 / 96 / 91 % at 10 / 20 / 50 / 100 % load.
  return EfficiencyCurve{{0.10, 0.20, 0.50, 1.00}, {0.90, 0.94, 0.96, 0.91}};
}

// Loss at a table point by definition of efficiency: P_in = P_out / eta.
double tableLoss(double load_fraction, double eta) {
  return load_fraction * kRated * (1.0 / eta - 1.0);
}

}  // namespace

TEST_CASE("PSU efficiency equals the 80 PLUS Titanium table at 10/20/50/100 % load", "[power]") {
  const PsuEfficiency psu(titanium(), kRated);
  // 80 PLUS Titanium table, gb300_nvl72.md s1.
  CHECK(psu.efficiency(0.10 * kRated) == Approx(0.90).epsilon(1e-12));
  CHECK(psu.efficiency(0.20 * kRated) == Approx(0.94).epsilon(1e-12));
  CHECK(psu.efficiency(0.50 * kRated) == Approx(0.96).epsilon(1e-12));
  CHECK(psu.efficiency(1.00 * kRated) == Approx(0.91).epsilon(1e-12));
  // input = output / efficiency at the table points.
  CHECK(psu.input(0.50 * kRated) == Approx(0.50 * kRated / 0.96).epsilon(1e-12));
  CHECK(psu.ratedPower() == kRated);
}

TEST_CASE("PSU loss is linear between table points and extrapolates the end segments", "[power]") {
  const PsuEfficiency psu(titanium(), kRated);
  const double l10 = tableLoss(0.10, 0.90);
  const double l20 = tableLoss(0.20, 0.94);
  const double l50 = tableLoss(0.50, 0.96);
  const double l100 = tableLoss(1.00, 0.91);
  // Midpoints of each segment: the mean of the end losses (specified piecewise-linear law).
  CHECK(psu.loss(0.15 * kRated) == Approx(0.5 * (l10 + l20)).epsilon(1e-12));
  CHECK(psu.loss(0.35 * kRated) == Approx(0.5 * (l20 + l50)).epsilon(1e-12));
  CHECK(psu.loss(0.75 * kRated) == Approx(0.5 * (l50 + l100)).epsilon(1e-12));
  // No-load loss: the 10-20 % segment extended to zero output, l10 - (l20 - l10).
  const double l0 = l10 - (l20 - l10);
  CHECK(l0 > 0.0);
  CHECK(psu.loss(0.0) == Approx(l0).epsilon(1e-12));
  CHECK(psu.noLoadLoss() == Approx(l0).epsilon(1e-12));
  CHECK(psu.loss(0.05 * kRated) == Approx(0.5 * (l0 + l10)).epsilon(1e-12));
  // Overload: the 50-100 % segment extended, 110 % = l100 + (l100 - l50) / 5.
  CHECK(psu.loss(1.10 * kRated) == Approx(l100 + (l100 - l50) / 5.0).epsilon(1e-12));
  // Zero output: no efficiency, the input is the no-load loss; negative output counts as zero.
  CHECK(psu.efficiency(0.0) == 0.0);
  CHECK(psu.input(0.0) == Approx(l0).epsilon(1e-12));
  CHECK(psu.loss(-100.0) == Approx(l0).epsilon(1e-12));
  CHECK(psu.input(-100.0) == Approx(l0).epsilon(1e-12));
}

TEST_CASE("PSU loss is continuous and non-negative from 0 to 120 % load", "[power]") {
  const PsuEfficiency psu(titanium(), kRated);
  // Steepest segment slope (50 -> 100 %) bounds the change over a small step.
  const double max_slope = (tableLoss(1.00, 0.91) - tableLoss(0.50, 0.96)) / (0.5 * kRated);
  const double h = 1e-3;  // W
  for (const double x : {0.10, 0.20, 0.50, 1.00}) {
    const double P = x * kRated;
    CHECK(std::abs(psu.loss(P + h) - psu.loss(P - h)) <= 2.0 * h * max_slope * (1.0 + 1e-6));
  }
  double previous = psu.loss(0.0);
  const int n = 12000;
  for (int i = 0; i <= n; ++i) {
    const double P = 1.2 * kRated * i / n;
    const double l = psu.loss(P);
    CHECK(l >= 0.0);
    CHECK(std::isfinite(l));
    // Neighbouring samples 0.55 W apart differ by at most the steepest slope times the spacing.
    CHECK(std::abs(l - previous) <= max_slope * 1.2 * kRated / n * (1.0 + 1e-9));
    CHECK(psu.efficiency(P) >= 0.0);
    CHECK(psu.efficiency(P) < 1.0);
    previous = l;
  }
}

TEST_CASE("PSU efficiency curve rejects invalid tables", "[power]") {
  using Catch::Matchers::Contains;
  const auto make = [](EfficiencyCurve curve, double rated = kRated) {
    return PsuEfficiency(curve, rated);
  };
  CHECK_THROWS_AS(make({{0.5}, {0.96}}), std::invalid_argument);
  CHECK_THROWS_WITH(make({{0.1, 0.2}, {0.9}}), Contains("pair up"));
  CHECK_THROWS_WITH(make({{0.2, 0.1}, {0.9, 0.94}}), Contains("ascending"));
  CHECK_THROWS_WITH(make({{0.1, 0.1}, {0.9, 0.94}}), Contains("ascending"));
  CHECK_THROWS_WITH(make({{0.0, 0.2}, {0.9, 0.94}}), Contains("positive"));
  CHECK_THROWS_WITH(make({{0.1, 0.2}, {0.9, 1.01}}), Contains("(0, 1]"));
  CHECK_THROWS_WITH(make({{0.1, 0.2}, {0.0, 0.94}}), Contains("(0, 1]"));
  CHECK_THROWS_WITH(make({{0.1, 0.2}, {0.9, std::numeric_limits<double>::quiet_NaN()}}),
                    Contains("(0, 1]"));
  CHECK_THROWS_WITH(make(titanium(), 0.0), Contains("rated power"));
  // Loss rising steeply from 10 to 20 % extrapolates below zero at no load.
  CHECK_THROWS_WITH(make({{0.1, 0.2}, {0.99, 0.90}}), Contains("must not be negative"));
  // Loss falling steeply from 50 to 100 % extrapolates below zero at 120 %.
  CHECK_THROWS_WITH(make({{0.5, 1.0}, {0.5, 0.99}}), Contains("must not be negative"));
  // 100 % efficient points are allowed (zero loss there).
  CHECK_NOTHROW(make({{0.5, 1.0}, {1.0, 1.0}}));
}
