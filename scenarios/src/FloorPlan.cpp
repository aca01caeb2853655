#include "racktwin/scenarios/FloorPlan.hpp"

#include <string_view>
#include <unordered_map>

namespace racktwin::scenarios {

std::string defaultRowOf(const core::RackSpec& rack) {
  const std::string id = rack.id.str();
  const auto slash = id.rfind('/');
  if (slash != std::string::npos) return id.substr(0, slash);
  if (!rack.cdu.empty()) return rack.cdu;
  if (!rack.ring.empty()) return rack.ring;
  return id;
}

core::FloorPlanSpec defaultFloorPlan(const core::SiteSpec& site) {
  core::FloorPlanSpec plan;
  std::unordered_map<std::string, std::uint32_t> row_of;
  for (std::size_t r = 0; r < site.racks.size(); ++r) {
    const auto [it, inserted] =
        row_of.emplace(defaultRowOf(site.racks[r]), static_cast<std::uint32_t>(plan.rows.size()));
    if (inserted) plan.rows.push_back({it->first, {}, 0});
    plan.rows[it->second].racks.push_back(static_cast<std::uint32_t>(r));
  }
  core::FloorHallSpec hall;
  hall.id = "hall";
  for (std::size_t k = 0; k < plan.rows.size(); ++k)
    hall.rows.push_back(static_cast<std::uint32_t>(k));
  plan.halls.push_back(std::move(hall));
  return plan;
}

core::FloorPlanSpec floorPlanOf(const core::SiteSpec& site) {
  core::FloorPlanSpec plan = site.floor;
  if (plan.rows.empty()) {
    core::FloorPlanSpec rows = defaultFloorPlan(site);
    plan.rows = std::move(rows.rows);
    plan.halls = std::move(rows.halls);
  }
  if (plan.halls.empty()) {
    core::FloorHallSpec hall;
    hall.id = "hall";
    for (std::size_t k = 0; k < plan.rows.size(); ++k) {
      hall.rows.push_back(static_cast<std::uint32_t>(k));
      plan.rows[k].hall = 0;
    }
    plan.halls.push_back(std::move(hall));
  }
  return plan;
}

}  // namespace racktwin::scenarios
