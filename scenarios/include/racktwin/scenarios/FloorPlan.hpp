#pragma once
// The floor plan of a site: its rows of racks and the halls that group them
// (docs/scenario-format.md, `layout`). The output's per-row and per-hall aggregates, the GUI's
// site tree and the drawn floor plan all use these rows and halls.
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::scenarios {

/// Rows by rack id (a row is the racks sharing an id prefix, "row3" of "row3/rack05"; racks with
/// a one-segment id form a row per CDU or ring, named after it), in order of first appearance,
/// and one hall "hall" of every row; the spacing defaults of core::FloorPlanSpec.
core::FloorPlanSpec defaultFloorPlan(const core::SiteSpec& site);

/// site.floor when it has rows (a loaded scenario always has), else defaultFloorPlan(site).
core::FloorPlanSpec floorPlanOf(const core::SiteSpec& site);

/// The row id of a rack by the rule above.
std::string defaultRowOf(const core::RackSpec& rack);

}  // namespace racktwin::scenarios
