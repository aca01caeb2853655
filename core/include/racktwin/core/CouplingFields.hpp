#pragma once
// The coupling fields of SiteState and who owns them. Every model declares the fields it writes
// and the fields it reads (Model::couplingFields); when a twin is assembled,
// checkCouplingOwnership refuses two writers of one field and a field read that no model writes,
// naming the field and the models. Each field so has one owner, and a model reads only what
// another model (or itself) declared it would write: the run does not depend on one shared
// mutable state whose meaning rests on call order alone.
//
// The declarations are checked against what the models do by watchCouplingWrites (used by the
// tests): it fingerprints every field before and after each call of a model and reports a field
// changed by a model that did not declare it.
#include <bitset>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace racktwin::core {

class Model;
struct SiteState;

enum class CouplingField : std::uint8_t {
  GpuPowerDemand,     // gpu_P_demand
  GpuPower,           // gpu_P
  GpuEnergyStep,      // gpu_E_step
  GpuPowerStepMax,    // gpu_P_step_max
  GpuJunction,        // gpu_T_junction
  GpuThrottled,       // gpu_throttled
  GpuSpeed,           // gpu_speed
  GpuShutdown,        // gpu_shutdown
  CpuPowerDemand,     // cpu_P_demand
  CpuPower,           // cpu_P
  CpuEnergyStep,      // cpu_E_step
  SwitchPowerDemand,  // switch_P_demand
  SwitchPower,        // switch_P
  SwitchEnergyStep,   // switch_E_step
  RackAirDemand,      // rack_air_P_demand
  RackFanPower,       // rack_fan_P
  RackPowerDc,        // rack_P_dc
  RackPowerAc,        // rack_P_ac
  RackPsuLoss,        // rack_P_psu_loss
  RackAirEnergyStep,  // rack_air_E_step
  RackAcEnergyStep,   // rack_ac_E_step
  HallAirEnergyStep,  // hall_air_E_step
  RackGpuPowerLimit,  // rack_gpu_P_limit
  RackPowered,        // rack_powered
  RackDemandVersion,  // rack_demand_version
  Count
};
inline constexpr std::size_t kCouplingFieldCount = static_cast<std::size_t>(CouplingField::Count);

/// The SiteState member's name of a field ("gpu_P_demand").
std::string_view couplingFieldName(CouplingField field) noexcept;

/// What one model writes and reads of SiteState.
struct CouplingFields {
  std::bitset<kCouplingFieldCount> writes, reads;
  bool declared = false;  // false: the model declared nothing (a twin refuses it)

  static CouplingFields of(std::initializer_list<CouplingField> written,
                           std::initializer_list<CouplingField> read) {
    CouplingFields f;
    f.declared = true;
    for (const CouplingField w : written)
      f.writes.set(static_cast<std::size_t>(w));
    for (const CouplingField r : read)
      f.reads.set(static_cast<std::size_t>(r));
    return f;
  }
};

/// Throws core::RuntimeError when a model declares nothing, when two models write one field, or
/// when a model reads a field no model writes; the message names the field and the models.
void checkCouplingOwnership(std::span<Model* const> models);

/// Fingerprints of every field of a state (a hash of its bytes per field).
std::vector<std::uint64_t> couplingFingerprints(const SiteState& state);
/// The fields whose fingerprints differ between `before` and `after` that `model` does not
/// declare it writes, as "model 'x' wrote field_name" messages (empty when it kept to them).
std::vector<std::string> undeclaredWrites(const Model& model,
                                          const std::vector<std::uint64_t>& before,
                                          const std::vector<std::uint64_t>& after);

}  // namespace racktwin::core
