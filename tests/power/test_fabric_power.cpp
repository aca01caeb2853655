// The fabric's switches as IT load (power/FabricPower): on an ideal source, and on a line of the
// tree whose current, and the transformer's and utility's loading above it, include them. The
// expected values follow from the load's definition (P at power factor pf: |S| = P / pf, I =
// |S| / (sqrt(3) V)) and from conservation, not from a run of the model.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>

#include "ElectricalTestSite.hpp"
#include "racktwin/core/FabricSpec.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/power/ElectricalModel.hpp"

using namespace racktwin;

namespace {

constexpr double kDt = 0.1;    // s
constexpr double kP = 4316.0;  // W per switch: 2,300 W + 144 x 14 W (data/network)
constexpr double kPf = 0.98;

/// Two racks (144 GPUs) in one group: two leaves of 72 down ports and one spine.
core::FabricSpec fabricSpec(const std::string& leaf_line, const std::string& spine_line) {
  core::FabricSpec f;
  f.present = true;
  f.type = "test";
  f.radix = 144;
  f.P_switch = 2300.0;
  f.P_transceiver = 14.0;
  f.power_factor = kPf;
  f.size = core::fatTreeSize({144}, 144, 2);
  f.groups.push_back({"row1", {0, 1}, 144, 2, 0, leaf_line, ""});
  if (!spine_line.empty()) f.spine_lines.push_back(spine_line);
  return f;
}

/// Two racks on an ideal source, or on the test tree (no UPS, no generator) with a PDU cable for
/// the network rack off its switchboard; with or without the fabric.
core::SiteSpec benchSite(bool tree, bool fabric) {
  core::SiteSpec site = test::gb300Site(2);
  if (tree) {
    test::TreeOptions o;
    o.ups = false;
    o.generator = false;
    site.electrical = test::treeSpec(site, o);
    core::LineSpec pdu;
    pdu.kind = core::LineSpec::Kind::Cable;
    pdu.id = "elec/fabric-pdu";
    pdu.parent = "elec/swbd1";
    pdu.R = 0.01;
    pdu.X = 0.004;
    pdu.I_rated = 63.0;
    pdu.room = "hall";
    site.electrical.lines.push_back(pdu);
  }
  if (fabric)
    site.fabric = tree ? fabricSpec("elec/fabric-pdu", "elec/fabric-pdu") : fabricSpec("", "");
  return site;
}

struct Bench : test::ElectricalRig {
  Bench(bool tree, bool fabric) : test::ElectricalRig(benchSite(tree, fabric)) { initialize(); }
  void run(int steps) { test::ElectricalRig::run(0, steps, kDt); }
};

}  // namespace

TEST_CASE("On an ideal source the fabric draws switches x power, all of it IT load and hall heat",
          "[power]") {
  Bench with(false, true), without(false, false);
  with.run(10);
  without.run(10);
  const double P_fabric = 3 * kP;  // 2 leaves + 1 spine
  CHECK(with.model->fabric().switches() == 3);
  CHECK(with.model->fabricPower() == Approx(P_fabric).epsilon(1e-12));
  CHECK(with.model->fabricEnergy() == Approx(P_fabric * 10 * kDt).epsilon(1e-12));
  // IT = racks + fabric; the racks draw what they draw without it.
  CHECK(with.model->itEnergy() - without.model->itEnergy()
        == Approx(P_fabric * 10 * kDt).epsilon(1e-9));
  CHECK(with.model->itEnergy()
        == Approx(with.model->dcEnergy() + with.model->psuLossEnergy() + with.model->fabricEnergy())
               .epsilon(1e-12));
  CHECK(with.model->facilityEnergy() == Approx(with.model->itEnergy()).epsilon(1e-12));
  CHECK(with.model->energyBalanceRelativeError() < 1e-12);
  // The last step's heat in the hall's air: the switches' power over the step.
  CHECK(with.state.hall_air_E_step == Approx(P_fabric * kDt).epsilon(1e-12));
  CHECK(without.state.hall_air_E_step == 0.0);
  core::Summary summary;
  with.model->summarise(summary);
  CHECK(summary.value("fabric_switches").value_or(0.0) == 3.0);
  CHECK(summary.value("fabric_power_W").value_or(0.0) == Approx(P_fabric).epsilon(1e-12));
  CHECK(summary.value("fabric_it_share").value_or(0.0)
        == Approx(with.model->fabricEnergy() / with.model->itEnergy()).epsilon(1e-12));
}

TEST_CASE("On the tree the fabric's line carries |S| / (sqrt 3 V) and the feeders above include it",
          "[power]") {
  Bench with(true, true), without(true, false);
  with.run(5);
  without.run(5);
  const power::PowerTree& tree = with.model->distribution()->tree();
  const std::size_t pdu = with.element("elec/fabric-pdu");
  const double P_fabric = 3 * kP;
  // The line's current from its load: |S| = P / pf at the bus voltage, plus nothing else below it.
  const double S = P_fabric / kPf;
  CHECK(tree.current(pdu) == Approx(S / (std::sqrt(3.0) * tree.lineVoltage(pdu))).epsilon(1e-9));
  CHECK(tree.outputPower(pdu).real() == Approx(P_fabric).epsilon(1e-12));
  CHECK(tree.outputPower(pdu).imag()
        == Approx(P_fabric * std::sqrt(1.0 - kPf * kPf) / kPf).epsilon(1e-12));
  // The transformer and the MV input carry it: the input grows by the fabric's power plus the
  // losses its current adds (positive, and small against it).
  const std::size_t tx = with.element("elec/tx1");
  const double dP_in =
      with.model->distribution()->inputPower() - without.model->distribution()->inputPower();
  CHECK(dP_in > P_fabric);
  CHECK(dP_in < 1.02 * P_fabric);
  const power::PowerTree& bare = without.model->distribution()->tree();
  CHECK(tree.inputPower(tx).real() - bare.inputPower(tx).real() > P_fabric);
  CHECK(tree.current(tx) > bare.current(tx));
  // IT power counts it; the electrical balance holds with it.
  CHECK(with.model->fabricEnergy() == Approx(P_fabric * 5 * kDt).epsilon(1e-12));
  CHECK(with.model->energyBalanceRelativeError() < 1e-12);
  CHECK(with.model->siteItPower() - without.model->siteItPower() == Approx(P_fabric).epsilon(1e-9));
}

TEST_CASE("A fabric whose line is dead draws nothing and heats nothing", "[power]") {
  core::SiteSpec site = benchSite(true, true);
  // Trip the fabric PDU: an instantaneous element below its current (~18 A at 415 V).
  site.electrical.lines.back().breaker = test::iecStandardInverse(10.0, 0.1);
  site.electrical.lines.back().breaker.I_instantaneous = 11.0;
  test::ElectricalRig b(site);
  b.initialize();
  b.run(0, 5, kDt);
  CHECK(b.model->distribution()->breakerTrips() == 1);
  CHECK(b.model->fabricPower() == 0.0);
  // What heats the hall's air in the step is the RPPs' and the dead PDU's losses: no switch heat.
  const auto& rooms = b.model->distribution()->roomNames();
  const auto hall =
      static_cast<std::size_t>(std::find(rooms.begin(), rooms.end(), "hall") - rooms.begin());
  CHECK(b.state.hall_air_E_step == Approx(b.model->roomLossPower(hall) * kDt).epsilon(1e-12));
  CHECK(b.model->energyBalanceRelativeError() < 1e-12);
}
