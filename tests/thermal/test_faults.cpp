// Cooling faults as events: the ride-through of a pump trip against the lumped estimate (thermal
// mass over net heat), a CDU loss, a stuck facility valve and a partly clogged cold plate.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "CoolingRig.hpp"
#include "SmallSite.hpp"
#include "ValidationRecord.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/thermal/Coolant.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

using namespace racktwin;

namespace {

using Rig = test::CoolingRig;

}  // namespace

TEST_CASE("Ride-through of a pump trip without standby lies within the lumped estimates",
          "[thermal]") {
  const core::SiteSpec spec = test::smallSite(2, 1);
  Rig rig(spec);
  constexpr double P = 1200.0;
  for (int s = 0; s < 1200; ++s)
    rig.step(P);
  CHECK(!rig.summary("ride_through_s").has_value());  // no fault yet
  const core::ChipSpec& gpu = spec.racks[0].type.gpu;
  const double T_j0 = rig.state.gpu_T_junction[0];
  REQUIRE(T_j0 < gpu.T_slowdown);
  const double t_trip = rig.t;
  const double V_plate = rig.model.gpuColdPlateFlows()[0];
  REQUIRE(rig.event(core::EventKind::PumpTrip, "row1/cdu1"));
  CHECK(rig.model.cduSecondaryFlow(0) == 0.0);
  while (rig.state.gpu_throttled[0] == 0 && rig.t < t_trip + 600.0)
    rig.step(P, 0.1);
  const double ride = rig.summary("ride_through_s").value();
  // The crossing is located inside the step that detected it (linear between its ends).
  CHECK(ride <= rig.t - t_trip + 1e-9);
  CHECK(ride >= rig.t - 0.1 - t_trip - 1e-9);
  CHECK(ride < rig.t - t_trip - 1e-6);  // not rounded up to the step's end
  // Lumped estimate, thermal mass over net heat: with the flow stopped, the chip's heat P can
  // at most warm the case node alone (C_die), which bounds the ride-through from below.
  const double rise = gpu.T_slowdown - T_j0;
  CHECK(ride >= gpu.heat_capacity * rise / P - 0.1);
  // The exact two-node RC response: case node C1 = C_die and the coolant held in its plate
  // C2, coupled by g = 1/R(V_min) once the flow has stopped (no other path: cells do not
  // conduct axially). The mean temperature rises at P/(C1 + C2); the difference D = T1 - T2
  // relaxes from D0 to D_inf = P C2 / (g (C1 + C2)) with tau = 1 / (g (1/C1 + 1/C2)). Before
  // the trip the cell passed its heat on at C_flow, so D0 = P (R(V) - 1/C_flow).
  const thermal::Coolant pg25 = thermal::Coolant::fromSpec(spec.secondary_coolant);
  const double T_cool = spec.cdus[0].T_supply_set;
  const double rho_cp = pg25.density(T_cool) * pg25.specificHeat(T_cool);
  const core::ColdPlateSpec& plate = gpu.cold_plate;
  const double C1 = gpu.heat_capacity;
  const double C2 = plate.volume * rho_cp;
  const double C = C1 + C2;
  const double C_flow = rho_cp * V_plate;
  const double g_pre = std::min(1.0 / (plate.R_constant + plate.R_flow / V_plate), C_flow);
  const double D0 = P * (1.0 / g_pre - 1.0 / C_flow);
  const double g = 1.0 / (plate.R_constant + plate.R_flow / plate.V_flow_min);
  const double D_inf = P * C2 / (g * C);
  const double tau = 1.0 / (g * (1.0 / C1 + 1.0 / C2));
  const double T1_0 = T_j0 - P * gpu.R_junction_case;
  const double mean0 = T1_0 - C2 * D0 / C;
  auto T1 = [&](double time) {
    const double D = D_inf + (D0 - D_inf) * std::exp(-time / tau);
    return mean0 + P * time / C + C2 * D / C;
  };
  const double T1_slow = gpu.T_slowdown - P * gpu.R_junction_case;
  double lo = 0.0, hi = 600.0;
  for (int k = 0; k < 200; ++k) {
    const double mid = 0.5 * (lo + hi);
    (T1(mid) < T1_slow ? lo : hi) = mid;
  }
  INFO("ride " << ride << " s, RC solution " << lo << " s");
  // Implicit Euler at 0.1 s, the crossing located within its step: within one step.
  CHECK(ride == Approx(lo).margin(0.1));
  CHECK(rig.balance() < 1e-9);
}

TEST_CASE("A CDU loss stops every pump and no standby starts", "[thermal]") {
  core::SiteSpec spec = test::smallSite(2, 1);
  spec.cdus[0].pumps_installed = 2;  // a standby that must not start
  spec.cdus[0].standby_switchover_time = 5.0;
  Rig rig(spec);
  for (int s = 0; s < 100; ++s)
    rig.step(500.0);
  REQUIRE(rig.event(core::EventKind::CduLoss, "row1/cdu1"));
  for (int s = 0; s < 60; ++s)
    rig.step(500.0);
  CHECK(rig.model.cduPumpsRunning(0) == 0);
  CHECK(rig.model.cduSecondaryFlow(0) == 0.0);
  CHECK(rig.model.cduHeatFlow(0) == 0.0);
  CHECK_FALSE(rig.event(core::EventKind::CduLoss, "row1/cdu9"));  // not a CDU of the site
  CHECK(rig.balance() < 1e-9);
}

TEST_CASE("A stuck facility valve holds its opening and the supply drifts off its set-point",
          "[thermal]") {
  Rig rig(test::smallSite(2, 1));
  for (int s = 0; s < 1800; ++s)
    rig.step(600.0);
  const double T_set = rig.site.cdus[0].T_supply_set;
  CHECK(rig.model.cduSupplyTemperature(0) == Approx(T_set).margin(0.1));  // PI at set-point
  REQUIRE(rig.event(core::EventKind::ValveStuck, "row1/cdu1"));
  for (int s = 0; s < 1800; ++s)
    rig.step(1200.0);  // twice the heat on a valve that cannot open further
  CHECK(rig.model.cduSupplyTemperature(0) > T_set + 0.5);
  CHECK(rig.balance() < 1e-9);
}

TEST_CASE("A partly clogged cold plate passes less flow and its GPU runs hotter", "[thermal]") {
  Rig rig(test::smallSite(1, 2));  // one tray of two GPUs side by side
  for (int s = 0; s < 600; ++s)
    rig.step(1000.0);
  const auto V0 = rig.model.gpuColdPlateFlows();
  REQUIRE(V0[0] == Approx(V0[1]).epsilon(1e-9));
  const double T_other = rig.state.gpu_T_junction[1];
  const std::string id = rig.layout.gpu_ids[0];
  REQUIRE(rig.event(core::EventKind::ClogColdPlate, id, 4.0));
  for (int s = 0; s < 600; ++s)
    rig.step(1000.0);
  const auto V = rig.model.gpuColdPlateFlows();
  // Two plates in parallel on the same tray dp: a plate whose law is scaled by 4 with exponent
  // n passes 4^(-1/n) of its neighbour's flow (OCP plate law, exponent 1.85 in SmallSite).
  const double n = rig.site.racks[0].type.gpu.cold_plate.dp.exponent;
  CHECK(V[0] / V[1] == Approx(std::pow(4.0, -1.0 / n)).epsilon(1e-6));
  CHECK(rig.state.gpu_T_junction[0] > T_other + 1.0);
  CHECK(rig.balance() < 1e-9);
}

TEST_CASE("A temperature step crosses a hose in V/Q: the mean delay of the upwind cells is exact",
          "[thermal][validation]") {
  // validation.md, transport delay: a plug takes V/Q to cross a pipe of volume V at flow Q. The
  // implicit upwind cells smear the front (numerical diffusion) but keep its mean delay: each cell
  // obeys u_k - y_k = s (y_k - y_(k-1)) with s = (V_cell/Q)/dt, so over a run
  // sum_k (T_in - T_out) dt = (V/Q) (T_out(end) - T_out(start)) once the hose has settled.
  core::SiteSpec spec = test::smallSite(2, 1);
  spec.racks[0].type.hose.cells = 20;
  core::CduSpec& cdu = spec.cdus[0];
  cdu.valve_opening_min = 1.0;  // valve held fully open: the exchanger follows facility water
  spec.facility.T_supply = cdu.T_supply_set;
  Rig rig(spec);
  for (int s = 0; s < 3000; ++s)  // settle: the pump's heat leaves a small steady gradient
    rig.step(0.0);
  core::EventSpec e;
  e.kind = core::EventKind::SetFacilitySupplyTemperature;
  e.value = cdu.T_supply_set + 10.0;
  REQUIRE(rig.model.applyEvent(e, rig.state));
  const std::string outlet = "row1/rack01/supply_manifold/tap01";
  const double T_out0 = rig.model.nodeTemperature(outlet).value();
  const double T_in0 = rig.model.cduSupplyTemperature(0);
  double area = 0.0;  // integral of (T_in - T_out) dt
  constexpr double dt = 0.5;
  bool monotone = true;
  double last = T_out0;
  for (int s = 0; s < 8000; ++s) {
    rig.step(0.0, dt);
    const double T_out = rig.model.nodeTemperature(outlet).value();
    area += (rig.model.cduSupplyTemperature(0) - T_out) * dt;
    monotone = monotone && T_out >= last - 1e-12;  // no undershoot or ringing
    last = T_out;
  }
  const double T_out1 = rig.model.nodeTemperature(outlet).value();
  REQUIRE(T_out1 - T_out0 > 5.0);
  // Settled before and after: the hose holds one temperature (up to the pump's heat, which
  // the hose does not see: its inlet and outlet agree).
  CHECK(std::abs(rig.model.cduSupplyTemperature(0) - T_out1) < 1e-7);
  CHECK(T_in0 == Approx(T_out0).margin(1e-7));
  const core::PipeSpec& hose = spec.racks[0].type.hose;
  const double V = 0.25 * 3.141592653589793 * hose.diameter * hose.diameter * hose.length;
  const double tau = V / rig.model.rackFlows()[0];
  INFO("tau = V/Q = " << tau << " s");
  CHECK(area / (T_out1 - T_out0) == Approx(tau).epsilon(1e-5));
  CHECK(monotone);
  test::WorstError delay;
  delay.add(area / (T_out1 - T_out0), tau, true);
  test::recordValidation({"Heat transport in the coolant (implicit upwind cells)",
                          "A 10 K step through a rack hose of 20 cells: mean delay",
                          "Plug flow: a step crosses a pipe of volume V at flow Q in V/Q",
                          "transport-delay.md",
                          "A temperature step crosses a hose in V/Q: the mean delay of the upwind "
                          "cells is exact",
                          "1", true, 1e-5, delay.value()});
}

TEST_CASE(
    "Throttling has hysteresis: it starts above the slowdown temperature and ends below the "
    "release temperature",
    "[thermal]") {
  const core::SiteSpec spec = test::smallSite(1, 1);
  const core::ChipSpec& gpu = spec.racks[0].type.gpu;
  Rig rig(spec);
  auto settle = [&](double P) {
    for (int s = 0; s < 900; ++s)
      rig.step(P);
    return rig.state.gpu_T_junction[0];
  };
  // The junction temperature rises monotonically with the chip's power: secant steps find the
  // powers that settle it in the middle of the hysteresis band and 3 K above the slowdown.
  auto powerFor = [&](double T_target) {
    double P0 = 600.0, T0 = settle(P0), P1 = 900.0, T1 = settle(P1);
    for (int k = 0; k < 6 && std::abs(T1 - T_target) > 0.05; ++k) {
      const double P2 = P1 + (T_target - T1) * (P1 - P0) / (T1 - T0);
      P0 = P1;
      T0 = T1;
      P1 = P2;
      T1 = settle(P1);
    }
    return P1;
  };
  const double T_mid = 0.5 * (gpu.T_slowdown + gpu.T_slowdown_release);
  const double P_hot = powerFor(gpu.T_slowdown + 3.0);
  settle(200.0);  // cool down below the release temperature again
  REQUIRE(rig.state.gpu_throttled[0] == 0);
  const double P_mid = powerFor(T_mid);
  settle(200.0);  // the search may have throttled it: start again from below the band
  REQUIRE(rig.state.gpu_throttled[0] == 0);
  const double T1 = settle(P_mid);
  REQUIRE(T1 > gpu.T_slowdown_release);
  REQUIRE(T1 < gpu.T_slowdown);
  CHECK(rig.state.gpu_throttled[0] == 0);  // rising from below: not throttled in the band
  CHECK(settle(P_hot) > gpu.T_slowdown);
  CHECK(rig.state.gpu_throttled[0] == 1);
  CHECK(rig.state.gpu_speed[0] == Approx(std::cbrt(gpu.throttled_power_fraction)));
  const double T2 = settle(P_mid);
  REQUIRE(T2 > gpu.T_slowdown_release);
  CHECK(rig.state.gpu_throttled[0] == 1);  // the same temperature band, now still throttled
  CHECK(settle(0.5 * P_mid) < gpu.T_slowdown_release);
  CHECK(rig.state.gpu_throttled[0] == 0);  // released below the release temperature
  CHECK(rig.state.gpu_speed[0] == 1.0);
}
