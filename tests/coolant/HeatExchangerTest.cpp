// Counter-flow heat exchanger: the effectiveness table of Incropera & DeWitt (validation.md), the
// inverse, the rating consistency, the flow scaling, and the outlet temperatures against a direct
// integration of the counter-flow temperature equations.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "ValidationRecord.hpp"
#include "racktwin/thermal/HeatExchanger.hpp"

using racktwin::thermal::counterFlowEffectiveness;
using racktwin::thermal::CounterFlowHeatExchanger;
using racktwin::thermal::counterFlowNtu;

namespace {

struct Outlets {
  double T_hot_out;
  double T_cold_out;
};

// Integrates the counter-flow equations along the exchanger (x = 0 hot inlet, x = 1 hot outlet,
// cold fluid moving from x = 1 to x = 0):
//   C_hot dT_hot/dx = -UA (T_hot - T_cold),  C_cold dT_cold/dx = -UA (T_hot - T_cold),
// with classical RK4 and shooting on the cold outlet T_cold(0) (the problem is linear, so two
// shots give the exact root). Independent of the effectiveness formula.
Outlets integrateCounterFlow(double UA, double C_hot, double C_cold, double T_hot_in,
                             double T_cold_in) {
  const auto shoot = [&](double T_cold_out, double* T_hot_end) {
    constexpr int kSteps = 4000;
    const double h = 1.0 / kSteps;
    const double a = UA / C_hot;
    const double b = UA / C_cold;
    double Th = T_hot_in;
    double Tc = T_cold_out;
    for (int n = 0; n < kSteps; ++n) {
      const auto rhs = [&](double th, double tc, double* dth, double* dtc) {
        *dth = -a * (th - tc);
        *dtc = -b * (th - tc);
      };
      double k1h, k1c, k2h, k2c, k3h, k3c, k4h, k4c;
      rhs(Th, Tc, &k1h, &k1c);
      rhs(Th + 0.5 * h * k1h, Tc + 0.5 * h * k1c, &k2h, &k2c);
      rhs(Th + 0.5 * h * k2h, Tc + 0.5 * h * k2c, &k3h, &k3c);
      rhs(Th + h * k3h, Tc + h * k3c, &k4h, &k4c);
      Th += h / 6.0 * (k1h + 2.0 * k2h + 2.0 * k3h + k4h);
      Tc += h / 6.0 * (k1c + 2.0 * k2c + 2.0 * k3c + k4c);
    }
    *T_hot_end = Th;
    return Tc;  // T_cold at x = 1, must equal T_cold_in
  };
  double Th_a = 0.0;
  double Th_b = 0.0;
  const double s_a = T_cold_in;
  const double s_b = T_hot_in;
  const double r_a = shoot(s_a, &Th_a) - T_cold_in;
  const double r_b = shoot(s_b, &Th_b) - T_cold_in;
  const double s = s_a - r_a * (s_b - s_a) / (r_b - r_a);
  double Th_end = 0.0;
  shoot(s, &Th_end);
  return {Th_end, s};
}

}  // namespace

TEST_CASE("counter-flow effectiveness matches the textbook table", "[coolant][hx][validation]") {
  // Incropera & DeWitt, counter-flow relation (Table 11.3), tabulated in validation.md.
  const std::array<double, 4> NTU{0.5, 1.0, 2.0, 5.0};
  const std::array<double, 5> Z{0.0, 0.25, 0.5, 0.75, 1.0};
  const std::array<std::array<double, 5>, 4> eps{{
      {.3935, .3776, .3623, .3475, .3333},
      {.6321, .5983, .5647, .5319, .5000},
      {.8647, .8228, .7746, .7218, .6667},
      {.9933, .9823, .9572, .9088, .8333},
  }};
  racktwin::test::WorstError worst;
  for (std::size_t i = 0; i < NTU.size(); ++i) {
    for (std::size_t j = 0; j < Z.size(); ++j) {
      INFO("NTU " << NTU[i] << ", Z " << Z[j]);
      CHECK(counterFlowEffectiveness(NTU[i], Z[j]) == Approx(eps[i][j]).margin(1e-4));
      worst.add(counterFlowEffectiveness(NTU[i], Z[j]), eps[i][j]);
    }
  }
  racktwin::test::recordValidation(
      {"Counter-flow heat exchanger (effectiveness-NTU)",
       "Effectiveness at NTU 0.5, 1, 2, 5 and capacity ratio 0, 0.25, 0.5, 0.75, 1 (20 points)",
       "Incropera and DeWitt, Table 11.3 (counter flow), to 4 decimals", "effectiveness-ntu.md",
       "counter-flow effectiveness matches the textbook table", "1", false, 1e-4, worst.value()});
}

TEST_CASE("counter-flow effectiveness limits", "[coolant][hx]") {
  for (double Z : {0.0, 0.3, 1.0})
    CHECK(counterFlowEffectiveness(0.0, Z) == 0.0);
  // Z = 0 (one stream does not change temperature): eps = 1 - e^-NTU for every arrangement.
  for (double NTU : {0.1, 1.0, 3.0}) {
    CHECK(counterFlowEffectiveness(NTU, 0.0) == Approx(1.0 - std::exp(-NTU)).epsilon(1e-14));
  }
  // Counter flow reaches eps = 1 for Z < 1 as NTU grows, and NTU/(1+NTU) -> 1 for Z = 1.
  CHECK(counterFlowEffectiveness(60.0, 0.5) == Approx(1.0).epsilon(1e-12));
  CHECK(counterFlowEffectiveness(1e6, 1.0) == Approx(1.0).epsilon(1e-5));
  // Continuous at Z = 1 and without cancellation just below it. Expanding the formula in
  // d = 1 - Z gives eps = NTU/(1+NTU) + d NTU^2 / (2 (1+NTU)^2) + O(d^2), the O(d^2) term below d^2
  // for NTU <= 8; evaluated naively, 1 - e^(-NTU d) would lose most digits at these d.
  for (double NTU : {0.5, 2.0, 8.0}) {
    const double eps_1 = NTU / (1.0 + NTU);
    const double slope = NTU * NTU / (2.0 * (1.0 + NTU) * (1.0 + NTU));
    for (double d : {1e-4, 1e-6, 1e-9, 1e-12}) {
      INFO("NTU " << NTU << ", 1 - Z = " << d);
      CHECK(std::abs(counterFlowEffectiveness(NTU, 1.0 - d) - (eps_1 + slope * d))
            <= 1e-14 + d * d);
    }
  }
}

TEST_CASE("counter-flow NTU inverts the effectiveness", "[coolant][hx]") {
  for (double Z : {0.0, 0.25, 0.5, 0.9, 1.0 - 1e-9, 1.0}) {
    for (double NTU : {0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0}) {
      INFO("NTU " << NTU << ", Z " << Z);
      const double eps = counterFlowEffectiveness(NTU, Z);
      CHECK(counterFlowNtu(eps, Z) == Approx(NTU).epsilon(1e-9).margin(1e-12));
    }
  }
  // Closed forms at the ends of Z (Incropera & DeWitt Table 11.4).
  CHECK(counterFlowNtu(0.5, 1.0) == Approx(1.0).epsilon(1e-14));
  CHECK(counterFlowNtu(0.5, 0.0) == Approx(std::log(2.0)).epsilon(1e-14));
}

TEST_CASE("a rated exchanger reproduces its rating", "[coolant][hx]") {
  struct Rating {
    const char* what;
    double Q_flow;
    double C_hot;
    double C_cold;
    double approach;
  };
  // CDU figures from the Modelica Buildings CDU records (gb300_nvl72.md section 2b): Vertiv XDU1350
  // 1.35 MW, 4 K approach, 20.6 kg/s each side (PG20, cp about 3.98 kJ/(kg K)); Google Deschutes
  // 2.0 MW, 3 K, IT side 31.48 kg/s, facility side 32.30 kg/s (water, cp about 4.18 kJ/(kg K)).
  // Plus a case where the cold side is the smaller capacity rate.
  const std::array<Rating, 3> ratings{{
      {"XDU1350", 1.35e6, 20.6 * 3980.0, 20.6 * 3980.0, 4.0},
      {"Deschutes", 2.0e6, 31.48 * 4180.0, 32.30 * 4180.0, 3.0},
      {"cold side smaller", 1.0e5, 2.0e4, 1.0e4, 6.0},
  }};
  for (const Rating& r : ratings) {
    INFO(r.what);
    const auto hx = CounterFlowHeatExchanger::fromRating(r.Q_flow, r.C_hot, r.C_cold, r.approach);
    CHECK(hx.C_hot_nominal() == r.C_hot);
    CHECK(hx.C_cold_nominal() == r.C_cold);
    CHECK(hx.UA(r.C_hot, r.C_cold) == Approx(hx.UA_nominal()).epsilon(1e-14));

    const double T_cold_in = 300.0;
    const double T_hot_in = T_cold_in + r.Q_flow / r.C_hot + r.approach;
    const double Q_flow = hx.conductance(r.C_hot, r.C_cold) * (T_hot_in - T_cold_in);
    CHECK(Q_flow == Approx(r.Q_flow).epsilon(1e-10));
    const double T_hot_out = T_hot_in - Q_flow / r.C_hot;
    CHECK(T_hot_out - T_cold_in == Approx(r.approach).epsilon(1e-9));

    // The rating's UA, put into the temperature equations, gives the same rated duty.
    const Outlets out =
        integrateCounterFlow(hx.UA_nominal(), r.C_hot, r.C_cold, T_hot_in, T_cold_in);
    CHECK(out.T_hot_out - T_cold_in == Approx(r.approach).epsilon(1e-8));
  }
}

TEST_CASE("impossible ratings are rejected", "[coolant][hx]") {
  using E = std::invalid_argument;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(CounterFlowHeatExchanger::fromRating(1e5, 2e4, 2e4, 0.0), E);
  CHECK_THROWS_AS(CounterFlowHeatExchanger::fromRating(1e5, 2e4, 2e4, -1.0), E);
  CHECK_THROWS_AS(CounterFlowHeatExchanger::fromRating(0.0, 2e4, 2e4, 3.0), E);
  CHECK_THROWS_AS(CounterFlowHeatExchanger::fromRating(1e5, 0.0, 2e4, 3.0), E);
  CHECK_THROWS_AS(CounterFlowHeatExchanger::fromRating(1e5, 2e4, nan, 3.0), E);
  // Hot side 5 K drop, cold side 10 K rise: an approach of 5 K or less would put the cold outlet
  // at or above the hot inlet.
  CHECK_THROWS_AS(CounterFlowHeatExchanger::fromRating(1e5, 2e4, 1e4, 4.0), E);
  CHECK_THROWS_AS(CounterFlowHeatExchanger::fromRating(1e5, 2e4, 1e4, 5.0), E);
  CHECK_NOTHROW(CounterFlowHeatExchanger::fromRating(1e5, 2e4, 1e4, 5.5));
}

TEST_CASE("UA scales with the 0.8 power of flow", "[coolant][hx]") {
  const auto hx = CounterFlowHeatExchanger::fromRating(1.35e6, 8.2e4, 8.5e4, 4.0);
  const double UA0 = hx.UA_nominal();
  for (double s : {0.1, 0.5, 2.0, 3.0}) {
    INFO("flow ratio " << s);
    CHECK(hx.UA(s * hx.C_hot_nominal(), s * hx.C_cold_nominal())
          == Approx(UA0 * std::pow(s, 0.8)).epsilon(1e-12));
  }
  // Equal film resistances at the rating: an unlimited flow on one side removes that side's
  // resistance and leaves half the total, so UA tends to 2 UA_nominal.
  CHECK(hx.UA(1e12 * hx.C_hot_nominal(), hx.C_cold_nominal()) == Approx(2.0 * UA0).epsilon(1e-8));
  CHECK(hx.UA(hx.C_hot_nominal(), 1e12 * hx.C_cold_nominal()) == Approx(2.0 * UA0).epsilon(1e-8));
  // No flow, no heat.
  CHECK(hx.UA(0.0, hx.C_cold_nominal()) == 0.0);
  CHECK(hx.conductance(0.0, hx.C_cold_nominal()) == 0.0);
  CHECK(hx.conductance(hx.C_hot_nominal(), 0.0) == 0.0);
  CHECK(hx.conductance(0.0, 0.0) == 0.0);
}

TEST_CASE("outlet temperatures agree with the counter-flow equations and conserve energy",
          "[coolant][hx]") {
  const auto hx = CounterFlowHeatExchanger::fromRating(1.35e6, 8.2e4, 8.5e4, 4.0);
  const double T_hot_in = 318.15;
  const double T_cold_in = 299.15;
  for (double s_hot : {0.2, 1.0, 2.5}) {
    for (double s_cold : {0.2, 1.0, 2.5}) {
      const double C_hot = s_hot * hx.C_hot_nominal();
      const double C_cold = s_cold * hx.C_cold_nominal();
      INFO("C_hot " << C_hot << " W/K, C_cold " << C_cold << " W/K");
      const double Q_flow = hx.conductance(C_hot, C_cold) * (T_hot_in - T_cold_in);
      const Outlets ode =
          integrateCounterFlow(hx.UA(C_hot, C_cold), C_hot, C_cold, T_hot_in, T_cold_in);
      // First law on each stream of the integrated exchanger against the effectiveness result.
      CHECK(C_hot * (T_hot_in - ode.T_hot_out) == Approx(Q_flow).epsilon(1e-8));
      CHECK(C_cold * (ode.T_cold_out - T_cold_in) == Approx(Q_flow).epsilon(1e-8));
    }
  }
  // Equal capacity rates (Z = 1), where the effectiveness takes its limit form.
  const double C = 5e4;
  const double Q_flow = hx.conductance(C, C) * (T_hot_in - T_cold_in);
  const Outlets ode = integrateCounterFlow(hx.UA(C, C), C, C, T_hot_in, T_cold_in);
  CHECK(C * (T_hot_in - ode.T_hot_out) == Approx(Q_flow).epsilon(1e-8));
  CHECK(C * (ode.T_cold_out - T_cold_in) == Approx(Q_flow).epsilon(1e-8));
}

TEST_CASE("no temperature cross and more flow never means less heat", "[coolant][hx]") {
  const auto hx = CounterFlowHeatExchanger::fromRating(2.0e6, 1.316e5, 1.350e5, 3.0);
  const double T_hot_in = 320.0;
  const double T_cold_in = 300.0;
  const std::array<double, 8> ratios{1e-6, 0.01, 0.1, 0.3, 1.0, 1.7, 3.0, 100.0};
  for (double s_cold : ratios) {
    double previous_Q_flow = 0.0;
    for (double s_hot : ratios) {
      const double C_hot = s_hot * hx.C_hot_nominal();
      const double C_cold = s_cold * hx.C_cold_nominal();
      INFO("C_hot " << C_hot << " W/K, C_cold " << C_cold << " W/K");
      const double G = hx.conductance(C_hot, C_cold);
      const double Q_flow = G * (T_hot_in - T_cold_in);
      REQUIRE(std::isfinite(G));
      CHECK(G >= 0.0);
      CHECK(G <= std::min(C_hot, C_cold) * (1.0 + 1e-15));
      // Second law: the cold stream cannot leave hotter than the hot inlet, nor the hot stream
      // colder than the cold inlet.
      CHECK(T_cold_in + Q_flow / C_cold <= T_hot_in * (1.0 + 1e-15));
      CHECK(T_hot_in - Q_flow / C_hot >= T_cold_in * (1.0 - 1e-15));
      CHECK(Q_flow >= previous_Q_flow);
      previous_Q_flow = Q_flow;
    }
  }
}
