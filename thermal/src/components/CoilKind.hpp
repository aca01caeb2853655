#pragma once
// What the coil kinds share (a rear-door heat exchanger, the air coil of a liquid-to-air CDU):
// a finned coil between the coolant and air in cross flow (CrossFlowCoil), rated at one point by
// its data, its water-side pressure drop, and fans whose power goes with the cube of their speed.
#include <array>
#include <cmath>

#include "racktwin/thermal/CoolantComponent.hpp"
#include "racktwin/thermal/CrossFlowCoil.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::thermal::components {

class CoilKind : public CoolantComponentKind {
 public:
  enum : std::size_t {
    kQFlowNominal,
    kTLiquidInNominal,
    kTAirInNominal,
    kVFlowLiquidNominal,
    kVFlowAirNominal,
    kFanPNominal,
    kFanSpeed,
    kVolume,
    kSchemaSize,
    // Derived by prepare(), after the schema's values:
    kUANominal = kSchemaSize,
    kCLiquidNominal,
    kCAirNominal,
  };

  std::span<const ComponentParameter> parameters() const override { return kSchema; }
  bool takesPressureDrop() const override { return true; }
  ThermalRole role() const override { return ThermalRole::Exchanger; }
  void prepare(ComponentParameters& p, double coolant_rho_cp) const override {
    const double C_liquid = p.values[kVFlowLiquidNominal] * coolant_rho_cp;
    const double C_air = p.values[kVFlowAirNominal] * kAirCapacityPerFlow;
    // The entering difference either way: air hotter (a rear door) or coolant hotter (the coil
    // of a liquid-to-air CDU).
    const CrossFlowCoil coil =
        CrossFlowCoil::fromRating(p.values[kQFlowNominal], C_liquid, C_air,
                                  std::abs(p.values[kTAirInNominal] - p.values[kTLiquidInNominal]));
    p.values.resize(kSchemaSize);
    p.values.insert(p.values.end(), {coil.UA_nominal(), C_liquid, C_air});
  }
  LinkLaw law(const ComponentParameters& p) const override {
    return LinkLaw::makeDrop(*p.pressure_drop);
  }
  double volume(const ComponentParameters& p) const override { return p.values[kVolume]; }
  double conductance(const ComponentParameters& p, double C_coolant,
                     double C_other) const override {
    return CrossFlowCoil(p.values[kUANominal], p.values[kCLiquidNominal], p.values[kCAirNominal])
        .conductance(C_coolant, C_other);
  }
  /// Air through the coil at fan speed s: s V_air_nominal (a passive coil's air comes from the
  /// rack's own fans; see RearDoor in thermal/src/cooling).
  double airFlow(const ComponentParameters& p, double speed) const override {
    return speed * p.values[kVFlowAirNominal];
  }
  /// P = P_nominal s^3 (fan affinity laws at a fixed system curve).
  double fanPower(const ComponentParameters& p, double speed) const override {
    return p.values[kFanPNominal] * speed * speed * speed;
  }
  double fanSpeed(const ComponentParameters& p) const override {
    return p.values[kFanPNominal] > 0.0 ? p.values[kFanSpeed] : 0.0;
  }
  double nominalFlow(const ComponentParameters& p) const override {
    return p.values[kVFlowLiquidNominal];
  }
  std::span<const ComponentChannel> channels() const override { return kChannels; }

 private:
  static constexpr double kRequired = std::numeric_limits<double>::quiet_NaN();
  static constexpr std::array<ComponentParameter, kSchemaSize> kSchema{{
      {"Q_flow_nominal", core::Dimension::Power, kRequired, 1.0, 1e7, 1e3, 2e6,
       "heat moved at the rating"},
      {"T_liquid_in_nominal", core::Dimension::Temperature, kRequired, 263.15, 373.15, 275.15,
       323.15, "coolant entering at the rating"},
      {"T_air_in_nominal", core::Dimension::Temperature, kRequired, 263.15, 373.15, 288.15, 343.15,
       "air entering the coil at the rating"},
      {"V_flow_liquid_nominal", core::Dimension::VolumeFlow, kRequired, 1e-7, 1.0, 1e-5, 0.1,
       "coolant flow at the rating"},
      {"V_flow_air_nominal", core::Dimension::VolumeFlow, kRequired, 1e-4, 100.0, 0.1, 30.0,
       "air flow at the rating (full fan speed)"},
      {"fan_power_nominal", core::Dimension::Power, 0.0, 0.0, 1e5, 0.0, 2e4,
       "fan power at full speed; 0: a passive coil"},
      {"fan_speed", core::Dimension::Dimensionless, 1.0, 0.0, 1.0, 0.2, 1.0,
       "fan speed it runs at (fraction)"},
      {"volume", core::Dimension::Volume, kRequired, 1e-6, 1.0, 1e-4, 0.1, "coolant inside"},
  }};
  static constexpr std::array<ComponentChannel, 4> kChannels{{
      {ComponentQuantity::Q_flow, "Heat moved from the air into the coolant"},
      {ComponentQuantity::V_flow, "Coolant flow through the coil"},
      {ComponentQuantity::T_air_outlet, "Air temperature leaving the coil"},
      {ComponentQuantity::fan_P, "Fan electrical power"},
  }};
};

}  // namespace racktwin::thermal::components
