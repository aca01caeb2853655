#include <catch2/catch.hpp>
#include <vector>

#include "racktwin/core/FlowNetwork.hpp"

using racktwin::core::FlowNetwork;

TEST_CASE("Flow order follows the flow and needs a tear node to break the loop", "[core]") {
  // tank -> a -> {b, c} -> d -> tank: a loop with two parallel branches.
  FlowNetwork net;
  const auto tank = net.addNode("tank"), a = net.addNode("a"), b = net.addNode("b"),
             c = net.addNode("c"), d = net.addNode("d");
  net.addLink("pump", tank, a);
  net.addLink("ab", a, b);
  net.addLink("ac", a, c);
  net.addLink("bd", b, d);
  net.addLink("dc", d, c);  // design direction d -> c, but the flow runs c -> d
  net.addLink("ret", d, tank);
  const std::vector<double> flow{1.0, 0.6, 0.4, 0.6, -0.4, 1.0};
  std::vector<FlowNetwork::Index> order;
  CHECK_FALSE(net.flowOrder(flow, 1e-12, {}, order));  // the loop is a cycle
  const FlowNetwork::Index tear[] = {tank};
  REQUIRE(net.flowOrder(flow, 1e-12, tear, order));
  std::vector<int> position(net.nodeCount());
  for (std::size_t i = 0; i < order.size(); ++i)
    position[order[i]] = static_cast<int>(i);
  for (FlowNetwork::Index l = 0; l < net.linkCount(); ++l) {
    const auto from = flow[l] >= 0 ? net.portA(l) : net.portB(l);
    const auto to = flow[l] >= 0 ? net.portB(l) : net.portA(l);
    if (to == tank) continue;
    CHECK(position[from] < position[to]);
  }
}

TEST_CASE("Connected components see through link direction", "[core]") {
  FlowNetwork net;
  const auto a = net.addNode("a"), b = net.addNode("b"), c = net.addNode("c");
  net.addNode("island");
  net.addLink("ab", a, b);
  net.addLink("cb", c, b);
  int count = 0;
  const auto component = net.components(&count);
  CHECK(count == 2);
  CHECK(component[a] == component[c]);
  CHECK(component[a] != component[3]);
  CHECK(net.findNode("island") == FlowNetwork::Index{3});
  CHECK_FALSE(net.findNode("nowhere"));
}
