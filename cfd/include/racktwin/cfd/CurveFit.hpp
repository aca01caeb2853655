#pragma once
// Least-squares fits of a cold plate's curves against flow.
//   thermal resistance  R(V) = a + b (V / V_ref)^-n   (n by a 1-D search when there are >= 3
//                                                      points, fixed otherwise)
//   pressure drop       dp(V) = k V^m                 (a straight line in log-log)
#include <optional>
#include <span>

namespace racktwin::cfd {

struct ResistanceFit {
  double constant = 0.0;        // a, K/W
  double flow_term = 0.0;       // b, K/W at V = V_ref
  double reference_flow = 0.0;  // V_ref, same unit as the flows given
  double exponent = 0.0;        // n
  double rms_residual = 0.0;    // K/W
  double evaluate(double V) const;
};

/// Needs at least 2 points (3 to fit n); with 2 points n is `fixed_exponent` (default 1: the
/// a + b/V form of the OCP OAI curve). Throws std::invalid_argument on bad input.
ResistanceFit fitResistance(std::span<const double> V, std::span<const double> R,
                            double reference_flow, std::optional<double> fixed_exponent = {});

struct PowerLawFit {
  double coefficient = 0.0;  // k
  double exponent = 0.0;     // m
  double evaluate(double V) const;
};

/// Needs at least 2 points, all positive. Throws std::invalid_argument otherwise.
PowerLawFit fitPowerLaw(std::span<const double> V, std::span<const double> y);

}  // namespace racktwin::cfd
