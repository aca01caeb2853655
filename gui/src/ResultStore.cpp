#include "ResultStore.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"

namespace racktwin::gui {

void ResultStore::reset(const core::RunMetadata& metadata,
                        const std::vector<core::ChannelInfo>& channels) {
  metadata_ = metadata;
  channels_.clear();
  width_ = 0;
  for (const core::ChannelInfo& info : channels) {
    Channel channel;
    channel.info = info;
    channel.offset = width_;
    for (std::size_t c = 0; c < info.entity_ids.size(); ++c)
      channel.column_of.emplace(info.entity_ids[c], c);
    width_ += info.width();
    channels_.push_back(std::move(channel));
  }
  times_.clear();
  data_.clear();
  // Room for the whole run (up to 1 GiB), so a live run's rows never move: appending stays cheap
  // for the window thread that receives them.
  if (metadata.record_interval > 0.0 && metadata.duration > 0.0 && width_ > 0) {
    const double rows = std::floor(metadata.duration / metadata.record_interval) + 2.0;
    const double bytes = rows * static_cast<double>(width_) * sizeof(double);
    if (bytes < 1024.0 * 1024.0 * 1024.0) {
      times_.reserve(static_cast<std::size_t>(rows));
      data_.reserve(static_cast<std::size_t>(rows) * width_);
    }
  }
}

void ResultStore::append(double time, std::span<const double> row) {
  RACKTWIN_ASSERT(row.size() == width_, "a sample row must hold every channel's values");
  times_.push_back(time);
  data_.insert(data_.end(), row.begin(), row.end());
}

std::size_t ResultStore::sampleAt(double t) const noexcept {
  const auto it = std::upper_bound(times_.begin(), times_.end(), t);
  return it == times_.begin() ? 0 : static_cast<std::size_t>(it - times_.begin()) - 1;
}

std::optional<std::size_t> ResultStore::find(std::string_view group, std::string_view name) const {
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    if (channels_[i].info.group == group && channels_[i].info.name == name) return i;
  }
  return std::nullopt;
}

void ResultStore::writeTo(core::RecorderSink& sink, const core::RunMetadata& metadata,
                          bool complete, std::string_view summary_json) const {
  std::vector<core::ChannelInfo> infos;
  infos.reserve(channels_.size());
  for (const Channel& channel : channels_)
    infos.push_back(channel.info);
  sink.open(metadata, infos);
  for (std::size_t s = 0; s < samples(); ++s)
    sink.append(times_[s], std::span<const double>(row(s), width_));
  sink.close(complete, summary_json);
}

namespace {

double attributeNumber(const core::ResultFileInfo& info, const std::string& key) {
  const auto it = info.attributes.find(key);
  return it == info.attributes.end() ? 0.0 : std::strtod(it->second.c_str(), nullptr);
}

/// Orders datasets by path (readResultInfo sorts them so) for binary_search by path.
struct ByPath {
  bool operator()(const core::DatasetInfo& d, const std::string& p) const { return d.path < p; }
  bool operator()(const std::string& p, const core::DatasetInfo& d) const { return p < d.path; }
};
constexpr ByPath byPath{};

std::string attributeText(const core::ResultFileInfo& info, const std::string& key) {
  const auto it = info.attributes.find(key);
  return it == info.attributes.end() ? std::string() : it->second;
}

}  // namespace

ResultStore ResultStore::fromHdf5(const std::string& path) {
  const core::ResultFileInfo info = core::readResultInfo(path);
  std::vector<unsigned long long> shape;
  const std::vector<double> times = core::readResultDataset(path, "/time", &shape);
  if (shape.size() != 1)
    throw core::InputError({path, 0, 0}, "/time", "expected a 1-D float64 dataset of sample times");
  const std::size_t samples = times.size();

  core::RunMetadata metadata;
  metadata.program_version = attributeText(info, "program_version");
  metadata.site_name = attributeText(info, "site_name");
  metadata.scenario_path = attributeText(info, "scenario_path");
  metadata.seed = static_cast<unsigned long long>(attributeNumber(info, "seed"));
  metadata.step = attributeNumber(info, "step_s");
  metadata.substeps = static_cast<int>(attributeNumber(info, "substeps"));
  metadata.record_interval = attributeNumber(info, "record_interval_s");
  metadata.duration = attributeNumber(info, "duration_s");

  // The scenario text the run stored (a result saved again keeps it).
  if (std::binary_search(info.datasets.begin(), info.datasets.end(), "/scenario/text", byPath)) {
    const std::vector<std::string> text = core::readResultStrings(path, "/scenario/text");
    if (text.size() == 1) metadata.scenario_text = text.front();
  }

  // Every float64 dataset /<group>/<name> with one row per sample is a channel; the group's ids
  // (/<group>/ids) name its columns, "<group>#<column>" when the file has none of that count.
  std::map<std::string, std::vector<std::string>> group_ids;
  std::vector<core::ChannelInfo> channels;
  std::vector<std::vector<double>> columns_data;
  for (const core::DatasetInfo& dataset : info.datasets) {
    if (dataset.type != "float64" || dataset.path == "/time" || dataset.shape.empty()) continue;
    if (dataset.shape[0] != samples || dataset.shape.size() > 2) continue;
    const std::size_t slash = dataset.path.find('/', 1);
    if (slash == std::string::npos) continue;
    core::ChannelInfo channel;
    channel.group = dataset.path.substr(1, slash - 1);
    channel.name = dataset.path.substr(slash + 1);
    channel.unit = dataset.units;
    channel.description = dataset.description;
    const std::size_t width = dataset.shape.size() == 2 ? dataset.shape[1] : 0;
    if (width > 0) {
      const std::string ids_path = "/" + channel.group + "/ids";
      auto ids = group_ids.find(channel.group);
      if (ids == group_ids.end()) {
        std::vector<std::string> read;
        if (std::binary_search(info.datasets.begin(), info.datasets.end(), ids_path, byPath))
          read = core::readResultStrings(path, ids_path);
        ids = group_ids.emplace(channel.group, std::move(read)).first;
      }
      if (ids->second.size() == width) {
        channel.entity_ids = ids->second;
      } else {
        for (std::size_t c = 0; c < width; ++c)
          channel.entity_ids.push_back(channel.group + "#" + std::to_string(c));
      }
    }
    channels.push_back(std::move(channel));
    columns_data.push_back(core::readResultDataset(path, dataset.path));
  }

  ResultStore store;
  store.reset(metadata, channels);
  store.path_ = path;
  store.times_ = times;
  store.data_.resize(samples * store.width_);
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const std::size_t width = store.channels_[i].info.width();
    const std::size_t offset = store.channels_[i].offset;
    for (std::size_t s = 0; s < samples; ++s)
      std::copy_n(columns_data[i].data() + s * width, width,
                  store.data_.data() + s * store.width_ + offset);
  }
  return store;
}

std::optional<std::string> ResultStore::indexedEntity(std::size_t channel, double value) const {
  if (path_.empty() || channel >= channels_.size()) return std::nullopt;
  const core::ChannelInfo& info = channels_[channel].info;
  const std::string_view group = info.group, name = info.name;
  std::string kind;
  constexpr std::string_view kArgmax = ".argmax", kHottest = "_hottest";
  if (name.size() > kArgmax.size() && name.ends_with(kArgmax)
      && group.find("_by_") != std::string_view::npos) {
    kind = group.substr(0, group.find("_by_"));
  } else if (name == "index" && group.size() > kHottest.size() && group.ends_with(kHottest)) {
    kind = group.substr(0, group.size() - kHottest.size());
  } else {
    return std::nullopt;
  }
  auto it = entities_.find(kind);
  if (it == entities_.end()) {
    std::vector<std::string> ids;
    try {
      ids = core::readResultStrings(path_, "/entities/" + kind);
    } catch (const std::exception&) {
      ids.clear();  // a file without the list (or gone): the number stays a number
    }
    it = entities_.emplace(kind, std::move(ids)).first;
  }
  if (!(value >= 0.0) || value != std::floor(value)
      || value >= static_cast<double>(it->second.size()))
    return std::nullopt;
  return it->second[static_cast<std::size_t>(value)];
}

void ResultStore::renameEntities(std::string_view group, const std::vector<std::string>& ids) {
  for (Channel& channel : channels_) {
    if (channel.info.group != group || channel.info.entity_ids.size() != ids.size()) continue;
    channel.info.entity_ids = ids;
    channel.column_of.clear();
    for (std::size_t c = 0; c < ids.size(); ++c)
      channel.column_of.emplace(ids[c], c);
  }
}

}  // namespace racktwin::gui
