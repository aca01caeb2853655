#include "racktwin/cfd/ChannelCase.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "FoamCommon.hpp"
#include "racktwin/cfd/CaseWriter.hpp"
#include "racktwin/cfd/CfdError.hpp"
#include "racktwin/cfd/PostProcessing.hpp"

namespace racktwin::cfd {

namespace fs = std::filesystem;
using detail::bc;
using detail::field;
using detail::namedDictionaryList;

namespace {

// Shah & London (1978), fully developed laminar flow between parallel plates, uniform wall flux.
constexpr double kNuBothWalls = 8.235;
constexpr double kNuOneWall = 5.385;

struct Geometry {
  double L, h, dz;
  int nx, ny;
  double x_sample;  // a cell-centre x near the requested station
};

Geometry geometry(const ChannelSpec& s) {
  Geometry g{};
  g.L = s.length;
  g.h = s.gap;
  g.ny = s.cells_across;
  const double dy = s.gap / s.cells_across;
  g.nx = s.cells_along > 0 ? s.cells_along
                           : std::max(10, static_cast<int>(std::lround(s.length / (4.0 * dy))));
  g.dz = dy;
  const double dx = g.L / g.nx;
  const double x_want = s.sample_x > 0.0 ? s.sample_x : 0.9 * s.length;
  // On a cell centre, so the wall face and the section's cells sit at the same x.
  const int i = std::clamp(static_cast<int>(std::floor(x_want / dx)), 0, g.nx - 1);
  g.x_sample = (i + 0.5) * dx;
  return g;
}

FoamDictionary blockMeshDict(const Geometry& g) {
  FoamDictionary d;
  d.set("convertToMeters", 1);
  d.set("vertices",
        foamList({foamVector(0, 0, 0), foamVector(g.L, 0, 0), foamVector(g.L, g.h, 0),
                  foamVector(0, g.h, 0), foamVector(0, 0, g.dz), foamVector(g.L, 0, g.dz),
                  foamVector(g.L, g.h, g.dz), foamVector(0, g.h, g.dz)}));
  d.set("blocks", "(hex (0 1 2 3 4 5 6 7) (" + std::to_string(g.nx) + " " + std::to_string(g.ny)
                      + " 1) simpleGrading (1 1 1))");
  d.set("edges", "()");
  auto patch = [](const char* type, const char* faces) {
    FoamDictionary p;
    p.set("type", type).set("faces", faces);
    return p;
  };
  d.set("boundary",
        namedDictionaryList({{"inlet", patch("patch", "((0 4 7 3))")},
                             {"outlet", patch("patch", "((1 2 6 5))")},
                             {"bottom", patch("wall", "((0 1 5 4))")},
                             {"top", patch("wall", "((3 7 6 2))")},
                             {"frontAndBack", patch("empty", "((0 3 2 1) (4 5 6 7))")}}));
  d.set("mergePatchPairs", "()");
  return d;
}

void writeFlowCase(const ChannelSpec& s, const Geometry& g, const CaseWriter& w) {
  w.dictionary("system/blockMeshDict", blockMeshDict(g));

  FoamDictionary control = detail::steadyControlDict("simpleFoam", s.max_iterations);
  FoamDictionary& functions = control.sub("functions");
  // p along the centreline over the developed part, fitted with a straight line. The line sits a
  // quarter cell off the mid-plane so that it never runs along cell faces.
  const double y = g.h * (0.5 + 0.25 / g.ny);
  FoamDictionary line;
  line.set("type", "uniform")
      .set("axis", "x")
      .set("start", foamVector(0.4 * g.L, y, 0.5 * g.dz))
      .set("end", foamVector(0.9 * g.L, y, 0.5 * g.dz))
      .set("nPoints", 201);
  functions.sub("centreline")
      .set("type", "sets")
      .set("libs", "(\"libsampling.so\")")
      .set("writeControl", "writeTime")
      .set("interpolationScheme", "cellPoint")
      .set("setFormat", "raw")
      .set("fields", "(p)")
      .set("sets", namedDictionaryList({{"centre", line}}, 2));
  functions.sub("residuals")
      .set("type", "solverInfo")
      .set("libs", "(\"libutilityFunctionObjects.so\")")
      .set("fields", "(U p)");
  w.dictionary("system/controlDict", control);

  FoamDictionary schemes = detail::emptySchemes();
  schemes.sub("gradSchemes").set("default", "Gauss linear");
  schemes.sub("divSchemes")
      .set("div(phi,U)", "bounded Gauss linearUpwind grad(U)")
      .set("div((nuEff*dev2(T(grad(U)))))", "Gauss linear");
  w.dictionary("system/fvSchemes", schemes);

  FoamDictionary solution;
  solution.sub("solvers")
      .sub("p")
      .set("solver", "GAMG")
      .set("smoother", "GaussSeidel")
      .set("tolerance", 1e-9)
      .set("relTol", 0.01);
  solution.sub("solvers")
      .sub("U")
      .set("solver", "smoothSolver")
      .set("smoother", "symGaussSeidel")
      .set("tolerance", 1e-10)
      .set("relTol", 0.1);
  FoamDictionary& simple = solution.sub("SIMPLE");
  simple.set("nNonOrthogonalCorrectors", 0).set("consistent", s.consistent ? "yes" : "no");
  simple.sub("residualControl").set("p", 1e-6).set("U", 1e-7);
  solution.sub("relaxationFactors").sub("equations").set("U", s.relaxation_U);
  if (s.relaxation_p < 1.0)
    solution.sub("relaxationFactors").sub("fields").set("p", s.relaxation_p);
  w.dictionary("system/fvSolution", solution);

  FoamDictionary transport;
  transport.set("transportModel", "Newtonian").set("nu", s.fluid.nu());
  w.dictionary("constant/transportProperties", transport);
  FoamDictionary turbulence;
  turbulence.set("simulationType", "laminar");
  w.dictionary("constant/turbulenceProperties", turbulence);

  FoamDictionary inlet_U = bc("fixedValue", "uniform " + foamVector(s.velocity, 0, 0));
  w.write("0/U", "volVectorField",
          field("[0 1 -1 0 0 0 0]", "uniform (0 0 0)",
                {{"inlet", inlet_U},
                 {"outlet", bc("zeroGradient")},
                 {"\"(bottom|top)\"", bc("noSlip")},
                 {"frontAndBack", bc("empty")}}));
  w.write("0/p", "volScalarField",
          field("[0 2 -2 0 0 0 0]", "uniform 0",
                {{"inlet", bc("zeroGradient")},
                 {"outlet", bc("fixedValue", "uniform 0")},
                 {"\"(bottom|top)\"", bc("zeroGradient")},
                 {"frontAndBack", bc("empty")}}));
}

void writeHeatCase(const ChannelSpec& s, const Geometry& g, const CaseWriter& w) {
  FoamDictionary control = detail::steadyControlDict("scalarTransportFoam", 500);
  FoamDictionary& functions = control.sub("functions");
  FoamDictionary bottom, top;
  bottom.set("type", "patch").set("patches", "(bottom)").set("interpolate", "false");
  top.set("type", "patch").set("patches", "(top)").set("interpolate", "false");
  functions.sub("wallT")
      .set("type", "surfaces")
      .set("libs", "(\"libsampling.so\")")
      .set("writeControl", "writeTime")
      .set("surfaceFormat", "raw")
      .set("interpolationScheme", "cell")
      .set("fields", "(T)")
      .set("surfaces", namedDictionaryList({{"bottom", bottom}, {"top", top}}, 2));
  // Cell values across the section at a cell-centre x: the bulk temperature is their
  // velocity-weighted mean (cells of equal height).
  FoamDictionary section;
  section.set("type", "midPoint")
      .set("axis", "y")
      .set("start", foamVector(g.x_sample, 0, 0.5 * g.dz))
      .set("end", foamVector(g.x_sample, g.h, 0.5 * g.dz));
  functions.sub("section")
      .set("type", "sets")
      .set("libs", "(\"libsampling.so\")")
      .set("writeControl", "writeTime")
      .set("interpolationScheme", "cell")
      .set("setFormat", "raw")
      .set("fields", "(T U)")
      .set("sets", namedDictionaryList({{"section", section}}, 2));
  functions.sub("residuals")
      .set("type", "solverInfo")
      .set("libs", "(\"libutilityFunctionObjects.so\")")
      .set("fields", "(T)");
  w.dictionary("system/controlDict", control);

  FoamDictionary schemes = detail::emptySchemes();
  schemes.sub("divSchemes").set("div(phi,T)", "bounded Gauss linearUpwind grad(T)");
  w.dictionary("system/fvSchemes", schemes);
  FoamDictionary solution;
  solution.sub("solvers")
      .sub("T")
      .set("solver", "PBiCGStab")
      .set("preconditioner", "DILU")
      .set("tolerance", 1e-12)
      .set("relTol", 0);
  solution.sub("SIMPLE").set("nNonOrthogonalCorrectors", 0).sub("residualControl").set("T", 1e-8);
  w.dictionary("system/fvSolution", solution);

  FoamDictionary transport;
  transport.set("DT", "DT [0 2 -1 0 0 0 0] " + foamNumber(s.fluid.alpha()));
  w.dictionary("constant/transportProperties", transport);

  // fixedGradient q/k: T is the rise above the inlet in kelvin.
  const std::string gradient = "uniform " + foamNumber(s.wall_heat_flux / s.fluid.k);
  FoamDictionary heated;
  heated.set("type", "fixedGradient").set("gradient", gradient);
  const bool both = s.heated == HeatedWalls::Both;
  w.write("0/T", "volScalarField",
          field("[0 0 0 1 0 0 0]", "uniform 0",
                {{"inlet", bc("fixedValue", "uniform 0")},
                 {"outlet", bc("zeroGradient")},
                 {"bottom", heated},
                 {"top", both ? heated : bc("zeroGradient")},
                 {"frontAndBack", bc("empty")}}));
}

ProcessResult runIn(const ProcessRunner& runner, const fs::path& dir, const std::string& program,
                    std::vector<std::string> arguments, double timeout_s) {
  ProcessRequest request;
  request.program = program;
  request.arguments = std::move(arguments);
  request.working_dir = dir;
  request.log_file = "log." + program;
  request.timeout_s = timeout_s;
  return runner.runChecked(request);
}

// A steady solver that stopped at its iteration cap did not meet its residual targets.
void requireConverged(const ProcessResult& r, const std::string& program, int cap) {
  const std::string log = readTextFile(r.log_file);
  if (log.find("converged in") == std::string::npos) {
    throw SolverDiverged(program + " did not reach its residual targets within "
                         + std::to_string(cap) + " iterations (largest initial residual "
                         + foamNumber(r.log.max_initial_residual) + "; log " + r.log_file.string()
                         + ")");
  }
}

double maxComponentResidual(const DatTable& t, const std::vector<std::string>& names) {
  double out = 0.0;
  for (const std::string& n : names) {
    if (t.hasColumn(n)) out = std::max(out, t.last(n));
  }
  return out;
}

// Least-squares slope of y(x).
double slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

// The raw sample file of a set: its name depends on the fields sampled together.
fs::path findSetFile(const fs::path& case_dir, const std::string& function_object,
                     const std::string& prefix, const std::string& field) {
  const fs::path dir = case_dir / "postProcessing" / function_object;
  const std::string time = detail::latestTime(dir);
  if (time.empty()) throw CfdError("no samples under " + dir.string());
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir / time, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with(prefix + "_") || !name.ends_with(".xy")) continue;
    const std::string fields = name.substr(prefix.size() + 1, name.size() - prefix.size() - 4);
    std::size_t start = 0;
    for (;;) {
      const std::size_t end = fields.find('_', start);
      if (fields.substr(start, end == std::string::npos ? end : end - start) == field)
        return e.path();
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  throw CfdError("no sampled " + field + " for set '" + prefix + "' under "
                 + (dir / time).string());
}

// Wall temperature of a patch at x: the face whose centre is nearest (the faces are uniform and
// the section is on a cell centre, so it is the face under the section).
double wallTemperature(const fs::path& case_dir, const std::string& patch, double x) {
  const fs::path file = findSampleFile(case_dir, "", "wallT", "T_" + patch + ".raw");
  const RawTable t = readRawTable(file);
  const std::size_t cx = t.column("x", file.string());
  const std::size_t cT = t.column("T", file.string());
  double best = 0.0, best_d = 1e300;
  for (const auto& row : t.rows) {
    const double d = std::abs(row.at(cx) - x);
    if (d < best_d) {
      best_d = d;
      best = row.at(cT);
    }
  }
  return best;
}

}  // namespace

void validate(const ChannelSpec& s) {
  auto positive = [](double v, const char* what) {
    if (!(v > 0.0) || !std::isfinite(v))
      throw std::invalid_argument(std::string(what) + " must be a positive number");
  };
  positive(s.gap, "gap");
  positive(s.length, "length");
  positive(s.velocity, "velocity");
  positive(s.wall_heat_flux, "wall heat flux");
  if (s.length < 10.0 * s.gap)
    throw std::invalid_argument("length must be at least 10 gaps for a developed section");
  if (s.cells_across < 4 || s.cells_across > 400)
    throw std::invalid_argument("cells across must be 4 to 400");
  if (s.cells_along < 0 || s.cells_along > 20000)
    throw std::invalid_argument("cells along must be 0 (automatic) to 20000");
  if (!(s.relaxation_U > 0.0 && s.relaxation_U <= 1.0)
      || !(s.relaxation_p > 0.0 && s.relaxation_p <= 1.0))
    throw std::invalid_argument("relaxation factors must lie in (0, 1]");
  if (s.sample_x < 0.0 || s.sample_x > s.length)
    throw std::invalid_argument("sample position must lie in the channel");
}

ChannelResult runChannel(const ChannelSpec& s, const fs::path& case_dir,
                         const ProcessRunner& runner) {
  validate(s);
  runner.environment().check();
  const Geometry g = geometry(s);
  const fs::path flow_dir = case_dir / "flow";
  const fs::path heat_dir = case_dir / "heat";
  CaseWriter(case_dir).clean();
  const CaseWriter flow(flow_dir);
  writeFlowCase(s, g, flow);

  ChannelResult r;
  ProcessResult mesh = runIn(runner, flow_dir, "blockMesh", {}, s.timeout_s);
  r.openfoam_version = mesh.log.version;
  r.mesh_cells = detail::meshCells(flow_dir, "");
  ProcessResult solve = runIn(runner, flow_dir, "simpleFoam", {}, s.timeout_s);
  requireConverged(solve, "simpleFoam", s.max_iterations);
  r.wall_s = mesh.wall_s + solve.wall_s;

  const DatTable flow_res = readDatTable(findDatFile(flow_dir, "", "residuals", "solverInfo"));
  r.flow_iterations = static_cast<int>(flow_res.last("Time"));
  r.final_residual_U = maxComponentResidual(flow_res, {"Ux_initial", "Uy_initial", "Uz_initial"});
  r.final_residual_p = flow_res.last("p_initial");

  // dp/dx from the centreline: p is kinematic in simpleFoam.
  const RawTable centre = readRawTable(findSetFile(flow_dir, "centreline", "centre", "p"));
  std::vector<double> x, p;
  for (const auto& row : centre.rows) {
    x.push_back(row.at(0));
    p.push_back(row.at(1));
  }
  r.dp_dx = -slope(x, p) * s.fluid.rho;
  r.dp_dx_exact = 12.0 * s.fluid.mu * s.velocity / (s.gap * s.gap);
  const double D_h = 2.0 * s.gap;
  r.Re = s.velocity * D_h / s.fluid.nu();
  r.Pr = s.fluid.Pr();

  // Heat: the same mesh, with U and phi of the converged flow.
  const CaseWriter heat(heat_dir);
  writeHeatCase(s, g, heat);
  detail::copyTree(flow_dir / "constant" / "polyMesh", heat_dir / "constant" / "polyMesh");
  const std::string final_time = detail::latestTime(flow_dir);
  if (final_time.empty() || final_time == "0")
    throw CfdError("simpleFoam wrote no final time in " + flow_dir.string());
  for (const char* name : {"U", "phi"}) {
    std::error_code ec;
    fs::copy_file(flow_dir / final_time / name, heat_dir / "0" / name,
                  fs::copy_options::overwrite_existing, ec);
    if (ec) throw CfdError("cannot copy the converged " + std::string(name) + ": " + ec.message());
  }
  ProcessResult transport = runIn(runner, heat_dir, "scalarTransportFoam", {}, s.timeout_s);
  requireConverged(transport, "scalarTransportFoam", 500);
  r.wall_s += transport.wall_s;
  const DatTable heat_res = readDatTable(findDatFile(heat_dir, "", "residuals", "solverInfo"));
  r.heat_iterations = static_cast<int>(heat_res.last("Time"));
  r.final_residual_T = heat_res.last("T_initial");

  const RawTable T_section = readRawTable(findSetFile(heat_dir, "section", "section", "T"));
  const RawTable U_section = readRawTable(findSetFile(heat_dir, "section", "section", "U"));
  if (T_section.rows.size() != U_section.rows.size() || T_section.rows.empty())
    throw CfdError("section samples of T and U differ in length in " + heat_dir.string());
  double sum_uT = 0.0, sum_u = 0.0;
  for (std::size_t i = 0; i < T_section.rows.size(); ++i) {
    const double u = U_section.rows[i].at(1);  // columns: y Ux Uy Uz
    sum_uT += u * T_section.rows[i].at(1);
    sum_u += u;
  }
  r.sample_x = g.x_sample;
  r.T_bulk = sum_uT / sum_u;
  const bool both = s.heated == HeatedWalls::Both;
  const double walls = both ? 2.0 : 1.0;
  r.T_bulk_energy =
      walls * s.wall_heat_flux * g.x_sample / (s.fluid.rho * s.fluid.cp * s.velocity * s.gap);
  r.T_wall = wallTemperature(heat_dir, "bottom", g.x_sample);
  if (both) r.T_wall = 0.5 * (r.T_wall + wallTemperature(heat_dir, "top", g.x_sample));
  r.Nu = s.wall_heat_flux / s.fluid.k * D_h / (r.T_wall - r.T_bulk);
  r.Nu_exact = both ? kNuBothWalls : kNuOneWall;
  r.x_star = g.x_sample / (D_h * r.Re * r.Pr);
  if (!std::isfinite(r.Nu) || !std::isfinite(r.dp_dx))
    throw SolverDiverged("channel results are not finite (case " + case_dir.string() + ")");
  return r;
}

}  // namespace racktwin::cfd
