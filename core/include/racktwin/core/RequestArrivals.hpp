#pragma once
// The requests of an inference job as they arrive: replayed from a trace (times relative to the
// job's start) or drawn from a Poisson process whose rate follows a diurnal cosine, thinned
// (Lewis and Shedler 1979) from candidates at the peak rate. One seeded std::mt19937_64 stream per
// job, read through the top 53 bits, so the draws are the same on every platform.
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::core {

class StateArchive;

class RequestArrivals {
 public:
  /// Throws std::invalid_argument (naming `what`) for a trace out of order or a Poisson process
  /// without a positive rate, an amplitude outside [0, 1] or a non-positive period.
  RequestArrivals(const InferenceJobSpec& spec, std::uint64_t seed, const std::string& what);

  /// The first request of a window [start, end): the stream restarts.
  void reset(double start, double end);
  /// Time of the next request, s (+inf when no more fall inside the window).
  double next() const noexcept { return next_; }
  /// The request arriving at next().
  InferenceRequest request() const noexcept;
  /// Moves to the following request.
  void pop() noexcept;
  std::size_t traceSize() const noexcept { return trace_.size(); }

  void visitState(StateArchive& archive);

 private:
  double rateAt(double time) const noexcept;

  std::vector<InferenceRequest> trace_;
  double rate_ = 0.0, amplitude_ = 0.0, period_ = 86400.0, peak_ = 0.0;
  std::uint32_t context_ = 0, generated_ = 0;
  std::uint64_t seed_ = 0;
  double start_ = 0.0, end_ = 0.0;
  std::mt19937_64 rng_;
  std::size_t next_trace_ = 0;
  double next_ = 0.0;  // s
};

}  // namespace racktwin::core
