// The secondary side of a CDU's plate heat exchanger: its pressure drop (power law or table) and
// volume. Its heat, Q = eps C_min (T_in - T_facility), follows the counter-flow eps-NTU rating of
// the CDU (CounterFlowHeatExchanger), which the CDU unit owns with its facility side.
// Validation: tests/coolant/HeatExchangerTest.cpp (eps-NTU against Incropera Table 11.3) and
// tests/thermal (the Buildings-style CDU case).
#include "components/BuiltinKinds.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::thermal::components {
namespace {

using core::Dimension;
enum : std::size_t { kVolume };
constexpr ComponentParameter kSchema[] = {
    {"volume", Dimension::Volume, std::numeric_limits<double>::quiet_NaN(), 0.0, 10.0, 1e-4, 1.0,
     "coolant on the secondary side"},
};

class PlateHeatExchanger final : public CoolantComponentKind {
 public:
  std::string_view name() const override { return "plate-heat-exchanger"; }
  std::string_view dataFolder() const override { return "cdus"; }
  std::span<const ComponentParameter> parameters() const override { return kSchema; }
  bool takesPressureDrop() const override { return true; }
  ThermalRole role() const override { return ThermalRole::Exchanger; }
  ExchangeMedium medium() const override { return ExchangeMedium::FacilityWater; }
  LinkLaw law(const ComponentParameters& p) const override {
    return LinkLaw::makeDrop(*p.pressure_drop);
  }
  double volume(const ComponentParameters& p) const override { return p.values[kVolume]; }
  std::string_view validation() const override {
    return "tests/coolant/HeatExchangerTest.cpp: counter-flow eps-NTU against Incropera "
           "Table 11.3";
  }
};

}  // namespace

const CoolantComponentKind& plateHeatExchangerKind() {
  static const PlateHeatExchanger kind;
  return kind;
}

ComponentParameters plateHeatExchangerParameters(const core::CduSpec& cdu) {
  return ComponentParameters{{cdu.hx_secondary_volume}, cdu.hx_secondary_dp};
}

}  // namespace racktwin::thermal::components
