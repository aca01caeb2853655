#include "racktwin/core/JobScheduler.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/StateArchive.hpp"

namespace racktwin::core {

JobScheduler::JobScheduler(Policy policy, std::vector<std::uint32_t> rack_group,
                           std::vector<Request> requests)
    : policy_(policy), group_(std::move(rack_group)), requests_(std::move(requests)) {
  const std::size_t n = group_.size();
  for (const std::uint32_t g : group_)
    group_count_ = std::max(group_count_, g + 1);
  place_begin_.assign(requests_.size() + 1, 0);
  for (std::size_t j = 0; j < requests_.size(); ++j) {
    const Request& q = requests_[j];
    const std::string which = "scheduled job #" + std::to_string(j + 1);
    if (q.racks == 0 || q.racks > n) {
      throw std::invalid_argument(which + ": asks for " + std::to_string(q.racks)
                                  + " racks; expected 1 to the site's " + std::to_string(n));
    }
    if (!std::isfinite(q.submit)) {
      throw std::invalid_argument(which + ": submit time must be a number");
    }
    if (!(std::isfinite(q.runtime) && q.runtime > 0.0)) {
      throw std::invalid_argument(which + ": runtime must be a positive number");
    }
    place_begin_[j + 1] = place_begin_[j] + q.racks;
  }
  order_.resize(requests_.size());
  std::iota(order_.begin(), order_.end(), 0U);
  std::stable_sort(order_.begin(), order_.end(), [this](std::uint32_t a, std::uint32_t b) {
    return requests_[a].submit < requests_[b].submit;
  });
  fixed_.resize(n);
  queue_.reserve(requests_.size());
  start_.assign(requests_.size(), kNever);
  placed_.assign(place_begin_.back(), 0);
  busy_until_.assign(n, -kNever);
  down_.assign(n, 0);
  candidate_.assign(n, 0);
  reserved_.assign(n, 0);
  chosen_.reserve(n);
  group_free_.assign(group_count_, 0);
  group_order_.assign(group_count_, 0);
  started_.reserve(requests_.size());
  times_.reserve(n + 1);
  reset();
}

void JobScheduler::addFixedUse(std::uint32_t rack, double start, double end) {
  RACKTWIN_ASSERT(rack < group_.size(), "rack index out of range");
  if (!(end > start)) return;
  fixed_[rack].push_back(Interval{start, end});
  times_.reserve(times_.capacity() + 1);
}

void JobScheduler::reset() noexcept {
  next_submit_ = 0;
  queue_.clear();
  std::fill(start_.begin(), start_.end(), kNever);
  std::fill(busy_until_.begin(), busy_until_.end(), -kNever);
  std::fill(down_.begin(), down_.end(), 0);
  started_.clear();
  next_event_ = order_.empty() ? kNever : requests_[order_.front()].submit;
}

void JobScheduler::setRackDown(std::uint32_t rack, bool down) noexcept {
  down_[rack] = down ? 1 : 0;
}

std::span<const std::uint32_t> JobScheduler::racks(std::size_t j) const noexcept {
  if (!started(j)) return {};
  return {placed_.data() + place_begin_[j], requests_[j].racks};
}

bool JobScheduler::freeOver(std::uint32_t r, double a, double b, double tol) const noexcept {
  if (down_[r] != 0 || busy_until_[r] > a + tol) return false;
  for (const Interval& use : fixed_[r]) {
    if (use.start < b - tol && a + tol < use.end) return false;
  }
  return true;
}

bool JobScheduler::choose(std::uint32_t k) noexcept {
  const auto n = static_cast<std::uint32_t>(group_.size());
  chosen_.clear();
  // 1. The shortest run of adjacent usable racks (one group, consecutive) that holds the job.
  std::uint32_t best_begin = n, best_length = n + 1;
  for (std::uint32_t r = 0; r < n;) {
    if (candidate_[r] == 0) {
      ++r;
      continue;
    }
    const std::uint32_t begin = r;
    while (r + 1 < n && candidate_[r + 1] != 0 && group_[r + 1] == group_[begin])
      ++r;
    const std::uint32_t length = r - begin + 1;
    if (length >= k && length < best_length) {
      best_begin = begin;
      best_length = length;
    }
    ++r;
  }
  if (best_begin < n) {
    for (std::uint32_t r = best_begin; r < best_begin + k; ++r)
      chosen_.push_back(r);
    return true;
  }
  // 2. One group: the one with the fewest usable racks that suffice.
  std::fill(group_free_.begin(), group_free_.end(), 0U);
  std::uint32_t total = 0;
  for (std::uint32_t r = 0; r < n; ++r) {
    if (candidate_[r] == 0) continue;
    ++group_free_[group_[r]];
    ++total;
  }
  if (total < k) return false;
  std::uint32_t best_group = group_count_;
  for (std::uint32_t g = 0; g < group_count_; ++g) {
    if (group_free_[g] >= k
        && (best_group == group_count_ || group_free_[g] < group_free_[best_group])) {
      best_group = g;
    }
  }
  if (best_group < group_count_) {
    for (std::uint32_t r = 0; r < n && chosen_.size() < k; ++r) {
      if (candidate_[r] != 0 && group_[r] == best_group) chosen_.push_back(r);
    }
    return true;
  }
  // 3. Across groups: the fewest, largest first.
  std::iota(group_order_.begin(), group_order_.end(), 0U);
  std::sort(group_order_.begin(), group_order_.end(), [this](std::uint32_t a, std::uint32_t b) {
    return group_free_[a] != group_free_[b] ? group_free_[a] > group_free_[b] : a < b;
  });
  for (const std::uint32_t g : group_order_) {
    for (std::uint32_t r = 0; r < n && chosen_.size() < k; ++r) {
      if (candidate_[r] != 0 && group_[r] == g) chosen_.push_back(r);
    }
    if (chosen_.size() == k) break;
  }
  return true;
}

bool JobScheduler::reserve(std::uint32_t head, double now, double tol, double& at) noexcept {
  // The head can start only when some rack frees up: now, at the end of a scheduled job, or at
  // the end of a fixed use; the earliest of these times at which enough racks are free for its
  // whole runtime is its reservation.
  const auto n = static_cast<std::uint32_t>(group_.size());
  times_.clear();
  times_.push_back(now);
  for (std::uint32_t r = 0; r < n; ++r) {
    if (busy_until_[r] > now) times_.push_back(busy_until_[r]);
    for (const Interval& use : fixed_[r]) {
      if (use.end > now) times_.push_back(use.end);
    }
  }
  std::sort(times_.begin(), times_.end());
  const Request& q = requests_[head];
  std::fill(reserved_.begin(), reserved_.end(), 0);
  for (std::size_t i = 0; i < times_.size(); ++i) {
    const double t = times_[i];
    if (i > 0 && t == times_[i - 1]) continue;
    for (std::uint32_t r = 0; r < n; ++r)
      candidate_[r] = freeOver(r, t, t + q.runtime, tol) ? 1 : 0;
    if (!choose(q.racks)) continue;
    for (const std::uint32_t r : chosen_)
      reserved_[r] = 1;
    at = t;
    return true;
  }
  return false;
}

void JobScheduler::start(std::uint32_t j, double now) noexcept {
  const Request& q = requests_[j];
  start_[j] = now;
  std::copy(chosen_.begin(), chosen_.end(), placed_.begin() + place_begin_[j]);
  for (const std::uint32_t r : chosen_)
    busy_until_[r] = now + q.runtime;
  started_.push_back(j);
}

std::span<const std::uint32_t> JobScheduler::schedule(double now, double tolerance) {
  const auto n = static_cast<std::uint32_t>(group_.size());
  const double tol = tolerance;
  started_.clear();
  while (next_submit_ < order_.size() && requests_[order_[next_submit_]].submit <= now + tol)
    queue_.push_back(order_[next_submit_++]);

  // Start jobs from the head of the queue while they fit.
  while (!queue_.empty()) {
    const std::uint32_t j = queue_.front();
    const Request& q = requests_[j];
    for (std::uint32_t r = 0; r < n; ++r)
      candidate_[r] = freeOver(r, now, now + q.runtime, tol) ? 1 : 0;
    if (!choose(q.racks)) break;
    start(j, now);
    queue_.erase(queue_.begin());
  }

  // EASY backfill: later jobs that fit now and leave the head's reservation intact. Without a
  // reservation (too few usable racks for the head at any time) nothing can be delayed.
  if (policy_ == Policy::Backfill && queue_.size() > 1) {
    double at = kNever;
    const bool reserved = reserve(queue_.front(), now, tol, at);
    for (std::size_t i = 1; i < queue_.size();) {
      const std::uint32_t j = queue_[i];
      const Request& q = requests_[j];
      const double end = now + q.runtime;
      const bool clear_by_reservation = end <= at + tol;
      for (std::uint32_t r = 0; r < n; ++r) {
        candidate_[r] =
            freeOver(r, now, end, tol) && (!reserved || reserved_[r] == 0 || clear_by_reservation)
                ? 1
                : 0;
      }
      if (choose(q.racks)) {
        start(j, now);
        queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
    }
  }

  // Next event: a submission, or while jobs wait the next time a rack frees up.
  next_event_ = next_submit_ < order_.size() ? requests_[order_[next_submit_]].submit : kNever;
  if (!queue_.empty()) {
    for (std::uint32_t r = 0; r < n; ++r) {
      if (busy_until_[r] > now + tol) next_event_ = std::min(next_event_, busy_until_[r]);
      for (const Interval& use : fixed_[r]) {
        if (use.end > now + tol) next_event_ = std::min(next_event_, use.end);
      }
    }
  }
  return started_;
}

void JobScheduler::visitState(StateArchive& a) {
  a.section("scheduler");
  a(next_submit_);
  a.resizable(queue_);
  a(start_);
  a.resizable(placed_);
  a(busy_until_, down_, next_event_);
  // Scratch of schedule(), kept so a resumed run's buffers are those of the run it continues.
  a.resizable(candidate_);
  a.resizable(reserved_);
  a.resizable(chosen_);
  a.resizable(group_free_);
  a.resizable(group_order_);
  a.resizable(started_);
  a.resizable(times_);
}

}  // namespace racktwin::core
