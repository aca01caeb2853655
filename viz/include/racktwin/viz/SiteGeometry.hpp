#pragma once
// SiteGeometry: where the site's racks, CDUs and pipes stand, in metres (x along a row, y across
// rows, z up; the floor at z = 0). Built once from a SiteSpec; no VTK type appears here.
//
// Entities are numbered racks first, then CDUs, then pipes: entity e of a Frame is rack e for
// e < rackCount(), CDU e - rackCount() next, then pipes. Rack and CDU ids are the recorder's
// entity ids ("row1/rack01", "row1/cdu1"), so result columns map to them by id.
//
// Layout rules (the floor plan, scenarios/FloorPlan.hpp and the scenario's `layout` key):
//  - rows are the floor plan's (the racks sharing an id prefix, "row1" of "row1/rack01"), racks
//    side by side in scenario order at the rack pitch (0.6 m);
//  - a hall's rows stand side by side along y at the row pitch (3.6 m: rack depth and a hot and
//    cold aisle) in bays of rows_per_bay rows; bays follow one another along x, a cross aisle
//    apart; halls stand side by side along x, hall_gap apart, or at their given origin;
//  - a CDU that serves a row stands at its start, next to the first rack (a second CDU of the
//    row at its end); a ring's CDUs stand at the start (or, after the last row, the end) of the
//    row that follows them in tap order; any other CDU stands in a row of its own after the
//    racks;
//  - pipes: per CDU-fed rack a supply and a return path (over the row headers when the CDU has
//    them), per ring the supply and return mains through its taps with a hose pair per rack,
//    and with a facility loop the facility supply and return mains along the CDUs.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::viz {

using Point3 = std::array<double, 3>;

struct Box {
  Point3 min{0.0, 0.0, 0.0};  // m
  Point3 max{0.0, 0.0, 0.0};  // m
};

struct RackPlacement {
  std::string id;  // "row1/rack01"
  Box box;
  int row = 0;   // row index, 0-based
  int cdu = -1;  // index of the CDU that feeds the rack, -1 on a ring or unknown
};

/// A row of racks and a hall of rows, as the floor plan groups them (their boxes bound what they
/// hold, on the floor).
struct RowPlacement {
  std::string id;  // "row1", "hall1/row012"
  Box box;
  std::vector<std::uint32_t> racks;  // rack indices along the row
  int hall = 0;
};

struct HallPlacement {
  std::string id;  // "hall" for a site without layout.halls
  Box box;
  std::vector<std::uint32_t> rows;  // row indices (rows())
};

struct CduPlacement {
  std::string id;  // "row1/cdu1"
  Box box;
};

enum class PipeKind : std::uint8_t { Supply, Return, FacilitySupply, FacilityReturn };

/// A polyline tube. Its values in a frame come from the entities it carries:
///  - CoolantFlow (when flow_known): secondary pipes the sum of their racks' flows, facility
///    pipes the sum of their CDUs' facility flows. Ring mains carry a flow the ring's solution
///    splits between taps and the result does not record: NaN there (flow_known false);
///  - CoolantTemperature: Supply: its CDUs' supply temperature (mixed by CDU flow); Return: its
///    racks' outlet temperatures mixed by rack flow; facility pipes: the CDUs' facility supply
///    or return temperature mixed by facility flow.
/// Pipes are NaN for RackPower and GpuJunctionTemperature.
struct PipePlacement {
  std::string id;  // "row1/rack01/supply", "hall/ring1/return/3", "facility/supply/2"
  PipeKind kind = PipeKind::Supply;
  std::vector<Point3> points;        // at least two
  double radius = 0.05;              // m, drawn radius
  std::vector<std::uint32_t> racks;  // rack indices whose flow the pipe carries
  std::vector<std::uint32_t> cdus;   // CDU indices whose flow or temperature it carries
  bool flow_known = true;
};

class SiteGeometry {
 public:
  /// Lays out the site as described above.
  static SiteGeometry build(const core::SiteSpec& site);
  /// Without a scenario (a result whose scenario cannot be loaded): racks grouped in rows by id
  /// prefix in one hall, CDUs at the start of the row their id prefix names or in a row of their
  /// own, no pipes.
  static SiteGeometry fromIds(const std::vector<std::string>& rack_ids,
                              const std::vector<std::string>& cdu_ids);

  const std::vector<RackPlacement>& racks() const noexcept { return racks_; }
  const std::vector<CduPlacement>& cdus() const noexcept { return cdus_; }
  const std::vector<PipePlacement>& pipes() const noexcept { return pipes_; }
  /// The floor plan's rows and halls (racks only: a row of CDUs alone is not among them).
  const std::vector<RowPlacement>& rows() const noexcept { return row_places_; }
  const std::vector<HallPlacement>& halls() const noexcept { return halls_; }
  /// Rows drawn, the row of CDUs without racks included.
  int rowCount() const noexcept { return rows_; }

  std::size_t rackCount() const noexcept { return racks_.size(); }
  std::size_t cduCount() const noexcept { return cdus_.size(); }
  std::size_t pipeCount() const noexcept { return pipes_.size(); }
  std::size_t entityCount() const noexcept { return racks_.size() + cdus_.size() + pipes_.size(); }
  std::size_t rackEntity(std::size_t rack) const noexcept { return rack; }
  std::size_t cduEntity(std::size_t cdu) const noexcept { return racks_.size() + cdu; }
  std::size_t pipeEntity(std::size_t pipe) const noexcept {
    return racks_.size() + cdus_.size() + pipe;
  }
  /// Id of entity e (rack, CDU or pipe id).
  const std::string& entityId(std::size_t entity) const;
  /// Index of the rack with this id, or -1.
  int findRack(const std::string& id) const;
  /// Index of the CDU with this id, or -1.
  int findCdu(const std::string& id) const;
  /// Bounds of everything placed (m).
  Box bounds() const;

 private:
  std::vector<RackPlacement> racks_;
  std::vector<CduPlacement> cdus_;
  std::vector<PipePlacement> pipes_;
  std::vector<RowPlacement> row_places_;
  std::vector<HallPlacement> halls_;
  std::unordered_map<std::string, int> rack_index_, cdu_index_;
  int rows_ = 0;
  friend class GeometryBuilder;
};

}  // namespace racktwin::viz
