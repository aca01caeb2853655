#include "racktwin/viz/Scene.hpp"

#include <vtkCellArray.h>
#include <vtkCellData.h>
#include <vtkPoints.h>
#include <vtkProperty.h>
#include <vtkTextProperty.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ScenePolyData.hpp"
#include "SceneVtkImpl.hpp"
#include "racktwin/core/DisplayUnits.hpp"

namespace racktwin::viz {
namespace {

/// A flat quad under the site, 2 m beyond its footprint.
vtkSmartPointer<vtkPolyData> makeFloor(const Box& b) {
  vtkNew<vtkPoints> points;
  const double m = 2.0;
  points->InsertNextPoint(b.min[0] - m, b.min[1] - m, -0.01);
  points->InsertNextPoint(b.max[0] + m, b.min[1] - m, -0.01);
  points->InsertNextPoint(b.max[0] + m, b.max[1] + m, -0.01);
  points->InsertNextPoint(b.min[0] - m, b.max[1] + m, -0.01);
  vtkNew<vtkCellArray> polys;
  const vtkIdType quad[4] = {0, 1, 2, 3};
  polys->InsertNextCell(4, quad);
  auto data = vtkSmartPointer<vtkPolyData>::New();
  data->SetPoints(points);
  data->SetPolys(polys);
  return data;
}

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
  pipes.build(makePipeTubes(geometry), lut);
  for (ScenePart* part : {&racks, &cdus}) {
    part->actor->GetProperty()->SetAmbient(0.25);
    part->actor->GetProperty()->SetDiffuse(0.8);
    part->actor->GetProperty()->SetEdgeVisibility(true);
    part->actor->GetProperty()->SetEdgeColor(0.15, 0.15, 0.15);
  }
  pipes.actor->GetProperty()->SetAmbient(0.25);
  pipes.actor->GetProperty()->SetSpecular(0.3);

  vtkNew<vtkPolyDataMapper> floor_mapper;
  floor_mapper->SetInputData(makeFloor(geometry.bounds()));
  floor->SetMapper(floor_mapper);
  floor->GetProperty()->SetColor(0.32, 0.33, 0.35);
  floor->GetProperty()->SetAmbient(0.4);

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

std::vector<vtkProp*> Scene::Vtk::props() {
  return {floor, racks.actor, cdus.actor, pipes.actor, highlight, legend, time_label, title};
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
  v.pipes.update(frame, v.quantity);
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
