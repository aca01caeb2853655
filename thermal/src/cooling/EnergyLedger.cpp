#include "cooling/EnergyLedger.hpp"

#include "racktwin/core/StateArchive.hpp"

namespace racktwin::thermal::cooling {

void EnergyLedger::reset(double stored_initial) {
  E_stored_initial = stored_initial;
  E_in = E_rejected = E_cooling_electric = E_rejected_water = E_rejected_air = 0.0;
}

void EnergyLedger::book(double h, double Q_in, double Q_out, double E_outdoors, double Q_air,
                        double Q_water, double P_cooling, double stored_now) {
  E_in += Q_in * h;
  E_rejected += Q_out * h + E_outdoors;
  E_rejected_air += Q_air * h;
  E_rejected_water += Q_water * h;
  E_cooling_electric += P_cooling * h;
  residual = E_in - E_rejected - (stored_now - E_stored_initial);
}

void EnergyLedger::visitState(core::StateArchive& a) {
  a(E_in, E_rejected, E_stored_initial, E_cooling_electric, E_rejected_water, E_rejected_air,
    residual);
}

}  // namespace racktwin::thermal::cooling
