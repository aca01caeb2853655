#include <numeric>
#include <stdexcept>
#include <string>

#include "racktwin/core/FabricSpec.hpp"

namespace racktwin::core {

std::uint64_t fatTreeCapacity(int radix, int tiers) noexcept {
  const auto k = static_cast<std::uint64_t>(radix);
  switch (tiers) {
    case 1:
      return k;
    case 2:
      return k * k / 2;
    case 3:
      return k * k * k / 4;
    default:
      return 0;
  }
}

FatTreeSize fatTreeSize(const std::vector<std::uint64_t>& group_gpus, int radix, int tiers) {
  if (radix < 2 || radix % 2 != 0) {
    throw std::invalid_argument("a fat tree needs an even switch radix of at least 2, got "
                                + std::to_string(radix));
  }
  if (tiers < 0 || tiers > 3) {
    throw std::invalid_argument("a fat tree of 1 to 3 tiers is modelled, got "
                                + std::to_string(tiers));
  }
  const auto k = static_cast<std::uint64_t>(radix);
  const std::uint64_t down = k / 2;
  std::uint64_t leaves = 0;
  std::uint64_t gpus = 0;
  for (const std::uint64_t g : group_gpus) {
    leaves += (g + down - 1) / down;
    gpus += g;
  }
  if (gpus == 0) throw std::invalid_argument("a fat tree needs at least one GPU");
  // The leaves a tier structure can take: one switch; k leaves under k/2 spines; k^2/2 leaves
  // under k pods (k/2 leaves and k/2 aggregation switches each) and k^2/4 cores.
  const bool one_switch = group_gpus.size() == 1 && gpus <= k;
  const auto fits = [&](int t) {
    if (t == 1) return one_switch;
    if (t == 2) return leaves <= k;
    return leaves <= k * k / 2;
  };
  int t = tiers;
  if (t == 0) {
    t = one_switch ? 1 : fits(2) ? 2 : 3;
  }
  if (!fits(t)) {
    const std::string what =
        t == 1 ? "one switch serves one group of at most " + std::to_string(k) + " GPUs"
               : std::to_string(t) + " tiers of radix " + std::to_string(k) + " take at most "
                     + std::to_string(t == 2 ? k : k * k / 2) + " leaf switches ("
                     + std::to_string(fatTreeCapacity(radix, t)) + " GPUs)";
    throw std::invalid_argument(what + "; the groups need " + std::to_string(leaves)
                                + " leaves for " + std::to_string(gpus) + " GPUs"
                                + (tiers == 0 ? " (more than 3 tiers are not modelled)" : ""));
  }
  FatTreeSize s;
  s.tiers = t;
  if (t == 1) {
    s.leaves = 1;
    return s;
  }
  s.leaves = leaves;
  if (t == 3) s.aggregation = leaves;
  s.top = (leaves + 1) / 2;
  return s;
}

}  // namespace racktwin::core
