#pragma once
// Laminar flow and heat transfer between parallel plates: the analytic checks of the CFD set-up.
// simpleFoam gives the developed flow (dp/dx against 12 mu U / h^2); scalarTransportFoam carries
// heat in that flow from a uniform flux on one or both walls (outlet Nusselt number against 8.235
// for both walls heated and 5.385 for one wall heated with the other adiabatic; Shah & London 1978,
// Nu based on D_h = 2 h).
#include <filesystem>
#include <string>

#include "racktwin/cfd/ProcessRunner.hpp"
#include "racktwin/cfd/Water.hpp"

namespace racktwin::cfd {

enum class HeatedWalls { One, Both };

struct ChannelSpec {
  double gap = 1.0e-3;     // m, plate spacing h
  double length = 0.1;     // m
  double velocity = 0.05;  // m/s, mean (uniform at the inlet)
  FluidProperties fluid = water(300.0);
  int cells_across = 20;
  int cells_along = 0;  // 0: four times the cell size across (gap/cells_across)
  HeatedWalls heated = HeatedWalls::Both;
  double wall_heat_flux = 1000.0;  // W/m2 on each heated wall
  double sample_x = 0.0;           // m, where Nu is measured; 0: 0.9 length
  // Numerics (SIMPLE consistent, U relaxed 0.9, p not relaxed); changed only to provoke failures
  // in tests (plain SIMPLE without relaxation diverges).
  double relaxation_U = 0.9;
  double relaxation_p = 1.0;
  bool consistent = true;
  int max_iterations = 3000;
  double timeout_s = 600.0;
};

/// Throws std::invalid_argument naming the bad field and what is expected.
void validate(const ChannelSpec& spec);

struct ChannelResult {
  std::string openfoam_version;
  long mesh_cells = 0;
  int flow_iterations = 0;
  int heat_iterations = 0;
  double final_residual_U = 0.0;  // largest component, initial residual of the last iteration
  double final_residual_p = 0.0;
  double final_residual_T = 0.0;
  double Re = 0.0;  // on D_h = 2 gap
  double Pr = 0.0;
  double dp_dx = 0.0;          // Pa/m, pressure fall per metre (positive)
  double dp_dx_exact = 0.0;    // 12 mu U / h^2
  double sample_x = 0.0;       // m
  double x_star = 0.0;         // x / (D_h Re Pr); the fully developed value needs x* > 0.1
  double T_wall = 0.0;         // K above the inlet, heated wall(s) at sample_x
  double T_bulk = 0.0;         // K above the inlet, velocity-weighted over the section
  double T_bulk_energy = 0.0;  // K, the same from the energy balance n q x / (rho cp U h)
  double Nu = 0.0;
  double Nu_exact = 0.0;
  double wall_s = 0.0;  // all OpenFOAM programs
};

/// Writes and runs the case under `case_dir` (flow/ and heat/ sub-cases; an old directory is
/// removed first). Throws CfdError (or SolverDiverged, OpenFoamMissing) with the log named.
ChannelResult runChannel(const ChannelSpec& spec, const std::filesystem::path& case_dir,
                         const ProcessRunner& runner);

}  // namespace racktwin::cfd
