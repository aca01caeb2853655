#include "racktwin/cfd/ColdPlateCurve.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <stdexcept>

#include "racktwin/cfd/CaseWriter.hpp"
#include "racktwin/cfd/CfdError.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::cfd {

namespace fs = std::filesystem;

namespace {

std::string number(double v, int digits = 6) {  // significant digits
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
  return buffer;
}

std::string isoNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

ColdPlateCurve characterise(const ColdPlateSpec& spec, std::vector<double> flows,
                            const fs::path& work_dir, const ProcessRunner& runner,
                            const ColdPlateRunOptions& options, const PointCallback& progress) {
  if (flows.size() < 2) throw std::invalid_argument("a curve needs at least two flows");
  std::sort(flows.begin(), flows.end());
  ColdPlateCurve curve;
  curve.created = isoNow();
  const auto start = std::chrono::steady_clock::now();
  std::vector<double> V, R, dp;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    ColdPlateRunOptions o = options;
    if (!options.vtk_dir.empty()) {
      o.vtk_dir =
          options.vtk_dir / ("flow-" + number(core::toLitrePerMinute(flows[i]), 4) + "-L-per-min");
    }
    curve.points.push_back(
        runColdPlatePoint(spec, flows[i], work_dir / std::to_string(i), runner, o));
    if (progress) progress(i, curve.points.back());
    V.push_back(flows[i]);
    R.push_back(curve.points.back().R_th);
    dp.push_back(curve.points.back().dp);
  }
  curve.resistance = fitResistance(V, R, core::kLitrePerMinute_m3_per_s);
  curve.pressure_drop = fitPowerLaw(V, dp);
  curve.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return curve;
}

std::string formatCurve(const ColdPlateSpec& spec, const ColdPlateCurve& curve) {
  const auto& pts = curve.points;
  double V_min = pts.front().V_flow, V_max = pts.front().V_flow;
  for (const ColdPlatePoint& p : pts) {
    V_min = std::min(V_min, p.V_flow);
    V_max = std::max(V_max, p.V_flow);
  }
  // The pressure drop is quoted at the middle flow (the design point of a three-point sweep).
  const double V_nominal = pts[pts.size() / 2].V_flow;
  const double dp_nominal = curve.pressure_drop.evaluate(V_nominal);
  const std::string spec_name =
      spec.file.empty() ? "(in code)" : fs::path(spec.file).filename().string();
  const double slice_width = spec.slice_channels * spec.pitch();

  std::string y;
  y += "# Cold-plate curve computed by `racktwin cfd coldplate` (OpenFOAM "
       "chtMultiRegionSimpleFoam,\n";
  y += "# conjugate heat transfer) from " + spec_name + ". A slice of "
       + std::to_string(spec.slice_channels) + " channels with symmetry sides\n";
  y += "# stands for the channels under the heater; heat and flow are scaled to the plate (every\n";
  y += "# channel carries V_flow / " + std::to_string(spec.channel_count)
       + "). Plenums are not meshed: the channels get a uniform inlet\n";
  y += "# velocity, and the pressure drop is that of the channels alone (no plenum or port "
       "losses).\n";
  y += "racktwin_data: 1\n";
  y += "kind: cold_plate\n";
  y += "description: "
       + quoted(
           (spec.description.empty() ? std::string("Microchannel cold plate") : spec.description)
           + "; CFD slice of " + std::to_string(spec.slice_channels) + " of "
           + std::to_string(spec.channel_count)
           + " channels scaled to the plate; heater-surface maximum to inlet resistance")
       + "\n\n";
  const ResistanceFit& r = curve.resistance;
  y += "thermal_resistance:  # R = constant + flow_term * (V_flow / "
       "reference_flow)^-flow_exponent\n";
  y += "  constant: " + number(r.constant)
       + " K/W  # [C] least-squares fit to the CFD points below\n";
  y += "  flow_term: " + number(r.flow_term) + " K/W  # [C] same fit\n";
  y += "  reference_flow: 1 L/min  # [C] flow unit of the fit\n";
  y += "  flow_exponent: " + number(r.exponent) + "  # [C] same fit ("
       + (pts.size() >= 3 ? "1-D search" : "fixed with two points") + "); rms residual "
       + number(r.rms_residual, 3) + " K/W\n";
  y += "minimum_flow: " + number(0.5 * core::toLitrePerMinute(V_min))
       + " L/min  # [C] half the lowest CFD flow: the fit is not extrapolated further\n";
  y += "pressure_drop: {nominal: " + number(dp_nominal / 1000.0)
       + " kPa, at_flow: " + number(core::toLitrePerMinute(V_nominal))
       + " L/min, exponent: " + number(curve.pressure_drop.exponent)
       + "}  # [C] dp = nominal*(V/at_flow)^exponent fitted to the CFD points, channels only\n";
  y += "volume: " + number(spec.coolantVolume() * 1e6)
       + " mL  # [C] channels and plenums of the spec\n\n";

  // Provenance. Every value line carries a [C] tag like the rest of data/.
  y += "cfd:\n";
  y += "  program: " + quoted(pts.front().openfoam_version + " chtMultiRegionSimpleFoam")
       + "  # [C] the solver of every point\n";
  y += "  spec: " + quoted(spec_name) + "  # [C] the cold-plate spec the curve was computed from\n";
  y += "  created: " + quoted(curve.created) + "  # [C] start of the sweep (UTC)\n";
  y += "  model: " +
       quoted("slice of " + std::to_string(spec.slice_channels) + " channels (" +
              number(slice_width * 1e3, 4) +
              " mm wide, symmetry sides) under the heater flux; laminar, constant properties "
              "at the inlet temperature; uniform inlet velocity; adiabatic lid and ends") +
       "  # [C] docs/cfd.md\n";
  y += "  coolant: " + quoted(spec.coolant) + "  # [C] from the spec\n";
  y += "  inlet_temperature: " + number(spec.T_inlet) + " K  # [C] from the spec\n";
  y += "  heater_power: " + number(spec.power) + " W  # [C] from the spec\n";
  y += "  mesh_cells: " + std::to_string(pts.front().mesh_cells)
       + "  # [C] solid and fluid cells of the slice\n";
  y += "  residual_target: " + number(spec.residual_target, 3)
       + "  # [C] initial residuals of p_rgh, U and h at the stop\n";
  y += "  wall_time_s: " + number(curve.wall_s, 4) + "  # [C] all runs of the sweep\n";
  y += "  points:\n";
  for (const ColdPlatePoint& p : pts) {
    y += "    - {flow: " + number(core::toLitrePerMinute(p.V_flow))
         + " L/min, R_th: " + number(p.R_th, 9) + " K/W, dp: " + number(p.dp / 1000.0, 9)
         + " kPa, heat_to_fluid: " + number(p.heat_to_fluid, 9) + " W, T_in: " + number(p.T_in, 9)
         + " K, T_out: " + number(p.T_out, 9) + " K, T_heater_max: " + number(p.T_heater_max, 9)
         + " K, channel_velocity_m_per_s: " + number(p.velocity, 4) + ", Re: " + number(p.Re, 4)
         + ", iterations: " + std::to_string(p.iterations)
         + ", final_residuals: {p_rgh: " + number(p.residual_p_rgh, 3)
         + ", U: " + number(p.residual_U, 3) + ", h_fluid: " + number(p.residual_h_fluid, 3)
         + ", h_solid: " + number(p.residual_h_solid, 3) + "}, energy_balance_relative_error: "
         + number(p.energy_balance_relative_error, 3) + ", wall_time_s: " + number(p.wall_s, 4)
         + "}  # [C] CFD run at " + number(core::toLitrePerMinute(p.V_flow)) + " L/min\n";
  }
  return y;
}

void writeCurveFile(const fs::path& path, const std::string& text) {
  fs::path partial = path;
  partial += ".partial";
  try {
    writeTextFile(partial, text);
    std::error_code ec;
    fs::rename(partial, path, ec);
    if (ec) throw core::RuntimeError("cannot rename " + partial.string() + ": " + ec.message());
  } catch (...) {
    std::error_code ignored;
    fs::remove(partial, ignored);
    throw;
  }
}

}  // namespace racktwin::cfd
