// `racktwin info`: what a result file holds, readable without HDF5 tools.
#include <cstdio>
#include <string>

#include "Commands.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"

namespace racktwin::cli {

int infoCommand(const std::string& result_path) {
  core::ResultFileInfo info;
  try {
    info = core::readResultInfo(result_path);
  } catch (const core::Error& error) {
    std::fprintf(stderr, "racktwin: %s\n", error.what());
    return kBadInput;
  }
  std::printf("%s\n", result_path.c_str());
  for (const auto& [key, value] : info.attributes) {
    if (key == "summary_json") continue;
    std::printf("  %-20s %s\n", key.c_str(), value.c_str());
  }
  // aggregation: "mean" over the record interval, "sample" at the record time, "max" over it.
  std::printf("\n  %-36s %-14s %-8s %-7s %s\n", "dataset", "shape", "units", "record",
              "description");
  for (const core::DatasetInfo& dataset : info.datasets) {
    std::string shape = "(";
    for (std::size_t i = 0; i < dataset.shape.size(); ++i) {
      shape += (i ? ", " : "") + std::to_string(dataset.shape[i]);
    }
    shape += ")";
    std::printf("  %-36s %-14s %-8s %-7s %s\n", dataset.path.c_str(), shape.c_str(),
                dataset.units.c_str(), dataset.aggregation.c_str(), dataset.description.c_str());
  }
  const auto summary = info.attributes.find("summary_json");
  if (summary != info.attributes.end()) std::printf("\n  summary\n%s", summary->second.c_str());
  return kSuccess;
}

}  // namespace racktwin::cli
