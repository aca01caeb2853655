#pragma once
// The quantities the scene can colour by. Values are SI (K, W, m3/s), as in the result file; a
// quantity that does not apply to an entity (rack power of a pipe) is NaN and drawn grey.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace racktwin::viz {

enum class Quantity : std::uint8_t {
  GpuJunctionTemperature,  // racks: hottest GPU junction of the rack (K)
  RackPower,               // racks: AC input of the power shelves (W)
  CoolantTemperature,      // racks: outlet (flow-weighted mix of the trays); CDUs: supply;
                           // pipes: supply or return temperature they carry (K)
  CoolantFlow,             // racks: supply hose; CDUs: secondary pump; pipes: flow carried (m3/s)
  DesignMarginUsed,        // racks, CDUs: share of the tightest design limit used over the run,
                           // 100 (1 - worst margin) (%; results with /limits, DesignMargins.hpp)
};
inline constexpr std::size_t kQuantityCount = 5;
inline constexpr std::array<Quantity, kQuantityCount> kAllQuantities = {
    Quantity::GpuJunctionTemperature, Quantity::RackPower, Quantity::CoolantTemperature,
    Quantity::CoolantFlow, Quantity::DesignMarginUsed};

struct QuantityInfo {
  std::string_view key;         // command-line name: "gpu-temperature", "rack-power", ...
  std::string_view label;       // legend title: "GPU junction temperature (max)"
  std::string_view unit;        // "K", "W", "m3/s"
  std::string_view array_name;  // VTK array name with unit: "gpu_T_junction_max_K"
};

const QuantityInfo& quantityInfo(Quantity quantity) noexcept;
/// By key ("gpu-temperature", "rack-power", "coolant-temperature", "coolant-flow"); throws
/// core::InputError listing the keys when `key` is none of them.
Quantity parseQuantity(std::string_view key);
/// "gpu-temperature, rack-power, coolant-temperature, coolant-flow" for help texts.
std::string quantityKeys();

}  // namespace racktwin::viz
