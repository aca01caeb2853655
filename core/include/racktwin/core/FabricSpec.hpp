#pragma once
// FabricSpec: the scale-out network of the site (an InfiniBand fat tree of Quantum-X800-class
// switches, one port per GPU), reduced to what the facility sees: how many switches stand where,
// what each draws, and which electrical element feeds them. Plain SI data from the scenario
// loader (docs/scenario-format.md, `fabric`; the switch data in data/network/).
//
// Sizing (fatTreeSize): a non-blocking folded Clos of switches of radix k. A switch below the
// top tier uses k/2 ports down and k/2 up; a top-tier switch uses all k down. With L leaf
// switches (each serving up to k/2 GPUs of its group):
//   1 tier:  one switch, all k ports to GPUs (at most k GPUs, one group);
//   2 tiers: L leaves and ceil(L / 2) spines (L <= k: every spine port meets a leaf uplink);
//   3 tiers: L leaves, L aggregation switches (k/2 down, k/2 up each), ceil(L / 2) core
//            switches (L <= k^2 / 2).
// At full size (L = 2N/k) that is the textbook count: 2 tiers serve k^2/2 GPUs with 3k/2
// switches, 3 tiers k^3/4 GPUs with 5k^2/4 switches.
#include <cstdint>
#include <string>
#include <vector>

namespace racktwin::core {

/// Switch counts of a non-blocking fat tree.
struct FatTreeSize {
  int tiers = 0;
  std::uint64_t leaves = 0;       // tier 1: the switches the GPUs connect to
  std::uint64_t aggregation = 0;  // tier 2 of a 3-tier tree (0 otherwise)
  std::uint64_t top = 0;          // spines of a 2-tier tree, cores of a 3-tier tree
  std::uint64_t total() const noexcept { return leaves + aggregation + top; }
};

/// The largest GPU count `tiers` tiers of radix k serve non-blocking: k, k^2/2, k^3/4.
std::uint64_t fatTreeCapacity(int radix, int tiers) noexcept;

/// Leaves per group (each ceil(gpus / (k/2)), a leaf serving one group only), then the tiers
/// above. `tiers` 0 derives the smallest that fits (1 only for one group of at most k GPUs).
/// Throws std::invalid_argument naming the limit when the groups do not fit in `tiers` (or in 3),
/// or for a radix that is not an even number of at least 2.
FatTreeSize fatTreeSize(const std::vector<std::uint64_t>& group_gpus, int radix, int tiers);

/// The switches standing with one group of racks, and the elements that feed them. In a 3-tier
/// tree the aggregation switches stand with their pod's leaves: a group has as many as leaves.
struct FabricGroupSpec {
  std::string id;                    // "row3", "hall1", "group7"
  std::vector<std::uint32_t> racks;  // indices into SiteSpec::racks
  std::uint64_t gpus = 0;            // ports to GPUs
  std::uint64_t leaves = 0;          // leaf switches standing with the group
  std::uint64_t aggregation = 0;     // aggregation switches standing with it (3 tiers)
  std::string line;                  // electrical element feeding the leaves; "" without a tree
  std::string aggregation_line;      // feeding the aggregation switches; "" without a tree
};

struct FabricSpec {
  bool present = false;
  std::string type;            // data name (data/network/<type>.yaml)
  int radix = 0;               // ports per switch
  double port_speed = 0.0;     // bit/s per port
  double P_switch = 0.0;       // W at the switch's AC input, optics excluded
  double P_transceiver = 0.0;  // W per port's transceiver (the switch end of each link)
  double power_factor = 0.98;  // of the switch power supplies
  /// W at the AC input of one switch with a transceiver in every port.
  double switchPower() const noexcept { return P_switch + radix * P_transceiver; }

  FatTreeSize size;                     // the counts (tiers given or derived)
  std::vector<FabricGroupSpec> groups;  // where the leaves (and aggregation switches) stand
  /// Elements feeding the top tier (spines or cores), which is spread over them evenly in order:
  /// the first (top % n) lines take one switch more. Empty without a tree.
  std::vector<std::string> spine_lines;
};

}  // namespace racktwin::core
