#pragma once
// The blockMesh dictionary of a cold-plate slice. Axes: x along the flow, y across the channels,
// z up from the heater. The slice holds `slice_channels` channels between half fins, so its sides
// are symmetry planes through fins; the base spans z = 0..base_thickness, channels and fins the
// height above, closed by an adiabatic lid. Blocks are named after their region ("solid",
// "fluid"), so blockMesh writes the cellZones that splitMeshRegions -cellZonesOnly splits on.
#include "racktwin/cfd/ColdPlateSpec.hpp"
#include "racktwin/cfd/FoamDictionary.hpp"

namespace racktwin::cfd::detail {

struct PlateMesh {
  FoamDictionary block_mesh_dict;
  long cells = 0;            // what blockMesh will make
  double slice_width = 0.0;  // m
  double heater_area = 0.0;  // m2 of the heater patch in the slice
  double inlet_area = 0.0;   // m2 of the fluid inlet in the slice
};

/// `scale` multiplies every cell count of the spec (a mesh study); counts stay at least 1.
PlateMesh plateMesh(const ColdPlateSpec& spec, double scale);

}  // namespace racktwin::cfd::detail
