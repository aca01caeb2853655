// One utility substation with a medium-voltage feeder per hall: each feeder is a cable on the MV
// bus (13.8 kV, gb300_nvl72.md §4) with its breaker and ampacity, feeding its hall's transformer.
// Checked: Kirchhoff's current law at the bus (the feeders' phasor currents sum to the
// utility's), selectivity (a feeder's trip drops its hall only), the per-feeder summary and the
// feeders' ratings as design limits.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <stdexcept>
#include <string>

#include "ElectricalTestSite.hpp"
#include "racktwin/core/DesignLimits.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/power/ElectricalModel.hpp"

using namespace racktwin;

namespace {

constexpr double kDt = 0.1;  // s

/// Four racks, two halls: racks 1-2 on feeder 1, racks 3-4 on feeder 2 (hall 2's feeder is
/// longer, and hall 2's racks draw less, so the two feeders differ in current and angle).
core::ElectricalSpec twoFeederSpec(const core::SiteSpec& site, double feeder1_instantaneous) {
  core::ElectricalSpec e;
  e.present = true;
  e.utility.V_nominal = 13.8e3;
  for (int h = 1; h <= 2; ++h) {
    const std::string hall = "hall" + std::to_string(h);
    core::LineSpec feeder;
    feeder.kind = core::LineSpec::Kind::Cable;
    feeder.id = hall + "/mv-feeder";
    feeder.R = 0.2 * h * 0.1;  // 200 m per hall number of 0.1 ohm/km cable (240 mm2 Al)
    feeder.X = 0.2 * h * 0.11;
    feeder.I_rated = 400.0;
    feeder.breaker = test::iecStandardInverse(400.0, 0.2);
    if (h == 1 && feeder1_instantaneous > 0.0) {
      feeder.breaker.I_pickup = 0.8 * feeder1_instantaneous;
      feeder.breaker.I_instantaneous = feeder1_instantaneous;
    }
    e.lines.push_back(feeder);
    core::TransformerSpec t;
    t.id = hall + "/tx";
    t.parent = hall + "/mv-feeder";
    t.S_rated = 3.0e6;
    t.V_primary = 13.8e3;
    t.V_secondary = 415.0;
    t.P_no_load = 3.0e3;
    t.P_load_rated = 24.0e3;
    t.impedance = 0.06;
    e.transformers.push_back(t);
  }
  for (std::size_t r = 0; r < site.racks.size(); ++r) {
    core::RackFeedSpec f;
    f.rack = site.racks[r].id.str();
    f.parent_a = f.parent_b = r < 2 ? "hall1/tx" : "hall2/tx";
    f.a.R = f.b.R = 0.003;
    f.a.X = f.b.X = 0.001;
    e.rack_feeds.push_back(f);
  }
  return e;
}

core::SiteSpec twoHallSite(double feeder1_instantaneous) {
  core::SiteSpec site = test::gb300Site(4);
  site.electrical = twoFeederSpec(site, feeder1_instantaneous);
  return site;
}

/// Hall 2's GPUs at half the demand of hall 1's.
struct Bench : test::ElectricalRig {
  explicit Bench(double feeder1_instantaneous = 0.0)
      : test::ElectricalRig(twoHallSite(feeder1_instantaneous)) {
    for (std::size_t g = layout.rack_gpu_begin[2]; g < layout.gpu_count; ++g)
      state.gpu_P_demand[g] = 600.0;
    initialize();
  }
  void run(int steps) { test::ElectricalRig::run(0, steps, kDt); }
};

}  // namespace

TEST_CASE("The MV feeders' phasor currents add up to the utility's at the bus", "[power]") {
  Bench b;
  b.run(5);
  const power::PowerTree& tree = b.model->distribution()->tree();
  const std::complex<double> V = tree.sourcePhaseVoltage();
  // Phase current into a branch at the bus: I = conj(S_in / (3 V)).
  const auto phasor = [&](std::size_t br) { return std::conj(tree.inputPower(br) / (3.0 * V)); };
  const std::size_t f1 = b.element("hall1/mv-feeder"), f2 = b.element("hall2/mv-feeder");
  const std::complex<double> I1 = phasor(f1), I2 = phasor(f2);
  const std::complex<double> I_utility = std::conj(tree.sourcePower() / (3.0 * V));
  CHECK(std::abs(I1 + I2 - I_utility) <= 1e-12 * std::abs(I_utility));
  // Each feeder's magnitude is its recorded current (a line carries one current end to end).
  CHECK(std::abs(I1) == Approx(tree.current(f1)).epsilon(1e-9));
  CHECK(std::abs(I2) == Approx(tree.current(f2)).epsilon(1e-9));
  // The halls differ: the magnitudes add to at least the utility's (triangle inequality).
  CHECK(tree.current(f1) > 1.2 * tree.current(f2));
  CHECK(tree.current(f1) + tree.current(f2) >= std::abs(I_utility) * (1.0 - 1e-12));
  // Per-feeder summary: highest current and utilisation over the rating (400 A).
  core::Summary summary;
  b.model->summarise(summary);
  const double I1_max = summary.value("mv_feeder_hall1/mv-feeder_current_max_A").value_or(-1.0);
  CHECK(I1_max == Approx(tree.current(f1)).epsilon(1e-6));
  CHECK(summary.value("mv_feeder_hall2/mv-feeder_utilisation_max").value_or(-1.0)
        == Approx(tree.current(f2) / 400.0).epsilon(1e-6));
  // The transformers are not MV feeders (their parent is a feeder, not the bus).
  CHECK_THROWS_AS(summary.value("mv_feeder_hall1/tx_current_max_A"), std::out_of_range);
}

TEST_CASE("A trip of one MV feeder's breaker drops only its hall's racks", "[power]") {
  // Hall 1's feeder carries ~20 A at 13.8 kV for two ~140 kW racks; an instantaneous element at
  // 5 A trips it in the first step.
  Bench b(5.0);
  b.run(5);
  CHECK(b.model->distribution()->breakerTrips() == 1);
  CHECK_FALSE(b.model->distribution()->breakerClosed(b.element("hall1/mv-feeder")));
  CHECK_FALSE(b.model->rackPowered(0));
  CHECK_FALSE(b.model->rackPowered(1));
  CHECK(b.model->rackPowered(2));
  CHECK(b.model->rackPowered(3));
  CHECK(b.model->gpusUnpowered() == 2 * 72);
  const power::PowerTree& tree = b.model->distribution()->tree();
  CHECK(tree.current(b.element("hall2/mv-feeder")) > 0.0);
  CHECK(b.model->energyBalanceRelativeError() < 1e-12);
}

TEST_CASE("Each MV feeder's ampacity and breaker pickup are design limits on its current",
          "[power]") {
  core::SiteSpec site = test::gb300Site(4);
  site.electrical = twoFeederSpec(site, 0.0);
  const std::vector<core::DesignLimit> limits = core::designLimits(site);
  for (const char* id : {"hall1/mv-feeder", "hall2/mv-feeder"}) {
    INFO(id);
    for (const char* name : {"rated_current", "breaker_pickup"}) {
      const auto it = std::find_if(limits.begin(), limits.end(), [&](const core::DesignLimit& l) {
        return l.component == id && l.name == name;
      });
      REQUIRE(it != limits.end());
      CHECK(it->rating == 400.0);
      CHECK(it->group_kind == "feeder");
      REQUIRE(it->inputs.size() == 1);
      CHECK(it->inputs[0].channel == "power_tree/current");
    }
  }
}
