#pragma once
// One conjugate-heat-transfer run of a cold-plate slice at one flow (chtMultiRegionSimpleFoam):
// blockMesh with named blocks, splitMeshRegions -cellZonesOnly, region files written directly,
// a runTimeControl that stops on the fluid residuals, function objects for the results. In
// parallel: decomposePar -allRegions and mpirun.
//
// The slice stands for the channels under the heater: it carries the heater's flux over its
// width and its share of the flow (every channel the same, V_flow / channel_count), so its
// temperatures are those of the plate under the heater and its heat and flow scale to the plate
// by (plate / slice). Spreading of heat into channels beside the heater is neglected.
#include <filesystem>
#include <string>

#include "racktwin/cfd/ColdPlateSpec.hpp"
#include "racktwin/cfd/ProcessRunner.hpp"

namespace racktwin::cfd {

struct ColdPlateRunOptions {
  int processes = 1;              // > 1: decomposePar + mpirun
  double mesh_scale = 1.0;        // multiplies every cell count of the spec
  std::filesystem::path vtk_dir;  // not empty: foamToVTK of the converged run copied here
  double timeout_s = 1800.0;      // per program
};

struct ColdPlatePoint {
  // Plate values (scaled from the slice).
  double V_flow = 0.0;         // m3/s per plate
  double R_th = 0.0;           // K/W, (T_heater_max - T_in) / power
  double dp = 0.0;             // Pa, inlet to outlet area-averaged static pressure
  double heat_to_fluid = 0.0;  // W
  double T_in = 0.0;           // K, flow-weighted
  double T_out = 0.0;          // K, flow-weighted
  double T_heater_max = 0.0;   // K, largest heater face temperature
  // Slice values.
  double slice_V_flow = 0.0;                   // m3/s
  double slice_m_flow = 0.0;                   // kg/s through the inlet (sum of phi)
  double slice_heater_power = 0.0;             // W, flux x heater area
  double slice_heater_integral = 0.0;          // W, wallHeatFlux on the heater (solid side)
  double slice_heat_to_fluid = 0.0;            // W, wallHeatFlux on the fluid side of the interface
  double slice_enthalpy_rise = 0.0;            // W, m_flow cp (T_out - T_in)
  double energy_balance_relative_error = 0.0;  // largest of the three against the heater power
  double velocity = 0.0;                       // m/s mean in a channel
  double Re = 0.0;                             // on the channel's hydraulic diameter
  long mesh_cells = 0;
  int iterations = 0;
  double residual_p_rgh = 0.0, residual_U = 0.0, residual_h_fluid = 0.0, residual_h_solid = 0.0;
  std::string openfoam_version;
  double wall_s = 0.0;
};

/// Writes the case into `case_dir` (emptied first), runs it and extracts the results. Throws
/// CfdError / SolverDiverged / OpenFoamMissing naming the program and its log.
ColdPlatePoint runColdPlatePoint(const ColdPlateSpec& spec, double V_flow,
                                 const std::filesystem::path& case_dir, const ProcessRunner& runner,
                                 const ColdPlateRunOptions& options);

}  // namespace racktwin::cfd
