#pragma once
// `networks[]` of a scenario: a secondary loop whose piping comes from an EPANET input file, with
// the scenario's CDUs and racks attached at named nodes (docs/scenario-format.md). Each network
// becomes a core::SecondaryRingSpec with its `network` set, so that every part of the program
// that knows a loop shared by CDUs (design limits, placement, the GUI) knows it too.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::scenarios::detail {

class MapReader;

/// The scenario loader's id registry, seen from here.
struct NetworkIds {
  /// Records an id with the place that gives it; fails on a duplicate.
  std::function<void(const std::string& id, std::string_view what, const MapReader& m,
                     std::string_view key)>
      add;
  /// The message for an id that names no `wanted` ("CDU", "rack").
  std::function<std::string(const std::string& id, std::string_view wanted)> unknown;
};

/// Reads `networks` (absent: none). Sets the attached racks' `ring` to the network's id and
/// converts their QDs given by Cv for the coolant at the first CDU's set-point. Bad input, in the
/// scenario or in the .inp, is an InputError at its file, line and key; so is a network that
/// cannot be a closed coolant loop (demands, a second tank or reservoir, a pump no CDU replaces,
/// pressure-setting valves, controls, rules, emitters, a rack or CDU on no flow cycle through a
/// CDU).
std::vector<core::SecondaryRingSpec> readNetworks(const MapReader& root,
                                                  const std::vector<core::CduSpec>& cdus,
                                                  std::vector<core::RackSpec>& racks,
                                                  const core::CoolantSpec& coolant,
                                                  const NetworkIds& ids);

/// The block (biconnected component) of every edge of an undirected multigraph on `node_count`
/// nodes: two edges share a block exactly when a simple cycle passes both. A bridge is a block of
/// its own. Edges join two distinct nodes.
std::vector<std::uint32_t> edgeBlocks(
    std::size_t node_count, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges,
    std::uint32_t* block_count = nullptr);

}  // namespace racktwin::scenarios::detail
