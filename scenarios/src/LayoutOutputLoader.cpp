// The scenario's `layout` (rows and halls of the floor plan) and `output` (the result's level of
// detail) sections: docs/scenario-format.md.
#include "LayoutOutputLoader.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "racktwin/scenarios/FloorPlan.hpp"
#include "racktwin/scenarios/OutputPlan.hpp"

namespace racktwin::scenarios::detail {
namespace {

constexpr int kMaxRowsPerBay = 10'000;
constexpr int kMaxHottest = 100'000;
constexpr int kMaxChunkColumns = 131'072;  // 1 MiB of float64 a chunk row

/// The rows a `halls[].rows` item names: a row id, or "PREFIX/*" for every row under PREFIX/.
std::vector<std::uint32_t> matchRows(const core::FloorPlanSpec& floor, const std::string& item) {
  std::vector<std::uint32_t> rows;
  const bool pattern = item.size() >= 2 && item.compare(item.size() - 2, 2, "/*") == 0;
  const std::string prefix = pattern ? item.substr(0, item.size() - 1) : std::string();
  for (std::uint32_t k = 0; k < floor.rows.size(); ++k) {
    const std::string& id = floor.rows[k].id;
    if (pattern ? id.compare(0, prefix.size(), prefix) == 0 && id.size() > prefix.size()
                : id == item) {
      rows.push_back(k);
    }
  }
  return rows;
}

void readHalls(const MapReader& layout, core::FloorPlanSpec& floor, int rows_per_bay) {
  const ListReader halls = layout.list("halls", "a list of halls (id, rows, origin, rows_per_bay)");
  if (halls.size() == 0) layout.fail("halls", "expected at least one hall");
  std::vector<std::int64_t> hall_of(floor.rows.size(), -1);
  floor.halls.clear();
  for (std::size_t h = 0; h < halls.size(); ++h) {
    const MapReader m = halls.map(h, {"id", "rows", "origin", "rows_per_bay"});
    core::FloorHallSpec hall;
    hall.id = m.id("id").str();
    for (const core::FloorHallSpec& other : floor.halls) {
      if (other.id == hall.id) m.fail("id", "hall '" + hall.id + "' is defined twice");
    }
    hall.rows_per_bay = m.integerOr("rows_per_bay", rows_per_bay, 1, kMaxRowsPerBay);
    if (const auto origin = m.optionalMap("origin", {"x", "y"})) {
      hall.origin_given = true;
      hall.origin_x = origin->quantity("x", core::Dimension::Length);
      hall.origin_y = origin->quantity("y", core::Dimension::Length);
      origin->finish();
    }
    const ListReader rows = m.list("rows", "row ids, or PREFIX/* for every row under PREFIX/");
    if (rows.size() == 0) m.fail("rows", "expected at least one row");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::string item = rows.string(i, "a row id, or PREFIX/*");
      const std::vector<std::uint32_t> matched = matchRows(floor, item);
      if (matched.empty()) {
        std::string known;
        for (std::size_t k = 0; k < floor.rows.size() && k < 4; ++k)
          known += (k ? ", " : "") + floor.rows[k].id;
        if (floor.rows.size() > 4) known += ", ...";
        rows.failItem(i, "no row " + core::quoteForMessage(item)
                             + " (rows are named by their racks' id prefix: " + known + ")");
      }
      for (const std::uint32_t k : matched) {
        if (hall_of[k] >= 0) {
          const auto other = static_cast<std::size_t>(hall_of[k]);
          rows.failItem(i, other == floor.halls.size()
                               ? "row '" + floor.rows[k].id + "' is listed twice"
                               : "row '" + floor.rows[k].id + "' is already in hall '"
                                     + floor.halls[other].id + "'");
        }
        hall_of[k] = static_cast<std::int64_t>(floor.halls.size());
        floor.rows[k].hall = static_cast<std::uint32_t>(floor.halls.size());
        hall.rows.push_back(k);
      }
    }
    m.finish();
    floor.halls.push_back(std::move(hall));
  }
  for (std::size_t k = 0; k < floor.rows.size(); ++k) {
    if (hall_of[k] < 0) {
      layout.fail("halls",
                  "row '" + floor.rows[k].id + "' is in no hall; with halls, every row is in one");
    }
  }
}

}  // namespace

void readLayout(const MapReader& root, core::SiteSpec& site) {
  core::FloorPlanSpec floor = defaultFloorPlan(site);
  const auto layout = root.optionalMap(
      "layout", {"rack_pitch", "row_pitch", "aisle_width", "hall_gap", "rows_per_bay", "halls"});
  if (!layout) {
    site.floor = std::move(floor);
    return;
  }
  using core::Dimension;
  floor.rack_pitch = layout->quantityOr("rack_pitch", Dimension::Length, floor.rack_pitch,
                                        Check::Positive, Kind::RackPitch);
  floor.row_pitch = layout->quantityOr("row_pitch", Dimension::Length, floor.row_pitch,
                                       Check::Positive, Kind::RowPitch);
  floor.aisle_width = layout->quantityOr("aisle_width", Dimension::Length, floor.aisle_width,
                                         Check::NonNegative, Kind::AisleWidth);
  floor.hall_gap = layout->quantityOr("hall_gap", Dimension::Length, floor.hall_gap,
                                      Check::NonNegative, Kind::AisleWidth);
  const int rows_per_bay = layout->integerOr("rows_per_bay", 0, 1, kMaxRowsPerBay);
  for (core::FloorHallSpec& hall : floor.halls)
    hall.rows_per_bay = rows_per_bay;
  if (layout->has("halls")) readHalls(*layout, floor, rows_per_bay);
  layout->finish();
  site.floor = std::move(floor);
}

void readOutput(const MapReader& root, core::SiteSpec& site) {
  using Mode = core::OutputSpec::PerGpu;
  const auto m = root.optionalMap("output", {"per_gpu", "hottest_gpus", "aggregates", "compression",
                                             "shuffle", "chunk_columns"});
  if (!m) return;
  core::OutputSpec& output = site.output;
  if (m->has("per_gpu")) {
    if (m->isScalar("per_gpu")) {
      const std::string v =
          m->string("per_gpu", "auto, all, none or a list of rack, row and hall ids");
      if (const auto mode = perGpuMode(v)) {
        output.per_gpu = *mode;
      } else {
        m->fail("per_gpu", "expected auto, all, none or a list of rack, row and hall ids, got "
                               + core::quoteForMessage(v));
      }
    } else {
      const ListReader ids =
          m->list("per_gpu", "auto, all, none or a list of rack, row and hall ids");
      if (ids.size() == 0) m->fail("per_gpu", "expected at least one rack, row or hall id");
      output.per_gpu = Mode::Selected;
      for (std::size_t i = 0; i < ids.size(); ++i) {
        const std::string id = ids.id(i).str();
        if (const std::string why = unknownSelection(site, site.floor, id); !why.empty()) {
          ids.failItem(i, why);
        }
        if (std::find(output.per_gpu_ids.begin(), output.per_gpu_ids.end(), id)
            != output.per_gpu_ids.end()) {
          ids.failItem(i, "'" + id + "' is listed twice");
        }
        output.per_gpu_ids.push_back(id);
      }
    }
  }
  if (m->has("hottest_gpus")) {
    if (m->isScalar("hottest_gpus")
        && m->string("hottest_gpus", "auto or a whole number") == "auto") {
      output.hottest_gpus = -1;
    } else {
      output.hottest_gpus = m->integer("hottest_gpus", 0, kMaxHottest);
    }
  }
  if (m->has("aggregates")) {
    output.aggregates.clear();
    if (m->isScalar("aggregates")) {
      const std::string v = m->string("aggregates", "auto, none or a list of rack, row, hall");
      if (v != "auto" && v != "none") {
        m->fail("aggregates", "expected auto, none or a list of rack, row, hall, got "
                                  + core::quoteForMessage(v));
      }
      output.aggregates_auto = v == "auto";
    } else {
      output.aggregates_auto = false;
      const ListReader levels = m->list("aggregates", "auto, none or a list of rack, row, hall");
      for (std::size_t i = 0; i < levels.size(); ++i) {
        const std::string level = levels.string(i, "rack, row or hall");
        if (!isAggregateLevel(level)) {
          levels.failItem(i, "expected rack, row or hall, got " + core::quoteForMessage(level));
        }
        if (std::find(output.aggregates.begin(), output.aggregates.end(), level)
            != output.aggregates.end()) {
          levels.failItem(i, "'" + level + "' is listed twice");
        }
        output.aggregates.push_back(level);
      }
    }
  }
  output.compression = m->integerOr("compression", output.compression, 0, 9);
  output.shuffle = m->booleanOr("shuffle", output.shuffle);
  output.chunk_columns = static_cast<std::size_t>(
      m->integerOr("chunk_columns", static_cast<int>(output.chunk_columns), 1, kMaxChunkColumns));
  m->finish();
}

}  // namespace racktwin::scenarios::detail
