#pragma once
// Overcurrent protection: the inverse-time characteristic of IEEE C37.112-2018 / IEC 60255-151
// (core::TripCurveSpec) and a breaker that integrates it under a varying current.
//
// Under a varying current the inverse-time element accumulates, as an induction-disc relay does
// (IEEE C37.112, clause 4), theta += dt / t(M) while M > 1 and trips when theta reaches 1; below
// pickup it resets, theta -= dt / t_r(M), or at once when the curve has no reset time. Under a
// constant current the trip comes exactly at t(M): the crossing is interpolated inside the step.
#include <cstdint>
#include <string>

#include "racktwin/core/ElectricalSpec.hpp"

namespace racktwin::power {

/// Trip time in s at M = I / I_pickup > 1 (infinite at M <= 1). @pre the curve is valid
double tripTime(const core::TripCurveSpec& curve, double time_dial, double M) noexcept;
/// Reset time in s at M < 1 (0 when the curve resets at once; infinite at M >= 1).
double resetTime(const core::TripCurveSpec& curve, double time_dial, double M) noexcept;

/// Throws std::invalid_argument naming `what` unless the breaker's settings are usable: pickup
/// and time dial > 0, A >= 0, B >= 0, A + B > 0, p > 0, reset >= 0, instantaneous >= 0 (a
/// breaker that is not present is always valid).
void validateBreaker(const core::BreakerSpec& breaker, const std::string& what);

enum class TripCause : std::uint8_t { None, InverseTime, Instantaneous };

/// The state of one breaker. A breaker that is not present never trips.
class Breaker {
 public:
  Breaker() = default;
  explicit Breaker(const core::BreakerSpec& spec);

  bool present() const noexcept { return spec_.present; }
  bool closed() const noexcept { return closed_; }
  /// Thermal state of the inverse-time element, 0 (cold) to 1 (trip).
  double theta() const noexcept { return theta_; }
  const core::BreakerSpec& spec() const noexcept { return spec_; }

  /// Integrates one step of length dt at rms phase current I (A), starting at t. When the breaker
  /// trips it opens and returns the cause; *trip_time is then the instant of the trip: t for an
  /// instantaneous trip, the interpolated crossing of theta = 1 for an inverse-time one.
  TripCause step(double t, double dt, double I, double* trip_time) noexcept {
    // Cold and below pickup, the usual case, stays cold: inline, without the curve.
    if (theta_ == 0.0 && !(I / spec_.I_pickup > 1.0)
        && !(spec_.I_instantaneous > 0.0 && I >= spec_.I_instantaneous)) {
      return TripCause::None;
    }
    return integrate(t, dt, I, trip_time);
  }
  /// Closes the breaker again with a cold thermal element (an operator reclosing it).
  void reclose() noexcept;

  /// Saves or restores the run state (core/StateArchive.hpp).
  template <class Archive>
  void visitState(Archive& archive) {
    archive(closed_, theta_);
  }

 private:
  TripCause integrate(double t, double dt, double I, double* trip_time) noexcept;
  core::BreakerSpec spec_;
  bool closed_ = true;
  double theta_ = 0.0;
};

}  // namespace racktwin::power
