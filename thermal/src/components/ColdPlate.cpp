// Cold plate: a chip's case node on the plate passes (T_case - T_in) / R(V) into the coolant,
// R = R_constant + R_flow V^-n (the OCP OAI inlet-referenced curve, or one RackTwin computed with
// OpenFOAM), with a power-law pressure drop. The chip's side (case node, junction, slowdown) is
// ChipThermal's; the plate's coolant is this link.
// Validation: tests/thermal/test_components.cpp (steady T_case = T_in + P R), tests/cfd
// (the curve against conjugate heat transfer), tests/thermal/test_energy_audit.cpp.
#include <array>

#include "components/BuiltinKinds.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::thermal::components {
namespace {

using core::Dimension;
constexpr double kRequired = std::numeric_limits<double>::quiet_NaN();
enum : std::size_t { kDpNominal, kVFlowNominal, kExponent, kVolume };
constexpr std::array<ComponentParameter, 4> kSchema{{
    {"dp_nominal", Dimension::Pressure, kRequired, 0.0, 1e7, 1e3, 2e5,
     "pressure drop at the nominal flow"},
    {"V_flow_nominal", Dimension::VolumeFlow, kRequired, 1e-9, 1e-2, 1e-6, 1e-3, "nominal flow"},
    {"exponent", Dimension::Dimensionless, 2.0, 1.0, 2.5, 1.0, 2.0, "n of dp ~ V^n"},
    {"volume", Dimension::Volume, kRequired, 0.0, 1e-2, 1e-6, 1e-3, "coolant inside"},
}};

class ColdPlate final : public CoolantComponentKind {
 public:
  std::string_view name() const override { return "cold-plate"; }
  std::string_view dataFolder() const override { return "cold-plates"; }
  std::span<const ComponentParameter> parameters() const override { return kSchema; }
  ThermalRole role() const override { return ThermalRole::ChipPlate; }
  LinkLaw law(const ComponentParameters& p) const override {
    return LinkLaw::makePowerLaw(
        core::PowerLawDrop{p.values[kDpNominal], p.values[kVFlowNominal], p.values[kExponent]});
  }
  double volume(const ComponentParameters& p) const override { return p.values[kVolume]; }
  std::string_view validation() const override {
    return "tests/thermal/test_components.cpp: steady case temperature T_in + P R(V); "
           "tests/cfd/test_coldplate.cpp: the curve against OpenFOAM conjugate heat transfer";
  }
};

}  // namespace

const CoolantComponentKind& coldPlateKind() {
  static const ColdPlate kind;
  return kind;
}

ComponentParameters coldPlateParameters(const core::ColdPlateSpec& plate) {
  return ComponentParameters{
      {plate.dp.dp_nominal, plate.dp.V_flow_nominal, plate.dp.exponent, plate.volume},
      std::nullopt};
}

}  // namespace racktwin::thermal::components
