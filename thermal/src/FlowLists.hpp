#pragma once
// The links that carry flow, per node in the flow direction (compressed sparse rows): what the
// upwind heat sweeps of the coolant loops and of the facility loop walk.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "racktwin/core/FlowNetwork.hpp"

namespace racktwin::thermal {

/// From the solved flows `V` (m3/s, positive from port A to port B): each link's upstream and
/// downstream node, and the lists of the links with a capacity rate (`C_link` != 0) flowing into
/// (`in_begin`/`in_links`) and out of (`out_begin`/`out_links`) each node. `in_fill`/`out_fill` are
/// scratch of one entry per node. Every vector is sized for the network (begins: nodes + 1);
/// nothing is allocated.
inline void buildFlowLists(
    const core::FlowNetwork& net, std::span<const double> V, std::span<const double> C_link,
    std::vector<core::FlowNetwork::Index>& link_up,
    std::vector<core::FlowNetwork::Index>& link_down, std::vector<std::uint32_t>& in_begin,
    std::vector<std::uint32_t>& in_links, std::vector<std::uint32_t>& out_begin,
    std::vector<std::uint32_t>& out_links, std::vector<std::uint32_t>& in_fill,
    std::vector<std::uint32_t>& out_fill) {
  using Index = core::FlowNetwork::Index;
  const std::size_t n_nodes = net.nodeCount();
  const std::size_t n_links = net.linkCount();
  for (Index l = 0; l < n_links; ++l) {
    link_up[l] = V[l] >= 0.0 ? net.portA(l) : net.portB(l);
    link_down[l] = V[l] >= 0.0 ? net.portB(l) : net.portA(l);
  }
  std::fill(in_begin.begin(), in_begin.end(), 0);
  std::fill(out_begin.begin(), out_begin.end(), 0);
  for (Index l = 0; l < n_links; ++l) {
    if (C_link[l] == 0.0) continue;
    ++in_begin[link_down[l] + 1];
    ++out_begin[link_up[l] + 1];
  }
  for (std::size_t n = 0; n < n_nodes; ++n) {
    in_begin[n + 1] += in_begin[n];
    out_begin[n + 1] += out_begin[n];
  }
  std::copy(in_begin.begin(), in_begin.end() - 1, in_fill.begin());
  std::copy(out_begin.begin(), out_begin.end() - 1, out_fill.begin());
  for (Index l = 0; l < n_links; ++l) {
    if (C_link[l] == 0.0) continue;
    in_links[in_fill[link_down[l]]++] = l;
    out_links[out_fill[link_up[l]]++] = l;
  }
}

}  // namespace racktwin::thermal
