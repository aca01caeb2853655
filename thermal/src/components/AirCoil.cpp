// The air coil of a liquid-to-air CDU (an in-row "sidecar" unit where there is no facility
// water): the secondary coolant rejects its heat through a finned coil and fans to room air,
// which the CRAH units then carry. The CDU's PI drives the fan speed (in place of a facility
// valve's opening) to hold the secondary supply temperature.
// Validation: tests/thermal/test_sidecar_cdu.cpp (the rating reproduced, the heat moved from
// the coolant into the room equal to eps C_min (T_coolant - T_room), the room's balance).
#include "components/CoilKind.hpp"

namespace racktwin::thermal::components {
namespace {

class AirCoil final : public CoilKind {
 public:
  std::string_view name() const override { return "air-coil"; }
  std::string_view dataFolder() const override { return "cdus"; }
  ExchangeMedium medium() const override { return ExchangeMedium::RoomAir; }
  std::string_view validation() const override {
    return "tests/thermal/test_sidecar_cdu.cpp: rating, heat into the room by eps-NTU, the "
           "room's and the loop's balances";
  }
};

}  // namespace

const CoolantComponentKind& airCoilKind() {
  static const AirCoil kind;
  return kind;
}

}  // namespace racktwin::thermal::components
