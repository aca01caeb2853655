#pragma once
// ResultStore: the time series the window shows, in memory. A live run appends the recorder's rows
// (copies handed over from the simulation thread); a result file is read into the same form, so
// the timeline, the 3D colours and the charts treat both alike. No Qt here.
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "racktwin/core/Recorder.hpp"

namespace racktwin::gui {

class ResultStore {
 public:
  struct Channel {
    core::ChannelInfo info;
    std::size_t offset = 0;  // first column of this channel in a row
    std::unordered_map<std::string, std::size_t> column_of;  // entity id -> column (0-based)
  };

  /// Starts an empty store with these channels and run metadata.
  void reset(const core::RunMetadata& metadata, const std::vector<core::ChannelInfo>& channels);
  /// One sample; `row` holds every channel's values in declaration order.
  void append(double time, std::span<const double> row);
  /// Reads a whole result file (core::readResultInfo / readResultDataset). Throws core::InputError
  /// when the file is not a RackTwin result.
  static ResultStore fromHdf5(const std::string& path);
  /// Writes the samples held so far through `sink` (e.g. core::makeHdf5Sink): open with
  /// `metadata`, every row, close. `summary_json` may be empty.
  void writeTo(core::RecorderSink& sink, const core::RunMetadata& metadata, bool complete,
               std::string_view summary_json) const;
  /// Names the columns of every channel of `group` that has ids.size() columns. A result file's
  /// ids are strings the result reader does not return, so fromHdf5 names columns "group#k" and
  /// the window renames them from the channels a Twin of the same scenario declares.
  void renameEntities(std::string_view group, const std::vector<std::string>& ids);

  std::size_t samples() const noexcept { return times_.size(); }
  std::size_t rowWidth() const noexcept { return width_; }
  double time(std::size_t sample) const { return times_.at(sample); }
  const std::vector<double>& times() const noexcept { return times_; }
  double lastTime() const noexcept { return times_.empty() ? 0.0 : times_.back(); }
  /// The last sample taken at or before t (0 when t precedes every sample).
  std::size_t sampleAt(double t) const noexcept;

  const core::RunMetadata& metadata() const noexcept { return metadata_; }
  const std::vector<Channel>& channels() const noexcept { return channels_; }
  /// Index of channel group/name, or nullopt when the run did not record it.
  std::optional<std::size_t> find(std::string_view group, std::string_view name) const;
  /// Value of column `column` of channel `channel` at `sample`.
  double value(std::size_t sample, std::size_t channel, std::size_t column) const {
    return data_[sample * width_ + channels_[channel].offset + column];
  }
  const double* row(std::size_t sample) const { return data_.data() + sample * width_; }
  /// The entity an index names: a column of an argmax channel (`<kind>_by_<level>/<x>.argmax`)
  /// or of a hottest ranking (`<kind>_hottest/index`) holds an index into the result file's
  /// /entities/<kind>, read from the file when first asked. nullopt for other channels, a store
  /// not read from a file, or a value that is no index of that list.
  std::optional<std::string> indexedEntity(std::size_t channel, double value) const;

 private:
  core::RunMetadata metadata_;
  std::vector<Channel> channels_;
  std::size_t width_ = 0;
  std::vector<double> times_;
  std::vector<double> data_;  // samples x width_, row-major
  std::string path_;          // the result file read (fromHdf5)
  mutable std::unordered_map<std::string, std::vector<std::string>> entities_;  // by kind
};

}  // namespace racktwin::gui
