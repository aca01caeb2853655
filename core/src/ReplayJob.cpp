#include "racktwin/core/ReplayJob.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>

namespace racktwin::core {

namespace {

[[noreturn]] void rejectJob(const std::string& job, const std::string& what) {
  throw std::invalid_argument("replay job '" + job + "': " + what);
}

}  // namespace

ReplayJob::ReplayJob(const ReplayJobSpec& spec)
    : start_(spec.start),
      end_(spec.start + spec.duration),
      begin_(spec.sample_begin),
      times_(spec.times),
      power_(spec.power) {
  if (!(std::isfinite(spec.start) && std::isfinite(spec.duration) && spec.duration >= 0.0)) {
    rejectJob(spec.id, "start must be a number and duration a non-negative number");
  }
  if (begin_.size() < 2 || begin_.front() != 0 || begin_.back() != times_.size()
      || power_.size() != times_.size()) {
    rejectJob(spec.id, "the trace has no GPU or its samples are inconsistent");
  }
  for (std::size_t i = 0; i + 1 < begin_.size(); ++i) {
    if (!(begin_[i + 1] > begin_[i])) {
      rejectJob(spec.id, "trace GPU " + std::to_string(i) + " has no sample");
    }
    for (std::size_t k = begin_[i]; k < begin_[i + 1]; ++k) {
      if (!std::isfinite(times_[k]) || (k > begin_[i] && times_[k] < times_[k - 1])) {
        rejectJob(spec.id, "sample times of trace GPU " + std::to_string(i)
                               + " must be numbers that never decrease");
      }
      if (!(std::isfinite(power_[k]) && power_[k] >= 0.0)) {
        rejectJob(spec.id, "trace power must be a non-negative number of watts (trace GPU "
                               + std::to_string(i) + ")");
      }
    }
  }
  cursor_.assign(begin_.size() - 1, 0);
  energy_.assign(begin_.size() - 1, 0.0);
  reset();
}

void ReplayJob::reset() noexcept {
  for (std::size_t i = 0; i < cursor_.size(); ++i)
    cursor_[i] = begin_[i];
  std::fill(energy_.begin(), energy_.end(), 0.0);
}

double ReplayJob::run(double t0, double t1) noexcept {
  const double a = std::max(t0, start_) - start_;
  const double b = std::min(t1, end_) - start_;
  if (!(b > a)) {
    std::fill(energy_.begin(), energy_.end(), 0.0);
    return 0.0;
  }
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < cursor_.size(); ++i) {
    const std::size_t last = begin_[i + 1] - 1;
    std::size_t k = cursor_[i];
    while (k < last && times_[k + 1] <= a)
      ++k;
    double E = 0.0;
    double pos = a;
    while (pos < b) {
      const double next = k < last ? times_[k + 1] : kInf;
      const double stop = std::min(next, b);
      E += power_[k] * (stop - pos);
      pos = stop;
      if (stop == next) ++k;
    }
    cursor_[i] = k;
    energy_[i] = E;
  }
  return b - a;
}

double ReplayJob::sampleAt(double time) noexcept {
  if (!(time >= start_ && time < end_)) {
    std::fill(energy_.begin(), energy_.end(), 0.0);
    return 0.0;
  }
  const double tau = time - start_;
  for (std::size_t i = 0; i < cursor_.size(); ++i) {
    // The last sample at or before tau (the first when tau precedes them all).
    const auto first = times_.begin() + static_cast<std::ptrdiff_t>(begin_[i]);
    const auto stop = times_.begin() + static_cast<std::ptrdiff_t>(begin_[i + 1]);
    auto it = std::upper_bound(first, stop, tau);
    if (it != first) --it;
    energy_[i] = power_[static_cast<std::size_t>(it - times_.begin())];
  }
  return 1.0;
}

}  // namespace racktwin::core
