#pragma once
// Counter-flow heat exchanger by the effectiveness-NTU method (Incropera & DeWitt, Fundamentals of
// Heat and Mass Transfer, Table 11.3): C = m_flow * cp is a capacity rate (W/K), Z = C_min / C_max,
// NTU = UA / C_min, and the heat flow is Q_flow = eps * C_min * (T_hot_in - T_cold_in).

namespace racktwin::thermal {

/// Counter-flow effectiveness eps = (1 - e^(-NTU (1 - Z))) / (1 - Z e^(-NTU (1 - Z))), and
/// NTU / (1 + NTU) at Z = 1. Evaluated in a form without cancellation, so it is continuous and
/// accurate as Z approaches 1. Asserts NTU >= 0 (finite) and 0 <= Z <= 1.
double counterFlowEffectiveness(double NTU, double Z);

/// Inverse of counterFlowEffectiveness: NTU = ln((1 - eps Z) / (1 - eps)) / (1 - Z), and
/// eps / (1 - eps) at Z = 1. Every eps in [0, 1) is reachable for any Z in [0, 1] (eps tends to 1
/// as NTU grows); asserts that range.
double counterFlowNtu(double effectiveness, double Z);

/// A counter-flow plate heat exchanger (the plate heat exchanger of a CDU) whose film conductances
/// hA scale with (m_flow / m_flow_nominal)^0.8 on each side, with equal hot and cold film
/// resistances at the rating, as in the Modelica Buildings CDU records. At constant cp the flow
/// ratio equals the capacity-rate ratio C / C_nominal, which is what this class takes.
class CounterFlowHeatExchanger {
 public:
  /// From a rating: heat Q_flow_nominal (W) at hot and cold capacity rates C_hot_nominal and
  /// C_cold_nominal (W/K), with approach = T_hot_out - T_cold_in (K) at that rating. Throws
  /// std::invalid_argument when the rating is impossible: non-positive or non-finite values, or an
  /// approach that needs a temperature cross (T_cold_out above T_hot_in), i.e. effectiveness >= 1.
  static CounterFlowHeatExchanger fromRating(double Q_flow_nominal, double C_hot_nominal,
                                             double C_cold_nominal, double approach);

  /// Overall conductance (W/K) at capacity rates C_hot, C_cold >= 0 (W/K); 0 when either is 0.
  double UA(double C_hot, double C_cold) const;
  /// G (W/K) such that Q_flow = G * (T_hot_in - T_cold_in): G = eps * C_min; 0 when either C is 0.
  double conductance(double C_hot, double C_cold) const;

  double UA_nominal() const noexcept { return UA_nominal_; }
  double C_hot_nominal() const noexcept { return C_hot_nominal_; }
  double C_cold_nominal() const noexcept { return C_cold_nominal_; }

 private:
  CounterFlowHeatExchanger(double UA_nominal, double C_hot_nominal, double C_cold_nominal)
      : UA_nominal_(UA_nominal), C_hot_nominal_(C_hot_nominal), C_cold_nominal_(C_cold_nominal) {}

  double UA_nominal_;
  double C_hot_nominal_;
  double C_cold_nominal_;
};

}  // namespace racktwin::thermal
