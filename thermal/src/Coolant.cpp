#include "racktwin/thermal/Coolant.hpp"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::thermal {
namespace {

// x^n for a small integer n (either sign) by binary powering: the IAPWS sums have exponents up to
// |41|, and std::pow would make each term a transcendental call.
double integerPower(double x, int n) {
  const bool inverse = n < 0;
  unsigned m = inverse ? static_cast<unsigned>(-n) : static_cast<unsigned>(n);
  double result = 1.0;
  while (m != 0) {
    if ((m & 1U) != 0) result *= x;
    x *= x;
    m >>= 1U;
  }
  return inverse ? 1.0 / result : result;
}

// ---------------------------------------------------------------------------------------------
// Water, IAPWS R7-97(2012), "Revised Release on the IAPWS Industrial Formulation 1997 for the
// Thermodynamic Properties of Water and Steam", region 1 (liquid): the dimensionless Gibbs energy
// gamma(pi, tau) = sum n_i (7.1 - pi)^I_i (tau - 1.222)^J_i, Table 2.
struct GibbsTerm {
  int I;
  int J;
  double n;
};
constexpr std::array<GibbsTerm, 34> kIf97Region1{{
    {0, -2, 0.14632971213167e0},      {0, -1, -0.84548187169114e0},
    {0, 0, -0.37563603672040e1},      {0, 1, 0.33855169168385e1},
    {0, 2, -0.95791963387872e0},      {0, 3, 0.15772038513228e0},
    {0, 4, -0.16616417199501e-1},     {0, 5, 0.81214629983568e-3},
    {1, -9, 0.28319080123804e-3},     {1, -7, -0.60706301565874e-3},
    {1, -1, -0.18990068218419e-1},    {1, 0, -0.32529748770505e-1},
    {1, 1, -0.21841717175414e-1},     {1, 3, -0.52838357969930e-4},
    {2, -3, -0.47184321073267e-3},    {2, 0, -0.30001780793026e-3},
    {2, 1, 0.47661393906987e-4},      {2, 3, -0.44141845330846e-5},
    {2, 17, -0.72694996297594e-15},   {3, -4, -0.31679644845054e-4},
    {3, 0, -0.28270797985312e-5},     {3, 6, -0.85205128120103e-9},
    {4, -5, -0.22425281908000e-5},    {4, -2, -0.65171222895601e-6},
    {4, 10, -0.14341729937924e-12},   {5, -8, -0.40516996860117e-6},
    {8, -11, -0.12734301741641e-8},   {8, -6, -0.17424871230634e-9},
    {21, -29, -0.68762131295531e-18}, {23, -31, 0.14478307828521e-19},
    {29, -38, 0.26335781662795e-22},  {30, -39, -0.11947622640071e-22},
    {31, -40, 0.18228094581404e-23},  {32, -41, -0.93537087292458e-25},
}};
constexpr double kIf97R = 461.526;      // J/(kg K), specific gas constant of IF97
constexpr double kIf97pStar = 16.53e6;  // Pa, region 1 reducing pressure
constexpr double kIf97TStar = 1386.0;   // K, region 1 reducing temperature
// The loops run at 2..6 bar; the properties are evaluated at the reference table's 3 bar.
constexpr double kWaterPressure = 3.0e5;  // Pa

struct WaterState {
  double rho;
  double cp;
};

// rho = p* / (R T gamma_pi), cp = -R tau^2 gamma_tautau (IF97 Table 3).
WaterState waterIf97(double T) {
  const double pi_shift = 7.1 - kWaterPressure / kIf97pStar;
  const double tau = kIf97TStar / T;
  const double tau_shift = tau - 1.222;
  double gamma_pi = 0.0;
  double gamma_tautau = 0.0;
  for (const GibbsTerm& term : kIf97Region1) {
    if (term.I != 0) {
      gamma_pi -=
          term.n * term.I * integerPower(pi_shift, term.I - 1) * integerPower(tau_shift, term.J);
    }
    if (term.J != 0 && term.J != 1) {
      gamma_tautau += term.n * term.J * (term.J - 1) * integerPower(pi_shift, term.I)
                      * integerPower(tau_shift, term.J - 2);
    }
  }
  return {kIf97pStar / (kIf97R * T * gamma_pi), -kIf97R * tau * tau * gamma_tautau};
}

constexpr double kWaterTcritical = 647.096;  // K, reducing temperature of IAPWS 2008 and 2011
constexpr double kWaterRhoCritical = 322.0;  // kg/m3, reducing density of IAPWS 2008 and 2011

struct ResidualTerm {
  int i;
  int j;
  double H;
};

// IAPWS R12-08, "Release on the IAPWS Formulation 2008 for the Viscosity of Ordinary Water
// Substance": mu = mu* mu0(Tbar) mu1(Tbar, rhobar) (the critical enhancement mu2 is 1 to better
// than 1e-4 outside a small region around the critical point). Eq. 11 (Table 1) and Eq. 12
// (Table 2), mu* = 1e-6 Pa s.
constexpr std::array<double, 4> kViscosityH0{1.67752, 2.20462, 0.6366564, -0.241605};
constexpr std::array<ResidualTerm, 21> kViscosityH1{{
    {0, 0, 5.20094e-1},  {1, 0, 8.50895e-2},  {2, 0, -1.08374},    {3, 0, -2.89555e-1},
    {0, 1, 2.22531e-1},  {1, 1, 9.99115e-1},  {2, 1, 1.88797},     {3, 1, 1.26613},
    {5, 1, 1.20573e-1},  {0, 2, -2.81378e-1}, {1, 2, -9.06851e-1}, {2, 2, -7.72479e-1},
    {3, 2, -4.89837e-1}, {4, 2, -2.57040e-1}, {0, 3, 1.61913e-1},  {1, 3, 2.57399e-1},
    {0, 4, -3.25372e-2}, {3, 4, 6.98452e-2},  {4, 5, 8.72102e-3},  {3, 6, -4.35673e-3},
    {5, 6, -5.93264e-4},
}};

double residualSum(const ResidualTerm* terms, std::size_t count, double Tbar, double rhobar) {
  const double a = 1.0 / Tbar - 1.0;
  const double b = rhobar - 1.0;
  double sum = 0.0;
  for (std::size_t t = 0; t < count; ++t) {
    sum += terms[t].H * integerPower(a, terms[t].i) * integerPower(b, terms[t].j);
  }
  return sum;
}

double waterViscosity(double T, double rho) {
  const double Tbar = T / kWaterTcritical;
  const double rhobar = rho / kWaterRhoCritical;
  double denominator = 0.0;
  for (std::size_t i = 0; i < kViscosityH0.size(); ++i) {
    denominator += kViscosityH0[i] / integerPower(Tbar, static_cast<int>(i));
  }
  const double mu0 = 100.0 * std::sqrt(Tbar) / denominator;
  const double mu1 =
      std::exp(rhobar * residualSum(kViscosityH1.data(), kViscosityH1.size(), Tbar, rhobar));
  return 1.0e-6 * mu0 * mu1;
}

// IAPWS R15-11, "Release on the IAPWS Formulation 2011 for the Thermal Conductivity of Ordinary
// Water Substance": lambda = lambda* lambda0(Tbar) lambda1(Tbar, rhobar); Eq. 16 (Table 1) and
// Eq. 17 (Table 2), lambda* = 1e-3 W/(m K). The critical enhancement lambda2 is left out: it stays
// below 1e-4 relative in the liquid between 0 and 100 degC.
constexpr std::array<double, 5> kConductivityL0{2.443221e-3, 1.323095e-2, 6.770357e-3, -3.454586e-3,
                                                4.096266e-4};
constexpr std::array<ResidualTerm, 28> kConductivityL1{{
    {0, 0, 1.60397357},    {0, 1, -0.646013523},  {0, 2, 0.111443906},  {0, 3, 0.102997357},
    {0, 4, -0.0504123634}, {0, 5, 0.00609859258}, {1, 0, 2.33771842},   {1, 1, -2.78843778},
    {1, 2, 1.53616167},    {1, 3, -0.463045512},  {1, 4, 0.0832827019}, {1, 5, -0.00719201245},
    {2, 0, 2.19650529},    {2, 1, -4.54580785},   {2, 2, 3.55777244},   {2, 3, -1.40944978},
    {2, 4, 0.275418278},   {2, 5, -0.0205938816}, {3, 0, -1.21051378},  {3, 1, 1.60812989},
    {3, 2, -0.621178141},  {3, 3, 0.0716373224},  {4, 0, -2.7203370},   {4, 1, 4.57586331},
    {4, 2, -3.18369245},   {4, 3, 1.1168348},     {4, 4, -0.19268305},  {4, 5, 0.012913842},
}};

double waterConductivity(double T, double rho) {
  const double Tbar = T / kWaterTcritical;
  const double rhobar = rho / kWaterRhoCritical;
  double denominator = 0.0;
  for (std::size_t k = 0; k < kConductivityL0.size(); ++k) {
    denominator += kConductivityL0[k] / integerPower(Tbar, static_cast<int>(k));
  }
  const double lambda0 = std::sqrt(Tbar) / denominator;
  const double lambda1 =
      std::exp(rhobar * residualSum(kConductivityL1.data(), kConductivityL1.size(), Tbar, rhobar));
  return 1.0e-3 * lambda0 * lambda1;
}

// ---------------------------------------------------------------------------------------------
// Propylene glycol-water, Melinder (2010): f = sum_i sum_j c_ij (x - x_m)^i (T - T_m)^j with x the
// mass fraction in %, T in degC, i = 0..5, j = 0..nT_i - 1; coefficients in order i, then j.
constexpr double kMelinderX_m = 30.7031;  // %
constexpr double kMelinderT_m = 32.7089;  // degC
constexpr std::array<int, 6> kMelinderNT{4, 4, 4, 3, 2, 1};
using MelinderCoefficients = std::array<double, 18>;
// One row per power i of (x - x_m); the columns are the powers j of (T - T_m).
// clang-format off
// rho, kg/m3
constexpr MelinderCoefficients kPgDensity{
       1.018e3,  -5.406e-1,  -2.666e-3,   1.347e-5,
      7.604e-1,  -9.450e-3,   5.541e-5,  -1.343e-7,
     -2.498e-3,   2.700e-5,  -4.018e-7,   3.376e-9,
     -1.550e-4,   2.829e-6,  -7.175e-9,
     -1.131e-6,  -2.221e-8,
      2.342e-8,
};
// cp, J/(kg K)
constexpr MelinderCoefficients kPgSpecificHeat{
       3.882e3,    2.699e0,  -1.659e-3,  -1.032e-5,
      -1.304e1,   5.070e-2,  -4.752e-5,   1.522e-6,
     -1.598e-1,   9.534e-5,   1.167e-5,  -4.870e-8,
      3.539e-4,   3.102e-5,  -2.950e-7,
      5.000e-5,  -7.135e-7,
     -4.959e-7,
};
// k, W/(m K)
constexpr MelinderCoefficients kPgConductivity{
      4.513e-1,   7.955e-4,   3.482e-8,  -5.966e-9,
     -4.795e-3,  -1.678e-5,   8.941e-8,  1.493e-10,
      2.076e-5,   1.563e-7,  -4.615e-9,  9.897e-12,
     -9.083e-8,  -2.518e-9,  6.543e-11,
    -5.952e-10, -3.605e-11,
     2.104e-11,
};
// ln(mu / mPa s)
constexpr MelinderCoefficients kPgLnViscosity{
      6.837e-1,  -3.045e-2,   2.525e-4,  -1.399e-6,
      3.328e-2,  -3.984e-4,   4.332e-6,  -1.860e-8,
      5.453e-5,  -8.600e-8,  -1.593e-8, -4.465e-11,
     -3.900e-6,   1.054e-7,  -1.589e-9,
     -1.587e-8,  4.475e-10,
      3.564e-9,
};
// clang-format on
// Freezing point (degC), the same form (as in IBPSA PropyleneGlycolWater.fusionTemperature); its
// temperature terms are tiny and are evaluated at the freezing point itself.
// clang-format off
constexpr MelinderCoefficients kPgFreezingPoint{
      -1.325e1,  -3.820e-5,   7.865e-7,  -1.733e-9,
     -6.631e-1,   6.774e-6,  -6.242e-8, -7.819e-10,
     -1.094e-2,   5.332e-8,  -4.169e-9,  3.288e-11,
     -2.283e-4,  -1.131e-8,  1.918e-10,
     -3.409e-6,  8.035e-11,
      1.465e-8,
};
// clang-format on

// Substitutes the mass fraction: returns the coefficients of (T - T_m)^j.
std::array<double, 4> melinderAtFraction(const MelinderCoefficients& c, double x_percent) {
  std::array<double, 4> b{};
  const double dx = x_percent - kMelinderX_m;
  double dx_i = 1.0;
  std::size_t n = 0;
  for (int nT : kMelinderNT) {
    for (int j = 0; j < nT; ++j)
      b[static_cast<std::size_t>(j)] += c[n++] * dx_i;
    dx_i *= dx;
  }
  return b;
}

double evaluateInTemperature(const std::array<double, 4>& b, double T) {
  const double dT = core::toCelsius(T) - kMelinderT_m;
  return b[0] + dT * (b[1] + dT * (b[2] + dT * b[3]));
}

std::string glycolName(double mass_fraction) {
  const double percent = 100.0 * mass_fraction;
  char buffer[32];
  if (std::abs(percent - std::round(percent)) < 1e-9) {
    std::snprintf(buffer, sizeof buffer, "PG%.0f", percent);
  } else {
    std::snprintf(buffer, sizeof buffer, "PG%g", percent);
  }
  return buffer;
}

std::string lowercase(std::string text) {
  for (char& c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

void assertTemperature(double T) {
  RACKTWIN_ASSERT(std::isfinite(T) && T > 0.0, "coolant temperature must be finite and positive");
}

}  // namespace

Coolant::Coolant(Kind kind, std::string name, double glycol_mass_fraction)
    : kind_(kind), name_(std::move(name)), glycol_mass_fraction_(glycol_mass_fraction) {
  if (kind_ == Kind::Water) {
    T_freeze_ = core::kZeroCelsius_K;
    return;
  }
  const double x_percent = 100.0 * glycol_mass_fraction_;
  rho_ = melinderAtFraction(kPgDensity, x_percent);
  cp_ = melinderAtFraction(kPgSpecificHeat, x_percent);
  k_ = melinderAtFraction(kPgConductivity, x_percent);
  ln_mu_ = melinderAtFraction(kPgLnViscosity, x_percent);
  // Fixed point T_f = f(x, T_f); d f / d T is about 1e-4, so three passes are exact to round-off.
  const TemperaturePolynomial freezing = melinderAtFraction(kPgFreezingPoint, x_percent);
  double T_f = core::fromCelsius(kMelinderT_m);
  for (int pass = 0; pass < 3; ++pass)
    T_f = core::fromCelsius(evaluateInTemperature(freezing, T_f));
  T_freeze_ = T_f;
}

Coolant Coolant::water() {
  return Coolant(Kind::Water, "water", 0.0);
}

Coolant Coolant::propyleneGlycol(double mass_fraction) {
  if (!(mass_fraction >= 0.0 && mass_fraction <= 0.6)) {
    throw std::invalid_argument("propylene glycol mass fraction must be within 0 .. 0.6, got "
                                + std::to_string(mass_fraction));
  }
  return Coolant(Kind::PropyleneGlycol, glycolName(mass_fraction), mass_fraction);
}

Coolant Coolant::fromSpec(const core::CoolantSpec& spec) {
  const std::string name = lowercase(spec.name);
  const double fraction = spec.glycol_mass_fraction;
  if (name == "water") {
    if (fraction != 0.0) {
      throw std::invalid_argument("coolant 'water' cannot have a glycol mass fraction of "
                                  + std::to_string(fraction));
    }
    return water();
  }
  if (name.rfind("pg", 0) == 0) {
    const std::string percent_text = name.substr(2);
    if (percent_text.empty()) return propyleneGlycol(fraction);
    std::size_t used = 0;
    double percent = 0.0;
    try {
      percent = std::stod(percent_text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != percent_text.size() || !std::isfinite(percent)) {
      throw std::invalid_argument("coolant '" + spec.name
                                  + "': expected 'PG' followed by the glycol mass percentage");
    }
    const double named_fraction = percent / 100.0;
    if (fraction == 0.0) return propyleneGlycol(named_fraction);
    // Half a tenth of a percent: "PG25" with 0.25 agrees; "PG25" with 0.30 does not.
    if (std::abs(named_fraction - fraction) > 5e-4) {
      throw std::invalid_argument("coolant '" + spec.name + "' disagrees with its glycol mass "
                                  + "fraction " + std::to_string(fraction));
    }
    return propyleneGlycol(fraction);
  }
  throw std::invalid_argument("unknown coolant '" + spec.name
                              + "' (known: 'water', 'PG<percent>' such as 'PG25')");
}

CoolantProperties Coolant::at(double T) const {
  assertTemperature(T);
  if (kind_ == Kind::Water) {
    const WaterState state = waterIf97(T);
    return {state.rho, state.cp, waterViscosity(T, state.rho), waterConductivity(T, state.rho)};
  }
  return {evaluateInTemperature(rho_, T), evaluateInTemperature(cp_, T),
          1.0e-3 * std::exp(evaluateInTemperature(ln_mu_, T)), evaluateInTemperature(k_, T)};
}

double Coolant::density(double T) const {
  assertTemperature(T);
  return kind_ == Kind::Water ? waterIf97(T).rho : evaluateInTemperature(rho_, T);
}

double Coolant::specificHeat(double T) const {
  assertTemperature(T);
  return kind_ == Kind::Water ? waterIf97(T).cp : evaluateInTemperature(cp_, T);
}

double Coolant::viscosity(double T) const {
  assertTemperature(T);
  return kind_ == Kind::Water ? waterViscosity(T, waterIf97(T).rho)
                              : 1.0e-3 * std::exp(evaluateInTemperature(ln_mu_, T));
}

double Coolant::conductivity(double T) const {
  assertTemperature(T);
  return kind_ == Kind::Water ? waterConductivity(T, waterIf97(T).rho)
                              : evaluateInTemperature(k_, T);
}

}  // namespace racktwin::thermal
