#include "racktwin/viz/DesignMargins.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"

namespace racktwin::viz {

std::vector<DesignLimitUse> readDesignLimitUse(const std::string& path) {
  const core::ResultFileInfo info = core::readResultInfo(path);
  const auto has = [&info](const std::string& dataset) {
    return std::any_of(info.datasets.begin(), info.datasets.end(),
                       [&](const core::DatasetInfo& d) { return d.path == dataset; });
  };
  if (!has("/limits/component") || !has("/limits/worst_margin_fraction")) return {};
  const std::vector<std::string> component = core::readResultStrings(path, "/limits/component");
  const std::vector<double> margin = core::readResultDataset(path, "/limits/worst_margin_fraction");
  std::vector<double> checked(component.size(), 1.0);
  if (has("/limits/checked")) checked = core::readResultDataset(path, "/limits/checked");
  if (margin.size() != component.size() || checked.size() != component.size()) {
    throw core::InputError({path, 0, 0}, "/limits",
                           "its columns component, worst_margin_fraction and checked differ in "
                           "length");
  }
  std::vector<DesignLimitUse> rows;
  rows.reserve(component.size());
  for (std::size_t k = 0; k < component.size(); ++k)
    rows.push_back({component[k], margin[k], checked[k] > 0.0});
  return rows;
}

std::vector<double> designMarginUsed(const SiteGeometry& geometry,
                                     std::span<const DesignLimitUse> limits) {
  std::vector<double> used(geometry.entityCount(), std::numeric_limits<double>::quiet_NaN());
  const std::size_t boxes = geometry.rackCount() + geometry.cduCount();
  for (const DesignLimitUse& limit : limits) {
    if (!limit.checked || !std::isfinite(limit.worst_margin_fraction)) continue;
    const double share = 100.0 * (1.0 - limit.worst_margin_fraction);
    // The component itself, or the rack it lies in: "row1/rack03/feed_a" -> "row1/rack03".
    std::string id = limit.component;
    int entity = -1;
    while (!id.empty() && entity < 0) {
      const int rack = geometry.findRack(id);
      if (rack >= 0) {
        entity = rack;
        break;
      }
      for (std::size_t c = 0; c < geometry.cduCount(); ++c)
        if (geometry.entityId(geometry.rackCount() + c) == id)
          entity = static_cast<int>(geometry.rackCount() + c);
      const std::size_t slash = id.rfind('/');
      if (slash == std::string::npos) break;
      id.resize(slash);
    }
    if (entity < 0 || static_cast<std::size_t>(entity) >= boxes) continue;
    double& slot = used[static_cast<std::size_t>(entity)];
    slot = std::isnan(slot) ? share : std::max(slot, share);
  }
  return used;
}

}  // namespace racktwin::viz
