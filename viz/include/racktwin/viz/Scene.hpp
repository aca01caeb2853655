#pragma once
// Scene: the site drawn with VTK (racks and CDUs as boxes, pipes as tubes, a floor, a legend and
// a time label), coloured by one Quantity. No VTK type appears here; SceneVtk.hpp hands the
// actors to a caller's vtkRenderer (the desktop program), renderPng() draws offscreen.
//
// update(frame) writes the colour scalars in place (no geometry rebuild, no allocation), so it
// can follow every step of a running twin.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "racktwin/core/Units.hpp"
#include "racktwin/viz/ColorMap.hpp"
#include "racktwin/viz/Frame.hpp"
#include "racktwin/viz/Quantity.hpp"
#include "racktwin/viz/SiteGeometry.hpp"

namespace racktwin::viz {

class Scene {
 public:
  explicit Scene(SiteGeometry geometry);
  ~Scene();
  Scene(const Scene&) = delete;
  Scene& operator=(const Scene&) = delete;

  const SiteGeometry& geometry() const noexcept;

  /// Colours by `quantity` (default GpuJunctionTemperature); takes effect at the next update().
  void setQuantity(Quantity quantity);
  Quantity quantity() const noexcept;
  /// A fixed colour range in the quantity's SI unit (kept across updates until changed).
  void setRange(double min, double max);
  /// The range follows each frame's finite values of the quantity (the default).
  void setAutoRange();
  bool autoRange() const noexcept;
  const ColorMap& colorMap() const noexcept;

  /// Colours every entity from `frame` (sized for geometry()) and shows its time.
  void update(const Frame& frame);
  /// Outlines rack `index` (0-based, as geometry().racks()); -1 removes the outline.
  void highlightRack(int index);
  int highlightedRack() const noexcept;
  /// Text in the top-left corner (e.g. the site name); empty hides it.
  void setTitle(const std::string& title);
  /// The legend shows the colour range in display units of this system (core::displayUnitFor:
  /// degC or degF, W, kW or MW, L/min or gpm); the colours and ranges given stay SI. Default SI.
  void setUnitSystem(core::UnitSystem units);
  /// The legend as drawn: its title ("GPU junction temperature (max) [°C]") and its range in
  /// the title's unit.
  std::string legendTitle() const;
  std::pair<double, double> legendRange() const;

  /// Renders offscreen at width x height pixels into a PNG (written to path.partial, then
  /// renamed). Needs an X display: Debian's VTK has no EGL/OSMesa; throws core::RuntimeError
  /// saying so (run under `xvfb-run -a`) when there is none. Throws on I/O failure.
  void renderPng(const std::string& path, int width, int height);
  /// Renders offscreen as renderPng does and returns the pixels: width * height RGB triples,
  /// rows from the top. The offscreen window is kept for the next call (fast repeated renders).
  std::vector<std::uint8_t> renderRgb(int width, int height);
  /// True when an X display can be opened (renderPng can work).
  static bool displayAvailable();

  struct Vtk;  // the VTK objects (viz/src/SceneVtkImpl.hpp); SceneVtk.hpp uses it
  Vtk& vtk() noexcept;

 private:
  std::unique_ptr<Vtk> vtk_;
};

}  // namespace racktwin::viz
