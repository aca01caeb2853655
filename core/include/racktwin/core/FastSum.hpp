#pragma once
// Sums for the per-step loops over chips. A plain running sum is bound by the latency of each
// add waiting on the last; four independent accumulators let the adds overlap (and vectorise).
// The order is fixed, so the result is the same on every run.
#include <cstddef>

namespace racktwin::core {

inline double sum4(const double* x, std::size_t n) noexcept {
  double a = 0.0, b = 0.0, c = 0.0, d = 0.0;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a += x[i];
    b += x[i + 1];
    c += x[i + 2];
    d += x[i + 3];
  }
  for (; i < n; ++i)
    a += x[i];
  return (a + b) + (c + d);
}

}  // namespace racktwin::core
