#pragma once
// Interop for programs that own a VTK render window (the Qt desktop program): put a Scene's
// actors into their vtkRenderer and pick racks under the mouse. The only public viz header that
// names VTK classes, and only as forward declarations; include it where a vtkRenderer lives.
//
//   racktwin::viz::Scene scene(racktwin::viz::SiteGeometry::build(twin.site()));
//   racktwin::viz::addToRenderer(scene, renderer);  // actors, legend, time label; camera reset
//   scene.update(frame); renderWindow->Render();
//   int rack = racktwin::viz::pickRack(scene, renderer, x, y);  // -1: no rack there
//   scene.highlightRack(rack);
class vtkRenderer;

namespace racktwin::viz {

class Scene;

/// Adds the scene's actors and 2-D overlays (legend, time and title labels) to `renderer` and
/// points its camera at the site. A scene may be in one renderer at a time besides renderPng's.
void addToRenderer(Scene& scene, vtkRenderer* renderer);
/// Removes what addToRenderer added.
void removeFromRenderer(Scene& scene, vtkRenderer* renderer);
/// Points the renderer's camera at the whole site from the front, above and to the side.
void resetCamera(Scene& scene, vtkRenderer* renderer);
/// The rack under display position (x, y) in VTK's convention (pixels, origin bottom-left; Qt's
/// y flips: y_vtk = height - 1 - y_qt), or -1 when no rack is there.
int pickRack(Scene& scene, vtkRenderer* renderer, int x, int y);
/// As pickRack for any entity (rack, CDU or pipe; see SiteGeometry), or -1.
int pickEntity(Scene& scene, vtkRenderer* renderer, int x, int y);

}  // namespace racktwin::viz
