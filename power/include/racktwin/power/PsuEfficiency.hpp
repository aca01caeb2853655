#pragma once
// A power converter's (PSU's, UPS module's) conversion loss as a function of its DC output, built
// from an 80 PLUS style efficiency table. The loss (not the efficiency) is interpolated: loss is
// what heats the room and what the load flow needs, it is close to linear in load between the table
// points, and interpolating it keeps input(P_out) = P_out + loss(P_out) continuous and monotone.
#include <cstddef>
#include <string_view>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::power {

class PsuEfficiency {
 public:
  /// Tabulated loss at P_i = load_fraction_i * P_rated is loss_i = P_i (1/eta_i - 1).
  /// Throws std::invalid_argument unless: P_rated > 0; at least two points; load fractions finite,
  /// positive and strictly ascending; efficiencies in (0, 1]; and the interpolated loss is >= 0 on
  /// [0, 1.2 P_rated] (the linear extrapolations included).
  /// `what` names the curve in messages.
  PsuEfficiency(const core::EfficiencyCurve& curve, double P_rated,
                std::string_view what = "PSU efficiency curve");

  /// Loss in W at DC output P_out (W): piecewise linear through the table losses, extended along
  /// the first segment down to P_out = 0 (the no-load loss) and along the last segment above the
  /// last point. P_out < 0 is treated as 0. No allocation.
  double loss(double P_out) const noexcept;
  /// P_out / (P_out + loss); 0 at zero (or negative) output.
  double efficiency(double P_out) const noexcept;
  /// AC input in W: P_out + loss(P_out).
  double input(double P_out) const noexcept { return clampOutput(P_out) + loss(P_out); }

  double ratedPower() const noexcept { return P_rated_; }
  /// Loss at zero output, W.
  double noLoadLoss() const noexcept { return loss(0.0); }

 private:
  static double clampOutput(double P_out) noexcept { return P_out > 0.0 ? P_out : 0.0; }

  double P_rated_;
  std::vector<double> P_;     // W, table outputs, ascending
  std::vector<double> loss_;  // W, table losses
  // Per segment i (points i and i + 1): (loss_[i + 1] - loss_[i]) / (P_[i + 1] - P_[i]), divided
  // once here rather than at every call (the same quotient, so the same losses).
  std::vector<double> slope_;
};

}  // namespace racktwin::power
