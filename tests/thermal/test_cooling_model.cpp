// CoolingModel: steady state against the cold-plate law, monotone response at large steps,
// energy conservation to round-off, continuity, and the pump-trip throttle chain.
#include <catch2/catch.hpp>
#include <cmath>

#include "SmallSite.hpp"
#include "ValidationRecord.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/thermal/Coolant.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

using namespace racktwin;

namespace {

struct Rig {
  explicit Rig(core::SiteSpec spec)
      : site(std::move(spec)), layout(core::SiteLayout::build(site)), model(site, layout) {
    state.resize(layout, site.cdus[0].T_supply_set);
    model.initialize(state);
  }
  // One macro step with every GPU at P watts and `air` watts of air-cooled load per rack.
  void step(double P, double dt = 1.0, double air = 0.0) {
    for (double& E : state.gpu_E_step)
      E = P * dt;
    for (double& E : state.rack_air_E_step)
      E = air * dt;
    model.advance(t, dt, state);
    t += dt;
  }
  core::SiteSpec site;
  core::SiteLayout layout;
  core::SiteState state;
  thermal::CoolingModel model;
  double t = 0.0;
};

}  // namespace

TEST_CASE("Steady GPU temperature is inlet + P (R_plate(V) + R_jc)", "[thermal]") {
  // OCP OAI cold-plate definition: R is case-to-coolant-inlet resistance.
  Rig rig(test::smallSite(2, 1));
  const double P = 1000.0;
  for (int i = 0; i < 3000; ++i)
    rig.step(P);
  const auto& gpu = rig.site.racks[0].type.gpu;
  const double T_supply = rig.model.cduSupplyTemperature(0);
  for (std::size_t g = 0; g < 2; ++g) {
    const double V = rig.model.trayFlows()[g];
    const double R = gpu.cold_plate.R_constant + gpu.cold_plate.R_flow / V;
    CHECK(rig.state.gpu_T_junction[g]
          == Approx(T_supply + P * (R + gpu.R_junction_case)).margin(1e-6));
  }
  // The PI on the facility valve holds the supply set-point.
  CHECK(T_supply == Approx(rig.site.cdus[0].T_supply_set).margin(0.01));
}

TEST_CASE("Implicit transport is monotone at 1 s steps over 0.05 s cold plates", "[thermal]") {
  core::SiteSpec site = test::smallSite(4, 1);
  // Residence time of a plate: 1.35 mL at about 1.6 L/min = 0.05 s; step 1 s = 20 residence times.
  site.racks[0].type.gpu.cold_plate.volume = 1.35e-6;
  site.cdus[0].valve_gain = 0.0;  // fixed valve: a linear, time-invariant system
  Rig rig(site);
  // From the steady state without chip heat, a heat step must raise every temperature
  // monotonically (implicit upwind Euler gives an M-matrix).
  for (int i = 0; i < 3000; ++i)
    rig.step(0.0);
  std::vector<double> previous(rig.state.gpu_T_junction);
  for (int i = 0; i < 400; ++i) {
    rig.step(1400.0);
    for (std::size_t g = 0; g < previous.size(); ++g) {
      REQUIRE(std::isfinite(rig.state.gpu_T_junction[g]));
      // A heat step gives a non-decreasing temperature: no oscillation, no overshoot.
      REQUIRE(rig.state.gpu_T_junction[g] >= previous[g] - 1e-9);
      previous[g] = rig.state.gpu_T_junction[g];
    }
  }
}

TEST_CASE("Energy is conserved to round-off with varying heat", "[thermal]") {
  Rig rig(test::smallSite(3, 2));
  const double stored_initial = rig.model.storedEnergy();
  for (int i = 0; i < 1200; ++i) {
    const double P = 700.0 + 600.0 * std::sin(0.05 * i) + (i % 7 == 0 ? 300.0 : 0.0);
    rig.step(P, 1.0, 500.0);
  }
  const double balance = rig.model.heatInput() - rig.model.heatRejected()
                         - (rig.model.storedEnergy() - stored_initial);
  CHECK(std::abs(balance) / rig.model.heatInput() < 1e-9);
  // Continuity at every junction (solver tolerance is round-off for GGA).
  REQUIRE(rig.model.cduSecondaryFlow(0) > 1e-4);
  INFO("imbalance " << rig.model.largestMassImbalance() << " flow "
                    << rig.model.cduSecondaryFlow(0));
  CHECK(rig.model.largestMassImbalance() < 1e-9 * rig.model.cduSecondaryFlow(0));
}

TEST_CASE("A pump trip without standby stops the flow and throttles the GPUs", "[thermal]") {
  Rig rig(test::smallSite(2, 1));
  for (int i = 0; i < 300; ++i)
    rig.step(1400.0);
  REQUIRE(rig.state.gpu_throttled[0] == 0);
  core::EventSpec trip;
  trip.kind = core::EventKind::PumpTrip;
  trip.target = "row1/cdu1";
  REQUIRE(rig.model.applyEvent(trip, rig.state));
  CHECK(std::abs(rig.model.cduSecondaryFlow(0)) < 1e-9);
  int steps = 0;
  while (rig.state.gpu_throttled[0] == 0 && steps < 600) {
    rig.step(1400.0);
    ++steps;
  }
  CHECK(rig.state.gpu_throttled[0] == 1);
  CHECK(rig.state.gpu_speed[0] < 1.0);
  // With no flow the plate heats only its own coolant: the rise rate is bounded by
  // P / (C_die + C_plate), so slowdown cannot come sooner than that allows.
  const auto& gpu = rig.site.racks[0].type.gpu;
  CHECK(steps >= 1);
  CHECK(rig.state.gpu_T_junction[0] < gpu.T_slowdown + 20.0);
}

TEST_CASE("The 72 GPU cold plates of a rack share flow as their equivalent resistances say",
          "[thermal]") {
  // Lossless manifolds: every tray sees the same dp. With quadratic laws dp = k Q^2, n equal
  // plates in parallel act as k / n^2, and series elements add, so a compute tray (2 QDs, 4 GPU +
  // 2 CPU plates) has k_c = 2 k_qd + k_p / 36 and a switch tray (2 plates) k_s = 2 k_qd + k_p / 4.
  // Tray flow is proportional to k^-1/2.
  core::SiteSpec site = test::smallSite(18, 4);
  auto& type = site.racks[0].type;
  type.cpus_per_tray = 2;
  type.switch_trays = 9;
  type.switches_per_tray = 2;
  for (core::ChipSpec* chip : {&type.gpu, &type.cpu, &type.nvswitch}) {
    chip->cold_plate.dp.exponent = 2.0;
  }
  type.manifold_segment.diameter = 0.3;
  type.hose.diameter = 0.3;
  type.hose.cells = 1;
  Rig rig(site);
  const auto& plate = type.gpu.cold_plate.dp;
  const auto& qd = type.quick_disconnect;
  const double k_p = plate.dp_nominal / (plate.V_flow_nominal * plate.V_flow_nominal);
  const double k_qd = qd.dp_nominal / (qd.V_flow_nominal * qd.V_flow_nominal);
  const double w_c = 1.0 / std::sqrt(2.0 * k_qd + k_p / 36.0);
  const double w_s = 1.0 / std::sqrt(2.0 * k_qd + k_p / 4.0);
  const double Q = rig.model.cduSecondaryFlow(0);
  const double Q_compute_tray = Q * w_c / (18.0 * w_c + 9.0 * w_s);
  const auto V = rig.model.gpuColdPlateFlows();
  REQUIRE(V.size() == 72);
  for (double V_plate : V)
    CHECK(V_plate == Approx(Q_compute_tray / 6.0).epsilon(1e-6));
}

TEST_CASE("Long macro steps give the short-step answer without control oscillation", "[thermal]") {
  // A sampled PI controller is stable only when sampled faster than the loop responds; the model
  // cycles long steps internally, so 100 s steps must settle where 1 s steps do.
  const double P = 1200.0;
  Rig fine(test::smallSite(4, 2));
  Rig coarse(test::smallSite(4, 2));
  for (int i = 0; i < 3600; ++i)
    fine.step(P, 1.0);
  double lowest = 1e9, highest = 0.0;
  for (int i = 0; i < 36; ++i) {
    coarse.step(P, 100.0);
    if (i >= 18) {  // the second half hour: settled
      lowest = std::min(lowest, coarse.model.cduSupplyTemperature(0));
      highest = std::max(highest, coarse.model.cduSupplyTemperature(0));
    }
  }
  CHECK(highest - lowest < 0.05);
  CHECK(coarse.model.cduSupplyTemperature(0)
        == Approx(fine.model.cduSupplyTemperature(0)).margin(0.05));
  for (std::size_t g = 0; g < fine.state.gpu_T_junction.size(); ++g) {
    CHECK(coarse.state.gpu_T_junction[g] == Approx(fine.state.gpu_T_junction[g]).margin(0.05));
  }
}

TEST_CASE("A CDU loop's steady state matches the hand calculation of its exchanger",
          "[thermal][validation]") {
  // Hand calculation, independent of the model's exchanger code (Incropera & DeWitt, Table 11.3,
  // counter flow): at steady state the exchanger removes the chips' and the pump's heat; the
  // supply sits at its set-point (PI); return - supply = P_chips / (rho cp V) since the pump's heat
  // enters after the return; and Q = eps(NTU, Z) C_min (T_hot_in - T_facility) with UA from the
  // rating, scaled with (C / C_nominal)^0.8 on each side (equal film resistances at the rating).
  const core::SiteSpec site = test::smallSite(2, 2);
  Rig rig(site);
  constexpr double P = 900.0;
  for (int i = 0; i < 5400; ++i)
    rig.step(P);
  const core::CduSpec& cdu = site.cdus[0];
  const thermal::Coolant pg25 = thermal::Coolant::fromSpec(site.secondary_coolant);
  const double rho_cp = pg25.density(cdu.T_supply_set) * pg25.specificHeat(cdu.T_supply_set);
  const thermal::Coolant water = thermal::Coolant::water();
  const double rho_cp_w =
      water.density(site.facility.T_supply) * water.specificHeat(site.facility.T_supply);
  const double V = rig.model.cduSecondaryFlow(0);
  const double C_hot = rho_cp * V;
  const double P_chips = P * static_cast<double>(rig.layout.gpu_count);
  const double T_sup = rig.model.cduSupplyTemperature(0);
  const double T_ret = rig.model.cduReturnTemperature(0);
  CHECK(T_sup == Approx(cdu.T_supply_set).margin(0.01));
  CHECK(T_ret - T_sup == Approx(P_chips / C_hot).epsilon(1e-4));
  const double Q = rig.model.cduHeatFlow(0);
  CHECK(Q == Approx(P_chips + rig.model.cduPumpHydraulicPower(0)).epsilon(1e-4));

  // The rating: Q_n at C_hn, C_cn with T_hot_out - T_cold_in = approach.
  const double C_hn = rho_cp * cdu.secondary_V_flow_nominal;
  const double C_cn = rho_cp_w * cdu.facility_V_flow_nominal;
  const double C_min_n = std::min(C_hn, C_cn), Z_n = std::min(C_hn, C_cn) / std::max(C_hn, C_cn);
  const double eps_n =
      cdu.Q_flow_nominal / (C_min_n * (cdu.approach_nominal + cdu.Q_flow_nominal / C_hn));
  const double NTU_n = std::log((1.0 - eps_n * Z_n) / (1.0 - eps_n)) / (1.0 - Z_n);
  const double UA_n = NTU_n * C_min_n;
  // Off design: the facility flow follows the valve opening (boundary facility water).
  const double C_cold = rig.model.cduValveOpening(0) * C_cn;
  const double UA = 2.0 * UA_n / (std::pow(C_hot / C_hn, -0.8) + std::pow(C_cold / C_cn, -0.8));
  const double C_min = std::min(C_hot, C_cold), Z = C_min / std::max(C_hot, C_cold);
  const double NTU = UA / C_min;
  const double e = std::exp(-NTU * (1.0 - Z));
  const double eps = (1.0 - e) / (1.0 - Z * e);
  const double T_hot_in = T_ret + rig.model.cduPumpHydraulicPower(0) / C_hot;
  CHECK(Q == Approx(eps * C_min * (T_hot_in - site.facility.T_supply)).epsilon(1e-6));
  test::WorstError worst;
  worst.add(Q, eps * C_min * (T_hot_in - site.facility.T_supply), true);
  test::recordValidation(
      {"CDU: secondary loop, exchanger and supply control at steady state",
       "Two racks at 900 W per GPU after 90 min: heat moved to facility water",
       "Hand calculation: counter-flow effectiveness-NTU with UA rated from heat and approach, "
       "scaled with flow^0.8 on each side (Modelica Buildings' CDU records)",
       "cdu-steady-state.md",
       "A CDU loop's steady state matches the hand calculation of its exchanger", "1", true, 1e-6,
       worst.value()});
}
