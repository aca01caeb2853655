#pragma once
// Data files a scenario names by type in one folder of the data directory (data/electrical,
// data/network): opening the file of a type, and the header every such file starts with.
#include <filesystem>
#include <string_view>

#include "YamlReader.hpp"

namespace racktwin::scenarios::detail {

/// Parses data_dir/<folder>/<type>.yaml for the type named at `key` of `ref`. An unknown type
/// fails at that key, naming the file looked for and the types the folder has; `what` names the
/// kind of thing in that message ("transformer", "network switch").
YamlDocument openTypedDataFile(const std::filesystem::path& data_dir, std::string_view folder,
                               const MapReader& ref, std::string_view key, std::string_view what);

/// Reads the header of a data file: `racktwin_data` (the format version), `kind` (must be `kind`)
/// and the optional `description`.
void readDataHeader(const MapReader& r, std::string_view kind);

}  // namespace racktwin::scenarios::detail
