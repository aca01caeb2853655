#include "racktwin/core/RequestArrivals.hpp"

#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>

#include "racktwin/core/StateArchive.hpp"

namespace racktwin::core {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Uniform in [0, 1) from the top 53 bits: the same stream on every platform (the standard
/// distributions are implementation-defined).
double uniform(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

bool isPositive(double x) {
  return std::isfinite(x) && x > 0.0;
}

}  // namespace

RequestArrivals::RequestArrivals(const InferenceJobSpec& spec, std::uint64_t seed,
                                 const std::string& what)
    : trace_(spec.trace),
      rate_(spec.rate),
      amplitude_(spec.diurnal_amplitude),
      period_(spec.diurnal_period),
      peak_(spec.diurnal_peak),
      context_(spec.context_tokens),
      generated_(spec.generated_tokens),
      seed_(seed) {
  const auto reject = [&](const std::string& why) {
    throw std::invalid_argument(what + ": " + why);
  };
  if (trace_.empty()) {
    if (!isPositive(rate_)) reject("needs a trace or a positive request rate");
    if (!(amplitude_ >= 0.0 && amplitude_ <= 1.0)) {
      reject("diurnal amplitude must lie in [0, 1] (the rate never goes negative)");
    }
    if (!isPositive(period_) || !std::isfinite(peak_)) {
      reject("diurnal period must be positive and the peak time a number");
    }
  } else {
    for (std::size_t i = 0; i < trace_.size(); ++i) {
      if (!(std::isfinite(trace_[i].time) && trace_[i].time >= 0.0)
          || (i > 0 && trace_[i].time < trace_[i - 1].time)) {
        reject("trace times must be non-negative and non-decreasing (request "
               + std::to_string(i + 1) + ")");
      }
    }
  }
}

void RequestArrivals::reset(double start, double end) {
  start_ = start;
  end_ = end;
  rng_.seed(seed_);
  next_trace_ = 0;
  next_ = start_;
  if (trace_.empty()) {
    pop();
  } else {
    next_ = start_ + trace_.front().time;
    if (!(next_ < end_)) next_ = kInf;
  }
}

InferenceRequest RequestArrivals::request() const noexcept {
  if (!trace_.empty()) return trace_[next_trace_];
  return InferenceRequest{next_ - start_, context_, generated_};
}

double RequestArrivals::rateAt(double time) const noexcept {
  return rate_ * (1.0 + amplitude_ * std::cos(2.0 * std::numbers::pi * (time - peak_) / period_));
}

void RequestArrivals::pop() noexcept {
  if (!trace_.empty()) {
    ++next_trace_;
    next_ = next_trace_ < trace_.size() ? start_ + trace_[next_trace_].time : kInf;
    if (!(next_ < end_)) next_ = kInf;
    return;
  }
  // Candidates at the peak rate, each kept with probability rate(t) / peak rate.
  const double rate_max = rate_ * (1.0 + amplitude_);
  double t = next_;
  while (true) {
    t += -std::log1p(-uniform(rng_)) / rate_max;
    if (!(t < end_)) {
      next_ = kInf;
      return;
    }
    if (amplitude_ == 0.0 || uniform(rng_) * rate_max <= rateAt(t)) break;
  }
  next_ = t;
}

void RequestArrivals::visitState(StateArchive& a) {
  a(start_, end_, rng_, next_trace_, next_);
}

}  // namespace racktwin::core
