#pragma once
// A recorder sink that keeps what it is given (the metadata, the channels, every record) for the
// tests to read back.
#include <span>
#include <string_view>
#include <vector>

#include "racktwin/core/Recorder.hpp"

namespace racktwin::test {

struct MemorySink : core::RecorderSink {
  void open(const core::RunMetadata& metadata_,
            const std::vector<core::ChannelInfo>& channels_) override {
    metadata = metadata_;
    channels = channels_;
  }
  void append(double t, std::span<const double> row) override {
    times.push_back(t);
    rows.emplace_back(row.begin(), row.end());
  }
  void close(bool complete_, std::string_view) override { complete = complete_; }
  core::RunMetadata metadata;
  std::vector<core::ChannelInfo> channels;
  std::vector<double> times;
  std::vector<std::vector<double>> rows;
  bool complete = false;
};

}  // namespace racktwin::test
