#pragma once
// SI units inside, conversions at the edges. Scenario and data files write a quantity as
// "<number> <unit>" (for example "32 degC", "190 L/min", "1.2 bar", "250 kW"); parseQuantity turns
// it into the SI value of the expected dimension. Reports convert back with the to*() helpers.
#include <optional>
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
constexpr double kBtu_J = 1055.05585262;  // International Table Btu (exact by definition)
constexpr double kTonRefrigeration_W = 12000.0 * kBtu_J / 3600.0;  // 12,000 Btu/h

/// Output in the user's units: SI (the default, as stored) or US customary (degF, gpm, psi, gal,
/// Btu/h and ton-hours for heat). Result files and JSON stay SI whatever the report shows.
enum class UnitSystem { SI, US };

/// How a report shows a value: shown = value * scale + offset, labelled `unit`.
struct DisplayUnit {
  std::string_view unit;
  double scale = 1.0;
  double offset = 0.0;
};

/// The US customary display of an SI quantity named by its SI unit as result datasets carry it
/// ("K", "m3/s", "Pa", "W", "J", "m3", "m", "kg/s"). `heat`: a heat flow or heat (datasets named
/// Q_flow*, summary items marked heat), shown in Btu/h or ton-hours; other powers and energies are
/// shown in kW and kWh (as US utilities and facility engineers use them). nullopt: the unit is
/// shown as it is (s, Hz, V, A, dimensionless).
std::optional<DisplayUnit> usCustomaryFromSi(std::string_view si_unit, bool heat);
/// The same for a value already scaled to a metric display unit ("degC", "K" as a temperature
/// difference, "kW", "kWh", "kPa", "L/min", "L", "L/kWh"): the scale and offset apply to the
/// metric display value.
std::optional<DisplayUnit> usCustomaryFromMetric(std::string_view metric_unit, bool heat);

}  // namespace racktwin::core
