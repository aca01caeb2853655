#pragma once
// Readers of the scenario's `layout` and `output` sections (docs/scenario-format.md).
#include "YamlReader.hpp"
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::scenarios::detail {

/// Fills site.floor: the rows of site.racks (read before), the halls of `layout.halls` (one hall
/// of every row without it) and the spacing.
void readLayout(const MapReader& root, core::SiteSpec& site);

/// Fills site.output from `output` (after readLayout: per_gpu names racks, rows and halls).
void readOutput(const MapReader& root, core::SiteSpec& site);

}  // namespace racktwin::scenarios::detail
