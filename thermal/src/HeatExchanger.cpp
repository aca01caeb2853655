#include "racktwin/thermal/HeatExchanger.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "racktwin/core/Error.hpp"

namespace racktwin::thermal {
namespace {

// Exponent of the film conductance on the flow rate (turbulent Dittus-Boelter-like scaling, the
// value of the Modelica Buildings plate heat exchanger records).
constexpr double kFilmExponent = 0.8;

}  // namespace

double counterFlowEffectiveness(double NTU, double Z) {
  RACKTWIN_ASSERT(std::isfinite(NTU) && NTU >= 0.0, "NTU must be finite and non-negative");
  RACKTWIN_ASSERT(Z >= 0.0 && Z <= 1.0, "capacity-rate ratio Z must be within [0, 1]");
  // With d = 1 - Z and a = NTU d, dividing numerator and denominator by d gives
  // eps = g / (g + e^(-a)), g = (1 - e^(-a)) / d, which tends to NTU as d -> 0: no 0/0 at Z = 1
  // and no cancellation near it.
  const double d = 1.0 - Z;
  const double a = NTU * d;
  const double g = d > 0.0 ? -std::expm1(-a) / d : NTU;
  const double denominator = g + std::exp(-a);
  return g / denominator;
}

double counterFlowNtu(double effectiveness, double Z) {
  RACKTWIN_ASSERT(effectiveness >= 0.0 && effectiveness < 1.0,
                  "counter-flow effectiveness must be within [0, 1)");
  RACKTWIN_ASSERT(Z >= 0.0 && Z <= 1.0, "capacity-rate ratio Z must be within [0, 1]");
  // ln((1 - eps Z) / (1 - eps)) = log1p(r d) with r = eps / (1 - eps) and d = 1 - Z.
  const double r = effectiveness / (1.0 - effectiveness);
  const double d = 1.0 - Z;
  return d > 0.0 ? std::log1p(r * d) / d : r;
}

CounterFlowHeatExchanger CounterFlowHeatExchanger::fromRating(double Q_flow_nominal,
                                                              double C_hot_nominal,
                                                              double C_cold_nominal,
                                                              double approach) {
  const auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
  if (!positive(Q_flow_nominal) || !positive(C_hot_nominal) || !positive(C_cold_nominal)
      || !positive(approach)) {
    throw std::invalid_argument(
        "heat exchanger rating needs positive finite heat flow, capacity rates and approach");
  }
  // T_hot_in - T_cold_in = (T_hot_in - T_hot_out) + (T_hot_out - T_cold_in).
  const double dT_max = Q_flow_nominal / C_hot_nominal + approach;
  const double C_min = std::min(C_hot_nominal, C_cold_nominal);
  const double C_max = std::max(C_hot_nominal, C_cold_nominal);
  const double effectiveness = Q_flow_nominal / (C_min * dT_max);
  if (!(effectiveness < 1.0)) {
    throw std::invalid_argument(
        "heat exchanger rating is impossible: the cold outlet would be at or above the hot inlet "
        "(approach "
        + std::to_string(approach) + " K is too small for " + std::to_string(Q_flow_nominal)
        + " W at these capacity rates)");
  }
  const double NTU = counterFlowNtu(effectiveness, C_min / C_max);
  return CounterFlowHeatExchanger(NTU * C_min, C_hot_nominal, C_cold_nominal);
}

double CounterFlowHeatExchanger::UA(double C_hot, double C_cold) const {
  RACKTWIN_ASSERT(C_hot >= 0.0 && C_cold >= 0.0, "capacity rates must be non-negative");
  if (C_hot == 0.0 || C_cold == 0.0) return 0.0;
  // Equal film resistances at the rating: each side's hA is 2 UA_nominal there.
  const double hA_hot = 2.0 * UA_nominal_ * std::pow(C_hot / C_hot_nominal_, kFilmExponent);
  const double hA_cold = 2.0 * UA_nominal_ * std::pow(C_cold / C_cold_nominal_, kFilmExponent);
  // Film resistances in series, 1/UA = 1/hA_hot + 1/hA_cold, without forming a product of two
  // possibly tiny conductances.
  return hA_hot / (1.0 + hA_hot / hA_cold);
}

double CounterFlowHeatExchanger::conductance(double C_hot, double C_cold) const {
  const double ua = UA(C_hot, C_cold);
  if (ua == 0.0) return 0.0;
  const double C_min = std::min(C_hot, C_cold);
  const double C_max = std::max(C_hot, C_cold);
  return counterFlowEffectiveness(ua / C_min, C_min / C_max) * C_min;
}

}  // namespace racktwin::thermal
