#pragma once
// SI units inside, conversions at the edges. Scenario and data files write a quantity as
// "<number> <unit>" (for example "32 degC", "190 L/min", "1.2 bar", "250 kW"); parseQuantity turns
// it into the SI value of the expected dimension. Reports convert back with the to*() helpers.
#include <span>
#include <string>
#include <string_view>

namespace racktwin::core {

enum class Dimension {
  Dimensionless,          // "0.95", "95 %"
  Temperature,            // K, degC, degF (absolute)
  TemperatureDifference,  // K, delta_degC
  Time,                   // s, ms, min, h
  Length,                 // m, mm, cm, in, ft
  Volume,                 // m3, L, mL
  VolumeFlow,             // m3/s, m3/h, L/s, L/min, GPM (US gallons per minute)
  MassFlow,               // kg/s, kg/h
  Pressure,               // Pa, kPa, MPa, bar, psi (differential or gauge as the key says)
  Power,                  // W, kW, MW
  Energy,                 // J, kJ, MJ, Wh, kWh
  ThermalResistance,      // K/W
  HeatCapacity,           // J/K, kJ/K
  ThermalConductance,     // W/K, kW/K
  Voltage,                // V, kV
};

/// Every dimension, in declaration order.
std::span<const Dimension> allDimensions() noexcept;

/// Human name of a dimension and the units accepted for it, for error messages.
std::string_view dimensionName(Dimension d);
std::string_view acceptedUnits(Dimension d);

/// Parses "<number> <unit>" (a bare number only for Dimensionless) into SI.
/// Throws std::invalid_argument with a message that says what was expected; callers that know the
/// file, line and key turn it into an InputError.
double parseQuantity(std::string_view text, Dimension expected);

// Edge conversions for reports and user-facing output.
constexpr double kZeroCelsius_K = 273.15;
constexpr double toCelsius(double T_K) {
  return T_K - kZeroCelsius_K;
}
constexpr double fromCelsius(double T_degC) {
  return T_degC + kZeroCelsius_K;
}
constexpr double kLitrePerMinute_m3_per_s = 1.0e-3 / 60.0;
constexpr double toLitrePerMinute(double V_flow) {
  return V_flow / kLitrePerMinute_m3_per_s;
}
constexpr double kBar_Pa = 1.0e5;
constexpr double kPsi_Pa = 6894.757293168361;
constexpr double kUsGallon_m3 = 3.785411784e-3;
constexpr double kGravity_m_per_s2 = 9.80665;

}  // namespace racktwin::core
