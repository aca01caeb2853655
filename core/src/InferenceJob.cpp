#include "racktwin/core/InferenceJob.hpp"
#include "racktwin/core/StateArchive.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

namespace racktwin::core {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

[[noreturn]] void rejectJob(const std::string& job, const std::string& what) {
  throw std::invalid_argument("inference job '" + job + "': " + what);
}

bool isPositive(double x) {
  return std::isfinite(x) && x > 0.0;
}

/// Min-heap order on the finish time.
constexpr auto kLaterFinish = [](const auto& a, const auto& b) { return a.finish > b.finish; };

/// Uniform in [0, 1) from the top 53 bits: the same stream on every platform (the standard
/// distributions are implementation-defined).
double uniform(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

}  // namespace

InferenceJob::InferenceJob(const InferenceJobSpec& spec, std::uint32_t gpus, std::uint64_t seed)
    : start_(spec.start),
      end_(spec.start + spec.duration),
      duration_(spec.duration),
      trace_(spec.trace),
      rate_(spec.rate),
      amplitude_(spec.diurnal_amplitude),
      period_(spec.diurnal_period),
      peak_(spec.diurnal_peak),
      context_(spec.context_tokens),
      generated_(spec.generated_tokens),
      max_batch_(spec.max_batch),
      busy_fraction_(spec.busy_power_fraction),
      seed_(seed) {
  if (!(std::isfinite(spec.start) && std::isfinite(spec.duration) && spec.duration >= 0.0)) {
    rejectJob(spec.id, "start must be a number and duration a non-negative number");
  }
  if (gpus == 0) rejectJob(spec.id, "has no GPU");
  if (max_batch_ == 0) rejectJob(spec.id, "max_batch must be at least 1");
  if (!isPositive(spec.prefill_tokens_per_s_per_gpu)
      || !isPositive(spec.decode_tokens_per_s_per_gpu)) {
    rejectJob(spec.id, "prefill and decode throughputs must be positive (tokens/s per GPU)");
  }
  if (!(busy_fraction_ >= 0.0 && busy_fraction_ <= 1.0)) {
    rejectJob(spec.id, "busy power must lie in [0, 1] (of the GPU power limit)");
  }
  if (trace_.empty()) {
    if (!isPositive(rate_)) rejectJob(spec.id, "needs a trace or a positive request rate");
    if (!(amplitude_ >= 0.0 && amplitude_ <= 1.0)) {
      rejectJob(spec.id, "diurnal amplitude must lie in [0, 1] (the rate never goes negative)");
    }
    if (!isPositive(period_) || !std::isfinite(peak_)) {
      rejectJob(spec.id, "diurnal period must be positive and the peak time a number");
    }
  } else {
    for (std::size_t i = 0; i < trace_.size(); ++i) {
      if (!(std::isfinite(trace_[i].time) && trace_[i].time >= 0.0)
          || (i > 0 && trace_[i].time < trace_[i - 1].time)) {
        rejectJob(spec.id, "trace times must be non-negative and non-decreasing (request "
                               + std::to_string(i + 1) + ")");
      }
    }
  }
  // One slot's share of the job's throughput.
  const double slots_per_gpu = static_cast<double>(max_batch_) / static_cast<double>(gpus);
  prefill_ = spec.prefill_tokens_per_s_per_gpu / slots_per_gpu;
  decode_ = spec.decode_tokens_per_s_per_gpu / slots_per_gpu;
  queue_.resize(std::max<std::size_t>(trace_.empty() ? 1024 : trace_.size(), 1));
  slots_.reserve(max_batch_);
  reset();
}

void InferenceJob::reset() {
  rng_.seed(seed_);
  next_trace_ = 0;
  queue_head_ = 0;
  queue_size_ = 0;
  slots_.clear();
  clock_ = 0.0;
  now_ = start_;
  arrived_ = started_ = served_ = tokens_ = tokens_last_ = 0;
  delay_sum_ = 0.0;
  queue_integral_ = 0.0;
  next_arrival_ = start_;
  if (trace_.empty()) {
    drawNextArrival();
  } else {
    next_arrival_ = start_ + trace_.front().time;
    if (!(next_arrival_ < end_)) next_arrival_ = kInf;
  }
}

void InferenceJob::setStart(double start) noexcept {
  start_ = start;
  end_ = start + duration_;
  reset();
}

double InferenceJob::serviceWork(std::uint32_t context, std::uint32_t generated) const noexcept {
  return static_cast<double>(context) / prefill_ + static_cast<double>(generated) / decode_;
}

double InferenceJob::rateAt(double time) const noexcept {
  return rate_ * (1.0 + amplitude_ * std::cos(2.0 * std::numbers::pi * (time - peak_) / period_));
}

void InferenceJob::drawNextArrival() noexcept {
  if (!trace_.empty()) {
    ++next_trace_;
    next_arrival_ = next_trace_ < trace_.size() ? start_ + trace_[next_trace_].time : kInf;
    if (!(next_arrival_ < end_)) next_arrival_ = kInf;
    return;
  }
  // A non-homogeneous Poisson process by thinning (Lewis and Shedler 1979): candidates at the
  // peak rate, each kept with probability rate(t) / peak rate.
  const double rate_max = rate_ * (1.0 + amplitude_);
  double t = next_arrival_;
  while (true) {
    t += -std::log1p(-uniform(rng_)) / rate_max;
    if (!(t < end_)) {
      next_arrival_ = kInf;
      return;
    }
    if (amplitude_ == 0.0 || uniform(rng_) * rate_max <= rateAt(t)) break;
  }
  next_arrival_ = t;
}

void InferenceJob::push(const Request& r) {
  if (queue_size_ == queue_.size()) {
    // Longer than any queue so far: double the ring (amortised; never in steady state).
    std::vector<Request> bigger(queue_.size() * 2);
    for (std::size_t k = 0; k < queue_size_; ++k)
      bigger[k] = queue_[(queue_head_ + k) % queue_.size()];
    queue_.swap(bigger);
    queue_head_ = 0;
  }
  queue_[(queue_head_ + queue_size_) % queue_.size()] = r;
  ++queue_size_;
}

void InferenceJob::enqueueArrival() noexcept {
  Request r;
  r.arrival = next_arrival_;
  if (trace_.empty()) {
    r.work = serviceWork(context_, generated_);
    r.generated_tokens = generated_;
  } else {
    const InferenceRequest& q = trace_[next_trace_];
    r.work = serviceWork(q.context_tokens, q.generated_tokens);
    r.generated_tokens = q.generated_tokens;
  }
  push(r);
  ++arrived_;
  drawNextArrival();
}

void InferenceJob::startWaiting(double now) noexcept {
  while (queue_size_ > 0 && slots_.size() < max_batch_) {
    const Request& r = queue_[queue_head_];
    queue_head_ = (queue_head_ + 1) % queue_.size();
    --queue_size_;
    delay_sum_ += now - r.arrival;
    ++started_;
    slots_.push_back(Slot{clock_ + r.work, r.generated_tokens});
    std::push_heap(slots_.begin(), slots_.end(), kLaterFinish);
  }
}

double InferenceJob::run(double t0, double t1, double speed) noexcept {
  tokens_last_ = 0;
  const double a = std::max({t0, start_, now_});
  const double b = std::min(t1, end_);
  if (!(b > a)) return 0.0;
  const bool moving = speed > 0.0 && std::isfinite(speed);
  double pos = a;
  double busy = 0.0;  // slot-seconds
  while (true) {
    double t_done = kInf;
    if (moving && !slots_.empty()) {
      t_done = pos + std::max(slots_.front().finish - clock_, 0.0) / speed;
    }
    const double t_next = std::min({t_done, next_arrival_, b});
    const double span = t_next - pos;
    busy += static_cast<double>(slots_.size()) * span;
    queue_integral_ += static_cast<double>(queue_size_) * span;
    pos = t_next;
    if (t_done <= next_arrival_ && t_done <= b) {
      // A completion; its slot takes the next waiting request at once.
      clock_ = std::max(clock_, slots_.front().finish);
      std::pop_heap(slots_.begin(), slots_.end(), kLaterFinish);
      ++served_;
      tokens_ += slots_.back().generated_tokens;
      tokens_last_ += slots_.back().generated_tokens;
      slots_.pop_back();
      startWaiting(pos);
      continue;
    }
    if (moving) clock_ += speed * span;
    if (next_arrival_ < b) {
      enqueueArrival();
      startWaiting(pos);
      continue;
    }
    break;
  }
  now_ = b;
  return busy / static_cast<double>(max_batch_);
}

void InferenceJob::visitState(StateArchive& a) {
  a.section("inference job");
  a(start_, end_, rng_, next_trace_, next_arrival_);
  a.trivialResizable(queue_);
  a(queue_head_, queue_size_);
  a.trivialResizable(slots_);
  a(clock_, now_, arrived_, started_, served_, tokens_, tokens_last_, delay_sum_, queue_integral_);
}

}  // namespace racktwin::core
