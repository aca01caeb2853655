// The modelled facility loops of a site and the CDUs each serves (core::facilityLoopsOf).
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::core {

std::vector<FacilityLoopView> facilityLoopsOf(const SiteSpec& site) {
  std::vector<FacilityLoopView> out;
  const FacilityWaterSpec& f = site.facility;
  if (f.loop.present) {
    FacilityLoopView& v = out.emplace_back();
    v.spec = &f.loop;
    v.T_supply = f.T_supply;
    // Liquid-to-air CDUs have no facility water: the loop serves the others, in site order.
    for (std::size_t c = 0; c < site.cdus.size(); ++c)
      if (site.cdus[c].rejection == CduSpec::Rejection::FacilityWater)
        v.cdus.push_back(static_cast<std::uint32_t>(c));
  }
  for (const FacilityLoopSpec& loop : f.loops) {
    FacilityLoopView& v = out.emplace_back();
    v.spec = &loop;
    v.id = loop.id;
    v.T_supply = loop.T_supply > 0.0 ? loop.T_supply : f.T_supply;
    v.cdus = loop.cdus;
  }
  return out;
}

}  // namespace racktwin::core
