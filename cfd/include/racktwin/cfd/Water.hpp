#pragma once
// Constant fluid properties for the CFD cases (laminar, so one set evaluated at the inlet
// temperature is the model: the property variation over a 10 K rise is neglected and said so).
#include <string>

namespace racktwin::cfd {

struct FluidProperties {
  std::string name;
  double rho = 0.0;  // kg/m3
  double mu = 0.0;   // Pa s
  double cp = 0.0;   // J/(kg K)
  double k = 0.0;    // W/(m K)
  double nu() const { return mu / rho; }
  double alpha() const { return k / (rho * cp); }
  double Pr() const { return mu * cp / k; }
};

/// Liquid water at about 1-3 bar, linear between tabulated points from 20 to 60 degC (IAPWS-95
/// density and heat capacity, IAPWS 2008 viscosity, IAPWS 2011 conductivity). Throws
/// std::invalid_argument outside 10-70 degC.
FluidProperties water(double T);

/// "water" is the only fluid; throws std::invalid_argument naming what is accepted.
FluidProperties fluidByName(const std::string& name, double T);

}  // namespace racktwin::cfd
