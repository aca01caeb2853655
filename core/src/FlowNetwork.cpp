#include "racktwin/core/FlowNetwork.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/topological_sort.hpp>
#include <iterator>

#include "racktwin/core/Error.hpp"

namespace racktwin::core {

struct FlowNetwork::Graph {
  struct NodeProperties {
    std::string id;
  };
  struct LinkProperties {
    std::string id;
    Index index = 0;
  };
  using Adjacency = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS,
                                          NodeProperties, LinkProperties>;
  Adjacency adjacency;
  std::vector<Adjacency::edge_descriptor> links;  // by link index
};

FlowNetwork::FlowNetwork() : graph_(std::make_unique<Graph>()) {}
FlowNetwork::~FlowNetwork() = default;
FlowNetwork::FlowNetwork(FlowNetwork&&) noexcept = default;
FlowNetwork& FlowNetwork::operator=(FlowNetwork&&) noexcept = default;

FlowNetwork::Index FlowNetwork::addNode(std::string id) {
  const auto vertex = boost::add_vertex(Graph::NodeProperties{std::move(id)}, graph_->adjacency);
  return static_cast<Index>(vertex);
}

FlowNetwork::Index FlowNetwork::addLink(std::string id, Index a, Index b) {
  RACKTWIN_ASSERT(a != b && a < nodeCount() && b < nodeCount(), "link needs two distinct nodes");
  const auto index = static_cast<Index>(graph_->links.size());
  const auto [edge, added] =
      boost::add_edge(a, b, Graph::LinkProperties{std::move(id), index}, graph_->adjacency);
  RACKTWIN_ASSERT(added, "parallel links are allowed by the graph type");
  graph_->links.push_back(edge);
  return index;
}

std::size_t FlowNetwork::nodeCount() const noexcept {
  return boost::num_vertices(graph_->adjacency);
}
std::size_t FlowNetwork::linkCount() const noexcept {
  return graph_->links.size();
}

const std::string& FlowNetwork::nodeId(Index node) const {
  return graph_->adjacency[node].id;
}
const std::string& FlowNetwork::linkId(Index link) const {
  return graph_->adjacency[graph_->links.at(link)].id;
}
FlowNetwork::Index FlowNetwork::portA(Index link) const {
  return static_cast<Index>(boost::source(graph_->links.at(link), graph_->adjacency));
}
FlowNetwork::Index FlowNetwork::portB(Index link) const {
  return static_cast<Index>(boost::target(graph_->links.at(link), graph_->adjacency));
}

std::optional<FlowNetwork::Index> FlowNetwork::findNode(std::string_view id) const {
  for (Index n = 0; n < nodeCount(); ++n) {
    if (graph_->adjacency[n].id == id) return n;
  }
  return std::nullopt;
}

std::vector<int> FlowNetwork::components(int* count) const {
  // connected_components wants an undirected graph: build one with the same vertices.
  boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS> undirected(nodeCount());
  for (Index l = 0; l < linkCount(); ++l)
    boost::add_edge(portA(l), portB(l), undirected);
  std::vector<int> component(nodeCount());
  const int n = boost::connected_components(undirected, component.data());
  if (count != nullptr) *count = n;
  return component;
}

bool FlowNetwork::flowOrder(std::span<const double> flow, double threshold,
                            std::span<const Index> tear, std::vector<Index>& order) const {
  RACKTWIN_ASSERT(flow.size() == linkCount(), "one flow per link");
  boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS> directed(nodeCount());
  for (Index l = 0; l < linkCount(); ++l) {
    Index from = portA(l);
    Index to = portB(l);
    if (flow[l] < -threshold) {
      std::swap(from, to);
    } else if (!(flow[l] > threshold)) {
      continue;
    }
    if (std::find(tear.begin(), tear.end(), to) != tear.end()) continue;
    boost::add_edge(from, to, directed);
  }
  std::vector<Index> reversed;
  reversed.reserve(nodeCount());
  try {
    boost::topological_sort(directed, std::back_inserter(reversed));
  } catch (const boost::not_a_dag&) {
    return false;
  }
  order.assign(reversed.rbegin(), reversed.rend());
  return true;
}

}  // namespace racktwin::core
