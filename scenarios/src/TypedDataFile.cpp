#include "TypedDataFile.hpp"

#include <algorithm>
#include <string>
#include <system_error>
#include <vector>

#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace racktwin::scenarios::detail {

namespace fs = std::filesystem;

YamlDocument openTypedDataFile(const fs::path& data_dir, std::string_view folder,
                               const MapReader& ref, std::string_view key, std::string_view what) {
  const std::string type = ref.typeName(key);
  const fs::path dir = data_dir / folder;
  const fs::path file = (dir / (type + ".yaml")).lexically_normal();
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    std::vector<std::string> names;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".yaml") names.push_back(it->path().stem().string());
    }
    std::sort(names.begin(), names.end());
    ref.fail(key, "unknown " + std::string(what) + " type '" + type + "': no data file "
                      + file.string() + "; available: " + (names.empty() ? "none" : joined(names)));
  }
  return parseYaml(readFileBytes(file.string()), file.string());
}

void readDataHeader(const MapReader& r, std::string_view kind) {
  if (!r.has("racktwin_data")) {
    r.fail("racktwin_data", "required key is missing; a data file starts with 'racktwin_data: "
                                + std::to_string(kDataFormatVersion) + "'");
  }
  (void)r.integer("racktwin_data", kDataFormatVersion, kDataFormatVersion);
  const std::string k = r.string("kind", "the kind of data file");
  if (k != kind) {
    r.fail("kind", "expected kind '" + std::string(kind) + "', got " + core::quoteForMessage(k));
  }
  (void)r.optionalString("description", "a description");
}

}  // namespace racktwin::scenarios::detail
