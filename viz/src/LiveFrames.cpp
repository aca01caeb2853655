#include "racktwin/viz/LiveFrames.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "FrameReducer.hpp"

namespace racktwin::viz {

struct LiveFrames::Impl {
  const SiteGeometry& geometry;
  Frame frame;
  std::optional<FrameReducer> reducer;
  std::array<std::size_t, kChannelCount> offset{};  // of each channel in the recorder's row
  std::array<bool, kChannelCount> present{};
  std::vector<std::int32_t> layout_rack;  // SiteLayout rack -> geometry rack (-1 unknown)
  std::vector<std::uint32_t> gpu_rack;    // SiteLayout::gpu_rack
  std::uint64_t version = 0;

  Impl(const SiteGeometry& g, const core::SiteLayout& layout)
      : geometry(g), frame(g), gpu_rack(layout.gpu_rack) {
    layout_rack.resize(layout.rack_count, -1);
    for (std::size_t r = 0; r < layout.rack_count; ++r) {
      layout_rack[r] = geometry.findRack(layout.rack_ids[r]);
    }
  }
};

LiveFrames::LiveFrames(const SiteGeometry& geometry, const core::SiteLayout& layout)
    : impl_(std::make_unique<Impl>(geometry, layout)) {}

LiveFrames::~LiveFrames() = default;

void LiveFrames::open(const core::RunMetadata& /*metadata*/,
                      const std::vector<core::ChannelInfo>& channels) {
  Impl& m = *impl_;
  std::array<ColumnOwners, kChannelCount> owners;
  m.present.fill(false);
  std::size_t offset = 0;
  for (const core::ChannelInfo& channel : channels) {
    for (std::size_t k = 0; k < kChannelCount; ++k) {
      const ChannelName name = channelName(static_cast<Channel>(k));
      if (channel.group != name.group || channel.name != name.name || channel.entity_ids.empty()) {
        continue;
      }
      owners[k] =
          ownersFromIds(m.geometry, channel.entity_ids, channelOfCdus(static_cast<Channel>(k)));
      m.offset[k] = offset;
      m.present[k] = true;
    }
    offset += channel.width();
  }
  m.reducer.emplace(m.geometry, std::move(owners));
}

void LiveFrames::append(double time, std::span<const double> row) {
  Impl& m = *impl_;
  if (!m.reducer) return;
  std::array<const double*, kChannelCount> rows{};
  for (std::size_t k = 0; k < kChannelCount; ++k) {
    rows[k] = m.present[k] ? row.data() + m.offset[k] : nullptr;
  }
  m.reducer->reduce(rows, time, m.frame);
  ++m.version;
}

void LiveFrames::close(bool /*complete*/, std::string_view /*summary_json*/) {}

void LiveFrames::refresh(const core::SiteState& state) {
  Impl& m = *impl_;
  m.frame.time = state.time;
  const std::size_t racks = std::min(m.layout_rack.size(), state.rack_P_ac.size());
  for (std::size_t r = 0; r < racks; ++r) {
    const std::int32_t g = m.layout_rack[r];
    if (g < 0) continue;
    const auto e = static_cast<std::size_t>(g);
    m.frame.value(Quantity::RackPower, e) = state.rack_P_ac[r];
  }
  // Hottest GPU per rack, in one pass over the GPUs (gpu_rack: each GPU's layout rack).
  for (std::size_t r = 0; r < m.layout_rack.size(); ++r) {
    if (m.layout_rack[r] >= 0) {
      m.frame.value(Quantity::GpuJunctionTemperature, static_cast<std::size_t>(m.layout_rack[r])) =
          std::numeric_limits<double>::quiet_NaN();
    }
  }
  const std::size_t gpus = std::min(m.gpu_rack.size(), state.gpu_T_junction.size());
  for (std::size_t i = 0; i < gpus; ++i) {
    const std::int32_t g = m.layout_rack[m.gpu_rack[i]];
    const double t = state.gpu_T_junction[i];
    if (g < 0 || !std::isfinite(t)) continue;
    double& v = m.frame.value(Quantity::GpuJunctionTemperature, static_cast<std::size_t>(g));
    v = std::isnan(v) ? t : std::max(v, t);
  }
  ++m.version;
}

const Frame& LiveFrames::latest() const noexcept {
  return impl_->frame;
}
std::uint64_t LiveFrames::version() const noexcept {
  return impl_->version;
}

}  // namespace racktwin::viz
