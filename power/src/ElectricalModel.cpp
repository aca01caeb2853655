#include "racktwin/power/ElectricalModel.hpp"

#include <stdexcept>
#include <string>
#include <utility>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/Summary.hpp"

namespace racktwin::power {

namespace {

constexpr double kJoulePerKilowattHour = 3.6e6;

}  // namespace

void ElectricalModel::CompensatedSum::add(double x) noexcept {
  const double t = sum_ + x;
  // Neumaier: recover the low-order bits lost by whichever operand is smaller.
  if ((sum_ >= 0.0 ? sum_ : -sum_) >= (x >= 0.0 ? x : -x)) {
    compensation_ += (sum_ - t) + x;
  } else {
    compensation_ += (x - t) + sum_;
  }
  sum_ = t;
}

ElectricalModel::ElectricalModel(const core::SiteSpec& site, const core::SiteLayout& layout)
    : layout_(layout) {
  RACKTWIN_ASSERT(site.racks.size() == layout.rack_count, "layout built from another site");
  const std::size_t racks = layout.rack_count;
  curves_.reserve(racks);
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
    try {
      curves_.emplace_back(power.psu_efficiency, power.psu_P_rated);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("rack " + rack_id + ": " + e.what());
    }
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
  shelf_P_out_.assign(shelf_healthy_.size(), 0.0);
  rack_P_ac_.assign(racks, 0.0);
  rack_P_ac_mean_.assign(racks, 0.0);
  rack_P_dc_.assign(racks, 0.0);
  rack_P_psu_loss_.assign(racks, 0.0);
  rack_psu_efficiency_.assign(racks, 0.0);
  gpu_P_.assign(layout.gpu_count, 0.0);
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
  if (healthy) {
    ++shelf_healthy_[s];
  } else {
    --shelf_healthy_[s];
  }
  const bool shelf_is_live = shelf_healthy_[s] > 0;
  if (shelf_is_live && !shelf_was_live) ++rack_live_shelves_[rack];
  if (!shelf_is_live && shelf_was_live) --rack_live_shelves_[rack];
}

bool ElectricalModel::psuHealthy(std::size_t rack, std::size_t shelf, std::size_t psu) const {
  return psu_healthy_[psuIndex(rack, shelf, psu)] != 0;
}

double ElectricalModel::psuOutput(std::size_t rack, std::size_t shelf, std::size_t psu) const {
  if (!psuHealthy(rack, shelf, psu)) return 0.0;
  const std::size_t s = shelfIndex(rack, shelf);
  return shelf_P_out_[s] / static_cast<double>(shelf_healthy_[s]);
}

double ElectricalModel::shelfOutput(std::size_t rack, std::size_t shelf) const {
  return shelf_P_out_[shelfIndex(rack, shelf)];
}

const PsuEfficiency& ElectricalModel::psuCurve(std::size_t rack) const {
  RACKTWIN_ASSERT(rack < layout_.rack_count, "rack index out of range");
  return curves_[rack];
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
  solve(0.0, state);
}

void ElectricalModel::advance(double /*t*/, double dt, core::SiteState& state) {
  RACKTWIN_ASSERT(dt > 0.0, "advance needs dt > 0");
  solve(dt, state);
}

void ElectricalModel::solve(double dt, core::SiteState& state) {
  double site_P_ac = 0.0;
  double site_P_dc = 0.0;
  double site_P_loss = 0.0;
  double site_P_ac_mean = 0.0;
  // Step means (energy so far over time so far) are what a report integrates: at the last
  // sub-step they equal the macro step's average, free of the aliasing of instantaneous samples.
  const double elapsed = state.time + dt - state.step_start;
  for (std::size_t r = 0; r < layout_.rack_count; ++r) {
    const bool powered = rack_live_shelves_[r] > 0;
    double P_dc = 0.0;
    for (std::size_t g = layout_.rack_gpu_begin[r]; g < layout_.rack_gpu_begin[r + 1]; ++g) {
      const double P = powered ? state.gpu_P_demand[g] : 0.0;
      state.gpu_P[g] = P;
      gpu_P_[g] = P;
      state.gpu_E_step[g] += P * dt;
      P_dc += P;
    }
    for (std::size_t c = layout_.rack_cpu_begin[r]; c < layout_.rack_cpu_begin[r + 1]; ++c) {
      const double P = powered ? state.cpu_P_demand[c] : 0.0;
      state.cpu_P[c] = P;
      state.cpu_E_step[c] += P * dt;
      P_dc += P;
    }
    for (std::size_t w = layout_.rack_switch_begin[r]; w < layout_.rack_switch_begin[r + 1]; ++w) {
      const double P = powered ? state.switch_P_demand[w] : 0.0;
      state.switch_P[w] = P;
      state.switch_E_step[w] += P * dt;
      P_dc += P;
    }
    const double P_air = powered ? state.rack_air_P_demand[r] : 0.0;
    P_dc += P_air;

    double P_loss = 0.0;
    const double P_shelf = powered ? P_dc / static_cast<double>(rack_live_shelves_[r]) : 0.0;
    const PsuEfficiency& curve = curves_[r];
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
    state.rack_air_E_step[r] += (P_air + P_loss) * dt;
    state.rack_ac_E_step[r] += P_ac * dt;
    rack_P_dc_[r] = P_dc;
    rack_P_ac_[r] = P_ac;
    rack_P_ac_mean_[r] = elapsed > 0.0 ? state.rack_ac_E_step[r] / elapsed : P_ac;
    site_P_ac_mean += rack_P_ac_mean_[r];
    rack_P_psu_loss_[r] = P_loss;
    rack_psu_efficiency_[r] = P_ac > 0.0 ? P_dc / P_ac : 0.0;

    site_P_ac += P_ac;
    site_P_dc += P_dc;
    site_P_loss += P_loss;
  }
  site_P_it_ = site_P_ac;
  site_P_it_mean_ = site_P_ac_mean;
  if (dt > 0.0) {
    it_energy_.add(site_P_ac * dt);
    dc_energy_.add(site_P_dc * dt);
    psu_loss_energy_.add(site_P_loss * dt);
  }
}

void ElectricalModel::declareChannels(core::Recorder& recorder) {
  // A channel without entities would read as a scalar, so empty sets are not declared.
  if (layout_.rack_count > 0) {
    const auto rack = [&](std::string channel, std::string unit, std::string description,
                          const std::vector<double>& data) {
      recorder.add(core::ChannelInfo{"rack", std::move(channel), std::move(unit),
                                     std::move(description), layout_.rack_ids},
                   data.data());
    };
    rack("P_ac", "W", "AC input power of the rack's power shelves", rack_P_ac_);
    rack("P_ac_mean", "W", "AC input power of the rack's power shelves, mean over the macro step",
         rack_P_ac_mean_);
    rack("P_dc", "W", "DC busbar load of the rack (chips and air-cooled tray loads)", rack_P_dc_);
    rack("P_psu_loss", "W", "Conversion loss of the rack's PSUs (heat to room air)",
         rack_P_psu_loss_);
    rack("psu_efficiency", "1", "Power shelf efficiency, DC output over AC input (0 when off)",
         rack_psu_efficiency_);
  }
  if (layout_.gpu_count > 0) {
    recorder.add(
        core::ChannelInfo{"gpu", "P", "W", "Electrical power drawn by the GPU", layout_.gpu_ids},
        gpu_P_.data());
  }
  recorder.add(
      core::ChannelInfo{
          "site", "P_it", "W", "IT power: sum of the racks' power shelf AC input", {}},
      &site_P_it_);
  recorder.add(core::ChannelInfo{"site",
                                 "P_it_mean",
                                 "W",
                                 "IT power, mean over the macro step (integrate this for energy)",
                                 {}},
               &site_P_it_mean_);
}

void ElectricalModel::summarise(core::Summary& summary) const {
  summary.add(core::SummaryItem{"it_energy_J", itEnergy(), "IT energy (power shelf AC input)",
                                "kWh", 1.0 / kJoulePerKilowattHour, 0.0});
  summary.add(core::SummaryItem{"psu_loss_energy_J", psuLossEnergy(), "PSU conversion losses",
                                "kWh", 1.0 / kJoulePerKilowattHour, 0.0});
}

}  // namespace racktwin::power
