#include "cooling/ChipThermal.hpp"

#include <algorithm>
#include <cmath>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/StateArchive.hpp"
#include "racktwin/core/ThreadPool.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::thermal::cooling {

std::uint32_t ChipThermal::add(ChipKind kind, std::uint32_t chip, std::uint32_t loop, Index link,
                               const core::ChipSpec& spec) {
  dies.push_back(Die{kind, chip, loop, link, &spec});
  C.push_back(spec.heat_capacity);
  R_jc.push_back(spec.R_junction_case);
  return static_cast<std::uint32_t>(dies.size() - 1);
}

std::uint32_t ChipThermal::addAir(ChipKind kind, std::uint32_t chip, std::uint32_t rack,
                                  const core::ChipSpec& spec) {
  if (air_rack.empty()) air_begin = static_cast<std::uint32_t>(dies.size());
  RACKTWIN_ASSERT(dies.size() == air_begin + air_rack.size(),
                  "air-cooled dies come after every loop's dies");
  air_rack.push_back(rack);
  dies.push_back(Die{kind, chip, ~std::uint32_t{0}, ~Index{0}, &spec});
  C.push_back(spec.heat_capacity);
  R_jc.push_back(spec.R_junction_case);
  return static_cast<std::uint32_t>(dies.size() - 1);
}

double ChipThermal::advanceAir(double h, const std::vector<double>& rack_T_inlet,
                               const std::vector<double>& rack_air_film,
                               std::vector<double>& rack_air_P) {
  double Q_air = 0.0;
  for (std::size_t d = air_begin; d < dies.size(); ++d) {
    const std::uint32_t r = air_rack[d - air_begin];
    const double g_air = rack_air_film[r] / dies[d].spec->R_case_air_nominal;
    R[d] = 1.0 / g_air;
    const double C_h = C[d] / h;
    const double T_in = rack_T_inlet[r];
    T[d] = (C_h * T_old[d] + P[d] + g_air * T_in) / (C_h + g_air);
    const double Q = g_air * (T[d] - T_in);
    rack_air_P[r] += Q;
    Q_air += Q;
  }
  return Q_air;
}

void ChipThermal::addAirStored(double& E) const {
  for (std::size_t d = air_begin; d < dies.size(); ++d)
    E += C[d] * (T[d] - core::kZeroCelsius_K);
}

void ChipThermal::finishBuild(const core::SiteLayout& layout) {
  if (air_rack.empty()) air_begin = static_cast<std::uint32_t>(dies.size());
  layout_ = &layout;
  const std::size_t n_dies = dies.size();
  gpu_die.assign(layout.gpu_count, kNoDie);
  cpu_die.assign(layout.cpu_count, kNoDie);
  switch_die.assign(layout.switch_count, kNoDie);
  for (std::size_t d = 0; d < n_dies; ++d) {
    std::vector<std::uint32_t>& of = dies[d].kind == ChipKind::Gpu   ? gpu_die
                                     : dies[d].kind == ChipKind::Cpu ? cpu_die
                                                                     : switch_die;
    of[dies[d].chip] = static_cast<std::uint32_t>(d);
  }
  for (auto* v : {&T, &T_old, &alpha, &P, &R, &g, &inv, &store})
    v->assign(n_dies, 0.0);
  const std::size_t chips = std::max({layout.gpu_count, layout.cpu_count, layout.switch_count});
  blocks_.assign((chips + kChipBlock - 1) / kChipBlock, BlockResult{});
  gpu_spec_.assign(layout.gpu_count, nullptr);
  for (std::size_t gpu = 0; gpu < layout.gpu_count; ++gpu) {
    if (gpu_die[gpu] != kNoDie) gpu_spec_[gpu] = dies[gpu_die[gpu]].spec;
  }
  correction_.assign(layout.gpu_count, 0.0);
  crossing_.assign(layout.gpu_count, 0);
  gpu_T_j.assign(layout.gpu_count, 0.0);
  gpu_T_j_peak.assign(layout.gpu_count, 0.0);
  gpu_V_flow.assign(layout.gpu_count, 0.0);
  gpu_throttled_record.assign(layout.gpu_count, 0.0);
  gpu_shutdown_record.assign(layout.gpu_count, 0.0);
  cpu_T_j.assign(layout.cpu_count, 0.0);
  switch_T_j.assign(layout.switch_count, 0.0);
}

void ChipThermal::reset(std::uint32_t die_begin, std::uint32_t die_end, double T0) {
  std::fill(T.begin() + die_begin, T.begin() + die_end, T0);
}

void ChipThermal::resetMetrics() {
  std::fill(P.begin(), P.end(), 0.0);
  max_gpu_T_ = 0.0;
  throttled_gpu_seconds_ = 0.0;
}

namespace {
/// The chips of block `block` of `blocks`: GPUs 4,096 a block (the blocks' results are theirs),
/// CPUs and switches in equal shares of the blocks, so that every block (and every thread's
/// share of them) carries as much of each kind.
struct BlockChips {
  std::size_t begin, end;
};
BlockChips shareOf(std::size_t count, std::size_t block, std::size_t blocks) {
  return {count * block / blocks, count * (block + 1) / blocks};
}
}  // namespace

std::size_t ChipThermal::blockCount() const noexcept {
  const std::size_t count = std::max({gpu_die.size(), cpu_die.size(), switch_die.size()});
  return (count + kChipBlock - 1) / kChipBlock;
}

void ChipThermal::takeStepPower(const core::SiteState& state, double dt) {
  // Heat of the step: the fast models' energies averaged over the macro step, block by block.
  const std::size_t blocks = blockCount();
  const auto stepPower = [&](const std::vector<std::uint32_t>& die_of, const std::vector<double>& E,
                             BlockChips chips) {
    for (std::size_t chip = chips.begin; chip < chips.end; ++chip) {
      if (die_of[chip] != kNoDie) P[die_of[chip]] = E[chip] / dt;
    }
  };
  forEachBlock(blocks, [&](std::size_t block) {
    stepPower(gpu_die, state.gpu_E_step,
              {std::min(gpu_die.size(), block * kChipBlock),
               std::min(gpu_die.size(), (block + 1) * kChipBlock)});
    stepPower(cpu_die, state.cpu_E_step, shareOf(cpu_die.size(), block, blocks));
    stepPower(switch_die, state.switch_E_step, shareOf(switch_die.size(), block, blocks));
  });
}

namespace {
/// The time in [t_begin, t_begin + dt] where a value linear from T_before to T_after meets
/// `threshold` (the nearer end when it does not).
double locateCrossing(double t_begin, double dt, double T_before, double T_after,
                      double threshold) {
  const double rise = T_after - T_before;
  if (!(std::abs(rise) > 0.0)) return t_begin + dt;
  return t_begin + dt * std::clamp((threshold - T_before) / rise, 0.0, 1.0);
}
}  // namespace

void ChipThermal::publish(core::SiteState& state, double now, double dt, bool all) {
  // Every die is one chip's: its junction (case + mean power x R_jc) is formed where its chip is
  // published, from the values that pass reads anyway. The GPUs block by block; each block's counts
  // and extremes in its own slot, combined below in block order. The located crossings' corrections
  // are kept per GPU and summed in GPU order, so the sums do not depend on the blocks or the
  // threads.
  const double t_begin = now - dt;
  const std::size_t blocks = blockCount();
  forEachBlock(blocks, [&](std::size_t block) {
    publishGpus(state, block, t_begin, dt, all);
    const auto junction = [&](std::uint32_t d) { return T[d] + P[d] * R_jc[d]; };
    const BlockChips cpus = shareOf(cpu_die.size(), block, blocks);
    for (std::size_t c = cpus.begin; c < cpus.end; ++c) {
      if (cpu_die[c] != kNoDie) cpu_T_j[c] = junction(cpu_die[c]);
    }
    const BlockChips switches = shareOf(switch_die.size(), block, blocks);
    for (std::size_t w = switches.begin; w < switches.end; ++w) {
      if (switch_die[w] != kNoDie) switch_T_j[w] = junction(switch_die[w]);
    }
  });
  double T_max = max_gpu_T_;
  std::size_t throttled_count = 0;
  double first_throttle = kNever;     // earliest located slowdown start of this step
  double throttled_correction = 0.0;  // GPU-s: located crossings against whole steps
  for (std::size_t block = 0; block < blocks_.size(); ++block) {
    BlockResult& b = blocks_[block];
    T_max = std::max(T_max, b.T_max);
    throttled_count += b.throttled;
    gpus_shut_down_ += b.shut_down;
    first_throttle = std::min(first_throttle, b.first_throttle);
    if (b.crossings) {
      const std::size_t end = std::min(gpu_die.size(), (block + 1) * kChipBlock);
      for (std::size_t gpu = block * kChipBlock; gpu < end; ++gpu) {
        if (crossing_[gpu] != 0) {
          throttled_correction += correction_[gpu];
          crossing_[gpu] = 0;
        }
      }
    }
    b = BlockResult{};
  }
  max_gpu_T_ = T_max;
  throttled_gpu_seconds_ += dt * static_cast<double>(throttled_count) + throttled_correction;
  if (throttled_count > 0 && now >= first_fault_time_ && first_throttle_after_fault_ == kNever) {
    // GPUs already slowed when the fault came are counted by noteFault; otherwise one crossed
    // in this step.
    first_throttle_after_fault_ =
        std::max(first_fault_time_, first_throttle != kNever ? first_throttle : t_begin);
  }
}

void ChipThermal::publishGpus(core::SiteState& state, std::size_t block, double t_begin, double dt,
                              bool all) {
  // Plain pointers and local sums: the byte-wide state flags may alias anything, and member
  // accesses in the loop would be reloaded after every store.
  const std::uint32_t* die_of = gpu_die.data();
  const core::ChipSpec* const* spec_of = gpu_spec_.data();
  const double* T_case = T.data();
  const double* P_die = P.data();
  const double* R_jc_die = R_jc.data();
  double* T_view = gpu_T_j.data();
  double* T_state = state.gpu_T_junction.data();
  double* T_peak = gpu_T_j_peak.data();
  const double* P_step_max = state.gpu_P_step_max.data();
  std::uint8_t* throttled = state.gpu_throttled.data();
  std::uint8_t* shutdown = state.gpu_shutdown.data();
  BlockResult result;
  result.T_max = 0.0;
  // Crossings are located inside the step: the junction temperature is taken as linear between
  // the last step's value and this one's, so the throttle time and the throttled GPU-seconds do
  // not round to the step (a 5 s step would otherwise add up to 5 s to a ride-through).
  const std::size_t n_gpus = std::min(gpu_die.size(), (block + 1) * kChipBlock);
  for (std::size_t gpu = block * kChipBlock; gpu < n_gpus; ++gpu) {
    const std::uint32_t d = die_of[gpu];
    if (d == kNoDie) continue;
    const core::ChipSpec& spec = *spec_of[gpu];
    // The step's mean junction (case + mean power x R_jc) is what the executor's leakage and the
    // record use; slowdown and shutdown act within milliseconds, so they see the junction at the
    // highest power of the step's sub-steps (a 5 s step would otherwise average a compute phase
    // with a communication phase and throttle late).
    const double T_j_mean = T_case[d] + P_die[d] * R_jc_die[d];
    T_view[gpu] = T_j_mean;
    T_state[gpu] = T_j_mean;
    const double P_peak = std::max(P_step_max[gpu], P_die[d]);
    const double T_j = T_case[d] + P_peak * R_jc_die[d];
    const double T_j_before = T_peak[gpu];
    T_peak[gpu] = T_j;
    result.T_max = std::max(result.T_max, T_j);
    // Slowdown with hysteresis; thermal shutdown latches (the GPU stops computing and drawing
    // power for the run).
    const std::uint8_t throttled_before = throttled[gpu], shutdown_before = shutdown[gpu];
    std::uint8_t now_throttled = throttled_before;
    if (T_j > spec.T_slowdown) now_throttled = 1;
    if (T_j < spec.T_slowdown_release) now_throttled = 0;
    const std::uint8_t now_shutdown = shutdown_before != 0 || T_j > spec.T_shutdown ? 1 : 0;
    result.throttled += now_throttled;
    // The states change rarely: they and what follows from them are written only when they do.
    if (all || now_throttled != throttled_before || now_shutdown != shutdown_before) {
      if (!all && now_throttled != throttled_before && dt > 0.0) {
        const double threshold = now_throttled != 0 ? spec.T_slowdown : spec.T_slowdown_release;
        const double t_cross = locateCrossing(t_begin, dt, T_j_before, T_j, threshold);
        // Slowed from t_cross, not all step; or still slowed until t_cross.
        correction_[gpu] = now_throttled != 0 ? -(t_cross - t_begin) : t_cross - t_begin;
        crossing_[gpu] = 1;
        result.crossings = true;
        if (now_throttled != 0) result.first_throttle = std::min(result.first_throttle, t_cross);
      }
      throttled[gpu] = now_throttled;
      shutdown[gpu] = now_shutdown;
      if (now_shutdown != shutdown_before) ++result.shut_down;
      // Clocks follow power as P ~ f^3, so speed = fraction^(1/3).
      state.gpu_speed[gpu] = now_shutdown != 0    ? 0.0
                             : now_throttled != 0 ? std::cbrt(spec.throttled_power_fraction)
                                                  : 1.0;
      gpu_throttled_record[gpu] = now_throttled;
      gpu_shutdown_record[gpu] = now_shutdown;
    }
  }
  blocks_[block] = result;
}

template <class Body>
void ChipThermal::forEachBlock(std::size_t blocks, Body&& body) {
  core::forEachTask(pool_, blocks, body);
}

void ChipThermal::noteFault(double time, const core::SiteState& state) {
  first_fault_time_ = std::min(first_fault_time_, time);
  // A GPU already throttled when the fault strikes has no ride-through left.
  for (const std::uint8_t throttled : state.gpu_throttled) {
    if (throttled != 0 && first_throttle_after_fault_ == kNever) first_throttle_after_fault_ = time;
  }
}

std::optional<double> ChipThermal::rideThrough() const {
  if (first_fault_time_ == kNever || first_throttle_after_fault_ == kNever) return std::nullopt;
  return first_throttle_after_fault_ - first_fault_time_;
}

void ChipThermal::addStored(double& E) const {
  for (std::size_t d = 0; d < dies.size(); ++d)
    E += dies[d].spec->heat_capacity * (T[d] - core::kZeroCelsius_K);
}

std::string ChipThermal::describe(std::uint32_t d) const {
  const Die& die = dies[d];
  const char* kind = die.kind == ChipKind::Gpu   ? "GPU"
                     : die.kind == ChipKind::Cpu ? "CPU"
                                                 : "NVSwitch";
  return std::string(kind) + " " + std::to_string(die.chip);
}

std::optional<std::uint32_t> ChipThermal::findDie(std::string_view chip_id) const {
  for (std::size_t d = 0; d < air_begin; ++d) {  // chips on cold plates
    const Die& die = dies[d];
    const std::vector<std::string>& ids = die.kind == ChipKind::Gpu   ? layout_->gpu_ids
                                          : die.kind == ChipKind::Cpu ? layout_->cpu_ids
                                                                      : layout_->switch_ids;
    if (ids[die.chip] == chip_id) return static_cast<std::uint32_t>(d);
  }
  return std::nullopt;
}

void ChipThermal::visitState(core::StateArchive& a) {
  a(T, T_old, alpha, P, R, g, inv, store);
  a(max_gpu_T_, throttled_gpu_seconds_, gpus_shut_down_, first_fault_time_,
    first_throttle_after_fault_);
  a(gpu_T_j, cpu_T_j, switch_T_j, gpu_throttled_record, gpu_shutdown_record, gpu_T_j_peak,
    gpu_V_flow);
}

}  // namespace racktwin::thermal::cooling
