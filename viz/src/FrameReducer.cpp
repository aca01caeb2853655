#include "FrameReducer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace racktwin::viz {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

constexpr std::array<ChannelName, kChannelCount> kNames = {{
    {"gpu", "T_junction"},
    {"rack", "P_ac"},
    {"rack", "V_flow"},
    {"tray", "T_outlet"},
    {"tray", "V_flow"},
    {"cdu", "T_supply"},
    {"cdu", "V_flow"},
    {"cdu", "T_facility_supply"},
    {"cdu", "T_facility_return"},
    {"cdu", "V_flow_facility"},
}};

/// Mean of values weighted by weights; the plain mean when the weights sum to zero (no flow),
/// NaN when there are no finite values.
struct Mix {
  double wv = 0.0, w = 0.0, v = 0.0;
  std::size_t n = 0;
  void add(double value, double weight) {
    if (!std::isfinite(value)) return;
    if (std::isfinite(weight) && weight > 0.0) {
      wv += weight * value;
      w += weight;
    }
    v += value;
    ++n;
  }
  double result() const {
    if (w > 0.0) return wv / w;
    return n > 0 ? v / static_cast<double>(n) : kNaN;
  }
};

}  // namespace

ChannelName channelName(Channel channel) noexcept {
  return kNames[static_cast<std::size_t>(channel)];
}

bool channelOfCdus(Channel channel) noexcept {
  return channelName(channel).group == "cdu";
}

ColumnOwners ownersFromIds(const SiteGeometry& geometry, const std::vector<std::string>& ids,
                           bool cdus) {
  std::unordered_map<std::string_view, std::int32_t> index;
  const std::size_t n = cdus ? geometry.cduCount() : geometry.rackCount();
  for (std::size_t i = 0; i < n; ++i) {
    index.emplace(cdus ? geometry.cdus()[i].id : geometry.racks()[i].id,
                  static_cast<std::int32_t>(i));
  }
  ColumnOwners owners(ids.size(), -1);
  for (std::size_t j = 0; j < ids.size(); ++j) {
    std::string_view id = ids[j];
    while (!id.empty()) {
      if (const auto it = index.find(id); it != index.end()) {
        owners[j] = it->second;
        break;
      }
      const auto slash = id.rfind('/');
      if (slash == std::string_view::npos) break;
      id = id.substr(0, slash);
    }
  }
  return owners;
}

FrameReducer::FrameReducer(const SiteGeometry& geometry,
                           std::array<ColumnOwners, kChannelCount> owners)
    : geometry_(geometry),
      owners_(std::move(owners)),
      rack_vt_(geometry.rackCount()),
      rack_v_(geometry.rackCount()),
      rack_t_sum_(geometry.rackCount()),
      rack_n_(geometry.rackCount()),
      cdu_t_fs_(geometry.cduCount()),
      cdu_t_fr_(geometry.cduCount()),
      cdu_v_f_(geometry.cduCount()) {}

void FrameReducer::reduce(const std::array<const double*, kChannelCount>& rows, double time,
                          Frame& frame) {
  RACKTWIN_ASSERT(frame.entity_count == geometry_.entityCount(), "frame sized for another site");
  frame.time = time;
  std::fill(frame.values.begin(), frame.values.end(), kNaN);
  const std::size_t racks = geometry_.rackCount();
  const auto row = [&rows](Channel c) { return rows[static_cast<std::size_t>(c)]; };
  // Scatters a rack or CDU channel straight into the frame.
  const auto scatter = [&](Channel c, Quantity q, std::size_t entity_base) {
    const double* values = row(c);
    const ColumnOwners& own = owners(c);
    if (values == nullptr) return;
    for (std::size_t j = 0; j < own.size(); ++j) {
      if (own[j] >= 0) frame.value(q, entity_base + static_cast<std::size_t>(own[j])) = values[j];
    }
  };

  // Hottest GPU per rack.
  if (const double* t = row(Channel::GpuTJunction)) {
    const ColumnOwners& own = owners(Channel::GpuTJunction);
    for (std::size_t j = 0; j < own.size(); ++j) {
      if (own[j] < 0 || !std::isfinite(t[j])) continue;
      double& v = frame.value(Quantity::GpuJunctionTemperature, static_cast<std::size_t>(own[j]));
      v = std::isnan(v) ? t[j] : std::max(v, t[j]);
    }
  }
  scatter(Channel::RackPAc, Quantity::RackPower, 0);
  scatter(Channel::RackVFlow, Quantity::CoolantFlow, 0);
  // Rack outlet: the trays' outlets mixed by their flows (equal density and heat capacity).
  if (const double* t = row(Channel::TrayTOutlet)) {
    const double* v = row(Channel::TrayVFlow);
    const ColumnOwners& own = owners(Channel::TrayTOutlet);
    std::fill(rack_vt_.begin(), rack_vt_.end(), 0.0);
    std::fill(rack_v_.begin(), rack_v_.end(), 0.0);
    std::fill(rack_t_sum_.begin(), rack_t_sum_.end(), 0.0);
    std::fill(rack_n_.begin(), rack_n_.end(), 0.0);
    const bool weights = v != nullptr && owners(Channel::TrayVFlow).size() == own.size();
    for (std::size_t j = 0; j < own.size(); ++j) {
      if (own[j] < 0 || !std::isfinite(t[j])) continue;
      const auto r = static_cast<std::size_t>(own[j]);
      const double w = weights && std::isfinite(v[j]) && v[j] > 0.0 ? v[j] : 0.0;
      rack_vt_[r] += w * t[j];
      rack_v_[r] += w;
      rack_t_sum_[r] += t[j];
      rack_n_[r] += 1.0;
    }
    for (std::size_t r = 0; r < racks; ++r) {
      double& out = frame.value(Quantity::CoolantTemperature, r);
      if (rack_v_[r] > 0.0) {
        out = rack_vt_[r] / rack_v_[r];
      } else if (rack_n_[r] > 0.0) {
        out = rack_t_sum_[r] / rack_n_[r];
      }
    }
  }
  scatter(Channel::CduTSupply, Quantity::CoolantTemperature, racks);
  scatter(Channel::CduVFlow, Quantity::CoolantFlow, racks);
  // Facility values have no quantity of their own on a CDU: kept for the facility pipes.
  const auto gather = [&](Channel c, std::vector<double>& out) {
    std::fill(out.begin(), out.end(), kNaN);
    const double* values = row(c);
    const ColumnOwners& own = owners(c);
    if (values == nullptr) return;
    for (std::size_t j = 0; j < own.size(); ++j) {
      if (own[j] >= 0) out[static_cast<std::size_t>(own[j])] = values[j];
    }
  };
  gather(Channel::CduTFacilitySupply, cdu_t_fs_);
  gather(Channel::CduTFacilityReturn, cdu_t_fr_);
  gather(Channel::CduVFlowFacility, cdu_v_f_);

  for (std::size_t p = 0; p < geometry_.pipeCount(); ++p) {
    const PipePlacement& pipe = geometry_.pipes()[p];
    const std::size_t e = geometry_.pipeEntity(p);
    Mix t;
    double flow = 0.0;
    bool flow_seen = false;
    switch (pipe.kind) {
      case PipeKind::Supply:
        for (const std::uint32_t c : pipe.cdus) {
          t.add(frame.value(Quantity::CoolantTemperature, racks + c),
                frame.value(Quantity::CoolantFlow, racks + c));
        }
        for (const std::uint32_t r : pipe.racks) {
          const double v = frame.value(Quantity::CoolantFlow, r);
          if (std::isfinite(v)) flow += v, flow_seen = true;
        }
        break;
      case PipeKind::Return:
        for (const std::uint32_t r : pipe.racks) {
          const double v = frame.value(Quantity::CoolantFlow, r);
          t.add(frame.value(Quantity::CoolantTemperature, r), v);
          if (std::isfinite(v)) flow += v, flow_seen = true;
        }
        break;
      case PipeKind::FacilitySupply:
      case PipeKind::FacilityReturn: {
        const std::vector<double>& temps =
            pipe.kind == PipeKind::FacilitySupply ? cdu_t_fs_ : cdu_t_fr_;
        for (const std::uint32_t c : pipe.cdus) {
          t.add(temps[c], cdu_v_f_[c]);
          if (std::isfinite(cdu_v_f_[c])) flow += cdu_v_f_[c], flow_seen = true;
        }
        break;
      }
    }
    frame.value(Quantity::CoolantTemperature, e) = t.result();
    frame.value(Quantity::CoolantFlow, e) = pipe.flow_known && flow_seen ? flow : kNaN;
  }
}

}  // namespace racktwin::viz
