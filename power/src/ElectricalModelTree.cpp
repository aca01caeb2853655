// ElectricalModel with an electrical section: the racks' power management, busbar, storage and
// PSU feeds, coupled to the distribution tree (see ElectricalModel.hpp).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "SameBits.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/FastSum.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/ThreadPool.hpp"
#include "racktwin/power/ElectricalModel.hpp"

namespace racktwin::power {

namespace {

constexpr double kJoulePerKilowattHour = 3.6e6;
constexpr int kA = Distribution::kFeedA;
constexpr int kB = Distribution::kFeedB;
using detail::sameBits;
using detail::storeChanged;

}  // namespace

void ElectricalModel::buildTree(const core::SiteSpec& site) {
  const core::ElectricalSpec& e = site.electrical;
  const std::size_t racks = layout_.rack_count;
  if (!(std::isfinite(e.busbar_V_nominal) && e.busbar_V_nominal > 0.0)) {
    throw std::invalid_argument("electrical: busbar voltage must be > 0 V");
  }
  if (!(std::isfinite(e.busbar_R) && e.busbar_R >= 0.0)) {
    throw std::invalid_argument("electrical: busbar resistance must be >= 0 ohm");
  }
  busbar_k_ = 4.0 * e.busbar_R / (e.busbar_V_nominal * e.busbar_V_nominal);
  dist_ = std::make_unique<Distribution>(site, layout_);
  pm_ = std::make_unique<PowerManagement>(site, layout_);

  // Which feed each PSU hangs on.
  for (std::size_t r = 0; r < racks; ++r) {
    const bool dual = dist_->dualCorded(r);
    const std::uint32_t shelves = rack_shelf_begin_[r + 1] - rack_shelf_begin_[r];
    for (std::uint32_t i = 0; i < shelves; ++i) {
      const std::size_t s = rack_shelf_begin_[r] + i;
      const std::uint32_t psus = shelf_psu_begin_[s + 1] - shelf_psu_begin_[s];
      shelf_healthy_on_[2 * s] = shelf_healthy_on_[2 * s + 1] = 0;
      for (std::uint32_t j = 0; j < psus; ++j) {
        const std::size_t p = shelf_psu_begin_[s] + j;
        int feed = kA;
        if (dual) {
          feed = e.feed_split == core::FeedSplit::PsusInShelf ? (j < (psus + 1) / 2 ? kA : kB)
                                                              : (i < (shelves + 1) / 2 ? kA : kB);
        }
        psu_feed_[p] = static_cast<std::uint8_t>(feed);
        if (psu_healthy_[p]) ++shelf_healthy_on_[2 * s + static_cast<std::size_t>(feed)];
      }
    }
  }

  rack_step_.assign(racks, RackStep{});
  const std::size_t blocks = (racks + kRackBlock - 1) / kRackBlock;
  block_loads_changed_.assign(blocks, 0);
  block_sums_.assign(blocks, BlockSums{});
  rack_reuse_.assign(racks, RackReuse{});
  rack_shelves_.assign(racks, RackShelves{});
  rack_feed_inv_rated_.assign(2 * racks, 0.0);
  for (std::size_t r = 0; r < racks; ++r) {
    for (int side = 0; side < 2; ++side) {
      const int b = dist_->feedBranch(r, side);
      const double I_rated = b >= 0 ? dist_->ratedCurrent(static_cast<std::size_t>(b)) : 0.0;
      if (I_rated > 0.0)
        rack_feed_inv_rated_[2 * r + static_cast<std::size_t>(side)] = 1.0 / I_rated;
    }
  }
  rack_feed_I_.assign(2 * racks, 0.0);
  rack_feed_use_.assign(2 * racks, 0.0);
  rack_feed_closed_.assign(2 * racks, 0.0);
  rack_powered_value_.assign(racks, 1.0);
  rack_E_storage_.assign(racks, 0.0);
  rack_P_burner_.assign(racks, 0.0);
  for (std::size_t b = 0; b < dist_->elementCount(); ++b) {
    const ElementKind kind = dist_->elementKind(b);
    if (kind != ElementKind::Feed) tree_elements_.push_back(b);
    const bool line = kind == ElementKind::Switchboard || kind == ElementKind::Busway
                      || kind == ElementKind::Rpp || kind == ElementKind::Cable;
    if (line && dist_->tree().parent(b) == PowerTree::kSourceBus) mv_feeders_.push_back(b);
  }
  mv_feeder_I_max_.assign(mv_feeders_.size(), 0.0);
  const std::size_t n = tree_elements_.size();
  element_I_.assign(n, 0.0);
  element_use_.assign(n, 0.0);
  element_V_.assign(n, 0.0);
  element_closed_.assign(n, 1.0);
  element_P_loss_.assign(n, 0.0);
  ups_soc_.assign(dist_->upsCount(), 0.0);
  ups_P_out_.assign(dist_->upsCount(), 0.0);
  ups_P_battery_.assign(dist_->upsCount(), 0.0);
  room_P_loss_.assign(dist_->roomNames().size(), 0.0);
  // The room named "hall" is the data hall whose air the cooling model holds: its elements'
  // losses heat that air. Other rooms (UPS and transformer rooms) are reported, not modelled.
  hall_room_ = -1;
  for (std::size_t i = 0; i < dist_->roomNames().size(); ++i)
    if (dist_->roomNames()[i] == kHallRoom) hall_room_ = static_cast<int>(i);
}

void ElectricalModel::computeRack(std::size_t r, double t, double dt,
                                  const core::SiteState& state) {
  RackStep& k = rack_step_[r];
  const std::uint32_t a = dist_->feedLive(r, kA) ? 1 : 0;
  const std::uint32_t b = dist_->feedLive(r, kB) ? 1 : 0;
  // The live PSUs per shelf change only with a feed or a PSU: counted again then.
  RackShelves& shelves = rack_shelves_[r];
  if (shelves.key != (a | b << 1)) {
    shelves = RackShelves{};
    shelves.key = a | b << 1;
    std::uint32_t first = 0;
    bool uniform = true;
    for (std::size_t s = rack_shelf_begin_[r]; s < rack_shelf_begin_[r + 1]; ++s) {
      const std::uint32_t on_a = shelf_healthy_on_[2 * s] * a;
      const std::uint32_t on_b = shelf_healthy_on_[2 * s + 1] * b;
      const std::uint32_t live = on_a + on_b;
      shelf_live_[s] = live;
      if (live == 0) continue;
      if (first == 0) first = live;
      uniform = uniform && live == first;
      ++shelves.shelves;
      shelves.psus += live;
      shelves.psus_a += on_a;
      shelves.psus_b += on_b;
    }
    shelves.uniform = uniform ? first : 0;
  }
  const std::uint32_t live_shelves = shelves.shelves;
  k = RackStep{};
  k.powered = live_shelves > 0;
  if (!k.powered) {
    for (std::size_t s = rack_shelf_begin_[r]; s < rack_shelf_begin_[r + 1]; ++s)
      shelf_P_out_[s] = 0.0;
    return;  // its feeds carry nothing (setFeedLoads)
  }
  const std::uint32_t c0 = layout_.rack_cpu_begin[r], c1 = layout_.rack_cpu_begin[r + 1];
  const std::uint32_t w0 = layout_.rack_switch_begin[r], w1 = layout_.rack_switch_begin[r + 1];
  // CPU and switch demands rarely change: their sums are reused while they are the committed
  // powers (same bits, same sums).
  RackReuse& reuse = rack_reuse_[r];
  const std::uint64_t version = state.rack_demand_version[r];
  k.chips_same =
      (version != 0 && version == rack_demand_version_[r])
      || (sameBits(state.cpu_P_demand.data() + c0, state.cpu_P.data() + c0, c1 - c0)
          && sameBits(state.switch_P_demand.data() + w0, state.switch_P.data() + w0, w1 - w0));
  if (!(k.chips_same && reuse.sums_valid)) {
    reuse.P_cpu = core::sum4(state.cpu_P_demand.data() + c0, c1 - c0);
    reuse.P_switch = core::sum4(state.switch_P_demand.data() + w0, w1 - w0);
  }
  const double P = pm_->gpuStep(r, t + dt, dt, state.gpu_P_demand.data(), state.gpu_P.data(),
                                gpu_P_.data(), version)
                   + reuse.P_cpu + reuse.P_switch;
  k.P_air = state.rack_air_P_demand[r] + state.rack_fan_P[r];  // trays' air loads, server fans
  k.P_load = P + k.P_air;
  // Busbar at the shelves' regulated voltage V: P_out = L + R (P_out / V)^2, the smaller root
  // (kept while the load is the same bits).
  if (!(reuse.busbar_valid && sameBits(&k.P_load, &reuse.P_load, 1))) {
    reuse.busbar_valid = true;
    reuse.P_load = k.P_load;
    reuse.P_out = k.P_load;
    if (busbar_k_ > 0.0) {
      reuse.P_out = 2.0 * k.P_load / (1.0 + std::sqrt(std::max(0.0, 1.0 - busbar_k_ * k.P_load)));
    }
  }
  const double P_out = reuse.P_out;
  k.P_busbar_loss = P_out - k.P_load;
  k.P_grid_dc = pm_->storageStep(r, P_out, dt);
  const double P_shelf = k.P_grid_dc / static_cast<double>(live_shelves);
  const PsuEfficiency& curve = curves_[rack_curve_[r]];
  double P_psu_loss = 0.0, P_ac_a = 0.0, P_ac_b = 0.0;
  for (std::size_t s = rack_shelf_begin_[r]; s < rack_shelf_begin_[r + 1]; ++s)
    shelf_P_out_[s] = shelf_live_[s] > 0 ? P_shelf : 0.0;
  if (shelves.uniform > 0) {
    // Every live shelf has as many live PSUs (the usual case): one loss for the rack.
    const double P_psu = P_shelf / static_cast<double>(shelves.uniform);
    // The loss curve is the rack's for the run: its value is kept while the output is the
    // same bits (a held rack's sub-steps).
    if (!(reuse.loss_valid && sameBits(&P_psu, &reuse.P_psu, 1))) {
      reuse.loss_valid = true;
      reuse.P_psu = P_psu;
      reuse.loss = curve.loss(P_psu);
    }
    const double loss = reuse.loss;
    P_psu_loss = static_cast<double>(shelves.psus) * loss;
    P_ac_a = shelves.psus_a * (P_psu + loss);
    P_ac_b = shelves.psus_b * (P_psu + loss);
  } else {
    for (std::size_t s = rack_shelf_begin_[r]; s < rack_shelf_begin_[r + 1]; ++s) {
      const std::uint32_t live = shelf_live_[s];
      if (live == 0) continue;
      const double P_psu = P_shelf / static_cast<double>(live);
      const double loss = curve.loss(P_psu);
      P_psu_loss += static_cast<double>(live) * loss;
      P_ac_a += static_cast<double>(shelf_healthy_on_[2 * s] * a) * (P_psu + loss);
      P_ac_b += static_cast<double>(shelf_healthy_on_[2 * s + 1] * b) * (P_psu + loss);
    }
  }
  k.P_psu_loss = P_psu_loss;
  k.P_ac_a = P_ac_a;
  k.P_ac_b = P_ac_b;
}

void ElectricalModel::computeRacks(double t, double dt, const core::SiteState& state) {
  // Each rack's task also sets its feeds' loads in the tree (those branches are the rack's
  // alone); whether any changed is kept per block, and the tree is told once after the pass.
  // The tree's loads are the same values as set one rack after the other.
  const std::size_t racks = layout_.rack_count;
  core::forEachTask(pool_, block_loads_changed_.size(), [&](std::size_t block) {
    bool changed = false;
    const std::size_t end = std::min(racks, (block + 1) * kRackBlock);
    for (std::size_t r = block * kRackBlock; r < end; ++r) {
      computeRack(r, t, dt, state);
      const RackStep& k = rack_step_[r];
      const double tan_phi = k.powered ? rack_tan_phi_[r] : 0.0;
      changed = dist_->placeFeedLoad(r, kA, k.P_ac_a, tan_phi) || changed;
      changed = dist_->placeFeedLoad(r, kB, k.P_ac_b, tan_phi) || changed;
    }
    block_loads_changed_[block] = changed ? 1 : 0;
  });
  for (const std::uint8_t changed : block_loads_changed_) {
    if (changed != 0) {
      dist_->feedLoadsChanged();
      break;
    }
  }
}

void ElectricalModel::StepSums::add(const StepSums& block) noexcept {
  P_ac += block.P_ac;
  P_grid_dc += block.P_grid_dc;
  P_psu_loss += block.P_psu_loss;
  P_load += block.P_load;
  P_busbar_loss += block.P_busbar_loss;
  P_storage += block.P_storage;
  feed_use_max = std::max(feed_use_max, block.feed_use_max);
  P_ac_mean += block.P_ac_mean;
  gpus_off += block.gpus_off;
}

void ElectricalModel::commitRacks(double t, double dt, core::SiteState& state, StepSums& sums) {
  const double elapsed = state.time + dt - state.step_start;
  const double inv_elapsed = gpuMeansFactor(state, dt);
  const std::size_t racks = layout_.rack_count;
  // Each block of racks commits its racks and forms its sums in rack order; the run's first
  // thread then adds the blocks' sums in block order. Nothing of a rack is read on another
  // thread in the sub-step, and the sums are the same for any number of threads (the blocks
  // are fixed).
  core::forEachTask(pool_, block_sums_.size(), [&](std::size_t block) {
    BlockSums b;  // kept in the task's registers and stack, stored once
    const std::size_t end = std::min(racks, (block + 1) * kRackBlock);
    for (std::size_t r = block * kRackBlock; r < end; ++r) {
      commitRack(r, dt, state);
      publishRackViews(r, state, elapsed);
      publishGpuMeans(r, state, inv_elapsed);
      const RackStep& k = rack_step_[r];
      StepSums& s = b.sums;
      if (k.powered) {
        b.P_burner += pm_->burnerPower(r);
        b.P_deficit += pm_->rampDeficitPower(r);
      } else {
        s.gpus_off += layout_.rack_gpu_begin[r + 1] - layout_.rack_gpu_begin[r];
      }
      b.powered_changed = b.powered_changed || (rack_powered_[r] != 0) != k.powered;
      const std::uint8_t powered = k.powered ? 1 : 0;
      if (state.rack_powered[r] != powered) state.rack_powered[r] = powered;  // else left clean
      // The feeds' utilisation as the rack's views hold it (0 for a side without a feed).
      s.feed_use_max = std::max(s.feed_use_max, rack_feed_use_[r]);
      s.feed_use_max = std::max(s.feed_use_max, rack_feed_use_[racks + r]);
      s.P_ac_mean += rack_P_ac_mean_[r];
      s.P_ac += rack_P_ac_[r];
      s.P_grid_dc += k.P_grid_dc;
      s.P_psu_loss += k.P_psu_loss;
      s.P_load += k.P_load;
      s.P_busbar_loss += k.P_busbar_loss;
      if (k.powered) s.P_storage += k.P_grid_dc - k.P_load - k.P_busbar_loss;
    }
    block_sums_[block] = b;
  });
  // What the racks share, in block order: the smoothing's run totals, the site's sums, and the
  // event log of the racks that lost or regained power (rare: their blocks only, rack by rack).
  for (std::size_t block = 0; block < block_sums_.size(); ++block) {
    const BlockSums& b = block_sums_[block];
    pm_->bookEnergy(b.P_burner, b.P_deficit, dt);
    sums.add(b.sums);
    if (!b.powered_changed) continue;
    const std::size_t end = std::min(racks, (block + 1) * kRackBlock);
    for (std::size_t r = block * kRackBlock; r < end; ++r) {
      const bool powered = rack_step_[r].powered;
      if ((rack_powered_[r] != 0) == powered) continue;
      const std::uint32_t gpus = layout_.rack_gpu_begin[r + 1] - layout_.rack_gpu_begin[r];
      dist_->record(
          t, powered ? ElectricalEvent::Kind::RackRepowered : ElectricalEvent::Kind::RackUnpowered,
          static_cast<int>(r), static_cast<double>(gpus));
      rack_powered_[r] = powered ? 1 : 0;
    }
  }
}

// One rack's sub-step made its state: only what the rack owns (its chips' drawn powers and
// energies, its own values and its smoothing state).
void ElectricalModel::commitRack(std::size_t r, double dt, core::SiteState& state) {
  const RackStep& k = rack_step_[r];
  const std::uint32_t g0 = layout_.rack_gpu_begin[r], g1 = layout_.rack_gpu_begin[r + 1];
  const std::uint32_t c0 = layout_.rack_cpu_begin[r], c1 = layout_.rack_cpu_begin[r + 1];
  const std::uint32_t w0 = layout_.rack_switch_begin[r], w1 = layout_.rack_switch_begin[r + 1];
  if (k.powered) {
    // As without a tree: chips whose powers did not change keep them, and their energies are
    // added once for the time held (at a change or the macro step's last sub-step).
    const bool gpus_same =
        pm_->gpuHeld(r) || sameBits(gpu_P_.data() + g0, state.gpu_P.data() + g0, g1 - g0);
    rack_reuse_[r].sums_valid = true;  // the committed powers are the demands summed
    if (!gpus_same) {
      flushGpuEnergy(r, state);  // at the powers held until now
      std::copy(gpu_P_.begin() + g0, gpu_P_.begin() + g1, state.gpu_P.begin() + g0);
    }
    if (!k.chips_same) {
      flushChipEnergy(r, state);
      std::copy(state.cpu_P_demand.begin() + c0, state.cpu_P_demand.begin() + c1,
                state.cpu_P.begin() + c0);
      std::copy(state.switch_P_demand.begin() + w0, state.switch_P_demand.begin() + w1,
                state.switch_P.begin() + w0);
    }
    rack_demand_version_[r] = state.rack_demand_version[r];  // CPUs and switches committed
    rack_held_dt_[r] += dt;
    rack_chips_held_dt_[r] += dt;
    if (state.last_substep) flushRackEnergy(r, state);
    pm_->commit(r);
  } else {
    flushRackEnergy(r, state);
    for (std::uint32_t g = g0; g < g1; ++g)
      state.gpu_P[g] = gpu_P_[g] = 0.0;
    for (std::size_t c = c0; c < c1; ++c)
      state.cpu_P[c] = 0.0;
    for (std::size_t w = w0; w < w1; ++w)
      state.switch_P[w] = 0.0;
    pm_->commitUnpowered(r);
    rack_reuse_[r].sums_valid = false;
    rack_demand_version_[r] = 0;
  }

  const double P_ac = k.P_ac_a + k.P_ac_b;
  const double P_feed_loss = dist_->rackFeedLoss(r);
  const double P_heat = k.P_psu_loss + k.P_busbar_loss + P_feed_loss;
  state.rack_P_dc[r] = k.P_load;
  state.rack_P_ac[r] = P_ac;
  state.rack_P_psu_loss[r] = k.P_psu_loss;
  state.rack_air_E_step[r] += (k.P_air + P_heat) * dt;
  state.rack_ac_E_step[r] += P_ac * dt;

  storeChanged(rack_P_dc_[r], k.P_load);
  storeChanged(rack_P_ac_[r], P_ac);
  storeChanged(rack_P_psu_loss_[r], k.P_psu_loss);
  storeChanged(rack_P_loss_[r], P_heat);
  storeChanged(rack_P_grid_dc_[r], k.P_grid_dc);
  storeChanged(rack_feed_P_[2 * r], k.P_ac_a);
  storeChanged(rack_feed_P_[2 * r + 1], k.P_ac_b);
  storeChanged(rack_powered_value_[r], k.powered ? 1.0 : 0.0);
}

// The rack views only the recorder reads (means, efficiencies, feed currents), from the sub-step
// just committed: every sub-step, since the recorder integrates the rates over sub-steps.
void ElectricalModel::publishRackViews(std::size_t r, const core::SiteState& state,
                                       double elapsed) {
  const std::size_t racks = layout_.rack_count;
  const double P_ac = rack_P_ac_[r];
  storeChanged(rack_P_ac_mean_[r], elapsed > 0.0 ? state.rack_ac_E_step[r] / elapsed : P_ac);
  storeChanged(rack_psu_efficiency_[r], P_ac > 0.0 ? rack_P_grid_dc_[r] / P_ac : 0.0);
  for (std::size_t side = 0; side < 2; ++side) {
    const int b = dist_->feedBranch(r, static_cast<int>(side));
    double I = 0.0, closed = 0.0;
    if (b >= 0) {
      closed = dist_->tree().closed(static_cast<std::size_t>(b)) ? 1.0 : 0.0;
      I = dist_->tree().current(static_cast<std::size_t>(b));
    }
    storeChanged(rack_feed_I_[side * racks + r], I);
    storeChanged(rack_feed_use_[side * racks + r], I * rack_feed_inv_rated_[2 * r + side]);
    storeChanged(rack_feed_closed_[side * racks + r], closed);
  }
  storeChanged(rack_E_storage_[r], pm_->storedEnergy(r));
  storeChanged(rack_P_burner_[r], pm_->burnerPower(r));
}

void ElectricalModel::publishTreeViews() {
  const PowerTree& tree = dist_->tree();
  // Element by element (reads of the solved tree only), on the threads: some 3,500 elements
  // on the 100k site, every sub-step.
  core::forEachItem(pool_, tree_elements_.size(), kElementBlock, [&](std::size_t i) {
    const std::size_t b = tree_elements_[i];
    const double I = tree.live(b) ? tree.current(b) : 0.0;
    const double I_rated = dist_->ratedCurrent(b);
    storeChanged(element_I_[i], I);
    storeChanged(element_use_[i], I_rated > 0.0 ? I / I_rated : 0.0);
    storeChanged(element_V_[i], tree.live(b) ? tree.lineVoltage(b) : 0.0);
    storeChanged(element_closed_[i], tree.closed(b) && dist_->breakerClosed(b) ? 1.0 : 0.0);
    storeChanged(element_P_loss_[i], tree.lossPower(b));
  });
  for (std::size_t u = 0; u < dist_->upsCount(); ++u) {
    ups_soc_[u] = dist_->upsStateOfCharge(u);
    ups_P_out_[u] = tree.converterResult(u).P_out;
    ups_P_battery_[u] = dist_->upsBatteryPower(u);
  }
  for (std::size_t i = 0; i < room_P_loss_.size(); ++i)
    room_P_loss_[i] = dist_->roomLoss(i);
}

void ElectricalModel::solveTree(double t, double dt, core::SiteState& state) {
  checkVersionsOf(state);
  dist_->beginStep(t, dt);
  fabric_.setLoads(*dist_);
  computeRacks(t, dt, state);
  // A UPS that drops its load changes which feeds are live: recompute (each UPS drops once).
  for (std::size_t k = 0; !dist_->solve(t, dt); ++k) {
    RACKTWIN_ASSERT(k < dist_->upsCount(), "a UPS dropped its load twice in one step");
    computeRacks(t, dt, state);
  }
  StepSums sums;
  commitRacks(t, dt, state, sums);
  const double P_fabric = bookFabric(dt, state);
  site_P_it_mean_ = sums.P_ac_mean + fabric_P_mean_;
  dist_->commit(t, dt);
  if (dt > 0.0) {
    feed_utilisation_max_ = std::max(feed_utilisation_max_, sums.feed_use_max);
    const PowerTree& tree = dist_->tree();
    for (std::size_t i = 0; i < mv_feeders_.size(); ++i) {
      const std::size_t b = mv_feeders_[i];
      if (tree.live(b)) mv_feeder_I_max_[i] = std::max(mv_feeder_I_max_[i], tree.current(b));
    }
  }

  // The per-element, UPS and room views are read only by the recorder, which integrates the
  // rates among them over every sub-step (core::Aggregation::SubstepMean): O(elements) lookups
  // per sub-step, after the breakers' commit.
  publishTreeViews();

  site_P_losses_ = sums.P_psu_loss + sums.P_busbar_loss + dist_->lossPower();
  site_P_generator_ = dist_->generatorPower();
  site_utility_live_ = dist_->utilityLive() ? 1.0 : 0.0;
  site_generator_online_ = dist_->generatorOnline() ? 1.0 : 0.0;
  site_P_it_ = sums.P_ac + P_fabric;
  gpus_unpowered_ = sums.gpus_off;
  const double P_in = dist_->inputPower();
  if (dt > 0.0) {
    it_energy_.add(sums.P_ac * dt);
    dc_energy_.add(sums.P_grid_dc * dt);
    psu_loss_energy_.add(sums.P_psu_loss * dt);
    busbar_loss_energy_.add(sums.P_busbar_loss * dt);
    storage_change_.add(sums.P_storage * dt);
    load_energy_.add(sums.P_load * dt);
    facility_energy_.add(P_in * dt);
    if (hall_room_ >= 0)
      state.hall_air_E_step += dist_->roomLoss(static_cast<std::size_t>(hall_room_)) * dt;
  }
  recordSite(t, dt, P_in, site_P_it_);
}

void ElectricalModel::declareTreeChannels(core::Recorder& recorder) {
  const std::size_t racks = layout_.rack_count;
  // Rates hold each sub-step's value (SubstepMean: recorded as the interval's mean); states,
  // flags and stored energy are the value at the record time (Sample).
  using core::Aggregation;
  constexpr Aggregation kMean = Aggregation::SubstepMean;
  constexpr Aggregation kSample = Aggregation::Sample;
  if (racks > 0) {
    const auto rack = [&](std::string channel, std::string unit, std::string description,
                          const double* data, Aggregation aggregation) {
      recorder.add(core::ChannelInfo{"rack", std::move(channel), std::move(unit),
                                     std::move(description), layout_.rack_ids, aggregation},
                   data);
    };
    rack("feed_a_current", "A", "Rms phase current of the rack's feed A (0 when dead)",
         rack_feed_I_.data(), kMean);
    rack("feed_b_current", "A", "Rms phase current of the rack's feed B (0 when dead or absent)",
         rack_feed_I_.data() + racks, kMean);
    rack("feed_a_utilisation", "1", "Feed A current over its rating (headroom = 1 - this)",
         rack_feed_use_.data(), kMean);
    rack("feed_b_utilisation", "1", "Feed B current over its rating (headroom = 1 - this)",
         rack_feed_use_.data() + racks, kMean);
    rack("feed_a_closed", "1", "1 while feed A's breaker is closed and the feed not lost",
         rack_feed_closed_.data(), kSample);
    rack("feed_b_closed", "1", "1 while feed B's breaker is closed and the feed not lost",
         rack_feed_closed_.data() + racks, kSample);
    rack("powered", "1", "1 while the rack has a live PSU, else 0 (GPUs off)",
         rack_powered_value_.data(), kSample);
    rack("P_grid_dc", "W", "DC power the PSUs draw through their converters (after the storage)",
         rack_P_grid_dc_.data(), kMean);
    rack("E_storage", "J", "Energy in the PSUs' power-smoothing storage", rack_E_storage_.data(),
         kSample);
    rack("P_burner", "W", "Power the GPUs' power burners add to hold the smoothing floor",
         rack_P_burner_.data(), kMean);
    rack("P_loss", "W", "Heat of the rack's electrical losses (PSU, busbar, feeds)",
         rack_P_loss_.data(), kMean);
  }
  if (!tree_elements_.empty()) {
    std::vector<std::string> ids;
    for (std::size_t b : tree_elements_)
      ids.push_back(dist_->elementId(b));
    const auto element = [&](std::string channel, std::string unit, std::string description,
                             const std::vector<double>& data, Aggregation aggregation) {
      recorder.add(core::ChannelInfo{"power_tree", std::move(channel), std::move(unit),
                                     std::move(description), ids, aggregation},
                   data.data());
    };
    element("current", "A", "Rms phase current at the element's output", element_I_, kMean);
    element("utilisation", "1", "Current over the element's rating (0 when unrated)", element_use_,
            kMean);
    element("voltage", "V", "Line-to-line voltage of the element's output bus (0 when dead)",
            element_V_, kSample);
    element("closed", "1", "1 while the element's breaker is closed, 0 once it opened",
            element_closed_, kSample);
    element("P_loss", "W", "Real loss of the element (I^2 R, core, conversion, recharge)",
            element_P_loss_, kMean);
  }
  if (dist_->upsCount() > 0) {
    std::vector<std::string> ids;
    for (std::size_t u = 0; u < dist_->upsCount(); ++u)
      ids.push_back(dist_->elementId(static_cast<std::size_t>(dist_->upsBranch(u))));
    recorder.add(core::ChannelInfo{"ups", "soc", "1", "Battery state of charge", ids, kSample},
                 ups_soc_.data());
    recorder.add(core::ChannelInfo{"ups", "P_out", "W", "Output power", ids, kMean},
                 ups_P_out_.data());
    recorder.add(core::ChannelInfo{"ups", "P_battery", "W",
                                   "Battery power, discharge > 0, charge < 0", ids, kMean},
                 ups_P_battery_.data());
  }
  if (!room_P_loss_.empty()) {
    recorder.add(core::ChannelInfo{"electrical_room", "P_loss", "W",
                                   "Losses of the distribution elements in the room (heat)",
                                   dist_->roomNames(), kMean},
                 room_P_loss_.data());
  }
  recorder.add(core::ChannelInfo{"site",
                                 "P_facility",
                                 "W",
                                 "Electrical input at the MV bus (utility and generators)",
                                 {},
                                 kMean},
               &site_P_facility_);
  recorder.add(
      core::ChannelInfo{"site", "P_electrical_loss", "W", "All electrical losses", {}, kMean},
      &site_P_losses_);
  recorder.add(core::ChannelInfo{"site", "P_generator", "W", "Generator output", {}, kMean},
               &site_P_generator_);
  recorder.add(
      core::ChannelInfo{"site", "utility_live", "1", "1 while the utility is live", {}, kSample},
      &site_utility_live_);
  recorder.add(
      core::ChannelInfo{
          "site", "generator_online", "1", "1 while the generators carry the MV bus", {}, kSample},
      &site_generator_online_);
  recorder.add(core::ChannelInfo{"site", "gpus_unpowered", "1", "GPUs without power", {}, kSample},
               &gpus_unpowered_value_);
}

void ElectricalModel::summariseTree(core::Summary& summary) const {
  const auto energy = [&](std::string key, double value, std::string label) {
    summary.add(core::SummaryItem{std::move(key), value, std::move(label), "kWh",
                                  1.0 / kJoulePerKilowattHour, 0.0});
  };
  energy("busbar_loss_energy_J", busbarLossEnergy(), "Rack busbar losses");
  for (ElementKind kind :
       {ElementKind::Transformer, ElementKind::Ups, ElementKind::Switchboard, ElementKind::Busway,
        ElementKind::Rpp, ElementKind::Cable, ElementKind::Feed}) {
    const std::string name = elementKindName(kind);
    energy("electrical_loss_" + name + "_J", dist_->lossEnergy(kind), "Losses: " + name);
  }
  energy("utility_energy_J", dist_->utilityEnergy(), "Utility energy");
  energy("generator_energy_J", dist_->generatorEnergy(), "Generator energy");
  energy("ups_battery_energy_change_J", dist_->batteryEnergyChange(),
         "Change of UPS battery energy");
  energy("smoothing_burner_energy_J", pm_->burnerEnergy(), "Power burner energy (smoothing)");
  energy("smoothing_ramp_deficit_energy_J", pm_->rampDeficitEnergy(),
         "GPU energy held back by the ramp-up limit");
  summary.add(
      {"ups_soc_min", dist_->minUpsStateOfCharge(), "Lowest UPS state of charge", "%", 100.0, 0.0});
  summary.add(
      {"breaker_trips", static_cast<double>(dist_->breakerTrips()), "Breaker trips", "", 1.0, 0.0});
  summary.add({"ups_battery_depletions", static_cast<double>(dist_->upsDepletions()),
               "UPS battery depletions (load lost)", "", 1.0, 0.0});
  summary.add({"feed_utilisation_max", feed_utilisation_max_, "Highest rack feed utilisation", "%",
               100.0, 0.0});
  summary.add({"generator_utilisation_max", dist_->maxGeneratorUtilisation(),
               "Highest generator utilisation", "%", 100.0, 0.0});
  for (std::size_t i = 0; i < mv_feeders_.size(); ++i) {
    const std::size_t b = mv_feeders_[i];
    const std::string& id = dist_->elementId(b);
    summary.add({"mv_feeder_" + id + "_current_max_A", mv_feeder_I_max_[i],
                 "MV feeder " + id + ": highest current", "A", 1.0, 0.0});
    const double I_rated = dist_->ratedCurrent(b);
    if (I_rated > 0.0) {
      summary.add({"mv_feeder_" + id + "_utilisation_max", mv_feeder_I_max_[i] / I_rated,
                   "MV feeder " + id + ": highest utilisation", "%", 100.0, 0.0});
    }
  }
  summary.add({"load_flow_unconverged_steps", static_cast<double>(dist_->unconvergedSolves()),
               "Load-flow steps without convergence (voltage collapse)", "", 1.0, 0.0});
}

}  // namespace racktwin::power
