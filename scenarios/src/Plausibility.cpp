#include "Plausibility.hpp"

#include <array>
#include <cmath>
#include <cstdio>

namespace racktwin::scenarios::detail {
namespace {

thread_local LoadSession* g_current = nullptr;

constexpr double C(double T_degC) {
  return core::fromCelsius(T_degC);
}

std::string number(double value) {
  std::array<char, 32> buffer{};
  const int n = std::snprintf(buffer.data(), buffer.size(), "%.6g", value);
  return n < 0 ? std::string("?") : std::string(buffer.data());
}

bool isFractionKind(Kind k) {
  return k == Kind::PumpSpeed || k == Kind::PumpEfficiency || k == Kind::ConverterEfficiency;
}

const char* siUnit(core::Dimension d) {
  switch (d) {
    case core::Dimension::Dimensionless:
      return "";
    case core::Dimension::Temperature:
      return "degC";
    case core::Dimension::TemperatureDifference:
      return "K";
    case core::Dimension::Time:
      return "s";
    case core::Dimension::Length:
      return "m";
    case core::Dimension::Volume:
      return "m3";
    case core::Dimension::VolumeFlow:
      return "m3/s";
    case core::Dimension::MassFlow:
      return "kg/s";
    case core::Dimension::Pressure:
      return "Pa";
    case core::Dimension::Power:
      return "W";
    case core::Dimension::Energy:
      return "J";
    case core::Dimension::ThermalResistance:
      return "K/W";
    case core::Dimension::HeatCapacity:
      return "J/K";
    case core::Dimension::ThermalConductance:
      return "W/K";
    case core::Dimension::Voltage:
      return "V";
  }
  return "";
}

/// A symmetric generic range: |x| <= limit.
Plausibility symmetric(double limit, const std::string& reason) {
  Plausibility p;
  p.physical.min = -limit;
  p.physical.max = limit;
  p.physical.min_reason = reason;
  p.physical.max_reason = reason;
  return p;
}

Plausibility generic(core::Dimension d) {
  using core::Dimension;
  switch (d) {
    case Dimension::Dimensionless:
      return symmetric(1e6, "no ratio, fraction or exponent of a site is near a million");
    case Dimension::Temperature: {
      Plausibility p;
      p.physical.min = C(-200.0);
      p.physical.min_reason =
          "colder than liquid nitrogen at -196 degC: no air or liquid of a site";
      p.physical.max = C(500.0);
      p.physical.max_reason = "no material of a site (coolant, plastics, solder) survives it";
      return p;
    }
    case Dimension::TemperatureDifference:
      return symmetric(200.0, "larger than any temperature difference of a liquid-cooled site");
    case Dimension::Time:
      return symmetric(3.2e9, "more than a century");
    case Dimension::Length:
      return symmetric(1e4, "longer than any pipe or cable of a data-centre campus");
    case Dimension::Volume:
      return symmetric(1e5, "more than the liquid of any cooling plant");
    case Dimension::VolumeFlow:
      return symmetric(100.0, "more than the cooling water of a large power station");
    case Dimension::MassFlow:
      return symmetric(1e5, "more than the cooling water of a large power station");
    case Dimension::Pressure: {
      Plausibility p = symmetric(1e7, "beyond the rating of any liquid-cooling component");
      p.engineering.max = 16e5;
      p.engineering.max_reason = "above PN16, the usual rating of loop piping and fittings";
      return p;
    }
    case Dimension::Power:
      return symmetric(1e10, "more than the largest data-centre campus (a few GW)");
    case Dimension::Energy:
      return symmetric(3.6e13, "more than 10 GWh, beyond any site's storage");
    case Dimension::ThermalResistance:
      return symmetric(1e3, "a path of more than 1000 K/W carries no heat worth modelling");
    case Dimension::HeatCapacity:
      return symmetric(1e12, "more than the water of any cooling plant");
    case Dimension::ThermalConductance:
      return symmetric(1e10, "more than any heat exchanger or room of a site");
    case Dimension::Voltage:
      return symmetric(1.2e6, "above the highest transmission voltage in service (1.1 MV)");
  }
  return {};
}

}  // namespace

LoadSession::LoadSession() : previous_(g_current) {
  g_current = this;
}
LoadSession::~LoadSession() {
  g_current = previous_;
}
LoadSession* LoadSession::current() noexcept {
  return g_current;
}

void addWarning(const std::string& where_and_key, const std::string& message) {
  if (g_current != nullptr) g_current->warnings.push_back(where_and_key + ": warning: " + message);
}

Plausibility plausibility(core::Dimension d, Kind k) {
  Plausibility p;
  switch (k) {
    case Kind::Default:
      return generic(d);
    case Kind::RunLength:
      return p;  // at most kMaxSimulationSteps steps, checked by the loader with its own message
    case Kind::PlainNumber:
      return symmetric(1e9, "beyond any quantity of a site in the unit the key names");
    case Kind::CoolantTemperature: {
      const LoadSession* s = LoadSession::current();
      const double T_freeze = s != nullptr ? s->coolant_T_freeze : core::kZeroCelsius_K;
      const std::string name = s != nullptr ? s->coolant_name : std::string("water");
      p.physical.min = T_freeze;
      p.physical.min_reason = "the freezing point of the secondary coolant " + name + ", "
                              + number(core::toCelsius(T_freeze)) + " degC";
      p.physical.max = C(100.0);
      p.physical.max_reason = "the boiling point of water at atmospheric pressure";
      p.engineering.min = C(17.0);
      p.engineering.max = C(45.0);
      p.engineering.min_reason = p.engineering.max_reason =
          "the ASHRAE / OCP secondary (TCS) supply window is 17-45 degC (gb300_nvl72.md)";
      return p;
    }
    case Kind::FacilityWaterTemperature:
      p.physical.min = C(0.0);
      p.physical.min_reason = "the freezing point of water; facility water holds no glycol";
      p.physical.max = C(100.0);
      p.physical.max_reason = "the boiling point of water at atmospheric pressure";
      p.engineering.min = C(2.0);
      p.engineering.min_reason = "below 2 degC, the minimum of the ASHRAE liquid classes W17-W45";
      p.engineering.max = C(45.0);
      p.engineering.max_reason =
          "above 45 degC, the top of ASHRAE class W45 (class W+: check CDU and chip ratings)";
      return p;
    case Kind::RoomAirTemperature:
      p.physical.min = C(-90.0);
      p.physical.min_reason =
          "colder than the lowest air temperature recorded on Earth, -89.2 degC";
      p.physical.max = C(100.0);
      p.physical.max_reason = "above the boiling point of water: no room of equipment";
      p.engineering.min = C(15.0);
      p.engineering.max = C(32.0);
      p.engineering.min_reason = p.engineering.max_reason =
          "ASHRAE class A1 allowable inlet air is 15-32 degC";
      return p;
    case Kind::JunctionTemperature:
      p.physical.min = C(0.0);
      p.physical.min_reason = "below 0 degC no liquid-cooled chip runs";
      p.physical.max = C(200.0);
      p.physical.max_reason = "silicon devices and their solder fail; rated 150-175 degC at most";
      p.engineering.min = C(60.0);
      p.engineering.max = C(110.0);
      p.engineering.min_reason = p.engineering.max_reason =
          "accelerator limits are 80-105 degC (gb300_nvl72.md: slowdown 87 degC, shutdown 95-100 "
          "degC [E])";
      return p;
    case Kind::ChipPower:
    case Kind::GpuPowerLimit:
      p.physical.max = 5000.0;
      p.physical.max_reason =
          "no single chip package passes more than a few kW through a cold plate; B300: 1400 W";
      if (k == Kind::GpuPowerLimit) {
        p.engineering.max = 1400.0;
        p.engineering.max_reason =
            "above the B300's 1400 W maximum power limit (nvidia-smi max_limit, gb300_nvl72.md)";
      }
      return p;
    case Kind::CableLength:
      p.physical.max = 1e4;
      p.physical.max_reason = "longer than any feed inside a data-centre campus";
      p.engineering.max = 300.0;
      p.engineering.max_reason = "longer than a feed within one building: check the voltage drop";
      return p;
    case Kind::PipeDiameter:
      p.physical.min = 1e-4;
      p.physical.min_reason = "narrower than any coolant channel (0.1 mm)";
      p.physical.max = 5.0;
      p.physical.max_reason = "wider than any pipe of a cooling plant";
      return p;
    case Kind::PumpSpeed:
      p.physical.min = 0.01;
      p.physical.min_reason =
          "below 1 % of rated speed a drive does not run the pump; a percentage written as a "
          "fraction?";
      p.engineering.min = 0.2;
      p.engineering.min_reason =
          "below the 20-30 % minimum speed of variable-speed pumps (motor cooling, stable flow)";
      return p;
    case Kind::PumpEfficiency:
      p.physical.min = 0.01;
      p.physical.min_reason = "below 1 %: a percentage written as a fraction?";
      p.engineering.min = 0.2;
      p.engineering.min_reason = "below 20 %, less than small circulators reach";
      return p;
    case Kind::ConverterEfficiency:
      p.physical.min = 0.1;
      p.physical.min_reason =
          "a converter below 10 % would dissipate nine times its output and burn; a percentage "
          "written as a fraction?";
      p.engineering.min = 0.8;
      p.engineering.min_reason = "below 80 %, the 80 PLUS base level";
      return p;
    case Kind::RackPitch:
      p.physical.min = 0.3;
      p.physical.min_reason = "narrower than any equipment rack";
      p.physical.max = 5.0;
      p.physical.max_reason = "wider than any rack with its side panels";
      p.engineering.min = 0.5;
      p.engineering.min_reason = "narrower than a 19-inch rack (about 0.6 m wide with its frame)";
      p.engineering.max = 1.2;
      p.engineering.max_reason = "wider than the widest common racks (0.6-0.8 m)";
      return p;
    case Kind::RowPitch:
      p.physical.min = 0.5;
      p.physical.min_reason = "shallower than any rack";
      p.physical.max = 100.0;
      p.physical.max_reason = "rows that far apart are in different rooms";
      p.engineering.min = 2.4;
      p.engineering.min_reason =
          "a 1.2 m deep rack plus less than 1.2 m of aisle (hot and cold aisles are 1.2 m or more)";
      p.engineering.max = 8.0;
      p.engineering.max_reason = "more than twice the usual 3.6 m between rows";
      return p;
    case Kind::AisleWidth:
      p.physical.min = 0.0;
      p.physical.min_reason = "a width cannot be negative";
      p.physical.max = 1000.0;
      p.physical.max_reason = "wider than any building";
      p.engineering.min = 0.9;
      p.engineering.min_reason = "narrower than an egress aisle (36 in, 0.91 m)";
      p.engineering.max = 30.0;
      p.engineering.max_reason = "wider than a service corridor: halls are separate rooms";
      return p;
    case Kind::SwitchPower:
      p.physical.min = 1.0;
      p.physical.min_reason = "no managed switch runs on less than a watt";
      p.physical.max = 1e5;
      p.physical.max_reason = "more than a whole rack of switches";
      p.engineering.min = 100.0;
      p.engineering.min_reason = "below a 1U top-of-rack switch; a per-port figure?";
      p.engineering.max = 1e4;
      p.engineering.max_reason = "above the largest single-chassis switches (a few kW)";
      return p;
    case Kind::TransceiverPower:
      p.physical.min = 0.0;
      p.physical.min_reason = "a transceiver cannot give power back";
      p.physical.max = 200.0;
      p.physical.max_reason = "no pluggable module dissipates more than a few tens of W";
      p.engineering.max = 40.0;
      p.engineering.max_reason = "above the OSFP power classes of 1.6T modules (~30 W)";
      return p;
    case Kind::SwitchRadix:
      p.physical.min = 2.0;
      p.physical.min_reason = "a switch connects at least two ports";
      p.physical.max = 4096.0;
      p.physical.max_reason = "more ports than any switch chassis";
      p.engineering.min = 8.0;
      p.engineering.min_reason = "a fabric switch with fewer ports makes a deep tree";
      p.engineering.max = 576.0;
      p.engineering.max_reason = "above the radix of single-box data-centre switches (<= 512)";
      return p;
    case Kind::PortSpeed:
      p.physical.min = 1.0;
      p.physical.min_reason = "slower than any fabric link (1 Gb/s)";
      p.physical.max = 1e5;
      p.physical.max_reason = "faster than any port (100 Tb/s)";
      p.engineering.min = 100.0;
      p.engineering.min_reason = "slower than a GPU fabric port (100-800 Gb/s)";
      p.engineering.max = 3200.0;
      p.engineering.max_reason = "faster than announced ports (1.6 Tb/s)";
      return p;
    case Kind::PowerFactor:
      p.physical.min = 0.3;
      p.physical.min_reason = "below any supply with power-factor correction";
      p.physical.max = 1.0;
      p.physical.max_reason = "a power factor is at most 1";
      p.engineering.min = 0.9;
      p.engineering.min_reason = "below the 0.9 that 80 PLUS supplies must reach at half load";
      return p;
    case Kind::FabricGroupRacks:
      p.physical.min = 1.0;
      p.physical.min_reason = "a group has at least one rack";
      p.physical.max = 1e5;
      p.physical.max_reason = "more racks than a template makes";
      p.engineering.max = 64.0;
      p.engineering.max_reason =
          "leaf switches for more than a few rows stand far from their racks (longer links)";
      return p;
  }
  return generic(d);
}

std::string displayValue(double value, core::Dimension d, Kind k) {
  if (d == core::Dimension::Temperature) return number(core::toCelsius(value)) + " degC";
  if (d == core::Dimension::Dimensionless && isFractionKind(k)) return number(value * 100.0) + " %";
  const std::string unit = siUnit(d);
  return unit.empty() ? number(value) : number(value) + " " + unit;
}

std::string physicalViolation(double value, core::Dimension d, Kind k, const std::string& text) {
  const Plausibility p = plausibility(d, k);
  if (!std::isfinite(value)) return "must be a finite number, got '" + text + "'";
  if (p.physical.min && value < *p.physical.min) {
    return "must be at least " + displayValue(*p.physical.min, d, k) + " (" + p.physical.min_reason
           + "), got '" + text + "'";
  }
  if (p.physical.max && value > *p.physical.max) {
    return "must be at most " + displayValue(*p.physical.max, d, k) + " (" + p.physical.max_reason
           + "), got '" + text + "'";
  }
  return {};
}

std::string engineeringViolation(double value, core::Dimension d, Kind k, const std::string& text) {
  const Plausibility p = plausibility(d, k);
  const Bound& e = p.engineering;
  const bool low = e.min && value < *e.min;
  const bool high = e.max && value > *e.max;
  if (!low && !high) return {};
  const std::string range = (e.min ? displayValue(*e.min, d, k) : std::string("-inf")) + " to "
                            + (e.max ? displayValue(*e.max, d, k) : std::string("+inf"));
  return "'" + text + "' (" + displayValue(value, d, k) + ") is outside the usual range " + range
         + ": " + (low ? e.min_reason : e.max_reason);
}

}  // namespace racktwin::scenarios::detail
