// The coolant component kinds, in registration order. A new kind is one file in this folder
// (plus its data file, validation test and docs) and one line in the list below: the line both
// declares the kind's accessor (defined in the kind's file) and registers it.
#include <array>

#include "racktwin/thermal/CoolantComponent.hpp"

#define RACKTWIN_COOLANT_COMPONENT_KINDS(X) \
  X(pipeKind)                               \
  X(quickDisconnectKind)                    \
  X(coldPlateKind)                          \
  X(plateHeatExchangerKind)                 \
  X(pumpKind)                               \
  X(strainerKind)                           \
  X(rearDoorHxKind)                         \
  X(airCoilKind)                            \
  X(bypassKind)                             \
  /* one line per kind, above this one */

namespace racktwin::thermal {

namespace components {
#define RACKTWIN_DECLARE_KIND(accessor) const CoolantComponentKind& accessor();
RACKTWIN_COOLANT_COMPONENT_KINDS(RACKTWIN_DECLARE_KIND)
#undef RACKTWIN_DECLARE_KIND
}  // namespace components

namespace {
std::span<const CoolantComponentKind* const> registry() {
#define RACKTWIN_REGISTER_KIND(accessor) &components::accessor(),
  static const auto kinds = std::to_array<const CoolantComponentKind*>(
      {RACKTWIN_COOLANT_COMPONENT_KINDS(RACKTWIN_REGISTER_KIND)});
#undef RACKTWIN_REGISTER_KIND
  return kinds;
}
}  // namespace

std::span<const CoolantComponentKind* const> coolantComponentKinds() {
  return registry();
}

const CoolantComponentKind* findCoolantComponentKind(std::string_view name) {
  for (const CoolantComponentKind* kind : registry())
    if (kind->name() == name) return kind;
  return nullptr;
}

}  // namespace racktwin::thermal
