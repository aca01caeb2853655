#pragma once
// Finite or stop: a recorder sink that ends the run at the first record holding a NaN or an
// infinity, naming the channel (component class and quantity), the entity and the time. Every
// recorded quantity passes through it, so a non-finite state reaches no file, no chart and no
// summary. It is added before every other sink (scenarios::Twin does), so the row it refuses is
// written nowhere.
#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "racktwin/core/Recorder.hpp"

namespace racktwin::core {

class FiniteCheckSink final : public RecorderSink {
 public:
  void open(const RunMetadata& metadata, const std::vector<ChannelInfo>& channels) override;
  /// Throws core::RuntimeError at the first non-finite value of the row.
  void append(double time, std::span<const double> row) override;
  void close(bool /*complete*/, std::string_view /*summary_json*/) override {}

 private:
  [[noreturn]] void fail(double time, std::size_t column, double value) const;
  std::vector<ChannelInfo> channels_;
};

}  // namespace racktwin::core
