#include "racktwin/viz/ResultFrames.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>

#include "FrameReducer.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/scenarios/ResultScenario.hpp"
#include "racktwin/viz/DesignMargins.hpp"

namespace racktwin::viz {
namespace fs = std::filesystem;

struct ResultFrames::Impl {
  std::string path;
  std::string site_name;
  std::string scenario_problem;
  std::vector<std::string> notes;
  bool from_scenario = false;
  SiteGeometry geometry;
  std::vector<double> times;
  std::size_t stride = 0;     // values per frame
  std::vector<double> table;  // frames x stride (Frame::values of each sample)
  std::array<std::pair<double, double>, kQuantityCount> ranges{};
};

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const core::DatasetInfo* findDataset(const core::ResultFileInfo& info, const std::string& path) {
  const auto it =
      std::lower_bound(info.datasets.begin(), info.datasets.end(), path,
                       [](const core::DatasetInfo& d, const std::string& p) { return d.path < p; });
  return it != info.datasets.end() && it->path == path ? &*it : nullptr;
}

/// Width of a (samples, entities) float64 dataset, or 0 when absent or of another shape.
std::size_t columnsOf(const core::ResultFileInfo& info, const std::string& path,
                      std::size_t samples) {
  const core::DatasetInfo* d = findDataset(info, path);
  if (d == nullptr || d->type != "float64" || d->shape.size() != 2 || d->shape[0] != samples) {
    return 0;
  }
  return static_cast<std::size_t>(d->shape[1]);
}

/// The file's ids of a group (/<group>/ids) when it has `count` of them, else none.
std::vector<std::string> idsOf(const std::string& path, const core::ResultFileInfo& info,
                               const std::string& group, std::size_t count) {
  const std::string dataset = "/" + group + "/ids";
  const core::DatasetInfo* d = findDataset(info, dataset);
  if (d == nullptr || d->type != "string") return {};
  try {
    std::vector<std::string> ids = core::readResultStrings(path, dataset);
    if (ids.size() == count) return ids;
  } catch (const core::Error&) {
    // Unreadable ids: the caller numbers the entities instead.
  }
  return {};
}

/// How many of `ids` ("<rack id>/...", written rack by rack) belong to each rack; empty when
/// they do not follow the racks.
std::vector<std::size_t> countsByRack(const std::vector<std::string>& ids,
                                      const std::vector<std::string>& rack_ids) {
  std::vector<std::size_t> counts(rack_ids.size(), 0);
  std::size_t r = 0;
  const auto inRack = [&](const std::string& id) {
    const std::string& rack = rack_ids[r];
    return id.size() > rack.size() && id.compare(0, rack.size(), rack) == 0
           && id[rack.size()] == '/';
  };
  for (const std::string& id : ids) {
    while (r < rack_ids.size() && !inRack(id))
      ++r;
    if (r == rack_ids.size()) return {};
    ++counts[r];
  }
  return counts;
}

/// Consecutive blocks: columns [begin[i], begin[i+1]) belong to owner i.
ColumnOwners ownersFromBlocks(const std::vector<std::size_t>& counts, std::size_t width) {
  ColumnOwners owners;
  owners.reserve(width);
  for (std::size_t i = 0; i < counts.size(); ++i) {
    owners.insert(owners.end(), counts[i], static_cast<std::int32_t>(i));
  }
  if (owners.size() != width) return {};
  return owners;
}

}  // namespace

ResultFrames::ResultFrames(const std::string& path) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.path = path;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    throw core::InputError({path, 0, 0}, "",
                           "no such result file (expected an HDF5 result of "
                           "`racktwin run`)");
  }
  const core::ResultFileInfo info = core::readResultInfo(path);  // throws naming the file
  const core::DatasetInfo* time_info = findDataset(info, "/time");
  if (time_info == nullptr || time_info->shape.size() != 1
      || findDataset(info, "/rack/P_ac") == nullptr) {
    throw core::InputError({path, 0, 0}, "",
                           "not a RackTwin result: expected the datasets /time and /rack/P_ac "
                           "that `racktwin run` writes");
  }
  const auto attribute = [&info](const char* key) {
    const auto it = info.attributes.find(key);
    return it == info.attributes.end() ? std::string() : it->second;
  };
  m.site_name = attribute("site_name");
  m.times = core::readResultDataset(path, "/time");
  const std::size_t samples = m.times.size();
  if (samples == 0) {
    throw core::InputError({path, 0, 0}, "",
                           "the result holds no samples (a run stopped before "
                           "its first record)");
  }
  const std::size_t rack_columns = columnsOf(info, "/rack/P_ac", samples);
  const std::size_t cdu_columns = columnsOf(info, "/cdu/T_supply", samples);
  // A result with a reduced level of detail lists every GPU (tray) in /entities/<group> and keeps
  // the columns of some racks only, or none (core/OutputDetail.hpp).
  const auto entityCount = [&info](const char* group, std::size_t columns) {
    const core::DatasetInfo* d = findDataset(info, std::string("/entities/") + group);
    return d != nullptr && d->shape.size() == 1 ? static_cast<std::size_t>(d->shape[0]) : columns;
  };
  const std::size_t gpu_columns = columnsOf(info, "/gpu/T_junction", samples);
  const std::size_t tray_columns = columnsOf(info, "/tray/T_outlet", samples);
  const std::size_t gpu_total = entityCount("gpu", gpu_columns);
  const std::size_t tray_total = entityCount("tray", tray_columns);

  // Geometry, and which rack or CDU each column belongs to. The recorder writes racks and CDUs
  // in scenario order, GPUs in SiteLayout order and trays rack by rack.
  std::array<ColumnOwners, kChannelCount> owners;
  std::vector<std::size_t> gpus_per_rack, trays_per_rack;
  scenarios::ResultScenario loaded =
      scenarios::loadResultScenario(path, attribute("scenario_path"));
  std::optional<core::SiteSpec> site = std::move(loaded.site);
  m.scenario_problem = std::move(loaded.problem);
  if (site && (site->racks.size() != rack_columns || site->cdus.size() != cdu_columns)) {
    m.scenario_problem = "scenario '" + site->scenario_path + "' has "
                         + std::to_string(site->racks.size()) + " racks and "
                         + std::to_string(site->cdus.size()) + " CDUs, the result "
                         + std::to_string(rack_columns) + " and " + std::to_string(cdu_columns);
    site.reset();
  }
  if (site) {
    const core::SiteLayout layout = core::SiteLayout::build(*site);
    std::size_t trays = 0;
    for (std::size_t r = 0; r < layout.rack_count; ++r) {
      gpus_per_rack.push_back(layout.rack_gpu_begin[r + 1] - layout.rack_gpu_begin[r]);
      const core::RackTypeSpec& type = site->racks[r].type;
      trays_per_rack.push_back(static_cast<std::size_t>(type.compute_trays + type.switch_trays));
      trays += trays_per_rack.back();
    }
    // A scenario edited since the run (other rack types) would put columns on the wrong racks.
    if ((gpu_total != 0 && gpu_total != layout.gpu_count)
        || (tray_total != 0 && tray_total != trays)) {
      m.scenario_problem = "scenario '" + site->scenario_path + "' has "
                           + std::to_string(layout.gpu_count) + " GPUs and " + std::to_string(trays)
                           + " trays, the result " + std::to_string(gpu_total) + " and "
                           + std::to_string(tray_total);
      site.reset();
      gpus_per_rack.clear();
      trays_per_rack.clear();
    }
  }
  if (site) {
    m.geometry = SiteGeometry::build(*site);
    m.from_scenario = true;
  } else {
    // Without the scenario: the file's rack and CDU ids (numbered when it has none), chips and
    // trays to racks by their ids (split evenly when those do not say).
    std::vector<std::string> rack_ids = idsOf(path, info, "rack", rack_columns);
    std::vector<std::string> cdu_ids = idsOf(path, info, "cdu", cdu_columns);
    const bool named_racks = !rack_ids.empty() || rack_columns == 0;
    if (!named_racks) {
      for (std::size_t r = 0; r < rack_columns; ++r)
        rack_ids.push_back("rack" + std::to_string(r + 1));
    }
    if (cdu_ids.empty()) {
      for (std::size_t c = 0; c < cdu_columns; ++c)
        cdu_ids.push_back("cdu" + std::to_string(c + 1));
    }
    m.geometry = SiteGeometry::fromIds(rack_ids, cdu_ids);
    if (named_racks) {
      gpus_per_rack = countsByRack(idsOf(path, info, "gpu", gpu_columns), rack_ids);
      trays_per_rack = countsByRack(idsOf(path, info, "tray", tray_columns), rack_ids);
    }
    if (gpus_per_rack.empty() && rack_columns > 0 && gpu_columns % rack_columns == 0) {
      gpus_per_rack.assign(rack_columns, gpu_columns / rack_columns);
    }
    if (trays_per_rack.empty() && rack_columns > 0 && tray_columns % rack_columns == 0) {
      trays_per_rack.assign(rack_columns, tray_columns / rack_columns);
    }
  }

  // Read each channel once, whole: (samples x columns) doubles. GPU and tray channels come from
  // their per-entity datasets when those hold every entity, else from the per-rack aggregates
  // (one column per rack: the reducer's max and mix of one value is that value), else from the
  // racks whose entities the result kept.
  std::array<std::vector<double>, kChannelCount> data;
  for (std::size_t k = 0; k < kChannelCount; ++k) {
    const auto channel = static_cast<Channel>(k);
    const ChannelName name = channelName(channel);
    std::string dataset = "/" + std::string(name.group) + "/" + std::string(name.name);
    std::size_t width = columnsOf(info, dataset, samples);
    ColumnOwners own;
    const bool inside = name.group == "gpu" || name.group == "tray";
    const std::size_t total = name.group == "gpu" ? gpu_total : tray_total;
    if (inside && width != total) {
      // The hottest GPU of a rack; the trays' outlets and flows of a rack (their plain mean).
      const std::string aggregate = "/" + std::string(name.group) + "_by_rack/"
                                    + std::string(name.name)
                                    + (name.group == "gpu" ? ".max" : ".mean");
      const std::size_t racks = columnsOf(info, aggregate, samples);
      const std::string group = std::string(name.group) + (racks > 0 ? "_by_rack" : "");
      if (racks > 0) {
        dataset = aggregate;
        width = racks;
      }
      if (width > 0) {
        own = ownersFromIds(m.geometry, idsOf(path, info, group, width), false);
      }
      if (channel == Channel::GpuTJunction) {
        std::size_t covered = 0;
        std::vector<bool> seen(m.geometry.rackCount(), false);
        for (const std::int32_t r : own) {
          if (r >= 0 && !seen[static_cast<std::size_t>(r)])
            seen[static_cast<std::size_t>(r)] = true, ++covered;
        }
        if (racks > 0) {
          m.notes.push_back(
              "GPU temperatures: the result holds per-rack aggregates; racks show "
              "their hottest GPU ("
              + aggregate + ")");
        } else if (width > 0) {
          m.notes.push_back("GPU temperatures: the result keeps the GPUs of "
                            + std::to_string(covered) + " of "
                            + std::to_string(m.geometry.rackCount())
                            + " racks and no per-rack aggregates; the other racks are grey");
        } else {
          m.notes.push_back("GPU temperatures: not in the result");
        }
      }
      if (channel == Channel::TrayTOutlet && racks > 0) {
        m.notes.push_back("rack outlet temperature: the plain mean of the rack's tray outlets ("
                          + aggregate + "); the result holds no per-tray flows to mix them by");
      }
    } else if (name.group == "gpu") {
      own = ownersFromBlocks(gpus_per_rack, width);
    } else if (name.group == "tray") {
      own = ownersFromBlocks(trays_per_rack, width);
    } else {
      const std::size_t n = name.group == "cdu" ? m.geometry.cduCount() : m.geometry.rackCount();
      if (width == n) {
        own.resize(n);
        for (std::size_t i = 0; i < n; ++i)
          own[i] = static_cast<std::int32_t>(i);
      }
    }
    if (own.empty()) continue;
    owners[k] = std::move(own);
    data[k] = core::readResultDataset(path, dataset);
  }

  FrameReducer reducer(m.geometry, owners);
  // The headroom overlay: one value per rack and CDU for the whole run (the worst margin).
  const std::vector<double> margin_used = designMarginUsed(m.geometry, readDesignLimitUse(path));
  Frame frame(m.geometry);
  m.stride = frame.values.size();
  m.table.resize(samples * m.stride);
  for (auto& range : m.ranges)
    range = {kNaN, kNaN};
  std::array<const double*, kChannelCount> rows{};
  for (std::size_t i = 0; i < samples; ++i) {
    for (std::size_t k = 0; k < kChannelCount; ++k) {
      rows[k] = data[k].empty() ? nullptr : data[k].data() + i * owners[k].size();
    }
    reducer.reduce(rows, m.times[i], frame);
    for (std::size_t e = 0; e < margin_used.size(); ++e)
      frame.value(Quantity::DesignMarginUsed, e) = margin_used[e];
    std::copy(frame.values.begin(), frame.values.end(),
              m.table.begin() + static_cast<std::ptrdiff_t>(i * m.stride));
    for (const Quantity q : kAllQuantities) {
      const auto [lo, hi] = frame.range(q);
      auto& range = m.ranges[static_cast<std::size_t>(q)];
      if (std::isnan(lo)) continue;
      range.first = std::isnan(range.first) ? lo : std::min(range.first, lo);
      range.second = std::isnan(range.second) ? hi : std::max(range.second, hi);
    }
  }
}

ResultFrames::~ResultFrames() = default;
ResultFrames::ResultFrames(ResultFrames&&) noexcept = default;
ResultFrames& ResultFrames::operator=(ResultFrames&&) noexcept = default;

const std::string& ResultFrames::path() const noexcept {
  return impl_->path;
}
const SiteGeometry& ResultFrames::geometry() const noexcept {
  return impl_->geometry;
}
bool ResultFrames::geometryFromScenario() const noexcept {
  return impl_->from_scenario;
}
const std::string& ResultFrames::scenarioProblem() const noexcept {
  return impl_->scenario_problem;
}
const std::vector<std::string>& ResultFrames::notes() const noexcept {
  return impl_->notes;
}
const std::string& ResultFrames::siteName() const noexcept {
  return impl_->site_name;
}
std::size_t ResultFrames::size() const noexcept {
  return impl_->times.size();
}
const std::vector<double>& ResultFrames::times() const noexcept {
  return impl_->times;
}

std::size_t ResultFrames::indexAt(double time) const noexcept {
  const std::vector<double>& t = impl_->times;
  if (t.empty()) return 0;
  const auto it = std::lower_bound(t.begin(), t.end(), time);
  if (it == t.begin()) return 0;
  if (it == t.end()) return t.size() - 1;
  const auto i = static_cast<std::size_t>(it - t.begin());
  return (time - t[i - 1] <= t[i] - time) ? i - 1 : i;
}

void ResultFrames::frame(std::size_t i, Frame& frame) const {
  const Impl& m = *impl_;
  RACKTWIN_ASSERT(i < m.times.size(), "sample index out of range");
  RACKTWIN_ASSERT(frame.values.size() == m.stride, "frame sized for another site");
  frame.time = m.times[i];
  std::memcpy(frame.values.data(), m.table.data() + i * m.stride, m.stride * sizeof(double));
}

Frame ResultFrames::frame(std::size_t i) const {
  Frame f(impl_->geometry);
  frame(i, f);
  return f;
}

std::pair<double, double> ResultFrames::range(Quantity q) const noexcept {
  return impl_->ranges[static_cast<std::size_t>(q)];
}

}  // namespace racktwin::viz
