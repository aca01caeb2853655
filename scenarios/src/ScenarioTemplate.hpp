#pragma once
// Scenario templates and patches, applied to the parsed YAML document before it is read
// (docs/scenario-format.md, "Templates"):
//  - a `template:` block generates rows of racks, their CDUs (one per row or per N racks of a row)
//    and their electrical feeds (A and B, optionally alternating), so a hall of any size is a
//    dozen lines; explicit `cdus:`, `racks:` and `electrical.rack_feeds.racks:` entries with a
//    generated id replace the generated entry in its place, others are added after them;
//  - patches (a sweep's parameters and faults) set values at key paths such as
//    `facility_water.supply_temperature`, `cdus[*].type` or `template.racks_per_row`.
// Generated entries reuse the template's own YAML nodes for the keys they copy, so an error in
// such a value names the template's line; an error in what the template composes (an id, a
// CDU reference) is reported at the template block.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "YamlReader.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/ScenarioPatch.hpp"

namespace racktwin::scenarios::detail {

/// Where a document's template was, to report errors in the entries it generated.
struct TemplateOrigin {
  std::optional<core::SourceLocation> where;  // the `template:` key; empty: no template
};

/// Applies the patches whose key starts with "template." (template counts), expands the
/// template, then applies the other patches. Removes the `template:` key. Throws InputError (at
/// the template's key, or "<patch>" with the patch's key path for a patch that does not apply).
TemplateOrigin prepareDocument(YamlDocument& doc, const std::vector<ScenarioPatch>& patches);

/// Runs `read`; an InputError without a line (raised in a generated entry) is given the
/// template's location and says so.
core::SiteSpec readGenerated(const TemplateOrigin& origin,
                             const std::function<core::SiteSpec()>& read);

/// Sets `value` (YAML text) at `key` in `root`. Key paths: map keys joined by '.', list items
/// by [index], every item of a list by [*], a list item by its id by [id=ROW1/CDU1], a new item
/// appended by [+]. Throws InputError naming `where` and the key when the path does not exist.
void applyPatch(YAML::Node root, const ScenarioPatch& patch, const core::SourceLocation& where);

}  // namespace racktwin::scenarios::detail
