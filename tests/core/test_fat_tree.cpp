// Switch counts of a non-blocking fat tree (core/FabricSpec.hpp) against the closed forms of a
// folded Clos network of radix-k switches (Al-Fares, Loukissas and Vahdat, "A scalable, commodity
// data center network architecture", SIGCOMM 2008, section 3: a k-ary fat tree serves k^3/4
// hosts with 5k^2/4 switches), derived beside each number.
#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "racktwin/core/FabricSpec.hpp"

using racktwin::core::fatTreeCapacity;
using racktwin::core::FatTreeSize;
using racktwin::core::fatTreeSize;

TEST_CASE("fat-tree capacities are k, k^2/2 and k^3/4 GPUs", "[core]") {
  // Radix 144 (Quantum-X800): one switch 144; two tiers 144 leaves x 72 GPUs = 10,368;
  // three tiers 144 pods x 72 leaves x 72 GPUs = 746,496.
  CHECK(fatTreeCapacity(144, 1) == 144);
  CHECK(fatTreeCapacity(144, 2) == 10'368);
  CHECK(fatTreeCapacity(144, 3) == 746'496);
  CHECK(fatTreeCapacity(4, 3) == 16);  // the 4-ary fat tree of Al-Fares et al., figure 3
}

TEST_CASE("a full 2-tier tree: k leaves and k/2 spines (3k/2 switches)", "[core]") {
  // k = 144, N = k^2/2 = 10,368 GPUs in 144 groups of 72 (one NVL72 rack each): each leaf takes
  // 72 GPUs down (k/2) and sends 72 links up, 144 x 72 = 10,368 uplinks end on spines of 144
  // ports: 72 spines. Total 216 = 3 x 144 / 2.
  const FatTreeSize s = fatTreeSize(std::vector<std::uint64_t>(144, 72), 144, 0);
  CHECK(s.tiers == 2);
  CHECK(s.leaves == 144);
  CHECK(s.aggregation == 0);
  CHECK(s.top == 72);
  CHECK(s.total() == 216);
}

TEST_CASE("a full 3-tier tree: k^2/2 leaves, k^2/2 aggregation, k^2/4 cores (5k^2/4)", "[core]") {
  // k = 4 (the paper's figure): 16 hosts in 8 groups of 2; 8 edge, 8 aggregation, 4 core
  // switches = 20 = 5 x 16 / 4.
  const FatTreeSize s4 = fatTreeSize(std::vector<std::uint64_t>(8, 2), 4, 0);
  CHECK(s4.tiers == 3);
  CHECK(s4.leaves == 8);
  CHECK(s4.aggregation == 8);
  CHECK(s4.top == 4);
  CHECK(s4.total() == 20);
  // k = 144 at 300,024 GPUs (4,167 NVL72 racks, one leaf of 72 down ports per rack): above the
  // 10,368 of two tiers, so three: 4,167 leaves, 4,167 aggregation switches (72 down, 72 up
  // each), and their 4,167 x 72 uplinks on cores of 144 ports: ceil(4,167 / 2) = 2,084.
  const FatTreeSize s = fatTreeSize(std::vector<std::uint64_t>(4167, 72), 144, 0);
  CHECK(s.tiers == 3);
  CHECK(s.leaves == 4167);
  CHECK(s.aggregation == 4167);
  CHECK(s.top == 2084);
  CHECK(s.total() == 10'418);
}

TEST_CASE("partial trees round each group's leaves up and the spines to cover every uplink",
          "[core]") {
  // Two rows of 8 racks (576 GPUs each) and one of 5 racks (360): 8 + 8 + 5 = 21 leaves of 72
  // down ports; 21 x 72 uplinks need ceil(21 x 72 / 144) = 11 spines.
  const FatTreeSize s = fatTreeSize({576, 576, 360}, 144, 0);
  CHECK(s.tiers == 2);
  CHECK(s.leaves == 21);
  CHECK(s.top == 11);
  // A group of 73 GPUs needs two leaves (72 + 1): a leaf serves one group only.
  CHECK(fatTreeSize({73, 73}, 144, 0).leaves == 4);
  // One group within one switch's ports: a single switch.
  const FatTreeSize one = fatTreeSize({72}, 144, 0);
  CHECK(one.tiers == 1);
  CHECK(one.total() == 1);
  // The same group asked to be 2 tiers: one leaf and one spine.
  const FatTreeSize two = fatTreeSize({72}, 144, 2);
  CHECK(two.leaves == 1);
  CHECK(two.top == 1);
}

TEST_CASE("a tree too large for its tiers, or an odd radix, is refused", "[core]") {
  // 145 leaves do not fit two tiers of radix 144 (a spine has 144 ports, one per leaf).
  CHECK_THROWS_AS(fatTreeSize(std::vector<std::uint64_t>(145, 72), 144, 2), std::invalid_argument);
  CHECK(fatTreeSize(std::vector<std::uint64_t>(145, 72), 144, 0).tiers == 3);
  // Beyond k^3/4 = 16 hosts of radix 4: not modelled.
  CHECK_THROWS_AS(fatTreeSize(std::vector<std::uint64_t>(9, 2), 4, 0), std::invalid_argument);
  CHECK_THROWS_AS(fatTreeSize({10}, 7, 0), std::invalid_argument);
  CHECK_THROWS_AS(fatTreeSize({200}, 144, 1), std::invalid_argument);
}
