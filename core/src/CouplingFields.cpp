#include "racktwin/core/CouplingFields.hpp"

#include <array>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/Model.hpp"
#include "racktwin/core/SiteState.hpp"

namespace racktwin::core {

namespace {
constexpr std::array<std::string_view, kCouplingFieldCount> kNames = {
    "gpu_P_demand",       "gpu_P",           "gpu_E_step",        "gpu_P_step_max",
    "gpu_T_junction",     "gpu_throttled",   "gpu_speed",         "gpu_shutdown",
    "cpu_P_demand",       "cpu_P",           "cpu_E_step",        "switch_P_demand",
    "switch_P",           "switch_E_step",   "rack_air_P_demand", "rack_fan_P",
    "rack_P_dc",          "rack_P_ac",       "rack_P_psu_loss",   "rack_air_E_step",
    "rack_ac_E_step",     "hall_air_E_step", "rack_gpu_P_limit",  "rack_powered",
    "rack_demand_version"};

static_assert(!kNames.back().empty(), "a name for every coupling field");

// FNV-1a over the bytes of a field.
std::uint64_t hashBytes(const void* data, std::size_t size) noexcept {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h ^ size;
}

template <class T>
std::uint64_t hashOf(const std::vector<T>& v) noexcept {
  return hashBytes(v.data(), v.size() * sizeof(T));
}
}  // namespace

std::string_view couplingFieldName(CouplingField field) noexcept {
  const auto k = static_cast<std::size_t>(field);
  return k < kNames.size() ? kNames[k] : std::string_view("?");
}

void checkCouplingOwnership(std::span<Model* const> models) {
  std::array<const Model*, kCouplingFieldCount> writer{};
  std::vector<CouplingFields> fields;
  fields.reserve(models.size());
  for (const Model* model : models) {
    fields.push_back(model->couplingFields());
    if (!fields.back().declared)
      throw RuntimeError("the " + std::string(model->name())
                         + " model does not declare which coupling fields it writes and reads");
    for (std::size_t f = 0; f < kCouplingFieldCount; ++f) {
      if (!fields.back().writes.test(f)) continue;
      if (writer[f] != nullptr)
        throw RuntimeError("coupling field " + std::string(kNames[f]) + " has two writers, the "
                           + std::string(writer[f]->name()) + " and the "
                           + std::string(model->name())
                           + " models: each field must have one owner");
      writer[f] = model;
    }
  }
  for (std::size_t m = 0; m < models.size(); ++m) {
    for (std::size_t f = 0; f < kCouplingFieldCount; ++f) {
      if (fields[m].reads.test(f) && writer[f] == nullptr)
        throw RuntimeError("the " + std::string(models[m]->name()) + " model reads coupling field "
                           + std::string(kNames[f]) + ", which no model writes");
    }
  }
}

std::vector<std::uint64_t> couplingFingerprints(const SiteState& s) {
  // One per field, in CouplingField order (undeclaredWrites names them by position).
  return {hashOf(s.gpu_P_demand),       hashOf(s.gpu_P),
          hashOf(s.gpu_E_step),         hashOf(s.gpu_P_step_max),
          hashOf(s.gpu_T_junction),     hashOf(s.gpu_throttled),
          hashOf(s.gpu_speed),          hashOf(s.gpu_shutdown),
          hashOf(s.cpu_P_demand),       hashOf(s.cpu_P),
          hashOf(s.cpu_E_step),         hashOf(s.switch_P_demand),
          hashOf(s.switch_P),           hashOf(s.switch_E_step),
          hashOf(s.rack_air_P_demand),  hashOf(s.rack_fan_P),
          hashOf(s.rack_P_dc),          hashOf(s.rack_P_ac),
          hashOf(s.rack_P_psu_loss),    hashOf(s.rack_air_E_step),
          hashOf(s.rack_ac_E_step),     hashBytes(&s.hall_air_E_step, sizeof s.hall_air_E_step),
          hashOf(s.rack_gpu_P_limit),   hashOf(s.rack_powered),
          hashOf(s.rack_demand_version)};
}

std::vector<std::string> undeclaredWrites(const Model& model,
                                          const std::vector<std::uint64_t>& before,
                                          const std::vector<std::uint64_t>& after) {
  std::vector<std::string> found;
  const CouplingFields fields = model.couplingFields();
  for (std::size_t f = 0; f < kCouplingFieldCount && f < before.size() && f < after.size(); ++f)
    if (before[f] != after[f] && !fields.writes.test(f))
      found.push_back("the " + std::string(model.name()) + " model wrote " + std::string(kNames[f])
                      + " without declaring it");
  return found;
}

}  // namespace racktwin::core
