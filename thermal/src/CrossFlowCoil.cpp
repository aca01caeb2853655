#include "racktwin/thermal/CrossFlowCoil.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "racktwin/core/Error.hpp"

namespace racktwin::thermal {
namespace {
constexpr double kFilmExponent = 0.8;  // film conductance ~ flow^0.8, as for the plate exchangers
}

CrossFlowCoil CrossFlowCoil::fromRating(double Q_nominal, double C_liquid_nominal,
                                        double C_air_nominal, double dT_nominal) {
  const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
  if (!positive(Q_nominal) || !positive(C_liquid_nominal) || !positive(C_air_nominal)
      || !positive(dT_nominal)) {
    throw std::invalid_argument(
        "coil rating needs positive finite heat, flows and entering temperature difference");
  }
  const double C_min = std::min(C_liquid_nominal, C_air_nominal);
  const double C_max = std::max(C_liquid_nominal, C_air_nominal);
  const double effectiveness = Q_nominal / (C_min * dT_nominal);
  if (!(effectiveness < 1.0)) {
    throw std::invalid_argument("coil rating is impossible: it needs an effectiveness of "
                                + std::to_string(effectiveness)
                                + " (more heat than the smaller stream carries across the "
                                  "entering temperature difference)");
  }
  const double UA = crossFlowUnmixedNtu(effectiveness, C_min / C_max) * C_min;
  return CrossFlowCoil(UA, C_liquid_nominal, C_air_nominal);
}

double CrossFlowCoil::conductance(double C_liquid, double C_air) const {
  if (!(C_liquid > 0.0) || !(C_air > 0.0)) return 0.0;
  // Equal film resistances at the rating: 1/UA = (1/UA_n) (r_l^-0.8 + r_a^-0.8) / 2.
  const double UA = 2.0 * UA_nominal_
                    / (std::pow(C_liquid / C_liquid_nominal_, -kFilmExponent)
                       + std::pow(C_air / C_air_nominal_, -kFilmExponent));
  const double C_min = std::min(C_liquid, C_air);
  const double C_max = std::max(C_liquid, C_air);
  return crossFlowUnmixedEffectiveness(UA / C_min, C_min / C_max) * C_min;
}

}  // namespace racktwin::thermal
