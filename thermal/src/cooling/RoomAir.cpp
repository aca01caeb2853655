#include "cooling/RoomAir.hpp"

#include <algorithm>

#include "racktwin/core/StateArchive.hpp"

namespace racktwin::thermal::cooling {

void RoomAir::advance(double Q_room, double h) {
  // Implicit: C (T - T_old)/h = Q_room - Q_crah(T), Q_crah = G (T - T_sa) in [0, capacity].
  T_old = T;
  const double store = spec.heat_capacity / h;
  const double G = spec.crah_conductance;
  double T_new = (store * T_old + Q_room + G * spec.T_supply_air) / (store + G);
  double Q = G * (T_new - spec.T_supply_air);
  if (Q > spec.crah_Q_flow_max || Q < 0.0) {
    Q = std::clamp(Q, 0.0, spec.crah_Q_flow_max);
    T_new = T_old + (Q_room - Q) / store;
  }
  T = T_new;
  Q_crah = Q;
  crah_P_fan = spec.crah_fan_power_fraction * Q;
}

void RoomAir::visitState(core::StateArchive& a) {
  a(T, T_old, Q_crah, crah_P_fan);
}

}  // namespace racktwin::thermal::cooling
