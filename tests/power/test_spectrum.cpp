// Spectrum of facility power: the dominant frequency and amplitude of known signals (a sinusoid
// between FFT bins, a square wave whose fundamental has amplitude 4/pi of its half swing,
// Fourier series, the same swing with a pause that shifts its phase), and the bounded series
// that keeps a whole run.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "racktwin/power/Spectrum.hpp"

using namespace racktwin;

namespace {
constexpr double kPi = 3.14159265358979323846;
}

TEST_CASE("Dominant oscillation of a sinusoid between bins", "[power]") {
  const double dt = 0.1, f = 0.2317, a = 1234.0;
  std::vector<double> x(3000);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = 5.0e6 + a * std::sin(2.0 * kPi * f * static_cast<double>(i) * dt + 0.3);
  const power::SpectralPeak p = power::dominantOscillation(x, dt);
  REQUIRE(p.found);
  CHECK(p.frequency == Approx(f).epsilon(1e-4));
  CHECK(p.amplitude == Approx(a).epsilon(5e-3));
}

TEST_CASE("Dominant oscillation of a square wave is its fundamental", "[power]") {
  // 3 s high, 1 s low: the fundamental at 0.25 Hz has amplitude (2 h / pi) sin(pi D) with
  // h the swing and D = 0.75 the duty (Fourier series of a pulse train).
  const double dt = 0.1, high = 100e3, low = 40e3;
  std::vector<double> x(6000);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = (i % 40) < 30 ? high : low;
  const power::SpectralPeak p = power::dominantOscillation(x, dt);
  REQUIRE(p.found);
  CHECK(p.frequency == Approx(0.25).epsilon(1e-4));
  CHECK(p.amplitude == Approx(2.0 * (high - low) / kPi * std::sin(kPi * 0.75)).epsilon(1e-2));
}

TEST_CASE("A pause that shifts the swing's phase does not hide its fundamental", "[power]") {
  // Synchronous training for an hour with a 30 s checkpoint in the middle: 3.2 s at 95 %, 0.8 s
  // at 40 %, the pause at 15 %. The pause is 7.5 periods long, so the swing after it is half a
  // period out of phase with the swing before it. One transform of the whole hour adds the two
  // halves' fundamentals with opposite signs (they cancel) and their second harmonics in phase,
  // and named 0.5 Hz the dominant oscillation. What the utility sees is the 0.25 Hz swing all
  // hour: amplitude (2 h / pi) sin(pi D), h the swing and D = 0.8 (Fourier series of a pulse
  // train); the second harmonic's is (h / pi) sin(2 pi D), 19 % smaller.
  const double dt = 0.1, high = 1330.0, low = 560.0, pause = 210.0;
  const auto wave = [&](double t) { return std::fmod(t, 4.0) < 3.2 - 1e-9 ? high : low; };
  std::vector<double> x(36000);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double t = static_cast<double>(i) * dt + 0.05;  // mid-sample
    x[i] = t < 1800.0 ? wave(t) : t < 1830.0 ? pause : wave(t - 1830.0);
  }
  const power::SpectralPeak p = power::dominantOscillation(x, dt);
  REQUIRE(p.found);
  CHECK(p.frequency == Approx(0.25).epsilon(1e-3));
  CHECK(p.amplitude == Approx(2.0 * (high - low) / kPi * std::sin(kPi * 0.8)).epsilon(0.01));
}

TEST_CASE("A fundamental between bins is not lost to an on-bin harmonic", "[power]") {
  // A pulse train of duty D = 0.86 (an iteration's long compute phase and short collectives):
  // its second harmonic is 0.91 of its fundamental. With the fundamental half-way between two of
  // the transform's bins (the Hann window's worst case, 15 % low) and the second harmonic on a
  // bin, the largest bin is the harmonic's; the fundamental must still win once both are
  // refined. 36,000 samples of 0.1 s make segments of 8,192: bins of 1 / 819.2 s; the period
  // puts the fundamental at bin 38.5 and the harmonic at bin 77.
  const double dt = 0.1, high = 2.19e6, low = 1.22e6, D = 0.86;
  const double period = 8192.0 * dt / 38.5;
  std::vector<double> x(36000);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double t = static_cast<double>(i) * dt + 0.05;
    x[i] = std::fmod(t, period) < D * period ? high : low;
  }
  const power::SpectralPeak p = power::dominantOscillation(x, dt);
  REQUIRE(p.found);
  CHECK(p.frequency == Approx(1.0 / period).epsilon(1e-3));
  CHECK(p.amplitude == Approx(2.0 * (high - low) / kPi * std::sin(kPi * D)).epsilon(0.01));
}

TEST_CASE("A constant series has no dominant oscillation", "[power]") {
  std::vector<double> x(100, 42.0);
  CHECK_FALSE(power::dominantOscillation(x, 0.1).found);
  CHECK_FALSE(power::dominantOscillation(std::vector<double>(4, 1.0), 0.1).found);
}

TEST_CASE("The decimating series keeps time-weighted means in bounded memory", "[power]") {
  power::DecimatingSeries s(16);
  for (int i = 0; i < 16; ++i)
    s.add(static_cast<double>(i), 0.5);
  REQUIRE(s.values().size() == 16);
  CHECK(s.interval() == Approx(0.5));
  for (int i = 16; i < 64; ++i)
    s.add(static_cast<double>(i), 0.5);
  // 64 samples in at most 16 values: blocks of 4, each the mean of its samples.
  REQUIRE(s.values().size() == 16);
  CHECK(s.interval() == Approx(2.0));
  CHECK(s.duration() == Approx(32.0));
  for (std::size_t k = 0; k < 16; ++k)
    CHECK(s.values()[k] == Approx(4.0 * static_cast<double>(k) + 1.5));
  CHECK_THROWS_AS(power::DecimatingSeries(24), std::invalid_argument);
}

TEST_CASE("The amplitude spectrum holds a sinusoid's amplitude at its bin", "[power]") {
  // 1024 samples at 0.5 s: a sinusoid of 3 kW exactly on bin 64 (0.125 Hz) on a 100 kW mean,
  // plus one of 1 kW on bin 200. With the Hann window an on-bin sinusoid shows its amplitude at
  // its bin and half of it at each neighbour (the window's transform: 1/2 at 0, 1/4 at +-1).
  const std::size_t n = 1024;
  const double dt = 0.5;
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) * dt;
    x[i] = 1e5 + 3e3 * std::sin(2.0 * kPi * (64.0 / (n * dt)) * t)
           + 1e3 * std::cos(2.0 * kPi * (200.0 / (n * dt)) * t);
  }
  const power::AmplitudeSpectrum s = power::amplitudeSpectrum(x, dt);
  REQUIRE(s.frequency.size() == n / 2);
  CHECK(s.frequency.front() == Approx(1.0 / (n * dt)));
  CHECK(s.frequency.back() == Approx(0.5 / dt));  // Nyquist
  CHECK(s.amplitude[63] == Approx(3e3).epsilon(1e-9));
  CHECK(s.amplitude[62] == Approx(1.5e3).epsilon(1e-9));
  CHECK(s.amplitude[199] == Approx(1e3).epsilon(1e-9));
  CHECK(s.amplitude[120] < 1e-6);  // far from both: nothing (the mean is removed)
  // The dominant oscillation is the largest bin.
  const power::SpectralPeak p = power::dominantOscillation(x, dt);
  CHECK(p.frequency == Approx(s.frequency[63]).epsilon(1e-6));
  CHECK(power::amplitudeSpectrum(std::vector<double>(4, 1.0), dt).frequency.empty());
}
