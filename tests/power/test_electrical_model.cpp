// Rack electrical model: energy conservation, PSU load sharing, shelf efficiency at the 80 PLUS
// Titanium points (gb300_nvl72.md section 1), recorder channels and summary.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "Gb300TestSite.hpp"
#include "MemorySink.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/power/ElectricalModel.hpp"

using namespace racktwin;

namespace {

struct Bench {
  explicit Bench(int racks)
      : site(test::gb300Site(racks)), layout(core::SiteLayout::build(site)), model(site, layout) {
    state.resize(layout, 300.0);
  }
  core::SiteSpec site;
  core::SiteLayout layout;
  core::SiteState state;
  power::ElectricalModel model;
};

constexpr int kShelves = 8;           // gb300_nvl72.md s1
constexpr int kPsusPerShelf = 6;      // gb300_nvl72.md s1
constexpr double kPsuRated = 5500.0;  // W, gb300_nvl72.md s1

/// Sets every chip of every rack: GPUs gpu W, CPUs cpu W, switches sw W, air loads air W per rack.
void setDemands(core::SiteState& s, double gpu, double cpu, double sw, double air) {
  for (double& P : s.gpu_P_demand)
    P = gpu;
  for (double& P : s.cpu_P_demand)
    P = cpu;
  for (double& P : s.switch_P_demand)
    P = sw;
  for (double& P : s.rack_air_P_demand)
    P = air;
}

/// Sum of the rack's chip and air demands, computed here independently of the model.
double rackDemand(const core::SiteLayout& l, const core::SiteState& s, std::size_t r) {
  double P = s.rack_air_P_demand[r];
  for (std::size_t g = l.rack_gpu_begin[r]; g < l.rack_gpu_begin[r + 1]; ++g)
    P += s.gpu_P_demand[g];
  for (std::size_t c = l.rack_cpu_begin[r]; c < l.rack_cpu_begin[r + 1]; ++c)
    P += s.cpu_P_demand[c];
  for (std::size_t w = l.rack_switch_begin[r]; w < l.rack_switch_begin[r + 1]; ++w) {
    P += s.switch_P_demand[w];
  }
  return P;
}

}  // namespace

TEST_CASE("Electrical energy is conserved over many sub-steps", "[power]") {
  Bench b(2);
  core::SiteState& s = b.state;
  const core::SiteLayout& l = b.layout;
  // Deterministic, varying demands: every chip follows its own phase of a slow wave.
  const auto drive = [&](int step) {
    for (std::size_t g = 0; g < l.gpu_count; ++g) {
      s.gpu_P_demand[g] = 200.0 + 600.0 * (1.0 + std::sin(0.37 * step + 0.11 * g));
    }
    for (std::size_t c = 0; c < l.cpu_count; ++c) {
      s.cpu_P_demand[c] = 100.0 + 100.0 * (1.0 + std::cos(0.21 * step + 0.3 * c));
    }
    for (std::size_t w = 0; w < l.switch_count; ++w) {
      s.switch_P_demand[w] = 60.0 + 30.0 * (1.0 + std::sin(0.05 * step + w));
    }
    for (std::size_t r = 0; r < l.rack_count; ++r) {
      s.rack_air_P_demand[r] = 9000.0 + 1000.0 * std::sin(0.013 * step + r);
    }
  };
  drive(0);
  b.model.initialize(s);
  CHECK(b.model.itEnergy() == 0.0);  // initialize sets powers, accumulates nothing
  CHECK(s.rack_P_ac[0] > s.rack_P_dc[0]);

  const double dt = 0.05;
  const int macro_steps = 300;
  const int substeps = 10;
  double rack_ac_energy = 0.0;  // from the per-step accumulators
  double demand_energy = 0.0;   // from the demands, summed here
  int step = 0;
  for (int m = 0; m < macro_steps; ++m) {
    s.clearStepAccumulators();
    std::vector<double> expect_air(l.rack_count, 0.0), expect_ac(l.rack_count, 0.0);
    std::vector<double> expect_gpu(l.gpu_count, 0.0);
    for (int k = 0; k < substeps; ++k, ++step) {
      drive(step);
      b.model.advance(step * dt, dt, s);
      for (std::size_t r = 0; r < l.rack_count; ++r) {
        const double P_dc = rackDemand(l, s, r);
        CHECK(s.rack_P_dc[r] == Approx(P_dc).epsilon(1e-12));
        CHECK(s.rack_P_ac[r] == Approx(s.rack_P_dc[r] + s.rack_P_psu_loss[r]).epsilon(1e-15));
        // All PSUs healthy: 48 PSUs each carry P_dc / 48.
        const double psu_loss =
            kShelves * kPsusPerShelf * b.model.psuCurve(r).loss(P_dc / (kShelves * kPsusPerShelf));
        CHECK(s.rack_P_psu_loss[r] == Approx(psu_loss).epsilon(1e-12));
        expect_air[r] += (s.rack_air_P_demand[r] + s.rack_P_psu_loss[r]) * dt;
        expect_ac[r] += s.rack_P_ac[r] * dt;
        demand_energy += P_dc * dt;
      }
      for (std::size_t g = 0; g < l.gpu_count; ++g) {
        CHECK(s.gpu_P[g] == s.gpu_P_demand[g]);
        expect_gpu[g] += s.gpu_P_demand[g] * dt;
      }
    }
    for (std::size_t r = 0; r < l.rack_count; ++r) {
      CHECK(s.rack_air_E_step[r] == Approx(expect_air[r]).epsilon(1e-12));
      CHECK(s.rack_ac_E_step[r] == Approx(expect_ac[r]).epsilon(1e-12));
      rack_ac_energy += s.rack_ac_E_step[r];
    }
    CHECK(s.gpu_E_step[5] == Approx(expect_gpu[5]).epsilon(1e-12));
    CHECK(s.gpu_E_step[100] == Approx(expect_gpu[100]).epsilon(1e-12));
  }
  // First law: AC input = DC delivered + PSU losses.
  CHECK(b.model.itEnergy() == Approx(b.model.dcEnergy() + b.model.psuLossEnergy()).epsilon(1e-12));
  CHECK(b.model.itEnergy() == Approx(rack_ac_energy).epsilon(1e-12));
  CHECK(b.model.dcEnergy() == Approx(demand_energy).epsilon(1e-12));
  CHECK(b.model.psuLossEnergy() > 0.0);
}

TEST_CASE("Rack shelf efficiency equals the 80 PLUS Titanium table when PSUs sit at table loads",
          "[power]") {
  // Each case: healthy PSUs per shelf, load fraction per PSU, 80 PLUS Titanium efficiency there
  // (gb300_nvl72.md s1). Failing PSUs raises the load on the rest, so every table point is
  // reached with GPU demands inside [0, 1400 W].
  struct Case {
    int healthy;
    double load;
    double eta;
  };
  const Case cases[] = {{6, 0.10, 0.90}, {6, 0.20, 0.94}, {3, 0.50, 0.96}, {2, 1.00, 0.91}};
  for (const Case& c : cases) {
    Bench b(1);
    for (int shelf = 0; shelf < kShelves; ++shelf) {
      for (int p = c.healthy; p < kPsusPerShelf; ++p)
        b.model.setPsuHealthy(0, shelf, p, false);
    }
    const double P_dc = c.load * kPsuRated * kShelves * c.healthy;
    const double cpu = 100.0, sw = 60.0, air = 9000.0;
    const double gpu = (P_dc - 36 * cpu - 18 * sw - air) / 72.0;
    REQUIRE(gpu >= 0.0);
    REQUIRE(gpu <= 1400.0);
    setDemands(b.state, gpu, cpu, sw, air);
    b.model.advance(0.0, 0.1, b.state);
    INFO("load " << c.load << " with " << c.healthy << " PSUs per shelf");
    CHECK(b.state.rack_P_dc[0] == Approx(P_dc).epsilon(1e-12));
    CHECK(b.model.psuOutput(0, 3, 0) == Approx(c.load * kPsuRated).epsilon(1e-12));
    CHECK(b.state.rack_P_ac[0] == Approx(P_dc / c.eta).epsilon(1e-12));
    CHECK(b.model.siteItPower() == Approx(P_dc / c.eta).epsilon(1e-12));
  }
}

TEST_CASE("Shelf load is shared among its healthy PSUs", "[power]") {
  Bench b(2);
  setDemands(b.state, 1000.0, 250.0, 100.0, 9000.0);
  b.model.initialize(b.state);
  const double P_dc = b.state.rack_P_dc[0];
  REQUIRE(P_dc == Approx(72 * 1000.0 + 36 * 250.0 + 18 * 100.0 + 9000.0).epsilon(1e-12));

  SECTION("one failed PSU: the other five of its shelf carry shelf/5") {
    b.model.setPsuHealthy(0, 2, 4, false);
    CHECK_FALSE(b.model.psuHealthy(0, 2, 4));
    b.model.advance(0.0, 0.1, b.state);
    for (int shelf = 0; shelf < kShelves; ++shelf) {
      CHECK(b.model.shelfOutput(0, shelf) == Approx(P_dc / kShelves).epsilon(1e-12));
    }
    for (int p = 0; p < kPsusPerShelf; ++p) {
      const double expected = p == 4 ? 0.0 : P_dc / kShelves / 5.0;
      CHECK(b.model.psuOutput(0, 2, p) == Approx(expected).epsilon(1e-12));
      CHECK(b.model.psuOutput(0, 1, p) == Approx(P_dc / kShelves / 6.0).epsilon(1e-12));
    }
    const power::PsuEfficiency& curve = b.model.psuCurve(0);
    const double loss = 7 * 6 * curve.loss(P_dc / 48.0) + 5 * curve.loss(P_dc / 40.0);
    CHECK(b.state.rack_P_psu_loss[0] == Approx(loss).epsilon(1e-12));
    // The other rack is untouched.
    CHECK(b.state.rack_P_psu_loss[1] == Approx(48 * curve.loss(P_dc / 48.0)).epsilon(1e-12));
    // Repair restores even sharing.
    b.model.setPsuHealthy(0, 2, 4, true);
    b.model.advance(0.1, 0.1, b.state);
    CHECK(b.model.psuOutput(0, 2, 0) == Approx(P_dc / 48.0).epsilon(1e-12));
    CHECK(b.state.rack_P_psu_loss[0] == Approx(48 * curve.loss(P_dc / 48.0)).epsilon(1e-12));
  }

  SECTION("a shelf with no healthy PSU carries nothing; the other seven share the load") {
    for (int p = 0; p < kPsusPerShelf; ++p)
      b.model.setPsuHealthy(0, 5, p, false);
    b.model.advance(0.0, 0.1, b.state);
    CHECK(b.model.shelfOutput(0, 5) == 0.0);
    CHECK(b.model.shelfOutput(0, 0) == Approx(P_dc / 7.0).epsilon(1e-12));
    const double loss = 7 * 6 * b.model.psuCurve(0).loss(P_dc / 42.0);
    CHECK(b.state.rack_P_psu_loss[0] == Approx(loss).epsilon(1e-12));
  }

  SECTION("a rack with no healthy PSU is unpowered and draws nothing") {
    for (int shelf = 0; shelf < kShelves; ++shelf) {
      for (int p = 0; p < kPsusPerShelf; ++p)
        b.model.setPsuHealthy(0, shelf, p, false);
    }
    b.state.clearStepAccumulators();
    b.model.advance(0.0, 0.1, b.state);
    CHECK(b.state.rack_P_ac[0] == 0.0);
    CHECK(b.state.rack_P_dc[0] == 0.0);
    CHECK(b.state.gpu_P[0] == 0.0);
    CHECK(b.state.gpu_E_step[0] == 0.0);
    CHECK(b.state.rack_air_E_step[0] == 0.0);
    CHECK(b.state.rack_P_ac[1] > P_dc);  // the other rack runs on
    CHECK(b.model.siteItPower() == Approx(b.state.rack_P_ac[1]).epsilon(1e-15));
  }
}

TEST_CASE("Electrical model channels read the current values and the summary reports energy",
          "[power]") {
  Bench b(2);
  core::Recorder recorder(1.0);
  test::MemorySink sink;
  b.model.declareChannels(recorder);
  recorder.addSink(sink);
  recorder.open(core::RunMetadata{});
  setDemands(b.state, 900.0, 250.0, 100.0, 9000.0);
  b.state.gpu_P_demand[73] = 1234.0;
  b.model.initialize(b.state);
  b.model.advance(0.0, 2.0, b.state);
  recorder.sample(0.0);
  REQUIRE(sink.rows.size() == 1);

  const std::vector<std::string> names = {"rack/P_ac",       "rack/P_ac_mean",      "rack/P_dc",
                                          "rack/P_psu_loss", "rack/psu_efficiency", "gpu/P",
                                          "site/P_it",       "site/P_it_mean"};
  REQUIRE(sink.channels.size() == names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    CHECK(sink.channels[i].group + "/" + sink.channels[i].name == names[i]);
  }
  CHECK(sink.channels[0].width() == 2);
  CHECK(sink.channels[5].width() == 144);
  CHECK(sink.channels[5].entity_ids[73] == b.layout.gpu_ids[73]);
  CHECK(sink.channels[6].entity_ids.empty());
  const std::vector<double>& row = sink.rows[0];
  CHECK(row[0] == b.state.rack_P_ac[0]);
  CHECK(row[1] == b.state.rack_P_ac[1]);
  // Constant demand over the one 2 s step: the step mean equals the instantaneous value.
  CHECK(row[2] == Approx(b.state.rack_P_ac[0]).epsilon(1e-15));
  CHECK(row[5] == b.state.rack_P_dc[1]);
  CHECK(row[6] == b.state.rack_P_psu_loss[0]);
  CHECK(row[8] == Approx(b.state.rack_P_dc[0] / b.state.rack_P_ac[0]).epsilon(1e-15));
  CHECK(row[10 + 73] == 1234.0);
  CHECK(row[10 + 144] == Approx(b.state.rack_P_ac[0] + b.state.rack_P_ac[1]).epsilon(1e-15));
  CHECK(row[10 + 145] == Approx(b.state.rack_P_ac[0] + b.state.rack_P_ac[1]).epsilon(1e-15));

  core::Summary summary;
  b.model.summarise(summary);
  const double it_energy = 2.0 * (b.state.rack_P_ac[0] + b.state.rack_P_ac[1]);
  CHECK(summary.value("it_energy_J").value() == Approx(it_energy).epsilon(1e-12));
  const double loss_energy = 2.0 * (b.state.rack_P_psu_loss[0] + b.state.rack_P_psu_loss[1]);
  CHECK(summary.value("psu_loss_energy_J").value() == Approx(loss_energy).epsilon(1e-12));
  CHECK(summary.items()[0].display_unit == "kWh");
  CHECK(summary.items()[0].display_scale == Approx(1.0 / 3.6e6));
}

TEST_CASE("Electrical model rejects a rack type without power shelves", "[power]") {
  core::SiteSpec site = test::gb300Site(1);
  site.racks[0].type.power.shelves = 0;
  const core::SiteLayout layout = core::SiteLayout::build(site);
  CHECK_THROWS_AS(power::ElectricalModel(site, layout), std::invalid_argument);
  site.racks[0].type.power.shelves = 8;
  site.racks[0].type.power.psu_efficiency.efficiency = {0.9, 0.94, 1.2, 0.91};
  CHECK_THROWS_WITH(power::ElectricalModel(site, layout), Catch::Matchers::Contains("row1/rack01"));
}

TEST_CASE("Racks of types with different PSU curves each take the loss of their own curve",
          "[power]") {
  // Three racks: the first and last of the GB300 type (80 PLUS Titanium table of
  // Gb300TestSite.hpp), the middle one with a lower, flatter table and a smaller PSU rating.
  core::SiteSpec site = test::gb300Site(3);
  core::PowerShelfSpec& other = site.racks[1].type.power;
  other.psu_P_rated = 3300.0;
  other.psu_efficiency.load_fraction = {0.10, 0.50, 1.00};
  other.psu_efficiency.efficiency = {0.85, 0.90, 0.88};
  const core::SiteLayout layout = core::SiteLayout::build(site);
  power::ElectricalModel model(site, layout);
  core::SiteState s;
  s.resize(layout, 300.0);
  setDemands(s, 1000.0, 200.0, 80.0, 10000.0);
  model.initialize(s);
  s.clearStepAccumulators();
  model.advance(0.0, 0.1, s);
  // The loss per PSU, interpolated here from the rack type's own table (linear between points).
  const auto tableLoss = [](const core::PowerShelfSpec& p, double P_out) {
    const std::vector<double>& x = p.psu_efficiency.load_fraction;
    const std::vector<double>& eta = p.psu_efficiency.efficiency;
    std::size_t i = 0;
    while (i + 2 < x.size() && P_out >= x[i + 1] * p.psu_P_rated)
      ++i;
    const double P0 = x[i] * p.psu_P_rated, P1 = x[i + 1] * p.psu_P_rated;
    const double L0 = P0 * (1.0 / eta[i] - 1.0), L1 = P1 * (1.0 / eta[i + 1] - 1.0);
    return L0 + (L1 - L0) / (P1 - P0) * (P_out - P0);
  };
  for (std::size_t r = 0; r < 3; ++r) {
    const core::PowerShelfSpec& p = site.racks[r].type.power;
    const int psus = p.shelves * p.psus_per_shelf;
    const double P_dc = rackDemand(layout, s, r);
    CHECK(s.rack_P_dc[r] == Approx(P_dc).epsilon(1e-12));
    CHECK(s.rack_P_psu_loss[r] == Approx(psus * tableLoss(p, P_dc / psus)).epsilon(1e-12));
  }
  // The same demands on different curves: different losses.
  CHECK(s.rack_P_psu_loss[1] > 1.5 * s.rack_P_psu_loss[0]);
  CHECK(s.rack_P_psu_loss[2] == s.rack_P_psu_loss[0]);
  CHECK(&model.psuCurve(0) == &model.psuCurve(2));  // one type, one curve
}
