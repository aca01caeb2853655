#include "racktwin/core/DisplayUnits.hpp"

#include <cmath>

namespace racktwin::core {

DisplayUnit displayUnitFor(std::string_view si_unit, UnitSystem system, double magnitude,
                           bool heat) {
  const bool us = system == UnitSystem::US;
  const double m = std::abs(magnitude);
  if (si_unit == "K") {
    return us ? DisplayUnit{"degF", 1.8, 32.0 - kZeroCelsius_K * 1.8}
              : DisplayUnit{"degC", 1.0, -kZeroCelsius_K};
  }
  if (si_unit == "W") {
    if (us && heat) {
      return m >= kTonRefrigeration_W ? DisplayUnit{"ton", 1.0 / kTonRefrigeration_W, 0.0}
                                      : DisplayUnit{"Btu/h", 3600.0 / kBtu_J, 0.0};
    }
    if (m >= 1e6) return {"MW", 1e-6, 0.0};
    if (m >= 1e3 || m == 0.0) return {"kW", 1e-3, 0.0};
    return {"W", 1.0, 0.0};
  }
  if (si_unit == "J") {
    if (us && heat) return {"ton-h", 1.0 / (kTonRefrigeration_W * 3600.0), 0.0};
    return m >= 3.6e9 ? DisplayUnit{"MWh", 1.0 / 3.6e9, 0.0} : DisplayUnit{"kWh", 1.0 / 3.6e6, 0.0};
  }
  if (si_unit == "m3/s" || si_unit == "Pa" || si_unit == "m3" || si_unit == "m") {
    if (us) {
      if (const auto unit = usCustomaryFromSi(si_unit, heat)) return *unit;
    }
    if (si_unit == "m3/s") return {"L/min", 1.0 / kLitrePerMinute_m3_per_s, 0.0};
    if (si_unit == "Pa") return {"kPa", 1e-3, 0.0};
    if (si_unit == "m3") return {"L", 1e3, 0.0};
    return {"m", 1.0, 0.0};
  }
  return {si_unit, 1.0, 0.0};
}

DisplayUnit displayUnitForDifference(UnitSystem system) {
  return system == UnitSystem::US ? DisplayUnit{"delta_degF", 1.8, 0.0}
                                  : DisplayUnit{"K", 1.0, 0.0};
}

}  // namespace racktwin::core
