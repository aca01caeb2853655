#include "racktwin/power/PowerSmoothing.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "SameBits.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/FastSum.hpp"
#include "racktwin/core/StateArchive.hpp"

namespace racktwin::power {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

bool finiteNonNegative(double x) {
  return std::isfinite(x) && x >= 0.0;
}

void validateSmoothing(const core::PowerSmoothingSpec& s, const std::string& where) {
  const auto fail = [&](const std::string& message) {
    throw std::invalid_argument(where + ": power smoothing " + message);
  };
  if (!finiteNonNegative(s.E_per_gpu)) fail("energy per GPU must be >= 0 J");
  if (!(s.floor_fraction >= 0.0 && s.floor_fraction <= 1.0)) fail("floor must lie in 0..100 %");
  if (!finiteNonNegative(s.ramp_up) || !finiteNonNegative(s.ramp_down)) {
    fail("ramp rates must be >= 0 W/s (0 = unlimited)");
  }
  if (!finiteNonNegative(s.floor_hold_time)) fail("floor hold time must be >= 0 s");
  if (!finiteNonNegative(s.storage_time_constant)) fail("storage time constant must be >= 0 s");
}

}  // namespace

PowerManagement::PowerManagement(const core::SiteSpec& site, const core::SiteLayout& layout) {
  RACKTWIN_ASSERT(site.racks.size() == layout.rack_count, "layout built from another site");
  const core::ElectricalSpec& e = site.electrical;
  if (!(e.max_q_power_fraction > 0.0 && e.max_q_power_fraction <= 1.0)) {
    throw std::invalid_argument("power management: the Max-Q power fraction must lie in (0, 1]");
  }
  racks_.resize(layout.rack_count);
  for (std::size_t r = 0; r < layout.rack_count; ++r) {
    Rack& rack = racks_[r];
    rack.gpu_begin = layout.rack_gpu_begin[r];
    rack.gpu_end = layout.rack_gpu_begin[r + 1];
    rack.TGP = site.racks[r].type.gpu.P_max;
  }
  std::vector<const core::PowerPolicySpec*> policy(layout.rack_count, nullptr);
  const auto rackIndex = [&](const std::string& id, const std::string& what) {
    for (std::size_t r = 0; r < layout.rack_count; ++r) {
      if (layout.rack_ids[r] == id) return r;
    }
    throw std::invalid_argument(what + ": unknown rack '" + id + "'");
  };
  for (std::size_t i = 0; i < e.power_policies.size(); ++i) {
    const core::PowerPolicySpec& p = e.power_policies[i];
    const std::string what = "power policy #" + std::to_string(i + 1);
    validateSmoothing(p.smoothing, what);
    if (!(finiteNonNegative(p.gpu_P_cap))) {
      throw std::invalid_argument(what + ": GPU power cap must be >= 0 W (0 = none)");
    }
    if (!p.job.empty()) {
      const auto job = std::find_if(site.jobs.begin(), site.jobs.end(),
                                    [&](const core::TrainingJobSpec& j) { return j.id == p.job; });
      if (job == site.jobs.end())
        throw std::invalid_argument(what + ": unknown job '" + p.job + "'");
      for (const core::ComponentId& id : job->racks)
        policy[rackIndex(id.str(), what)] = &p;
    }
    for (const std::string& id : p.racks)
      policy[rackIndex(id, what)] = &p;
    if (p.job.empty() && p.racks.empty()) std::fill(policy.begin(), policy.end(), &p);
  }
  for (std::size_t r = 0; r < layout.rack_count; ++r) {
    Rack& rack = racks_[r];
    const core::PowerPolicySpec* p = policy[r];
    const bool max_q = p != nullptr && p->profile == core::PowerProfile::MaxQ;
    rack.profile_limit = max_q ? e.max_q_power_fraction * rack.TGP : rack.TGP;
    if (p != nullptr) {
      rack.cap = p->gpu_P_cap;
      rack.smoothing = p->smoothing;
    }
    rack.limit = rack.cap > 0.0 ? std::min(rack.cap, rack.profile_limit) : rack.profile_limit;
    if (rack.smoothing.enabled && rack.smoothing.storage_time_constant > 0.0) {
      rack.E_max = rack.smoothing.E_per_gpu * static_cast<double>(rack.gpu_end - rack.gpu_begin);
    }
    rack.E = 0.5 * rack.E_max;
  }
  last_high_.assign(layout.gpu_count, -kInfinity);
  demand_seen_.assign(layout.gpu_count, 0.0);
}

double PowerManagement::gpuFloor(std::size_t r) const noexcept {
  const Rack& rack = racks_[r];
  if (!rack.smoothing.enabled) return 0.0;
  return std::min(rack.smoothing.floor_fraction * rack.TGP, rack.limit);
}

void PowerManagement::setCap(std::size_t r, double P_cap) {
  if (!finiteNonNegative(P_cap)) {
    throw std::invalid_argument("power cap must be >= 0 W per GPU (0 removes it)");
  }
  Rack& rack = racks_[r];
  rack.cap = P_cap;
  rack.limit = P_cap > 0.0 ? std::min(P_cap, rack.profile_limit) : rack.profile_limit;
  rack.settled = false;  // the targets and the floor may move
}

double PowerManagement::gpuStep(std::size_t r, double t_end, double dt, const double* demand,
                                const double* P_prev, double* P,
                                std::uint64_t demand_version) noexcept {
  Rack& rack = racks_[r];
  const std::uint32_t g0 = rack.gpu_begin, g1 = rack.gpu_end;
  // A settled rack whose demands did not change: P holds this step's powers already. They must
  // also be the committed ones, P_prev (not so when the step that settled is recomputed). With
  // smoothing the step also needs time not to run back and every floor held to stay held.
  // The demands are those of the last computed step when their version says so, or when they
  // compare equal (then the version is noted, and the next sub-step need not compare).
  const bool same_version = demand_version != 0 && demand_version == rack.demand_version;
  rack.held = rack.settled && rack.P_committed
              && (same_version || detail::sameBits(demand + g0, demand_seen_.data() + g0, g1 - g0));
  if (rack.held) rack.demand_version = demand_version;
  if (rack.held && rack.smoothing.enabled) {
    const double t_last = rack.skipped ? rack.t_skipped : rack.t_computed;
    rack.held = t_end >= t_last && t_end - rack.release <= rack.smoothing.floor_hold_time;
    if (rack.held) {
      rack.skipped = true;
      rack.t_skipped = t_end;
    }
  }
  if (rack.held) return rack.P_sum;
  rack.P_committed = false;
  std::copy(demand + g0, demand + g1, demand_seen_.data() + g0);
  rack.demand_version = demand_version;
  if (rack.smoothing.enabled) return smoothedStep(rack, t_end, dt, demand, P_prev, P);
  const double limit = rack.limit;
  for (std::uint32_t g = g0; g < g1; ++g)
    P[g] = std::min(demand[g], limit);
  rack.P_burner_next = rack.P_deficit_next = 0.0;
  rack.settled = true;  // the powers depend on the demands and the limit only
  rack.P_sum = core::sum4(P + g0, g1 - g0);
  return rack.P_sum;
}

double PowerManagement::smoothedStep(Rack& rack, double t_end, double dt, const double* demand,
                                     const double* P_prev, double* P) noexcept {
  const std::uint32_t g0 = rack.gpu_begin, g1 = rack.gpu_end;
  const core::PowerSmoothingSpec& s = rack.smoothing;
  const double limit = rack.limit;
  const double floor = std::min(s.floor_fraction * rack.TGP, limit);
  // dt = 0 (the initial state) has no ramp: the GPUs start where their demand is.
  const double up = dt > 0.0 && s.ramp_up > 0.0 ? s.ramp_up * dt : kInfinity;
  const double down = dt > 0.0 && s.ramp_down > 0.0 ? s.ramp_down * dt : kInfinity;
  const double hold = s.floor_hold_time;
  double* last_high = last_high_.data();
  if (rack.skipped) {
    // In every skipped step the GPUs whose target reached the floor set last_high to its end;
    // they are the ones the last computed step set (demands and limit did not change since).
    for (std::uint32_t g = g0; g < g1; ++g)
      last_high[g] = last_high[g] == rack.t_computed ? rack.t_skipped : last_high[g];
    rack.skipped = false;
  }
  // Branch-free, so the loop vectorises. last_high is idempotent: a recomputed step sets the same.
  for (std::uint32_t g = g0; g < g1; ++g) {
    const double target = std::min(demand[g], limit);
    const double high = target >= floor ? t_end : last_high[g];
    last_high[g] = high;
    const double want = t_end - high <= hold ? std::max(target, floor) : target;
    P[g] = std::min(std::max(want, P_prev[g] - down), P_prev[g] + up);
  }
  // The sums in four lanes, as core::sum4 (the same P_sum), so the adds do not wait on each
  // other: the power, the burner's share above the target and the ramp's shortfall below it.
  double sum[4] = {0.0, 0.0, 0.0, 0.0}, burner[4] = {0.0, 0.0, 0.0, 0.0};
  double deficit[4] = {0.0, 0.0, 0.0, 0.0};
  std::uint32_t i = g0;
  for (; i + 4 <= g1; i += 4) {
    for (std::uint32_t j = 0; j < 4; ++j) {
      const double e = P[i + j] - std::min(demand[i + j], limit);
      sum[j] += P[i + j];
      burner[j] += std::max(e, 0.0);
      deficit[j] += std::max(-e, 0.0);
    }
  }
  for (; i < g1; ++i) {
    const double e = P[i] - std::min(demand[i], limit);
    sum[0] += P[i];
    burner[0] += std::max(e, 0.0);
    deficit[0] += std::max(-e, 0.0);
  }
  rack.P_burner_next = (burner[0] + burner[1]) + (burner[2] + burner[3]);
  rack.P_deficit_next = (deficit[0] + deficit[1]) + (deficit[2] + deficit[3]);
  rack.P_sum = (sum[0] + sum[1]) + (sum[2] + sum[3]);
  rack.t_computed = t_end;
  // Settled: every GPU has its wanted power, bit for bit (the ramps arrived). The next step with
  // the same demands then starts from P = want and returns it unchanged, whatever the ramps, as
  // long as no GPU the floor holds passes its hold time. Those keep last_high; the earliest is
  // released first. A moving rack fails at its first moving GPU.
  double release = kInfinity;
  bool settled = true;
  for (std::uint32_t g = g0; g < g1 && settled; ++g) {
    const double target = std::min(demand[g], limit);
    const bool held = t_end - last_high[g] <= hold;  // the same expressions as above
    const double want = held ? std::max(target, floor) : target;
    settled = std::bit_cast<std::uint64_t>(want) == std::bit_cast<std::uint64_t>(P[g]);
    if (held && target < floor) release = std::min(release, last_high[g]);
  }
  rack.settled = settled;
  rack.release = release;
  return rack.P_sum;
}

double PowerManagement::storageStep(std::size_t r, double B, double dt) noexcept {
  Rack& rack = racks_[r];
  if (rack.E_max <= 0.0 || !(dt > 0.0)) {
    rack.G_next = rack.A_next = B;
    rack.E_next = rack.E;
    return B;
  }
  const double A_prev = rack.G_started ? rack.A : B;
  if (dt != rack.average_dt) {  // the average's weight, computed again only for another dt
    rack.average_dt = dt;
    rack.average_weight = dt / (rack.smoothing.storage_time_constant + dt);
  }
  const double A = A_prev + (B - A_prev) * rack.average_weight;
  double G = A;
  double E = rack.E + (G - B) * dt;
  if (E > rack.E_max) {
    G = B + (rack.E_max - rack.E) / dt;
    E = rack.E_max;
  } else if (E < 0.0) {
    G = B - rack.E / dt;
    E = 0.0;
  }
  rack.G_next = G;
  rack.A_next = A;
  rack.E_next = E;
  return G;
}

void PowerManagement::commit(std::size_t r) noexcept {
  Rack& rack = racks_[r];
  rack.E = rack.E_next;
  rack.G = rack.G_next;
  rack.A = rack.A_next;
  rack.G_started = true;
  rack.P_committed = true;
  rack.P_burner = rack.P_burner_next;
  rack.P_deficit = rack.P_deficit_next;
}

void PowerManagement::commitUnpowered(std::size_t r) noexcept {
  Rack& rack = racks_[r];
  for (std::uint32_t g = rack.gpu_begin; g < rack.gpu_end; ++g)
    last_high_[g] = -kInfinity;
  rack.settled = rack.skipped = rack.held = false;
  rack.G = 0.0;
  rack.G_started = false;
  rack.P_burner = rack.P_deficit = 0.0;
}

void PowerManagement::visitState(core::StateArchive& a) {
  a.section("power management");
  a.trivial(racks_);
  a(last_high_, demand_seen_, E_burner_, E_deficit_);
}

}  // namespace racktwin::power
