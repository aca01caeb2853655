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
  // A reduced level of detail (core/OutputDetail.hpp): what keeps its own columns.
  for (const core::DatasetInfo& dataset : info.datasets) {
    if (dataset.path.rfind("/entities/", 0) != 0 || dataset.shape.size() != 1) continue;
    const std::string group = dataset.path.substr(std::string("/entities/").size());
    unsigned long long kept = 0;
    for (const core::DatasetInfo& ids : info.datasets) {
      if (ids.path == "/" + group + "/ids" && ids.shape.size() == 1) kept = ids.shape[0];
    }
    std::string levels;
    for (const char* level : {"rack", "row", "hall"}) {
      const std::string prefix = "/" + group + "_by_" + level + "/";
      for (const core::DatasetInfo& d : info.datasets) {
        if (d.path.rfind(prefix, 0) == 0) {
          levels += std::string(levels.empty() ? "" : ", ") + level;
          break;
        }
      }
    }
    std::printf("\n  %s: %llu of %llu keep their own columns (/%s); aggregates per %s\n",
                group.c_str(), kept, dataset.shape[0], group.c_str(),
                levels.empty() ? "none" : levels.c_str());
  }
  const auto summary = info.attributes.find("summary_json");
  if (summary != info.attributes.end()) std::printf("\n  summary\n%s", summary->second.c_str());
  return kSuccess;
}

}  // namespace racktwin::cli
