#pragma once
// The speed of a variable-speed drive as Modelica Buildings' movers model it
// (Buildings.Fluid.BaseClasses.ActuatorFilter, order 2, normalised, used with riseTime): a
// second-order critically damped low-pass on the commanded speed. Two identical first-order lags
// in series with w_u = 2 pi f_cut / alpha, f_cut = 5 / (2 pi rise_time), alpha = sqrt(sqrt(2) - 1),
// so tau = 1 / w_u = rise_time alpha / 5; the output reaches 99.6 % of a step after rise_time.
#include <cmath>

namespace racktwin::thermal {

struct CriticallyDampedFilter {
  double tau = 0.0;  // s, time constant of each stage; 0: the output follows the input at once
  double stage = 0.0, output = 0.0;

  static double timeConstant(double rise_time) {
    return rise_time * std::sqrt(std::sqrt(2.0) - 1.0) / 5.0;
  }
  void reset(double value) { stage = output = value; }
  /// Advances by dt with the input u held over the step, exactly: with deviations d1 = stage - u
  /// and d2 = output - u, d1(t) = d1 e^(-t/tau) and d2(t) = (d2 + d1 t/tau) e^(-t/tau).
  double advance(double u, double dt) {
    if (tau <= 0.0) {
      reset(u);
      return output;
    }
    const double r = dt / tau, a = std::exp(-r);
    const double d1 = stage - u, d2 = output - u;
    stage = u + d1 * a;
    output = u + (d2 + d1 * r) * a;
    return output;
  }
};

}  // namespace racktwin::thermal
