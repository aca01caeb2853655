#include "racktwin/core/ReplayJob.hpp"
#include "racktwin/core/StateArchive.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
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
      duration_(spec.duration),
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
  const std::size_t n = begin_.size() - 1;
  cursor_.assign(n, 0);
  average_.assign(n, 0.0);
  // Sized once: a trace GPU is pending or waiting, never both, so no list outgrows n.
  changed_.reserve(n);
  pending_.reserve(n);
  pending_next_.reserve(n);
  wake_.reserve(n);
  reset();
}

void ReplayJob::wakeAll() noexcept {
  wake_.clear();
  pending_.clear();
  for (std::size_t i = 0; i < cursor_.size(); ++i)
    pending_.push_back(static_cast<std::uint32_t>(i));
}

void ReplayJob::setAll(double P) noexcept {
  changed_.clear();
  for (std::size_t i = 0; i < average_.size(); ++i) {
    if (average_[i] != P) changed_.push_back(static_cast<std::uint32_t>(i));
    average_[i] = P;
  }
}

void ReplayJob::reset() noexcept {
  for (std::size_t i = 0; i < cursor_.size(); ++i)
    cursor_[i] = begin_[i];
  setAll(0.0);
  all_zero_ = true;
  wakeAll();
}

void ReplayJob::setStart(double start) noexcept {
  start_ = start;
  end_ = start + duration_;
  reset();
}

void ReplayJob::advanceGpu(std::uint32_t i, double a, double b) noexcept {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const std::size_t last = begin_[i + 1] - 1;
  std::size_t k = cursor_[i];
  while (k < last && times_[k + 1] <= a)
    ++k;
  const std::size_t first = k;
  const double next = k < last ? times_[k + 1] : kInf;
  double P = power_[k];
  if (next >= b) {
    // One sample over the whole interval: its power exactly, so a held sample reads as unchanged.
    if (next == b) ++k;
  } else {
    double E = 0.0;
    double pos = a;
    while (pos < b) {
      const double change = k < last ? times_[k + 1] : kInf;
      const double stop = std::min(change, b);
      E += power_[k] * (stop - pos);
      pos = stop;
      if (stop == change) ++k;
    }
    P = E / (b - a);
  }
  cursor_[i] = k;
  if (P != average_[i]) changed_.push_back(i);
  average_[i] = P;
  if (k != first) {
    // The sample changed within [a, b] (or at b): the next interval sees the new one.
    pending_next_.push_back(i);
  } else if (k < last) {
    wake_.emplace_back(times_[k + 1], i);
    std::push_heap(wake_.begin(), wake_.end(), std::greater<>());
  }
}

double ReplayJob::run(double t0, double t1) noexcept {
  const double a = std::max(t0, start_) - start_;
  const double b = std::min(t1, end_) - start_;
  if (!(b > a)) {
    changed_.clear();
    if (!all_zero_) {
      setAll(0.0);
      all_zero_ = true;
      wakeAll();
    }
    return 0.0;
  }
  all_zero_ = false;
  changed_.clear();
  pending_next_.clear();
  for (const std::uint32_t i : pending_)
    advanceGpu(i, a, b);
  // Trace GPUs whose next sample falls before b; the others hold their sample through [a, b].
  while (!wake_.empty() && wake_.front().first < b) {
    std::pop_heap(wake_.begin(), wake_.end(), std::greater<>());
    const std::uint32_t i = wake_.back().second;
    wake_.pop_back();
    advanceGpu(i, a, b);
  }
  pending_.swap(pending_next_);
  return b - a;
}

double ReplayJob::sampleAt(double time) noexcept {
  if (!(time >= start_ && time < end_)) {
    changed_.clear();
    if (!all_zero_) {
      setAll(0.0);
      all_zero_ = true;
    }
    wakeAll();
    return 0.0;
  }
  const double tau = time - start_;
  changed_.clear();
  for (std::size_t i = 0; i < cursor_.size(); ++i) {
    // The last sample at or before tau (the first when tau precedes them all).
    const auto first = times_.begin() + static_cast<std::ptrdiff_t>(begin_[i]);
    const auto stop = times_.begin() + static_cast<std::ptrdiff_t>(begin_[i + 1]);
    auto it = std::upper_bound(first, stop, tau);
    if (it != first) --it;
    const double P = power_[static_cast<std::size_t>(it - times_.begin())];
    if (P != average_[i]) changed_.push_back(static_cast<std::uint32_t>(i));
    average_[i] = P;
  }
  all_zero_ = false;
  // The cursors did not move: every trace GPU is averaged again at the next run.
  wakeAll();
  return 1.0;
}

void ReplayJob::visitState(StateArchive& a) {
  a.section("replay job");
  a(start_, end_, cursor_, average_);
  a.resizable(changed_);
  a.resizable(pending_);
  a.resizable(pending_next_);
  std::uint64_t wake = wake_.size();
  a(wake);
  if (!a.isSaving()) wake_.resize(wake);
  for (auto& [time, gpu] : wake_)
    a(time, gpu);
  a(all_zero_);
}

}  // namespace racktwin::core
