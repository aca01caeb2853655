// The hunting watch (cooling::HuntingWatch) on made-up error signals: a sustained swing is
// hunting, lopsided or not; a damped answer to a disturbance, a held offset and a swing inside
// the band are not.
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

#include "cooling/HuntingWatch.hpp"

using racktwin::thermal::cooling::HuntingWatch;

namespace {

/// Feeds error(t) sampled every h seconds for `duration` seconds.
template <class F>
HuntingWatch watch(F error, double h, double duration) {
  HuntingWatch w;
  for (double t = h; t <= duration + 1e-9; t += h)
    w.observe(t, h, error(t));
  return w;
}

constexpr double kPi = std::numbers::pi;

}  // namespace

TEST_CASE("a sustained swing about the set-point is hunting", "[thermal][hunting]") {
  // +-1.5 K, period 60 s, sampled every 10 s (samples at 0.87 of the peak at worst).
  const auto swing = [](double t) { return 1.5 * std::sin(2.0 * kPi * t / 60.0 + 0.3); };
  const HuntingWatch w = watch(swing, 10.0, 1200.0);
  REQUIRE(w.found());
  // Six half-cycles of 30 s: recognised at the end of the sixth, or the seventh.
  CHECK(w.foundAt() <= 7 * 30.0 + 10.0);
  CHECK(w.amplitude() == Approx(1.5).margin(0.21));
  CHECK(w.period() == Approx(60.0).margin(20.0));
  CHECK(w.sample() == 10.0);
  // Not before six half-cycles have passed.
  CHECK_FALSE(watch(swing, 10.0, 5 * 30.0).found());
}

TEST_CASE("a lopsided swing, clipped on one side, is hunting", "[thermal][hunting]") {
  // +3 K above, -0.6 K below (a valve that saturates open on the warm side).
  const auto lopsided = [](double t) {
    const double s = std::sin(2.0 * kPi * t / 40.0 + 0.2);
    return s > 0.0 ? 3.0 * s : 0.6 * s;
  };
  const HuntingWatch w = watch(lopsided, 2.0, 800.0);
  REQUIRE(w.found());
  CHECK(w.amplitude() == Approx(3.0).margin(0.1));
}

TEST_CASE("a damped answer, a held offset and a small ripple are not hunting",
          "[thermal][hunting]") {
  // A 3 K disturbance answered with a damping ratio of 0.2: each half-cycle about half the last.
  const auto damped = [](double t) {
    return 3.0 * std::exp(-0.2 * 2.0 * kPi / 60.0 * t) * std::cos(2.0 * kPi * t / 60.0);
  };
  CHECK_FALSE(watch(damped, 1.0, 1800.0).found());
  // A supply held 2 K above its set-point (a valve fully open that cannot do more).
  CHECK_FALSE(watch([](double) { return 2.0; }, 10.0, 1800.0).found());
  // A ripple inside the band.
  CHECK_FALSE(watch([](double t) { return 0.08 * std::sin(t); }, 1.0, 1800.0).found());
  // Swings that cross the band but stay below the amplitude counted.
  CHECK_FALSE(
      watch([](double t) { return 0.2 * std::sin(2.0 * kPi * t / 30.0); }, 1.0, 1800.0).found());
}
