// A CDU's secondary pumps: identical centrifugal pumps in parallel, dp = s^2 dp0 (1 - (V / (N s
// V_max))^2) (affinity laws); the hydraulic power dp V enters the coolant as heat (a heat
// source), the motor's loss goes to the room.
// Validation: tests/hydraulics/test_link_laws.cpp (affinity laws, parallel pumps) and
// tests/thermal (pump heat in the energy audit).
#include <array>

#include "components/BuiltinKinds.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::thermal::components {
namespace {

using core::Dimension;
constexpr double kRequired = std::numeric_limits<double>::quiet_NaN();
enum : std::size_t { kDpShutoff, kVFlowMax, kSpeed, kEfficiency, kVolume };
constexpr std::array<ComponentParameter, 5> kSchema{{
    {"dp_shutoff", Dimension::Pressure, kRequired, 1.0, 1e7, 1e4, 1.5e6,
     "pressure rise at zero flow, full speed"},
    {"V_flow_max", Dimension::VolumeFlow, kRequired, 1e-9, 10.0, 1e-5, 1.0,
     "flow at zero head, full speed"},
    {"speed", Dimension::Dimensionless, 1.0, 0.0, 1.2, 0.2, 1.0, "fraction of full speed"},
    {"efficiency", Dimension::Dimensionless, 0.6, 0.01, 1.0, 0.3, 0.9, "wire to water"},
    {"volume", Dimension::Volume, 0.0, 0.0, 10.0, 0.0, 1.0, "coolant inside"},
}};

class Pump final : public CoolantComponentKind {
 public:
  std::string_view name() const override { return "pump"; }
  std::string_view dataFolder() const override { return "cdus"; }
  std::span<const ComponentParameter> parameters() const override { return kSchema; }
  ThermalRole role() const override { return ThermalRole::HeatSource; }
  LinkLaw law(const ComponentParameters& p) const override {
    return LinkLaw::makePump(core::PumpSpec{p.values[kDpShutoff], p.values[kVFlowMax],
                                            p.values[kSpeed], p.values[kEfficiency],
                                            p.values[kVolume]});
  }
  double volume(const ComponentParameters& p) const override { return p.values[kVolume]; }
  std::string_view validation() const override {
    return "tests/hydraulics/test_link_laws.cpp: affinity laws and pumps in parallel";
  }
};

}  // namespace

const CoolantComponentKind& pumpKind() {
  static const Pump kind;
  return kind;
}

ComponentParameters pumpParameters(const core::PumpSpec& pump) {
  return ComponentParameters{
      {pump.dp_shutoff, pump.V_flow_max, pump.speed, pump.efficiency, pump.volume}, std::nullopt};
}

}  // namespace racktwin::thermal::components
