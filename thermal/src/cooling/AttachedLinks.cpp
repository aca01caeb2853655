#include "cooling/AttachedLinks.hpp"

#include <algorithm>

#include "cooling/CoolantLoop.hpp"
#include "racktwin/core/Recorder.hpp"

namespace racktwin::thermal::cooling {

void AttachedLinks::add(const CoolantComponentKind& kind, std::string id, std::uint32_t loop,
                        Index link) {
  items_.push_back(Item{&kind, std::move(id), loop, link});
}

void AttachedLinks::finishBuild() {
  const std::span<const CoolantComponentKind* const> order = coolantComponentKinds();
  const auto rank = [&](const Item& x) {
    return std::find(order.begin(), order.end(), x.kind) - order.begin();
  };
  std::stable_sort(items_.begin(), items_.end(),
                   [&](const Item& a, const Item& b) { return rank(a) < rank(b); });
  V_flow_.assign(items_.size(), 0.0);
}

void AttachedLinks::publish(const std::vector<CoolantLoop>& loops) {
  for (std::size_t i = 0; i < items_.size(); ++i)
    V_flow_[i] = loops[items_[i].loop].solver->V_flow()[items_[i].link];
}

void AttachedLinks::declareChannels(core::Recorder& recorder) {
  for (std::size_t first = 0; first < items_.size();) {
    const CoolantComponentKind* kind = items_[first].kind;
    std::vector<std::string> ids;
    std::size_t end = first;
    for (; end < items_.size() && items_[end].kind == kind; ++end)
      ids.push_back(items_[end].id);
    std::string group(kind->name());
    std::replace(group.begin(), group.end(), '-', '_');
    for (const ComponentChannel& ch : kind->channels()) {
      if (ch.quantity != ComponentQuantity::V_flow) continue;  // what a plain link offers
      recorder.add(
          {group, "V_flow", "m3/s", std::string(ch.description), ids, core::Aggregation::Mean},
          V_flow_.data() + first);
    }
    first = end;
  }
}

}  // namespace racktwin::thermal::cooling
