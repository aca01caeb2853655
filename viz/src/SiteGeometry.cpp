#include "racktwin/viz/SiteGeometry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/FloorPlan.hpp"

namespace racktwin::viz {
namespace {

// Drawn sizes (m): an NVL72 rack is 0.6 m wide, about 1.2 m deep and 2.3 m tall; an in-row CDU a
// little wider and lower. Rows 3.6 m apart leave a cold and a hot aisle between rack rows.
constexpr double kRackWidth = 0.6;
constexpr double kRackDepth = 1.2;
constexpr double kRackHeight = 2.3;
constexpr double kCduWidth = 0.8;
constexpr double kCduHeight = 2.0;
constexpr double kGap = 0.1;
constexpr double kRowPitch = 3.6;
// Overhead pipe heights and their offsets across the rack depth: secondary supply and return,
// the ring's long return leg, facility supply and return.
constexpr double kSupplyZ = 2.6;
constexpr double kReturnZ = 2.9;
constexpr double kReturnLegZ = 3.15;
constexpr double kFacilitySupplyZ = 3.5;
constexpr double kFacilityReturnZ = 3.8;
constexpr double kSupplyY = 0.35;
constexpr double kReturnY = 0.85;

std::string rowPrefix(const std::string& id) {
  const auto slash = id.rfind('/');
  return slash == std::string::npos ? std::string() : id.substr(0, slash);
}

double drawnRadius(double diameter, double fallback) {
  const double r = diameter > 0.0 ? 0.5 * diameter : fallback;
  return std::clamp(r, 0.02, 0.15);
}

}  // namespace

/// The rows and halls to place: racks per row, and the floor plan's spacing.
struct FloorInput {
  std::vector<std::vector<std::uint32_t>> rows;  // rack indices per row, in order along it
  std::vector<std::string> row_ids;
  struct Hall {
    std::string id;
    std::vector<std::size_t> rows;
    bool origin_given = false;
    double x = 0.0, y = 0.0;  // m
    int rows_per_bay = 0;     // 0: about square
  };
  std::vector<Hall> halls;
  double rack_pitch = kRackWidth;
  double row_pitch = kRowPitch;
  double aisle = 3.0;
  double hall_gap = 10.0;
};

/// Rows of one bay of a hall: all of them up to 16 rows, else as many as make the hall about as
/// deep (rows x row pitch) as it is wide (bays x bay pitch).
std::size_t rowsPerBay(std::size_t rows, double bay_pitch, double row_pitch, int given) {
  if (given > 0) return static_cast<std::size_t>(given);
  if (rows <= 16) return std::max<std::size_t>(rows, 1);
  return static_cast<std::size_t>(
      std::ceil(std::sqrt(static_cast<double>(rows) * bay_pitch / row_pitch)));
}

/// Builds the placements (friend of SiteGeometry).
class GeometryBuilder {
 public:
  SiteGeometry g;
  std::vector<std::vector<std::uint32_t>> rows;  // rack indices per row, in order
  std::vector<int> row_start_cdu;                // CDU at a row's start, -1 none
  std::vector<int> row_end_cdu;
  std::vector<double> row_x0, row_y0;  // m, where a row's first rack stands
  double rack_pitch = kRackWidth;
  double row_pitch = kRowPitch;

  /// Places the rows of each hall in bays, the halls side by side (or at their origin).
  void placeRacks(const std::vector<std::string>& ids, FloorInput floor) {
    rows = std::move(floor.rows);
    rack_pitch = floor.rack_pitch;
    row_pitch = floor.row_pitch;
    g.racks_.resize(ids.size());
    row_x0.assign(rows.size(), 0.0);
    row_y0.assign(rows.size(), 0.0);
    const double cdu_room = kCduWidth + kGap;  // a CDU at either end of a row
    // Halls without an origin stand in a grid of about as many columns as rows of halls, in
    // order along x, hall_gap apart; each column as wide and each line as deep as its largest.
    const auto columns = static_cast<std::size_t>(
        std::ceil(std::sqrt(static_cast<double>(std::max<std::size_t>(floor.halls.size(), 1)))));
    struct Extent {
      double width = 0.0, depth = 0.0;
      std::size_t per_bay = 1;
      double bay_pitch = 0.0;
    };
    std::vector<Extent> extent(floor.halls.size());
    for (std::size_t h = 0; h < floor.halls.size(); ++h) {
      const FloorInput::Hall& hall = floor.halls[h];
      double longest = 0.0;
      for (const std::size_t row : hall.rows)
        longest = std::max(longest, static_cast<double>(rows[row].size()) * rack_pitch);
      Extent& e = extent[h];
      e.bay_pitch = longest + 2.0 * cdu_room + floor.aisle;
      e.per_bay = rowsPerBay(hall.rows.size(), e.bay_pitch, row_pitch, hall.rows_per_bay);
      const std::size_t bays = (hall.rows.size() + e.per_bay - 1) / e.per_bay;
      e.width = static_cast<double>(bays) * e.bay_pitch - floor.aisle;
      e.depth = static_cast<double>(std::min(e.per_bay, hall.rows.size())) * row_pitch;
    }
    std::vector<double> column_x(columns + 1, 0.0), line_y;
    for (std::size_t h = 0; h < floor.halls.size(); ++h) {
      const std::size_t c = h % columns, l = h / columns;
      column_x[c + 1] = std::max(column_x[c + 1], extent[h].width + floor.hall_gap);
      if (line_y.size() <= l + 1) line_y.resize(l + 2, 0.0);
      line_y[l + 1] = std::max(line_y[l + 1], extent[h].depth + floor.hall_gap);
    }
    for (std::size_t c = 1; c < column_x.size(); ++c)
      column_x[c] += column_x[c - 1];
    for (std::size_t l = 1; l < line_y.size(); ++l)
      line_y[l] += line_y[l - 1];
    for (std::size_t h = 0; h < floor.halls.size(); ++h) {
      const FloorInput::Hall& hall = floor.halls[h];
      const std::size_t per_bay = extent[h].per_bay;
      const double bay_pitch = extent[h].bay_pitch;
      const double hx = hall.origin_given ? hall.x : column_x[h % columns];
      const double hy = hall.origin_given ? hall.y : line_y[h / columns];
      HallPlacement place;
      place.id = hall.id;
      constexpr double inf = std::numeric_limits<double>::infinity();
      place.box = {{inf, inf, 0.0}, {-inf, -inf, kRackHeight}};
      for (std::size_t i = 0; i < hall.rows.size(); ++i) {
        const std::size_t row = hall.rows[i];
        const double x0 = hx + static_cast<double>(i / per_bay) * bay_pitch;
        const double y0 = hy + static_cast<double>(i % per_bay) * row_pitch;
        row_x0[row] = x0;
        row_y0[row] = y0;
        RowPlacement row_place;
        row_place.id = floor.row_ids[row];
        row_place.racks = rows[row];
        row_place.hall = static_cast<int>(h);
        row_place.box = {{x0, y0, 0.0}, {x0, y0 + kRackDepth, kRackHeight}};
        for (std::size_t k = 0; k < rows[row].size(); ++k) {
          RackPlacement& rack = g.racks_[rows[row][k]];
          rack.id = ids[rows[row][k]];
          rack.row = static_cast<int>(row);
          const double x = x0 + static_cast<double>(k) * rack_pitch;
          rack.box = {{x, y0, 0.0}, {x + kRackWidth, y0 + kRackDepth, kRackHeight}};
          row_place.box.max[0] = rack.box.max[0];
        }
        for (int a = 0; a < 2; ++a) {
          place.box.min[a] = std::min(place.box.min[a], row_place.box.min[a]);
          place.box.max[a] = std::max(place.box.max[a], row_place.box.max[a]);
        }
        place.rows.push_back(static_cast<std::uint32_t>(row));
        g.row_places_.push_back(std::move(row_place));
      }
      if (hall.rows.empty()) place.box = {};
      g.halls_.push_back(std::move(place));
    }
    // Rows are listed in the floor plan's order, whatever hall they stand in.
    std::sort(g.row_places_.begin(), g.row_places_.end(),
              [&](const RowPlacement& a, const RowPlacement& b) {
                return g.racks_[a.racks.front()].row < g.racks_[b.racks.front()].row;
              });
    row_start_cdu.assign(rows.size(), -1);
    row_end_cdu.assign(rows.size(), -1);
    g.rows_ = static_cast<int>(rows.size());
    for (std::size_t r = 0; r < g.racks_.size(); ++r)
      g.rack_index_.emplace(g.racks_[r].id, static_cast<int>(r));
  }

  void placeCduAtRow(int cdu, std::size_t row, bool at_start) {
    const double y0 = row_y0[row];
    const double x0 = at_start
                          ? row_x0[row] - kGap - kCduWidth
                          : row_x0[row] + static_cast<double>(rows[row].size() - 1) * rack_pitch
                                + kRackWidth + kGap;
    g.cdus_[static_cast<std::size_t>(cdu)].box = {{x0, y0, 0.0},
                                                  {x0 + kCduWidth, y0 + kRackDepth, kCduHeight}};
    (at_start ? row_start_cdu : row_end_cdu)[row] = cdu;
  }

  /// CDUs not yet placed go into a row of their own after the racks.
  void placeRemainingCdus(const std::vector<bool>& placed) {
    double y0 = 0.0;
    for (std::size_t row = 0; row < rows.size(); ++row)
      y0 = std::max(y0, row_y0[row] + row_pitch);
    double x0 = g.halls_.empty() ? 0.0 : g.halls_.front().box.min[0];
    bool any = false;
    for (std::size_t c = 0; c < g.cdus_.size(); ++c) {
      if (placed[c]) continue;
      g.cdus_[c].box = {{x0, y0, 0.0}, {x0 + kCduWidth, y0 + kRackDepth, kCduHeight}};
      x0 += kCduWidth + kGap;
      any = true;
    }
    if (any) ++g.rows_;
  }

  void indexCdus() {
    for (std::size_t c = 0; c < g.cdus_.size(); ++c)
      g.cdu_index_.emplace(g.cdus_[c].id, static_cast<int>(c));
  }

  static Point3 top(const Box& b, double y_offset, double z) {
    return {0.5 * (b.min[0] + b.max[0]), b.min[1] + y_offset, z};
  }

  void addPipe(std::string id, PipeKind kind, std::vector<Point3> points, double radius,
               std::vector<std::uint32_t> racks, std::vector<std::uint32_t> cdus,
               bool flow_known = true) {
    PipePlacement pipe;
    pipe.id = std::move(id);
    pipe.kind = kind;
    // Consecutive equal points would give the tube filter a segment without direction.
    points.erase(std::unique(points.begin(), points.end()), points.end());
    pipe.points = std::move(points);
    pipe.radius = radius;
    pipe.racks = std::move(racks);
    pipe.cdus = std::move(cdus);
    pipe.flow_known = flow_known;
    g.pipes_.push_back(std::move(pipe));
  }

  /// A CDU's racks: headers with taps in scenario order, or a hose pair per rack.
  void pipeCduRow(const core::CduSpec& cdu, std::uint32_t c,
                  const std::vector<std::uint32_t>& racks, const core::SiteSpec& site) {
    const Box& cb = g.cdus_[c].box;
    const double hose_r = drawnRadius(site.racks[racks.front()].type.hose.diameter, 0.03);
    const Point3 cdu_supply = top(cb, kSupplyY, cb.max[2]);
    const Point3 cdu_return = top(cb, kReturnY, cb.max[2]);
    const auto at = [](Point3 p, double z) { return Point3{p[0], p[1], z}; };
    const std::size_t n = racks.size();
    if (!cdu.headers.present) {
      for (const std::uint32_t r : racks) {
        const Box& rb = g.racks_[r].box;
        const Point3 rs = top(rb, kSupplyY, rb.max[2]);
        const Point3 rr = top(rb, kReturnY, rb.max[2]);
        const Point3 rs_up = at(rs, kSupplyZ);
        const Point3 rr_up = at(rr, kReturnZ);
        addPipe(
            g.racks_[r].id + "/supply", PipeKind::Supply,
            {cdu_supply, at(cdu_supply, kSupplyZ), {rs_up[0], cdu_supply[1], kSupplyZ}, rs_up, rs},
            hose_r, {r}, {c});
        addPipe(
            g.racks_[r].id + "/return", PipeKind::Return,
            {rr, rr_up, {rr_up[0], cdu_return[1], kReturnZ}, at(cdu_return, kReturnZ), cdu_return},
            hose_r, {r}, {c});
      }
      return;
    }
    const double header_r = drawnRadius(cdu.headers.segment.diameter, 0.05);
    const std::string& cid = g.cdus_[c].id;
    std::vector<Point3> supply_tap(n), return_tap(n);
    for (std::size_t k = 0; k < n; ++k) {
      const Box& rb = g.racks_[racks[k]].box;
      supply_tap[k] = top(rb, kSupplyY, kSupplyZ);
      return_tap[k] = top(rb, kReturnY, kReturnZ);
      addPipe(g.racks_[racks[k]].id + "/supply", PipeKind::Supply,
              {supply_tap[k], top(rb, kSupplyY, rb.max[2])}, hose_r, {racks[k]}, {c});
      addPipe(g.racks_[racks[k]].id + "/return", PipeKind::Return,
              {top(rb, kReturnY, rb.max[2]), return_tap[k]}, hose_r, {racks[k]}, {c});
    }
    const auto tail = [&](std::size_t from) {
      return std::vector<std::uint32_t>(racks.begin() + static_cast<std::ptrdiff_t>(from),
                                        racks.end());
    };
    const auto head = [&](std::size_t to) {
      return std::vector<std::uint32_t>(racks.begin(),
                                        racks.begin() + static_cast<std::ptrdiff_t>(to));
    };
    // Supply header: segment k feeds racks k..n-1.
    for (std::size_t k = 0; k < n; ++k) {
      const Point3 from = k == 0 ? at(cdu_supply, kSupplyZ) : supply_tap[k - 1];
      std::vector<Point3> points{from, supply_tap[k]};
      if (k == 0) points.insert(points.begin(), cdu_supply);
      addPipe(cid + "/supply_header/" + std::to_string(k + 1), PipeKind::Supply, std::move(points),
              header_r, tail(k), {c});
    }
    if (cdu.headers.return_arrangement == core::RowHeaderSpec::Return::Direct) {
      // Return segment k collects racks k..n-1 and flows toward the CDU.
      for (std::size_t k = 0; k < n; ++k) {
        std::vector<Point3> points{return_tap[k],
                                   k == 0 ? at(cdu_return, kReturnZ) : return_tap[k - 1]};
        if (k == 0) points.push_back(cdu_return);
        addPipe(cid + "/return_header/" + std::to_string(k + 1), PipeKind::Return,
                std::move(points), header_r, tail(k), {c});
      }
    } else {
      // Reverse return: the header flows away from the CDU collecting racks 0..k, then one leg
      // as long as the supply header leads back.
      for (std::size_t k = 1; k < n; ++k) {
        addPipe(cid + "/return_header/" + std::to_string(k + 1), PipeKind::Return,
                {return_tap[k - 1], return_tap[k]}, header_r, head(k), {c});
      }
      const Point3 last = return_tap[n - 1];
      addPipe(
          cid + "/return_leg", PipeKind::Return,
          {last, at(last, kReturnLegZ), {cdu_return[0], cdu_return[1], kReturnLegZ}, cdu_return},
          header_r, head(n), {c});
    }
  }

  /// A ring: supply and return mains through the taps (closed), a hose pair per rack.
  void pipeRing(const core::SecondaryRingSpec& ring, const core::SiteSpec& site) {
    std::vector<Point3> supply, ret;
    std::vector<std::uint32_t> ring_racks, ring_cdus;
    double hose_r = 0.03;
    for (const std::string& tap : ring.taps) {
      if (const int r = g.findRack(tap); r >= 0) {
        const Box& rb = g.racks_[static_cast<std::size_t>(r)].box;
        supply.push_back(top(rb, kSupplyY, kSupplyZ));
        ret.push_back(top(rb, kReturnY, kReturnZ));
        ring_racks.push_back(static_cast<std::uint32_t>(r));
        hose_r = drawnRadius(site.racks[static_cast<std::size_t>(r)].type.hose.diameter, 0.03);
      } else if (const int c = g.findCdu(tap); c >= 0) {
        const Box& cb = g.cdus_[static_cast<std::size_t>(c)].box;
        supply.push_back(top(cb, kSupplyY, kSupplyZ));
        ret.push_back(top(cb, kReturnY, kReturnZ));
        ring_cdus.push_back(static_cast<std::uint32_t>(c));
      }
    }
    const double main_r = drawnRadius(ring.segment.diameter, 0.06);
    const std::size_t n = supply.size();
    // A segment between rows runs down the aisle between them (the closing one a little
    // apart), not diagonally over the racks.
    const auto route = [](const Point3& a, const Point3& b, double shift) {
      if (std::abs(a[1] - b[1]) < kRackDepth) return std::vector<Point3>{a, b};
      const double aisle = 0.5 * (a[1] + b[1]) + shift;
      return std::vector<Point3>{a, {a[0], aisle, a[2]}, {b[0], aisle, b[2]}, b};
    };
    for (std::size_t k = 0; n >= 2 && k < n; ++k) {
      const std::size_t next = (k + 1) % n;
      const double shift = next == 0 ? 0.4 : 0.0;
      addPipe(ring.id.str() + "/supply/" + std::to_string(k + 1), PipeKind::Supply,
              route(supply[k], supply[next], shift), main_r, {}, ring_cdus, false);
      addPipe(ring.id.str() + "/return/" + std::to_string(k + 1), PipeKind::Return,
              route(ret[k], ret[next], shift), main_r, ring_racks, {}, false);
    }
    for (const std::uint32_t r : ring_racks) {
      const Box& rb = g.racks_[r].box;
      addPipe(g.racks_[r].id + "/supply", PipeKind::Supply,
              {top(rb, kSupplyY, kSupplyZ), top(rb, kSupplyY, rb.max[2])}, hose_r, {r}, ring_cdus);
      addPipe(g.racks_[r].id + "/return", PipeKind::Return,
              {top(rb, kReturnY, rb.max[2]), top(rb, kReturnY, kReturnZ)}, hose_r, {r}, {});
    }
    for (const std::uint32_t c : ring_cdus) {
      const Box& cb = g.cdus_[c].box;
      addPipe(g.cdus_[c].id + "/supply", PipeKind::Supply,
              {top(cb, kSupplyY, cb.max[2]), top(cb, kSupplyY, kSupplyZ)}, main_r, {}, {c}, false);
      addPipe(g.cdus_[c].id + "/return", PipeKind::Return,
              {top(cb, kReturnY, kReturnZ), top(cb, kReturnY, cb.max[2])}, main_r, ring_racks, {},
              false);
    }
  }

  /// Facility supply and return mains from the plant past the CDUs in scenario order.
  /// A facility loop's mains along its CDUs (site indices, in tap order), its pipes named
  /// `name`/supply/k and `name`/return/k.
  void pipeFacility(const core::FacilityLoopSpec& loop, const std::vector<std::uint32_t>& cdus,
                    const std::string& name) {
    const std::size_t m = cdus.size();
    if (m == 0) return;
    const double main_r = drawnRadius(loop.header_segment.diameter, 0.1);
    const double plant_r = drawnRadius(loop.plant_pipe.diameter, 0.1);
    const Box& first = g.cdus_[cdus.front()].box;
    const Point3 plant{first.min[0] - 1.5, first.min[1] - 1.8, 0.0};
    Point3 prev_s{plant[0], plant[1], kFacilitySupplyZ};
    Point3 prev_r{plant[0] + 0.3, plant[1], kFacilityReturnZ};
    for (std::size_t j = 0; j < m; ++j) {
      const std::uint32_t c = cdus[j];
      const Box& cb = g.cdus_[c].box;
      const Point3 s = top(cb, kSupplyY, kFacilitySupplyZ);
      const Point3 r = top(cb, kReturnY, kFacilityReturnZ);
      const std::vector<std::uint32_t> downstream(cdus.begin() + static_cast<std::ptrdiff_t>(j),
                                                  cdus.end());
      const std::string k = std::to_string(j + 1);
      std::vector<Point3> sp{prev_s, {s[0], prev_s[1], s[2]}, s};
      std::vector<Point3> rp{r, {r[0], prev_r[1], r[2]}, prev_r};
      if (j == 0) {
        sp.insert(sp.begin(), Point3{plant[0], plant[1], plant[2]});
        rp.push_back(Point3{plant[0] + 0.3, plant[1], plant[2]});
      }
      addPipe(name + "/supply/" + k, PipeKind::FacilitySupply, std::move(sp),
              j == 0 ? plant_r : main_r, {}, downstream);
      addPipe(name + "/return/" + k, PipeKind::FacilityReturn, std::move(rp),
              j == 0 ? plant_r : main_r, {}, downstream);
      addPipe(g.cdus_[c].id + "/facility_supply", PipeKind::FacilitySupply,
              {s, top(cb, kSupplyY, cb.max[2])}, 0.5 * main_r, {}, {c});
      addPipe(g.cdus_[c].id + "/facility_return", PipeKind::FacilityReturn,
              {top(cb, kReturnY, cb.max[2]), r}, 0.5 * main_r, {}, {c});
      prev_s = s;
      prev_r = r;
    }
  }
};

SiteGeometry SiteGeometry::build(const core::SiteSpec& site) {
  GeometryBuilder b;
  std::vector<std::string> ids;
  for (const core::RackSpec& rack : site.racks)
    ids.push_back(rack.id.str());
  const core::FloorPlanSpec plan = scenarios::floorPlanOf(site);
  FloorInput floor;
  floor.rack_pitch = plan.rack_pitch;
  floor.row_pitch = plan.row_pitch;
  floor.aisle = plan.aisle_width;
  floor.hall_gap = plan.hall_gap;
  for (const core::FloorRowSpec& row : plan.rows) {
    floor.rows.push_back(row.racks);
    floor.row_ids.push_back(row.id);
  }
  for (const core::FloorHallSpec& hall : plan.halls) {
    FloorInput::Hall h{hall.id,          {}, hall.origin_given, hall.origin_x, hall.origin_y,
                       hall.rows_per_bay};
    h.rows.assign(hall.rows.begin(), hall.rows.end());
    floor.halls.push_back(std::move(h));
  }
  b.placeRacks(ids, std::move(floor));
  b.g.cdus_.resize(site.cdus.size());
  for (std::size_t c = 0; c < site.cdus.size(); ++c)
    b.g.cdus_[c].id = site.cdus[c].id.str();
  b.indexCdus();
  for (std::size_t r = 0; r < site.racks.size(); ++r) {
    b.g.racks_[r].cdu = b.g.findCdu(site.racks[r].cdu);
  }

  std::vector<bool> placed(site.cdus.size(), false);
  // A CDU that feeds racks stands at the start of their row; a second CDU of the row at its end.
  for (std::size_t row = 0; row < b.rows.size(); ++row) {
    for (const std::uint32_t r : b.rows[row]) {
      const int c = b.g.racks_[r].cdu;
      if (c < 0 || placed[static_cast<std::size_t>(c)]) continue;
      if (b.row_start_cdu[row] < 0) {
        b.placeCduAtRow(c, row, true);
      } else if (b.row_end_cdu[row] < 0) {
        b.placeCduAtRow(c, row, false);
      } else {
        continue;
      }
      placed[static_cast<std::size_t>(c)] = true;
    }
  }
  // Ring CDUs: at the start of the row of the next rack tap, else at the end of the last one.
  for (const core::SecondaryRingSpec& ring : site.rings) {
    for (std::size_t t = 0; t < ring.taps.size(); ++t) {
      const int c = b.g.findCdu(ring.taps[t]);
      if (c < 0 || placed[static_cast<std::size_t>(c)]) continue;
      int next_row = -1, prev_row = -1;
      for (std::size_t u = t + 1; u < ring.taps.size() && next_row < 0; ++u) {
        if (const int r = b.g.findRack(ring.taps[u]); r >= 0) next_row = b.g.racks_[r].row;
      }
      for (std::size_t u = t; u-- > 0 && prev_row < 0;) {
        if (const int r = b.g.findRack(ring.taps[u]); r >= 0) prev_row = b.g.racks_[r].row;
      }
      if (next_row >= 0 && b.row_start_cdu[static_cast<std::size_t>(next_row)] < 0) {
        b.placeCduAtRow(c, static_cast<std::size_t>(next_row), true);
      } else if (prev_row >= 0 && b.row_end_cdu[static_cast<std::size_t>(prev_row)] < 0) {
        b.placeCduAtRow(c, static_cast<std::size_t>(prev_row), false);
      } else {
        continue;
      }
      placed[static_cast<std::size_t>(c)] = true;
    }
  }
  b.placeRemainingCdus(placed);

  std::vector<std::vector<std::uint32_t>> racks_of_cdu(site.cdus.size());
  for (std::uint32_t r = 0; r < b.g.racks_.size(); ++r) {
    if (b.g.racks_[r].cdu >= 0)
      racks_of_cdu[static_cast<std::size_t>(b.g.racks_[r].cdu)].push_back(r);
  }
  for (std::size_t c = 0; c < site.cdus.size(); ++c) {
    if (!racks_of_cdu[c].empty()) {
      b.pipeCduRow(site.cdus[c], static_cast<std::uint32_t>(c), racks_of_cdu[c], site);
    }
  }
  for (const core::SecondaryRingSpec& ring : site.rings)
    b.pipeRing(ring, site);
  if (site.facility.loop.present) {
    // The single loop: its mains along every CDU.
    std::vector<std::uint32_t> all(b.g.cdus_.size());
    std::iota(all.begin(), all.end(), 0U);
    b.pipeFacility(site.facility.loop, all, "facility");
  }
  for (const core::FacilityLoopSpec& loop : site.facility.loops)
    b.pipeFacility(loop, loop.cdus, "facility/" + loop.id);
  return std::move(b.g);
}

SiteGeometry SiteGeometry::fromIds(const std::vector<std::string>& rack_ids,
                                   const std::vector<std::string>& cdu_ids) {
  GeometryBuilder b;
  // Rows by id prefix in order of first appearance; racks without one fill a square grid.
  FloorInput floor;
  std::map<std::string, std::size_t> row_of_key;
  std::vector<std::uint32_t> loose;
  for (std::uint32_t r = 0; r < rack_ids.size(); ++r) {
    const std::string key = rowPrefix(rack_ids[r]);
    if (key.empty()) {
      loose.push_back(r);
      continue;
    }
    const auto [it, inserted] = row_of_key.emplace(key, floor.rows.size());
    if (inserted) {
      floor.rows.emplace_back();
      floor.row_ids.push_back(key);
    }
    floor.rows[it->second].push_back(r);
  }
  if (!loose.empty()) {
    const auto per_row =
        static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(loose.size()))));
    for (std::size_t i = 0; i < loose.size(); ++i) {
      if (i % per_row == 0) {
        floor.rows.emplace_back();
        floor.row_ids.push_back("(racks without a row) " + std::to_string(i / per_row + 1));
      }
      floor.rows.back().push_back(loose[i]);
    }
  }
  FloorInput::Hall hall;
  hall.id = "hall";
  for (std::size_t k = 0; k < floor.rows.size(); ++k)
    hall.rows.push_back(k);
  floor.halls.push_back(std::move(hall));
  b.placeRacks(rack_ids, std::move(floor));
  b.g.cdus_.resize(cdu_ids.size());
  std::vector<bool> placed(cdu_ids.size(), false);
  for (std::size_t c = 0; c < cdu_ids.size(); ++c) {
    b.g.cdus_[c].id = cdu_ids[c];
    // A CDU whose id prefix names a row ("row3/cdu1") stands at that row's start.
    const std::string prefix = rowPrefix(cdu_ids[c]);
    for (std::size_t row = 0; row < b.rows.size() && !prefix.empty(); ++row) {
      if (rowPrefix(b.g.racks_[b.rows[row].front()].id) == prefix && b.row_start_cdu[row] < 0) {
        b.placeCduAtRow(static_cast<int>(c), row, true);
        placed[c] = true;
        break;
      }
    }
  }
  b.indexCdus();
  b.placeRemainingCdus(placed);
  return std::move(b.g);
}

const std::string& SiteGeometry::entityId(std::size_t entity) const {
  if (entity < racks_.size()) return racks_[entity].id;
  entity -= racks_.size();
  if (entity < cdus_.size()) return cdus_[entity].id;
  entity -= cdus_.size();
  RACKTWIN_ASSERT(entity < pipes_.size(), "entity index out of range");
  return pipes_[entity].id;
}

int SiteGeometry::findRack(const std::string& id) const {
  const auto it = rack_index_.find(id);
  return it == rack_index_.end() ? -1 : it->second;
}

int SiteGeometry::findCdu(const std::string& id) const {
  const auto it = cdu_index_.find(id);
  return it == cdu_index_.end() ? -1 : it->second;
}

Box SiteGeometry::bounds() const {
  constexpr double inf = std::numeric_limits<double>::infinity();
  Box b{{inf, inf, inf}, {-inf, -inf, -inf}};
  const auto grow = [&b](const Point3& p) {
    for (int i = 0; i < 3; ++i) {
      b.min[i] = std::min(b.min[i], p[i]);
      b.max[i] = std::max(b.max[i], p[i]);
    }
  };
  for (const RackPlacement& r : racks_)
    grow(r.box.min), grow(r.box.max);
  for (const CduPlacement& c : cdus_)
    grow(c.box.min), grow(c.box.max);
  for (const PipePlacement& p : pipes_) {
    for (const Point3& q : p.points)
      grow(q);
  }
  if (b.min[0] > b.max[0]) return Box{};
  return b;
}

}  // namespace racktwin::viz
