#pragma once
// The scale-out fabric's switches as electrical loads (core::FabricSpec): each group's leaf
// switches on the element feeding the group, the aggregation and top tiers on the spine line, or
// all of them on an ideal source without an electrical tree. A switch draws its rated power
// (core::FabricSpec::switchPower) whatever the traffic: no published figure ties a Quantum-X800
// switch's draw to its load, so the constant is the documented assumption
// (docs/references/quantum-x800-fabric.md). Its heat goes to the hall's air.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "racktwin/core/FabricSpec.hpp"

namespace racktwin::power {

class Distribution;

class FabricPower {
 public:
  /// `dist` null: an ideal source. Throws std::invalid_argument when a line the fabric names is
  /// not an element of the tree.
  FabricPower() = default;
  FabricPower(const core::FabricSpec& fabric, const Distribution* dist);

  std::uint64_t switches() const noexcept { return switches_; }
  /// W, every switch at its rated draw.
  double ratedPower() const noexcept { return P_rated_; }
  /// Sets the loads on the tree's elements (unchanged values leave the tree's solve clean).
  void setLoads(Distribution& dist) const noexcept;
  /// W drawn now: the loads whose element is energised (all of them without a tree).
  double drawn(const Distribution* dist) const noexcept;

 private:
  struct Load {
    double P = 0.0;   // W
    int branch = -1;  // element of the tree; -1: ideal source
  };
  std::vector<Load> loads_;
  double tan_phi_ = 0.0;
  double P_rated_ = 0.0;
  std::uint64_t switches_ = 0;
};

}  // namespace racktwin::power
