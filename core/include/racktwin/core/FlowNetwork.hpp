#pragma once
// FlowNetwork: the topology of a coolant loop (and later of the power tree) as a directed graph on
// Boost.Graph. Nodes are junctions, links are two-port components (pipes, cold plates, quick
// disconnects, pumps, heat-exchanger sides) with a design flow direction from port_a to port_b.
// Graph algorithms (connectivity, flow ordering) run when the network or its flow pattern
// changes, never per time step.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace racktwin::core {

class FlowNetwork {
 public:
  using Index = std::uint32_t;

  FlowNetwork();
  ~FlowNetwork();
  FlowNetwork(FlowNetwork&&) noexcept;
  FlowNetwork& operator=(FlowNetwork&&) noexcept;

  Index addNode(std::string id);
  /// A link from port_a (node a) to port_b (node b). @pre a != b, both exist
  Index addLink(std::string id, Index a, Index b);

  std::size_t nodeCount() const noexcept;
  std::size_t linkCount() const noexcept;
  const std::string& nodeId(Index node) const;
  const std::string& linkId(Index link) const;
  Index portA(Index link) const;
  Index portB(Index link) const;
  /// Setup-time lookup by id (linear in the node count).
  std::optional<Index> findNode(std::string_view id) const;

  /// Connected component of every node, ignoring link direction (Boost connected_components).
  std::vector<int> components(int* count = nullptr) const;

  /// Orders the nodes so that every link carrying flow goes from an earlier to a later node.
  /// A link carries flow from a to b when flow[link] > threshold, from b to a when it is below
  /// -threshold, and is ignored otherwise. Links entering a node listed in `tear` are left out:
  /// they close the loops, and their inflow is solved for separately.
  /// Returns false when the flow still has a cycle (a tear node is missing).
  bool flowOrder(std::span<const double> flow, double threshold, std::span<const Index> tear,
                 std::vector<Index>& order) const;

 private:
  struct Graph;
  std::unique_ptr<Graph> graph_;
};

}  // namespace racktwin::core
