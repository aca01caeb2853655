#include "racktwin/cfd/ColdPlateCase.hpp"

#include <algorithm>
#include <cmath>

#include "ColdPlateMesh.hpp"
#include "FoamCommon.hpp"
#include "racktwin/cfd/CaseWriter.hpp"
#include "racktwin/cfd/CfdError.hpp"
#include "racktwin/cfd/PostProcessing.hpp"

namespace racktwin::cfd {

namespace fs = std::filesystem;
using detail::bc;
using detail::field;

namespace {

constexpr double kPressure_Pa = 1.0e5;  // absolute reference at the outlet

FoamDictionary coupledTemperature(const char* kappa_method, const std::string& T) {
  FoamDictionary d;
  d.set("type", "compressible::turbulentTemperatureCoupledBaffleMixed")
      .set("Tnbr", "T")
      .set("kappaMethod", kappa_method)
      .set("value", T);
  return d;
}

FoamDictionary surfaceValue(const char* region, const char* patch, const char* operation,
                            const char* field, bool weighted) {
  FoamDictionary d;
  d.set("type", "surfaceFieldValue")
      .set("libs", "(\"libfieldFunctionObjects.so\")")
      .set("region", region)
      .set("regionType", "patch")
      .set("name", patch)
      .set("operation", operation);
  if (weighted) d.set("weightField", "phi");
  d.set("fields", std::string("(") + field + ")").set("writeFields", "false").set("log", "false");
  return d;
}

FoamDictionary controlDict(const ColdPlateSpec& s) {
  FoamDictionary control = detail::steadyControlDict("chtMultiRegionSimpleFoam", s.max_iterations);
  FoamDictionary& f = control.sub("functions");
  f.set("T_heater", surfaceValue("solid", "heater", "max", "T", false));
  f.set("T_inlet", surfaceValue("fluid", "inlet", "weightedAverage", "T", true));
  f.set("T_outlet", surfaceValue("fluid", "outlet", "weightedAverage", "T", true));
  f.set("p_inlet", surfaceValue("fluid", "inlet", "areaAverage", "p", false));
  f.set("p_outlet", surfaceValue("fluid", "outlet", "areaAverage", "p", false));
  f.set("m_inlet", surfaceValue("fluid", "inlet", "sum", "phi", false));
  // writeTime: wallHeatFlux always writes its field, and time directories written at other steps
  // would be incomplete (openfoam.md pitfall 5).
  f.sub("heat_fluid")
      .set("type", "wallHeatFlux")
      .set("libs", "(\"libfieldFunctionObjects.so\")")
      .set("region", "fluid")
      .set("patches", "(fluid_to_solid)")
      .set("writeControl", "writeTime")
      .set("log", "false");
  f.sub("heat_heater")
      .set("type", "wallHeatFlux")
      .set("libs", "(\"libfieldFunctionObjects.so\")")
      .set("region", "solid")
      .set("patches", "(heater)")
      .set("writeControl", "writeTime")
      .set("log", "false");
  f.sub("residuals_fluid")
      .set("type", "solverInfo")
      .set("libs", "(\"libutilityFunctionObjects.so\")")
      .set("region", "fluid")
      .set("fields", "(U p_rgh h)");
  f.sub("residuals_solid")
      .set("type", "solverInfo")
      .set("libs", "(\"libutilityFunctionObjects.so\")")
      .set("region", "solid")
      .set("fields", "(h)");
  // chtMultiRegionSimpleFoam ignores residualControl. One condition per field sharing a group:
  // the run stops when all three are below the target ("minimum": below the value).
  FoamDictionary& stop = f.sub("converged");
  stop.set("type", "runTimeControl")
      .set("libs", "(\"libutilityFunctionObjects.so\")")
      .set("region", "fluid");
  FoamDictionary& conditions = stop.sub("conditions");
  for (const char* name : {"p_rgh", "U", "h"}) {
    conditions.sub(std::string("residual_") + name)
        .set("type", "equationInitialResidual")
        .set("fields", std::string("(") + name + ")")
        .set("value", s.residual_target)
        .set("mode", "minimum")
        .set("groupID", 1);
  }
  return control;
}

FoamDictionary decomposeDict(int processes) {
  FoamDictionary d;
  d.set("numberOfSubdomains", processes).set("method", "simple");
  d.sub("simpleCoeffs").set("n", "(" + std::to_string(processes) + " 1 1)").set("delta", 0.001);
  return d;
}

void writeCase(const ColdPlateSpec& s, const detail::PlateMesh& mesh, const ColdPlateRunOptions& o,
               const CaseWriter& w) {
  w.dictionary("system/blockMeshDict", mesh.block_mesh_dict);
  w.dictionary("system/controlDict", controlDict(s));
  w.dictionary("system/fvSchemes", detail::emptySchemes());
  w.dictionary("system/fvSolution", detail::emptySolution());
  if (o.processes > 1) w.dictionary("system/decomposeParDict", decomposeDict(o.processes));
  FoamDictionary regions;
  regions.set("regions", "(fluid (fluid) solid (solid))");
  w.dictionary("constant/regionProperties", regions);
}

// Region files: written after splitMeshRegions, which leaves dummy system/<region>/fv* files.
void writeRegionFiles(const ColdPlateSpec& s, double slice_V_flow, const ColdPlateRunOptions& o,
                      const CaseWriter& w) {
  const FluidProperties fluid = s.fluid();
  const std::string T0 = "uniform " + foamNumber(s.T_inlet);
  const std::string p0 = "uniform " + foamNumber(kPressure_Pa);

  // Fluid: constant-property liquid, no gravity, laminar.
  FoamDictionary thermo;
  thermo.sub("thermoType")
      .set("type", "heRhoThermo")
      .set("mixture", "pureMixture")
      .set("transport", "const")
      .set("thermo", "hConst")
      .set("equationOfState", "rhoConst")
      .set("specie", "specie")
      .set("energy", "sensibleEnthalpy");
  FoamDictionary& mixture = thermo.sub("mixture");
  mixture.sub("specie").set("molWeight", 18.0);
  mixture.sub("equationOfState").set("rho", fluid.rho);
  mixture.sub("thermodynamics").set("Cp", fluid.cp).set("Hf", 0);
  mixture.sub("transport").set("mu", fluid.mu).set("Pr", fluid.Pr());
  w.dictionary("constant/fluid/thermophysicalProperties", thermo);
  FoamDictionary g;
  g.set("dimensions", "[0 1 -2 0 0 0 0]").set("value", "(0 0 0)");
  w.write("constant/fluid/g", "uniformDimensionedVectorField", g);
  w.write("constant/g", "uniformDimensionedVectorField", g);  // v1912 also reads the case's
  FoamDictionary turbulence;
  turbulence.set("simulationType", "laminar");
  w.dictionary("constant/fluid/turbulenceProperties", turbulence);
  FoamDictionary radiation;
  radiation.set("radiation", "off").set("radiationModel", "none");
  w.dictionary("constant/fluid/radiationProperties", radiation);
  w.dictionary("constant/solid/radiationProperties", radiation);

  FoamDictionary solid_thermo;
  solid_thermo.sub("thermoType")
      .set("type", "heSolidThermo")
      .set("mixture", "pureMixture")
      .set("transport", "constIso")
      .set("thermo", "hConst")
      .set("equationOfState", "rhoConst")
      .set("specie", "specie")
      .set("energy", "sensibleEnthalpy");
  FoamDictionary& solid = solid_thermo.sub("mixture");
  solid.sub("specie").set("molWeight", 63.5);
  solid.sub("transport").set("kappa", s.conductivity);
  solid.sub("thermodynamics").set("Hf", 0).set("Cp", s.specific_heat);
  solid.sub("equationOfState").set("rho", s.density);
  w.dictionary("constant/solid/thermophysicalProperties", solid_thermo);

  // Fields. ".*" catches any patch a region has that is not named.
  FoamDictionary inlet_U;
  inlet_U.set("type", "flowRateInletVelocity")
      .set("volumetricFlowRate", slice_V_flow)
      .set("extrapolateProfile", "no")
      .set("value", "uniform (0 0 0)");
  w.write("0/fluid/U", "volVectorField",
          field("[0 1 -1 0 0 0 0]", "uniform (0 0 0)",
                {{"\".*\"", bc("noSlip")}, {"inlet", inlet_U}, {"outlet", bc("zeroGradient")}}));
  w.write("0/fluid/p_rgh", "volScalarField",
          field("[1 -1 -2 0 0 0 0]", p0,
                {{"\".*\"", bc("fixedFluxPressure", p0)},
                 {"inlet", bc("zeroGradient")},
                 {"outlet", bc("fixedValue", p0)}}));
  w.write("0/fluid/p", "volScalarField",
          field("[1 -1 -2 0 0 0 0]", p0, {{"\".*\"", bc("calculated", p0)}}));
  FoamDictionary outlet_T;
  outlet_T.set("type", "inletOutlet").set("inletValue", T0).set("value", T0);
  w.write("0/fluid/T", "volScalarField",
          field("[0 0 0 1 0 0 0]", T0,
                {{"\".*\"", bc("zeroGradient")},
                 {"inlet", bc("fixedValue", T0)},
                 {"outlet", outlet_T},
                 {"fluid_to_solid", coupledTemperature("fluidThermo", T0)}}));

  FoamDictionary heater;
  heater.set("type", "externalWallHeatFluxTemperature")
      .set("mode", "flux")
      .set("q", "uniform " + foamNumber(s.heatFlux()))
      .set("kappaMethod", "solidThermo")
      .set("value", T0);
  w.write("0/solid/T", "volScalarField",
          field("[0 0 0 1 0 0 0]", T0,
                {{"\".*\"", bc("zeroGradient")},
                 {"sides", bc("symmetry")},
                 {"heater", heater},
                 {"solid_to_fluid", coupledTemperature("solidThermo", T0)}}));
  w.write("0/solid/p", "volScalarField",
          field("[1 -1 -2 0 0 0 0]", p0,
                {{"\".*\"", bc("calculated", p0)}, {"sides", bc("symmetry")}}));

  // Fluid numerics: unlimited linearUpwind (bounded schemes under-predict R_th on coarse meshes,
  // openfoam.md section 3).
  FoamDictionary schemes = detail::emptySchemes();
  schemes.sub("divSchemes")
      .set("div(phi,U)", "bounded Gauss linearUpwind grad(U)")
      .set("div(phi,h)", "bounded Gauss linearUpwind grad(h)")
      .set("div(phi,K)", "bounded Gauss linear")
      .set("div(phi,Ekp)", "bounded Gauss linear")
      .set("div(((rho*nuEff)*dev2(T(grad(U)))))", "Gauss linear");
  w.dictionary("system/fluid/fvSchemes", schemes);
  FoamDictionary solution;
  FoamDictionary& solvers = solution.sub("solvers");
  solvers.sub("\"(rho|rhoFinal)\"")
      .set("solver", "PCG")
      .set("preconditioner", "DIC")
      .set("tolerance", 1e-7)
      .set("relTol", 0);
  solvers.sub("p_rgh")
      .set("solver", "GAMG")
      .set("smoother", "GaussSeidel")
      .set("tolerance", 1e-10)
      .set("relTol", 0.05);
  solvers.sub("\"(U|h)\"")
      .set("solver", "PBiCGStab")
      .set("preconditioner", "DILU")
      .set("tolerance", 1e-12)
      .set("relTol", 0.1);
  solution.sub("SIMPLE")
      .set("momentumPredictor", "yes")
      .set("nNonOrthogonalCorrectors", 0)
      .set("pRefCell", 0)
      .set("pRefValue", kPressure_Pa);
  FoamDictionary& relax = solution.sub("relaxationFactors");
  // Measured on the mini plate of openfoam.md: 82 iterations to 1e-6 against 199 with the usual
  // (U 0.3, p_rgh 0.7) and 101 with (0.7, 0.3); the result is the same to 0.01 %.
  relax.sub("fields").set("rho", 1.0).set("p_rgh", 0.4);
  relax.sub("equations").set("U", 0.6).set("h", 1.0);
  w.dictionary("system/fluid/fvSolution", solution);

  w.dictionary("system/solid/fvSchemes", detail::emptySchemes());
  FoamDictionary solid_solution;
  solid_solution.sub("solvers")
      .sub("\"(h|hFinal)\"")
      .set("solver", "PCG")
      .set("preconditioner", "DIC")
      .set("tolerance", 1e-12)
      .set("relTol", 0.05);
  solid_solution.sub("SIMPLE").set("nNonOrthogonalCorrectors", 0);
  solid_solution.sub("relaxationFactors").sub("equations").set("h", 1.0);
  w.dictionary("system/solid/fvSolution", solid_solution);

  if (o.processes > 1) {
    w.dictionary("system/fluid/decomposeParDict", decomposeDict(o.processes));
    w.dictionary("system/solid/decomposeParDict", decomposeDict(o.processes));
  }
}

ProcessResult runIn(const ProcessRunner& runner, const fs::path& dir, const std::string& program,
                    std::vector<std::string> arguments, const std::string& log, double timeout_s) {
  ProcessRequest request;
  request.program = program;
  request.arguments = std::move(arguments);
  request.working_dir = dir;
  request.log_file = log;
  request.timeout_s = timeout_s;
  return runner.runChecked(request);
}

double largest(const DatTable& t, std::initializer_list<const char*> names) {
  double out = 0.0;
  for (const char* n : names) {
    if (t.hasColumn(n)) out = std::max(out, t.last(n));
  }
  return out;
}

// wallHeatFlux rows: Time patch min max integral (one row per patch per write).
double heatIntegral(const fs::path& case_dir, const char* region, const char* function_object) {
  const DatTable t = readDatTable(findDatFile(case_dir, region, function_object, "wallHeatFlux"));
  return t.last("integral");
}

}  // namespace

ColdPlatePoint runColdPlatePoint(const ColdPlateSpec& s, double V_flow, const fs::path& case_dir,
                                 const ProcessRunner& runner, const ColdPlateRunOptions& o) {
  validate(s);
  if (!(V_flow > 0.0) || !std::isfinite(V_flow))
    throw std::invalid_argument("cold-plate flow must be positive");
  runner.environment().check();
  const FluidProperties fluid = s.fluid();
  const detail::PlateMesh mesh = detail::plateMesh(s, o.mesh_scale);
  const double slice_V_flow = V_flow * s.slice_channels / s.channel_count;

  const CaseWriter w(case_dir);
  w.clean();
  writeCase(s, mesh, o, w);

  ColdPlatePoint p;
  const double t = o.timeout_s;
  const ProcessResult block = runIn(runner, case_dir, "blockMesh", {}, "log.blockMesh", t);
  p.openfoam_version = block.log.version;
  p.wall_s += block.wall_s;
  p.wall_s += runIn(runner, case_dir, "splitMeshRegions", {"-cellZonesOnly", "-overwrite"},
                    "log.splitMeshRegions", t)
                  .wall_s;
  writeRegionFiles(s, slice_V_flow, o, w);
  p.mesh_cells = detail::meshCells(case_dir, "fluid") + detail::meshCells(case_dir, "solid");

  ProcessResult solve;
  if (o.processes > 1) {
    p.wall_s +=
        runIn(runner, case_dir, "decomposePar", {"-allRegions", "-force"}, "log.decomposePar", t)
            .wall_s;
    solve = runIn(runner, case_dir, "mpirun",
                  // Ranks that yield while waiting and are not pinned to cores: on a machine
                  // shared with other work this halves the wall time (measured 16 s against
                  // 33 s for 40 iterations of the 73k-cell plate at a load of 7 on 2 cores).
                  {"--allow-run-as-root", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1",
                   "-np", std::to_string(o.processes), "chtMultiRegionSimpleFoam", "-parallel"},
                  "log.chtMultiRegionSimpleFoam", t);
  } else {
    solve =
        runIn(runner, case_dir, "chtMultiRegionSimpleFoam", {}, "log.chtMultiRegionSimpleFoam", t);
  }
  p.wall_s += solve.wall_s;

  const DatTable fluid_res =
      readDatTable(findDatFile(case_dir, "fluid", "residuals_fluid", "solverInfo"));
  const DatTable solid_res =
      readDatTable(findDatFile(case_dir, "solid", "residuals_solid", "solverInfo"));
  p.iterations = static_cast<int>(fluid_res.last("Time"));
  p.residual_p_rgh = fluid_res.last("p_rgh_initial");
  p.residual_U = largest(fluid_res, {"Ux_initial", "Uy_initial", "Uz_initial"});
  p.residual_h_fluid = fluid_res.last("h_initial");
  p.residual_h_solid = solid_res.last("h_initial");
  if (p.iterations >= s.max_iterations) {
    throw SolverDiverged(
        "chtMultiRegionSimpleFoam did not converge within " + std::to_string(s.max_iterations)
        + " iterations (initial residuals p_rgh " + foamNumber(p.residual_p_rgh) + ", U "
        + foamNumber(p.residual_U) + ", h " + foamNumber(p.residual_h_fluid) + "; target "
        + foamNumber(s.residual_target) + "; case " + case_dir.string() + ")");
  }

  auto last = [&](const char* region, const char* fo, const char* column) {
    return readDatTable(findDatFile(case_dir, region, fo, "surfaceFieldValue")).last(column);
  };
  p.T_heater_max = last("solid", "T_heater", "max(T)");
  p.T_in = last("fluid", "T_inlet", "weightedAverage(T)");
  p.T_out = last("fluid", "T_outlet", "weightedAverage(T)");
  p.dp = last("fluid", "p_inlet", "areaAverage(p)") - last("fluid", "p_outlet", "areaAverage(p)");
  p.slice_m_flow = -last("fluid", "m_inlet", "sum(phi)");  // phi is negative into the domain
  p.slice_heat_to_fluid = std::abs(heatIntegral(case_dir, "fluid", "heat_fluid"));
  p.slice_heater_integral = std::abs(heatIntegral(case_dir, "solid", "heat_heater"));
  p.slice_heater_power = s.heatFlux() * mesh.heater_area;
  p.slice_V_flow = slice_V_flow;
  p.slice_enthalpy_rise = p.slice_m_flow * fluid.cp * (p.T_out - p.T_in);

  const double to_plate = s.power / p.slice_heater_power;
  p.V_flow = V_flow;
  p.heat_to_fluid = p.slice_heat_to_fluid * to_plate;
  p.R_th = (p.T_heater_max - p.T_in) / s.power;
  p.energy_balance_relative_error =
      std::max({std::abs(p.slice_heat_to_fluid / p.slice_heater_power - 1.0),
                std::abs(p.slice_enthalpy_rise / p.slice_heater_power - 1.0),
                std::abs(p.slice_heater_integral / p.slice_heater_power - 1.0)});
  p.velocity = slice_V_flow / mesh.inlet_area;
  const double D_h =
      2.0 * s.channel_width * s.channel_height / (s.channel_width + s.channel_height);
  p.Re = p.velocity * D_h / fluid.nu();
  for (double v : {p.R_th, p.dp, p.heat_to_fluid, p.T_out, p.slice_m_flow}) {
    if (!std::isfinite(v))
      throw SolverDiverged("cold-plate results are not finite (case " + case_dir.string() + ")");
  }

  if (!o.vtk_dir.empty()) {
    if (o.processes > 1) {
      p.wall_s += runIn(runner, case_dir, "reconstructPar", {"-allRegions", "-latestTime"},
                        "log.reconstructPar", t)
                      .wall_s;
    }
    p.wall_s +=
        runIn(runner, case_dir, "foamToVTK", {"-allRegions", "-latestTime"}, "log.foamToVTK", t)
            .wall_s;
    detail::copyTree(case_dir / "VTK", o.vtk_dir);
  }
  return p;
}

}  // namespace racktwin::cfd
