#include "racktwin/cfd/CurveFit.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace racktwin::cfd {

namespace {

// Sum of squared residuals of R = a + b x^-n for fixed n, with a and b from the normal equations.
double linearFit(std::span<const double> x, std::span<const double> R, double n, double& a,
                 double& b) {
  double s1 = 0, sf = 0, sff = 0, sR = 0, sfR = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = std::pow(x[i], -n);
    s1 += 1.0;
    sf += f;
    sff += f * f;
    sR += R[i];
    sfR += f * R[i];
  }
  const double det = s1 * sff - sf * sf;
  if (!(std::abs(det) > 0.0)) {
    a = sR / s1;
    b = 0.0;
  } else {
    b = (s1 * sfR - sf * sR) / det;
    a = (sR - b * sf) / s1;
  }
  double ssr = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double e = a + b * std::pow(x[i], -n) - R[i];
    ssr += e * e;
  }
  return ssr;
}

void checkPoints(std::span<const double> V, std::span<const double> y, const char* what) {
  if (V.size() != y.size()) throw std::invalid_argument("flows and values differ in number");
  if (V.size() < 2) throw std::invalid_argument(std::string(what) + " needs at least 2 points");
  for (std::size_t i = 0; i < V.size(); ++i) {
    if (!(V[i] > 0.0) || !std::isfinite(V[i]) || !std::isfinite(y[i]))
      throw std::invalid_argument(std::string(what) + ": flows must be positive and finite");
    for (std::size_t j = 0; j < i; ++j) {
      if (V[j] == V[i]) throw std::invalid_argument(std::string(what) + ": repeated flow");
    }
  }
}

}  // namespace

double ResistanceFit::evaluate(double V) const {
  return constant + flow_term * std::pow(V / reference_flow, -exponent);
}

ResistanceFit fitResistance(std::span<const double> V, std::span<const double> R,
                            double reference_flow, std::optional<double> fixed_exponent) {
  checkPoints(V, R, "the resistance fit");
  if (!(reference_flow > 0.0)) throw std::invalid_argument("reference flow must be positive");
  std::vector<double> x(V.size());
  for (std::size_t i = 0; i < V.size(); ++i)
    x[i] = V[i] / reference_flow;

  ResistanceFit fit;
  fit.reference_flow = reference_flow;
  double n = fixed_exponent.value_or(1.0);
  if (!fixed_exponent && V.size() >= 3) {
    // Scan n in [0.05, 3] for the bracket of the smallest residual, then golden-section search.
    constexpr double kLow = 0.05, kHigh = 3.0;
    constexpr int kSteps = 295;
    double a = 0, b = 0;
    int best = 0;
    double best_ssr = std::numeric_limits<double>::infinity();
    for (int i = 0; i <= kSteps; ++i) {
      const double ssr = linearFit(x, R, kLow + (kHigh - kLow) * i / kSteps, a, b);
      if (ssr < best_ssr) {
        best_ssr = ssr;
        best = i;
      }
    }
    double lo = kLow + (kHigh - kLow) * std::max(0, best - 1) / kSteps;
    double hi = kLow + (kHigh - kLow) * std::min(kSteps, best + 1) / kSteps;
    const double g = 0.5 * (std::sqrt(5.0) - 1.0);
    double c = hi - g * (hi - lo), d = lo + g * (hi - lo);
    double fc = linearFit(x, R, c, a, b), fd = linearFit(x, R, d, a, b);
    for (int it = 0; it < 200 && hi - lo > 1e-13; ++it) {
      if (fc <= fd) {
        hi = d;
        d = c;
        fd = fc;
        c = hi - g * (hi - lo);
        fc = linearFit(x, R, c, a, b);
      } else {
        lo = c;
        c = d;
        fc = fd;
        d = lo + g * (hi - lo);
        fd = linearFit(x, R, d, a, b);
      }
    }
    n = 0.5 * (lo + hi);
  }
  fit.exponent = n;
  const double ssr = linearFit(x, R, n, fit.constant, fit.flow_term);
  fit.rms_residual = std::sqrt(ssr / static_cast<double>(V.size()));
  return fit;
}

double PowerLawFit::evaluate(double V) const {
  return coefficient * std::pow(V, exponent);
}

PowerLawFit fitPowerLaw(std::span<const double> V, std::span<const double> y) {
  checkPoints(V, y, "the power-law fit");
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < V.size(); ++i) {
    if (!(y[i] > 0.0)) throw std::invalid_argument("the power-law fit needs positive values");
    const double lx = std::log(V[i]), ly = std::log(y[i]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  const double n = static_cast<double>(V.size());
  PowerLawFit fit;
  fit.exponent = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  fit.coefficient = std::exp((sy - fit.exponent * sx) / n);
  return fit;
}

}  // namespace racktwin::cfd
