#pragma once
// The cooling model's books: heat in (chips, air loads, pump and plant heat), heat rejected
// (facility water or outdoors, CRAH units), cooling electricity, and the stored heat at the start,
// so that the run's balance E_in - E_rejected - (E_stored - E_stored_initial) can be recorded
// every step. The energy audit (CoolingAudit.hpp) checks the loops from enthalpy flows instead,
// quantities these books do not hold.
namespace racktwin::core {
class StateArchive;
}

namespace racktwin::thermal::cooling {

struct EnergyLedger {
  double E_in = 0.0, E_rejected = 0.0, E_stored_initial = 0.0, E_cooling_electric = 0.0;
  double E_rejected_water = 0.0, E_rejected_air = 0.0;
  double residual = 0.0;  // J, after the last step (recorded)

  void reset(double stored_initial);
  /// One step of length h: heat in Q_in (W), rejected Q_out (W) plus E_outdoors (J), of which
  /// Q_air by the CRAH units and Q_water into facility water; cooling power P_cooling (W); the
  /// heat stored after the step (J).
  void book(double h, double Q_in, double Q_out, double E_outdoors, double Q_air, double Q_water,
            double P_cooling, double stored_now);
  void visitState(core::StateArchive& archive);
};

}  // namespace racktwin::thermal::cooling
