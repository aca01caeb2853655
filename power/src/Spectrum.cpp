#include "racktwin/power/Spectrum.hpp"

#include <algorithm>
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

/// Below this many samples the series is one segment (zero-padded to a power of two).
constexpr std::size_t kWelchMinSamples = 2048;

/// Welch's averaged periodogram (Welch 1967): the series cut into segments, each with its own
/// mean removed and a Hann window applied, their squared FFT magnitudes averaged. A run's
/// facility power is not one stationary signal: a training job's checkpoint pauses it, and the
/// swing after the pause need not be in phase with the swing before it. One transform of the
/// whole run adds the parts' components with their phases and can cancel the strongest one (a
/// pause of an odd number of half periods cancels the fundamental); averaged powers do not.
struct Welch {
  std::size_t length = 0;           // samples per segment
  std::size_t fft_size = 0;         // a power of two, >= length
  std::vector<std::size_t> starts;  // first sample of each segment
  std::vector<double> means;        // each segment's mean
  std::vector<double> window;       // Hann, periodic over the segment
  double window_sum = 0.0;
  std::vector<double> power;  // bins 0 .. fft_size / 2: mean of |X_k|^2 over segments
  double mean = 0.0;          // of the whole series
};

Welch welch(std::span<const double> x) {
  Welch w;
  const std::size_t n = x.size();
  for (double v : x)
    w.mean += v;
  w.mean /= static_cast<double>(n);
  if (n < kWelchMinSamples) {
    // One segment: the whole series, zero-padded.
    w.length = n;
    w.fft_size = 1;
    while (w.fft_size < n)
      w.fft_size <<= 1;
    w.starts = {0};
  } else {
    // Segments of the largest power of two at most n / 4 samples (at least seven), half
    // overlapping and spread evenly from the first sample to the last.
    w.length = 1;
    while (2 * w.length <= n / 4)
      w.length <<= 1;
    w.fft_size = w.length;
    const std::size_t hop = w.length / 2;
    const std::size_t count = (n - w.length + hop - 1) / hop + 1;
    for (std::size_t k = 0; k < count; ++k)
      w.starts.push_back(k * (n - w.length) / (count - 1));
  }
  w.window.resize(w.length);
  for (std::size_t i = 0; i < w.length; ++i) {
    w.window[i] =
        0.5 - 0.5 * std::cos(2.0 * kPi * static_cast<double>(i) / static_cast<double>(w.length));
    w.window_sum += w.window[i];
  }
  w.power.assign(w.fft_size / 2 + 1, 0.0);
  std::vector<std::complex<double>> a(w.fft_size);
  for (const std::size_t start : w.starts) {
    double mean = 0.0;
    for (std::size_t i = 0; i < w.length; ++i)
      mean += x[start + i];
    mean /= static_cast<double>(w.length);
    w.means.push_back(mean);
    std::fill(a.begin(), a.end(), std::complex<double>(0.0, 0.0));
    for (std::size_t i = 0; i < w.length; ++i)
      a[i] = (x[start + i] - mean) * w.window[i];
    fft(a);
    for (std::size_t k = 0; k < w.power.size(); ++k)
      w.power[k] += std::norm(a[k]);
  }
  for (double& p : w.power)
    p /= static_cast<double>(w.starts.size());
  return w;
}

/// Segment s's windowed DTFT at a fractional bin of the FFT size, O(segment length).
std::complex<double> segmentTransform(const Welch& w, std::span<const double> x, std::size_t s,
                                      double bin) {
  const double omega = 2.0 * kPi * bin / static_cast<double>(w.fft_size);
  const std::complex<double> step(std::cos(omega), -std::sin(omega));
  const double* segment = x.data() + w.starts[s];
  std::complex<double> phase(1.0, 0.0);
  std::complex<double> sum(0.0, 0.0);
  for (std::size_t i = 0; i < w.length; ++i) {
    sum += (segment[i] - w.means[s]) * w.window[i] * phase;
    phase *= step;
    if ((i & 1023) == 1023) phase /= std::abs(phase);  // keep the rotation on the unit circle
  }
  return sum;
}

}  // namespace

AmplitudeSpectrum amplitudeSpectrum(std::span<const double> x, double dt) {
  AmplitudeSpectrum spectrum;
  if (x.size() < 8 || !(dt > 0.0)) return spectrum;
  const Welch w = welch(x);
  for (std::size_t k = 1; k <= w.fft_size / 2; ++k) {
    spectrum.frequency.push_back(static_cast<double>(k) / (static_cast<double>(w.fft_size) * dt));
    spectrum.amplitude.push_back(2.0 * std::sqrt(w.power[k]) / w.window_sum);
  }
  return spectrum;
}

SpectralPeak dominantOscillation(std::span<const double> x, double dt) {
  SpectralPeak peak;
  const std::size_t n = x.size();
  if (n < 8 || !(dt > 0.0)) return peak;
  const Welch w = welch(x);
  const std::size_t size = w.fft_size;
  std::size_t best = 0;
  double best_power = 0.0;
  for (std::size_t k = 1; k <= size / 2; ++k) {
    if (w.power[k] > best_power) {
      best_power = w.power[k];
      best = k;
    }
  }
  const double best_magnitude = std::sqrt(best_power);
  if (best == 0 || !(2.0 * best_magnitude / w.window_sum > 1e-9 * std::abs(w.mean) + 1e-12))
    return peak;
  // Refine: maximise the segments' mean windowed DTFT power within one bin either side of a
  // peak bin (golden section, O(n) per evaluation); its root there is the sinusoid's magnitude.
  const auto magnitude = [&](double bin) {
    double power = 0.0;
    for (std::size_t s = 0; s < w.starts.size(); ++s)
      power += std::norm(segmentTransform(w, x, s, bin));
    return std::sqrt(power / static_cast<double>(w.starts.size()));
  };
  const auto refine = [&](std::size_t peak_bin) {
    constexpr double kGolden = 0.6180339887498949;
    double lo = static_cast<double>(peak_bin) - 1.0;
    double hi = static_cast<double>(peak_bin) + 1.0;
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
    const double refined_bin = 0.5 * (lo + hi);
    return std::pair<double, double>{refined_bin, magnitude(refined_bin)};
  };
  // A sinusoid half-way between two bins shows 0.85 of its amplitude in them (the Hann window's
  // worst case), so the largest bin may be a weaker component's that sits on a bin (a pulse
  // train's second harmonic, 0.9 of its fundamental at a duty of 0.86). Every local maximum
  // within that loss of the largest is refined, the strongest four at most, and the largest
  // refined magnitude wins.
  constexpr double kScallopLoss = 0.8;  // amplitude ratio, below Hann's 0.849
  constexpr std::size_t kCandidates = 4;
  std::vector<std::size_t> candidates;
  for (std::size_t k = 1; k <= size / 2; ++k) {
    const bool local_max =
        w.power[k] >= w.power[k - 1] && (k == size / 2 || w.power[k] >= w.power[k + 1]);
    if (local_max && w.power[k] >= kScallopLoss * kScallopLoss * best_power)
      candidates.push_back(k);
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](std::size_t a, std::size_t b) { return w.power[a] > w.power[b]; });
  if (candidates.size() > kCandidates) candidates.resize(kCandidates);
  double bin = static_cast<double>(best), refined = best_magnitude;
  for (const std::size_t k : candidates) {
    const auto [candidate_bin, candidate_magnitude] = refine(k);
    if (candidate_magnitude > refined) {
      bin = candidate_bin;
      refined = candidate_magnitude;
    }
  }
  double strongest = 0.0;
  for (std::size_t s = 0; s < w.starts.size(); ++s)
    strongest = std::max(strongest, std::abs(segmentTransform(w, x, s, bin)));
  peak.found = true;
  peak.frequency = bin / (static_cast<double>(size) * dt);
  peak.amplitude = 2.0 * std::max(strongest, refined) / w.window_sum;
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
