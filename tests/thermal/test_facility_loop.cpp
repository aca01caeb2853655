// The facility water loop: continuity, flow sharing between CDUs, the plant pump's dp control,
// pump trips, energy conservation to round-off, the supply set-point held by heat rejection and a
// trim chiller, fan loss, and monotone transport at long steps.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/thermal/Coolant.hpp"
#include "racktwin/thermal/FacilityLoop.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

using namespace racktwin;
using thermal::FacilityLoop;

namespace {

constexpr double kLpm = core::kLitrePerMinute_m3_per_s;
constexpr double kCduFlow = 1242.0 * kLpm;  // facility flow of a 1.35 MW CDU (xdu1350 data)
// Water at the 30 degC set-point, IAPWS-95: the loop holds density and cp at the set-point.
const double kRho = thermal::Coolant::water().density(core::fromCelsius(30.0));

core::CduSpec cdu(const std::string& id) {
  core::CduSpec c;
  c.id = core::ComponentId(id);
  c.type = "test-cdu";
  // Fully open valve: 30 kPa at the CDU's nominal flow (dp = rho (V / A_v)^2).
  c.facility_valve.A_v = kCduFlow / std::sqrt(30e3 / 995.0);
  c.facility_valve.characteristic = core::ControlValveSpec::Characteristic::EqualPercentage;
  c.facility_valve.rangeability = 50.0;
  c.facility_valve.leakage = 1e-4;
  c.facility_valve.stroke_time = 30.0;
  c.hx_facility_dp.power_law = {50e3, kCduFlow, 2.0};
  c.hx_facility_volume = 0.04;
  return c;
}

struct Options {
  int cdus = 2;
  bool chiller = false;
  bool tower = false;
  double chiller_capacity = 1.0e6;
  double dp_set = 100e3;
  int pumps_installed = 2, pumps_duty = 1;
  double header_diameter = 0.15;
  double T_dry_degC = 20.0, T_wet_degC = 15.0;
  double T_set_degC = 30.0;
  double plant_length = 100.0, plant_diameter = 0.2;
};

core::FacilityWaterSpec facility(const Options& o) {
  core::FacilityWaterSpec f;
  f.T_supply = core::fromCelsius(o.T_set_degC);
  core::FacilityLoopSpec& l = f.loop;
  l.present = true;
  l.pump = {400e3, 0.12, 1.0, 0.75, 0.05};
  l.pumps_installed = o.pumps_installed;
  l.pumps_duty = o.pumps_duty;
  l.standby_switchover_time = 10.0;
  l.dp_set = o.dp_set;
  l.pump_gain = 1e-6;  // 0.1 speed per 100 kPa: ~0.25 of the loop gain d(dp)/ds ~ 250 kPa
  l.pump_integral_time = 10.0;
  l.pump_speed_min = 0.3;
  l.plant_pipe = {o.plant_length, o.plant_diameter, 4.5e-5, 10};
  l.header_segment = {10.0, o.header_diameter, 4.5e-5, 2};
  core::HeatRejectionSpec& r = l.heat_rejection;
  r.kind = o.tower ? core::HeatRejectionSpec::Kind::CoolingTower
                   : core::HeatRejectionSpec::Kind::DryCooler;
  r.type = "test-rejection";
  r.units = 2;
  r.Q_flow_nominal = 1.2e6;
  r.V_flow_nominal = kCduFlow;
  r.approach_nominal = o.tower ? 5.0 : 6.0;
  r.T_ambient_nominal = core::fromCelsius(o.tower ? 24.0 : 35.0);
  r.fan_P_nominal = 20e3;
  r.fan_speed_min = 0.2;
  r.dp.power_law = {40e3, kCduFlow, 2.0};
  r.volume = 0.3;
  r.cycles_of_concentration = 4.0;
  r.drift_fraction = 5e-5;
  if (o.chiller) {
    core::ChillerSpec& c = l.chiller;
    c.present = true;
    c.type = "test-chiller";
    c.Q_flow_nominal = o.chiller_capacity;
    c.carnot_fraction = 0.4;
    c.condenser_approach = 12.0;
    c.COP_max = 7.0;
    c.dp.power_law = {30e3, 2.0 * kCduFlow, 2.0};
    c.volume = 0.15;
  }
  return f;
}

core::AmbientSpec ambient(const Options& o) {
  core::AmbientSpec a;
  a.T_dry_bulb = core::fromCelsius(o.T_dry_degC);
  a.T_wet_bulb = core::fromCelsius(o.T_wet_degC);
  return a;
}

struct Rig {
  explicit Rig(const Options& o, double opening = 1.0)
      : cdus(makeCdus(o.cdus)), loop(facility(o), cdus, ambient(o)), Q(cdus.size(), 0.0) {
    loop.initialize(core::fromCelsius(o.T_set_degC), opening);
  }
  static std::vector<core::CduSpec> makeCdus(int n) {
    std::vector<core::CduSpec> v;
    for (int i = 0; i < n; ++i)
      v.push_back(cdu("cdu" + std::to_string(i + 1)));
    return v;
  }
  void run(double seconds, double h = 1.0) {
    const int steps = static_cast<int>(std::lround(seconds / h));
    for (int i = 0; i < steps; ++i) {
      t += h;
      loop.advance(t, h, Q);
    }
  }
  // Largest junction imbalance of the current solution, computed here from the network.
  double imbalance() const {
    const core::FlowNetwork& net = loop.network();
    const auto V = loop.hydraulics().V_flow();
    std::vector<double> net_in(net.nodeCount(), 0.0);
    for (core::FlowNetwork::Index l = 0; l < net.linkCount(); ++l) {
      net_in[net.portB(l)] += V[l];
      net_in[net.portA(l)] -= V[l];
    }
    double worst = 0.0;
    const auto tank = *net.findNode("facility/tank");
    for (std::size_t n = 0; n < net_in.size(); ++n)
      if (n != tank) worst = std::max(worst, std::abs(net_in[n]));
    return worst / std::abs(loop.plantFlow());
  }
  std::vector<core::CduSpec> cdus;
  FacilityLoop loop;
  std::vector<double> Q;
  double t = 0.0;
};

}  // namespace

TEST_CASE("Facility loop: continuity at every junction after every solve", "[thermal]") {
  Rig rig(Options{.cdus = 3});
  rig.Q = {0.5e6, 0.6e6, 0.7e6};
  CHECK(rig.imbalance() <= 1e-9);
  for (int k = 0; k < 20; ++k) {
    rig.loop.setValveCommand(static_cast<std::size_t>(k % 3), 0.3 + 0.03 * k);
    rig.run(10.0);
    CHECK(rig.imbalance() <= 1e-9);
  }
  CHECK(rig.loop.hydraulicSolves() > 20);
  CHECK(rig.loop.largestRelativeImbalance() <= 1e-9);
  // Valve moves keep the flow pattern: the sweep order was built once.
  CHECK(rig.loop.orderBuilds() == 1);
}

TEST_CASE("Two identical CDUs on lossless mains get equal flow, direct return favours the first",
          "[thermal]") {
  // By symmetry: with mains of negligible loss both branches see the same dp.
  Rig wide(Options{.header_diameter = 0.6});
  CHECK(wide.loop.cduFlow(0) == Approx(wide.loop.cduFlow(1)).epsilon(1e-4));
  CHECK(wide.loop.cduFlow(0) + wide.loop.cduFlow(1) == Approx(wide.loop.plantFlow()).epsilon(1e-9));
  // Real mains: the first tap has the shorter path, so it draws more.
  Rig real(Options{.header_diameter = 0.08});
  CHECK(real.loop.cduFlow(0) > real.loop.cduFlow(1) * 1.001);
}

TEST_CASE("Closing one CDU's valve lowers its flow and raises the other's", "[thermal]") {
  Options o;
  o.dp_set = 0.0;  // fixed pump speed, so the other branch sees the higher pressure
  Rig rig(o);
  const double before0 = rig.loop.cduFlow(0), before1 = rig.loop.cduFlow(1);
  rig.loop.setValveCommand(0, 0.3);
  rig.run(60.0);  // stroke time 30 s
  CHECK(rig.loop.valveOpening(0) == Approx(0.3).margin(1e-12));
  CHECK(rig.loop.cduFlow(0) < 0.5 * before0);
  CHECK(rig.loop.cduFlow(1) > before1 * 1.01);
  // A stuck valve ignores its command.
  rig.loop.setValveStuck(1, true);
  rig.loop.setValveCommand(1, 0.2);
  rig.run(60.0);
  CHECK(rig.loop.valveOpening(1) == 1.0);
}

TEST_CASE("The plant pump PI holds dp_set across the remote CDU within 1 %", "[thermal]") {
  Options o;
  Rig rig(o);
  CHECK(rig.loop.remoteDifferentialPressure() == Approx(o.dp_set).epsilon(1e-6));
  rig.loop.setValveCommand(0, 0.5);
  rig.loop.setValveCommand(1, 0.6);
  rig.run(600.0);
  CHECK(rig.loop.remoteDifferentialPressure() == Approx(o.dp_set).epsilon(0.01));
  const double speed_part_open = rig.loop.pumpSpeed();
  rig.loop.setValveCommand(0, 1.0);
  rig.loop.setValveCommand(1, 1.0);
  rig.run(600.0, 5.0);
  CHECK(rig.loop.remoteDifferentialPressure() == Approx(o.dp_set).epsilon(0.01));
  CHECK(rig.loop.pumpSpeed() > speed_part_open);  // open valves need more flow at the same dp
  // The dp across the remote branch is the drop over its open valve (rho (V / A_v)^2) and its
  // exchanger at its flow.
  const double V = rig.loop.cduFlow(1);
  const double A_v = rig.cdus[1].facility_valve.A_v;
  const double dp_hx = 50e3 * (V / kCduFlow) * (V / kCduFlow);
  CHECK(dp_hx + kRho * (V / A_v) * (V / A_v)
        == Approx(rig.loop.remoteDifferentialPressure()).epsilon(1e-6));
}

TEST_CASE("A plant pump trip: a standby restores the flow after the switch-over time",
          "[thermal]") {
  Rig rig(Options{});
  rig.Q = {0.5e6, 0.5e6};
  rig.run(60.0);
  const double before = rig.loop.plantFlow();
  rig.loop.tripPump();
  CHECK(std::abs(rig.loop.plantFlow()) < 1e-9);
  CHECK(rig.loop.pumpsRunning() == 0);
  rig.run(8.0);
  CHECK(std::abs(rig.loop.plantFlow()) < 1e-9);
  rig.run(4.0);  // past the 10 s switch-over
  CHECK(rig.loop.pumpsRunning() == 1);
  CHECK(rig.loop.plantFlow() >= 0.99 * before);
  rig.run(600.0);
  CHECK(rig.loop.plantFlow() == Approx(before).epsilon(0.01));
  CHECK(std::abs(rig.loop.energyBalanceResidual()) <= 1e-9 * rig.loop.heatInput());
}

TEST_CASE("A plant pump trip without a standby: the flow drops and stays down", "[thermal]") {
  SECTION("one duty pump, none in standby: no flow") {
    Rig rig(Options{.pumps_installed = 1, .pumps_duty = 1});
    rig.Q = {0.3e6, 0.3e6};
    rig.run(30.0);
    rig.loop.tripPump();
    rig.run(120.0);
    CHECK(rig.loop.pumpsRunning() == 0);
    CHECK(std::abs(rig.loop.plantFlow()) < 1e-9);
    CHECK(rig.loop.pumpHydraulicPower() == 0.0);
    CHECK(std::abs(rig.loop.energyBalanceResidual()) <= 1e-9 * rig.loop.heatInput());
  }
  SECTION("two duty pumps: one is left, at full speed, with less flow") {
    Options o{.pumps_installed = 2, .pumps_duty = 2};
    o.dp_set = 250e3;  // beyond what one pump can hold
    Rig rig(o);
    rig.run(30.0);
    const double before = rig.loop.plantFlow();
    rig.loop.tripPump();
    rig.run(120.0);
    CHECK(rig.loop.pumpsRunning() == 1);
    CHECK(rig.loop.plantFlow() < 0.95 * before);
    CHECK(rig.loop.plantFlow() > 0.0);
    CHECK(rig.loop.pumpSpeed() == 1.0);
  }
}

TEST_CASE("Facility loop energy balance closes to round-off over two hours of varying load",
          "[thermal]") {
  Options o;
  o.chiller = true;
  o.chiller_capacity = 300e3;
  o.T_dry_degC = 27.0;  // warm enough that fans and chiller both change branch over the run
  core::AmbientSpec a = ambient(o);
  a.time = {0.0, 3600.0, 7200.0};
  a.T_dry_bulb_series = {core::fromCelsius(22.0), core::fromCelsius(34.0), core::fromCelsius(26.0)};
  a.T_wet_bulb_series = {core::fromCelsius(16.0), core::fromCelsius(22.0), core::fromCelsius(18.0)};
  std::vector<core::CduSpec> cdus{cdu("cdu1"), cdu("cdu2")};
  FacilityLoop loop(facility(o), cdus, a);
  loop.initialize(core::fromCelsius(30.0), 0.8);
  std::vector<double> Q(2);
  double t = 0.0;
  bool chiller_ran = false, chiller_idle = false, capped = false;
  for (int k = 0; k < 7200; ++k) {
    const double h = (k % 7 == 0) ? 3.0 : 1.0;  // mixed step lengths
    t += h;
    Q[0] = 0.6e6 + 0.4e6 * std::sin(2.0 * M_PI * t / 900.0);
    Q[1] = 0.5e6 + 0.3e6 * std::cos(2.0 * M_PI * t / 1300.0);
    loop.setValveCommand(0, 0.6 + 0.4 * std::sin(t / 200.0));
    loop.advance(t, h, Q);
    chiller_ran = chiller_ran || loop.chillerHeat() > 0.0;
    chiller_idle = chiller_idle || loop.chillerHeat() == 0.0;
    capped = capped || loop.chillerHeat() == o.chiller_capacity;
  }
  CHECK(chiller_ran);
  CHECK(chiller_idle);
  CHECK(capped);
  const double scale =
      loop.heatInput() + loop.pumpHeat() + loop.energyRejected() + loop.chillerEnergy();
  CHECK(std::abs(loop.energyBalanceResidual()) <= 1e-9 * scale);
  CHECK(loop.largestRelativeImbalance() <= 1e-9);
}

TEST_CASE("Steady supply holds the set-point when the heat rejection has the capacity",
          "[thermal]") {
  Rig rig(Options{});
  rig.Q = {0.8e6, 0.8e6};
  rig.run(3.0 * 3600.0, 2.0);
  const double T_set = core::fromCelsius(30.0);
  CHECK(rig.loop.supplyTemperature() == Approx(T_set).margin(0.05));
  CHECK(rig.loop.cduSupplyTemperature(1) == Approx(T_set).margin(0.05));
  CHECK(rig.loop.fanSpeed() > 0.0);
  CHECK(rig.loop.fanSpeed() < 1.0);
  // Steady state: everything that enters leaves through the rejection.
  CHECK(rig.loop.heatRejected() == Approx(1.6e6 + rig.loop.pumpHydraulicPower()).epsilon(1e-4));
  // And each CDU's water warms by Q / C.
  CHECK(rig.loop.cduReturnTemperature(0) - rig.loop.cduSupplyTemperature(0)
        == Approx(0.8e6 / rig.loop.cduCapacityRate(0)).epsilon(1e-4));
}

TEST_CASE("On a hot day the trim chiller carries the rest and the supply stays at set-point",
          "[thermal]") {
  Options o;
  o.chiller = true;
  o.T_dry_degC = 32.0;  // above the set-point: the dry cooler alone cannot reach 30 degC
  Rig rig(o);
  rig.Q = {0.5e6, 0.5e6};
  rig.run(3.0 * 3600.0, 2.0);
  const double T_set = core::fromCelsius(30.0);
  CHECK(rig.loop.supplyTemperature() == Approx(T_set).margin(0.05));
  CHECK(rig.loop.cduSupplyTemperature(0) == Approx(T_set).margin(0.05));
  CHECK(rig.loop.fanSpeed() == 1.0);
  CHECK(rig.loop.chillerHeat() > 0.1e6);
  CHECK(rig.loop.chillerHeat() < o.chiller_capacity);
  CHECK(rig.loop.heatRejected() + rig.loop.chillerHeat()
        == Approx(1.0e6 + rig.loop.pumpHydraulicPower()).epsilon(1e-4));
  // COP closed form at T_evap = set-point, T_cond = 32 + 12 degC, capped at 7.
  const double cop = std::min(7.0, 0.4 * T_set / (core::fromCelsius(44.0) - T_set));
  CHECK(rig.loop.chillerElectricPower() == Approx(rig.loop.chillerHeat() / cop).epsilon(1e-12));
  CHECK(rig.loop.chillerCondenserHeat()
        == Approx(rig.loop.chillerHeat() + rig.loop.chillerElectricPower()));
  // Without the chiller the same day leaves the supply above the set-point.
  o.chiller = false;
  Rig without(o);
  without.Q = rig.Q;
  without.run(3.0 * 3600.0, 2.0);
  CHECK(without.loop.supplyTemperature() > T_set + 1.0);
}

TEST_CASE("Losing half the dry-cooler fans without a chiller lets the supply rise", "[thermal]") {
  Rig rig(Options{});
  rig.Q = {0.9e6, 0.9e6};
  rig.run(2.0 * 3600.0, 2.0);
  const double T_set = core::fromCelsius(30.0);
  REQUIRE(rig.loop.supplyTemperature() == Approx(T_set).margin(0.05));
  rig.loop.setFanAvailability(0.5);
  rig.run(3.0 * 3600.0, 2.0);
  CHECK(rig.loop.supplyTemperature() > T_set + 2.0);
  CHECK(rig.loop.fanSpeed() == 1.0);
  CHECK(rig.loop.fanPower() == Approx(0.5 * 2 * 20e3));
  CHECK(std::abs(rig.loop.energyBalanceResidual()) <= 1e-9 * rig.loop.heatInput());
}

TEST_CASE("A 300 s step stays within the initial, ambient and source bounds, without overshoot",
          "[thermal]") {
  // Start hot (40 degC) against 20 degC air: the fans pull the loop down to the 30 degC set-point
  // while the CDUs heat it. 1 km plant pipes (70 m3 each way, ~25 min transit) make the transient
  // last for hours.
  Options o;
  o.plant_length = 1000.0;
  o.plant_diameter = 0.3;
  const double T_init = core::fromCelsius(40.0), T_amb = core::fromCelsius(o.T_dry_degC);
  const double T_set = core::fromCelsius(o.T_set_degC);
  Rig long_steps(o), short_steps(o);
  for (Rig* rig : {&long_steps, &short_steps}) {
    rig->loop.initialize(T_init, 1.0);
    rig->Q = {0.6e6, 0.6e6};
  }
  // Source bound: water entering a CDU at most at T_init leaves at most Q / C warmer; pump heat
  // adds P / C_plant.
  const FacilityLoop& loop = long_steps.loop;
  const double rise = std::max(0.6e6 / loop.cduCapacityRate(0), 0.6e6 / loop.cduCapacityRate(1));
  const double pump_rise =
      loop.pumpHydraulicPower() / (loop.cduCapacityRate(0) + loop.cduCapacityRate(1));
  const double upper = T_init + rise + pump_rise;
  double worst_difference = 0.0;
  bool returned_above_init = false;
  for (int k = 0; k < 48; ++k) {
    long_steps.run(300.0, 300.0);
    short_steps.run(300.0, 1.0);
    CHECK(loop.minTemperature() >= T_amb - 1e-9);
    CHECK(loop.maxTemperature() <= upper + 1e-9);
    // The plant holds the supply within the band the one-sub-step lag of the fan choice allows:
    // no oscillation, no undershoot.
    CHECK(loop.supplyTemperature() == Approx(T_set).margin(0.01));
    returned_above_init = returned_above_init || loop.returnTemperature() > T_init + 1.0;
    worst_difference = std::max(worst_difference, std::abs(loop.returnTemperature()
                                                           - short_steps.loop.returnTemperature()));
  }
  CHECK(returned_above_init);  // the heated front went round: the test saw a real transient
  // 300 s steps follow the 1 s solution through the transient.
  CHECK(worst_difference < 0.05);
  CHECK(loop.returnTemperature() == Approx(short_steps.loop.returnTemperature()).margin(0.005));
}

TEST_CASE("A cooling tower loop evaporates Q / h_fg plus drift and blow-down", "[thermal]") {
  Options o;
  o.tower = true;
  o.T_wet_degC = 18.0;
  Rig rig(o);
  rig.Q = {0.7e6, 0.7e6};
  rig.run(2.0 * 3600.0, 2.0);
  CHECK(rig.loop.supplyTemperature() == Approx(core::fromCelsius(30.0)).margin(0.05));
  const double Q = rig.loop.heatRejected();
  const double V = rig.loop.plantFlow();
  // h_fg = 2.4298 MJ/kg at 30 degC (steam tables); cycles 4; drift 0.005 % of circulation.
  const double evaporation = Q / 2.4298e6 / kRho;
  CHECK(rig.loop.waterUseRate()
        == Approx(evaporation * (1.0 + 1.0 / 3.0) + 5e-5 * V).epsilon(0.01));
  const double before = rig.loop.waterUsed();
  rig.run(600.0, 2.0);
  CHECK(rig.loop.waterUsed() - before == Approx(600.0 * rig.loop.waterUseRate()).epsilon(1e-3));
}

TEST_CASE("Facility loop input out of range throws with what is expected", "[thermal]") {
  Options o;
  std::vector<core::CduSpec> cdus{cdu("cdu1")};
  cdus[0].facility_valve.A_v = 0.0;
  CHECK_THROWS_WITH(FacilityLoop(facility(o), cdus, ambient(o)),
                    Catch::Contains("facility valve flow coefficient"));
  cdus[0] = cdu("cdu1");
  core::FacilityWaterSpec f = facility(o);
  f.loop.present = false;
  CHECK_THROWS_AS(FacilityLoop(f, cdus, ambient(o)), std::invalid_argument);
  f = facility(o);
  f.loop.pumps_duty = 3;
  CHECK_THROWS_AS(FacilityLoop(f, cdus, ambient(o)), std::invalid_argument);
  CHECK_THROWS_AS(FacilityLoop(facility(o), std::span<const core::CduSpec>{}, ambient(o)),
                  std::invalid_argument);
}

TEST_CASE("The ambient follows a periodic weather series as interpolation by search does",
          "[thermal]") {
  // A 10 h "year" of 11 points, uneven; the loop reads it with a cursor kept between sub-steps.
  // Independent reference: t mod period, the interval found by a scan, linear interpolation.
  Options o;
  core::AmbientSpec a = ambient(o);
  a.time = {0.0,     1800.0,  3600.0,  9000.0,  12000.0, 18000.0,
            19800.0, 25200.0, 30000.0, 34000.0, 36000.0};
  a.T_dry_bulb_series = {290.0, 292.5, 296.0, 301.0, 303.5, 299.0,
                         297.0, 294.0, 291.0, 289.5, 290.0};
  for (double T : a.T_dry_bulb_series)
    a.T_wet_bulb_series.push_back(T - 4.0 - 0.01 * (T - 290.0));
  a.period = 36000.0;
  const auto reference = [&](const std::vector<double>& y, double t) {
    const double at = t - a.period * std::floor(t / a.period);
    std::size_t i = 1;
    while (i + 1 < a.time.size() && a.time[i] <= at)
      ++i;
    const double w = (at - a.time[i - 1]) / (a.time[i] - a.time[i - 1]);
    return y[i - 1] + w * (y[i] - y[i - 1]);
  };
  std::vector<core::CduSpec> cdus{cdu("cdu1"), cdu("cdu2")};
  FacilityLoop loop(facility(o), cdus, a);
  loop.initialize(core::fromCelsius(30.0), 0.8);
  std::vector<double> Q{0.3e6, 0.3e6};
  double t = 0.0;
  int checked = 0;
  while (t < 2.6 * a.period) {  // across two wraps, with steps from 1 s to 1000 s
    const double h = 1.0 + std::fmod(t * 0.37, 997.0);
    t += h;
    loop.advance(t, h, Q);
    INFO("t = " << t);
    REQUIRE(loop.ambientDryBulb() == Approx(reference(a.T_dry_bulb_series, t)).epsilon(1e-12));
    REQUIRE(loop.ambientWetBulb() == Approx(reference(a.T_wet_bulb_series, t)).epsilon(1e-12));
    ++checked;
  }
  CHECK(checked > 100);
}

TEST_CASE("Plant hours: a hot day runs the chiller, a cool one cools freely, none may overshoot",
          "[thermal]") {
  const double run = 2.0 * 3600.0;
  Options hot;
  hot.chiller = true;
  hot.T_dry_degC = 32.0;  // above the 30 degC set-point: a dry cooler cannot reach it alone
  Rig chilled(hot);
  chilled.Q = {0.5e6, 0.5e6};
  chilled.run(run, 2.0);
  CHECK(chilled.loop.chillerTime() >= 0.95 * run);
  CHECK(chilled.loop.chillerTime() + chilled.loop.freeCoolingTime() <= run + 1e-9);
  CHECK(chilled.loop.aboveSetpointTime() <= 0.05 * run);

  Options cool = hot;
  cool.T_dry_degC = 15.0;
  // The load starts with the run: the fan speed follows the water a sub-step late, so the chiller
  // trims the first minutes. Settled, the dry cooler holds the set-point alone all the time.
  Rig cooled(cool);
  cooled.Q = {0.5e6, 0.5e6};
  cooled.run(run, 2.0);
  const double chiller_settling = cooled.loop.chillerTime();
  const double free_settling = cooled.loop.freeCoolingTime();
  CHECK(chiller_settling < 0.1 * run);
  cooled.run(run, 2.0);
  CHECK(cooled.loop.chillerTime() == chiller_settling);
  CHECK(cooled.loop.freeCoolingTime() - free_settling == Approx(run).epsilon(1e-12));
  CHECK(cooled.loop.aboveSetpointTime() == 0.0);

  Options no_chiller = hot;
  no_chiller.chiller = false;
  Rig warm(no_chiller);
  warm.Q = {0.5e6, 0.5e6};
  warm.run(run, 2.0);
  CHECK(warm.loop.chillerTime() == 0.0);
  CHECK(warm.loop.aboveSetpointTime() >= 0.9 * run);
  CHECK(warm.loop.freeCoolingTime() + warm.loop.aboveSetpointTime() <= run + 1e-9);
}
