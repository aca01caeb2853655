#include "racktwin/viz/SceneVtk.hpp"

#include <vtkCallbackCommand.h>
#include <vtkCamera.h>
#include <vtkCellPicker.h>
#include <vtkProp.h>

#include <algorithm>
#include <cmath>

#include "SceneVtkImpl.hpp"

namespace racktwin::viz {

namespace {

/// Before each render: the level of detail for the renderer's camera (Scene::Vtk::applyDetail).
void beforeRender(vtkObject* caller, unsigned long, void* client, void*) {
  static_cast<Scene::Vtk*>(client)->applyDetail(static_cast<vtkRenderer*>(caller));
}

}  // namespace

void addToRenderer(Scene& scene, vtkRenderer* renderer) {
  Scene::Vtk& v = scene.vtk();
  for (vtkProp* prop : v.props())
    renderer->AddViewProp(prop);
  renderer->SetBackground(0.12, 0.13, 0.16);
  vtkNew<vtkCallbackCommand> callback;
  callback->SetCallback(beforeRender);
  callback->SetClientData(&v);
  v.observed.emplace_back(renderer, renderer->AddObserver(vtkCommand::StartEvent, callback));
  resetCamera(scene, renderer);
}

void removeFromRenderer(Scene& scene, vtkRenderer* renderer) {
  Scene::Vtk& v = scene.vtk();
  for (vtkProp* prop : v.props())
    renderer->RemoveViewProp(prop);
  for (auto it = v.observed.begin(); it != v.observed.end();) {
    if (it->first.GetPointer() == renderer) {
      renderer->RemoveObserver(it->second);
      it = v.observed.erase(it);
    } else {
      ++it;
    }
  }
}

void resetCamera(Scene& scene, vtkRenderer* renderer) {
  const Box b = scene.geometry().bounds();
  const double centre[3] = {0.5 * (b.min[0] + b.max[0]), 0.5 * (b.min[1] + b.max[1]),
                            0.5 * (b.min[2] + b.max[2])};
  // From the front (the first row), to the left and above: rows recede, racks show their faces.
  const double direction[3] = {-0.45, -1.0, 0.8};
  vtkCamera* camera = renderer->GetActiveCamera();
  camera->SetFocalPoint(centre);
  camera->SetPosition(centre[0] + direction[0], centre[1] + direction[1], centre[2] + direction[2]);
  camera->SetViewUp(0.0, 0.0, 1.0);
  double bounds[6] = {b.min[0], b.max[0], b.min[1], b.max[1], b.min[2], b.max[2]};
  renderer->ResetCamera(bounds);
  // ResetCamera fits the bounding sphere, which leaves long halls small: zoom in with the
  // footprint's aspect ratio (0.85 for a square site: room for tall racks; 1.5 from 4:1).
  const double dx = b.max[0] - b.min[0], dy = b.max[1] - b.min[1];
  const double aspect = std::max(dx, dy) / std::max(1e-9, std::min(dx, dy));
  camera->Zoom(std::min(1.5, 0.85 + 0.22 * (aspect - 1.0)));
  // Lift the site clear of the legend along the bottom edge.
  camera->SetWindowCenter(0.0, -0.12);
  renderer->ResetCameraClippingRange();
}

int pickEntity(Scene& scene, vtkRenderer* renderer, int x, int y) {
  Scene::Vtk& v = scene.vtk();
  vtkNew<vtkCellPicker> picker;
  picker->SetTolerance(0.0005);
  picker->PickFromListOn();
  for (ScenePart* part : v.parts())
    picker->AddPickList(part->actor);
  if (picker->Pick(x, y, 0.0, renderer) == 0) return -1;
  const vtkIdType cell = picker->GetCellId();
  for (ScenePart* part : v.parts()) {
    if (picker->GetActor() == part->actor.GetPointer() && cell >= 0
        && cell < part->entity->GetNumberOfTuples()) {
      return part->entity->GetValue(cell);
    }
  }
  return -1;
}

int pickRack(Scene& scene, vtkRenderer* renderer, int x, int y) {
  const int entity = pickEntity(scene, renderer, x, y);
  return entity >= 0 && static_cast<std::size_t>(entity) < scene.geometry().rackCount() ? entity
                                                                                        : -1;
}

}  // namespace racktwin::viz
