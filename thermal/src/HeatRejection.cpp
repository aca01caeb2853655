#include "racktwin/thermal/HeatRejection.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "racktwin/core/Error.hpp"
#include "racktwin/thermal/HeatExchanger.hpp"

namespace racktwin::thermal {
namespace {

bool positive(double v) {
  return std::isfinite(v) && v > 0.0;
}

[[noreturn]] void bad(const core::HeatRejectionSpec& spec, const std::string& what) {
  throw std::invalid_argument("heat rejection '" + spec.type + "': " + what);
}

void checkDropLaw(const core::PressureDropLaw& law, const std::string& what,
                  const std::string& owner) {
  if (law.form == core::PressureDropLaw::Form::PowerLaw) {
    const core::PowerLawDrop& p = law.power_law;
    if (!positive(p.dp_nominal) || !positive(p.V_flow_nominal) || !(p.exponent >= 1.0)
        || !(p.exponent <= 2.0)) {
      throw std::invalid_argument(owner + ": " + what
                                  + " needs a positive nominal pressure drop and flow and an "
                                    "exponent from 1 to 2");
    }
  } else if (law.table.V_flow.size() < 2 || law.table.V_flow.size() != law.table.dp.size()) {
    throw std::invalid_argument(owner + ": " + what
                                + " table needs at least two points, one drop per flow");
  }
}

}  // namespace

double crossFlowUnmixedEffectiveness(double NTU, double Z) {
  RACKTWIN_ASSERT(std::isfinite(NTU) && NTU >= 0.0, "NTU must be finite and non-negative");
  RACKTWIN_ASSERT(Z >= 0.0 && Z <= 1.0, "capacity-rate ratio Z must be within [0, 1]");
  if (NTU == 0.0) return 0.0;
  // (1/Z)(exp(-Z NTU^0.78) - 1) = expm1(-Z n78) / Z, which tends to -n78 as Z -> 0.
  const double n78 = std::pow(NTU, 0.78);
  const double bracket = Z > 0.0 ? std::expm1(-Z * n78) / Z : -n78;
  return -std::expm1(std::pow(NTU, 0.22) * bracket);
}

double crossFlowUnmixedNtu(double effectiveness, double Z) {
  RACKTWIN_ASSERT(effectiveness >= 0.0 && effectiveness < 1.0,
                  "cross-flow effectiveness must be within [0, 1)");
  RACKTWIN_ASSERT(Z >= 0.0 && Z <= 1.0, "capacity-rate ratio Z must be within [0, 1]");
  if (effectiveness == 0.0) return 0.0;
  // eps(NTU) increases monotonically to 1: bracket, then bisect in log NTU.
  double lo = 1e-12, hi = 1.0;
  while (crossFlowUnmixedEffectiveness(hi, Z) < effectiveness && hi < 1e12)
    hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-14 * hi; ++i) {
    const double mid = std::sqrt(lo * hi);
    (crossFlowUnmixedEffectiveness(mid, Z) < effectiveness ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// ------------------------------------------------------------------------------------------------

HeatRejectionUnit::HeatRejectionUnit(const core::HeatRejectionSpec& spec, double rho, double cp)
    : spec_(spec), rho_(rho), cp_(cp) {
  if (!positive(rho) || !positive(cp)) {
    bad(spec, "water density and heat capacity must be positive");
  }
  if (spec.units < 1) bad(spec, "needs at least one unit, got " + std::to_string(spec.units));
  if (!positive(spec.Q_flow_nominal)) bad(spec, "rated heat must be positive");
  if (!positive(spec.V_flow_nominal)) bad(spec, "nominal water flow must be positive");
  if (!positive(spec.approach_nominal)) bad(spec, "approach must be positive");
  if (!positive(spec.T_ambient_nominal)) bad(spec, "design ambient must be a positive temperature");
  if (!(spec.fan_P_nominal >= 0.0) || !std::isfinite(spec.fan_P_nominal)) {
    bad(spec, "fan power must be zero or positive");
  }
  if (!(spec.fan_speed_min >= 0.0 && spec.fan_speed_min < 1.0)) {
    bad(spec, "minimum fan speed must be within [0, 1)");
  }
  if (!(spec.volume >= 0.0) || !std::isfinite(spec.volume)) bad(spec, "volume must be >= 0");
  if (isTower()) {
    if (!(spec.cycles_of_concentration > 1.0) || !std::isfinite(spec.cycles_of_concentration)) {
      bad(spec, "cycles of concentration must be above 1 (blow-down = evaporation / (cycles - 1))");
    }
    if (!(spec.drift_fraction >= 0.0 && spec.drift_fraction < 1.0)) {
      bad(spec, "drift must be a fraction within [0, 1)");
    }
  }
  checkDropLaw(spec.dp, "pressure drop", "heat rejection '" + spec.type + "'");

  // Design point of one unit at full fan speed: water enters at ambient + approach + range.
  C_water_nominal_ = rho * cp * spec.V_flow_nominal;
  C_air_nominal_ = kDesignAirToWaterCapacity * C_water_nominal_;
  const double C_min = std::min(C_water_nominal_, C_air_nominal_);
  const double C_max = std::max(C_water_nominal_, C_air_nominal_);
  const double dT_max = spec.approach_nominal + spec.Q_flow_nominal / C_water_nominal_;
  const double eps = spec.Q_flow_nominal / (C_min * dT_max);
  if (!(eps < 1.0)) {
    bad(spec, "the design point needs an effectiveness of 1 or more; give a larger approach");
  }
  const double Z = C_min / C_max;
  const double NTU = isTower() ? counterFlowNtu(eps, Z) : crossFlowUnmixedNtu(eps, Z);
  UA_nominal_ = NTU * C_min;
}

double HeatRejectionUnit::UA(double fan_speed) const {
  RACKTWIN_ASSERT(fan_speed > 0.0 && fan_speed <= 1.0 + 1e-12, "fan speed must be in (0, 1]");
  // 1/UA = share / (UA0 s^0.8) + (1 - share) / UA0.
  const double air = kAirSideResistanceShare / std::pow(fan_speed, kAirFilmExponent);
  return UA_nominal_ / (air + (1.0 - kAirSideResistanceShare));
}

double HeatRejectionUnit::effectiveness(double C_water_unit, double fan_speed) const {
  RACKTWIN_ASSERT(C_water_unit > 0.0, "water capacity rate must be positive");
  const double C_air = C_air_nominal_ * fan_speed;
  const double C_min = std::min(C_water_unit, C_air);
  const double C_max = std::max(C_water_unit, C_air);
  const double NTU = UA(fan_speed) / C_min;
  const double Z = C_min / C_max;
  return isTower() ? counterFlowEffectiveness(NTU, Z) : crossFlowUnmixedEffectiveness(NTU, Z);
}

double HeatRejectionUnit::unitConductance(double C_water_unit, double fan_speed) const {
  if (C_water_unit <= 0.0 || fan_speed <= 0.0) return 0.0;
  const double C_min = std::min(C_water_unit, C_air_nominal_ * fan_speed);
  return effectiveness(C_water_unit, fan_speed) * C_min;
}

double HeatRejectionUnit::conductance(double C_water, double fan_speed, double availability) const {
  RACKTWIN_ASSERT(C_water >= 0.0 && std::isfinite(C_water), "water capacity rate must be >= 0");
  const double s = std::clamp(fan_speed, 0.0, 1.0);
  const double a = std::clamp(availability, 0.0, 1.0);
  if (C_water <= 0.0 || s <= 0.0 || a <= 0.0) return 0.0;
  const double n = static_cast<double>(spec_.units);
  const double C_unit = C_water / n;
  const double s_min = spec_.fan_speed_min;
  // Below the minimum speed the fans cycle at the minimum: a fraction s / s_min of the time.
  const double G_unit =
      s >= s_min ? unitConductance(C_unit, s) : s / s_min * unitConductance(C_unit, s_min);
  // Units without fans pass their water uncooled; the mixed outflow gives G = a n G_unit.
  return std::min(a * n * G_unit, C_water);
}

double HeatRejectionUnit::heatFlow(double T_in, double C_water, double T_ambient, double fan_speed,
                                   double availability) const {
  return conductance(C_water, fan_speed, availability) * (T_in - T_ambient);
}

double HeatRejectionUnit::fanPower(double fan_speed, double availability) const {
  const double s = std::clamp(fan_speed, 0.0, 1.0);
  const double a = std::clamp(availability, 0.0, 1.0);
  const double s_min = spec_.fan_speed_min;
  const double per_unit = s >= s_min ? spec_.fan_P_nominal * s * s * s
                                     : s / s_min * spec_.fan_P_nominal * s_min * s_min * s_min;
  return a * static_cast<double>(spec_.units) * per_unit;
}

double HeatRejectionUnit::fanSpeedForConductance(double C_water, double G, double availability,
                                                 double guess) const {
  if (C_water <= 0.0 || availability <= 0.0 || !(G > 0.0)) return 0.0;
  const double s_min = spec_.fan_speed_min;
  // A guess (the last sub-step's speed) first: a bracket of +-1e-3 about it, when it holds the
  // answer, makes the limits below needless (G(s_min) < G(a) < G <= G(b) <= G(1)).
  constexpr double kGuessHalfWidth = 1e-3;
  if (guess > s_min + kGuessHalfWidth && guess < 1.0 - kGuessHalfWidth) {
    const double a = guess - kGuessHalfWidth, b = guess + kGuessHalfWidth;
    const double g_a = conductance(C_water, a, availability) - G;
    if (g_a < 0.0) {
      const double g_b = conductance(C_water, b, availability) - G;
      if (g_b >= 0.0) return solveFanSpeed(C_water, G, availability, a, b, g_a, g_b);
    }
  }
  const double G_full = conductance(C_water, 1.0, availability);
  if (G >= G_full) return 1.0;
  double G_lo = 0.0;
  if (s_min > 0.0) {
    G_lo = conductance(C_water, s_min, availability);
    if (G <= G_lo) return s_min * G / G_lo;  // cycling at the minimum speed
  }
  return solveFanSpeed(C_water, G, availability, s_min, 1.0, G_lo - G, G_full - G);
}

double HeatRejectionUnit::solveFanSpeed(double C_water, double G, double availability, double lo,
                                        double hi, double g_lo, double g_hi) const {
  // G(s) increases with s (more air and a larger air-side film conductance): regula falsi with
  // the Illinois rule on [lo, hi], G(lo) < G <= G(hi), until the bracket is 1e-10 wide. A plant
  // solves this every control sub-step; bisection took ~34 conductances, this a handful.
  constexpr double kWidth = 1e-10, kStep = 0.4 * kWidth;
  int kept = 0;  // > 0: lo was kept last time, < 0: hi
  for (int i = 0; i < 200 && hi - lo > kWidth; ++i) {
    const double w = hi - lo;
    double x = lo - g_lo * w / (g_hi - g_lo);
    if (!(x > lo && x < hi)) x = lo + 0.5 * w;  // round-off, or a flat end: bisect
    // At least kStep inside either end: an estimate that lands next to the root from one side
    // puts the next point just across it, which closes the bracket.
    x = std::clamp(x, lo + kStep, hi - kStep);
    const double g_x = conductance(C_water, x, availability) - G;
    if (g_x < 0.0) {
      lo = x;
      g_lo = g_x;
      if (kept < 0) g_hi *= 0.5;  // hi kept twice: halve its weight (Illinois)
      kept = -1;
    } else {
      hi = x;
      g_hi = g_x;
      if (kept > 0) g_lo *= 0.5;
      kept = 1;
    }
  }
  return hi;
}

double HeatRejectionUnit::fanSpeedFor(double T_in, double C_water, double T_ambient,
                                      double T_target, double availability, double guess) const {
  if (C_water <= 0.0 || availability <= 0.0) return 0.0;
  if (T_in <= T_target || T_in <= T_ambient) return 0.0;
  if (T_target <= T_ambient) return 1.0;  // needs eps >= 1: as close as full speed gets
  // Leaving water T_in - G (T_in - T_amb) / C_water = T_target.
  const double G = C_water * (T_in - T_target) / (T_in - T_ambient);
  return fanSpeedForConductance(C_water, G, availability, guess);
}

WaterUse HeatRejectionUnit::waterUse(double Q_flow, double V_flow) const {
  WaterUse w;
  if (!isTower()) return w;
  const double m_evaporation = std::max(Q_flow, 0.0) / kWaterLatentHeat_J_per_kg;  // kg/s
  w.evaporation = m_evaporation / rho_;
  w.drift = spec_.drift_fraction * std::abs(V_flow);
  w.blowdown = w.evaporation / (spec_.cycles_of_concentration - 1.0);
  w.total = w.evaporation + w.drift + w.blowdown;
  return w;
}

// ------------------------------------------------------------------------------------------------

TrimChiller::TrimChiller(const core::ChillerSpec& spec) : spec_(spec) {
  if (!spec.present) return;
  const std::string owner = "chiller '" + spec.type + "': ";
  if (!positive(spec.Q_flow_nominal)) {
    throw std::invalid_argument(owner + "capacity must be positive");
  }
  if (!(spec.carnot_fraction > 0.0 && spec.carnot_fraction <= 1.0)) {
    throw std::invalid_argument(owner + "Carnot fraction must be within (0, 1]");
  }
  if (!(spec.condenser_approach >= 0.0) || !std::isfinite(spec.condenser_approach)) {
    throw std::invalid_argument(owner + "condenser approach must be zero or positive");
  }
  if (!positive(spec.COP_max)) throw std::invalid_argument(owner + "COP_max must be positive");
  checkDropLaw(spec.dp, "evaporator pressure drop", "chiller '" + spec.type + "'");
}

double TrimChiller::COP(double T_evaporator, double T_dry_bulb) const {
  const double T_condenser = T_dry_bulb + spec_.condenser_approach;
  const double lift = T_condenser - T_evaporator;
  // No lift (or a negative one): the compressor still runs; the cap is the sane bound.
  if (!(lift > 0.0)) return spec_.COP_max;
  return std::min(spec_.COP_max, spec_.carnot_fraction * T_evaporator / lift);
}

double TrimChiller::heatFlow(double Q_wanted) const {
  return std::clamp(Q_wanted, 0.0, spec_.Q_flow_nominal);
}

double TrimChiller::electricPower(double Q_flow, double T_evaporator, double T_dry_bulb) const {
  return std::max(Q_flow, 0.0) / COP(T_evaporator, T_dry_bulb);
}

double TrimChiller::condenserHeat(double Q_flow, double T_evaporator, double T_dry_bulb) const {
  return std::max(Q_flow, 0.0) + electricPower(Q_flow, T_evaporator, T_dry_bulb);
}

}  // namespace racktwin::thermal
