#include "racktwin/core/SiteState.hpp"

#include <limits>

#include <algorithm>
#include <cstdio>

#include "racktwin/core/StateArchive.hpp"
#include "racktwin/core/ThreadPool.hpp"

namespace racktwin::core {
namespace {

std::string numbered(const char* prefix, int n) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%s%02d", prefix, n);
  return buffer;
}

}  // namespace

std::size_t gpuCount(const SiteSpec& site) {
  std::size_t gpus = 0;
  for (const RackSpec& rack : site.racks)
    gpus += static_cast<std::size_t>(rack.type.compute_trays * rack.type.gpus_per_tray);
  return gpus;
}

SiteLayout SiteLayout::build(const SiteSpec& site) {
  SiteLayout layout;
  layout.rack_count = site.racks.size();
  layout.rack_gpu_begin.push_back(0);
  layout.rack_cpu_begin.push_back(0);
  layout.rack_switch_begin.push_back(0);
  for (std::size_t r = 0; r < site.racks.size(); ++r) {
    const RackSpec& rack = site.racks[r];
    const RackTypeSpec& type = rack.type;
    const auto rack_index = static_cast<std::uint32_t>(r);
    layout.rack_ids.push_back(rack.id.str());
    for (int tray = 1; tray <= type.compute_trays; ++tray) {
      const std::string tray_id = rack.id.str() + '/' + numbered("tray", tray);
      for (int g = 0; g < type.gpus_per_tray; ++g) {
        layout.gpu_ids.push_back(tray_id + "/gpu" + std::to_string(g));
        layout.gpu_rack.push_back(rack_index);
      }
      for (int c = 0; c < type.cpus_per_tray; ++c) {
        layout.cpu_ids.push_back(tray_id + "/cpu" + std::to_string(c));
        layout.cpu_rack.push_back(rack_index);
      }
    }
    for (int tray = 1; tray <= type.switch_trays; ++tray) {
      const std::string tray_id = rack.id.str() + '/' + numbered("switchtray", tray);
      for (int s = 0; s < type.switches_per_tray; ++s) {
        layout.switch_ids.push_back(tray_id + "/nvswitch" + std::to_string(s));
        layout.switch_rack.push_back(rack_index);
      }
    }
    layout.rack_gpu_begin.push_back(static_cast<std::uint32_t>(layout.gpu_ids.size()));
    layout.rack_cpu_begin.push_back(static_cast<std::uint32_t>(layout.cpu_ids.size()));
    layout.rack_switch_begin.push_back(static_cast<std::uint32_t>(layout.switch_ids.size()));
  }
  layout.gpu_count = layout.gpu_ids.size();
  layout.cpu_count = layout.cpu_ids.size();
  layout.switch_count = layout.switch_ids.size();
  return layout;
}

void SiteState::resize(const SiteLayout& layout, double T_initial) {
  const std::size_t g = layout.gpu_count;
  gpu_P_demand.assign(g, 0.0);
  gpu_P.assign(g, 0.0);
  gpu_E_step.assign(g, 0.0);
  gpu_P_step_max.assign(g, 0.0);
  gpu_T_junction.assign(g, T_initial);
  gpu_throttled.assign(g, 0);
  gpu_shutdown.assign(g, 0);
  gpu_speed.assign(g, 1.0);
  rack_gpu_P_limit.assign(layout.rack_count, std::numeric_limits<double>::infinity());
  rack_powered.assign(layout.rack_count, 1);
  rack_demand_version.assign(layout.rack_count, 0);
  for (auto* v : {&cpu_P_demand, &cpu_P, &cpu_E_step})
    v->assign(layout.cpu_count, 0.0);
  for (auto* v : {&switch_P_demand, &switch_P, &switch_E_step})
    v->assign(layout.switch_count, 0.0);
  for (auto* v : {&rack_air_P_demand, &rack_fan_P, &rack_P_dc, &rack_P_ac, &rack_P_psu_loss,
                  &rack_air_E_step, &rack_ac_E_step}) {
    v->assign(layout.rack_count, 0.0);
  }
}

void SiteState::clearStepAccumulators(ThreadPool* pool) {
  const std::size_t shares = pool != nullptr ? pool->size() : 1;
  forEachTask(pool, shares, [&](std::size_t share) {
    for (auto* v : {&gpu_E_step, &gpu_P_step_max, &cpu_E_step, &switch_E_step, &rack_air_E_step,
                    &rack_ac_E_step}) {
      const std::size_t n = v->size();
      std::fill(v->begin() + static_cast<std::ptrdiff_t>(n * share / shares),
                v->begin() + static_cast<std::ptrdiff_t>(n * (share + 1) / shares), 0.0);
    }
  });
  hall_air_E_step = 0.0;
}

void SiteState::visitState(StateArchive& a) {
  a(time, step_start, last_substep);
  a(gpu_P_demand, gpu_P, gpu_E_step, gpu_P_step_max, gpu_T_junction, gpu_throttled, gpu_speed,
    gpu_shutdown);
  a(cpu_P_demand, cpu_P, cpu_E_step, switch_P_demand, switch_P, switch_E_step);
  a(rack_air_P_demand, rack_fan_P, rack_P_dc, rack_P_ac, rack_P_psu_loss, rack_air_E_step,
    rack_ac_E_step, hall_air_E_step, rack_gpu_P_limit, rack_powered, rack_demand_version);
}

}  // namespace racktwin::core
