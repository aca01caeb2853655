#include "racktwin/power/ElectricalModel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "SameBits.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/StateArchive.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/ThreadPool.hpp"

namespace racktwin::power {

namespace {

constexpr double kJoulePerKilowattHour = 3.6e6;
constexpr std::size_t kSeriesMin = 1024;
constexpr std::size_t kSeriesMax = std::size_t{1} << 20;  // 8 MiB of facility-power samples

/// Room for the run's electrical steps (block means beyond), a power of two.
std::size_t seriesCapacity(const core::SimulationSpec& sim) {
  double steps = 0.0;
  if (sim.step > 0.0 && sim.substeps > 0) steps = sim.duration / sim.step * sim.substeps;
  std::size_t capacity = kSeriesMin;
  while (capacity < kSeriesMax && static_cast<double>(capacity) < steps)
    capacity <<= 1;
  return capacity;
}

}  // namespace

ElectricalModel::~ElectricalModel() = default;

ElectricalModel::ElectricalModel(const core::SiteSpec& site, const core::SiteLayout& layout)
    : layout_(layout),
      present_(site.electrical.present),
      facility_series_(seriesCapacity(site.simulation)) {
  RACKTWIN_ASSERT(site.racks.size() == layout.rack_count, "layout built from another site");
  const std::size_t racks = layout.rack_count;
  rack_curve_.reserve(racks);
  std::vector<const core::PowerShelfSpec*> curve_specs;  // the spec of each of curves_
  const auto sameCurve = [](const core::PowerShelfSpec& a, const core::PowerShelfSpec& b) {
    return a.psu_P_rated == b.psu_P_rated
           && a.psu_efficiency.load_fraction == b.psu_efficiency.load_fraction
           && a.psu_efficiency.efficiency == b.psu_efficiency.efficiency;
  };
  rack_shelf_begin_.reserve(racks + 1);
  rack_shelf_begin_.push_back(0);
  shelf_psu_begin_.push_back(0);
  for (std::size_t r = 0; r < racks; ++r) {
    const core::PowerShelfSpec& power = site.racks[r].type.power;
    const std::string& rack_id = layout.rack_ids[r];
    if (power.shelves <= 0 || power.psus_per_shelf <= 0) {
      throw std::invalid_argument("rack " + rack_id
                                  + ": needs at least one power shelf with at least one PSU");
    }
    // Racks of one type share its curve: one copy stays in the cache for every rack's sub-step.
    std::size_t curve = 0;
    while (curve < curves_.size() && !sameCurve(*curve_specs[curve], power))
      ++curve;
    if (curve == curves_.size()) {
      try {
        curves_.emplace_back(power.psu_efficiency, power.psu_P_rated);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("rack " + rack_id + ": " + e.what());
      }
      curve_specs.push_back(&power);
    }
    rack_curve_.push_back(static_cast<std::uint32_t>(curve));
    for (int s = 0; s < power.shelves; ++s) {
      shelf_psu_begin_.push_back(shelf_psu_begin_.back()
                                 + static_cast<std::uint32_t>(power.psus_per_shelf));
      shelf_healthy_.push_back(static_cast<std::uint32_t>(power.psus_per_shelf));
    }
    rack_shelf_begin_.push_back(rack_shelf_begin_.back()
                                + static_cast<std::uint32_t>(power.shelves));
    rack_live_shelves_.push_back(static_cast<std::uint32_t>(power.shelves));
  }
  psu_healthy_.assign(shelf_psu_begin_.back(), 1);
  psu_feed_.assign(shelf_psu_begin_.back(), 0);
  shelf_healthy_on_.assign(2 * shelf_healthy_.size(), 0);
  for (std::size_t s = 0; s < shelf_healthy_.size(); ++s)
    shelf_healthy_on_[2 * s] = shelf_healthy_[s];
  shelf_live_ = shelf_healthy_;
  rack_powered_.assign(racks, 1);
  rack_tan_phi_.reserve(racks);
  for (std::size_t r = 0; r < racks; ++r) {
    const double pf = site.racks[r].type.power.power_factor;
    if (!(pf > 0.0 && pf <= 1.0)) {
      throw std::invalid_argument("rack " + layout.rack_ids[r]
                                  + ": PSU power factor must lie in (0, 1]");
    }
    rack_tan_phi_.push_back(std::sqrt(1.0 - pf * pf) / pf);
  }
  shelf_P_out_.assign(shelf_healthy_.size(), 0.0);
  rack_P_loss_.assign(racks, 0.0);
  rack_P_grid_dc_.assign(racks, 0.0);
  rack_feed_P_.assign(2 * racks, 0.0);
  const double duration = site.simulation.duration;
  // Statistics skip the first minute unless the run is too short to have a rest worth showing.
  min_max_from_ = duration > 120.0 ? 60.0 : 0.0;
  uniform_series_ = !site.simulation.fast_forward.enabled;
  rack_P_ac_.assign(racks, 0.0);
  rack_P_ac_mean_.assign(racks, 0.0);
  rack_P_dc_.assign(racks, 0.0);
  rack_P_psu_loss_.assign(racks, 0.0);
  rack_psu_efficiency_.assign(racks, 0.0);
  gpu_P_.assign(layout.gpu_count, 0.0);
  gpu_P_step_mean_.assign(layout.gpu_count, 0.0);
  rack_held_dt_.assign(racks, 0.0);
  rack_chips_held_dt_.assign(racks, 0.0);
  rack_P_air_.assign(racks, 0.0);
  rack_solved_shelves_.assign(racks, ~0u);
  rack_demand_version_.assign(racks, 0);
  if (present_) buildTree(site);
  fabric_ = FabricPower(site.fabric, dist_.get());
}

std::size_t ElectricalModel::shelfCount(std::size_t rack) const {
  RACKTWIN_ASSERT(rack < layout_.rack_count, "rack index out of range");
  return rack_shelf_begin_[rack + 1] - rack_shelf_begin_[rack];
}

std::size_t ElectricalModel::shelfIndex(std::size_t rack, std::size_t shelf) const {
  RACKTWIN_ASSERT(shelf < shelfCount(rack), "shelf index out of range");
  return rack_shelf_begin_[rack] + shelf;
}

std::size_t ElectricalModel::psuCount(std::size_t rack, std::size_t shelf) const {
  const std::size_t s = shelfIndex(rack, shelf);
  return shelf_psu_begin_[s + 1] - shelf_psu_begin_[s];
}

std::size_t ElectricalModel::psuIndex(std::size_t rack, std::size_t shelf, std::size_t psu) const {
  RACKTWIN_ASSERT(psu < psuCount(rack, shelf), "PSU index out of range");
  return shelf_psu_begin_[shelfIndex(rack, shelf)] + psu;
}

void ElectricalModel::setPsuHealthy(std::size_t rack, std::size_t shelf, std::size_t psu,
                                    bool healthy) {
  const std::size_t p = psuIndex(rack, shelf, psu);
  if ((psu_healthy_[p] != 0) == healthy) return;
  psu_healthy_[p] = healthy ? 1 : 0;
  const std::size_t s = shelfIndex(rack, shelf);
  const bool shelf_was_live = shelf_healthy_[s] > 0;
  std::uint32_t& on_feed = shelf_healthy_on_[2 * s + psu_feed_[p]];
  if (healthy) {
    ++shelf_healthy_[s];
    ++on_feed;
  } else {
    --shelf_healthy_[s];
    --on_feed;
  }
  const bool shelf_is_live = shelf_healthy_[s] > 0;
  if (shelf_is_live && !shelf_was_live) ++rack_live_shelves_[rack];
  if (!shelf_is_live && shelf_was_live) --rack_live_shelves_[rack];
  rack_solved_shelves_[rack] = ~0u;  // the losses change: solve the rack again
  if (!rack_shelves_.empty()) rack_shelves_[rack].key = RackShelves::kStale;
}

bool ElectricalModel::psuHealthy(std::size_t rack, std::size_t shelf, std::size_t psu) const {
  return psu_healthy_[psuIndex(rack, shelf, psu)] != 0;
}

int ElectricalModel::psuFeed(std::size_t rack, std::size_t shelf, std::size_t psu) const {
  return psu_feed_[psuIndex(rack, shelf, psu)];
}

double ElectricalModel::psuOutput(std::size_t rack, std::size_t shelf, std::size_t psu) const {
  if (!psuHealthy(rack, shelf, psu)) return 0.0;
  const std::size_t s = shelfIndex(rack, shelf);
  if (!present_) return shelf_P_out_[s] / static_cast<double>(shelf_healthy_[s]);
  if (!dist_->feedLive(rack, psuFeed(rack, shelf, psu)) || shelf_live_[s] == 0) return 0.0;
  return shelf_P_out_[s] / static_cast<double>(shelf_live_[s]);
}

double ElectricalModel::shelfOutput(std::size_t rack, std::size_t shelf) const {
  return shelf_P_out_[shelfIndex(rack, shelf)];
}

const PsuEfficiency& ElectricalModel::psuCurve(std::size_t rack) const {
  RACKTWIN_ASSERT(rack < layout_.rack_count, "rack index out of range");
  return curves_[rack_curve_[rack]];
}

void ElectricalModel::initialize(core::SiteState& state) {
  RACKTWIN_ASSERT(state.gpu_P_demand.size() == layout_.gpu_count
                      && state.cpu_P_demand.size() == layout_.cpu_count
                      && state.switch_P_demand.size() == layout_.switch_count
                      && state.rack_P_ac.size() == layout_.rack_count,
                  "SiteState not sized for this layout");
  it_energy_.reset();
  psu_loss_energy_.reset();
  dc_energy_.reset();
  facility_energy_.reset();
  load_energy_.reset();
  fabric_energy_.reset();
  fabric_E_macro_ = 0.0;
  fabric_macro_start_ = -1.0;
  facility_series_.clear();
  series_started_ = have_min_max_ = have_min_max_all_ = false;
  gpus_unpowered_max_ = 0;
  std::fill(rack_held_dt_.begin(), rack_held_dt_.end(), 0.0);
  std::fill(rack_chips_held_dt_.begin(), rack_chips_held_dt_.end(), 0.0);
  std::fill(rack_solved_shelves_.begin(), rack_solved_shelves_.end(), ~0u);
  versions_of_ = nullptr;  // the demands' versions are compared afresh
  limits_of_ = nullptr;    // and the limits published
  if (present_) {
    solveTree(state.time, 0.0, state);
    publishTreeViews();  // whatever last_substep says: the recorder's first sample follows
  } else {
    solve(0.0, state);
  }
  publishLimits(state);
}

// The racks' GPU power limits (profiles and caps) for the workload, which slows capped jobs.
// They change only with a cap (an event) or a restored state: written then, not every sub-step
// (the workload's tasks read them, and a write would take their cache lines every time).
void ElectricalModel::publishLimits(core::SiteState& state) noexcept {
  if (!pm_ || limits_of_ == state.rack_gpu_P_limit.data()) return;
  for (std::size_t r = 0; r < layout_.rack_count; ++r)
    state.rack_gpu_P_limit[r] = pm_->gpuLimit(r);
  limits_of_ = state.rack_gpu_P_limit.data();
}

void ElectricalModel::advance(double t, double dt, core::SiteState& state) {
  RACKTWIN_ASSERT(dt > 0.0, "advance needs dt > 0");
  if (present_) {
    solveTree(t, dt, state);
  } else {
    solve(dt, state);
  }
  publishLimits(state);
}

std::size_t ElectricalModel::rackIndex(const core::EventSpec& event) const {
  for (std::size_t r = 0; r < layout_.rack_count; ++r) {
    if (layout_.rack_ids[r] == event.target) return r;
  }
  throw core::RuntimeError("event at t = " + std::to_string(event.time) + " s: '" + event.target
                           + "' is not a rack");
}

bool ElectricalModel::applyEvent(const core::EventSpec& event, core::SiteState& state) {
  using K = core::EventKind;
  if (!present_) return false;
  const double t = state.time;
  const auto eachRack = [&](const auto& action) {
    if (event.target.empty()) {
      for (std::size_t r = 0; r < layout_.rack_count; ++r)
        action(r);
    } else {
      action(rackIndex(event));
    }
  };
  switch (event.kind) {
    case K::FeedLoss:
    case K::FeedRestore: {
      if (event.value != 0.0 && event.value != 1.0) {
        throw core::RuntimeError("feed event at t = " + std::to_string(event.time)
                                 + " s: value must be 0 (feed A) or 1 (feed B)");
      }
      const int side = event.value == 0.0 ? Distribution::kFeedA : Distribution::kFeedB;
      eachRack([&](std::size_t r) {
        if (side == Distribution::kFeedB && !dist_->dualCorded(r)) {
          if (!event.target.empty()) {
            throw core::RuntimeError("feed event at t = " + std::to_string(event.time) + " s: rack "
                                     + layout_.rack_ids[r] + " has no feed B");
          }
          return;
        }
        if (event.kind == K::FeedLoss) {
          dist_->loseFeed(r, side, t);
        } else {
          dist_->restoreFeed(r, side, t);
        }
      });
      return true;
    }
    case K::UtilityOutage:
      dist_->utilityOutage(t);
      return true;
    case K::UtilityRestore:
      dist_->utilityRestore(t);
      return true;
    case K::SetPowerCap:
      if (!(event.value >= 0.0)) {
        throw core::RuntimeError("power cap event at t = " + std::to_string(event.time)
                                 + " s: the cap must be >= 0 W per GPU (0 removes it)");
      }
      eachRack([&](std::size_t r) { pm_->setCap(r, event.value); });
      limits_of_ = nullptr;  // published at the next advance
      return true;
    default:
      return false;
  }
}

// Adds the energy of the chips of rack r for the time their committed powers were held.
void ElectricalModel::flushRackEnergy(std::size_t r, core::SiteState& state) noexcept {
  flushGpuEnergy(r, state);
  flushChipEnergy(r, state);
}

void ElectricalModel::flushGpuEnergy(std::size_t r, core::SiteState& state) noexcept {
  const double held = rack_held_dt_[r];
  rack_held_dt_[r] = 0.0;
  if (!(held > 0.0)) return;
  // Every power held in a macro step passes here, so its highest is kept on the way.
  for (std::size_t g = layout_.rack_gpu_begin[r]; g < layout_.rack_gpu_begin[r + 1]; ++g) {
    state.gpu_E_step[g] += state.gpu_P[g] * held;
    state.gpu_P_step_max[g] = std::max(state.gpu_P_step_max[g], state.gpu_P[g]);
  }
}

void ElectricalModel::flushChipEnergy(std::size_t r, core::SiteState& state) noexcept {
  const double held = rack_chips_held_dt_[r];
  rack_chips_held_dt_[r] = 0.0;
  if (!(held > 0.0)) return;
  for (std::size_t c = layout_.rack_cpu_begin[r]; c < layout_.rack_cpu_begin[r + 1]; ++c)
    state.cpu_E_step[c] += state.cpu_P[c] * held;
  for (std::size_t w = layout_.rack_switch_begin[r]; w < layout_.rack_switch_begin[r + 1]; ++w)
    state.switch_E_step[w] += state.switch_P[w] * held;
}

void ElectricalModel::useThreads(core::ThreadPool& pool) {
  pool_ = pool.size() > 1 && layout_.rack_count > kRackBlock ? &pool : nullptr;
}

void ElectricalModel::checkVersionsOf(const core::SiteState& state) noexcept {
  if (versions_of_ == state.rack_demand_version.data()) return;
  versions_of_ = state.rack_demand_version.data();
  std::fill(rack_demand_version_.begin(), rack_demand_version_.end(), 0);
  if (pm_) pm_->forgetDemandVersions();
}

void ElectricalModel::solve(double dt, core::SiteState& state) {
  checkVersionsOf(state);
  // Step means (energy so far over time so far) are what a report integrates: at the last
  // sub-step they equal the macro step's average, free of the aliasing of instantaneous samples.
  const double elapsed = state.time + dt - state.step_start;
  const double inv_elapsed = gpuMeansFactor(state, dt);
  core::forEachItem(pool_, layout_.rack_count, kRackBlock, [&](std::size_t r) {
    solveRack(r, dt, elapsed, state);
    publishGpuMeans(r, state, inv_elapsed);
  });
  // The site's sums in rack order, from the racks' own values.
  double site_P_ac = 0.0;
  double site_P_dc = 0.0;
  double site_P_loss = 0.0;
  double site_P_ac_mean = 0.0;
  std::size_t gpus_off = 0;
  for (std::size_t r = 0; r < layout_.rack_count; ++r) {
    if (rack_live_shelves_[r] == 0)
      gpus_off += layout_.rack_gpu_begin[r + 1] - layout_.rack_gpu_begin[r];
    site_P_ac_mean += rack_P_ac_mean_[r];
    site_P_ac += rack_P_ac_[r];
    site_P_dc += rack_P_dc_[r];
    site_P_loss += rack_P_psu_loss_[r];
  }
  const double P_fabric = bookFabric(dt, state);
  site_P_it_ = site_P_ac + P_fabric;
  site_P_it_mean_ = site_P_ac_mean + fabric_P_mean_;
  gpus_unpowered_ = gpus_off;
  if (dt > 0.0) {
    it_energy_.add(site_P_ac * dt);
    dc_energy_.add(site_P_dc * dt);
    psu_loss_energy_.add(site_P_loss * dt);
    facility_energy_.add((site_P_ac + P_fabric) * dt);
    load_energy_.add(site_P_dc * dt);
  }
  recordSite(state.time, dt, site_P_it_, site_P_it_);
}

void ElectricalModel::solveRack(std::size_t r, double dt, double elapsed, core::SiteState& state) {
  const auto sameAs = [](const std::vector<double>& demand, const std::vector<double>& drawn,
                         std::size_t begin, std::size_t end) {
    return detail::sameBits(demand.data() + begin, drawn.data() + begin, end - begin);
  };
  const bool powered = rack_live_shelves_[r] > 0;
  const std::size_t g0 = layout_.rack_gpu_begin[r], g1 = layout_.rack_gpu_begin[r + 1];
  const std::size_t c0 = layout_.rack_cpu_begin[r], c1 = layout_.rack_cpu_begin[r + 1];
  const std::size_t w0 = layout_.rack_switch_begin[r], w1 = layout_.rack_switch_begin[r + 1];
  // Most sub-steps change no demand (phases last seconds, temperatures move once per macro
  // step): the demands' version, or else comparing, is cheaper than rewriting every chip's
  // power and energy.
  const std::uint64_t version = state.rack_demand_version[r];
  const bool same_version = version != 0 && version == rack_demand_version_[r];
  const bool unchanged =
      rack_solved_shelves_[r] == rack_live_shelves_[r]
      && (!powered
          || ((same_version
               || (sameAs(state.gpu_P_demand, gpu_P_, g0, g1)
                   && sameAs(state.cpu_P_demand, state.cpu_P, c0, c1)
                   && sameAs(state.switch_P_demand, state.switch_P, w0, w1)))
              && state.rack_air_P_demand[r] + state.rack_fan_P[r] == rack_P_air_[r]));
  // The drawn powers now equal this version's demands (when powered).
  rack_demand_version_[r] = powered ? version : 0;
  if (!unchanged) {
    flushRackEnergy(r, state);  // at the powers held until now
    rack_solved_shelves_[r] = rack_live_shelves_[r];
    rack_powered_[r] = powered ? 1 : 0;
    state.rack_powered[r] = rack_powered_[r];
    double P_dc = 0.0;
    for (std::size_t g = g0; g < g1; ++g) {
      const double P = powered ? state.gpu_P_demand[g] : 0.0;
      state.gpu_P[g] = P;
      gpu_P_[g] = P;
      P_dc += P;
    }
    for (std::size_t c = c0; c < c1; ++c) {
      const double P = powered ? state.cpu_P_demand[c] : 0.0;
      state.cpu_P[c] = P;
      P_dc += P;
    }
    for (std::size_t w = w0; w < w1; ++w) {
      const double P = powered ? state.switch_P_demand[w] : 0.0;
      state.switch_P[w] = P;
      P_dc += P;
    }
    // The trays' air loads, and an air-cooled rack's server fans (cooling model).
    const double P_air = powered ? state.rack_air_P_demand[r] + state.rack_fan_P[r] : 0.0;
    rack_P_air_[r] = P_air;
    P_dc += P_air;

    double P_loss = 0.0;
    const double P_shelf = powered ? P_dc / static_cast<double>(rack_live_shelves_[r]) : 0.0;
    const PsuEfficiency& curve = curves_[rack_curve_[r]];
    for (std::size_t s = rack_shelf_begin_[r]; s < rack_shelf_begin_[r + 1]; ++s) {
      const std::uint32_t healthy = shelf_healthy_[s];
      if (healthy == 0) {
        shelf_P_out_[s] = 0.0;
        continue;
      }
      shelf_P_out_[s] = P_shelf;
      const double n = static_cast<double>(healthy);
      P_loss += n * curve.loss(P_shelf / n);
    }
    const double P_ac = P_dc + P_loss;
    state.rack_P_dc[r] = P_dc;
    state.rack_P_ac[r] = P_ac;
    state.rack_P_psu_loss[r] = P_loss;
    rack_P_dc_[r] = P_dc;
    rack_P_ac_[r] = P_ac;
    rack_P_psu_loss_[r] = P_loss;
    rack_psu_efficiency_[r] = P_ac > 0.0 ? P_dc / P_ac : 0.0;
    rack_P_loss_[r] = P_loss;
    rack_P_grid_dc_[r] = P_dc;
    rack_feed_P_[2 * r] = P_ac;
  }
  rack_held_dt_[r] += dt;
  rack_chips_held_dt_[r] += dt;
  if (state.last_substep) flushRackEnergy(r, state);
  const double P_ac = rack_P_ac_[r], P_loss = rack_P_psu_loss_[r];
  state.rack_air_E_step[r] += (rack_P_air_[r] + P_loss) * dt;
  state.rack_ac_E_step[r] += P_ac * dt;
  rack_P_ac_mean_[r] = elapsed > 0.0 ? state.rack_ac_E_step[r] / elapsed : P_ac;
}

double ElectricalModel::gpuMeansFactor(const core::SiteState& state, double dt) noexcept {
  if (!state.last_substep) return 0.0;  // every rack flushes its GPU energies at the last sub-step
  const double elapsed = state.time + dt - state.step_start;
  return elapsed > 0.0 ? 1.0 / elapsed : 0.0;
}

void ElectricalModel::publishGpuMeans(std::size_t r, const core::SiteState& state,
                                      double inv_elapsed) {
  if (!(inv_elapsed > 0.0)) return;
  const double* E = state.gpu_E_step.data();
  double* P = gpu_P_step_mean_.data();
  for (std::size_t g = layout_.rack_gpu_begin[r]; g < layout_.rack_gpu_begin[r + 1]; ++g)
    P[g] = E[g] * inv_elapsed;
}

double ElectricalModel::bookFabric(double dt, core::SiteState& state) {
  if (fabric_.switches() == 0) return 0.0;
  const double P = fabric_.drawn(dist_.get());
  fabric_P_ = P;
  if (fabric_macro_start_ != state.step_start) {
    fabric_macro_start_ = state.step_start;
    fabric_E_macro_ = 0.0;
  }
  if (dt > 0.0) {
    const double E = P * dt;
    fabric_E_macro_ += E;
    fabric_energy_.add(E);
    it_energy_.add(E);
    load_energy_.add(E);         // a load of the tree (or the ideal source), like the busbars'
    state.hall_air_E_step += E;  // air-cooled switches: all of it heats the hall's air
  }
  const double elapsed = state.time + dt - state.step_start;
  fabric_P_mean_ = elapsed > 0.0 ? fabric_E_macro_ / elapsed : P;
  return P;
}

void ElectricalModel::recordSite(double t, double dt, double P_facility, double P_it) {
  site_P_facility_ = P_facility;
  gpus_unpowered_value_ = static_cast<double>(gpus_unpowered_);
  gpus_unpowered_max_ = std::max(gpus_unpowered_max_, gpus_unpowered_);
  if (!(dt > 0.0)) return;  // the initial state is an instant, not a step
  if (!series_started_) {
    series_start_ = t;
    series_started_ = true;
  }
  facility_series_.add(P_facility, dt);
  const auto track = [&](bool& have, double& f_min, double& f_max, double& i_min, double& i_max) {
    if (!have) {
      f_min = f_max = P_facility;
      i_min = i_max = P_it;
      have = true;
      return;
    }
    f_min = std::min(f_min, P_facility);
    f_max = std::max(f_max, P_facility);
    i_min = std::min(i_min, P_it);
    i_max = std::max(i_max, P_it);
  };
  track(have_min_max_all_, facility_min_all_, facility_max_all_, it_min_all_, it_max_all_);
  if (t >= min_max_from_ - 1e-9 * dt) {
    track(have_min_max_, facility_min_, facility_max_, it_min_, it_max_);
  }
}

double ElectricalModel::roomLossPower(std::size_t room) const noexcept {
  return dist_ ? dist_->roomLoss(room) : 0.0;
}

double ElectricalModel::lossEnergy() const noexcept {
  double E = psu_loss_energy_.value() + busbar_loss_energy_.value();
  if (dist_) E += dist_->lossEnergy();
  return E;
}

double ElectricalModel::energyBalanceRelativeError() const noexcept {
  const double input = facility_energy_.value();
  double stored = storage_change_.value();
  if (dist_) stored += dist_->batteryEnergyChange();
  const double out = load_energy_.value() + lossEnergy() + stored;
  // A non-finite energy has no balance: NaN, never the 0 a comparison with NaN would give.
  if (!std::isfinite(input) || !std::isfinite(out)) return std::numeric_limits<double>::quiet_NaN();
  const double scale = std::max(std::abs(input), std::abs(out));
  return scale > 0.0 ? std::abs(input - out) / scale : 0.0;
}

void ElectricalModel::finalize(core::SiteState& /*state*/) {
  // The spectrum after the first minute when enough remains (the start-up ramp would dominate).
  const std::span<const double> all = facility_series_.values();
  const double interval = facility_series_.interval();
  std::size_t skip = 0;
  if (interval > 0.0 && min_max_from_ > series_start_) {
    skip = static_cast<std::size_t>(std::ceil((min_max_from_ - series_start_) / interval - 1e-9));
  }
  if (skip + 64 > all.size()) skip = 0;
  peak_ = uniform_series_ ? dominantOscillation(all.subspan(skip), interval) : SpectralPeak{};
}

std::vector<std::string> ElectricalModel::eventLog() const {
  std::vector<std::string> log;
  if (!dist_) return log;
  for (const ElectricalEvent& e : dist_->events())
    log.push_back(dist_->describe(e, layout_.rack_ids));
  return log;
}

void ElectricalModel::declareChannels(core::Recorder& recorder) {
  // A channel without entities would read as a scalar, so empty sets are not declared.
  if (layout_.rack_count > 0) {
    const auto rack = [&](std::string channel, std::string unit, std::string description,
                          const std::vector<double>& data, core::Aggregation aggregation) {
      recorder.add(core::ChannelInfo{"rack", std::move(channel), std::move(unit),
                                     std::move(description), layout_.rack_ids, aggregation},
                   data.data());
    };
    // The powers hold each sub-step's value (SubstepMean); the *_mean views the macro step's
    // mean at its end (Mean): both record the mean over the record interval.
    using core::Aggregation;
    rack("P_ac", "W", "AC input power of the rack's power shelves", rack_P_ac_,
         Aggregation::SubstepMean);
    rack("P_ac_mean", "W", "AC input power of the rack's power shelves, mean over the macro step",
         rack_P_ac_mean_, Aggregation::Mean);
    rack("P_dc", "W", "DC busbar load of the rack (chips and air-cooled tray loads)", rack_P_dc_,
         Aggregation::SubstepMean);
    rack("P_psu_loss", "W", "Conversion loss of the rack's PSUs (heat to room air)",
         rack_P_psu_loss_, Aggregation::SubstepMean);
    // A ratio of two powers: its mean would not be the ratio of the mean powers.
    rack("psu_efficiency", "1",
         "Power shelf efficiency, DC output over AC input (0 when off), at the record time",
         rack_psu_efficiency_, Aggregation::Sample);
  }
  if (layout_.gpu_count > 0) {
    recorder.add(core::ChannelInfo{"gpu", "P", "W", "Electrical power drawn by the GPU",
                                   layout_.gpu_ids, core::Aggregation::Mean},
                 gpu_P_step_mean_.data());
  }
  recorder.add(
      core::ChannelInfo{"site",
                        "P_it",
                        "W",
                        "IT power: the racks' power shelf AC input and the fabric's switches",
                        {},
                        core::Aggregation::SubstepMean},
      &site_P_it_);
  recorder.add(core::ChannelInfo{"site",
                                 "P_it_mean",
                                 "W",
                                 "IT power, mean over the macro step (integrate this for energy)",
                                 {},
                                 core::Aggregation::Mean},
               &site_P_it_mean_);
  if (fabric_.switches() > 0) {
    recorder.add(core::ChannelInfo{"site",
                                   "P_fabric",
                                   "W",
                                   "The fabric's switches (part of the IT power)",
                                   {},
                                   core::Aggregation::SubstepMean},
                 &fabric_P_);
  }
  if (present_) declareTreeChannels(recorder);
}

void ElectricalModel::summarise(core::Summary& summary) const {
  summary.add(core::SummaryItem{"it_energy_J", itEnergy(), "IT energy (power shelf AC input)",
                                "kWh", 1.0 / kJoulePerKilowattHour, 0.0});
  if (fabric_.switches() > 0) {
    summary.add({"fabric_switches", static_cast<double>(fabric_.switches()),
                 "Fabric switches (non-blocking fat tree)", "", 1.0, 0.0});
    summary.add({"fabric_power_W", fabric_.ratedPower(), "Fabric switch power (all switches)", "kW",
                 1e-3, 0.0});
    summary.add({"fabric_energy_J", fabricEnergy(), "Fabric switch energy (part of IT)", "kWh",
                 1.0 / kJoulePerKilowattHour, 0.0});
    summary.add(
        {"fabric_it_share",
         itEnergy() > 0.0 ? std::optional<double>(fabricEnergy() / itEnergy()) : std::nullopt,
         "Fabric share of the IT energy", "%", 100.0, 0.0});
  }
  summary.add(core::SummaryItem{"psu_loss_energy_J", psuLossEnergy(), "PSU conversion losses",
                                "kWh", 1.0 / kJoulePerKilowattHour, 0.0});
  // Power statistics after the first minute (the whole run when it is two minutes or less).
  const bool after = have_min_max_;
  const bool any = have_min_max_ || have_min_max_all_;
  const auto stat = [&](double after_value, double all_value) -> std::optional<double> {
    if (!any) return std::nullopt;
    return after ? after_value : all_value;
  };
  const std::string when = min_max_from_ > 0.0 ? " (after the first minute)" : "";
  summary.add({"facility_power_max_W", stat(facility_max_, facility_max_all_),
               "Facility power at the tree input, max" + when, "kW", 1e-3, 0.0});
  summary.add({"facility_power_min_W", stat(facility_min_, facility_min_all_),
               "Facility power at the tree input, min" + when, "kW", 1e-3, 0.0});
  summary.add(
      {"it_power_max_W", stat(it_max_, it_max_all_), "IT power, max" + when, "kW", 1e-3, 0.0});
  summary.add(
      {"it_power_min_W", stat(it_min_, it_min_all_), "IT power, min" + when, "kW", 1e-3, 0.0});
  summary.add({"gpus_unpowered_max", static_cast<double>(gpus_unpowered_max_),
               "Most GPUs without power at once", "", 1.0, 0.0});
  const auto peak = [&](double value) -> std::optional<double> {
    if (!peak_.found) return std::nullopt;
    return value;
  };
  summary.add({"facility_power_dominant_frequency_Hz", peak(peak_.frequency),
               "Dominant oscillation of the facility power at the tree input", "Hz", 1.0, 0.0});
  summary.add({"facility_power_dominant_amplitude_W", peak(peak_.amplitude),
               "Amplitude of that oscillation", "kW", 1e-3, 0.0});
  {
    // Energy the site drew from its own storage (UPS batteries, rack energy storage): with the
    // utility lost, the batteries carry the load, and a PUE from the tree's input alone falls
    // below 1.
    double stored = storage_change_.value();
    if (dist_) stored += dist_->batteryEnergyChange();
    summary.add({"electrical_storage_energy_change_J", stored,
                 "Energy stored in UPS batteries and rack storage (change)", "kWh",
                 1.0 / kJoulePerKilowattHour, 0.0});
  }
  summary.add(core::SummaryItem{"facility_electrical_energy_J", facilityEnergy(),
                                "Facility electrical energy (input of the power tree)", "kWh",
                                1.0 / kJoulePerKilowattHour, 0.0});
  summary.add(core::SummaryItem{"electrical_losses_J", lossEnergy(),
                                "Electrical losses (PSU, busbar, distribution, UPS)", "kWh",
                                1.0 / kJoulePerKilowattHour, 0.0});
  summary.add({"electrical_energy_balance_relative_error", energyBalanceRelativeError(),
               "Electrical energy balance, relative error", "", 1.0, 0.0});
  if (present_) summariseTree(summary);
}

void ElectricalModel::visitState(core::StateArchive& a, const core::SiteState& state) {
  limits_of_ = nullptr;  // a restored state may hold other caps: published at the next advance
  a(present_, min_max_from_, rack_tan_phi_, psu_healthy_, psu_feed_, shelf_healthy_,
    shelf_healthy_on_, shelf_live_, rack_live_shelves_, shelf_P_out_);
  a(rack_P_ac_, rack_P_ac_mean_, rack_P_dc_, rack_P_psu_loss_, rack_psu_efficiency_, gpu_P_,
    gpu_P_step_mean_, site_P_it_, site_P_it_mean_);
  it_energy_.visitState(a);
  psu_loss_energy_.visitState(a);
  dc_energy_.visitState(a);
  a(site_P_facility_);
  facility_energy_.visitState(a);
  load_energy_.visitState(a);
  a(gpus_unpowered_, gpus_unpowered_max_, gpus_unpowered_value_, facility_min_, facility_max_,
    it_min_, it_max_, facility_min_all_, facility_max_all_, it_min_all_, it_max_all_, have_min_max_,
    have_min_max_all_);
  facility_series_.visitState(a);
  a(series_start_, series_started_);
  a.trivial(peak_);
  a(rack_powered_, rack_held_dt_, rack_chips_held_dt_, rack_P_air_, rack_solved_shelves_,
    rack_demand_version_);
  // Noted of this run's state; an address does not survive a process.
  versions_of_ = state.rack_demand_version.data();
  a.section("electrical distribution");
  bool has_tree = dist_ != nullptr, has_management = pm_ != nullptr;
  a(has_tree, has_management);
  if (has_tree != (dist_ != nullptr) || has_management != (pm_ != nullptr)) {
    throw core::RuntimeError("saved state does not fit this run: the electrical section differs");
  }
  if (dist_) dist_->visitState(a);
  if (pm_) pm_->visitState(a);
  a(hall_room_, busbar_k_);
  a.trivial(rack_step_);
  a.trivial(rack_reuse_);
  a.trivial(rack_shelves_);
  a(rack_P_loss_, rack_P_grid_dc_, rack_feed_P_, rack_feed_I_, rack_feed_use_, rack_feed_inv_rated_,
    rack_feed_closed_, rack_powered_value_, rack_E_storage_, rack_P_burner_, tree_elements_,
    element_I_, element_use_, element_V_, element_closed_, element_P_loss_, ups_soc_, ups_P_out_,
    ups_P_battery_, room_P_loss_, site_P_losses_, site_P_generator_, site_utility_live_,
    site_generator_online_);
  busbar_loss_energy_.visitState(a);
  storage_change_.visitState(a);
  a(feed_utilisation_max_, mv_feeders_, mv_feeder_I_max_);
  a.section("fabric");
  a(fabric_P_, fabric_P_mean_, fabric_E_macro_, fabric_macro_start_);
  fabric_energy_.visitState(a);
}

}  // namespace racktwin::power
