#pragma once
// Reader of the scenario's `fabric` section (docs/scenario-format.md, "fabric") and of the switch
// data in data/network/<type>.yaml: the scale-out network's switches, sized as a non-blocking
// fat tree from the GPUs (core/FabricSpec.hpp), their power and the elements feeding them.
#include <filesystem>

#include "YamlReader.hpp"
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::scenarios::detail {

/// Fills site.fabric from `fabric` (after readLayout and readElectrical: groups are rows or
/// halls, and the lines feeding them are elements of the tree). Errors are InputErrors at the
/// key; a fabric that does not fit 3 tiers is reported at `tiers` or `type`.
void readFabric(const MapReader& root, const std::filesystem::path& data_dir, core::SiteSpec& site);

}  // namespace racktwin::scenarios::detail
