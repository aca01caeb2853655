#include "racktwin/power/PsuEfficiency.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace racktwin::power {

namespace {

[[noreturn]] void reject(std::string_view curve, const std::string& what) {
  throw std::invalid_argument(std::string(curve) + ": " + what);
}

}  // namespace

PsuEfficiency::PsuEfficiency(const core::EfficiencyCurve& curve, double P_rated,
                             std::string_view what)
    : P_rated_(P_rated) {
  if (!(std::isfinite(P_rated) && P_rated > 0.0)) {
    reject(what, "rated power must be a positive number of watts");
  }
  const std::size_t n = curve.load_fraction.size();
  if (curve.efficiency.size() != n) {
    reject(what, "load_fraction has " + std::to_string(n) + " entries but efficiency has "
                     + std::to_string(curve.efficiency.size()) + "; they must pair up");
  }
  if (n < 2) reject(what, "needs at least two (load fraction, efficiency) points");
  P_.reserve(n);
  loss_.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = curve.load_fraction[i];
    const double eta = curve.efficiency[i];
    if (!(std::isfinite(x) && x > 0.0)) {
      reject(what, "load fraction #" + std::to_string(i + 1) + " must be a positive number");
    }
    if (i > 0 && !(x > curve.load_fraction[i - 1])) {
      reject(what, "load fractions must be strictly ascending (entry #" + std::to_string(i + 1)
                       + " is not above the one before)");
    }
    if (!(eta > 0.0 && eta <= 1.0)) {
      reject(what, "efficiency #" + std::to_string(i + 1) + " must lie in (0, 1]");
    }
    const double P_out = x * P_rated;
    P_.push_back(P_out);
    loss_.push_back(P_out * (1.0 / eta - 1.0));
  }
  slope_.reserve(n - 1);
  for (std::size_t i = 0; i + 1 < n; ++i)
    slope_.push_back((loss_[i + 1] - loss_[i]) / (P_[i + 1] - P_[i]));
  // The loss is piecewise linear, so it is non-negative on [0, 1.2 rated] when it is at the table
  // points (true by construction, eta <= 1) and at the two ends of the extrapolations.
  for (const double P_check : {0.0, 1.2 * P_rated}) {
    const double l = loss(P_check);
    if (!(l >= 0.0)) {
      std::ostringstream message;
      message << "the linear extrapolation of the loss gives " << l << " W at " << P_check
              << " W output (" << P_check / P_rated * 100.0
              << " % load); the loss must not be negative between 0 and 120 % load";
      reject(what, message.str());
    }
  }
}

double PsuEfficiency::loss(double P_out) const noexcept {
  const double P = clampOutput(P_out);
  // Segment i joins points i and i + 1; the first and last segments extend beyond the table.
  const std::size_t last = P_.size() - 2;
  std::size_t i = 0;
  while (i < last && P >= P_[i + 1])
    ++i;
  return loss_[i] + slope_[i] * (P - P_[i]);
}

double PsuEfficiency::efficiency(double P_out) const noexcept {
  if (!(P_out > 0.0)) return 0.0;
  return P_out / (P_out + loss(P_out));
}

}  // namespace racktwin::power
