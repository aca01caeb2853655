// A strainer after a CDU's exchanger: its pressure drop (power law or table, e.g. the XDU1350's
// 65 kPa at nominal flow with exponent 1.76) and volume.
// Validation: tests/hydraulics/test_link_laws.cpp (tabulated and power laws).
#include "components/BuiltinKinds.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::thermal::components {
namespace {

using core::Dimension;
enum : std::size_t { kVolume };
constexpr ComponentParameter kSchema[] = {
    {"volume", Dimension::Volume, 0.0, 0.0, 10.0, 0.0, 1.0, "coolant inside"},
};

class Strainer final : public CoolantComponentKind {
 public:
  std::string_view name() const override { return "strainer"; }
  std::string_view dataFolder() const override { return "cdus"; }
  std::span<const ComponentParameter> parameters() const override { return kSchema; }
  bool takesPressureDrop() const override { return true; }
  ThermalRole role() const override { return ThermalRole::Volume; }
  LinkLaw law(const ComponentParameters& p) const override {
    return LinkLaw::makeDrop(*p.pressure_drop);
  }
  double volume(const ComponentParameters& p) const override { return p.values[kVolume]; }
  std::string_view validation() const override {
    return "tests/hydraulics/test_link_laws.cpp: tabulated and power-law drops";
  }
};

}  // namespace

const CoolantComponentKind& strainerKind() {
  static const Strainer kind;
  return kind;
}

ComponentParameters strainerParameters(const core::CduSpec& cdu) {
  return ComponentParameters{{cdu.strainer_volume}, cdu.strainer_dp};
}

}  // namespace racktwin::thermal::components
