#include "racktwin/thermal/FacilityValveBranch.hpp"

#include <algorithm>
#include <cmath>

#include "racktwin/core/Error.hpp"

namespace racktwin::thermal {

FacilityValveBranch::FacilityValveBranch(const core::ControlValveSpec& valve,
                                         const core::PressureDropLaw& hx, double V_flow_nominal,
                                         double dp_boundary, const FluidState& water)
    : valve_(valve), hx_(LinkLaw::makeDrop(hx)), water_(water) {
  RACKTWIN_ASSERT(valve.A_v > 0.0 && V_flow_nominal > 0.0,
                  "a facility valve branch needs a valve and a nominal flow");
  const double dp_valve_open = valveDp(V_flow_nominal, 1.0);
  const double dp_hx = exchangerDp(V_flow_nominal);
  authority_ = dp_valve_open / (dp_valve_open + dp_hx);
  dp_boundary_ = dp_boundary > 0.0 ? dp_boundary : dp_valve_open + dp_hx;
}

double FacilityValveBranch::valveDp(double V_flow, double opening) const {
  const double A = valve_.A_v * controlValveCharacteristic(valve_, opening);
  return water_.rho * V_flow * std::abs(V_flow) / (A * A);
}

double FacilityValveBranch::exchangerDp(double V_flow, double* gradient) const {
  double g = 0.0;
  const double dp = linkDp(hx_, V_flow, water_, &g);
  if (gradient != nullptr) *gradient = g;
  return dp;
}

double FacilityValveBranch::flow(double opening) const {
  if (opening == cached_opening_) return cached_flow_;
  // f(V) = dp_valve(V) + dp_hx(V) - dp_b rises with V from -dp_b at V = 0; at the flow the
  // valve alone would pass, f = dp_hx >= 0. Newton inside that bracket, bisection when a step
  // leaves it.
  const double A = valve_.A_v * controlValveCharacteristic(valve_, opening);
  const double k_valve = water_.rho / (A * A);
  double lo = 0.0, hi = std::sqrt(dp_boundary_ / k_valve);
  double V = hi;
  for (int i = 0; i < 100; ++i) {
    double g_hx = 0.0;
    const double f = k_valve * V * V + exchangerDp(V, &g_hx) - dp_boundary_;
    if (f > 0.0)
      hi = V;
    else
      lo = V;
    if (std::abs(f) <= 1e-13 * dp_boundary_ || hi - lo <= 1e-15 * hi) break;
    const double step = V - f / (2.0 * k_valve * V + g_hx);
    V = step > lo && step < hi ? step : 0.5 * (lo + hi);
  }
  cached_opening_ = opening;
  cached_flow_ = V;
  return V;
}

}  // namespace racktwin::thermal
