#include "racktwin/viz/Scene.hpp"

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkPoints.h>
#include <vtkProperty.h>
#include <vtkTextProperty.h>

#include <vtkCamera.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "ScenePolyData.hpp"
#include "SceneVtkImpl.hpp"
#include "racktwin/core/DisplayUnits.hpp"

namespace racktwin::viz {
namespace {

/// The 12 edges of a box, as lines (the highlight outline).
vtkSmartPointer<vtkPolyData> makeOutline() {
  vtkNew<vtkPoints> points;
  points->SetNumberOfPoints(8);
  for (vtkIdType k = 0; k < 8; ++k)
    points->SetPoint(k, 0.0, 0.0, 0.0);
  vtkNew<vtkCellArray> lines;
  constexpr vtkIdType kEdges[12][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                       {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  for (const auto& edge : kEdges)
    lines->InsertNextCell(2, edge);
  auto data = vtkSmartPointer<vtkPolyData>::New();
  data->SetPoints(points);
  data->SetLines(lines);
  return data;
}

// Level of detail: a site of up to kPipesAlwaysBelow pipes draws them at any distance (the 64-rack
// cluster has 288); a larger one draws them when the view is at most kPipeViewWidth wide at its
// focal point (a few bays of rows), with fewer sides, in tiles of the floor kPipeTile wide or more
// of which those within twice the view's width (at least a tile) of the focal point.
constexpr std::size_t kPipesAlwaysBelow = 2000;
constexpr double kPipeViewWidth = 60.0;  // m
// Box edges (which tell racks apart) when the view is at most this wide: beyond, a rack is a few
// pixels and its edges would only darken it.
constexpr double kEdgeViewWidth = 150.0;  // m
constexpr double kPipeTile = 24.0;        // m

std::string formatTime(double t) {
  char text[64];
  const double s = std::max(0.0, t);
  const auto whole = static_cast<long long>(std::floor(s));
  std::snprintf(text, sizeof text, "t = %lld:%02lld:%02lld (%.0f s)", whole / 3600,
                (whole / 60) % 60, whole % 60, t);
  return text;
}

}  // namespace

void ScenePart::build(vtkSmartPointer<vtkPolyData> polydata, vtkLookupTable* lut) {
  data = std::move(polydata);
  entity = vtkIntArray::SafeDownCast(data->GetCellData()->GetArray(kEntityIndexArray));
  scalars = vtkSmartPointer<vtkDoubleArray>::New();
  scalars->SetName("value");
  scalars->SetNumberOfTuples(data->GetNumberOfCells());
  scalars->Fill(std::nan(""));
  data->GetCellData()->SetScalars(scalars);
  mapper->SetInputData(data);
  mapper->SetLookupTable(lut);
  mapper->SetScalarModeToUseCellData();
  mapper->UseLookupTableScalarRangeOn();
  mapper->ScalarVisibilityOn();
  actor->SetMapper(mapper);
}

void ScenePart::update(const Frame& frame, Quantity q) {
  const vtkIdType cells = scalars->GetNumberOfTuples();
  double* out = scalars->GetPointer(0);
  const int* in = entity->GetPointer(0);
  for (vtkIdType c = 0; c < cells; ++c)
    out[c] = frame.value(q, static_cast<std::size_t>(in[c]));
  scalars->Modified();
  data->Modified();
}

Scene::Vtk::Vtk(SiteGeometry g) : geometry(std::move(g)) {
  lut->SetNumberOfTableValues(static_cast<vtkIdType>(ColorMap::kEntries));
  for (std::size_t i = 0; i < ColorMap::kEntries; ++i) {
    const Rgb c = ColorMap::entry(i);
    lut->SetTableValue(static_cast<vtkIdType>(i), c[0] / 255.0, c[1] / 255.0, c[2] / 255.0, 1.0);
  }
  const Rgb nan = ColorMap::nanColour();
  lut->SetNanColor(nan[0] / 255.0, nan[1] / 255.0, nan[2] / 255.0, 1.0);
  lut->SetTableRange(map.min(), map.max());

  racks.build(makeBoxes(geometry, false), lut);
  cdus.build(makeBoxes(geometry, true), lut);
  pipes_always = geometry.pipeCount() <= kPipesAlwaysBelow;
  // Tiles by the first point of each pipe, at most about 16 x 16 of them.
  const Box site = geometry.bounds();
  const double tile =
      std::max(kPipeTile, std::max(site.max[0] - site.min[0], site.max[1] - site.min[1]) / 16.0);
  std::map<std::pair<long, long>, std::vector<std::size_t>> tiles;
  for (std::size_t p = 0; p < geometry.pipeCount(); ++p) {
    const Point3& q = geometry.pipes()[p].points.front();
    tiles[{static_cast<long>(std::floor((q[0] - site.min[0]) / tile)),
           static_cast<long>(std::floor((q[1] - site.min[1]) / tile))}]
        .push_back(p);
  }
  if (tiles.empty()) tiles[{0, 0}] = {};
  for (const auto& [key, pipes] : tiles) {
    auto part = std::make_unique<ScenePart>();
    part->build(pipes.empty() ? makePipeTubes(geometry)
                              : makePipeTubes(geometry, pipes, pipes_always ? 12 : 6),
                lut);
    part->actor->GetProperty()->SetAmbient(0.25);
    part->actor->GetProperty()->SetSpecular(0.3);
    pipe_tiles.push_back(std::move(part));
  }
  for (ScenePart* part : {&racks, &cdus}) {
    // Closed boxes: their back faces are hidden anyway, and drawing them costs a software
    // renderer a third of a frame of a large site.
    part->actor->GetProperty()->BackfaceCullingOn();
    part->actor->GetProperty()->SetAmbient(0.25);
    part->actor->GetProperty()->SetDiffuse(0.8);
    part->actor->GetProperty()->SetEdgeVisibility(true);
    part->actor->GetProperty()->SetEdgeColor(0.15, 0.15, 0.15);
  }
  vtkNew<vtkPolyDataMapper> floor_mapper;
  floor_mapper->SetInputData(makeSiteFloor(geometry));
  floor->SetMapper(floor_mapper);
  floor->GetProperty()->SetColor(0.32, 0.33, 0.35);
  floor->GetProperty()->SetAmbient(0.4);
  // With several halls each has a lighter floor of its own, outlined.
  vtkNew<vtkPolyDataMapper> hall_mapper;
  hall_mapper->SetInputData(makeHallFloors(geometry));
  hall_floors->SetMapper(hall_mapper);
  hall_floors->GetProperty()->SetColor(0.40, 0.41, 0.44);
  hall_floors->GetProperty()->SetAmbient(0.4);
  hall_floors->GetProperty()->SetEdgeVisibility(true);
  hall_floors->GetProperty()->SetEdgeColor(0.75, 0.76, 0.8);
  hall_floors->GetProperty()->SetLineWidth(2.0);
  hall_floors->SetVisibility(geometry.halls().size() > 1);

  highlight_data = makeOutline();
  vtkNew<vtkPolyDataMapper> highlight_mapper;
  highlight_mapper->SetInputData(highlight_data);
  highlight->SetMapper(highlight_mapper);
  highlight->GetProperty()->SetColor(1.0, 0.85, 0.0);
  highlight->GetProperty()->SetLineWidth(4.0);
  highlight->GetProperty()->LightingOff();
  highlight->SetVisibility(false);

  // A horizontal bar along the bottom: long titles ("GPU junction temperature (max) [K]") fit.
  legend_lut->DeepCopy(lut);
  legend->SetLookupTable(legend_lut);
  legend->SetOrientationToHorizontal();
  legend->SetNumberOfLabels(5);
  legend->SetPosition(0.3, 0.015);
  legend->SetWidth(0.45);
  legend->SetHeight(0.11);
  legend->SetLabelFormat("%-#6.4g");
  legend->SetBarRatio(0.3);
  legend->SetTextPositionToPrecedeScalarBar();  // labels below the bar, the title above
  legend->UnconstrainedFontSizeOn();
  legend->GetTitleTextProperty()->SetFontSize(15);
  legend->GetTitleTextProperty()->ItalicOff();
  legend->GetLabelTextProperty()->SetFontSize(13);
  legend->GetLabelTextProperty()->ItalicOff();
  applyRange();

  time_label->SetDisplayPosition(10, 10);
  time_label->GetTextProperty()->SetFontSize(16);
  time_label->GetTextProperty()->SetColor(1.0, 1.0, 1.0);
  time_label->SetInput("");
  title->GetTextProperty()->SetFontSize(16);
  title->GetTextProperty()->SetColor(1.0, 1.0, 1.0);
  title->GetPositionCoordinate()->SetCoordinateSystemToNormalizedViewport();
  title->GetTextProperty()->SetVerticalJustificationToTop();
  title->SetPosition(0.01, 0.98);
  title->SetInput("");
}

Scene::Vtk::~Vtk() {
  for (auto& [renderer, tag] : observed) {
    if (renderer) renderer->RemoveObserver(tag);
  }
}

std::vector<vtkProp*> Scene::Vtk::props() {
  std::vector<vtkProp*> all = {floor, hall_floors, racks.actor, cdus.actor};
  for (const auto& tile : pipe_tiles)
    all.push_back(tile->actor);
  for (vtkProp* overlay : std::initializer_list<vtkProp*>{highlight, legend, time_label, title})
    all.push_back(overlay);
  return all;
}

std::vector<ScenePart*> Scene::Vtk::parts() {
  std::vector<ScenePart*> all = {&racks, &cdus};
  for (const auto& tile : pipe_tiles)
    all.push_back(tile.get());
  return all;
}

void Scene::Vtk::applyDetail(vtkRenderer* renderer) {
  if (pipes_always || renderer == nullptr) {
    colourPipes();
    return;
  }
  // The pipes of the tiles near the focal point, when the view is narrow enough to show them;
  // farther tiles would be a few pixels each.
  vtkCamera* camera = renderer->GetActiveCamera();
  const double width =
      camera->GetParallelProjection() != 0
          ? 2.0 * camera->GetParallelScale()
          : 2.0 * camera->GetDistance() * std::tan(0.5 * camera->GetViewAngle() * M_PI / 180.0);
  const bool near = width <= kPipeViewWidth;
  for (ScenePart* part : {&racks, &cdus})
    part->actor->GetProperty()->SetEdgeVisibility(width <= kEdgeViewWidth);
  double focus[3];
  camera->GetFocalPoint(focus);
  pipes_shown = false;
  for (const auto& tile : pipe_tiles) {
    double b[6];
    tile->data->GetBounds(b);
    const double dx = std::max({b[0] - focus[0], 0.0, focus[0] - b[1]});
    const double dy = std::max({b[2] - focus[1], 0.0, focus[1] - b[3]});
    const bool show = near && std::hypot(dx, dy) <= std::max(kPipeTile, 2.0 * width);
    tile->actor->SetVisibility(show);
    pipes_shown = pipes_shown || show;
  }
  colourPipes();
}

void Scene::Vtk::colourPipes() {
  if (!pipes_shown || !has_frame) return;
  for (const auto& tile : pipe_tiles) {
    if (tile->version == frame_version || tile->actor->GetVisibility() == 0) continue;
    tile->update(last_frame, quantity);
    tile->version = frame_version;
  }
}

namespace {

/// The legend's unit for a quantity over a range: the rule every display of the program shares.
core::DisplayUnit legendUnit(Quantity quantity, core::UnitSystem units, double min, double max) {
  const double magnitude = std::max(std::abs(min), std::abs(max));
  return core::displayUnitFor(quantityInfo(quantity).unit, units,
                              std::isfinite(magnitude) ? magnitude : 0.0);
}

std::string unitText(std::string_view unit) {
  if (unit == "degC") return "\u00B0C";
  if (unit == "degF") return "\u00B0F";
  return std::string(unit);
}

}  // namespace

void Scene::Vtk::applyRange() {
  lut->SetTableRange(map.min(), map.max());
  // Every display unit is an affine map with a positive scale: the colours keep their order.
  const core::DisplayUnit unit = legendUnit(quantity, units, map.min(), map.max());
  legend_lut->SetTableRange(map.min() * unit.scale + unit.offset,
                            map.max() * unit.scale + unit.offset);
  updateLegendTitle();
}

void Scene::Vtk::updateLegendTitle() {
  const QuantityInfo& info = quantityInfo(quantity);
  const core::DisplayUnit unit = legendUnit(quantity, units, map.min(), map.max());
  const std::string title_text = std::string(info.label) + " [" + unitText(unit.unit) + "]";
  legend->SetTitle(title_text.c_str());
}

Scene::Scene(SiteGeometry geometry) : vtk_(std::make_unique<Vtk>(std::move(geometry))) {}
Scene::~Scene() = default;

const SiteGeometry& Scene::geometry() const noexcept {
  return vtk_->geometry;
}

void Scene::setQuantity(Quantity quantity) {
  vtk_->quantity = quantity;
  vtk_->applyRange();
}

void Scene::setUnitSystem(core::UnitSystem units) {
  vtk_->units = units;
  vtk_->applyRange();
}

std::string Scene::legendTitle() const {
  const char* title = vtk_->legend->GetTitle();
  return title ? title : "";
}

std::pair<double, double> Scene::legendRange() const {
  const double* range = vtk_->legend_lut->GetRange();
  return {range[0], range[1]};
}
Quantity Scene::quantity() const noexcept {
  return vtk_->quantity;
}

void Scene::setRange(double min, double max) {
  vtk_->auto_range = false;
  vtk_->map.setRange(min, max);
  vtk_->applyRange();
}
void Scene::setAutoRange() {
  vtk_->auto_range = true;
}
bool Scene::autoRange() const noexcept {
  return vtk_->auto_range;
}
const ColorMap& Scene::colorMap() const noexcept {
  return vtk_->map;
}

void Scene::update(const Frame& frame) {
  Vtk& v = *vtk_;
  RACKTWIN_ASSERT(frame.entity_count == v.geometry.entityCount(), "frame sized for another site");
  if (v.auto_range) {
    const auto [lo, hi] = frame.range(v.quantity);
    if (!std::isnan(lo)) {
      v.map.setRange(lo, hi);
      v.applyRange();
    }
  }
  v.racks.update(frame, v.quantity);
  v.cdus.update(frame, v.quantity);
  // Pipes: now when they are drawn, else when a render shows them (applyDetail).
  v.last_frame.time = frame.time;
  v.last_frame.entity_count = frame.entity_count;
  v.last_frame.values.assign(frame.values.begin(), frame.values.end());
  v.has_frame = true;
  ++v.frame_version;
  v.colourPipes();
  v.time_label->SetInput(formatTime(frame.time).c_str());
}

void Scene::highlightRack(int index) {
  Vtk& v = *vtk_;
  if (index < 0 || static_cast<std::size_t>(index) >= v.geometry.rackCount()) {
    v.highlighted = -1;
    v.highlight->SetVisibility(false);
    return;
  }
  v.highlighted = index;
  const Box& b = v.geometry.racks()[static_cast<std::size_t>(index)].box;
  const double m = 0.03;  // just outside the faces so the edges are not hidden
  vtkPoints* points = v.highlight_data->GetPoints();
  for (vtkIdType k = 0; k < 8; ++k) {
    points->SetPoint(k, (k & 1) ? b.max[0] + m : b.min[0] - m,
                     (k & 2) ? b.max[1] + m : b.min[1] - m, (k & 4) ? b.max[2] + m : b.min[2] - m);
  }
  points->Modified();
  v.highlight_data->Modified();
  v.highlight->SetVisibility(true);
}
int Scene::highlightedRack() const noexcept {
  return vtk_->highlighted;
}

void Scene::setTitle(const std::string& title) {
  vtk_->title->SetInput(title.c_str());
}

Scene::Vtk& Scene::vtk() noexcept {
  return *vtk_;
}

}  // namespace racktwin::viz
