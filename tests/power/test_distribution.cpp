// The distribution tree coupled to the racks: A/B failover, the inverse-time cascade of an
// undersized feed, utility outages bridged by the UPS battery (energy = output / efficiency x
// time, gb300_nvl72.md §4 part-load curve), battery depletion, located losses, events, and the
// electrical energy balance.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ElectricalTestSite.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/ThreadPool.hpp"
#include "racktwin/power/ElectricalModel.hpp"

using namespace racktwin;
using Kind = power::ElectricalEvent::Kind;

namespace {

constexpr double kDt = 0.1;  // s, the electrical step of the default engine (1 s / 10)

struct Bench {
  Bench(int racks, const test::TreeOptions& options) : site(test::gb300Site(racks)) {
    site.electrical = test::treeSpec(site, options);
    layout = core::SiteLayout::build(site);
    model = std::make_unique<power::ElectricalModel>(site, layout);
    state.resize(layout, 300.0);
    test::setAllDemands(state, 1200.0, 250.0, 120.0, 9000.0);
    model->initialize(state);
  }
  /// Runs steps [k0, k1) of length kDt.
  void run(int k0, int k1) {
    for (int k = k0; k < k1; ++k) {
      state.time = state.step_start = k * kDt;
      state.clearStepAccumulators();
      model->advance(state.time, kDt, state);
    }
  }
  void event(core::EventKind kind, double t, std::string target = "", double value = 0.0) {
    state.time = t;
    core::EventSpec e;
    e.kind = kind;
    e.time = t;
    e.target = std::move(target);
    e.value = value;
    REQUIRE(model->applyEvent(e, state));
  }
  const power::Distribution& dist() const { return *model->distribution(); }
  double gpuDemand(std::size_t r) const {
    double P = 0.0;
    for (std::size_t g = layout.rack_gpu_begin[r]; g < layout.rack_gpu_begin[r + 1]; ++g)
      P += state.gpu_P_demand[g];
    return P;
  }
  double gpuDrawn(std::size_t r) const {
    double P = 0.0;
    for (std::size_t g = layout.rack_gpu_begin[r]; g < layout.rack_gpu_begin[r + 1]; ++g)
      P += state.gpu_P[g];
    return P;
  }
  bool hasEvent(Kind kind, int element = -2) const {
    for (const auto& e : dist().events()) {
      if (e.kind == kind && (element == -2 || e.element == element)) return true;
    }
    return false;
  }
  const power::ElectricalEvent* firstEvent(Kind kind) const {
    for (const auto& e : dist().events()) {
      if (e.kind == kind) return &e;
    }
    return nullptr;
  }

  core::SiteSpec site;
  core::SiteLayout layout;
  core::SiteState state;
  std::unique_ptr<power::ElectricalModel> model;
};

/// UPS output of a tree with the given options, for sizing the UPS at an exact table point.
double upsOutput(int racks, test::TreeOptions options) {
  Bench b(racks, options);
  b.run(0, 3);
  return b.dist().tree().converterResult(0).P_out;
}

}  // namespace

TEST_CASE("Feed A lost: feed B carries the whole rack and every GPU stays powered", "[power]") {
  Bench b(2, {});
  b.run(0, 20);
  const double P_dc = b.state.rack_P_dc[0];
  const double I_b_before =
      b.dist().tree().current(static_cast<std::size_t>(b.dist().feedBranch(0, 1)));
  REQUIRE(b.model->rackFeedPower(0, 0) == Approx(b.model->rackFeedPower(0, 1)).epsilon(1e-12));
  b.event(core::EventKind::FeedLoss, 2.0, "row1/rack01", 0.0);
  b.run(20, 40);
  CHECK(b.model->gpusUnpoweredMax() == 0);
  CHECK(b.gpuDrawn(0) == b.gpuDemand(0));  // no loss of power
  CHECK(b.state.rack_P_dc[0] == Approx(P_dc).epsilon(1e-12));
  CHECK(b.model->rackFeedPower(0, 0) == 0.0);
  CHECK(b.model->rackFeedPower(0, 1) == Approx(b.state.rack_P_ac[0]).epsilon(1e-12));
  // The B PSUs (3 of 6 per shelf, 3 + 3 split) carry the shelf; the A PSUs carry nothing.
  const double shelf = b.model->shelfOutput(0, 0);
  for (std::size_t p = 0; p < 6; ++p) {
    const bool on_b = b.model->psuFeed(0, 0, p) == power::Distribution::kFeedB;
    CHECK(on_b == (p >= 3));
    CHECK(b.model->psuOutput(0, 0, p) == Approx(on_b ? shelf / 3.0 : 0.0).epsilon(1e-12));
  }
  const double I_b_after =
      b.dist().tree().current(static_cast<std::size_t>(b.dist().feedBranch(0, 1)));
  CHECK(I_b_after > 1.9 * I_b_before);  // twice the power, slightly more PSU loss
  CHECK(b.dist().tree().current(static_cast<std::size_t>(b.dist().feedBranch(0, 0))) == 0.0);
  // The other rack is untouched.
  CHECK(b.model->rackFeedPower(1, 0) > 0.0);
  CHECK(b.hasEvent(Kind::FeedLost, b.dist().feedBranch(0, 0)));
  // Restored: sharing returns.
  b.event(core::EventKind::FeedRestore, 4.0, "row1/rack01", 0.0);
  b.run(40, 45);
  CHECK(b.model->rackFeedPower(0, 0) == Approx(b.model->rackFeedPower(0, 1)).epsilon(1e-12));
  CHECK(b.model->energyBalanceRelativeError() < 1e-9);
}

TEST_CASE("Feed A lost with an undersized feed B: B trips on its inverse-time curve (cascade)",
          "[power]") {
  // Feed B's current at half load, measured on the same tree without breakers.
  double I_half = 0.0;
  {
    Bench pre(1, {});
    pre.run(0, 5);
    I_half = pre.dist().tree().current(static_cast<std::size_t>(pre.dist().feedBranch(0, 1)));
  }
  test::TreeOptions o;
  o.feed_b_pickup = 1.5 * I_half;  // fine for A + B sharing, ~1.33 x pickup after failover
  Bench b(1, o);
  b.run(0, 20);
  REQUIRE(b.dist().breakerClosed(static_cast<std::size_t>(b.dist().feedBranch(0, 1))));
  b.event(core::EventKind::FeedLoss, 2.0, "", 0.0);  // every rack's feed A
  b.run(20, 21);
  const std::size_t feed_b = static_cast<std::size_t>(b.dist().feedBranch(0, 1));
  const double M = b.dist().tree().current(feed_b) / o.feed_b_pickup;
  REQUIRE(M > 1.2);
  // IEC 60255-151 standard inverse, TMS 0.1.
  const double t_trip = 0.1 * 0.14 / (std::pow(M, 0.02) - 1.0);
  const int steps = static_cast<int>(std::ceil(t_trip / kDt)) + 3;
  b.run(21, 20 + steps);
  const power::ElectricalEvent* trip = b.firstEvent(Kind::BreakerTripInverseTime);
  REQUIRE(trip != nullptr);
  CHECK(trip->element == static_cast<int>(feed_b));
  CHECK(trip->time == Approx(2.0 + t_trip).epsilon(1e-9));
  CHECK(trip->value == Approx(M).epsilon(1e-9));
  // The cascade: feed A lost -> feed B tripped -> rack unpowered, all GPUs off.
  const power::ElectricalEvent* off = b.firstEvent(Kind::RackUnpowered);
  REQUIRE(off != nullptr);
  CHECK(off->time > trip->time);
  CHECK(off->time < trip->time + 2 * kDt);
  CHECK(b.model->gpusUnpoweredMax() == 72);
  CHECK_FALSE(b.model->rackPowered(0));
  CHECK(b.gpuDrawn(0) == 0.0);
  CHECK(b.state.gpu_E_step[0] == 0.0);
  CHECK(b.state.rack_air_E_step[0] == 0.0);  // the thermal model sees no heat
  const std::vector<std::string> log = b.model->eventLog();
  REQUIRE(log.size() >= 3);
  CHECK(log[0].find("feed_a lost") != std::string::npos);
  CHECK(log[1].find("feed_b breaker tripped (inverse time") != std::string::npos);
  CHECK(log[2].find("unpowered (72 GPUs off)") != std::string::npos);
  // Feed A restored: the rack runs again (on A alone; B stays open).
  b.event(core::EventKind::FeedRestore, 10.0, "row1/rack01", 0.0);
  b.run(100, 102);
  CHECK(b.model->rackPowered(0));
  CHECK(b.gpuDrawn(0) == b.gpuDemand(0));
  CHECK(b.model->energyBalanceRelativeError() < 1e-9);
}

TEST_CASE("Utility outage: the UPS battery bridges the generator start delay exactly", "[power]") {
  test::TreeOptions o;
  o.generator_delay = 10.0;
  o.ups_P_rated = 2.0 * upsOutput(1, o);  // the UPS at 50 % load: efficiency 0.97 (§4 table)
  Bench b(1, o);
  b.run(0, 20);
  const double P_out = b.dist().tree().converterResult(0).P_out;
  REQUIRE(P_out == Approx(0.5 * o.ups_P_rated).epsilon(1e-12));
  const double E0 = b.dist().upsBatteryEnergy(0);
  REQUIRE(E0 == Approx(300.0 * o.ups_P_rated).epsilon(1e-12));
  b.event(core::EventKind::UtilityOutage, 2.0);
  b.run(20, 30);
  CHECK(b.dist().tree().converterResult(0).P_battery == Approx(P_out / 0.97).epsilon(1e-12));
  CHECK(b.model->facilityPower() == 0.0);
  CHECK(b.model->rackPowered(0));
  b.run(30, 120);                              // generator online at t = 12 s
  const double bridged = P_out / 0.97 * 10.0;  // output / efficiency x the start delay
  CHECK(E0 - b.dist().upsBatteryEnergy(0) == Approx(bridged).epsilon(1e-9));
  CHECK(b.dist().upsStateOfCharge(0) == Approx(1.0 - bridged / E0).epsilon(1e-9));
  CHECK(b.model->gpusUnpoweredMax() == 0);
  CHECK(b.firstEvent(Kind::GeneratorOnline) == nullptr);
  CHECK(b.hasEvent(Kind::UpsOnBattery));
  b.run(120, 125);
  const power::ElectricalEvent* online = b.firstEvent(Kind::GeneratorOnline);
  REQUIRE(online != nullptr);
  CHECK(online->time == Approx(12.0));
  CHECK(b.hasEvent(Kind::UpsOnInput));
  CHECK(b.dist().generatorOnline());
  CHECK(b.model->facilityPower() > P_out);
  // Recharging on the generator: stored = 0.95 of the recharge drawn.
  const auto& r = b.dist().tree().converterResult(0);
  CHECK(r.P_charge_in == Approx(0.1 * o.ups_P_rated).epsilon(1e-12));
  CHECK(b.dist().upsBatteryPower(0) == Approx(-0.95 * r.P_charge_in).epsilon(1e-12));
  b.event(core::EventKind::UtilityRestore, 12.5);
  b.run(125, 130);
  CHECK(b.dist().utilityLive());
  CHECK_FALSE(b.dist().generatorOnline());
  CHECK(b.dist().generatorEnergy() > 0.0);
  CHECK(b.model->energyBalanceRelativeError() < 1e-9);
}

TEST_CASE("Utility outage with a ramping generator: the battery covers the ramp's triangle",
          "[power]") {
  test::TreeOptions o;
  o.generator_delay = 10.0;
  o.ups_P_rated = 2.0 * upsOutput(1, o);
  const double need = 0.5 * o.ups_P_rated / 0.97;  // UPS input at 50 % load (§4 table)
  o.generator_ramp = need / 5.0;                   // 5 s to accept the UPS's input
  Bench b(1, o);
  b.run(0, 20);
  const double E0 = b.dist().upsBatteryEnergy(0);
  b.event(core::EventKind::UtilityOutage, 2.0);
  // The sets close at 12 s and accept the UPS's whole input 5 s later: the battery gave the
  // delay plus the triangle under the ramp, need x (10 s + 5 s / 2). (The ramp is taken at each
  // step's middle, the midpoint rule, exact for a linear ramp.)
  b.run(20, 170);
  CHECK(E0 - b.dist().upsBatteryEnergy(0) == Approx(need * 12.5).epsilon(1e-9));
  CHECK(b.dist().tree().converterResult(0).P_battery > 0.0);
  b.run(170, 200);
  CHECK(b.dist().tree().converterResult(0).P_battery == 0.0);  // now recharging
  CHECK(b.dist().upsBatteryPower(0) < 0.0);
  CHECK(b.model->gpusUnpoweredMax() == 0);
  CHECK(b.model->energyBalanceRelativeError() < 1e-9);
}

TEST_CASE("Utility outage with too small a battery: load lost, GPUs off, back on the generator",
          "[power]") {
  test::TreeOptions o;
  o.generator_delay = 10.0;
  const double P_out = upsOutput(1, o);
  o.ups_P_rated = 2.0 * P_out;
  const double need = P_out / 0.97;
  o.battery_seconds = 4.05 * need / o.ups_P_rated;  // 4.05 s of the UPS's load
  Bench b(1, o);
  b.run(0, 20);
  b.event(core::EventKind::UtilityOutage, 2.0);
  b.run(20, 59);
  CHECK(b.model->rackPowered(0));  // 3.9 s on battery
  b.run(59, 61);
  CHECK_FALSE(b.model->rackPowered(0));
  CHECK(b.gpuDrawn(0) == 0.0);
  const power::ElectricalEvent* depleted = b.firstEvent(Kind::UpsBatteryDepleted);
  REQUIRE(depleted != nullptr);
  CHECK(depleted->time == Approx(6.0));  // 4.0 s: the battery could not carry the 41st step
  const power::ElectricalEvent* off = b.firstEvent(Kind::RackUnpowered);
  REQUIRE(off != nullptr);
  CHECK(off->time == Approx(6.0));
  CHECK(b.model->gpusUnpoweredMax() == 72);
  b.run(61, 125);
  CHECK(b.model->rackPowered(0));  // generator at 12 s restarts the UPS output
  const power::ElectricalEvent* restored = b.firstEvent(Kind::UpsOutputRestored);
  REQUIRE(restored != nullptr);
  CHECK(restored->time == Approx(12.0));
  CHECK(b.firstEvent(Kind::RackRepowered)->time == Approx(12.0));
  CHECK(b.model->energyBalanceRelativeError() < 1e-9);
}

TEST_CASE("Generator fails to start: the battery runs out and the load stays lost", "[power]") {
  test::TreeOptions o;
  o.generator_delay = 10.0;
  const double P_out = upsOutput(1, o);
  o.ups_P_rated = 2.0 * P_out;
  o.battery_seconds = 20.05 * (P_out / 0.97) / o.ups_P_rated;  // 20.05 s of load
  Bench b(1, o);
  b.site.electrical.generator.fails_to_start = true;
  b.model = std::make_unique<power::ElectricalModel>(b.site, b.layout);
  b.model->initialize(b.state);
  b.run(0, 20);
  b.event(core::EventKind::UtilityOutage, 2.0);
  b.run(20, 400);
  CHECK(b.firstEvent(Kind::GeneratorFailedToStart)->time == Approx(12.0));
  CHECK(b.firstEvent(Kind::UpsBatteryDepleted)->time == Approx(22.0));
  CHECK_FALSE(b.model->rackPowered(0));
  CHECK(b.dist().upsStateOfCharge(0) < 0.01);
  CHECK(b.dist().upsStateOfCharge(0) >= 0.0);
  CHECK(b.model->energyBalanceRelativeError() < 1e-9);
}

TEST_CASE("Forty racks lose and regain power: one event each, in rack order, on any threads",
          "[power][threads]") {
  // Two blocks of racks (32 and 8): each block reports its racks' power events after the pass,
  // and the first thread records them in block order. The racks draw light loads (the test
  // tree's transformer is 3 MVA); the battery holds about 3.5 s, the generator is absent.
  constexpr int kRacks = 40;
  test::TreeOptions o;
  o.generator = false;
  o.ups_P_rated = 2e6;
  o.battery_seconds = 2.0;
  const auto run = [&](unsigned threads) {
    auto b = std::make_unique<Bench>(kRacks, o);
    core::ThreadPool pool(threads);
    b->model->useThreads(pool);
    test::setAllDemands(b->state, 300.0, 60.0, 30.0, 2000.0);
    b->model->initialize(b->state);
    b->run(0, 20);
    b->event(core::EventKind::UtilityOutage, 2.0);
    b->run(20, 80);
    for (int r = 0; r < kRacks; ++r)
      CHECK_FALSE(b->model->rackPowered(static_cast<std::size_t>(r)));
    CHECK(b->model->gpusUnpowered() == 72u * kRacks);
    b->event(core::EventKind::UtilityRestore, 8.0);
    b->run(80, 120);
    for (int r = 0; r < kRacks; ++r)
      CHECK(b->model->rackPowered(static_cast<std::size_t>(r)));
    CHECK(b->model->gpusUnpowered() == 0u);
    CHECK(b->model->energyBalanceRelativeError() < 1e-9);
    return std::pair{b->model->eventLog(), b->layout.rack_ids};
  };
  const auto [log, ids] = run(1);
  std::vector<std::string> off, on;
  for (const std::string& line : log) {
    if (line.find(" unpowered (72 GPUs off)") != std::string::npos) off.push_back(line);
    if (line.find(" powered again") != std::string::npos) on.push_back(line);
  }
  REQUIRE(off.size() == kRacks);
  REQUIRE(on.size() == kRacks);
  for (std::size_t r = 0; r < kRacks; ++r) {
    INFO(off[r] << " / " << on[r]);
    CHECK(off[r].find(ids[r] + " unpowered") != std::string::npos);
    CHECK(on[r].find(ids[r] + " powered again") != std::string::npos);
  }
  CHECK(run(2).first == log);
  CHECK(run(3).first == log);
}

TEST_CASE("Losses heat where they occur and the summary reports them", "[power]") {
  Bench b(2, {});
  b.run(0, 10);
  const power::Distribution& d = b.dist();
  for (std::size_t r = 0; r < 2; ++r) {
    // Rack heat: air loads, PSU, busbar and both feeds' I^2 R, over the step.
    const double heat =
        b.state.rack_air_P_demand[r] + b.state.rack_P_psu_loss[r] + d.rackFeedLoss(r);
    CHECK(b.state.rack_air_E_step[r] == Approx(heat * kDt).epsilon(1e-12));
    CHECK(b.model->rackLossPower(r)
          == Approx(b.state.rack_P_psu_loss[r] + d.rackFeedLoss(r)).epsilon(1e-12));
    CHECK(d.rackFeedLoss(r) > 0.0);
  }
  // Rooms: transformer, UPS and switchboard in "electrical", the RPPs in "hall".
  double electrical = 0.0, hall = 0.0;
  for (std::size_t e = 0; e < d.elementCount(); ++e) {
    if (d.elementKind(e) == power::ElementKind::Rpp) hall += d.lossPower(e);
    if (d.elementKind(e) == power::ElementKind::Transformer
        || d.elementKind(e) == power::ElementKind::Ups
        || d.elementKind(e) == power::ElementKind::Switchboard) {
      electrical += d.lossPower(e);
    }
  }
  REQUIRE(d.roomNames().size() == 2);
  CHECK(d.roomNames()[0] == "electrical");
  CHECK(b.model->roomLossPower(0) == Approx(electrical).epsilon(1e-12));
  CHECK(b.model->roomLossPower(1) == Approx(hall).epsilon(1e-12));
  // The "hall" is the data hall whose air the cooling model holds: its losses heat that air.
  CHECK(b.state.hall_air_E_step == Approx(hall * kDt).epsilon(1e-12));
  CHECK(hall > 0.0);
  // Input at the MV bus = IT + distribution losses (no battery change at full charge).
  double dist_loss = 0.0;
  for (std::size_t e = 0; e < d.elementCount(); ++e)
    dist_loss += d.lossPower(e);
  CHECK(b.model->facilityPower()
        == Approx(b.state.rack_P_ac[0] + b.state.rack_P_ac[1] + dist_loss).epsilon(1e-12));

  b.model->finalize(b.state);
  core::Summary summary;
  b.model->summarise(summary);
  for (const char* key :
       {"facility_power_max_W", "facility_power_min_W", "it_power_max_W", "it_power_min_W",
        "gpus_unpowered_max", "facility_power_dominant_frequency_Hz", "electrical_losses_J",
        "electrical_energy_balance_relative_error", "electrical_loss_transformer_J", "ups_soc_min",
        "breaker_trips"}) {
    INFO(key);
    CHECK_NOTHROW(summary.value(key));
  }
  CHECK(summary.value("electrical_energy_balance_relative_error").value() < 1e-9);
  CHECK(summary.value("electrical_losses_J").value()
        == Approx(b.model->psuLossEnergy() + d.lossEnergy()).epsilon(1e-12));
  CHECK(summary.value("facility_power_max_W").value()
        >= summary.value("facility_power_min_W").value());
  // Constant demands: no oscillation.
  CHECK_FALSE(summary.value("facility_power_dominant_frequency_Hz").has_value());
}

TEST_CASE("Electrical energy balance closes over faults, outages, smoothing and recharge",
          "[power]") {
  test::TreeOptions o;
  o.generator_delay = 12.0;
  o.generator_ramp = 100e3;
  Bench b(3, o);
  b.site.electrical.busbar_R = 2e-5;  // ohm: ~150 W at 2.8 kA
  core::PowerPolicySpec policy;
  policy.smoothing = {true, 65.0, 0.6, 700.0, 700.0, 2.0, 0.5};
  b.site.electrical.power_policies.push_back(policy);
  b.model = std::make_unique<power::ElectricalModel>(b.site, b.layout);
  const auto drive = [&](int k) {
    for (std::size_t g = 0; g < b.layout.gpu_count; ++g) {
      b.state.gpu_P_demand[g] =
          200.0 + 600.0 * (1.0 + std::sin(0.37 * k + 0.11 * static_cast<double>(g)));
    }
    for (std::size_t c = 0; c < b.layout.cpu_count; ++c)
      b.state.cpu_P_demand[c] = 150.0 + 50.0 * std::cos(0.21 * k);
  };
  drive(0);
  b.model->initialize(b.state);
  for (int k = 0; k < 1200; ++k) {
    if (k == 100) b.event(core::EventKind::FeedLoss, k * kDt, "row1/rack02", 1.0);
    if (k == 200) b.event(core::EventKind::UtilityOutage, k * kDt);
    if (k == 300) b.event(core::EventKind::SetPowerCap, k * kDt, "", 900.0);
    if (k == 600) b.event(core::EventKind::UtilityRestore, k * kDt);
    if (k == 700) b.event(core::EventKind::FeedRestore, k * kDt, "row1/rack02", 1.0);
    drive(k);
    b.run(k, k + 1);
    if (k % 100 == 99) {
      INFO("step " << k);
      CHECK(b.model->energyBalanceRelativeError() < 1e-9);
    }
  }
  CHECK(b.dist().minUpsStateOfCharge() < 0.99);  // the outage drew on the battery
  CHECK(b.dist().upsStateOfCharge(0) == Approx(1.0).epsilon(1e-12));  // and it recharged
  CHECK(b.model->storageEnergyChange() != 0.0);
  CHECK(b.model->busbarLossEnergy() > 0.0);
  CHECK(b.model->energyBalanceRelativeError() < 1e-9);
  // input = load + losses + stored, term by term.
  const double in = b.model->facilityEnergy();
  const double out = b.model->loadEnergy() + b.model->lossEnergy() + b.dist().batteryEnergyChange()
                     + b.model->storageEnergyChange();
  CHECK(in == Approx(out).epsilon(1e-9));
  CHECK(b.model->itEnergy()
        == Approx(b.model->dcEnergy() + b.model->psuLossEnergy()).epsilon(1e-12));
}

TEST_CASE("Electrical events need an electrical section and name racks", "[power]") {
  core::SiteSpec site = test::gb300Site(1);
  const core::SiteLayout layout = core::SiteLayout::build(site);
  power::ElectricalModel ideal(site, layout);
  core::SiteState state;
  state.resize(layout, 300.0);
  core::EventSpec e;
  e.kind = core::EventKind::UtilityOutage;
  CHECK_FALSE(ideal.applyEvent(e, state));
  Bench b(1, {});
  core::EventSpec bad;
  bad.kind = core::EventKind::FeedLoss;
  bad.target = "row1/rack09";
  CHECK_THROWS_AS(b.model->applyEvent(bad, b.state), core::RuntimeError);
  bad.target = "";
  bad.value = 2.0;
  CHECK_THROWS_AS(b.model->applyEvent(bad, b.state), core::RuntimeError);
}

TEST_CASE("Bad trees are rejected with the element named", "[power]") {
  core::SiteSpec site = test::gb300Site(1);
  const core::SiteLayout layout = core::SiteLayout::build(site);
  const auto fails = [&](const core::ElectricalSpec& e, const char* text) {
    core::SiteSpec s = site;
    s.electrical = e;
    CHECK_THROWS_WITH(power::ElectricalModel(s, layout), Catch::Matchers::Contains(text));
  };
  core::ElectricalSpec e = test::treeSpec(site);
  e.lines[1].parent = "elec/nowhere";
  fails(e, "unknown parent 'elec/nowhere'");
  e = test::treeSpec(site);
  e.transformers[0].parent = "elec/swbd1";
  fails(e, "cycle");
  e = test::treeSpec(site);
  e.transformers[0].V_primary = 11e3;
  fails(e, "does not match");
  e = test::treeSpec(site);
  e.transformers[0].impedance = 0.005;
  fails(e, "must exceed its resistance");
  e = test::treeSpec(site);
  e.lines.push_back(e.lines[0]);
  fails(e, "used twice");
  e = test::treeSpec(site);
  e.rack_feeds[0].rack = "row1/rack07";
  fails(e, "unknown rack 'row1/rack07'");
  e = test::treeSpec(site);
  e.upses[0].efficiency = {0.93, 0.96, 1.2, 0.975, 0.975};
  fails(e, "UPS elec/ups1 efficiency curve");
}

TEST_CASE("Tree channels are declared and read the model's values", "[power]") {
  Bench b(2, {});
  core::Recorder recorder(0.1);
  b.model->declareChannels(recorder);
  std::vector<std::string> names;
  for (const auto& c : recorder.channels())
    names.push_back(c.group + "/" + c.name);
  for (const char* name :
       {"rack/feed_a_current", "rack/feed_b_utilisation", "rack/feed_b_closed", "rack/powered",
        "rack/E_storage", "power_tree/current", "power_tree/utilisation", "power_tree/voltage",
        "power_tree/closed", "ups/soc", "ups/P_battery", "electrical_room/P_loss",
        "site/P_facility", "site/gpus_unpowered"}) {
    INFO(name);
    CHECK(std::find(names.begin(), names.end(), name) != names.end());
  }
  for (const auto& c : recorder.channels()) {
    if (c.group == "power_tree") CHECK(c.entity_ids.size() == 5);  // tx, ups, swbd, 2 RPPs
  }
}

TEST_CASE("With the tree, a PSU failing mid-run moves its share to the five left in its shelf",
          "[power]") {
  // 8 shelves x 6 PSUs, 3 + 3 on feeds A and B (gb300_nvl72.md s1); PSU 4 of shelf 2 is on B.
  Bench b(1, {});
  b.run(0, 5);
  const power::PsuEfficiency& curve = b.model->psuCurve(0);
  const double P = b.model->rackGridDcPower(0);  // W through the PSUs' converters
  const double l48 = curve.loss(P / 48.0), l40 = curve.loss(P / 40.0);
  CHECK(b.state.rack_P_psu_loss[0] == Approx(48.0 * l48).epsilon(1e-12));

  b.model->setPsuHealthy(0, 2, 4, false);
  b.run(5, 10);
  REQUIRE(b.model->rackGridDcPower(0) == Approx(P).epsilon(1e-12));  // the same load
  CHECK(b.model->psuOutput(0, 2, 4) == 0.0);
  CHECK(b.model->psuOutput(0, 2, 0) == Approx(P / 40.0).epsilon(1e-12));
  CHECK(b.model->psuOutput(0, 1, 0) == Approx(P / 48.0).epsilon(1e-12));
  CHECK(b.state.rack_P_psu_loss[0] == Approx(42.0 * l48 + 5.0 * l40).epsilon(1e-12));
  // Each feed carries its PSUs' input: 21 at P/48 on both, and 3 (A) or 2 (B) at P/40.
  CHECK(b.model->rackFeedPower(0, 0)
        == Approx(21.0 * (P / 48.0 + l48) + 3.0 * (P / 40.0 + l40)).epsilon(1e-12));
  CHECK(b.model->rackFeedPower(0, 1)
        == Approx(21.0 * (P / 48.0 + l48) + 2.0 * (P / 40.0 + l40)).epsilon(1e-12));

  b.model->setPsuHealthy(0, 2, 4, true);  // repaired: even sharing again
  b.run(10, 15);
  CHECK(b.model->psuOutput(0, 2, 0) == Approx(P / 48.0).epsilon(1e-12));
  CHECK(b.state.rack_P_psu_loss[0] == Approx(48.0 * l48).epsilon(1e-12));
  CHECK(b.model->rackFeedPower(0, 0) == Approx(b.model->rackFeedPower(0, 1)).epsilon(1e-12));
  CHECK(b.model->energyBalanceRelativeError() < 1e-9);
}
