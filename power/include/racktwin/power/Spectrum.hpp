#pragma once
// The spectrum of a power series: the dominant oscillation (frequency and amplitude) that
// utilities ask about, and a fixed-capacity series that keeps a whole run in bounded memory.
#include <cstddef>
#include <span>
#include <vector>

namespace racktwin::power {

struct SpectralPeak {
  bool found = false;      // false for a constant (or too short) series
  double frequency = 0.0;  // Hz
  double amplitude = 0.0;  // of the sinusoid at that frequency, in the series' unit
};

/// Dominant oscillation of a uniformly sampled series (sample interval dt), from Welch's
/// averaged periodogram: from 2048 samples on, the series is cut into half-overlapping segments
/// of the largest power of two at most n / 4 samples (shorter series are one segment, zero-padded
/// to a power of two); each segment's mean is removed, a Hann window applied and the segment
/// transformed by an iterative radix-2 FFT; the squared magnitudes are averaged over the segments.
/// Averaging powers keeps a component whose phase jumps (a training job's swing after a
/// checkpoint's pause) instead of letting its parts cancel. Each local maximum within the Hann
/// window's worst scalloping loss of the largest bin (the strongest four at most) is refined by a
/// golden-section search of the segments' mean windowed DTFT power within one bin either side
/// (40 evaluations of O(n)), and the largest refined one is the dominant oscillation: a
/// fundamental between bins is not lost to a harmonic on one. The amplitude is the strongest
/// segment's windowed DTFT magnitude there over (sum of window / 2): the swing where it is steady
/// (a segment across a pause sees less of it), every segment's for a steady sinusoid, which
/// between bins is neither mislocated nor scalloped. Needs at least 8 samples; no peak is found
/// when the largest amplitude is below 1e-9 of the series' mean magnitude (plus 1e-12).
SpectralPeak dominantOscillation(std::span<const double> series, double dt);

/// The one-sided amplitude spectrum that dominantOscillation searches (its segments, means removed,
/// Hann window); bin k (1 .. size/2) at frequency k / (size dt) holds 2 sqrt(mean |X_k|^2) /
/// (sum of window), the amplitude of a sinusoid centred on that bin. Empty for fewer than
/// 8 samples or dt <= 0.
struct AmplitudeSpectrum {
  std::vector<double> frequency;  // Hz
  std::vector<double> amplitude;  // the series' unit
};
AmplitudeSpectrum amplitudeSpectrum(std::span<const double> series, double dt);

/// A series of time-weighted block means that never grows past its capacity: when full, pairs of
/// neighbouring blocks merge (halving the count and doubling the block length). Memory is
/// allocated once, in the constructor.
class DecimatingSeries {
 public:
  /// capacity: a power of two, at least 16.
  explicit DecimatingSeries(std::size_t capacity);

  /// Adds a sample x held for dt seconds.
  void add(double x, double dt) noexcept;
  void clear() noexcept;
  /// Completed block means.
  std::span<const double> values() const noexcept { return {values_.data(), count_}; }
  /// Time per value, s (0 when empty).
  double interval() const noexcept;
  /// Duration of the completed blocks, s.
  double duration() const noexcept { return duration_; }

  /// Saves or restores the run state (core/StateArchive.hpp).
  template <class Archive>
  void visitState(Archive& archive) {
    archive(values_, count_, block_, pending_, pending_x_dt_, pending_dt_, duration_);
  }

 private:
  std::vector<double> values_;
  std::size_t count_ = 0;
  std::size_t block_ = 1;    // samples per value
  std::size_t pending_ = 0;  // samples in the open block
  double pending_x_dt_ = 0.0;
  double pending_dt_ = 0.0;
  double duration_ = 0.0;
};

}  // namespace racktwin::power
