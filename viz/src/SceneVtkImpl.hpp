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
#include <vtkWeakPointer.h>

#include <cstdint>
#include <memory>
#include <utility>
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
  std::uint64_t version = 0;  // the Scene::Vtk::frame_version its scalars show

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
  ScenePart racks, cdus;
  // Pipes in square tiles of the floor, one actor each, so the renderer leaves out those outside
  // the view. On a large site they are drawn only when the view is narrow enough to show them.
  std::vector<std::unique_ptr<ScenePart>> pipe_tiles;
  bool pipes_always = true;  // few enough pipes to draw at any distance
  bool pipes_shown = true;
  Frame last_frame;  // the last update(): tiles shown later are coloured from it
  bool has_frame = false;
  std::uint64_t frame_version = 0;
  vtkNew<vtkActor> floor;
  vtkNew<vtkActor> hall_floors;
  vtkNew<vtkActor> highlight;
  vtkSmartPointer<vtkPolyData> highlight_data;
  vtkNew<vtkScalarBarActor> legend;
  vtkNew<vtkTextActor> time_label;
  vtkNew<vtkTextActor> title;

  // renderPng's own offscreen window, made on first use.
  vtkSmartPointer<vtkRenderer> own_renderer;
  vtkSmartPointer<vtkRenderWindow> own_window;

  // The renderers addToRenderer put the scene in, with the tag of their StartEvent observer.
  std::vector<std::pair<vtkWeakPointer<vtkRenderer>, unsigned long>> observed;

  explicit Vtk(SiteGeometry g);
  ~Vtk();
  Vtk(const Vtk&) = delete;
  Vtk& operator=(const Vtk&) = delete;
  /// Every prop of the scene: 3-D actors, then the 2-D overlays.
  std::vector<vtkProp*> props();
  /// The coloured parts: racks, CDUs, pipe tiles.
  std::vector<ScenePart*> parts();
  /// Before each render of `renderer`: pipes shown or not for its camera, and the tiles shown
  /// coloured by the last frame.
  void applyDetail(vtkRenderer* renderer);
  /// Colours the pipe tiles from the last frame when they are drawn and not yet coloured by it.
  void colourPipes();
  void applyRange();
  void updateLegendTitle();
};

}  // namespace racktwin::viz
