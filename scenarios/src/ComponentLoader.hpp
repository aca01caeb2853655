#pragma once
// Coolant components read by their kind's schema (thermal/CoolantComponent.hpp): a data file
// `data/<kind's folder>/<type>.yaml` whose `kind:` is the kind's name, and the overrides a
// scenario gives beside `kind:` and `type:`. Every key of the schema is a quantity with its unit,
// converted to SI and checked against the parameter's physical range (an error at the file, line
// and key) and usual range (a warning); unknown keys are errors. Adding a kind adds no code here.
#include <string>
#include <vector>

#include "YamlReader.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/thermal/CoolantComponent.hpp"

namespace racktwin::scenarios::detail {

/// The keys of a kind's parameters (for MapReader's accepted keys), and `pressure_drop` when the
/// kind takes one.
std::vector<std::string> componentParameterKeys(const thermal::CoolantComponentKind& kind);

/// Reads the kind's parameters present in `m` into `values` (schema order), marking them given.
void readComponentParameters(const MapReader& m, const thermal::CoolantComponentKind& kind,
                             std::vector<double>& values, std::vector<bool>& given);

/// Completes a component's parameters once its data file (and any overrides) are read: every
/// required key given (else an error at `where`'s `key`, naming `data_file`), defaults filled,
/// the kind's derived ratings checked with the coolant it will carry (rho cp, J/(m3 K); 0: not
/// known yet, the caller checks the rating later).
void finishComponentParameters(const MapReader& where, std::string_view key,
                               const thermal::CoolantComponentKind& kind, const std::string& type,
                               std::vector<double>& values,
                               const std::optional<core::PressureDropLaw>& pressure_drop,
                               const std::vector<bool>& given, const std::string& data_file,
                               double coolant_rho_cp);

/// Completes an attachment once its data file and overrides are read: every required key given
/// (else an error at `where`, naming the file that lacks it), defaults filled, the kind's derived
/// ratings checked with the coolant it will carry (rho cp, J/(m3 K)).
void finishAttachedComponent(const MapReader& where, std::string_view key,
                             const thermal::CoolantComponentKind& kind,
                             core::AttachedComponentSpec& spec, const std::vector<bool>& given,
                             const std::string& data_file, double coolant_rho_cp);

}  // namespace racktwin::scenarios::detail
