// parseQuantity against the exact definitions of the units (SI Brochure, 9th ed., and NIST SP 811
// Appendix B for the inch-pound units), the round trip through the report helpers, and every way
// a quantity can be written wrong.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "racktwin/core/DisplayUnits.hpp"
#include "racktwin/core/Units.hpp"

namespace {

using racktwin::core::acceptedUnits;
using racktwin::core::Dimension;
using racktwin::core::dimensionName;
using racktwin::core::parseQuantity;

constexpr double kRel = 1e-12;

double q(const char* text, Dimension d) {
  return parseQuantity(text, d);
}

// Exact definitions, written out independently of Units.cpp.
constexpr double kPound_kg = 0.45359237;      // international pound (1959), exact
constexpr double kStandardGravity = 9.80665;  // m/s2, exact (CGPM 1901)
constexpr double kInch_m = 0.0254;            // exact
constexpr double kGallonDef_m3 = 231.0 * kInch_m * kInch_m * kInch_m;  // 231 cubic inches, exact

}  // namespace

TEST_CASE("pressure units follow their exact definitions", "[units]") {
  // 1 psi = 1 lbf/in2 = 0.45359237 kg * 9.80665 m/s2 / (0.0254 m)^2 = 6894.757293168 Pa.
  const double psi = kPound_kg * kStandardGravity / (kInch_m * kInch_m);
  CHECK(psi == Approx(6894.757293168).epsilon(kRel));
  CHECK(q("1 psi", Dimension::Pressure) == Approx(psi).epsilon(kRel));
  CHECK(q("40 psi", Dimension::Pressure) == Approx(40.0 * psi).epsilon(kRel));
  CHECK(q("1 bar", Dimension::Pressure) == Approx(1.0e5).epsilon(kRel));
  CHECK(q("1.2 bar", Dimension::Pressure) == Approx(1.2e5).epsilon(kRel));
  CHECK(q("250 mbar", Dimension::Pressure) == Approx(2.5e4).epsilon(kRel));
  CHECK(q("60 kPa", Dimension::Pressure) == Approx(6.0e4).epsilon(kRel));
  CHECK(q("0.5 MPa", Dimension::Pressure) == Approx(5.0e5).epsilon(kRel));
  CHECK(q("101325 Pa", Dimension::Pressure) == Approx(101325.0).epsilon(kRel));
}

TEST_CASE("temperature scales follow their definitions", "[units]") {
  // T/K = t/degC + 273.15; t/degF = 1.8 t/degC + 32.
  CHECK(q("32 degC", Dimension::Temperature) == Approx(305.15).epsilon(kRel));
  CHECK(q("32 °C", Dimension::Temperature) == Approx(305.15).epsilon(kRel));
  CHECK(q("0 degC", Dimension::Temperature) == Approx(273.15).epsilon(kRel));
  CHECK(q("300 K", Dimension::Temperature) == Approx(300.0).epsilon(kRel));
  CHECK(q("32 degF", Dimension::Temperature) == Approx(273.15).epsilon(kRel));
  CHECK(q("212 degF", Dimension::Temperature) == Approx(373.15).epsilon(kRel));
  CHECK(q("-40 degF", Dimension::Temperature) == Approx(233.15).epsilon(kRel));  // -40 degC
  CHECK(q("-40 °F", Dimension::Temperature) == Approx(233.15).epsilon(kRel));
  CHECK(q("-273.15 degC", Dimension::Temperature) == Approx(0.0).margin(1e-12));
  // Differences have no offset: 1 degF step = 5/9 K.
  CHECK(q("4 K", Dimension::TemperatureDifference) == Approx(4.0).epsilon(kRel));
  CHECK(q("4 delta_degC", Dimension::TemperatureDifference) == Approx(4.0).epsilon(kRel));
  CHECK(q("9 delta_degF", Dimension::TemperatureDifference) == Approx(5.0).epsilon(kRel));
}

TEST_CASE("volume and flow units follow their exact definitions", "[units]") {
  CHECK(kGallonDef_m3 == Approx(3.785411784e-3).epsilon(kRel));  // NIST SP 811 B.8
  CHECK(q("1 gal", Dimension::Volume) == Approx(kGallonDef_m3).epsilon(kRel));
  CHECK(q("1 L", Dimension::Volume) == Approx(1.0e-3).epsilon(kRel));
  CHECK(q("30 mL", Dimension::Volume) == Approx(3.0e-5).epsilon(kRel));
  CHECK(q("2 m3", Dimension::Volume) == Approx(2.0).epsilon(kRel));
  CHECK(q("60 L/min", Dimension::VolumeFlow) == Approx(1.0e-3).epsilon(kRel));
  CHECK(q("450 L/min", Dimension::VolumeFlow) == Approx(0.0075).epsilon(kRel));
  CHECK(q("1 L/s", Dimension::VolumeFlow) == Approx(1.0e-3).epsilon(kRel));
  CHECK(q("3.6 m3/h", Dimension::VolumeFlow) == Approx(1.0e-3).epsilon(kRel));
  CHECK(q("0.25 m3/s", Dimension::VolumeFlow) == Approx(0.25).epsilon(kRel));
  CHECK(q("1 GPM", Dimension::VolumeFlow) == Approx(kGallonDef_m3 / 60.0).epsilon(kRel));
  CHECK(q("100 gpm", Dimension::VolumeFlow) == Approx(100.0 * kGallonDef_m3 / 60.0).epsilon(kRel));
  CHECK(q("3600 kg/h", Dimension::MassFlow) == Approx(1.0).epsilon(kRel));
  CHECK(q("20.6 kg/s", Dimension::MassFlow) == Approx(20.6).epsilon(kRel));
}

TEST_CASE("time, length, power, energy and thermal units", "[units]") {
  CHECK(q("30 min", Dimension::Time) == Approx(1800.0).epsilon(kRel));
  CHECK(q("2 h", Dimension::Time) == Approx(7200.0).epsilon(kRel));
  CHECK(q("250 ms", Dimension::Time) == Approx(0.25).epsilon(kRel));
  CHECK(q("3600 s", Dimension::Time) == Approx(3600.0).epsilon(kRel));
  CHECK(q("2 in", Dimension::Length) == Approx(0.0508).epsilon(kRel));
  CHECK(q("1 ft", Dimension::Length) == Approx(0.3048).epsilon(kRel));  // 12 in, exact
  CHECK(q("50 mm", Dimension::Length) == Approx(0.05).epsilon(kRel));
  CHECK(q("8.9 cm", Dimension::Length) == Approx(0.089).epsilon(kRel));
  CHECK(q("142 kW", Dimension::Power) == Approx(142.0e3).epsilon(kRel));
  CHECK(q("1.35 MW", Dimension::Power) == Approx(1.35e6).epsilon(kRel));
  CHECK(q("1400 W", Dimension::Power) == Approx(1400.0).epsilon(kRel));
  CHECK(q("1 kWh", Dimension::Energy) == Approx(3.6e6).epsilon(kRel));  // 1000 W * 3600 s
  CHECK(q("1 Wh", Dimension::Energy) == Approx(3600.0).epsilon(kRel));
  CHECK(q("2 MWh", Dimension::Energy) == Approx(7.2e9).epsilon(kRel));
  CHECK(q("65 J", Dimension::Energy) == Approx(65.0).epsilon(kRel));
  CHECK(q("4.7 kJ", Dimension::Energy) == Approx(4700.0).epsilon(kRel));
  CHECK(q("1 MJ", Dimension::Energy) == Approx(1.0e6).epsilon(kRel));
  CHECK(q("0.005 K/W", Dimension::ThermalResistance) == Approx(0.005).epsilon(kRel));
  CHECK(q("600 J/K", Dimension::HeatCapacity) == Approx(600.0).epsilon(kRel));
  CHECK(q("3 kJ/K", Dimension::HeatCapacity) == Approx(3000.0).epsilon(kRel));
  CHECK(q("2 MJ/K", Dimension::HeatCapacity) == Approx(2.0e6).epsilon(kRel));
  CHECK(q("2000 W/K", Dimension::ThermalConductance) == Approx(2000.0).epsilon(kRel));
  CHECK(q("2 kW/K", Dimension::ThermalConductance) == Approx(2000.0).epsilon(kRel));
  CHECK(q("415 V", Dimension::Voltage) == Approx(415.0).epsilon(kRel));
  CHECK(q("34.5 kV", Dimension::Voltage) == Approx(34500.0).epsilon(kRel));
}

TEST_CASE("dimensionless values are bare numbers or percent", "[units]") {
  CHECK(q("0.95", Dimension::Dimensionless) == Approx(0.95).epsilon(kRel));
  CHECK(q("95 %", Dimension::Dimensionless) == Approx(0.95).epsilon(kRel));
  CHECK(q("95%", Dimension::Dimensionless) == Approx(0.95).epsilon(kRel));
  CHECK(q("1.85", Dimension::Dimensionless) == Approx(1.85).epsilon(kRel));
  CHECK(q("1.398728e-7", Dimension::Dimensionless) == Approx(1.398728e-7).epsilon(kRel));
}

TEST_CASE("numbers may have a sign, an exponent and spaces around the unit", "[units]") {
  CHECK(q("32degC", Dimension::Temperature) == Approx(305.15).epsilon(kRel));
  CHECK(q("  32   degC  ", Dimension::Temperature) == Approx(305.15).epsilon(kRel));
  CHECK(q("\t1.5e2 kW", Dimension::Power) == Approx(150.0e3).epsilon(kRel));
  CHECK(q("+5 K", Dimension::TemperatureDifference) == Approx(5.0).epsilon(kRel));
  CHECK(q("-5 L/min", Dimension::VolumeFlow) == Approx(-5.0 / 60000.0).epsilon(kRel));
  CHECK(q(".5 bar", Dimension::Pressure) == Approx(5.0e4).epsilon(kRel));
  CHECK(q("2E3 W", Dimension::Power) == Approx(2000.0).epsilon(kRel));
}

TEST_CASE("report helpers invert the parser", "[units]") {
  using namespace racktwin::core;
  CHECK(toCelsius(q("36 degC", Dimension::Temperature)) == Approx(36.0).epsilon(kRel));
  CHECK(fromCelsius(toCelsius(318.15)) == Approx(318.15).epsilon(kRel));
  CHECK(toLitrePerMinute(q("190 L/min", Dimension::VolumeFlow)) == Approx(190.0).epsilon(kRel));
  CHECK(q("2.76 bar", Dimension::Pressure) / kBar_Pa == Approx(2.76).epsilon(kRel));
  CHECK(q("40 psi", Dimension::Pressure) / kPsi_Pa == Approx(40.0).epsilon(kRel));
  CHECK(q("1 GPM", Dimension::VolumeFlow) * 60.0 / kUsGallon_m3 == Approx(1.0).epsilon(kRel));
}

TEST_CASE("every unit that a message lists is accepted", "[units]") {
  for (Dimension d : racktwin::core::allDimensions()) {
    INFO("dimension " << dimensionName(d));
    CHECK_FALSE(dimensionName(d).empty());
    const std::string units(acceptedUnits(d));
    REQUIRE_FALSE(units.empty());
    std::size_t begin = 0;
    int count = 0;
    while (begin <= units.size()) {
      const std::size_t end = std::min(units.find(", ", begin), units.size());
      const std::string unit = units.substr(begin, end - begin);
      begin = end + 2;
      if (unit == "a bare number") continue;
      INFO("unit '" << unit << "'");
      CHECK_NOTHROW(parseQuantity("1 " + unit, d));
      ++count;
    }
    CHECK(count >= 1);
  }
}

TEST_CASE("the message says which dimension and units were expected", "[units]") {
  CHECK_THROWS_WITH(q("32", Dimension::Temperature),
                    "expected a temperature in K, degC, °C, degF, °F, got '32'");
  CHECK_THROWS_WITH(q("5 L/min", Dimension::Pressure),
                    "expected a pressure in Pa, kPa, MPa, bar, mbar, psi, got '5 L/min'");
  CHECK_THROWS_WITH(q("3 kW", Dimension::Energy),
                    "expected an energy in J, kJ, MJ, Wh, kWh, MWh, got '3 kW'");
  CHECK_THROWS_WITH(q("5 K", Dimension::Dimensionless),
                    "expected a plain number or a percentage (0.95 or 95 %), got '5 K'");
}

TEST_CASE("malformed quantities are rejected with std::invalid_argument", "[units]") {
  const std::vector<std::pair<const char*, Dimension>> bad = {
      {"", Dimension::Dimensionless},
      {"   ", Dimension::Power},
      {"kW", Dimension::Power},
      {"abc", Dimension::Dimensionless},
      {"nan", Dimension::Dimensionless},
      {"NaN K", Dimension::Temperature},
      {"inf W", Dimension::Power},
      {"-inf degC", Dimension::Temperature},
      {"infinity", Dimension::Dimensionless},
      {"1e400 W", Dimension::Power},     // overflows a double
      {"1e308 MW", Dimension::Power},    // finite number, infinite in SI
      {"1,5 bar", Dimension::Pressure},  // decimal comma
      {"1.2.3 bar", Dimension::Pressure},
      {"0x10 W", Dimension::Power},
      {"5 kw", Dimension::Power},  // unit symbols are case-sensitive (mW is not MW)
      {"5 furlongs", Dimension::Length},
      {"5 %%", Dimension::Dimensionless},
      {"5 K K", Dimension::Temperature},
      {"--5 K", Dimension::TemperatureDifference},
      {"+ 5 K", Dimension::TemperatureDifference},
      {"32 C", Dimension::Temperature},  // 'C' is the coulomb, not a temperature
      {"300 K", Dimension::Power},
      {"36 degC", Dimension::TemperatureDifference},  // an absolute scale is not a difference
      {"4 delta_degC", Dimension::Temperature},       // nor the other way round
      {"1 L/min", Dimension::MassFlow},
      {"2 m3", Dimension::VolumeFlow},
  };
  for (const auto& [text, d] : bad) {
    INFO("'" << text << "' as a " << dimensionName(d));
    CHECK_THROWS_AS(parseQuantity(text, d), std::invalid_argument);
  }
}

TEST_CASE("a temperature below absolute zero is rejected", "[units]") {
  CHECK_THROWS_WITH(q("-300 degC", Dimension::Temperature),
                    "expected a temperature at or above absolute zero (0 K), got '-300 degC'");
  CHECK_THROWS_AS(q("-1 K", Dimension::Temperature), std::invalid_argument);
  CHECK_THROWS_AS(q("-500 degF", Dimension::Temperature), std::invalid_argument);
  // A negative difference is fine: the caller decides whether the sign makes sense.
  CHECK(q("-3 K", Dimension::TemperatureDifference) == Approx(-3.0).epsilon(kRel));
}

TEST_CASE("display units: one rule for reports, charts and the scene legend", "[units]") {
  using racktwin::core::displayUnitFor;
  using racktwin::core::UnitSystem;
  const auto shown = [](const racktwin::core::DisplayUnit& u, double si) {
    return si * u.scale + u.offset;
  };
  const auto temperature = displayUnitFor("K", UnitSystem::SI);
  CHECK(temperature.unit == "degC");
  CHECK(shown(temperature, 373.15) == Approx(100.0).margin(1e-12));
  const auto fahrenheit = displayUnitFor("K", UnitSystem::US);
  CHECK(fahrenheit.unit == "degF");
  CHECK(shown(fahrenheit, 373.15) == Approx(212.0).margin(1e-9));  // water boils
  CHECK(shown(fahrenheit, 233.15) == Approx(-40.0).margin(1e-9));  // the scales cross
  // Powers in W, kW or MW by magnitude: never 1.2e+05 W.
  CHECK(displayUnitFor("W", UnitSystem::SI, 500.0).unit == "W");
  CHECK(displayUnitFor("W", UnitSystem::SI, 1.2e5).unit == "kW");
  CHECK(displayUnitFor("W", UnitSystem::SI, 1.2e7).unit == "MW");
  CHECK(shown(displayUnitFor("W", UnitSystem::SI, 1.2e7), 1.2e7) == Approx(12.0));
  // US heat in tons of refrigeration (12,000 Btu/h = 3,516.85 W).
  const auto tons = displayUnitFor("W", UnitSystem::US, 1e5, true);
  CHECK(tons.unit == "ton");
  CHECK(shown(tons, 3516.8528420667) == Approx(1.0).epsilon(1e-9));
  CHECK(displayUnitFor("W", UnitSystem::US, 1e5, false).unit == "kW");  // electrical power
  CHECK(displayUnitFor("J", UnitSystem::SI, 3.6e9).unit == "MWh");
  CHECK(shown(displayUnitFor("m3/s", UnitSystem::SI), 1e-3 / 60.0) == Approx(1.0));  // L/min
  CHECK(shown(displayUnitFor("m3/s", UnitSystem::US), 3.785411784e-3 / 60.0)
        == Approx(1.0));                                                                 // gpm
  CHECK(shown(displayUnitFor("Pa", UnitSystem::US), 6894.757293168361) == Approx(1.0));  // psi
  CHECK(displayUnitFor("Hz", UnitSystem::SI).unit == "Hz");
}

// The US customary display (racktwin run --units us, export-csv --units us) against the unit
// definitions written out here: NIST SP 811 (2008), Appendix B, and ASHRAE's ton of refrigeration
// (12,000 Btu/h with the International Table Btu, 1055.05585262 J exactly).
TEST_CASE("US customary display units follow their definitions", "[units]") {
  using racktwin::core::usCustomaryFromMetric;
  using racktwin::core::usCustomaryFromSi;
  auto shown = [](const racktwin::core::DisplayUnit& u, double v) {
    return v * u.scale + u.offset;
  };
  const double gpm_m3s = kGallonDef_m3 / 60.0;  // 6.30901964e-5 m3/s (NIST: 6.309020 E-05)
  const double btu_J = 1055.05585262;
  const double ton_W = 12000.0 * btu_J / 3600.0;  // 3516.8528 W (NIST: 3.516853 E+03)
  const double psi_Pa = kPound_kg * kStandardGravity / (kInch_m * kInch_m);

  SECTION("from SI, as result datasets carry their units") {
    const auto degF = usCustomaryFromSi("K", false).value();
    CHECK(degF.unit == "degF");
    CHECK(shown(degF, 273.15) == Approx(32.0).epsilon(kRel));   // ice point
    CHECK(shown(degF, 373.15) == Approx(212.0).epsilon(kRel));  // steam point
    CHECK(shown(degF, 0.0) == Approx(-459.67).epsilon(kRel));   // absolute zero, degR = 0
    const auto gpm = usCustomaryFromSi("m3/s", false).value();
    CHECK(gpm.unit == "gpm");
    CHECK(shown(gpm, gpm_m3s) == Approx(1.0).epsilon(kRel));
    CHECK(shown(usCustomaryFromSi("Pa", false).value(), psi_Pa) == Approx(1.0).epsilon(kRel));
    CHECK(shown(usCustomaryFromSi("m3", false).value(), kGallonDef_m3)
          == Approx(1.0).epsilon(kRel));
    CHECK(shown(usCustomaryFromSi("m", false).value(), 12 * kInch_m) == Approx(1.0).epsilon(kRel));
    CHECK(shown(usCustomaryFromSi("kg/s", false).value(), kPound_kg / 60.0)
          == Approx(1.0).epsilon(kRel));  // lb/min
    // Heat flows in Btu/h and heat in ton-hours; electrical power and energy stay kW and kWh.
    const auto btuh = usCustomaryFromSi("W", true).value();
    CHECK(btuh.unit == "Btu/h");
    CHECK(shown(btuh, btu_J / 3600.0) == Approx(1.0).epsilon(kRel));
    CHECK(shown(btuh, ton_W) == Approx(12000.0).epsilon(kRel));
    CHECK(usCustomaryFromSi("W", false).value().unit == "kW");
    CHECK(shown(usCustomaryFromSi("W", false).value(), 1500.0) == Approx(1.5).epsilon(kRel));
    const auto tonh = usCustomaryFromSi("J", true).value();
    CHECK(tonh.unit == "ton-h");
    CHECK(shown(tonh, ton_W * 3600.0) == Approx(1.0).epsilon(kRel));
    CHECK(shown(usCustomaryFromSi("J", false).value(), 3.6e6) == Approx(1.0).epsilon(kRel));
    // Units with no US customary form are shown as they are.
    for (const char* unit : {"s", "Hz", "V", "A", "", "1"})
      CHECK_FALSE(usCustomaryFromSi(unit, false).has_value());
  }
  SECTION("from the summary's metric display units") {
    CHECK(shown(usCustomaryFromMetric("degC", false).value(), 100.0)
          == Approx(212.0).epsilon(kRel));
    CHECK(shown(usCustomaryFromMetric("degC", false).value(), -40.0)
          == Approx(-40.0).epsilon(kRel));
    const auto delta = usCustomaryFromMetric("K", false).value();  // a temperature difference
    CHECK(delta.unit == "delta_degF");
    CHECK(shown(delta, 10.0) == Approx(18.0).epsilon(kRel));
    CHECK(shown(usCustomaryFromMetric("kPa", false).value(), psi_Pa / 1e3)
          == Approx(1.0).epsilon(kRel));
    CHECK(shown(usCustomaryFromMetric("L/min", false).value(), gpm_m3s * 60e3)
          == Approx(1.0).epsilon(kRel));
    CHECK(shown(usCustomaryFromMetric("L", false).value(), kGallonDef_m3 * 1e3)
          == Approx(1.0).epsilon(kRel));
    CHECK(shown(usCustomaryFromMetric("kW", true).value(), ton_W / 1e3)
          == Approx(1.0).epsilon(kRel));
    CHECK(shown(usCustomaryFromMetric("kWh", true).value(), ton_W / 1e3)
          == Approx(1.0).epsilon(kRel));
    // Electrical kW and kWh are kept.
    CHECK_FALSE(usCustomaryFromMetric("kW", false).has_value());
    CHECK_FALSE(usCustomaryFromMetric("kWh", false).has_value());
  }
}
