#pragma once
// Hand-built distribution trees for the electrical tests. Values from gb300_nvl72.md §4 where the
// sheet has them (13.8 kV MV, 415 V LV, UPS part-load curve, 10-30 s generator start), the rest
// stated beside each number.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "Gb300TestSite.hpp"
#include "racktwin/core/ElectricalSpec.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/power/ElectricalModel.hpp"

namespace racktwin::test {

/// IEC 60255-151 standard inverse: t = TMS * 0.14 / (M^0.02 - 1).
inline core::BreakerSpec iecStandardInverse(double I_pickup, double tms) {
  core::BreakerSpec b;
  b.present = true;
  b.I_pickup = I_pickup;
  b.curve = core::TripCurveSpec{0.14, 0.0, 0.02, 0.0};
  b.time_dial = tms;
  return b;
}

/// gb300_nvl72.md §4: UPS part-load curve 93 / 96 / 97 / 97.5 / 97.5 % at 10 / 25 / 50 / 75 /
/// 100 % load.
inline void upsCurve(core::UpsSpec& u) {
  u.efficiency_load_fraction = {0.10, 0.25, 0.50, 0.75, 1.00};
  u.efficiency = {0.93, 0.96, 0.97, 0.975, 0.975};
}

struct TreeOptions {
  bool ups = true;
  double ups_P_rated = 500e3;      // W per module
  double battery_seconds = 300.0;  // s of rated output
  bool generator = true;
  double generator_delay = 15.0;  // s (gb300_nvl72.md §4: 10-30 s)
  double generator_ramp = 0.0;    // W/s per set, 0 = at once
  double feed_R = 0.003;          // ohm per phase: ~10 m of lumped whips
  double feed_b_pickup = 0.0;     // A; 0 = no breaker on feed B
  double feed_a_pickup = 0.0;     // A; 0 = no breaker on feed A
};

/// MV 13.8 kV -> 3 MVA transformer -> (UPS) -> switchboard -> RPP A and RPP B -> every rack's A
/// and B feeds (PSUs 3 + 3 per shelf).
inline core::ElectricalSpec treeSpec(const core::SiteSpec& site, const TreeOptions& o = {}) {
  core::ElectricalSpec e;
  e.present = true;
  e.utility.V_nominal = 13.8e3;  // §4: campus MV 13.8 kV
  if (o.generator) {
    e.generator.present = true;
    e.generator.units = 1;
    e.generator.P_rated = 3.0e6;  // §4: gensets 2.5-3.1 MW
    e.generator.start_delay = o.generator_delay;
    e.generator.ramp_rate = o.generator_ramp;
  }
  core::TransformerSpec t;
  t.id = "elec/tx1";
  t.S_rated = 3.0e6;  // §4: unit substation 2.5-3 MVA
  t.V_primary = 13.8e3;
  t.V_secondary = 415.0;  // §4: 415 V distribution
  t.P_no_load = 3.0e3;    // chosen: 99.3-99.6 % at mid load (§4)
  t.P_load_rated = 24.0e3;
  t.impedance = 0.06;
  e.transformers.push_back(t);
  std::string upstream = "elec/tx1";
  if (o.ups) {
    core::UpsSpec u;
    u.id = "elec/ups1";
    u.parent = "elec/tx1";
    u.P_rated = o.ups_P_rated;
    upsCurve(u);
    u.E_battery = o.battery_seconds * o.ups_P_rated;
    u.P_recharge = 0.1 * o.ups_P_rated;
    u.charge_efficiency = 0.95;
    e.upses.push_back(u);
    upstream = "elec/ups1";
  }
  core::LineSpec swbd;
  swbd.kind = core::LineSpec::Kind::Switchboard;
  swbd.id = "elec/swbd1";
  swbd.parent = upstream;
  swbd.R = 0.0002;
  swbd.X = 0.0002;
  swbd.I_rated = 4000.0;
  e.lines.push_back(swbd);
  for (const char* side : {"a", "b"}) {
    core::LineSpec rpp;
    rpp.kind = core::LineSpec::Kind::Rpp;
    rpp.id = std::string("elec/rpp-") + side;
    rpp.parent = "elec/swbd1";
    rpp.R = 0.001;
    rpp.X = 0.0008;
    rpp.I_rated = 1600.0;
    rpp.room = "hall";
    e.lines.push_back(rpp);
  }
  for (const core::RackSpec& rack : site.racks) {
    core::RackFeedSpec f;
    f.rack = rack.id.str();
    f.parent_a = "elec/rpp-a";
    f.parent_b = "elec/rpp-b";
    f.a.R = f.b.R = o.feed_R;
    f.a.X = f.b.X = 0.3 * o.feed_R;
    f.a.I_rated = f.b.I_rated = 240.0;  // §4: 4 x 60 A whips per side
    if (o.feed_a_pickup > 0.0) f.a.breaker = iecStandardInverse(o.feed_a_pickup, 0.1);
    if (o.feed_b_pickup > 0.0) f.b.breaker = iecStandardInverse(o.feed_b_pickup, 0.1);
    e.rack_feeds.push_back(f);
  }
  return e;
}

/// Sets every chip of every rack to a demand (W) and the air loads.
inline void setAllDemands(core::SiteState& s, double gpu, double cpu, double sw, double air) {
  for (double& P : s.gpu_P_demand)
    P = gpu;
  for (double& P : s.cpu_P_demand)
    P = cpu;
  for (double& P : s.switch_P_demand)
    P = sw;
  for (double& P : s.rack_air_P_demand)
    P = air;
}

/// An electrical model of a site with every chip at a typical training demand (GPU 1200 W, CPU
/// 250 W, NVSwitch 120 W, 9 kW of tray air load per rack), stepped as the engine steps it. Change
/// `state` before initialize() for other demands.
struct ElectricalRig {
  explicit ElectricalRig(core::SiteSpec spec) : site(std::move(spec)) {
    layout = core::SiteLayout::build(site);
    model = std::make_unique<power::ElectricalModel>(site, layout);
    state.resize(layout, 300.0);
    setAllDemands(state, 1200.0, 250.0, 120.0, 9000.0);
  }
  void initialize() { model->initialize(state); }
  /// Steps [k0, k1) of length dt, each its own macro step.
  void run(int k0, int k1, double dt = 0.1) {
    for (int k = k0; k < k1; ++k) {
      state.time = state.step_start = k * dt;
      state.clearStepAccumulators();
      model->advance(state.time, dt, state);
    }
  }
  /// Index of a distribution element by id.
  std::size_t element(const std::string& id) const {
    const auto& ids = model->distribution()->elementIds();
    return static_cast<std::size_t>(std::find(ids.begin(), ids.end(), id) - ids.begin());
  }
  core::SiteSpec site;
  core::SiteLayout layout;
  core::SiteState state;
  std::unique_ptr<power::ElectricalModel> model;
};

}  // namespace racktwin::test
