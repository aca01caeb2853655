// The air side's chilled-water plant against EnergyPlus's electric EIR chiller (the "DOE-2
// Centrifugal/5.50COP" reference chiller of datasets/Chillers.idf: COP 5.5 at 6.67 degC leaving
// chilled water and 29.4 degC entering condenser water, EIR(PLR) = 0.222903 + 0.313387 PLR +
// 0.463710 PLR^2), the Carnot limit, the economiser's share from its temperatures, and the
// conservation of the heat the tower rejects.
#include <catch2/catch.hpp>

#include <cmath>

#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/thermal/ChilledWaterPlant.hpp"
#include "racktwin/thermal/HeatRejection.hpp"

using racktwin::thermal::ChilledWaterPlant;

namespace {

constexpr double kC = 273.15;

racktwin::core::AirPlantSpec plant(double T_chw_supply, bool economiser) {
  racktwin::core::AirPlantSpec p;
  p.present = true;
  p.T_chw_supply = kC + T_chw_supply;
  p.dT_chw = 6.0;
  p.chw_pump_dp = 250e3;
  p.chw_pump_efficiency = 0.7;
  p.chillers = 3;
  p.chiller_Q_flow_nominal = 1e6;
  p.chiller_COP_reference = 5.5;
  p.T_chw_reference = kC + 6.67;
  p.T_cw_reference = kC + 29.4;
  p.chiller_COP_max = 12.0;
  p.eir_plr[0] = 0.222903;
  p.eir_plr[1] = 0.313387;
  p.eir_plr[2] = 0.463710;
  p.chiller_PLR_min = 0.1;
  p.economiser = economiser;
  p.economiser_approach = 1.5;
  p.tower_approach = 5.6;
  p.tower_fan_power_fraction = 0.013;
  p.cw_pump_power_fraction = 0.01;
  p.cycles_of_concentration = 4.0;
  return p;
}

racktwin::core::AmbientSpec wetBulb(double T) {
  racktwin::core::AmbientSpec a;
  a.T_dry_bulb = kC + T + 8.0;
  a.T_wet_bulb = kC + T;
  return a;
}

}  // namespace

TEST_CASE("Chillers follow EnergyPlus's reference chiller at its reference point",
          "[thermal][air-plant]") {
  // Tower water at 23.8 + 5.6 = 29.4 degC: the reference entering condenser water.
  ChilledWaterPlant p(plant(6.67, false), wetBulb(23.8));
  // A load that, with the chilled-water pump's heat, makes one chiller's capacity.
  p.advance(1.0, 1.0, 1e6);
  const double load = p.chillerHeat();
  p.advance(2.0, 1.0, 1e6 * 1e6 / load);
  REQUIRE(p.chillersRunning() == 1.0);
  CHECK(p.chillerHeat() == Approx(1e6).epsilon(1e-9));
  CHECK(p.chillerPower() == Approx(1e6 / 5.5).epsilon(1e-9));  // EIR(1) = 1
  // Half load on one chiller: EIR(0.5) = 0.495524 of full-load input for half the output.
  p.advance(3.0, 1.0, 0.5e6 - p.chilledWaterPumpPower() * 0.5);
  REQUIRE(p.chillersRunning() == 1.0);
  const double PLR = p.chillerHeat() / 1e6;
  CHECK(p.chillerPower()
        == Approx(1e6 * (0.222903 + 0.313387 * PLR + 0.463710 * PLR * PLR) / 5.5).epsilon(1e-9));
  CHECK(p.chillerPower() == Approx(1e6 * 0.495524 / 5.5).epsilon(2e-3));
  // 1.5 MW: two chillers at three quarters each.
  p.advance(4.0, 1.0, 1.5e6);
  CHECK(p.chillersRunning() == 2.0);
}

TEST_CASE("Chiller COP stays below Carnot at every lift and the tower rejects load plus work",
          "[thermal][air-plant]") {
  for (double T_wb = 10.0; T_wb <= 30.0; T_wb += 2.0) {
    INFO("wet bulb " << T_wb);
    ChilledWaterPlant p(plant(14.0, false), wetBulb(T_wb));
    p.advance(1.0, 1.0, 1.2e6);
    const double T_e = kC + 14.0, T_c = kC + T_wb + 5.6;
    if (T_c > T_e) {
      CHECK(p.fullLoadCop(T_e, T_c) < T_e / (T_c - T_e));
      CHECK(p.fullLoadCop(T_e, T_c) > 0.0);
    }
    // First law: the tower rejects the coils' heat, the pump's heat and the chillers' work.
    CHECK(p.heatRejected()
          == Approx(1.2e6 + p.chilledWaterPumpPower() + p.chillerPower()).epsilon(1e-12));
    // Evaporation carries it (h_fg at 30 degC) and blow-down adds 1/(cycles - 1).
    const double evaporation =
        p.heatRejected() / (racktwin::thermal::kWaterLatentHeat_J_per_kg * 998.6);
    CHECK(p.waterRate() == Approx(evaporation * 4.0 / 3.0).epsilon(2e-3));
  }
}

TEST_CASE("The economiser carries the share its temperatures allow", "[thermal][air-plant]") {
  // Chilled water 18 degC supply, 24 degC return; economiser water = wet bulb + 5.6 + 1.5.
  SECTION("cold: all of it, the chillers off") {
    ChilledWaterPlant p(plant(18.0, true), wetBulb(5.0));
    p.advance(1.0, 1.0, 1e6);
    CHECK(p.chillerPower() == 0.0);
    CHECK(p.economiserHeat() == Approx(1e6 + p.chilledWaterPumpPower()).epsilon(1e-12));
  }
  SECTION("mild: the share (24 - (15 + 7.1)) / 6") {
    ChilledWaterPlant p(plant(18.0, true), wetBulb(15.0));
    p.advance(1.0, 1.0, 1e6);
    CHECK(p.economiserHeat()
          == Approx((1e6 + p.chilledWaterPumpPower()) * (24.0 - 22.1) / 6.0).epsilon(1e-9));
    CHECK(p.chillerHeat()
          == Approx(1e6 + p.chilledWaterPumpPower() - p.economiserHeat()).epsilon(1e-12));
  }
  SECTION("warm: none") {
    ChilledWaterPlant p(plant(18.0, true), wetBulb(25.0));
    p.advance(1.0, 1.0, 1e6);
    CHECK(p.economiserHeat() == 0.0);
  }
  SECTION("no economiser: none at any weather") {
    ChilledWaterPlant p(plant(18.0, false), wetBulb(5.0));
    p.advance(1.0, 1.0, 1e6);
    CHECK(p.economiserHeat() == 0.0);
    CHECK(p.chillerPower() > 0.0);
  }
}

TEST_CASE("Load beyond the chillers' capacity is counted as unmet", "[thermal][air-plant]") {
  ChilledWaterPlant p(plant(18.0, false), wetBulb(20.0));
  p.advance(10.0, 10.0, 2.5e6);
  CHECK(p.unmetTime() == 0.0);
  p.advance(20.0, 10.0, 3.5e6);
  CHECK(p.unmetTime() == 10.0);
  CHECK(p.chillerHeat() == Approx(3e6));
}
