#include "ComponentLoader.hpp"

#include <cmath>
#include <stdexcept>

#include "Plausibility.hpp"

namespace racktwin::scenarios::detail {

std::vector<std::string> componentParameterKeys(const thermal::CoolantComponentKind& kind) {
  std::vector<std::string> keys;
  for (const thermal::ComponentParameter& p : kind.parameters())
    keys.emplace_back(p.key);
  if (kind.takesPressureDrop()) {
    keys.emplace_back("pressure_drop");
    keys.emplace_back("pressure_drop_table");
  }
  return keys;
}

void readComponentParameters(const MapReader& m, const thermal::CoolantComponentKind& kind,
                             std::vector<double>& values, std::vector<bool>& given) {
  const std::span<const thermal::ComponentParameter> schema = kind.parameters();
  values.resize(schema.size(), 0.0);
  given.resize(schema.size(), false);
  for (std::size_t i = 0; i < schema.size(); ++i) {
    const thermal::ComponentParameter& p = schema[i];
    if (!m.has(p.key)) continue;
    const double v = m.quantity(p.key, p.dimension);
    const auto show = [&](double x) { return displayValue(x, p.dimension, Kind::Default); };
    if (!(v >= p.physical_min && v <= p.physical_max)) {
      m.fail(p.key, "must be within " + show(p.physical_min) + " and " + show(p.physical_max) + " ("
                        + std::string(p.description) + " of a " + std::string(kind.name())
                        + "), got " + show(v));
    }
    if (v < p.usual_min || v > p.usual_max) {
      const core::SourceLocation at = m.whereValue(p.key);
      addWarning(at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column)
                     + ": key '" + m.keyPath(p.key) + "'",
                 show(v) + " is outside the usual " + show(p.usual_min) + " to " + show(p.usual_max)
                     + " for the " + std::string(p.description) + " of a "
                     + std::string(kind.name()));
    }
    values[i] = v;
    given[i] = true;
  }
}

void finishComponentParameters(const MapReader& where, std::string_view key,
                               const thermal::CoolantComponentKind& kind, const std::string& type,
                               std::vector<double>& values,
                               const std::optional<core::PressureDropLaw>& pressure_drop,
                               const std::vector<bool>& given, const std::string& data_file,
                               double coolant_rho_cp) {
  const std::span<const thermal::ComponentParameter> schema = kind.parameters();
  values.resize(schema.size(), 0.0);
  for (std::size_t i = 0; i < schema.size(); ++i) {
    if (i < given.size() && given[i]) continue;
    if (schema[i].required()) {
      where.fail(key, "the " + std::string(kind.name()) + " of type '" + type + "' needs '"
                          + std::string(schema[i].key) + "' (" + std::string(schema[i].description)
                          + ") in " + data_file);
    }
    values[i] = schema[i].default_value;
  }
  if (!(coolant_rho_cp > 0.0)) return;  // rated later, once the coolant is known
  thermal::ComponentParameters p{values, pressure_drop};
  try {
    kind.prepare(p, coolant_rho_cp);
  } catch (const std::invalid_argument& error) {
    where.fail(key, "the " + std::string(kind.name()) + " of type '" + type
                        + "' cannot be rated with this coolant: " + error.what());
  }
}

void finishAttachedComponent(const MapReader& where, std::string_view key,
                             const thermal::CoolantComponentKind& kind,
                             core::AttachedComponentSpec& spec, const std::vector<bool>& given,
                             const std::string& data_file, double coolant_rho_cp) {
  std::optional<core::PressureDropLaw> dp;
  if (kind.takesPressureDrop()) dp = spec.pressure_drop;
  finishComponentParameters(where, key, kind, spec.type, spec.values, dp, given, data_file,
                            coolant_rho_cp);
}

}  // namespace racktwin::scenarios::detail
