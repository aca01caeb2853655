#include "racktwin/power/FabricPower.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "racktwin/power/Distribution.hpp"

namespace racktwin::power {

namespace {

int branchOf(const Distribution* dist, const std::string& id) {
  if (dist == nullptr) return -1;
  const std::vector<std::string>& ids = dist->elementIds();
  const auto it = std::find(ids.begin(), ids.end(), id);
  if (it == ids.end() || id.empty()) {
    throw std::invalid_argument("fabric: no electrical element '" + id + "' to feed its switches");
  }
  return static_cast<int>(it - ids.begin());
}

}  // namespace

FabricPower::FabricPower(const core::FabricSpec& fabric, const Distribution* dist) {
  if (!fabric.present) return;
  const double P = fabric.switchPower();
  const double pf = fabric.power_factor;
  if (!(std::isfinite(P) && P > 0.0) || !(pf > 0.0 && pf <= 1.0)) {
    throw std::invalid_argument("fabric: switch power must be > 0 W and power factor in (0, 1]");
  }
  tan_phi_ = std::sqrt(1.0 - pf * pf) / pf;
  for (const core::FabricGroupSpec& g : fabric.groups) {
    loads_.push_back({static_cast<double>(g.leaves) * P, branchOf(dist, g.line)});
    if (g.aggregation > 0) {
      loads_.push_back(
          {static_cast<double>(g.aggregation) * P, branchOf(dist, g.aggregation_line)});
    }
    switches_ += g.leaves + g.aggregation;
  }
  const std::uint64_t top = fabric.size.top;
  if (top > 0) {
    const std::vector<std::string> ideal{""};
    const std::vector<std::string>& lines =
        dist == nullptr || fabric.spine_lines.empty() ? ideal : fabric.spine_lines;
    const std::uint64_t n = lines.size();
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t here = top / n + (i < top % n ? 1 : 0);
      if (here > 0) loads_.push_back({static_cast<double>(here) * P, branchOf(dist, lines[i])});
    }
    switches_ += top;
  }
  // Several groups may share an element: it carries their sum, set once per step.
  std::vector<Load> merged;
  for (const Load& l : loads_) {
    const auto same = std::find_if(merged.begin(), merged.end(),
                                   [&](const Load& m) { return m.branch == l.branch; });
    if (same == merged.end()) {
      merged.push_back(l);
    } else {
      same->P += l.P;
    }
    P_rated_ += l.P;
  }
  loads_ = std::move(merged);
}

void FabricPower::setLoads(Distribution& dist) const noexcept {
  for (const Load& l : loads_)
    dist.setElementLoad(static_cast<std::size_t>(l.branch), l.P, tan_phi_);
}

double FabricPower::drawn(const Distribution* dist) const noexcept {
  if (dist == nullptr) return P_rated_;
  double P = 0.0;
  for (const Load& l : loads_)
    if (dist->tree().live(static_cast<std::size_t>(l.branch))) P += l.P;
  return P;
}

}  // namespace racktwin::power
