#pragma once
// Neumaier-compensated running sum: run totals over 1e8+ sub-steps stay exact to round-off.
namespace racktwin::power {

class CompensatedSum {
 public:
  void add(double x) noexcept {
    const double t = sum_ + x;
    // Neumaier: recover the low-order bits lost by whichever operand is smaller.
    if ((sum_ >= 0.0 ? sum_ : -sum_) >= (x >= 0.0 ? x : -x)) {
      compensation_ += (sum_ - t) + x;
    } else {
      compensation_ += (x - t) + sum_;
    }
    sum_ = t;
  }
  double value() const noexcept { return sum_ + compensation_; }
  void reset() noexcept { sum_ = compensation_ = 0.0; }

  /// Saves or restores the run state (core/StateArchive.hpp).
  template <class Archive>
  void visitState(Archive& archive) {
    archive(sum_, compensation_);
  }

 private:
  double sum_ = 0.0;
  double compensation_ = 0.0;
};

}  // namespace racktwin::power
