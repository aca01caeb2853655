#include "racktwin/core/Units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <system_error>

#include "racktwin/core/Error.hpp"

namespace racktwin::core {
namespace {

// One accepted unit: SI = value * scale + offset. Offsets only for absolute temperatures.
struct UnitDef {
  Dimension dimension;
  std::string_view symbol;
  double scale;
  double offset = 0.0;
};

constexpr double kMinute_s = 60.0;
constexpr double kHour_s = 3600.0;
constexpr double kInch_m = 0.0254;  // exact, international inch (1959)
constexpr double kFoot_m = 0.3048;  // exact, international foot (1959)
constexpr double kLitre_m3 = 1.0e-3;
constexpr double kFahrenheitDegree_K = 5.0 / 9.0;
// degF -> K: T_K = (T_F + 459.67) * 5/9.
constexpr double kFahrenheitOffset_K = 459.67 * kFahrenheitDegree_K;

// The first symbol of each dimension is the SI unit; the order is the order printed in messages.
constexpr std::array kUnits{
    UnitDef{Dimension::Dimensionless, "%", 0.01},
    UnitDef{Dimension::Temperature, "K", 1.0},
    UnitDef{Dimension::Temperature, "degC", 1.0, kZeroCelsius_K},
    UnitDef{Dimension::Temperature, "°C", 1.0, kZeroCelsius_K},
    UnitDef{Dimension::Temperature, "degF", kFahrenheitDegree_K, kFahrenheitOffset_K},
    UnitDef{Dimension::Temperature, "°F", kFahrenheitDegree_K, kFahrenheitOffset_K},
    UnitDef{Dimension::TemperatureDifference, "K", 1.0},
    UnitDef{Dimension::TemperatureDifference, "delta_degC", 1.0},
    UnitDef{Dimension::TemperatureDifference, "delta_degF", kFahrenheitDegree_K},
    UnitDef{Dimension::Time, "s", 1.0},
    UnitDef{Dimension::Time, "ms", 1.0e-3},
    UnitDef{Dimension::Time, "min", kMinute_s},
    UnitDef{Dimension::Time, "h", kHour_s},
    UnitDef{Dimension::Length, "m", 1.0},
    UnitDef{Dimension::Length, "mm", 1.0e-3},
    UnitDef{Dimension::Length, "cm", 1.0e-2},
    UnitDef{Dimension::Length, "in", kInch_m},
    UnitDef{Dimension::Length, "ft", kFoot_m},
    UnitDef{Dimension::Volume, "m3", 1.0},
    UnitDef{Dimension::Volume, "L", kLitre_m3},
    UnitDef{Dimension::Volume, "mL", 1.0e-6},
    UnitDef{Dimension::Volume, "gal", kUsGallon_m3},
    UnitDef{Dimension::VolumeFlow, "m3/s", 1.0},
    UnitDef{Dimension::VolumeFlow, "m3/h", 1.0 / kHour_s},
    UnitDef{Dimension::VolumeFlow, "L/s", kLitre_m3},
    UnitDef{Dimension::VolumeFlow, "L/min", kLitrePerMinute_m3_per_s},
    UnitDef{Dimension::VolumeFlow, "GPM", kUsGallon_m3 / kMinute_s},
    UnitDef{Dimension::VolumeFlow, "gpm", kUsGallon_m3 / kMinute_s},
    UnitDef{Dimension::MassFlow, "kg/s", 1.0},
    UnitDef{Dimension::MassFlow, "kg/h", 1.0 / kHour_s},
    UnitDef{Dimension::Pressure, "Pa", 1.0},
    UnitDef{Dimension::Pressure, "kPa", 1.0e3},
    UnitDef{Dimension::Pressure, "MPa", 1.0e6},
    UnitDef{Dimension::Pressure, "bar", kBar_Pa},
    UnitDef{Dimension::Pressure, "mbar", 1.0e-3 * kBar_Pa},
    UnitDef{Dimension::Pressure, "psi", kPsi_Pa},
    UnitDef{Dimension::Power, "W", 1.0},
    UnitDef{Dimension::Power, "kW", 1.0e3},
    UnitDef{Dimension::Power, "MW", 1.0e6},
    UnitDef{Dimension::Energy, "J", 1.0},
    UnitDef{Dimension::Energy, "kJ", 1.0e3},
    UnitDef{Dimension::Energy, "MJ", 1.0e6},
    UnitDef{Dimension::Energy, "Wh", kHour_s},
    UnitDef{Dimension::Energy, "kWh", 1.0e3 * kHour_s},
    UnitDef{Dimension::Energy, "MWh", 1.0e6 * kHour_s},
    UnitDef{Dimension::ThermalResistance, "K/W", 1.0},
    UnitDef{Dimension::HeatCapacity, "J/K", 1.0},
    UnitDef{Dimension::HeatCapacity, "kJ/K", 1.0e3},
    UnitDef{Dimension::HeatCapacity, "MJ/K", 1.0e6},
    UnitDef{Dimension::ThermalConductance, "W/K", 1.0},
    UnitDef{Dimension::ThermalConductance, "kW/K", 1.0e3},
    UnitDef{Dimension::Voltage, "V", 1.0},
    UnitDef{Dimension::Voltage, "kV", 1.0e3},
};

constexpr std::array kAllDimensions{
    Dimension::Dimensionless,
    Dimension::Temperature,
    Dimension::TemperatureDifference,
    Dimension::Time,
    Dimension::Length,
    Dimension::Volume,
    Dimension::VolumeFlow,
    Dimension::MassFlow,
    Dimension::Pressure,
    Dimension::Power,
    Dimension::Energy,
    Dimension::ThermalResistance,
    Dimension::HeatCapacity,
    Dimension::ThermalConductance,
    Dimension::Voltage,
};

std::string buildAcceptedUnits(Dimension d) {
  std::string text = d == Dimension::Dimensionless ? "a bare number" : "";
  for (const UnitDef& u : kUnits) {
    if (u.dimension != d) continue;
    if (!text.empty()) text += ", ";
    text += u.symbol;
  }
  return text;
}

constexpr bool isSpace(char c) {
  return c == ' ' || c == '\t';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && isSpace(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back()))
    s.remove_suffix(1);
  return s;
}

[[noreturn]] void fail(Dimension expected, std::string_view text) {
  if (expected == Dimension::Dimensionless) {
    throw std::invalid_argument("expected a plain number or a percentage (0.95 or 95 %), got "
                                + quoteForMessage(text));
  }
  const std::string_view name = dimensionName(expected);
  // "an energy", "a time": the article follows the first letter of the name.
  const bool vowel =
      !name.empty() && std::string_view("aeiou").find(name.front()) != std::string_view::npos;
  throw std::invalid_argument(std::string("expected ") + (vowel ? "an " : "a ") + std::string(name)
                              + " in " + std::string(acceptedUnits(expected)) + ", got "
                              + quoteForMessage(text));
}

}  // namespace

std::string_view dimensionName(Dimension d) {
  switch (d) {
    case Dimension::Dimensionless:
      return "number";
    case Dimension::Temperature:
      return "temperature";
    case Dimension::TemperatureDifference:
      return "temperature difference";
    case Dimension::Time:
      return "time";
    case Dimension::Length:
      return "length";
    case Dimension::Volume:
      return "volume";
    case Dimension::VolumeFlow:
      return "volume flow";
    case Dimension::MassFlow:
      return "mass flow";
    case Dimension::Pressure:
      return "pressure";
    case Dimension::Power:
      return "power";
    case Dimension::Energy:
      return "energy";
    case Dimension::ThermalResistance:
      return "thermal resistance";
    case Dimension::HeatCapacity:
      return "heat capacity";
    case Dimension::ThermalConductance:
      return "thermal conductance";
    case Dimension::Voltage:
      return "voltage";
  }
  return "quantity";
}

std::string_view acceptedUnits(Dimension d) {
  // Built once from the unit table so messages and parsing cannot disagree.
  static const std::array<std::string, kAllDimensions.size()> texts = [] {
    std::array<std::string, kAllDimensions.size()> t;
    for (std::size_t i = 0; i < kAllDimensions.size(); ++i) {
      t[i] = buildAcceptedUnits(kAllDimensions[i]);
    }
    return t;
  }();
  for (std::size_t i = 0; i < kAllDimensions.size(); ++i) {
    if (kAllDimensions[i] == d) return texts[i];
  }
  return "";
}

double parseQuantity(std::string_view text, Dimension expected) {
  const std::string_view s = trim(text);
  std::string_view number = s;
  bool negative = false;
  if (!number.empty() && (number.front() == '+' || number.front() == '-')) {
    negative = number.front() == '-';
    number.remove_prefix(1);
  }
  // from_chars would also read "inf" and "nan"; a quantity must start with a digit or '.'.
  if (number.empty()
      || !((number.front() >= '0' && number.front() <= '9') || number.front() == '.')) {
    fail(expected, text);
  }
  double magnitude = 0.0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), magnitude);
  if (ec != std::errc() || !std::isfinite(magnitude)) fail(expected, text);
  const double value = negative ? -magnitude : magnitude;
  const std::string_view unit = trim(number.substr(static_cast<std::size_t>(end - number.data())));

  if (unit.empty()) {
    if (expected != Dimension::Dimensionless) fail(expected, text);
    return value;
  }
  for (const UnitDef& u : kUnits) {
    if (u.dimension != expected || u.symbol != unit) continue;
    const double si = value * u.scale + u.offset;
    if (!std::isfinite(si)) fail(expected, text);
    if (expected == Dimension::Temperature && si < 0.0) {
      throw std::invalid_argument("expected a temperature at or above absolute zero (0 K), got "
                                  + quoteForMessage(text));
    }
    return si;
  }
  fail(expected, text);
}

std::span<const Dimension> allDimensions() noexcept {
  return kAllDimensions;
}

std::optional<DisplayUnit> usCustomaryFromSi(std::string_view si_unit, bool heat) {
  constexpr double kFahrenheitPerKelvin = 1.8;
  if (si_unit == "K") return DisplayUnit{"degF", kFahrenheitPerKelvin, 32.0 - kZeroCelsius_K * 1.8};
  if (si_unit == "m3/s") return DisplayUnit{"gpm", kMinute_s / kUsGallon_m3, 0.0};
  if (si_unit == "Pa") return DisplayUnit{"psi", 1.0 / kPsi_Pa, 0.0};
  if (si_unit == "m3") return DisplayUnit{"gal", 1.0 / kUsGallon_m3, 0.0};
  if (si_unit == "m") return DisplayUnit{"ft", 1.0 / 0.3048, 0.0};
  if (si_unit == "kg/s") return DisplayUnit{"lb/min", kMinute_s / 0.45359237, 0.0};
  if (si_unit == "W") {
    return heat ? DisplayUnit{"Btu/h", 3600.0 / kBtu_J, 0.0} : DisplayUnit{"kW", 1e-3, 0.0};
  }
  if (si_unit == "J") {
    return heat ? DisplayUnit{"ton-h", 1.0 / (kTonRefrigeration_W * 3600.0), 0.0}
                : DisplayUnit{"kWh", 1.0 / 3.6e6, 0.0};
  }
  return std::nullopt;
}

std::optional<DisplayUnit> usCustomaryFromMetric(std::string_view metric_unit, bool heat) {
  if (metric_unit == "degC") return DisplayUnit{"degF", 1.8, 32.0};
  if (metric_unit == "K") return DisplayUnit{"delta_degF", 1.8, 0.0};  // a difference
  if (metric_unit == "kPa") return DisplayUnit{"psi", 1e3 / kPsi_Pa, 0.0};
  if (metric_unit == "L/min") return DisplayUnit{"gpm", 1e-3 / kUsGallon_m3, 0.0};
  if (metric_unit == "L") return DisplayUnit{"gal", 1e-3 / kUsGallon_m3, 0.0};
  if (metric_unit == "L/kWh") return DisplayUnit{"gal/kWh", 1e-3 / kUsGallon_m3, 0.0};
  if (heat && metric_unit == "kW") return DisplayUnit{"ton", 1e3 / kTonRefrigeration_W, 0.0};
  if (heat && metric_unit == "kWh") {
    return DisplayUnit{"ton-h", 3.6e6 / (kTonRefrigeration_W * 3600.0), 0.0};
  }
  return std::nullopt;
}

}  // namespace racktwin::core
