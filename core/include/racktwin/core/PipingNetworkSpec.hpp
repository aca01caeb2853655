#pragma once
// The piping of a secondary coolant loop taken from an existing network (an EPANET input file,
// docs/scenario-format.md `networks[]`): its junctions and its expansion tank as nodes, its pipes
// and valves as links, with the CDUs and racks attached at named nodes. Plain data in SI; the
// scenario loader fills it (scenarios/src/NetworkLoader.cpp) and the cooling model builds the
// loop from it (thermal/src/cooling/NetworkPiping.cpp).
#include <cstdint>
#include <string>
#include <vector>

namespace racktwin::core {

struct PipingNetworkSpec {
  struct Node {
    std::string id;          // as the file names it
    double elevation = 0.0;  // m; potentials are piezometric, so a closed loop's flows ignore it
  };

  struct Link {
    enum class Kind : std::uint8_t { Pipe, Valve };
    /// Open, or Closed for good (no controls act in a loop); Active: a valve's setting governs.
    enum class State : std::uint8_t { Open, Closed, Active };
    /// EPANET's valves that keep their meaning in a closed loop: a flow limiter, a throttle (a
    /// loss coefficient) and a general curve (a drop against flow).
    enum class Valve : std::uint8_t { FCV, TCV, GPV };

    std::string id;
    std::uint32_t from = 0, to = 0;  // node indices of port a and port b
    Kind kind = Kind::Pipe;
    State state = State::Open;
    double diameter = 0.0;    // m, inner (pipes) or nominal (valves)
    double minor_loss = 0.0;  // K: dp += K rho v^2 / 2 (pipes; a valve's when fully open)
    // Pipes: Darcy-Weisbach with EPANET's friction factor on the absolute roughness, or
    // Hazen-Williams when hazen_williams_C > 0; an optional check valve.
    double length = 0.0;     // m
    double roughness = 0.0;  // m (Darcy-Weisbach)
    double hazen_williams_C = 0.0;
    bool check_valve = false;
    int cells = 1;  // upwind volumes for heat transport
    // Valves.
    Valve valve = Valve::TCV;
    double setting = 0.0;                        // FCV: m3/s; TCV: loss coefficient K
    std::vector<double> curve_V_flow, curve_dp;  // GPV: m3/s (increasing) and Pa
  };

  /// Two nodes a CDU's train (suction -> pumps -> exchanger -> supply) or a rack (supply hose
  /// from `a`, return hose to `b`) joins.
  struct Attachment {
    std::string id;  // the CDU's or the rack's id
    std::uint32_t a = 0, b = 0;
  };

  std::string path;  // the file, for messages
  std::vector<Node> nodes;
  std::vector<Link> links;
  std::uint32_t tank = 0;         // the expansion tank's node: the loop's pressure reference
  std::vector<Attachment> cdus;   // a = suction, b = supply
  std::vector<Attachment> racks;  // a = supply, b = return
};

}  // namespace racktwin::core
