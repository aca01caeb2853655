// Pipe or hose: Darcy-Weisbach friction (laminar, transition, Swamee-Jain), a volume of coolant
// split into upwind cells. Hoses, rack manifold segments, row headers and ring mains.
// Validation: tests/hydraulics/test_link_laws.cpp (Moody chart / Colebrook-White, laminar
// 64/Re) and tests/thermal (transport delay of a front, tau = V / Q).
#include <array>
#include <numbers>

#include "components/BuiltinKinds.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::thermal::components {
namespace {

using core::Dimension;
enum : std::size_t { kLength, kDiameter, kRoughness, kCells };
constexpr std::array<ComponentParameter, 4> kSchema{{
    {"length", Dimension::Length, std::numeric_limits<double>::quiet_NaN(), 0.0, 1e5, 0.01, 2e3,
     "length along the flow"},
    {"diameter", Dimension::Length, std::numeric_limits<double>::quiet_NaN(), 1e-4, 10.0, 0.004,
     1.0, "inner diameter"},
    {"roughness", Dimension::Length, 1.5e-6, 0.0, 0.01, 0.0, 1e-3, "absolute wall roughness"},
    {"cells", Dimension::Dimensionless, 1.0, 1.0, 1e4, 1.0, 200.0,
     "upwind volumes for heat transport"},
}};

class Pipe final : public CoolantComponentKind {
 public:
  std::string_view name() const override { return "pipe"; }
  std::string_view dataFolder() const override { return "pipes"; }
  std::span<const ComponentParameter> parameters() const override { return kSchema; }
  ThermalRole role() const override { return ThermalRole::Volume; }
  LinkLaw law(const ComponentParameters& p) const override { return LinkLaw::makePipe(spec(p)); }
  double volume(const ComponentParameters& p) const override {
    return 0.25 * std::numbers::pi * p.values[kDiameter] * p.values[kDiameter] * p.values[kLength];
  }
  int cells(const ComponentParameters& p) const override {
    return static_cast<int>(p.values[kCells]);
  }
  std::string_view validation() const override {
    return "tests/hydraulics/test_link_laws.cpp: friction factor against Colebrook-White and "
           "64/Re; tests/thermal/test_faults.cpp: a front crosses a hose in V/Q";
  }

 private:
  static core::PipeSpec spec(const ComponentParameters& p) {
    return core::PipeSpec{p.values[kLength], p.values[kDiameter], p.values[kRoughness],
                          static_cast<int>(p.values[kCells])};
  }
};

}  // namespace

const CoolantComponentKind& pipeKind() {
  static const Pipe kind;
  return kind;
}

ComponentParameters pipeParameters(const core::PipeSpec& pipe) {
  return ComponentParameters{
      {pipe.length, pipe.diameter, pipe.roughness, static_cast<double>(pipe.cells)}, std::nullopt};
}

}  // namespace racktwin::thermal::components
