#include "racktwin/cfd/Water.hpp"

#include <array>
#include <stdexcept>

#include "racktwin/core/Units.hpp"

namespace racktwin::cfd {

namespace {

struct Row {
  double T_degC, rho, mu, cp, k;
};
// IAPWS values at 0.1 MPa (tables in the IAPWS releases; the pressure effect up to 3 bar is below
// 0.02 %).
constexpr std::array<Row, 7> kWater{{
    {10.0, 999.70, 1.3059e-3, 4192.0, 0.5800},
    {20.0, 998.21, 1.0016e-3, 4184.0, 0.5984},
    {30.0, 995.65, 0.7972e-3, 4180.0, 0.6154},
    {40.0, 992.22, 0.6527e-3, 4179.0, 0.6305},
    {50.0, 988.03, 0.5465e-3, 4181.0, 0.6435},
    {60.0, 983.20, 0.4660e-3, 4185.0, 0.6543},
    {70.0, 977.76, 0.4035e-3, 4190.0, 0.6631},
}};

}  // namespace

FluidProperties water(double T) {
  const double t = core::toCelsius(T);
  if (!(t >= kWater.front().T_degC && t <= kWater.back().T_degC)) {
    throw std::invalid_argument("water properties are tabulated from 10 to 70 degC (got "
                                + std::to_string(t) + " degC)");
  }
  std::size_t i = 0;
  while (i + 2 < kWater.size() && t > kWater[i + 1].T_degC)
    ++i;
  const Row& a = kWater[i];
  const Row& b = kWater[i + 1];
  const double f = (t - a.T_degC) / (b.T_degC - a.T_degC);
  auto lerp = [f](double x, double y) { return x + f * (y - x); };
  return FluidProperties{"water", lerp(a.rho, b.rho), lerp(a.mu, b.mu), lerp(a.cp, b.cp),
                         lerp(a.k, b.k)};
}

FluidProperties fluidByName(const std::string& name, double T) {
  if (name == "water") return water(T);
  throw std::invalid_argument("unknown fluid '" + name + "' (accepted: water)");
}

}  // namespace racktwin::cfd
