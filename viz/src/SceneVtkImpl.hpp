#pragma once
// The VTK objects behind a Scene (private to viz/src).
#include <vtkActor.h>
#include <vtkDoubleArray.h>
#include <vtkIntArray.h>
#include <vtkLookupTable.h>
#include <vtkNew.h>
#include <vtkPolyData.h>
#include <vtkPolyDataMapper.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkScalarBarActor.h>
#include <vtkSmartPointer.h>
#include <vtkTextActor.h>

#include <vector>

#include "racktwin/core/Units.hpp"
#include "racktwin/viz/Scene.hpp"

class vtkProp;

namespace racktwin::viz {

/// One coloured polydata (racks, CDUs or pipe tubes): its "value" scalars are written in place
/// from a frame through the "entity_index" array.
struct ScenePart {
  vtkSmartPointer<vtkPolyData> data;
  vtkNew<vtkPolyDataMapper> mapper;
  vtkNew<vtkActor> actor;
  vtkSmartPointer<vtkDoubleArray> scalars;
  vtkIntArray* entity = nullptr;

  void build(vtkSmartPointer<vtkPolyData> polydata, vtkLookupTable* lut);
  void update(const Frame& frame, Quantity q);
};

struct Scene::Vtk {
  SiteGeometry geometry;
  Quantity quantity = Quantity::GpuJunctionTemperature;
  bool auto_range = true;
  ColorMap map;
  int highlighted = -1;

  vtkNew<vtkLookupTable> lut;
  // The legend's own table: the same colours over the range in display units (degC, kW, ...).
  vtkNew<vtkLookupTable> legend_lut;
  core::UnitSystem units = core::UnitSystem::SI;
  ScenePart racks, cdus, pipes;
  vtkNew<vtkActor> floor;
  vtkNew<vtkActor> highlight;
  vtkSmartPointer<vtkPolyData> highlight_data;
  vtkNew<vtkScalarBarActor> legend;
  vtkNew<vtkTextActor> time_label;
  vtkNew<vtkTextActor> title;

  // renderPng's own offscreen window, made on first use.
  vtkSmartPointer<vtkRenderer> own_renderer;
  vtkSmartPointer<vtkRenderWindow> own_window;

  explicit Vtk(SiteGeometry g);
  /// Every prop of the scene: 3-D actors, then the 2-D overlays.
  std::vector<vtkProp*> props();
  void applyRange();
  void updateLegendTitle();
};

}  // namespace racktwin::viz
