#include "racktwin/scenarios/OutputPlan.hpp"

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/FloorPlan.hpp"

namespace racktwin::scenarios {
namespace {

constexpr std::size_t kAutoHottest = 16;

std::vector<std::string> splitCommas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    parts.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return parts;
}

[[noreturn]] void failOption(const char* option, const std::string& message) {
  throw core::InputError({"<command line>", 0, 0}, option, message);
}

std::optional<long> wholeNumber(const std::string& text) {
  long value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || ptr != end) return std::nullopt;
  return value;
}

}  // namespace

std::optional<core::OutputSpec::PerGpu> perGpuMode(std::string_view word) {
  using Mode = core::OutputSpec::PerGpu;
  if (word == "auto") return Mode::Auto;
  if (word == "all") return Mode::Every;
  if (word == "none") return Mode::Aggregated;
  return std::nullopt;
}

bool isAggregateLevel(std::string_view level) {
  return level == "rack" || level == "row" || level == "hall";
}

bool everyGpuRecorded(const core::SiteSpec& site) {
  using Mode = core::OutputSpec::PerGpu;
  return site.output.per_gpu == Mode::Every
         || (site.output.per_gpu == Mode::Auto
             && core::gpuCount(site) <= core::OutputSpec::kAutoPerGpuLimit);
}

std::string unknownSelection(const core::SiteSpec& site, const core::FloorPlanSpec& floor,
                             const std::string& id) {
  for (const core::RackSpec& rack : site.racks) {
    if (rack.id.str() == id) return {};
  }
  for (const core::FloorRowSpec& row : floor.rows) {
    if (row.id == id) return {};
  }
  for (const core::FloorHallSpec& hall : floor.halls) {
    if (hall.id == id) return {};
  }
  std::string rows;
  for (std::size_t k = 0; k < floor.rows.size() && k < 4; ++k)
    rows += (k ? ", " : "") + floor.rows[k].id;
  if (floor.rows.size() > 4) rows += ", ...";
  return core::quoteForMessage(id) + " is no rack, row or hall of the site (rows: " + rows + ")";
}

core::Hdf5SinkOptions sinkOptionsOf(const core::SiteSpec& site) {
  core::Hdf5SinkOptions options;
  options.deflate_level = site.output.compression;
  options.shuffle = site.output.shuffle;
  options.chunk_columns = site.output.chunk_columns;
  return options;
}

core::DetailPlan detailPlanOf(const core::SiteSpec& site) {
  using Mode = core::OutputSpec::PerGpu;
  const core::OutputSpec& output = site.output;
  const core::FloorPlanSpec floor = floorPlanOf(site);
  core::DetailPlan plan;
  for (const core::RackSpec& rack : site.racks)
    plan.rack_ids.push_back(rack.id.str());
  const bool every = everyGpuRecorded(site);
  if (!every) {
    plan.rack_detail.assign(site.racks.size(), 0);
    if (output.per_gpu == Mode::Selected) {
      std::unordered_map<std::string, std::uint32_t> rack_index;
      for (std::uint32_t r = 0; r < plan.rack_ids.size(); ++r)
        rack_index.emplace(plan.rack_ids[r], r);
      const auto selectRow = [&](const core::FloorRowSpec& row) {
        for (const std::uint32_t r : row.racks)
          plan.rack_detail[r] = 1;
      };
      for (const std::string& id : output.per_gpu_ids) {
        if (const auto it = rack_index.find(id); it != rack_index.end()) {
          plan.rack_detail[it->second] = 1;
          continue;
        }
        for (const core::FloorRowSpec& row : floor.rows) {
          if (row.id == id) selectRow(row);
        }
        for (const core::FloorHallSpec& hall : floor.halls) {
          if (hall.id != id) continue;
          for (const std::uint32_t k : hall.rows)
            selectRow(floor.rows[k]);
        }
      }
      if (std::all_of(plan.rack_detail.begin(), plan.rack_detail.end(),
                      [](std::uint8_t d) { return d != 0; })) {
        plan.rack_detail.clear();
      }
    }
  }
  std::vector<std::string> levels = output.aggregates;
  if (output.aggregates_auto) {
    levels.clear();
    if (!every) levels = {"rack", "row"};
    if (!every && floor.halls.size() > 1) levels.emplace_back("hall");
  }
  for (const std::string& name : levels) {
    core::DetailPlan::Level level;
    level.name = name;
    // By default racks aggregate their GPUs and trays only: CPU and NVSwitch temperatures, far
    // from their limits in normal operation, are aggregated per row and hall (the argmax still
    // names the hottest chip of each row). This halves the size of a large site's result.
    if (output.aggregates_auto && name == "rack") level.groups = {"gpu", "tray"};
    level.of_rack.resize(site.racks.size());
    if (name == "rack") {
      level.ids = plan.rack_ids;
      for (std::uint32_t r = 0; r < level.of_rack.size(); ++r)
        level.of_rack[r] = r;
    } else if (name == "row") {
      for (std::uint32_t k = 0; k < floor.rows.size(); ++k) {
        level.ids.push_back(floor.rows[k].id);
        for (const std::uint32_t r : floor.rows[k].racks)
          level.of_rack[r] = k;
      }
    } else {
      RACKTWIN_ASSERT(name == "hall", "aggregate levels are rack, row and hall");
      for (std::uint32_t h = 0; h < floor.halls.size(); ++h) {
        level.ids.push_back(floor.halls[h].id);
        for (const std::uint32_t k : floor.halls[h].rows) {
          for (const std::uint32_t r : floor.rows[k].racks)
            level.of_rack[r] = h;
        }
      }
    }
    plan.levels.push_back(std::move(level));
  }
  plan.hottest = output.hottest_gpus >= 0 ? static_cast<std::size_t>(output.hottest_gpus)
                                          : (plan.rack_detail.empty() ? 0 : kAutoHottest);
  return plan;
}

void applyOutputOverrides(core::SiteSpec& site, const OutputOverrides& o) {
  using Mode = core::OutputSpec::PerGpu;
  core::OutputSpec& output = site.output;
  if (o.per_gpu) {
    const std::string& v = *o.per_gpu;
    output.per_gpu_ids.clear();
    if (const auto mode = perGpuMode(v)) {
      output.per_gpu = *mode;
    } else {
      const core::FloorPlanSpec floor = floorPlanOf(site);
      output.per_gpu = Mode::Selected;
      for (const std::string& id : splitCommas(v)) {
        if (id.empty()) {
          failOption("--per-gpu",
                     "expected auto, all, none or rack, row and hall ids separated by commas, "
                     "got "
                         + core::quoteForMessage(v));
        }
        if (const std::string why = unknownSelection(site, floor, id); !why.empty()) {
          failOption("--per-gpu", why);
        }
        output.per_gpu_ids.push_back(id);
      }
    }
  }
  if (o.hottest_gpus) {
    const std::optional<long> n = wholeNumber(*o.hottest_gpus);
    if (*o.hottest_gpus == "auto") {
      output.hottest_gpus = -1;
    } else if (!n || *n < 0 || *n > 100'000) {
      failOption("--hottest-gpus", "expected auto or a whole number from 0 to 100000, got "
                                       + core::quoteForMessage(*o.hottest_gpus));
    } else {
      output.hottest_gpus = static_cast<int>(*n);
    }
  }
  if (o.aggregates) {
    const std::string& v = *o.aggregates;
    output.aggregates.clear();
    output.aggregates_auto = v == "auto";
    if (v != "auto" && v != "none") {
      for (const std::string& level : splitCommas(v)) {
        if (!isAggregateLevel(level)) {
          failOption("--aggregates",
                     "expected auto, none or levels rack, row, hall separated by "
                     "commas, got "
                         + core::quoteForMessage(v));
        }
        if (std::find(output.aggregates.begin(), output.aggregates.end(), level)
            != output.aggregates.end()) {
          failOption("--aggregates", "level '" + level + "' is given twice");
        }
        output.aggregates.push_back(level);
      }
    }
  }
  if (o.compression) {
    const std::optional<long> level = wholeNumber(*o.compression);
    if (!level || *level < 0 || *level > 9) {
      failOption("--compression", "expected a deflate level from 0 (none) to 9, got "
                                      + core::quoteForMessage(*o.compression));
    }
    output.compression = static_cast<int>(*level);
  }
}

}  // namespace racktwin::scenarios
