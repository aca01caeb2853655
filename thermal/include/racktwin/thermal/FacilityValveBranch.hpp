#pragma once
// The facility-water side of a CDU when facility water is a boundary (no modelled facility
// loop): the facility supply and return mains hold a differential pressure dp_b across the CDU's
// connections, which drives the flow through its control valve and the exchanger's primary side
// in series,
//   dp_b = rho (V / (A_v phi(x)))^2 + dp_hx(V),
// with phi the valve's inherent characteristic (IEC 60534 A_v, core::ControlValveSpec) at opening
// x. The right side rises monotonically with V, so V follows from a bracketed Newton iteration.
// The valve authority N = dp_valve(V_n, x = 1) / (dp_valve(V_n, 1) + dp_hx(V_n)) at the nominal
// flow V_n is what makes the installed characteristic differ from the inherent one.
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::thermal {

class FacilityValveBranch {
 public:
  /// `dp_boundary` <= 0: the pressure difference that passes V_flow_nominal at full opening.
  FacilityValveBranch(const core::ControlValveSpec& valve, const core::PressureDropLaw& hx,
                      double V_flow_nominal, double dp_boundary, const FluidState& water);

  /// Volume flow at valve opening x (0..1), m3/s. Allocates nothing; cached for a repeated x.
  double flow(double opening) const;
  double authority() const noexcept { return authority_; }
  double boundaryDifferentialPressure() const noexcept { return dp_boundary_; }
  /// dp of the valve and of the exchanger's primary side at V and opening x, Pa.
  double valveDp(double V_flow, double opening) const;
  double exchangerDp(double V_flow, double* gradient = nullptr) const;

 private:
  core::ControlValveSpec valve_;
  LinkLaw hx_;
  FluidState water_;
  double dp_boundary_ = 0.0, authority_ = 0.0;
  mutable double cached_opening_ = -1.0, cached_flow_ = 0.0;
};

}  // namespace racktwin::thermal
