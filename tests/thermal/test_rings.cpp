// Several CDUs sharing one secondary ring main (core::SecondaryRingSpec): flow and heat shared
// by symmetry, the exchanger balance of each CDU, continuity at every junction, energy
// conservation with several closure unknowns, and riding through the loss of one CDU's pumps.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "CoolingRig.hpp"
#include "SmallSite.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/thermal/Coolant.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

using namespace racktwin;

namespace {

/// Two CDUs and four racks of two one-GPU trays on one ring, in the order
/// cdu1, rack1, rack2, cdu2, rack3, rack4: symmetric under a half turn of the ring.
core::SiteSpec ringSite(int pumps_installed = 1) {
  core::SiteSpec site = test::smallSite(2, 1);
  core::CduSpec cdu = site.cdus[0];
  cdu.Q_flow_nominal *= 2.0;  // each CDU serves two racks
  cdu.secondary_V_flow_nominal *= 2.0;
  cdu.facility_V_flow_nominal *= 2.0;
  cdu.pumps_installed = pumps_installed;
  cdu.standby_switchover_time = 5.0;
  site.cdus.clear();
  for (const char* id : {"hall/cdu1", "hall/cdu2"}) {
    cdu.id = core::ComponentId(id);
    site.cdus.push_back(cdu);
  }
  const core::RackSpec first = site.racks[0];
  site.racks.clear();
  for (int r = 1; r <= 4; ++r) {
    core::RackSpec rack = first;
    rack.id = core::ComponentId("hall/rack0" + std::to_string(r));
    rack.cdu.clear();
    rack.ring = "hall/ring1";
    site.racks.push_back(rack);
  }
  core::SecondaryRingSpec ring;
  ring.id = core::ComponentId("hall/ring1");
  ring.taps = {"hall/cdu1", "hall/rack01", "hall/rack02",
               "hall/cdu2", "hall/rack03", "hall/rack04"};
  ring.segment = core::PipeSpec{3.0, 0.02, 1.5e-6, 3};
  site.rings.push_back(ring);
  return site;
}

using Rig = test::CoolingRig;

}  // namespace

TEST_CASE("Two CDUs on a symmetric ring share its flow and heat equally", "[thermal]") {
  Rig rig(ringSite());
  const double V1 = rig.model.cduSecondaryFlow(0);
  const double V2 = rig.model.cduSecondaryFlow(1);
  CHECK(V1 > 0.0);
  CHECK(V2 == Approx(V1).epsilon(1e-6));  // the half-turn symmetry of the ring
  // Continuity at every junction of the ring, racks and CDUs.
  CHECK(rig.model.largestMassImbalance() < 1e-9 * (V1 + V2));
  // All the pumped flow reaches the racks.
  double racks = 0.0;
  for (double V : rig.model.rackFlows())
    racks += V;
  CHECK(racks == Approx(V1 + V2).epsilon(1e-6));

  for (int s = 0; s < 3600; ++s)
    rig.step(800.0);
  const double Q1 = rig.model.cduHeatFlow(0);
  const double Q2 = rig.model.cduHeatFlow(1);
  CHECK(Q2 == Approx(Q1).epsilon(1e-6));
  // Steady state: the CDUs remove the chips' heat plus the pumps' hydraulic heat.
  const double P_chips = 800.0 * static_cast<double>(rig.layout.gpu_count);
  const double P_pumps = rig.model.cduPumpHydraulicPower(0) + rig.model.cduPumpHydraulicPower(1);
  CHECK(Q1 + Q2 == Approx(P_chips + P_pumps).epsilon(1e-3));
  // Each CDU's exchanger: heat = m_flow cp (T_in - T_out) with the loop's coolant (the pump's
  // heat enters upstream of the exchanger, so T_in is the suction temperature plus that rise).
  const thermal::Coolant pg25 = thermal::Coolant::fromSpec(rig.site.secondary_coolant);
  const double rho_cp = pg25.density(rig.site.cdus[0].T_supply_set)
                        * pg25.specificHeat(rig.site.cdus[0].T_supply_set);
  for (std::size_t c = 0; c < 2; ++c) {
    const double C = rho_cp * rig.model.cduSecondaryFlow(c);
    const double T_in = rig.model.cduReturnTemperature(c) + rig.model.cduPumpHydraulicPower(c) / C;
    CHECK(rig.model.cduHeatFlow(c)
          == Approx(C * (T_in - rig.model.cduSupplyTemperature(c))).epsilon(1e-6));
  }
  CHECK(rig.balance() < 1e-9);
}

TEST_CASE("A ring rides through the loss of one CDU's only pump on the other CDU", "[thermal]") {
  Rig rig(ringSite(/*pumps_installed=*/1));
  for (int s = 0; s < 600; ++s)
    rig.step(800.0);
  const double V_before = rig.model.cduSecondaryFlow(1);
  REQUIRE(rig.event(core::EventKind::PumpTrip, "hall/cdu1"));
  CHECK(rig.model.cduPumpsRunning(0) == 0);
  CHECK(rig.model.cduSecondaryFlow(0) == 0.0);      // a stopped pump holds back reverse flow
  CHECK(rig.model.cduSecondaryFlow(1) > V_before);  // one pump against a lighter system
  for (double V : rig.model.rackFlows())
    CHECK(V > 0.2 * V_before / 2.0);  // every rack is still fed, now from the far CDU
  CHECK(rig.model.largestMassImbalance() < 1e-9 * rig.model.cduSecondaryFlow(1));
  for (int s = 0; s < 3000; ++s)
    rig.step(800.0);
  CHECK(rig.model.cduHeatFlow(0) == 0.0);
  // The remaining CDU carries the whole heat at steady state (with its own pump's heat).
  const double P_chips = 800.0 * static_cast<double>(rig.layout.gpu_count);
  CHECK(rig.model.cduHeatFlow(1)
        == Approx(P_chips + rig.model.cduPumpHydraulicPower(1)).epsilon(1e-3));
  CHECK(rig.balance() < 1e-9);
}

TEST_CASE("A ring conserves energy to round-off with varying heat and a standby switch-over",
          "[thermal]") {
  Rig rig(ringSite(/*pumps_installed=*/2));
  for (int s = 0; s < 7200; ++s) {
    if (s == 900) REQUIRE(rig.event(core::EventKind::PumpTrip, "hall/cdu2"));
    const double P = 300.0 + 900.0 * (0.5 + 0.5 * std::sin(2.0 * 3.141592653589793 * s / 600.0));
    rig.step(P, 1.0, 50.0);
    if (s == 902) CHECK(rig.model.cduPumpsRunning(1) == 0);  // during the switch-over
  }
  CHECK(rig.model.cduPumpsRunning(1) == 1);  // the standby took over
  CHECK(rig.balance() < 1e-9);
}
