#pragma once
// Heat rejection of the facility water loop to outdoor air, quasi-steady (the units' own thermal
// mass is a cell of the loop's transport, see FacilityLoop): dry coolers and cooling towers by the
// effectiveness-NTU method, and a trim chiller by a fraction of the Carnot COP.
//
// Both rejection kinds remove Q = eps(NTU, Z) C_min (T_in - T_ambient) per unit, with the water
// capacity rate C_w (W/K) shared equally by `units` identical units in parallel and an air-side
// capacity rate proportional to fan speed s:
//  - DryCooler: finned-tube coil in cross flow, both fluids unmixed (Incropera & DeWitt,
//    Fundamentals of Heat and Mass Transfer, 6th ed., Table 11.3, Eq. 11.32):
//    eps = 1 - exp[(1/Z) NTU^0.22 (exp(-Z NTU^0.78) - 1)]. The finned air side and the water in
//    the tubes are both held in their channels, and the form is symmetric in which side is C_min,
//    which changes with fan speed. Ambient = dry bulb.
//  - CoolingTower: counter flow on the wet bulb with Merkel's simplification as Braun, Klein and
//    Mitchell (1989) linearise it: the air is a stream of saturated-air enthalpy whose "capacity
//    rate" is m_air dh_sat/dT, held constant at the design point, so the tower is a counter-flow
//    exchanger (Incropera Table 11.3, Eq. 11.29a) between the water and an air stream at the
//    entering wet bulb. All rejected heat is counted as evaporation (Lewis number 1, no sensible
//    share), the usual conservative water-use estimate.
// Design point (per unit, from core::HeatRejectionSpec): Q_flow_nominal at V_flow_nominal water,
// leaving approach_nominal above T_ambient_nominal at s = 1. Assumption for the air side: at the
// design point the air capacity rate equals the water's (kDesignAirToWaterCapacity = 1: the air
// warms by the water range, the balanced selection of dry coolers; for towers, L/G ~ 1.2 kg/kg at
// dh_sat/dT ~ 4.6 kJ/(kg K) near 27 degC gives ~0.9-1). UA follows from the design effectiveness.
// Off design, the film conductances split as 2/3 of 1/UA on the air side and 1/3 on the water
// side and wall at the design point (finned coils: the air film dominates); the air film scales
// with (air flow)^0.8, the water side is held (core::HeatRejectionSpec).
//
// Fans: power = units * fan_P_nominal * s^3 (affinity laws). Below fan_speed_min the fans cycle
// on and off at fan_speed_min: a speed command s in (0, fan_speed_min) stands for the time average
// of running a fraction s / fan_speed_min of the time, so heat and fan power are that fraction of
// their values at fan_speed_min. s = 0: fans off, no heat removed (free convection through the
// coil is ignored).
#include <cstddef>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::thermal {

/// Cross-flow effectiveness, both fluids unmixed (Incropera Table 11.3, Eq. 11.32); 1 - e^-NTU at
/// Z = 0. Asserts NTU >= 0 finite and 0 <= Z <= 1.
double crossFlowUnmixedEffectiveness(double NTU, double Z);
/// Inverse of crossFlowUnmixedEffectiveness in NTU (it increases monotonically from 0 to 1);
/// asserts 0 <= eps < 1 and 0 <= Z <= 1.
double crossFlowUnmixedNtu(double effectiveness, double Z);

/// Latent heat of vaporisation of water at 30 degC, J/kg: 2429.8 kJ/kg (IAPWS-95 as tabulated in
/// Cengel & Boles, Thermodynamics, Table A-4). It changes by -0.1 %/K, so within 1 % from 20 to
/// 40 degC, the range of tower water.
inline constexpr double kWaterLatentHeat_J_per_kg = 2.4298e6;

/// The design air-to-water capacity-rate ratio (see the file comment).
inline constexpr double kDesignAirToWaterCapacity = 1.0;
/// Share of 1/UA on the air side at the design point (see the file comment).
inline constexpr double kAirSideResistanceShare = 2.0 / 3.0;
/// Exponent of the air-side film conductance on air flow.
inline constexpr double kAirFilmExponent = 0.8;

/// Make-up water of a cooling tower, m3/s (zero for dry coolers).
struct WaterUse {
  double evaporation = 0.0;  // Q / h_fg
  double drift = 0.0;        // drift_fraction * circulating flow
  double blowdown = 0.0;     // evaporation / (cycles_of_concentration - 1)
  double total = 0.0;        // the sum: make-up water
};

/// The heat-rejection plant: `units` identical units in parallel.
class HeatRejectionUnit {
 public:
  /// From the spec and the facility water's density rho (kg/m3) and heat capacity cp (J/(kg K)),
  /// held for the run. Throws std::invalid_argument (saying what is expected) for a spec that is
  /// out of range: units < 1, non-positive rating, flow or approach, fan_speed_min outside [0, 1),
  /// negative fan power or volume, a tower with cycles_of_concentration <= 1 or drift outside
  /// [0, 1).
  HeatRejectionUnit(const core::HeatRejectionSpec& spec, double rho, double cp);

  const core::HeatRejectionSpec& spec() const noexcept { return spec_; }
  bool isTower() const noexcept {
    return spec_.kind == core::HeatRejectionSpec::Kind::CoolingTower;
  }

  /// Per unit at the design point: water and air capacity rates (W/K) and UA (W/K).
  double designWaterCapacityRate() const noexcept { return C_water_nominal_; }
  double designAirCapacityRate() const noexcept { return C_air_nominal_; }
  double designUA() const noexcept { return UA_nominal_; }
  /// UA (W/K) of one unit with its fans running at speed s in (0, 1] (no cycling applied).
  double UA(double fan_speed) const;
  /// Effectiveness of one unit running at fan speed s in (0, 1] with C_water_unit (W/K) of water.
  double effectiveness(double C_water_unit, double fan_speed) const;

  /// G (W/K) of the plant: Q = G (T_in - T_ambient), for the whole plant's water capacity rate
  /// C_water (W/K, shared equally by the units), fan speed s in [0, 1] (cycling below the minimum
  /// speed, see the file comment) and the fraction of units whose fans can run (fan loss).
  /// 0 <= G <= C_water.
  double conductance(double C_water, double fan_speed, double availability = 1.0) const;
  /// Heat removed by the plant, W (negative when the ambient is warmer than the water).
  double heatFlow(double T_in, double C_water, double T_ambient, double fan_speed,
                  double availability = 1.0) const;
  /// Fan electric power of the plant, W.
  double fanPower(double fan_speed, double availability = 1.0) const;
  /// The fan speed that brings water entering at T_in to T_target on leaving: 0 when no cooling
  /// is needed (T_in <= T_target) or possible (T_in <= T_ambient); 1 when even full speed cannot
  /// reach the target; below fan_speed_min the cycling fraction (see the file comment); else the
  /// speed to 1e-10, found first near `guess` (the last speed) when one is given.
  double fanSpeedFor(double T_in, double C_water, double T_ambient, double T_target,
                     double availability = 1.0, double guess = -1.0) const;
  /// The fan speed whose conductance is G (W/K), clamped to [0, 1] as fanSpeedFor.
  double fanSpeedForConductance(double C_water, double G, double availability = 1.0,
                                double guess = -1.0) const;
  /// Make-up water of the plant for heat Q (W) rejected with V_flow (m3/s) circulating.
  WaterUse waterUse(double Q_flow, double V_flow) const;

 private:
  /// The speed in [lo, hi] with G(lo) < G <= G(hi), g_* = G(*) - G: the upper end of a bracket
  /// 1e-10 wide.
  double solveFanSpeed(double C_water, double G, double availability, double lo, double hi,
                       double g_lo, double g_hi) const;
  double unitConductance(double C_water_unit, double fan_speed) const;  // s >= minimum, no cycling

  core::HeatRejectionSpec spec_;
  double rho_ = 0.0, cp_ = 0.0;
  double C_water_nominal_ = 0.0, C_air_nominal_ = 0.0, UA_nominal_ = 0.0;
};

/// A trim chiller in series after the heat rejection (core::ChillerSpec): COP = carnot_fraction
/// T_evap / (T_cond - T_evap), T_cond = dry bulb + condenser_approach, capped at COP_max (also when
/// T_cond <= T_evap); the condenser rejects Q + P to the ambient air.
class TrimChiller {
 public:
  /// Throws std::invalid_argument for a present chiller with a non-positive capacity, carnot
  /// fraction outside (0, 1], negative condenser approach or a non-positive COP_max.
  explicit TrimChiller(const core::ChillerSpec& spec);

  const core::ChillerSpec& spec() const noexcept { return spec_; }
  double capacity() const noexcept { return spec_.Q_flow_nominal; }  // W
  double COP(double T_evaporator, double T_dry_bulb) const;
  /// Heat the chiller can take for a wanted Q (W): clamped to [0, capacity].
  double heatFlow(double Q_wanted) const;
  double electricPower(double Q_flow, double T_evaporator, double T_dry_bulb) const;  // W
  double condenserHeat(double Q_flow, double T_evaporator, double T_dry_bulb) const;  // W

 private:
  core::ChillerSpec spec_;
};

}  // namespace racktwin::thermal
