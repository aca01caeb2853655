// Coolant properties against independent references: NREL SecondaryCoolantProps test values and the
// IAPWS-95 / IAPWS 2008 / IAPWS 2011 columns of the reference table (docs reference gb300_nvl72.md
// section 3, computed there with python3-iapws), plus physical trends.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "ValidationRecord.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/thermal/Coolant.hpp"

using racktwin::core::CoolantSpec;
using racktwin::core::fromCelsius;
using racktwin::thermal::Coolant;
using racktwin::thermal::CoolantProperties;

namespace {

struct Row {
  double T_degC;
  double rho;  // kg/m3
  double cp;   // J/(kg K)
  double mu;   // Pa s
  double k;    // W/(m K)
};

struct Tolerance {
  double rho;
  double cp;
  double mu;
  double k;
};

/// Worst relative error of each property over a table.
struct Worst {
  racktwin::test::WorstError rho, cp, mu, k;
};

void checkRow(const Coolant& coolant, const Row& row, const Tolerance& tol,
              Worst* worst = nullptr) {
  INFO(coolant.name() << " at " << row.T_degC << " degC");
  const CoolantProperties p = coolant.at(fromCelsius(row.T_degC));
  CHECK(p.rho == Approx(row.rho).epsilon(tol.rho));
  CHECK(p.cp == Approx(row.cp).epsilon(tol.cp));
  CHECK(p.mu == Approx(row.mu).epsilon(tol.mu));
  CHECK(p.k == Approx(row.k).epsilon(tol.k));
  if (worst == nullptr) return;
  worst->rho.add(p.rho, row.rho, true);
  worst->cp.add(p.cp, row.cp, true);
  worst->mu.add(p.mu, row.mu, true);
  worst->k.add(p.k, row.k, true);
}

/// One validation record per property of a table.
void recordTable(const char* component, const char* test_name, const char* reference,
                 const Worst& worst, const Tolerance& tol) {
  const std::pair<const char*, std::pair<double, double>> properties[] = {
      {"density", {tol.rho, worst.rho.value()}},
      {"specific heat capacity", {tol.cp, worst.cp.value()}},
      {"dynamic viscosity", {tol.mu, worst.mu.value()}},
      {"thermal conductivity", {tol.k, worst.k.value()}}};
  for (const auto& [property, numbers] : properties) {
    racktwin::test::recordValidation({component, std::string(property) + " from 20 to 60 degC",
                                      reference, "coolant-properties.md", test_name, "1", true,
                                      numbers.first, numbers.second});
  }
}

}  // namespace

TEST_CASE("propylene glycol matches the NREL SecondaryCoolantProps check values", "[coolant]") {
  // NREL SecondaryCoolantProps tests (Melinder 2010), as listed in gb300_nvl72.md section 3.
  const Tolerance tol{0.001, 0.003, 0.02, 0.01};
  checkRow(Coolant::propyleneGlycol(0.20), {5.0, 1019.1, 3945.9, 3.4941e-3, 0.47647}, tol);
  checkRow(Coolant::propyleneGlycol(0.20), {20.0, 1014.8, 3976.8, 2.0301e-3, 0.49221}, tol);
  checkRow(Coolant::propyleneGlycol(0.20), {40.0, 1006.4, 4019.0, 1.1693e-3, 0.51228}, tol);
  checkRow(Coolant::propyleneGlycol(0.40), {20.0, 1032.3, 3706.7, 4.3838e-3, 0.40026}, tol);
}

TEST_CASE("PG25 matches the reference table from 20 to 60 degC", "[coolant][validation]") {
  // gb300_nvl72.md section 3, PG25 columns (Melinder 2010 as coded in IBPSA
  // SecondaryFluid.PropyleneGlycolWater).
  const std::array<Row, 9> table{{
      {20, 1019.3, 3920, 2.445e-3, 0.468},
      {25, 1017.2, 3933, 2.071e-3, 0.472},
      {30, 1014.9, 3945, 1.776e-3, 0.477},
      {35, 1012.5, 3957, 1.542e-3, 0.481},
      {40, 1009.9, 3969, 1.353e-3, 0.486},
      {45, 1007.2, 3981, 1.199e-3, 0.490},
      {50, 1004.4, 3992, 1.073e-3, 0.495},
      {55, 1001.4, 4004, 0.967e-3, 0.499},
      {60, 998.4, 4016, 0.878e-3, 0.503},
  }};
  const Coolant pg25 = Coolant::propyleneGlycol(0.25);
  CHECK(pg25.name() == "PG25");
  const Tolerance tol{0.001, 0.003, 0.02, 0.01};
  Worst worst;
  for (const Row& row : table)
    checkRow(pg25, row, tol, &worst);
  recordTable("Coolant properties: PG25 (25 % propylene glycol)",
              "PG25 matches the reference table from 20 to 60 degC",
              "Melinder (2010) polynomials as coded in IBPSA's PropyleneGlycolWater", worst, tol);
}

TEST_CASE("water matches IAPWS from 20 to 60 degC", "[coolant][validation]") {
  // gb300_nvl72.md section 3, water columns at 3 bar: IAPWS-95 density and heat capacity,
  // IAPWS 2008 viscosity, IAPWS 2011 conductivity.
  const std::array<Row, 9> table{{
      {20, 998.3, 4183, 1.002e-3, 0.598},
      {25, 997.1, 4181, 0.890e-3, 0.607},
      {30, 995.7, 4179, 0.797e-3, 0.615},
      {35, 994.1, 4179, 0.719e-3, 0.622},
      {40, 992.3, 4179, 0.653e-3, 0.629},
      {45, 990.3, 4180, 0.596e-3, 0.635},
      {50, 988.1, 4181, 0.547e-3, 0.641},
      {55, 985.8, 4183, 0.504e-3, 0.646},
      {60, 983.3, 4185, 0.466e-3, 0.651},
  }};
  const Coolant water = Coolant::water();
  CHECK(water.name() == "water");
  const Tolerance tol{0.0005, 0.002, 0.01, 0.01};
  Worst worst;
  for (const Row& row : table)
    checkRow(water, row, tol, &worst);
  recordTable("Coolant properties: water", "water matches IAPWS from 20 to 60 degC",
              "IAPWS-95 (density, heat capacity), IAPWS 2008 (viscosity), IAPWS 2011 "
              "(conductivity), at 3 bar",
              worst, tol);
}

TEST_CASE("water is densest near 4 degC", "[coolant]") {
  // The density maximum of liquid water lies at 3.98 degC at 1 atm (IAPWS-95); a few bar move it
  // by hundredths of a kelvin.
  const Coolant water = Coolant::water();
  const double rho_max = water.density(fromCelsius(3.98));
  CHECK(rho_max > water.density(fromCelsius(3.0)));
  CHECK(rho_max > water.density(fromCelsius(5.0)));
  CHECK(water.density(fromCelsius(1.0)) < water.density(fromCelsius(3.0)));
  CHECK(water.density(fromCelsius(7.0)) < water.density(fromCelsius(5.0)));
}

TEST_CASE("viscosity falls with temperature over the valid range", "[coolant]") {
  for (const Coolant& coolant :
       {Coolant::water(), Coolant::propyleneGlycol(0.25), Coolant::propyleneGlycol(0.5)}) {
    INFO(coolant.name());
    const double T_low = std::max(coolant.freezingPoint() + 1.0, fromCelsius(0.5));
    double previous = coolant.viscosity(T_low);
    for (double T = T_low + 1.0; T <= fromCelsius(100.0); T += 1.0) {
      const double mu = coolant.viscosity(T);
      REQUIRE(mu < previous);
      previous = mu;
    }
  }
}

TEST_CASE("glycol lowers heat capacity and conductivity, raises viscosity", "[coolant]") {
  // Glycol-water mixtures have less cp and k and more mu than water at the same temperature
  // (ASHRAE Handbook Fundamentals, chapter on secondary coolants).
  const Coolant water = Coolant::water();
  const Coolant pg25 = Coolant::propyleneGlycol(0.25);
  for (double T_degC = 5.0; T_degC <= 90.0; T_degC += 5.0) {
    INFO(T_degC << " degC");
    const double T = fromCelsius(T_degC);
    CHECK(pg25.specificHeat(T) < water.specificHeat(T));
    CHECK(pg25.conductivity(T) < water.conductivity(T));
    CHECK(pg25.viscosity(T) > water.viscosity(T));
  }
}

TEST_CASE("the single-property accessors agree with at()", "[coolant]") {
  for (const Coolant& coolant : {Coolant::water(), Coolant::propyleneGlycol(0.3)}) {
    const double T = fromCelsius(37.0);
    const CoolantProperties p = coolant.at(T);
    CHECK(coolant.density(T) == Approx(p.rho).epsilon(1e-14));
    CHECK(coolant.specificHeat(T) == Approx(p.cp).epsilon(1e-14));
    CHECK(coolant.viscosity(T) == Approx(p.mu).epsilon(1e-14));
    CHECK(coolant.conductivity(T) == Approx(p.k).epsilon(1e-14));
  }
}

TEST_CASE("freezing points", "[coolant]") {
  CHECK(Coolant::water().freezingPoint() == Approx(273.15).margin(1e-12));
  // Melinder (2010) via gb300_nvl72.md section 3: -7.2 degC at 20 %, -12.8 degC at 30 %,
  // about -10 degC for PG25 (interpolated there).
  CHECK(Coolant::propyleneGlycol(0.20).freezingPoint() == Approx(fromCelsius(-7.2)).margin(0.1));
  CHECK(Coolant::propyleneGlycol(0.30).freezingPoint() == Approx(fromCelsius(-12.8)).margin(0.1));
  CHECK(Coolant::propyleneGlycol(0.25).freezingPoint() == Approx(fromCelsius(-10.0)).margin(0.5));
  // No glycol, no depression: the mixture polynomial must land on water's freezing point.
  CHECK(Coolant::propyleneGlycol(0.0).freezingPoint() == Approx(273.15).margin(0.1));
  // More glycol freezes lower.
  double previous = Coolant::propyleneGlycol(0.0).freezingPoint();
  for (int percent = 5; percent <= 60; percent += 5) {
    const double T_f = Coolant::propyleneGlycol(percent / 100.0).freezingPoint();
    CHECK(T_f < previous);
    previous = T_f;
  }
}

TEST_CASE("invalid glycol mass fractions throw", "[coolant]") {
  CHECK_THROWS_AS(Coolant::propyleneGlycol(-0.01), std::invalid_argument);
  CHECK_THROWS_AS(Coolant::propyleneGlycol(0.61), std::invalid_argument);
  CHECK_THROWS_AS(Coolant::propyleneGlycol(std::numeric_limits<double>::quiet_NaN()),
                  std::invalid_argument);
  CHECK_NOTHROW(Coolant::propyleneGlycol(0.0));
  CHECK_NOTHROW(Coolant::propyleneGlycol(0.6));
}

TEST_CASE("coolants from a scenario spec", "[coolant]") {
  const double T = fromCelsius(30.0);
  const Coolant water = Coolant::fromSpec(CoolantSpec{"water", 0.0});
  CHECK(water.name() == "water");
  CHECK(water.density(T) == Approx(Coolant::water().density(T)).epsilon(1e-15));

  // The name alone, the fraction alone and both in agreement give the same fluid.
  for (const CoolantSpec& spec :
       {CoolantSpec{"PG25", 0.0}, CoolantSpec{"pg", 0.25}, CoolantSpec{"PG25", 0.25}}) {
    INFO(spec.name << " " << spec.glycol_mass_fraction);
    const Coolant pg = Coolant::fromSpec(spec);
    CHECK(pg.name() == "PG25");
    CHECK(pg.glycolMassFraction() == Approx(0.25).margin(1e-15));
    CHECK(pg.specificHeat(T)
          == Approx(Coolant::propyleneGlycol(0.25).specificHeat(T)).epsilon(1e-15));
  }

  CHECK_THROWS_AS(Coolant::fromSpec(CoolantSpec{"water", 0.25}), std::invalid_argument);
  CHECK_THROWS_AS(Coolant::fromSpec(CoolantSpec{"PG25", 0.30}), std::invalid_argument);
  CHECK_THROWS_AS(Coolant::fromSpec(CoolantSpec{"PG75", 0.0}), std::invalid_argument);
  CHECK_THROWS_AS(Coolant::fromSpec(CoolantSpec{"PGx", 0.0}), std::invalid_argument);
  CHECK_THROWS_AS(Coolant::fromSpec(CoolantSpec{"EG30", 0.3}), std::invalid_argument);
  CHECK_THROWS_AS(Coolant::fromSpec(CoolantSpec{"", 0.0}), std::invalid_argument);
}
