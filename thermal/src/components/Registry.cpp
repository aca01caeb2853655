// The coolant component kinds, in registration order. A new kind is one file in this folder
// (plus its data file, validation test and docs) and one line here.
#include <array>

#include "components/BuiltinKinds.hpp"

namespace racktwin::thermal {

namespace components {
// Kinds that only scenarios attach (declared here, defined in their own files).
}  // namespace components

namespace {
std::span<const CoolantComponentKind* const> registry() {
  using namespace components;
  static const auto kinds = std::to_array<const CoolantComponentKind*>({
      &pipeKind(),
      &quickDisconnectKind(),
      &coldPlateKind(),
      &plateHeatExchangerKind(),
      &pumpKind(),
      &strainerKind(),
  });
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
