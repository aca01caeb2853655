#pragma once
// The `electrical:` section of a scenario (docs/electrical-format-draft.md): the distribution tree
// (utility, generators, transformers, UPSs, switchboards, busways, RPPs, cables, rack feeds),
// protection, and GPU power management (profiles, caps, GB300 power smoothing). Transformer, UPS
// and generator types come from data/electrical/<type>.yaml. Every error is a core::InputError
// naming file, line and key.
#include <filesystem>
#include <string>

#include "racktwin/core/ElectricalSpec.hpp"
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::scenarios {

namespace detail {
class MapReader;
}

/// Reads the optional `electrical:` key of a scenario's root map into site.electrical (present =
/// true when the key is there). `root` must accept the key "electrical"; `site` must already hold
/// the racks and jobs (rack feeds and power policies name them); `data_dir` is the scenario's data
/// directory. Builds the tree once to check it (a cycle, a voltage mismatch), reporting problems
/// at the `electrical` key.
void readElectrical(const detail::MapReader& root, const std::filesystem::path& data_dir,
                    core::SiteSpec& site);

/// Reads only the `electrical:` section of a scenario held in `text` (the other keys are not
/// looked at) for a site whose racks and jobs are already loaded, such as a scenario loaded
/// without its electrical section. `data_dir` empty: the scenario's `data_dir:` key, else
/// defaultDataDir(). Returns a spec with present == false when the text has no such section.
core::ElectricalSpec loadElectricalSection(const std::string& text,
                                           const std::string& path_for_messages,
                                           const std::string& data_dir, const core::SiteSpec& site);

}  // namespace racktwin::scenarios
