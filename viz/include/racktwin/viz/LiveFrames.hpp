#pragma once
// LiveFrames: frames from a running twin. It is a recorder sink: add it to a scenarios::Twin
// before initialize() (twin.addSink(live)) and it reduces every recorded sample to a Frame, as
// ResultFrames does for a file. Between samples, refresh(state) updates the quantities the
// SiteState carries each step (hottest GPU per rack, rack AC power) so the scene can follow
// every macro step; coolant values change at the record interval.
//
// Not thread-safe: call refresh()/latest() on the thread that steps the twin, or copy the frame
// under the caller's lock.
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/viz/Frame.hpp"
#include "racktwin/viz/SiteGeometry.hpp"

namespace racktwin::viz {

class LiveFrames final : public core::RecorderSink {
 public:
  /// `geometry` must be built from the twin's SiteSpec (SiteGeometry::build(twin.site())) and
  /// outlive this object; `layout` is twin.layout().
  LiveFrames(const SiteGeometry& geometry, const core::SiteLayout& layout);
  ~LiveFrames() override;

  void open(const core::RunMetadata& metadata,
            const std::vector<core::ChannelInfo>& channels) override;
  void append(double time, std::span<const double> row) override;
  void close(bool complete, std::string_view summary_json) override;

  /// Copies GPU junction temperatures (max per rack) and rack AC power from the state now.
  void refresh(const core::SiteState& state);
  const Frame& latest() const noexcept;
  /// Counts samples and refreshes: a changed value means latest() changed.
  std::uint64_t version() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace racktwin::viz
