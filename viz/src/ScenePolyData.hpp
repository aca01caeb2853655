#pragma once
// VTK polydata of a SiteGeometry, shared by the scene and the exporter. Every cell carries an
// Int32 "entity_index" array (the SiteGeometry entity it draws), so per-entity values reach
// the cells by one indexed copy.
#include <vtkSmartPointer.h>

#include <cstddef>
#include <vector>

#include "racktwin/viz/Frame.hpp"
#include "racktwin/viz/SiteGeometry.hpp"

class vtkPolyData;

namespace racktwin::viz {

inline constexpr const char* kEntityIndexArray = "entity_index";
inline constexpr const char* kEntityIdArray = "entity_id";

/// Racks (cdus == false) or CDUs as boxes: 8 points and 6 outward-facing quads per box.
vtkSmartPointer<vtkPolyData> makeBoxes(const SiteGeometry& geometry, bool cdus);
/// Pipes as polylines, one cell per pipe, with a point array "radius" (m); `pipes` selects some
/// (pipe indices), empty means all.
vtkSmartPointer<vtkPolyData> makePipeLines(const SiteGeometry& geometry,
                                           const std::vector<std::size_t>& pipes = {});
/// Pipes as closed tubes (a static copy of vtkTubeFilter's output, radius per pipe) of `sides`
/// sides; `pipes` as for makePipeLines.
vtkSmartPointer<vtkPolyData> makePipeTubes(const SiteGeometry& geometry,
                                           const std::vector<std::size_t>& pipes = {},
                                           int sides = 12);
/// The floor under each hall (one quad each), entity -1.
vtkSmartPointer<vtkPolyData> makeHallFloors(const SiteGeometry& geometry);
/// The site's floor, 2 m beyond its footprint, less the halls' floors where they are drawn
/// (several halls): floors at one height never overlap. Two overlapping floors a few mm apart
/// flicker through each other in bands on a large site (a software depth buffer over 250 m).
vtkSmartPointer<vtkPolyData> makeSiteFloor(const SiteGeometry& geometry);
/// Adds one cell array of doubles per Quantity (QuantityInfo::array_name) from `frame`, and the
/// "entity_id" string array; replaces arrays of those names.
void addQuantityArrays(vtkPolyData& data, const SiteGeometry& geometry, const Frame& frame);

}  // namespace racktwin::viz
