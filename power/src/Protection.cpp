#include "racktwin/power/Protection.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace racktwin::power {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

bool nonNegative(double x) {
  return std::isfinite(x) && x >= 0.0;
}

}  // namespace

double tripTime(const core::TripCurveSpec& curve, double time_dial, double M) noexcept {
  if (!(M > 1.0)) return kInfinity;
  const double denominator = std::pow(M, curve.p) - 1.0;
  if (!(denominator > 0.0)) return kInfinity;  // M so close to 1 that M^p rounds to 1
  return time_dial * (curve.A / denominator + curve.B);
}

double resetTime(const core::TripCurveSpec& curve, double time_dial, double M) noexcept {
  if (!(M < 1.0)) return kInfinity;
  return time_dial * curve.reset / (1.0 - M * M);
}

void validateBreaker(const core::BreakerSpec& b, const std::string& what) {
  if (!b.present) return;
  const auto fail = [&](const std::string& message) {
    throw std::invalid_argument(what + ": breaker " + message);
  };
  if (!(std::isfinite(b.I_pickup) && b.I_pickup > 0.0)) fail("pickup current must be > 0 A");
  if (!(std::isfinite(b.time_dial) && b.time_dial > 0.0)) fail("time dial must be > 0");
  if (!nonNegative(b.curve.A) || !nonNegative(b.curve.B) || !(b.curve.A + b.curve.B > 0.0)) {
    fail("curve constants A and B must be >= 0 and not both 0");
  }
  if (!(std::isfinite(b.curve.p) && b.curve.p > 0.0)) fail("curve exponent p must be > 0");
  if (!nonNegative(b.curve.reset)) fail("reset time must be >= 0 s");
  if (!nonNegative(b.I_instantaneous)) fail("instantaneous pickup must be >= 0 A (0 = none)");
  if (b.I_instantaneous > 0.0 && b.I_instantaneous <= b.I_pickup) {
    fail("instantaneous pickup must lie above the inverse-time pickup");
  }
}

Breaker::Breaker(const core::BreakerSpec& spec) : spec_(spec) {}

TripCause Breaker::integrate(double t, double dt, double I, double* trip_time) noexcept {
  if (!spec_.present || !closed_) return TripCause::None;
  if (spec_.I_instantaneous > 0.0 && I >= spec_.I_instantaneous) {
    closed_ = false;
    theta_ = 1.0;
    if (trip_time != nullptr) *trip_time = t;
    return TripCause::Instantaneous;
  }
  const double M = I / spec_.I_pickup;
  if (M > 1.0) {
    const double rate = 1.0 / tripTime(spec_.curve, spec_.time_dial, M);  // 1/s, 0 near M = 1
    const double theta_new = theta_ + rate * dt;
    if (theta_new >= 1.0) {
      // theta grows linearly inside the step: the crossing is exact for a constant current.
      const double fraction = rate > 0.0 ? (1.0 - theta_) / (rate * dt) : 1.0;
      if (trip_time != nullptr) *trip_time = t + fraction * dt;
      closed_ = false;
      theta_ = 1.0;
      return TripCause::InverseTime;
    }
    theta_ = theta_new;
  } else if (spec_.curve.reset > 0.0) {
    theta_ -= dt / resetTime(spec_.curve, spec_.time_dial, M);
    if (theta_ < 0.0) theta_ = 0.0;
  } else {
    theta_ = 0.0;
  }
  return TripCause::None;
}

void Breaker::reclose() noexcept {
  closed_ = true;
  theta_ = 0.0;
}

}  // namespace racktwin::power
