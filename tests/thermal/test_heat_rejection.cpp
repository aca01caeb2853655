// Heat rejection to outdoor air: dry coolers and cooling towers against their design point and the
// effectiveness-NTU closed forms of Incropera & DeWitt, Fundamentals of Heat and Mass Transfer,
// 6th ed., Table 11.3; fan affinity laws; tower water use; the trim chiller's Carnot-fraction COP.
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/thermal/HeatRejection.hpp"

using namespace racktwin;
using thermal::HeatRejectionUnit;

namespace {

constexpr double kLpm = core::kLitrePerMinute_m3_per_s;
constexpr double kRho = 995.0;  // kg/m3, water near 32 degC
constexpr double kCp = 4180.0;  // J/(kg K)

core::HeatRejectionSpec dryCooler() {
  core::HeatRejectionSpec s;
  s.kind = core::HeatRejectionSpec::Kind::DryCooler;
  s.type = "test-dry-cooler";
  s.units = 2;
  s.Q_flow_nominal = 1.5e6;
  s.V_flow_nominal = 2400.0 * kLpm;
  s.approach_nominal = 6.0;
  s.T_ambient_nominal = core::fromCelsius(35.0);
  s.fan_P_nominal = 30e3;
  s.fan_speed_min = 0.2;
  s.dp.power_law = {60e3, 2400.0 * kLpm, 2.0};
  s.volume = 0.4;
  return s;
}

core::HeatRejectionSpec tower() {
  core::HeatRejectionSpec s = dryCooler();
  s.kind = core::HeatRejectionSpec::Kind::CoolingTower;
  s.type = "test-tower";
  s.units = 1;
  s.approach_nominal = 5.6;
  s.T_ambient_nominal = core::fromCelsius(23.9);
  s.fan_P_nominal = 20e3;
  s.cycles_of_concentration = 4.0;
  s.drift_fraction = 5e-5;
  return s;
}

// Incropera Table 11.3, Eq. 11.32: cross flow, both fluids unmixed.
double incroperaCrossFlow(double NTU, double Cr) {
  return 1.0
         - std::exp((1.0 / Cr) * std::pow(NTU, 0.22) * (std::exp(-Cr * std::pow(NTU, 0.78)) - 1.0));
}

// Incropera Table 11.3, Eq. 11.29a: counter flow (NTU / (1 + NTU) at Cr = 1).
double incroperaCounterFlow(double NTU, double Cr) {
  if (Cr == 1.0) return NTU / (1.0 + NTU);
  const double e = std::exp(-NTU * (1.0 - Cr));
  return (1.0 - e) / (1.0 - Cr * e);
}

// The exact cross-flow (both unmixed) effectiveness as a series (Mason 1954; the solution Eq. 11.32
// approximates): eps = 1/(Cr NTU) sum_n [1 - e^-N sum_{m<=n} N^m/m!][1 - e^-CrN sum_{m<=n}
// (CrN)^m/m!].
double exactCrossFlow(double NTU, double Cr) {
  double sum = 0.0, term_a = 0.0, term_b = 0.0, pa = 1.0, pb = 1.0;
  for (int n = 0; n < 150; ++n) {
    if (n > 0) {
      pa *= NTU / n;
      pb *= Cr * NTU / n;
    }
    term_a += pa;
    term_b += pb;
    sum += (1.0 - std::exp(-NTU) * term_a) * (1.0 - std::exp(-Cr * NTU) * term_b);
  }
  return sum / (Cr * NTU);
}

// NTU from eps by bisection on a monotone closed form, written out here independently.
template <class F>
double invert(F eps_of_ntu, double eps) {
  double lo = 0.0, hi = 100.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (eps_of_ntu(mid) < eps ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

TEST_CASE("The cross-flow closed form is Incropera's Eq. 11.32 and within 2 % of the exact series",
          "[thermal]") {
  for (double NTU : {1.0, 2.0, 3.5, 5.0}) {
    for (double Cr : {0.25, 0.5, 0.8, 1.0}) {
      const double eps = thermal::crossFlowUnmixedEffectiveness(NTU, Cr);
      CHECK(eps == Approx(incroperaCrossFlow(NTU, Cr)).epsilon(1e-12));
      // Incropera notes Eq. 11.32 is an approximation; Kays & London tabulate the series.
      CHECK(eps == Approx(exactCrossFlow(NTU, Cr)).epsilon(0.02));
      CHECK(thermal::crossFlowUnmixedNtu(eps, Cr) == Approx(NTU).epsilon(1e-9));
    }
  }
  // Cr -> 0: 1 - e^-NTU (Incropera Eq. 11.35a).
  CHECK(thermal::crossFlowUnmixedEffectiveness(2.0, 0.0) == Approx(1.0 - std::exp(-2.0)));
}

TEST_CASE("A dry cooler reproduces its design point at full fan speed", "[thermal]") {
  const core::HeatRejectionSpec s = dryCooler();
  const HeatRejectionUnit unit(s, kRho, kCp);
  const double C_unit = kRho * kCp * s.V_flow_nominal;
  const double C_plant = s.units * C_unit;
  const double T_in = s.T_ambient_nominal + s.approach_nominal + s.Q_flow_nominal / C_unit;
  const double Q = unit.heatFlow(T_in, C_plant, s.T_ambient_nominal, 1.0);
  CHECK(Q == Approx(s.units * s.Q_flow_nominal).epsilon(1e-9));
  // Leaving water approaches the dry bulb by the design approach.
  CHECK(T_in - Q / C_plant - s.T_ambient_nominal == Approx(s.approach_nominal).epsilon(1e-9));
}

TEST_CASE("A dry cooler off design follows the eps-NTU closed form with UA ~ air flow^0.8",
          "[thermal]") {
  const core::HeatRejectionSpec s = dryCooler();
  const HeatRejectionUnit unit(s, kRho, kCp);
  // Independent design UA: C_air = C_water at design (the stated assumption), so Cr = 1 and
  // eps = range / (range + approach).
  const double C0 = kRho * kCp * s.V_flow_nominal;
  const double range = s.Q_flow_nominal / C0;
  const double eps0 = range / (range + s.approach_nominal);
  const double UA0 = C0 * invert([](double N) { return incroperaCrossFlow(N, 1.0); }, eps0);
  CHECK(unit.designUA() == Approx(UA0).epsilon(1e-9));

  for (const auto& [speed, flow] :
       {std::pair{0.6, 0.7}, std::pair{0.9, 1.3}, std::pair{0.3, 1.0}}) {
    // Film resistances: 2/3 on the air side (scaled by speed^0.8), 1/3 water side held.
    const double UA = UA0 / ((2.0 / 3.0) / std::pow(speed, 0.8) + 1.0 / 3.0);
    const double C_air = speed * C0, C_water = flow * C0;
    const double C_min = std::min(C_air, C_water), C_max = std::max(C_air, C_water);
    const double eps = incroperaCrossFlow(UA / C_min, C_min / C_max);
    const double T_in = core::fromCelsius(40.0), T_amb = core::fromCelsius(25.0);
    const double Q_expected = s.units * eps * C_min * (T_in - T_amb);
    CHECK(unit.heatFlow(T_in, s.units * C_water, T_amb, speed) == Approx(Q_expected).epsilon(1e-9));
  }
}

TEST_CASE("Heat removed rises with fan speed, and fans below the minimum cycle", "[thermal]") {
  const core::HeatRejectionSpec s = dryCooler();
  const HeatRejectionUnit unit(s, kRho, kCp);
  const double C = s.units * kRho * kCp * s.V_flow_nominal;
  double last = 0.0;
  for (int i = 1; i <= 100; ++i) {
    const double G = unit.conductance(C, i / 100.0);
    CHECK(G > last);
    CHECK(G <= C);
    last = G;
  }
  // Below the minimum speed: a fraction s / s_min of the time at s_min.
  CHECK(unit.conductance(C, 0.1) == Approx(0.5 * unit.conductance(C, 0.2)).epsilon(1e-12));
  CHECK(unit.conductance(C, 0.0) == 0.0);  // fans off: free convection ignored
  CHECK(unit.conductance(0.0, 1.0) == 0.0);
  // Half the units without fans remove half the heat.
  CHECK(unit.conductance(C, 0.7, 0.5) == Approx(0.5 * unit.conductance(C, 0.7)).epsilon(1e-12));
}

TEST_CASE("Fan power goes with the cube of speed (affinity laws)", "[thermal]") {
  const core::HeatRejectionSpec s = dryCooler();
  const HeatRejectionUnit unit(s, kRho, kCp);
  CHECK(unit.fanPower(1.0) == Approx(2 * 30e3));
  CHECK(unit.fanPower(0.5) == Approx(2 * 30e3 * 0.125));
  CHECK(unit.fanPower(0.8) / unit.fanPower(0.4) == Approx(8.0));
  CHECK(unit.fanPower(0.5, 0.5) == Approx(30e3 * 0.125));
  // Cycling at the 20 % minimum half the time.
  CHECK(unit.fanPower(0.1) == Approx(0.5 * 2 * 30e3 * 0.008));
  CHECK(unit.fanPower(0.0) == 0.0);
}

TEST_CASE("The fan speed for a target leaving temperature reaches it or saturates", "[thermal]") {
  const core::HeatRejectionSpec s = dryCooler();
  const HeatRejectionUnit unit(s, kRho, kCp);
  const double C = s.units * kRho * kCp * s.V_flow_nominal;
  const double T_in = core::fromCelsius(40.0), T_amb = core::fromCelsius(20.0);
  for (double target_degC : {39.8, 39.5, 38.0, 34.0, 32.0}) {
    const double target = core::fromCelsius(target_degC);
    const double speed = unit.fanSpeedFor(T_in, C, T_amb, target);
    REQUIRE(speed > 0.0);
    REQUIRE(speed < 1.0);
    const double T_out = T_in - unit.heatFlow(T_in, C, T_amb, speed) / C;
    CHECK(T_out == Approx(target).margin(1e-6));
  }
  // Unreachable target: full speed. No cooling needed or possible: fans off.
  CHECK(unit.fanSpeedFor(T_in, C, T_amb, core::fromCelsius(21.0)) == 1.0);
  CHECK(unit.fanSpeedFor(T_in, C, T_amb, core::fromCelsius(19.0)) == 1.0);
  CHECK(unit.fanSpeedFor(T_in, C, T_amb, core::fromCelsius(41.0)) == 0.0);
  CHECK(unit.fanSpeedFor(T_in, C, core::fromCelsius(45.0), core::fromCelsius(30.0)) == 0.0);
}

TEST_CASE("A cooling tower reproduces its design point on the wet bulb, counter flow off design",
          "[thermal]") {
  const core::HeatRejectionSpec s = tower();
  const HeatRejectionUnit unit(s, kRho, kCp);
  const double C0 = kRho * kCp * s.V_flow_nominal;
  const double T_in = s.T_ambient_nominal + s.approach_nominal + s.Q_flow_nominal / C0;
  const double Q = unit.heatFlow(T_in, C0, s.T_ambient_nominal, 1.0);
  CHECK(Q == Approx(s.Q_flow_nominal).epsilon(1e-9));
  CHECK(T_in - Q / C0 - s.T_ambient_nominal == Approx(s.approach_nominal).epsilon(1e-9));
  // Off design: Incropera Eq. 11.29a with the design UA (Cr = 1 at design).
  const double range = s.Q_flow_nominal / C0;
  const double UA0 = C0
                     * invert([](double N) { return incroperaCounterFlow(N, 1.0); },
                              range / (range + s.approach_nominal));
  const double speed = 0.55, flow = 0.8;
  const double UA = UA0 / ((2.0 / 3.0) / std::pow(speed, 0.8) + 1.0 / 3.0);
  const double C_min = speed * C0, C_max = flow * C0;
  const double eps = incroperaCounterFlow(UA / C_min, C_min / C_max);
  const double T_wb = core::fromCelsius(18.0), T_hot = core::fromCelsius(31.0);
  CHECK(unit.heatFlow(T_hot, flow * C0, T_wb, speed)
        == Approx(eps * C_min * (T_hot - T_wb)).epsilon(1e-9));
}

TEST_CASE("Tower water use: evaporation Q / h_fg, drift and blow-down by the cycles", "[thermal]") {
  const core::HeatRejectionSpec s = tower();
  const HeatRejectionUnit unit(s, kRho, kCp);
  const double Q = 1.2e6, V = 0.03;
  const thermal::WaterUse w = unit.waterUse(Q, V);
  // h_fg near 30 degC from the linear fit L = 2.501e6 - 2370 T[degC] J/kg (Rogers & Yau, A Short
  // Course in Cloud Physics, 1989), an independent source: 2.4299e6 J/kg.
  const double h_fg = 2.501e6 - 2370.0 * 30.0;
  CHECK(w.evaporation * kRho == Approx(Q / h_fg).epsilon(0.01));
  CHECK(w.drift == Approx(5e-5 * V).epsilon(1e-12));
  CHECK(w.blowdown == Approx(w.evaporation / (4.0 - 1.0)).epsilon(1e-12));
  CHECK(w.total == Approx(w.evaporation + w.drift + w.blowdown).epsilon(1e-12));
  // A dry cooler uses no water.
  const HeatRejectionUnit dry(dryCooler(), kRho, kCp);
  CHECK(dry.waterUse(Q, V).total == 0.0);
  // Heat taken up from warmer air evaporates nothing.
  CHECK(unit.waterUse(-1e5, V).evaporation == 0.0);
}

TEST_CASE("Heat rejection specs out of range throw with what is expected", "[thermal]") {
  core::HeatRejectionSpec s = dryCooler();
  s.units = 0;
  CHECK_THROWS_AS(HeatRejectionUnit(s, kRho, kCp), std::invalid_argument);
  s = dryCooler();
  s.approach_nominal = 0.0;
  CHECK_THROWS_AS(HeatRejectionUnit(s, kRho, kCp), std::invalid_argument);
  s = dryCooler();
  s.fan_speed_min = 1.0;
  CHECK_THROWS_AS(HeatRejectionUnit(s, kRho, kCp), std::invalid_argument);
  s = tower();
  s.cycles_of_concentration = 1.0;
  CHECK_THROWS_WITH(HeatRejectionUnit(s, kRho, kCp),
                    Catch::Contains("cycles of concentration must be above 1"));
}

TEST_CASE("Trim chiller: COP = Carnot fraction x T_evap / lift, capped, capacity clamps",
          "[thermal]") {
  core::ChillerSpec c;
  c.present = true;
  c.type = "test-chiller";
  c.Q_flow_nominal = 500e3;
  c.carnot_fraction = 0.4;
  c.condenser_approach = 12.0;
  c.COP_max = 7.0;
  c.dp.power_law = {40e3, 0.04, 2.0};
  const thermal::TrimChiller chiller(c);
  // AHRI 550/590 rating conditions: 6.67 degC leaving water, 35 degC air. Closed form:
  const double T_evap = core::fromCelsius(6.67), T_air = core::fromCelsius(35.0);
  const double cop = 0.4 * T_evap / (T_air + 12.0 - T_evap);
  CHECK(chiller.COP(T_evap, T_air) == Approx(cop).epsilon(1e-12));
  // About the ASHRAE 90.1 air-cooled minimum COP of 2.8 (gb300_nvl72.md section 2a).
  CHECK(chiller.COP(T_evap, T_air) == Approx(2.8).epsilon(0.05));
  // A warm-water trim duty: the Carnot fraction would exceed the cap.
  CHECK(chiller.COP(core::fromCelsius(32.0), T_air) == 7.0);
  // No lift: the cap, not a division by zero.
  CHECK(chiller.COP(core::fromCelsius(32.0), core::fromCelsius(20.0)) == 7.0);
  CHECK(chiller.heatFlow(800e3) == 500e3);
  CHECK(chiller.heatFlow(-1.0) == 0.0);
  CHECK(chiller.electricPower(280e3, T_evap, T_air) == Approx(280e3 / cop));
  CHECK(chiller.condenserHeat(280e3, T_evap, T_air) == Approx(280e3 * (1.0 + 1.0 / cop)));
  c.carnot_fraction = 1.5;
  CHECK_THROWS_AS(thermal::TrimChiller(c), std::invalid_argument);
}
