#pragma once
// The per-sub-step test whether a rack's chip powers changed: the same bits, not the same values
// (a NaN compares unequal to itself, and -0 equal to +0; either would hide a change).
#include <cstddef>
#include <cstring>

namespace racktwin::power::detail {

/// True when x[0, n) and y[0, n) hold the same bits. No chips of a kind (an air-cooled rack has
/// no NVSwitch trays) gives n = 0 and possibly null pointers, which memcmp must not be given.
inline bool sameBits(const double* x, const double* y, std::size_t n) noexcept {
  return n == 0 || std::memcmp(x, y, n * sizeof(double)) == 0;
}

/// slot = v, unless slot already holds v's bits. The recorder reads the views every sub-step,
/// and a view rewritten with its own value would still take its cache line from the core that
/// read it last; most views hold for many sub-steps (feed currents change only when the tree is
/// solved again).
inline void storeChanged(double& slot, double v) noexcept {
  if (std::memcmp(&slot, &v, sizeof v) != 0) slot = v;
}

}  // namespace racktwin::power::detail
