// Quick disconnect: a power-law pressure drop dp = dp_nominal (V / V_nominal)^n (the loader turns
// a data sheet's flow coefficient Cv into dp = SG (Q/Cv)^2 psi), a few millilitres of coolant.
// Validation: tests/hydraulics/test_link_laws.cpp (the Cv definition of ANSI/ISA-75.01.01).
#include <array>

#include "components/BuiltinKinds.hpp"
#include "cooling/Common.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::thermal::components {
namespace {

using core::Dimension;
constexpr double kRequired = std::numeric_limits<double>::quiet_NaN();
enum : std::size_t { kDpNominal, kVFlowNominal, kExponent, kVolume };
constexpr std::array<ComponentParameter, 4> kSchema{{
    {"dp_nominal", Dimension::Pressure, kRequired, 0.0, 1e7, 100.0, 1e5,
     "pressure drop at the nominal flow"},
    {"V_flow_nominal", Dimension::VolumeFlow, kRequired, 1e-9, 1.0, 1e-6, 1e-2, "nominal flow"},
    {"exponent", Dimension::Dimensionless, 2.0, 1.0, 2.5, 1.7, 2.0, "n of dp ~ V^n"},
    {"volume", Dimension::Volume, cooling::kQuickDisconnectVolume, 0.0, 1e-2, 1e-6, 1e-4,
     "coolant inside (estimate for a UQD-class coupling)"},
}};

class QuickDisconnect final : public CoolantComponentKind {
 public:
  std::string_view name() const override { return "quick-disconnect"; }
  std::string_view dataFolder() const override { return "quick-disconnects"; }
  std::span<const ComponentParameter> parameters() const override { return kSchema; }
  ThermalRole role() const override { return ThermalRole::Volume; }
  LinkLaw law(const ComponentParameters& p) const override {
    return LinkLaw::makePowerLaw(
        core::PowerLawDrop{p.values[kDpNominal], p.values[kVFlowNominal], p.values[kExponent]});
  }
  double volume(const ComponentParameters& p) const override { return p.values[kVolume]; }
  std::string_view validation() const override {
    return "tests/hydraulics/test_link_laws.cpp: power law and the Cv definition";
  }
};

}  // namespace

const CoolantComponentKind& quickDisconnectKind() {
  static const QuickDisconnect kind;
  return kind;
}

ComponentParameters quickDisconnectParameters(const core::PowerLawDrop& drop) {
  return ComponentParameters{
      {drop.dp_nominal, drop.V_flow_nominal, drop.exponent, cooling::kQuickDisconnectVolume},
      std::nullopt};
}

}  // namespace racktwin::thermal::components
