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

}  // namespace racktwin::power::detail
