// Rear-door heat exchanger: a coil in the rack's rear door through which the rack's exhaust air
// passes, cooled by water from the CDU's secondary loop (in parallel with the rack's manifolds)
// or from facility water. Active doors have fans (air flow and power follow their speed);
// passive doors (fan_power_nominal 0) pass the servers' own air flow.
// Validation: tests/thermal/test_rear_door.cpp (the rating reproduced, heat moved =
// eps C_min dT against the exact cross-flow solution, the coolant's enthalpy rise and the room's
// loss equal to it) and tests/coolant (the cross-flow effectiveness against Kays and London's
// exact series).
#include "components/CoilKind.hpp"

namespace racktwin::thermal::components {
namespace {

class RearDoorHx final : public CoilKind {
 public:
  std::string_view name() const override { return "rear-door-hx"; }
  std::string_view dataFolder() const override { return "rear-doors"; }
  ExchangeMedium medium() const override { return ExchangeMedium::RackExhaustAir; }
  std::string_view validation() const override {
    return "tests/thermal/test_rear_door.cpp: rating, eps-NTU cross flow against the exact "
           "series, energy moved from the room into the coolant";
  }
};

}  // namespace

const CoolantComponentKind& rearDoorHxKind() {
  static const RearDoorHx kind;
  return kind;
}

}  // namespace racktwin::thermal::components
