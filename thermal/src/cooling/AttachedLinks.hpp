#pragma once
// Components a scenario attaches to racks that are not exchangers (a bypass, ...): links of a
// loop like any other, recorded per kind with the flow the hydraulics give them. Exchangers on a
// rack's exhaust air are RackAirExchangers'.
#include <cstdint>
#include <string>
#include <vector>

#include "cooling/Common.hpp"

namespace racktwin::core {
class Recorder;
}

namespace racktwin::thermal::cooling {

struct CoolantLoop;

class AttachedLinks {
 public:
  void add(const CoolantComponentKind& kind, std::string id, std::uint32_t loop, Index link);
  /// Groups the instances by kind (the recorder takes one contiguous block per kind).
  void finishBuild();
  bool empty() const noexcept { return items_.empty(); }
  /// The flows after the last solve (O(instances)).
  void publish(const std::vector<CoolantLoop>& loops);
  void declareChannels(core::Recorder& recorder);
  /// The views recorded as interval means (for a step cycled in several thermal cycles).
  void meanViews(std::vector<double*>& out) {
    for (double& x : V_flow_)
      out.push_back(&x);
  }

 private:
  struct Item {
    const CoolantComponentKind* kind;
    std::string id;
    std::uint32_t loop;
    Index link;
  };
  std::vector<Item> items_;
  std::vector<double> V_flow_;
};

}  // namespace racktwin::thermal::cooling
