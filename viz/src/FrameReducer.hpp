#pragma once
// FrameReducer: turns one sample of recorder channels (a row of each needed channel) into a
// Frame: hottest GPU per rack, flow-mixed tray outlets per rack, CDU values, pipe values. The
// result reader and the live sink share it, so a file and a running twin colour alike.
// Sized once; reduce() allocates nothing.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "racktwin/viz/Frame.hpp"
#include "racktwin/viz/SiteGeometry.hpp"

namespace racktwin::viz {

/// The recorder channels a frame is made of.
enum class Channel : std::uint8_t {
  GpuTJunction,        // gpu/T_junction    -> rack (max)
  RackPAc,             // rack/P_ac
  RackVFlow,           // rack/V_flow
  TrayTOutlet,         // tray/T_outlet     -> rack (mixed by tray/V_flow)
  TrayVFlow,           // tray/V_flow
  CduTSupply,          // cdu/T_supply
  CduVFlow,            // cdu/V_flow
  CduTFacilitySupply,  // cdu/T_facility_supply
  CduTFacilityReturn,  // cdu/T_facility_return
  CduVFlowFacility,    // cdu/V_flow_facility
};
inline constexpr std::size_t kChannelCount = 10;

struct ChannelName {
  std::string_view group;
  std::string_view name;
};
ChannelName channelName(Channel channel) noexcept;
/// True for channels whose columns are CDUs, false for racks (directly or via GPUs/trays).
bool channelOfCdus(Channel channel) noexcept;

/// Where each column of a channel goes: owner[column] = rack or CDU index, -1 = ignored.
/// An empty vector means the channel is absent (its values stay NaN).
using ColumnOwners = std::vector<std::int32_t>;

/// Owners of columns named by entity ids: the rack (or CDU) whose id equals the column id or is
/// one of its '/' prefixes ("row1/rack01/tray03/gpu2" -> "row1/rack01").
ColumnOwners ownersFromIds(const SiteGeometry& geometry, const std::vector<std::string>& ids,
                           bool cdus);

class FrameReducer {
 public:
  FrameReducer(const SiteGeometry& geometry, std::array<ColumnOwners, kChannelCount> owners);

  const ColumnOwners& owners(Channel channel) const noexcept {
    return owners_[static_cast<std::size_t>(channel)];
  }
  /// rows[c]: the sample's values of channel c (owners(c).size() of them), or nullptr when the
  /// channel is absent. Writes every value of `frame` (sized for the geometry).
  void reduce(const std::array<const double*, kChannelCount>& rows, double time, Frame& frame);

 private:
  const SiteGeometry& geometry_;
  std::array<ColumnOwners, kChannelCount> owners_;
  // Scratch, sized once.
  std::vector<double> rack_vt_, rack_v_, rack_t_sum_, rack_n_;
  std::vector<double> cdu_t_fs_, cdu_t_fr_, cdu_v_f_;
};

}  // namespace racktwin::viz
