#include "racktwin/power/Spectrum.hpp"

#include <cmath>
#include <complex>
#include <stdexcept>
#include <utility>

namespace racktwin::power {

namespace {

constexpr double kPi = 3.14159265358979323846;

/// In-place iterative radix-2 decimation-in-time FFT; size a power of two.
void fft(std::vector<std::complex<double>>& a) {
  const std::size_t n = a.size();
  for (std::size_t i = 1, j = 0; i < n; ++i) {
    std::size_t bit = n >> 1;
    for (; j & bit; bit >>= 1)
      j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (std::size_t len = 2; len <= n; len <<= 1) {
    const double angle = -2.0 * kPi / static_cast<double>(len);
    const std::complex<double> w_len(std::cos(angle), std::sin(angle));
    for (std::size_t i = 0; i < n; i += len) {
      std::complex<double> w(1.0, 0.0);
      for (std::size_t k = 0; k < len / 2; ++k) {
        const std::complex<double> u = a[i + k];
        const std::complex<double> v = a[i + k + len / 2] * w;
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
        w *= w_len;
      }
    }
  }
}

/// The mean-removed, Hann-windowed series and its zero-padded FFT.
struct WindowedFft {
  std::vector<std::complex<double>> a;  // FFT of the windowed series, size a power of two
  std::vector<double> windowed;         // (x - mean) * w, the n samples
  double window_sum = 0.0;
  double mean = 0.0;
};

WindowedFft windowedFft(std::span<const double> x) {
  WindowedFft out;
  const std::size_t n = x.size();
  for (double v : x)
    out.mean += v;
  out.mean /= static_cast<double>(n);
  std::size_t size = 1;
  while (size < n)
    size <<= 1;
  out.a.assign(size, {0.0, 0.0});
  out.windowed.resize(n);  // mean removed, Hann window (periodic over the n samples)
  for (std::size_t i = 0; i < n; ++i) {
    const double w =
        0.5 - 0.5 * std::cos(2.0 * kPi * static_cast<double>(i) / static_cast<double>(n));
    out.window_sum += w;
    out.windowed[i] = (x[i] - out.mean) * w;
    out.a[i] = out.windowed[i];
  }
  fft(out.a);
  return out;
}

}  // namespace

AmplitudeSpectrum amplitudeSpectrum(std::span<const double> x, double dt) {
  AmplitudeSpectrum spectrum;
  if (x.size() < 8 || !(dt > 0.0)) return spectrum;
  const WindowedFft w = windowedFft(x);
  const std::size_t size = w.a.size();
  for (std::size_t k = 1; k <= size / 2; ++k) {
    spectrum.frequency.push_back(static_cast<double>(k) / (static_cast<double>(size) * dt));
    spectrum.amplitude.push_back(2.0 * std::abs(w.a[k]) / w.window_sum);
  }
  return spectrum;
}

SpectralPeak dominantOscillation(std::span<const double> x, double dt) {
  SpectralPeak peak;
  const std::size_t n = x.size();
  if (n < 8 || !(dt > 0.0)) return peak;
  const WindowedFft w = windowedFft(x);
  const std::vector<std::complex<double>>& a = w.a;
  const std::vector<double>& windowed = w.windowed;
  const double window_sum = w.window_sum;
  const double mean = w.mean;
  const std::size_t size = a.size();
  std::size_t best = 0;
  double best_magnitude = 0.0;
  for (std::size_t k = 1; k <= size / 2; ++k) {
    const double m = std::abs(a[k]);
    if (m > best_magnitude) {
      best_magnitude = m;
      best = k;
    }
  }
  if (best == 0 || !(2.0 * best_magnitude / window_sum > 1e-9 * std::abs(mean) + 1e-12))
    return peak;
  // Refine: maximise the windowed DTFT magnitude within one bin either side of the FFT peak
  // (golden section, O(n) per evaluation); its value there is the sinusoid's amplitude.
  const auto magnitude = [&](double bin) {
    const double omega = 2.0 * kPi * bin / static_cast<double>(size);
    const std::complex<double> step(std::cos(omega), -std::sin(omega));
    std::complex<double> phase(1.0, 0.0);
    std::complex<double> sum(0.0, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      sum += windowed[i] * phase;
      phase *= step;
      if ((i & 1023) == 1023) phase /= std::abs(phase);  // keep the rotation on the unit circle
    }
    return std::abs(sum);
  };
  constexpr double kGolden = 0.6180339887498949;
  double lo = static_cast<double>(best) - 1.0;
  double hi = static_cast<double>(best) + 1.0;
  if (lo < 0.5) lo = 0.5;
  double x1 = hi - kGolden * (hi - lo);
  double x2 = lo + kGolden * (hi - lo);
  double f1 = magnitude(x1);
  double f2 = magnitude(x2);
  for (int it = 0; it < 40; ++it) {
    if (f1 < f2) {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + kGolden * (hi - lo);
      f2 = magnitude(x2);
    } else {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - kGolden * (hi - lo);
      f1 = magnitude(x1);
    }
  }
  const double bin = 0.5 * (lo + hi);
  const double refined = std::max(magnitude(bin), best_magnitude);
  peak.found = true;
  peak.frequency = bin / (static_cast<double>(size) * dt);
  peak.amplitude = 2.0 * refined / window_sum;
  return peak;
}

DecimatingSeries::DecimatingSeries(std::size_t capacity) {
  if (capacity < 16 || (capacity & (capacity - 1)) != 0) {
    throw std::invalid_argument("series capacity must be a power of two of at least 16");
  }
  values_.assign(capacity, 0.0);
}

void DecimatingSeries::clear() noexcept {
  count_ = 0;
  block_ = 1;
  pending_ = 0;
  pending_x_dt_ = pending_dt_ = duration_ = 0.0;
}

void DecimatingSeries::add(double x, double dt) noexcept {
  pending_x_dt_ += x * dt;
  pending_dt_ += dt;
  if (++pending_ < block_) return;
  if (count_ == values_.size()) {
    // Full: merge neighbouring pairs (equal block lengths, so a plain mean).
    for (std::size_t i = 0; i < count_ / 2; ++i)
      values_[i] = 0.5 * (values_[2 * i] + values_[2 * i + 1]);
    count_ /= 2;
    block_ *= 2;
    if (pending_ < block_) return;  // the open block now needs twice the samples
  }
  values_[count_++] = pending_dt_ > 0.0 ? pending_x_dt_ / pending_dt_ : x;
  duration_ += pending_dt_;
  pending_ = 0;
  pending_x_dt_ = pending_dt_ = 0.0;
}

double DecimatingSeries::interval() const noexcept {
  return count_ > 0 ? duration_ / static_cast<double>(count_) : 0.0;
}

}  // namespace racktwin::power
