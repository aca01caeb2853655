#include "racktwin/thermal/CoolantComponent.hpp"

#include <stdexcept>
#include <string>

#include "racktwin/core/Error.hpp"

namespace racktwin::thermal {

const char* thermalRoleName(ThermalRole role) noexcept {
  switch (role) {
    case ThermalRole::Volume:
      return "volume";
    case ThermalRole::HeatSource:
      return "heat source";
    case ThermalRole::Exchanger:
      return "exchanger side";
    case ThermalRole::ChipPlate:
      return "chip cold plate";
  }
  return "?";
}

std::size_t CoolantComponentKind::parameterIndex(std::string_view key) const {
  const std::span<const ComponentParameter> schema = parameters();
  for (std::size_t i = 0; i < schema.size(); ++i)
    if (schema[i].key == key) return i;
  RACKTWIN_ASSERT(false, "a component kind's code names a key of its own schema");
  return 0;
}

ComponentParameters CoolantComponentKind::make(
    std::initializer_list<std::pair<std::string_view, double>> values,
    std::optional<core::PressureDropLaw> pressure_drop) const {
  const std::span<const ComponentParameter> schema = parameters();
  ComponentParameters p;
  p.values.resize(schema.size());
  std::vector<bool> given(schema.size(), false);
  for (const auto& [key, value] : values) {
    std::size_t i = 0;
    while (i < schema.size() && schema[i].key != key)
      ++i;
    if (i == schema.size()) {
      throw std::invalid_argument(std::string(name()) + ": unknown parameter '" + std::string(key)
                                  + "'");
    }
    const ComponentParameter& s = schema[i];
    if (!(value >= s.physical_min && value <= s.physical_max)) {
      throw std::invalid_argument(std::string(name()) + ": parameter '" + std::string(key)
                                  + "' is outside its physical range");
    }
    p.values[i] = value;
    given[i] = true;
  }
  for (std::size_t i = 0; i < schema.size(); ++i) {
    if (given[i]) continue;
    if (schema[i].required()) {
      throw std::invalid_argument(std::string(name()) + ": parameter '" + std::string(schema[i].key)
                                  + "' is required");
    }
    p.values[i] = schema[i].default_value;
  }
  if (takesPressureDrop() != pressure_drop.has_value()) {
    throw std::invalid_argument(std::string(name())
                                + (takesPressureDrop() ? ": a pressure_drop law is required"
                                                       : ": takes no pressure_drop law"));
  }
  p.pressure_drop = std::move(pressure_drop);
  return p;
}

}  // namespace racktwin::thermal
