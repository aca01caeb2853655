// Breakers: trip times against the inverse-time formulas of IEC 60255-151:2009 (Table 1:
// standard inverse k = 0.14, alpha = 0.02) and IEEE C37.112-2018 (Table 1: very inverse A =
// 19.61, B = 0.491, p = 2; reset tr = 21.6 s), integration under a varying current (the
// standard's induction-disc integral), reset, and the instantaneous element.
#include <catch2/catch.hpp>

#include <cmath>

#include "ElectricalTestSite.hpp"
#include "racktwin/power/Protection.hpp"

using namespace racktwin;

namespace {

/// Steps a breaker at constant current until it trips; returns the trip time.
double tripAt(power::Breaker& b, double I, double dt, double t_max) {
  double t = 0.0, when = -1.0;
  while (t < t_max) {
    if (b.step(t, dt, I, &when) != power::TripCause::None) return when;
    t += dt;
  }
  return -1.0;
}

}  // namespace

TEST_CASE("IEC standard inverse trips at TMS * 0.14 / (M^0.02 - 1)", "[power]") {
  for (const double M : {1.2, 2.0, 5.0, 10.0}) {
    for (const double tms : {0.05, 0.1, 0.5}) {
      power::Breaker b(test::iecStandardInverse(100.0, tms));
      const double expected = tms * 0.14 / (std::pow(M, 0.02) - 1.0);  // IEC 60255-151 Table 1
      CHECK(power::tripTime(b.spec().curve, tms, M) == Approx(expected).epsilon(1e-14));
      INFO("M = " << M << ", TMS = " << tms);
      CHECK(tripAt(b, M * 100.0, 0.1, 1e4) == Approx(expected).epsilon(1e-9));
      CHECK_FALSE(b.closed());
    }
  }
  // Below pickup nothing happens.
  power::Breaker b(test::iecStandardInverse(100.0, 0.1));
  CHECK(tripAt(b, 99.9, 0.1, 1000.0) < 0.0);
  CHECK(b.closed());
}

TEST_CASE("IEEE very inverse trip, varying current and reset", "[power]") {
  core::BreakerSpec s;
  s.present = true;
  s.I_pickup = 200.0;
  s.curve = core::TripCurveSpec{19.61, 0.491, 2.0, 21.6};  // IEEE C37.112 very inverse
  s.time_dial = 0.5;
  const auto t = [&](double M) { return 0.5 * (19.61 / (M * M - 1.0) + 0.491); };
  {
    power::Breaker b(s);
    CHECK(tripAt(b, 3.0 * 200.0, 0.05, 100.0) == Approx(t(3.0)).epsilon(1e-9));
  }
  {
    // Half the trip time at M = 2 fills theta to 0.5; at M = 4 the other half takes t(4) / 2.
    power::Breaker b(s);
    const double half = 0.5 * t(2.0);
    const double dt = half / 40.0;
    double time = 0.0, when = -1.0;
    for (int k = 0; k < 40; ++k, time += dt)
      REQUIRE(b.step(time, dt, 400.0, &when) == power::TripCause::None);
    CHECK(b.theta() == Approx(0.5).epsilon(1e-12));
    while (b.step(time, dt, 800.0, &when) == power::TripCause::None)
      time += dt;
    CHECK(when == Approx(half + 0.5 * t(4.0)).epsilon(1e-9));
  }
  {
    // Reset (IEEE C37.112 eq. 2): at M = 0 the disc resets fully in TD * tr; half of it in half.
    power::Breaker b(s);
    double when = 0.0;
    const double half = 0.5 * t(2.0);
    REQUIRE(b.step(0.0, half, 400.0, &when) == power::TripCause::None);
    REQUIRE(b.theta() == Approx(0.5).epsilon(1e-12));
    REQUIRE(b.step(half, 0.25 * 0.5 * 21.6, 0.0, &when) == power::TripCause::None);
    CHECK(b.theta() == Approx(0.25).epsilon(1e-12));
  }
}

TEST_CASE("Instantaneous element trips within the step, reclose restores a cold breaker",
          "[power]") {
  core::BreakerSpec s = test::iecStandardInverse(100.0, 0.1);
  s.I_instantaneous = 1000.0;
  power::Breaker b(s);
  double when = -1.0;
  CHECK(b.step(5.0, 0.1, 999.0, &when) == power::TripCause::None);
  CHECK(b.step(5.1, 0.1, 1000.0, &when) == power::TripCause::Instantaneous);
  CHECK(when == 5.1);
  CHECK_FALSE(b.closed());
  CHECK(b.step(5.2, 0.1, 10.0, &when) == power::TripCause::None);  // open stays open
  b.reclose();
  CHECK(b.closed());
  CHECK(b.theta() == 0.0);
  // An absent breaker never trips.
  power::Breaker none;
  CHECK(none.step(0.0, 1.0, 1e9, &when) == power::TripCause::None);
}

TEST_CASE("Breaker settings are validated", "[power]") {
  core::BreakerSpec s = test::iecStandardInverse(100.0, 0.1);
  CHECK_NOTHROW(power::validateBreaker(s, "x"));
  s.I_pickup = 0.0;
  CHECK_THROWS_WITH(power::validateBreaker(s, "feed f"), Catch::Matchers::Contains("feed f"));
  s = test::iecStandardInverse(100.0, 0.1);
  s.I_instantaneous = 50.0;
  CHECK_THROWS_AS(power::validateBreaker(s, "x"), std::invalid_argument);
  s = test::iecStandardInverse(100.0, 0.1);
  s.curve.p = 0.0;
  CHECK_THROWS_AS(power::validateBreaker(s, "x"), std::invalid_argument);
}
