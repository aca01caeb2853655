#include "racktwin/core/Recorder.hpp"

#include <algorithm>

#include "racktwin/core/Error.hpp"

namespace racktwin::core {

void Recorder::add(ChannelInfo channel, const double* data) {
  RACKTWIN_ASSERT(!open_, "channels must be declared before the recorder opens");
  RACKTWIN_ASSERT(data != nullptr, "a channel needs data");
  channels_.push_back(std::move(channel));
  sources_.push_back(data);
}

void Recorder::open(const RunMetadata& metadata) {
  std::size_t width = 0;
  for (const ChannelInfo& channel : channels_)
    width += channel.width();
  row_.assign(width, 0.0);
  for (RecorderSink* sink : sinks_)
    sink->open(metadata, channels_);
  open_ = true;
  next_ = 0.0;
  samples_ = 0;
}

void Recorder::sample(double t) {
  if (!open_ || t + 1e-9 * interval_ < next_) return;
  double* out = row_.data();
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    const std::size_t n = channels_[c].width();
    std::copy_n(sources_[c], n, out);
    out += n;
  }
  for (RecorderSink* sink : sinks_)
    sink->append(t, row_);
  ++samples_;
  next_ = static_cast<double>(samples_) * interval_;
}

void Recorder::close(bool complete, std::string_view summary_json) {
  if (!open_) return;
  for (RecorderSink* sink : sinks_)
    sink->close(complete, summary_json);
  open_ = false;
}

}  // namespace racktwin::core
