#include "racktwin/viz/Quantity.hpp"

#include "racktwin/core/Error.hpp"

namespace racktwin::viz {
namespace {

constexpr std::array<QuantityInfo, kQuantityCount> kInfo = {{
    {"gpu-temperature", "GPU junction temperature (max)", "K", "gpu_T_junction_max_K"},
    {"rack-power", "Rack power (AC input)", "W", "rack_P_ac_W"},
    {"coolant-temperature", "Coolant temperature", "K", "coolant_T_K"},
    {"coolant-flow", "Coolant flow", "m3/s", "coolant_V_flow_m3_s"},
    {"design-margin", "Design margin used (tightest limit)", "%", "design_margin_used_percent"},
}};

}  // namespace

const QuantityInfo& quantityInfo(Quantity quantity) noexcept {
  return kInfo[static_cast<std::size_t>(quantity)];
}

Quantity parseQuantity(std::string_view key) {
  for (const Quantity q : kAllQuantities) {
    if (quantityInfo(q).key == key) return q;
  }
  throw core::InputError(
      {}, "quantity",
      "unknown quantity '" + std::string(key) + "'; expected one of " + quantityKeys());
}

std::string quantityKeys() {
  std::string keys;
  for (const Quantity q : kAllQuantities) {
    if (!keys.empty()) keys += ", ";
    keys += quantityInfo(q).key;
  }
  return keys;
}

}  // namespace racktwin::viz
