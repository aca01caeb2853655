#pragma once
// ElectricalModel::forEachRack: the racks in blocks of kRackBlock on the run's threads (the model's
// two solves, without and with a distribution tree, use it).
#include <algorithm>
#include <cstddef>

#include "racktwin/core/ThreadPool.hpp"
#include "racktwin/power/ElectricalModel.hpp"

namespace racktwin::power {

template <class Body>
void ElectricalModel::forEachRack(Body&& body) {
  const std::size_t racks = layout_.rack_count;
  const auto block = [&](std::size_t b) {
    const std::size_t end = std::min(racks, (b + 1) * kRackBlock);
    for (std::size_t r = b * kRackBlock; r < end; ++r)
      body(r);
  };
  if (pool_ != nullptr) {
    pool_->forEach((racks + kRackBlock - 1) / kRackBlock, block);
  } else {
    for (std::size_t r = 0; r < racks; ++r)
      body(r);
  }
}

}  // namespace racktwin::power
