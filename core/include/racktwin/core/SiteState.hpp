#pragma once
// SiteLayout: flat indices of the site's racks and chips, built once from the SiteSpec.
// SiteState: the coupling data the models exchange each step, as flat arrays indexed by the
// layout (no string lookups, no allocation after initialisation). Who writes what:
//   workload   -> *_P_demand            (each fast sub-step)
//   electrical -> *_E_step, rack_*      (each fast sub-step; energies summed over the macro step)
//   thermal    -> gpu_T_junction, gpu_throttled (each macro step)
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::core {

class StateArchive;
class ThreadPool;

struct SiteLayout {
  std::size_t rack_count = 0;
  std::size_t gpu_count = 0;
  std::size_t cpu_count = 0;
  std::size_t switch_count = 0;
  std::vector<std::uint32_t> gpu_rack;  // owning rack of each GPU
  std::vector<std::uint32_t> cpu_rack;
  std::vector<std::uint32_t> switch_rack;
  std::vector<std::uint32_t> rack_gpu_begin;  // GPUs of rack r: [begin[r], begin[r+1])
  std::vector<std::uint32_t> rack_cpu_begin;
  std::vector<std::uint32_t> rack_switch_begin;
  std::vector<std::string> rack_ids;    // "row1/rack01"
  std::vector<std::string> gpu_ids;     // "row1/rack01/tray03/gpu2"
  std::vector<std::string> cpu_ids;     // "row1/rack01/tray03/cpu1"
  std::vector<std::string> switch_ids;  // "row1/rack01/switchtray02/nvswitch0"

  /// Compute trays are tray01..trayNN, switch trays switchtray01..; chips are numbered from 0.
  static SiteLayout build(const SiteSpec& site);
};

struct SiteState {
  double time = 0.0;        // s, start of the current sub-step
  double step_start = 0.0;  // s, start of the current macro step (the *_E_step accumulators')
  /// True during the macro step's last fast sub-step, after which the slow models read the
  /// *_E_step accumulators: a fast model may defer adding to them until then. Drivers that do not
  /// sub-step leave it true.
  bool last_substep = true;

  // Per GPU.
  std::vector<double> gpu_P_demand;  // W, what the workload asks for now
  std::vector<double> gpu_P;         // W, drawn now
  std::vector<double> gpu_E_step;    // J drawn since the macro step began
  /// W, the highest power drawn in any sub-step of the macro step so far (electrical, as it adds
  /// to gpu_E_step): the junction a GPU's own fast protection sees is the case plus this power.
  std::vector<double> gpu_P_step_max;
  std::vector<double> gpu_T_junction;       // K
  std::vector<std::uint8_t> gpu_throttled;  // 1 while in thermal slowdown
  std::vector<double> gpu_speed;            // relative compute speed, 1 = full
  std::vector<std::uint8_t> gpu_shutdown;   // 1 once shut down over temperature: draws nothing
  // Per CPU and per NVSwitch.
  std::vector<double> cpu_P_demand, cpu_P, cpu_E_step;
  std::vector<double> switch_P_demand, switch_P, switch_E_step;
  // Per rack.
  std::vector<double> rack_air_P_demand;  // W, air-cooled tray loads (NICs, drives, fans)
  /// W, the server fans of an air-cooled rack (cooling model, from its inlet temperature and
  /// load, once per macro step); the electrical model adds it to the rack's load. 0 for a
  /// liquid-cooled rack, whose fans are in rack_air_P_demand.
  std::vector<double> rack_fan_P;
  std::vector<double> rack_P_dc;        // W, busbar load now
  std::vector<double> rack_P_ac;        // W, AC input of the power shelves now
  std::vector<double> rack_P_psu_loss;  // W, PSU losses now (heat to room air)
  std::vector<double> rack_air_E_step;  // J to room air since the macro step began (loads + losses)
  std::vector<double> rack_ac_E_step;   // J of AC input since the macro step began
  /// J of heat released in the data hall's air since the macro step began by distribution
  /// elements placed there (electrical `room: hall`: busways, RPPs), besides the racks' own.
  double hall_air_E_step = 0.0;
  /// W per GPU: the power limit of the rack's GPUs now (profile and cap, electrical model);
  /// infinity when nothing limits them below their own power limit.
  std::vector<double> rack_gpu_P_limit;
  /// 1 while the rack's power shelves have a live supply (electrical model); 0 when it lost power.
  std::vector<std::uint8_t> rack_powered;
  /// Per rack, a count the writer of the demands (workload) raises whenever it writes any demand
  /// of the rack (its GPUs', CPUs', switches' or air loads'). A reader that saw the demands at
  /// version v knows them unchanged while the version is still v, without comparing them. 0: no
  /// version (a writer that keeps none leaves it 0, and readers compare the values).
  std::vector<std::uint64_t> rack_demand_version;

  /// Sizes every array for the layout and fills neutral values (T = T_initial, speed 1).
  void resize(const SiteLayout& layout, double T_initial);
  /// Zeroes the *_E_step accumulators; the engine calls it at the start of every macro step. With
  /// a pool, each thread zeroes its own share of each array: the share of the racks whose sums it
  /// adds first in the sub-steps (ThreadPool gives a thread its share of a pass first), so they
  /// are in its cache then. Zero is zero whoever writes it: no result depends on the split.
  void clearStepAccumulators(ThreadPool* pool = nullptr);
  /// Saves or restores every field (StateArchive.hpp); sizes must match the layout's.
  void visitState(StateArchive& archive);
};

}  // namespace racktwin::core
