#pragma once
// GPU power management of every rack: the power limit from the profile (Max-P, Max-Q) and caps,
// and GB300 power smoothing (core::PowerSmoothingSpec): the GPU-side floor held by the power
// burner with its hold time, the GPU ramp-up/ramp-down limits, and the rack's PSU energy storage
// between the busbar and the grid.
//
// Per GPU and step [t, t + dt], with limit L_r and floor F = min(floor_fraction * TGP, L_r):
//   target = min(demand, L_r)
//   the floor is active while the target reached F within the last floor_hold_time
//   want   = active ? max(target, F) : target
//   P      = clamp(want, P_prev - ramp_down dt, P_prev + ramp_up dt)
// The burner supplies P - target when positive (heat in the GPU, as real as compute power); when
// the ramp-up limit holds P below the target, the GPU runs power-limited for that step (that lost
// compute is not fed back to the workload; a limit or cap is: SiteState::rack_gpu_P_limit slows
// capped jobs).
//
// Per rack storage, capacity E_max = E_per_gpu * GPUs, state E (J, starts half full), grid-facing
// DC power G, busbar-side load B:
//   A = A_prev + (B - A_prev) dt / (storage_time_constant + dt)     (moving average, implicit)
//   G = A;  E = E + (G - B) dt, clamped to [0, E_max] by moving G toward B (a full or empty
//   storage passes the load through).
// G therefore lies between B and A: the storage never raises the peak or deepens the trough.
// It is lossless; its change of energy enters the electrical energy balance.
//
// Every step is computed into scratch and committed separately, so a step can be recomputed
// (a UPS dropping its load mid-step) without touching the state. No allocation per step.
//
// Settled racks: most steps change no demand (phases last seconds) and, once the ramps have
// arrived and the floor holds or is released, a rack's GPU step is a fixed point: every GPU's
// power equals its wanted power, bit for bit, so the next step returns the same powers and sums.
// gpuStep then returns without visiting the GPUs until a demand, the limit or the floor's hold
// state changes; the hold state is exact too: the earliest floor release among the held GPUs is
// kept and compared with the same expression the step evaluates. The results are the same bits
// as stepping every GPU.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"

namespace racktwin::core {
class StateArchive;
}

namespace racktwin::power {

class PowerManagement {
 public:
  /// Resolves the electrical spec's power policies per rack. Throws std::invalid_argument for a
  /// policy naming an unknown rack or job, or invalid smoothing settings.
  PowerManagement(const core::SiteSpec& site, const core::SiteLayout& layout);

  std::size_t rackCount() const noexcept { return racks_.size(); }
  /// GPU power limit of a rack now (profile and cap), W per GPU.
  double gpuLimit(std::size_t r) const noexcept { return racks_[r].limit; }
  /// Power floor of a rack's GPUs while active, W per GPU (0 without smoothing).
  double gpuFloor(std::size_t r) const noexcept;
  bool smoothing(std::size_t r) const noexcept { return racks_[r].smoothing.enabled; }
  bool storageUsed(std::size_t r) const noexcept { return racks_[r].E_max > 0.0; }
  const core::PowerSmoothingSpec& smoothingSpec(std::size_t r) const noexcept {
    return racks_[r].smoothing;
  }
  /// Sets a rack's GPU power cap (W per GPU, 0 removes it); applies from the next step.
  void setCap(std::size_t r, double P_cap);
  double cap(std::size_t r) const noexcept { return racks_[r].cap; }

  /// Computes the GPU powers of rack r for the step ending at t_end into P from the demands and
  /// the GPUs' powers of the last committed step, P_prev (all indexed like the site's GPUs: the
  /// caller keeps the committed powers, SiteState::gpu_P); returns their sum. Uses only
  /// committed state. P must be the same array in every call and keep the last call's powers,
  /// and P_prev the powers of the last call that was committed (a settled rack's step leaves P
  /// as it is). `demand_version`: the rack's SiteState::rack_demand_version (0: none), which
  /// spares comparing the demands with those of the last computed step while it is unchanged.
  double gpuStep(std::size_t r, double t_end, double dt, const double* demand, const double* P_prev,
                 double* P, std::uint64_t demand_version = 0) noexcept;
  /// The demands' versions noted by gpuStep are of another SiteState: compare again.
  void forgetDemandVersions() noexcept {
    for (Rack& rack : racks_)
      rack.demand_version = 0;
  }
  /// The last gpuStep of rack r found the rack settled: P kept the committed powers.
  bool gpuHeld(std::size_t r) const noexcept { return racks_[r].held; }
  /// Grid-facing DC power of rack r's PSUs for busbar load B over dt (B itself when the rack has
  /// no storage). Uses only committed state; the new stored energy is kept for commit().
  double storageStep(std::size_t r, double B, double dt) noexcept;
  /// Makes rack r's last gpuStep and storageStep the state (the caller has made the powers in P
  /// its committed powers). Racks may commit side by side (each writes only its own state).
  void commit(std::size_t r) noexcept;
  /// Adds the burner and ramp-deficit powers of a block of racks (their sums of burnerPower and
  /// rampDeficitPower after commit) over dt to the run totals: called in block order, so the
  /// totals are the same sums for any number of threads.
  void bookEnergy(double P_burner, double P_deficit, double dt) noexcept {
    E_burner_ += P_burner * dt;
    E_deficit_ += P_deficit * dt;
  }
  /// Rack r is unpowered this step (its GPUs' committed powers are 0): the floor released, the
  /// storage holds its charge.
  void commitUnpowered(std::size_t r) noexcept;

  /// Stored energy of a rack's PSUs and its capacity, J.
  double storedEnergy(std::size_t r) const noexcept { return racks_[r].E; }
  double storageCapacity(std::size_t r) const noexcept { return racks_[r].E_max; }
  /// Burner power of the last committed step (W, rack sum) and run total (J).
  double burnerPower(std::size_t r) const noexcept { return racks_[r].P_burner; }
  double burnerEnergy() const noexcept { return E_burner_; }
  /// Power the ramp-up limit held back (W, rack sum) and run total (J).
  double rampDeficitPower(std::size_t r) const noexcept { return racks_[r].P_deficit; }
  double rampDeficitEnergy() const noexcept { return E_deficit_; }

  /// Saves or restores the run state (core/StateArchive.hpp).
  void visitState(core::StateArchive& archive);

 private:
  struct Rack {
    std::uint32_t gpu_begin = 0, gpu_end = 0;
    double TGP = 0.0;          // W per GPU, the rack type's power limit
    double profile_limit = 0;  // W per GPU
    double cap = 0.0;          // W per GPU, 0 = none
    double limit = 0.0;        // W per GPU, min(profile, cap)
    core::PowerSmoothingSpec smoothing;
    double E_max = 0.0;  // J
    double E = 0.0;      // J, committed
    double G = 0.0;      // W, committed grid-facing power
    double A = 0.0;      // W, committed moving average of the load
    // Scratch of the last step.
    double E_next = 0.0, G_next = 0.0, A_next = 0.0, P_burner_next = 0.0, P_deficit_next = 0.0;
    double P_burner = 0.0, P_deficit = 0.0;
    bool G_started = false;                         // A holds a committed value
    double average_dt = 0.0, average_weight = 0.0;  // s, and dt / (time constant + dt)
    // The last computed GPU step (see "Settled racks" above).
    bool settled = false;      // it was a fixed point: the next one returns the same powers
    bool skipped = false;      // steps were skipped since
    bool held = false;         // the last call returned without computing
    bool P_committed = false;  // the caller committed the powers P holds
    double P_sum = 0.0;        // W, the GPUs' powers summed
    double t_computed = 0.0;   // s, its end
    double t_skipped = 0.0;    // s, end of the last skipped step
    double release = 0.0;      // s, earliest last_high of the GPUs the floor holds (inf: none)
    std::uint64_t demand_version = 0;  // the demands' version demand_seen_ holds (0: unknown)
  };
  /// GPU powers of a rack with smoothing, computed from its GPUs' state.
  double smoothedStep(Rack& rack, double t_end, double dt, const double* demand,
                      const double* P_prev, double* P) noexcept;
  std::vector<Rack> racks_;
  std::vector<double> last_high_;    // s, last time the GPU's target reached the floor; lags by
                                     // the skipped steps while the rack is settled
  std::vector<double> demand_seen_;  // W, the demands of the last computed step
  double E_burner_ = 0.0;
  double E_deficit_ = 0.0;
};

}  // namespace racktwin::power
