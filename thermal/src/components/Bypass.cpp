// A fixed-orifice bypass between a rack's supply and return taps (attached by `racks[].attach`):
// it keeps a minimum flow through a CDU's pumps when the racks throttle theirs, or stands in for
// a rack position left empty. A power-law pressure drop and a small volume; it carries heat like
// any volume.
// Validation: tests/integration/test_bypass_run.cpp (its recorded flow against the power law at
// the recorded dp across the rack's manifolds).
#include <array>

#include "racktwin/thermal/CoolantComponent.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::thermal::components {
namespace {

using core::Dimension;
enum : std::size_t { kDpNominal, kVFlowNominal, kExponent, kVolume };
constexpr std::array<ComponentParameter, 4> kSchema{{
    {"dp_nominal", Dimension::Pressure, std::numeric_limits<double>::quiet_NaN(), 1.0, 1e7, 1e3,
     5e5, "pressure drop at the nominal flow"},
    {"V_flow_nominal", Dimension::VolumeFlow, std::numeric_limits<double>::quiet_NaN(), 1e-8, 1.0,
     1e-5, 0.05, "nominal flow"},
    {"exponent", Dimension::Dimensionless, 2.0, 1.0, 2.5, 1.5, 2.0, "n of dp ~ V^n"},
    {"volume", Dimension::Volume, 5e-4, 1e-6, 1.0, 1e-5, 0.05, "coolant inside"},
}};
constexpr std::array<ComponentChannel, 1> kChannels{{
    {ComponentQuantity::V_flow, "Coolant flow through the bypass"},
}};

class Bypass final : public CoolantComponentKind {
 public:
  std::string_view name() const override { return "bypass"; }
  std::string_view dataFolder() const override { return "bypasses"; }
  std::span<const ComponentParameter> parameters() const override { return kSchema; }
  ThermalRole role() const override { return ThermalRole::Volume; }
  LinkLaw law(const ComponentParameters& p) const override {
    return LinkLaw::makePowerLaw(
        core::PowerLawDrop{p.values[kDpNominal], p.values[kVFlowNominal], p.values[kExponent]});
  }
  double volume(const ComponentParameters& p) const override { return p.values[kVolume]; }
  std::span<const ComponentChannel> channels() const override { return kChannels; }
  std::string_view validation() const override {
    return "tests/integration/test_bypass_run.cpp: flow against the power law at the recorded dp";
  }
};

}  // namespace

const CoolantComponentKind& bypassKind() {
  static const Bypass kind;
  return kind;
}

}  // namespace racktwin::thermal::components
