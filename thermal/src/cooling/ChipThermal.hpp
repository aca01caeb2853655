#pragma once
// The chips on cold plates: one case node per liquid-cooled GPU, CPU and NVSwitch (its "die"),
// with heat capacity, the plate's flow-dependent resistance to the coolant and the junction above
// the case. The loops' sweeps read and write the per-die arrays (they are public for those tight
// loops); this class owns them, turns the fast models' step energies into die powers, and after
// each step publishes junction temperatures, slowdown and shutdown with located crossings, and
// the run's chip metrics (hottest junction, throttled GPU-seconds, ride-through).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cooling/Common.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"

namespace racktwin::core {
class StateArchive;
class ThreadPool;
}  // namespace racktwin::core

namespace racktwin::thermal::cooling {

class ChipThermal {
 public:
  struct Die {
    ChipKind kind;
    std::uint32_t chip;  // index into the layout's GPU/CPU/switch arrays
    std::uint32_t loop;
    Index link;  // its cold-plate link
    const core::ChipSpec* spec;
  };
  static constexpr std::uint32_t kNoDie = ~std::uint32_t{0};

  // ---- Build ----
  /// A die on the cold-plate link `link` of loop `loop`; returns its index.
  std::uint32_t add(ChipKind kind, std::uint32_t chip, std::uint32_t loop, Index link,
                    const core::ChipSpec& spec);
  /// Sizes the arrays and the chip-to-die maps once every loop is built.
  void finishBuild(const core::SiteLayout& layout);

  /// An air-cooled chip (after every loop's dies): on its heat sink in the air of server
  /// `server` of rack `rack`.
  std::uint32_t addAir(ChipKind kind, std::uint32_t chip, std::uint32_t rack,
                       const core::ChipSpec& spec);

  // ---- Run ----
  /// Starts every die at its loop's temperature T0 (initialize).
  void reset(std::uint32_t die_begin, std::uint32_t die_end, double T0);
  void resetMetrics();
  /// Die powers of the macro step from the fast models' step energies.
  void takeStepPower(const core::SiteState& state, double dt);
  /// Junction temperatures, throttle and shutdown states into the state and the recorder views;
  /// `all` rewrites what follows from unchanged states too (initialisation). `now` is the end of
  /// the step of length dt.
  void publish(core::SiteState& state, double now, double dt, bool all);
  /// Runs takeStepPower and publish over blocks of chips on these threads (null: serially).
  void useThreads(core::ThreadPool* pool) noexcept { pool_ = pool; }
  /// A cooling fault at `time`: the ride-through is measured from the first one.
  void noteFault(double time, const core::SiteState& state);
  /// Adds the heat stored in the dies above 0 degC (J) to E, die by die (the model's sums keep
  /// one order of addition, so their round-off does not depend on how the parts are split).
  void addStored(double& E) const;
  /// "GPU 12" and the like, for messages.
  std::string describe(std::uint32_t die) const;
  /// The die of a chip by its component id (linear: events only).
  std::optional<std::uint32_t> findDie(std::string_view chip_id) const;
  void visitState(core::StateArchive& archive);

  /// One implicit step of length h of the air-cooled dies: C (T - T_old)/h = P - (T - T_in)/R,
  /// R = R_case_air_nominal / film with the inlet and the film factor speed^0.8 of each die's
  /// rack (computed once a macro step, with the fans' speed). Adds the
  /// heat each die gave its rack's air (W, P less what it stored) to `rack_air_P` and returns
  /// their sum.
  double advanceAir(double h, const std::vector<double>& rack_T_inlet,
                    const std::vector<double>& rack_air_film, std::vector<double>& rack_air_P);
  bool hasAirCooled() const noexcept { return air_begin < dies.size(); }
  /// Adds the air-cooled dies' stored heat above 0 degC to E.
  void addAirStored(double& E) const;

  double maxGpuJunction() const noexcept { return max_gpu_T_; }
  double throttledGpuSeconds() const noexcept { return throttled_gpu_seconds_; }
  int gpusShutDown() const noexcept { return gpus_shut_down_; }
  /// s from the first cooling fault to the first GPU throttle at or after it; nullopt when there
  /// was no fault or no throttle after it.
  std::optional<double> rideThrough() const;

  // ---- Per-die arrays (the sweeps' hot loops) ----
  std::vector<Die> dies;
  std::vector<double> T, T_old, alpha, P, R;
  std::vector<double> g, inv;  // cached with the loop's cells: g and 1 / (C_d/dt + g)
  std::vector<double> store;   // cached: C_d / dt
  std::vector<double> C;       // J/K, each die's heat capacity (contiguous for sums)
  std::vector<double> R_jc;    // K/W, junction to case
  // Dies [0, air_begin) sit on cold plates of the loops; [air_begin, end) are air-cooled.
  std::uint32_t air_begin = 0;
  std::vector<std::uint32_t> air_rack;  // per air-cooled die (from air_begin): its rack
  // The die of each GPU, CPU and NVSwitch (kNoDie for a chip without one).
  std::vector<std::uint32_t> gpu_die, cpu_die, switch_die;

  // ---- Recorder views (stable arrays) ----
  std::vector<double> gpu_T_j, cpu_T_j, switch_T_j, gpu_throttled_record, gpu_shutdown_record;
  std::vector<double> gpu_T_j_peak;  // K, junction at the step's highest sub-step power
  std::vector<double> gpu_V_flow;    // m3/s through each GPU's cold plate (after each solve)

 private:
  // Chips are published in blocks of this many (a fixed size, so sums over blocks do not depend
  // on the number of threads); each block's counts and extremes go to its slot.
  static constexpr std::size_t kChipBlock = 4096;
  struct BlockResult {
    double T_max = 0.0;
    std::size_t throttled = 0;
    int shut_down = 0;
    double first_throttle = kNever;
    bool crossings = false;
  };
  template <class Body>
  /// body(block) for each of `blocks` blocks, on the pool.
  void forEachBlock(std::size_t blocks, Body&& body);
  /// Blocks of kChipBlock of the most numerous kind of chip.
  std::size_t blockCount() const noexcept;
  void publishGpus(core::SiteState& state, std::size_t block, double t_begin, double dt, bool all);
  std::vector<BlockResult> blocks_;
  // Each GPU's spec, in GPU order: publishGpus reads it for every GPU every step, and a gather
  // through the dies (24 bytes each, in loop order) missed the cache on most of them.
  std::vector<const core::ChipSpec*> gpu_spec_;
  std::vector<double> correction_;      // GPU-s of a located crossing in this step, per GPU
  std::vector<std::uint8_t> crossing_;  // 1 where correction_ holds one
  core::ThreadPool* pool_ = nullptr;
  const core::SiteLayout* layout_ = nullptr;
  double max_gpu_T_ = 0.0, throttled_gpu_seconds_ = 0.0;
  int gpus_shut_down_ = 0;
  double first_fault_time_ = kNever, first_throttle_after_fault_ = kNever;
};

}  // namespace racktwin::thermal::cooling
