#include "racktwin/core/WorkloadJob.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace racktwin::core {

void RackLoads::resize(std::size_t racks) {
  busy.assign(racks, 0.0);
  gpu_P.assign(racks, 0.0);
  gpu_P_capped.assign(racks, 0.0);
  trace_job.assign(racks, -1);
  trace_share.assign(racks, 0.0);
  trace_offset.assign(racks, 0);
}

void RackLoads::clear() noexcept {
  std::fill(busy.begin(), busy.end(), 0.0);
  std::fill(gpu_P.begin(), gpu_P.end(), 0.0);
  std::fill(gpu_P_capped.begin(), gpu_P_capped.end(), 0.0);
  std::fill(trace_job.begin(), trace_job.end(), -1);
}

double JobSite::slowestSpeed(std::span<const std::uint32_t> racks, double fraction,
                             const SiteState& state) const noexcept {
  double speed = std::numeric_limits<double>::infinity();
  for (const std::uint32_t r : racks) {
    speed = std::min(speed, rack_min_speed[r]);
    // A power cap below the job's busy power slows its GPUs: clocks fall until the power meets
    // the cap, with P ~ f^3 (the throttle law), so speed = (cap / P_busy)^(1/3).
    const double P_busy = fraction * rack_power[r].gpu_P_max;
    const double limit = state.rack_gpu_P_limit[r];
    if (limit < P_busy) speed = std::min(speed, std::cbrt(std::max(limit, 0.0) / P_busy));
  }
  // No GPU (or a non-number) makes no progress rather than infinite progress.
  return speed >= 0.0 && std::isfinite(speed) ? speed : 0.0;
}

bool JobSite::allUp(std::span<const std::uint32_t> racks, const SiteState& state) const noexcept {
  std::uint8_t all = 1;
  for (const std::uint32_t r : racks)
    all &= state.rack_powered[r] != 0 && rack_shut_down[r] == 0 ? 1 : 0;
  return all != 0;
}

std::uint32_t JobSite::gpus(std::span<const std::uint32_t> racks) const noexcept {
  std::uint32_t n = 0;
  for (const std::uint32_t r : racks)
    n += static_cast<std::uint32_t>(layout->rack_gpu_begin[r + 1] - layout->rack_gpu_begin[r]);
  return n;
}

void WorkloadJob::bind(std::span<const std::uint32_t> racks,
                       std::span<const std::uint32_t> gpu_offsets, std::int32_t index) noexcept {
  racks_ = racks;
  gpu_offsets_ = gpu_offsets;
  index_ = index;
}

}  // namespace racktwin::core
