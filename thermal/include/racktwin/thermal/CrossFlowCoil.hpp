#pragma once
// A finned-tube coil between a liquid and air in cross flow, both streams unmixed (rear-door heat
// exchangers, the air coils of liquid-to-air CDUs), by the effectiveness-NTU method with the
// cross-flow effectiveness of the dry coolers (crossFlowUnmixedEffectiveness, HeatRejection.hpp:
// Incropera and DeWitt eq. 11.32, the form of Modelica Buildings' epsilon_C for
// CrossFlowStreamsUnmixed). Film conductances scale with (flow / nominal)^0.8 on each side, equal
// at the rating (as for the plate exchangers, HeatExchanger.hpp). Air is dry air at 101.325 kPa.
#include "racktwin/thermal/HeatRejection.hpp"

namespace racktwin::thermal {

/// Dry air near room temperature at 101.325 kPa: rho = p / (R T) with R = 287.05 J/(kg K) at
/// 25 degC, and cp at 300 K (Incropera Table A.4: 1007 J/(kg K)).
inline constexpr double kAirDensity = 101325.0 / (287.05 * 298.15);            // kg/m3, 1.184
inline constexpr double kAirHeatCapacity = 1007.0;                             // J/(kg K)
inline constexpr double kAirCapacityPerFlow = kAirDensity * kAirHeatCapacity;  // W/K per m3/s

/// A coil rated at one point: heat Q_nominal (W) with liquid and air capacity rates C_liquid and
/// C_air (W/K) entering at T_air - T_liquid = dT (K).
class CrossFlowCoil {
 public:
  /// Throws std::invalid_argument when a value is not positive and finite, or the rating needs
  /// an effectiveness of 1 or more (more heat than the smaller stream can carry across dT).
  static CrossFlowCoil fromRating(double Q_nominal, double C_liquid_nominal, double C_air_nominal,
                                  double dT_nominal);
  /// From a conductance already rated (W/K) at its nominal capacity rates.
  CrossFlowCoil(double UA_nominal, double C_liquid_nominal, double C_air_nominal)
      : UA_nominal_(UA_nominal),
        C_liquid_nominal_(C_liquid_nominal),
        C_air_nominal_(C_air_nominal) {}
  /// G = eps C_min (W/K) at capacity rates C_liquid, C_air >= 0: Q = G (T_air_in - T_liquid_in)
  /// into the liquid; 0 when either is 0.
  double conductance(double C_liquid, double C_air) const;
  double UA_nominal() const noexcept { return UA_nominal_; }

 private:
  double UA_nominal_, C_liquid_nominal_, C_air_nominal_;
};

}  // namespace racktwin::thermal
