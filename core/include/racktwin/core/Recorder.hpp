#pragma once
// Recorder channels: named, unit-carrying views of model state, sampled at a chosen interval and
// handed to sinks (the HDF5 file, later VTK series and the GUI). A channel is a group (component
// class, e.g. "gpu"), a name ("T_junction"), a unit, a description and its entities; it reads
// `count` doubles from a pointer that stays valid for the whole run. Sampling copies into one
// preallocated row: no allocation per sample.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace racktwin::core {

struct ChannelInfo {
  std::string group;        // "gpu", "rack", "cdu", "site", ...
  std::string name;         // "T_junction"
  std::string unit;         // "K", "W", "m3/s", "1"
  std::string description;  // one sentence
  /// Entity ids of the columns; empty for a scalar channel (one value per sample, stored 1-D).
  std::vector<std::string> entity_ids;

  std::size_t width() const noexcept { return entity_ids.empty() ? 1 : entity_ids.size(); }
};

struct RunMetadata {
  std::string program_version;
  std::string site_name;
  std::string scenario_path;
  std::string scenario_text;
  unsigned long long seed = 0;
  double step = 0.0;  // s
  int substeps = 1;
  double record_interval = 0.0;  // s
  double duration = 0.0;         // s
  std::vector<std::string> input_warnings;  // the scenario's plausibility warnings, one a line
};

class RecorderSink {
 public:
  virtual ~RecorderSink() = default;
  virtual void open(const RunMetadata& metadata, const std::vector<ChannelInfo>& channels) = 0;
  /// One sample: `row` holds every channel's values, channels in declaration order.
  virtual void append(double time, std::span<const double> row) = 0;
  /// Ends the file; `complete` is false when the run stopped early. summary_json may be empty.
  virtual void close(bool complete, std::string_view summary_json) = 0;
};

class Recorder {
 public:
  explicit Recorder(double interval) : interval_(interval) {}

  /// Declares a channel reading `channel.width()` doubles from `data`.
  void add(ChannelInfo channel, const double* data);
  void addSink(RecorderSink& sink) { sinks_.push_back(&sink); }

  void open(const RunMetadata& metadata);
  /// Samples when t has reached the next sample time (the first sample is taken at t = 0).
  void sample(double t);
  void close(bool complete, std::string_view summary_json);

  const std::vector<ChannelInfo>& channels() const noexcept { return channels_; }
  std::size_t samplesTaken() const noexcept { return samples_; }

 private:
  double interval_;
  double next_ = 0.0;
  std::size_t samples_ = 0;
  std::vector<ChannelInfo> channels_;
  std::vector<const double*> sources_;
  std::vector<double> row_;
  std::vector<RecorderSink*> sinks_;
  bool open_ = false;
};

}  // namespace racktwin::core
