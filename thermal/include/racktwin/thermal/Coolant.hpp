#pragma once
// Thermophysical properties of the liquid coolants in the loops: water and propylene glycol-water.
// Everything is SI; temperatures are absolute (K).
//
// Water: IAPWS-IF97 region 1 (density, isobaric heat capacity) at a fixed 3 bar absolute, a
// typical loop static pressure and that of the project's reference property table. The liquid
// properties change by at most about 0.1 % per MPa, so loops at 2..6 bar stay within 0.04 %.
// Viscosity: IAPWS 2008; thermal conductivity: IAPWS 2011; both without their critical
// enhancement, which stays below 1e-4 relative in the liquid between 0 and 100 degC.
// Valid 273.15 K .. 373.15 K; against IAPWS-95 there, density agrees to 2e-5 and cp to 6e-4.
//
// Propylene glycol-water: Melinder (2010), "Properties of Secondary Working Fluids", IIR, the
// polynomial in mass fraction and temperature that IBPSA/Modelica
// SecondaryFluid.PropyleneGlycolWater and NREL SecondaryCoolantProps also use. Valid for mass
// fractions 0 .. 0.6 and from the freezing point to 373.15 K.
//
// Outside these ranges the correlations are still evaluated (no clamping), and their values are
// extrapolations: callers that can leave the range should check against freezingPoint().
#include <array>
#include <string>

namespace racktwin::core {
struct CoolantSpec;
}

namespace racktwin::thermal {

struct CoolantProperties {
  double rho = 0.0;  // kg/m3
  double cp = 0.0;   // J/(kg K)
  double mu = 0.0;   // Pa s
  double k = 0.0;    // W/(m K)
};

/// A coolant with temperature-dependent properties. Cheap to copy; evaluation allocates nothing.
class Coolant {
 public:
  /// Pure water (name "water").
  static Coolant water();
  /// Propylene glycol-water at a glycol mass fraction in [0, 0.6] (name "PG25" for 0.25).
  /// Throws std::invalid_argument outside that range.
  static Coolant propyleneGlycol(double mass_fraction);
  /// From a scenario's coolant: name "water" (glycol fraction must be 0), or "PG" with an optional
  /// percentage ("PG25"). With a percentage in the name, glycol_mass_fraction may be 0 (the name
  /// decides) or must agree with it. Throws std::invalid_argument on anything else; the scenario
  /// loader turns that into an InputError with the file position.
  static Coolant fromSpec(const core::CoolantSpec& spec);

  /// All four properties at temperature T (K); asserts T is finite and positive.
  CoolantProperties at(double T) const;
  double density(double T) const;       // kg/m3
  double specificHeat(double T) const;  // J/(kg K)
  double viscosity(double T) const;     // Pa s
  double conductivity(double T) const;  // W/(m K)

  /// Temperature (K) below which ice crystals form: 273.15 K for water; the Melinder freezing-point
  /// polynomial for propylene glycol-water (-7.2 degC at 20 %, -12.8 degC at 30 %).
  double freezingPoint() const noexcept { return T_freeze_; }
  /// Propylene glycol mass fraction (0 for water).
  double glycolMassFraction() const noexcept { return glycol_mass_fraction_; }
  const std::string& name() const noexcept { return name_; }

 private:
  enum class Kind { Water, PropyleneGlycol };
  // Melinder polynomial with the mass fraction already substituted: per property, the
  // coefficients of (T - T_m)^j, j = 0..3 (T in degC).
  using TemperaturePolynomial = std::array<double, 4>;

  Coolant(Kind kind, std::string name, double glycol_mass_fraction);

  Kind kind_;
  std::string name_;
  double glycol_mass_fraction_ = 0.0;
  double T_freeze_ = 0.0;
  TemperaturePolynomial rho_{};
  TemperaturePolynomial cp_{};
  TemperaturePolynomial k_{};
  TemperaturePolynomial ln_mu_{};  // ln(mu / mPa s)
};

}  // namespace racktwin::thermal
