#include "racktwin/core/InferenceJob.hpp"
#include "racktwin/core/StateArchive.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
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

}  // namespace

InferenceJob::InferenceJob(const InferenceJobSpec& spec, std::uint32_t gpus, std::uint64_t seed)
    : start_(spec.start),
      end_(spec.start + spec.duration),
      duration_(spec.duration),
      max_batch_(spec.max_batch),
      busy_fraction_(spec.busy_power_fraction),
      arrivals_(spec, seed, "inference job '" + spec.id + "'") {
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
  // One slot's share of the job's throughput.
  const double slots_per_gpu = static_cast<double>(max_batch_) / static_cast<double>(gpus);
  prefill_ = spec.prefill_tokens_per_s_per_gpu / slots_per_gpu;
  decode_ = spec.decode_tokens_per_s_per_gpu / slots_per_gpu;
  queue_.reserve(arrivals_.traceSize() == 0 ? 1024 : arrivals_.traceSize());
  slots_.reserve(max_batch_);
  reset();
}

void InferenceJob::reset() {
  queue_.clear();
  slots_.clear();
  clock_ = 0.0;
  now_ = start_;
  arrived_ = started_ = served_ = tokens_ = tokens_last_ = 0;
  delay_sum_ = 0.0;
  queue_integral_ = 0.0;
  arrivals_.reset(start_, end_);
}

void InferenceJob::setStart(double start) noexcept {
  start_ = start;
  end_ = start + duration_;
  reset();
}

double InferenceJob::serviceWork(std::uint32_t context, std::uint32_t generated) const noexcept {
  return static_cast<double>(context) / prefill_ + static_cast<double>(generated) / decode_;
}

void InferenceJob::enqueueArrival() noexcept {
  Request r;
  r.arrival = arrivals_.next();
  const InferenceRequest q = arrivals_.request();
  r.work = serviceWork(q.context_tokens, q.generated_tokens);
  r.generated_tokens = q.generated_tokens;
  queue_.push(r);
  ++arrived_;
  arrivals_.pop();
}

void InferenceJob::startWaiting(double now) noexcept {
  while (!queue_.empty() && slots_.size() < max_batch_) {
    const Request r = queue_.front();
    queue_.pop();
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
    const double t_next = std::min({t_done, arrivals_.next(), b});
    const double span = t_next - pos;
    busy += static_cast<double>(slots_.size()) * span;
    queue_integral_ += static_cast<double>(queue_.size()) * span;
    pos = t_next;
    if (t_done <= arrivals_.next() && t_done <= b) {
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
    if (arrivals_.next() < b) {
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
  a(start_, end_);
  arrivals_.visitState(a);
  queue_.visitState(a);
  a.trivialResizable(slots_);
  a(clock_, now_, arrived_, started_, served_, tokens_, tokens_last_, delay_sum_, queue_integral_);
}

}  // namespace racktwin::core
