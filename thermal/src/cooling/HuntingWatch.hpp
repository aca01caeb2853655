#pragma once
// Watches a controlled temperature for hunting: a sustained oscillation about its set-point.
//
// A sampled PI (the CDU valve's, sampled every thermal cycle) that is stable when sampled every
// second can oscillate without end when sampled every 5 or 10 s: the plant answers within one
// sample, the proportional action overshoots, and the swing grows until the valve saturates.
// The result looks like physics and is not. The watch splits the error e = T - T_set into
// half-cycles (a half-cycle ends when e crosses to the other side of a band of +-kBand) and
// counts consecutive half-cycles whose peak is at least kAmplitude and at least kSustained of
// the last peak on the same side (a swing clipped by the valve's travel on one side is lopsided);
// kHalfCycles of them in a row is hunting. A disturbance that the loop damps
// (a checkpoint's dip answered at one-second samples) shrinks from one half-cycle to the next
// and is not counted.
//
// The cooling model answers a finding by sampling its controllers more often (it halves the
// control step) and re-arms every watch, which then counts afresh at the new step: a second
// finding halves it again.
#include <cmath>

namespace racktwin::thermal::cooling {

class HuntingWatch {
 public:
  static constexpr double kBand = 0.1;        // K, hysteresis about the set-point
  static constexpr double kAmplitude = 0.25;  // K, the least peak of a counted half-cycle
  static constexpr double kSustained = 0.8;   // a counted peak is at least this of the last
  static constexpr int kHalfCycles = 6;       // counted half-cycles in a row: hunting

  /// The error at time t (s), after a thermal cycle of h (s).
  void observe(double t, double h, double error) {
    const int side = error > kBand ? 1 : error < -kBand ? -1 : 0;
    if (side != 0 && side != side_) {
      // A half-cycle ended: was it large and not shrinking?
      if (side_ != 0) {
        double& last_peak = side_ > 0 ? last_peak_above_ : last_peak_below_;
        const bool counted = peak_ >= kAmplitude && peak_ >= kSustained * last_peak;
        count_ = counted ? count_ + 1 : 0;
        if (counted && count_ >= kHalfCycles && !recognised_) {
          recognised_ = true;
          fresh_ = true;
          if (!(found_at_ >= 0.0)) {
            found_at_ = t;
            period_ = 2.0 * (t - half_start_);
            sample_ = h;
          }
        }
        if (found_at_ >= 0.0 && counted) amplitude_ = std::fmax(amplitude_, peak_);
        last_peak = peak_;
      }
      side_ = side;
      half_start_ = t;
      peak_ = 0.0;
    }
    if (side_ != 0) peak_ = std::fmax(peak_, std::abs(error));
  }

  bool found() const noexcept { return found_at_ >= 0.0; }
  /// Hunting recognised since the last call (and since the last rearm); clears the mark.
  bool takeFresh() noexcept {
    const bool fresh = fresh_;
    fresh_ = false;
    return fresh;
  }
  /// Counts afresh (after the controllers' sample interval changed); what was found stays.
  void rearm() noexcept {
    side_ = 0;
    count_ = 0;
    peak_ = last_peak_above_ = last_peak_below_ = 0.0;
    recognised_ = fresh_ = false;
  }
  /// s, when hunting was first recognised (-1 when never).
  double foundAt() const noexcept { return found_at_; }
  /// K, the largest peak of a counted half-cycle from then on.
  double amplitude() const noexcept { return amplitude_; }
  /// s, the period of the oscillation when it was recognised (twice the last half-cycle).
  double period() const noexcept { return period_; }
  /// s, the cycle (the controller's sample interval) when it was recognised.
  double sample() const noexcept { return sample_; }

  template <class Archive>
  void visit(Archive& a) {
    a(side_, count_, peak_, last_peak_above_, last_peak_below_, half_start_, found_at_, amplitude_,
      period_, sample_, recognised_, fresh_);
  }

 private:
  int side_ = 0;  // which side of the band the error was last on (0: not yet out of it)
  int count_ = 0;
  bool recognised_ = false;  // since the last rearm
  bool fresh_ = false;       // recognised and not yet taken
  double peak_ = 0.0, last_peak_above_ = 0.0, last_peak_below_ = 0.0, half_start_ = 0.0;
  double found_at_ = -1.0, amplitude_ = 0.0, period_ = 0.0, sample_ = 0.0;
};

}  // namespace racktwin::thermal::cooling
