// `racktwin cfd channel` and `racktwin cfd coldplate`: OpenFOAM runs written and read by the cfd
// library. The channel is the analytic check of the set-up; the cold plate produces a component
// curve (thermal resistance and pressure drop against flow) in the cold_plate data format.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "Commands.hpp"
#include "OutputFiles.hpp"
#include "racktwin/cfd/CfdError.hpp"
#include "racktwin/cfd/ChannelCase.hpp"
#include "racktwin/cfd/ColdPlateCurve.hpp"
#include "racktwin/cfd/ColdPlateSpec.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::cli {
namespace {

namespace fs = std::filesystem;

struct ChannelArguments {
  std::string gap = "1 mm";
  std::string length = "100 mm";
  std::string fluid = "water";
  std::string temperature = "300 K";
  double velocity = 0.05;
  int cells_across = 20;
  int cells_along = 0;
  std::string heated = "both";
  std::string case_dir = "cfd-channel";
  bool keep = false;
  bool force = false;  // take a non-empty case folder this program did not create
  bool json = false;
};

struct ColdPlateArguments {
  std::string spec;
  std::string flows = "0.5,1,2";
  int np = 1;
  std::string output;
  std::string vtk_dir;
  std::string case_dir;
  bool keep = false;
  bool force = false;  // take a non-empty case folder this program did not create
  bool quiet = false;
};

double quantityOption(const std::string& text, core::Dimension d, const char* option) {
  try {
    return core::parseQuantity(text, d);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(option) + ": " + e.what());
  }
}

void removeCase(const std::string& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
}

int channelCommand(const ChannelArguments& a) {
  cfd::ChannelSpec spec;
  try {
    spec.gap = quantityOption(a.gap, core::Dimension::Length, "--gap");
    spec.length = quantityOption(a.length, core::Dimension::Length, "--length");
    spec.fluid = cfd::fluidByName(
        a.fluid, quantityOption(a.temperature, core::Dimension::Temperature, "--temperature"));
    spec.velocity = a.velocity;
    spec.cells_across = a.cells_across;
    spec.cells_along = a.cells_along;
    if (a.heated == "both") {
      spec.heated = cfd::HeatedWalls::Both;
    } else if (a.heated == "one") {
      spec.heated = cfd::HeatedWalls::One;
    } else {
      throw std::invalid_argument("--heated: expected 'one' or 'both', got '" + a.heated + "'");
    }
    cfd::validate(spec);
    claimCaseFolder(a.case_dir, a.force, "--case");
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "racktwin cfd channel: %s\n", e.what());
    return kBadInput;
  } catch (const core::InputError& e) {
    std::fprintf(stderr, "racktwin cfd channel: %s\n", e.what());
    return kBadInput;
  }
  try {
    const cfd::ProcessRunner runner(cfd::OpenFoamEnvironment::fromProcess());
    const cfd::ChannelResult r = cfd::runChannel(spec, a.case_dir, runner);
    if (!a.keep) {
      removeCase(a.case_dir);
    } else {
      markCaseFolder(a.case_dir);  // the case writer cleaned the folder, marker included
    }
    const double dp_error = r.dp_dx / r.dp_dx_exact - 1.0;
    const double nu_error = r.Nu / r.Nu_exact - 1.0;
    if (a.json) {
      nlohmann::json j;
      j["openfoam"] = r.openfoam_version;
      j["mesh_cells"] = r.mesh_cells;
      j["Re"] = r.Re;
      j["Pr"] = r.Pr;
      j["flow_iterations"] = r.flow_iterations;
      j["heat_iterations"] = r.heat_iterations;
      j["final_residuals"] = {
          {"U", r.final_residual_U}, {"p", r.final_residual_p}, {"T", r.final_residual_T}};
      j["dp_dx_Pa_per_m"] = r.dp_dx;
      j["dp_dx_exact_Pa_per_m"] = r.dp_dx_exact;
      j["dp_dx_relative_error"] = dp_error;
      j["heated_walls"] = a.heated;
      j["sample_x_m"] = r.sample_x;
      j["x_star"] = r.x_star;
      j["T_wall_rise_K"] = r.T_wall;
      j["T_bulk_rise_K"] = r.T_bulk;
      j["T_bulk_energy_balance_K"] = r.T_bulk_energy;
      j["Nu"] = r.Nu;
      j["Nu_exact"] = r.Nu_exact;
      j["Nu_relative_error"] = nu_error;
      j["wall_time_s"] = r.wall_s;
      std::printf("%s\n", j.dump(2).c_str());
      return kSuccess;
    }
    std::printf("Laminar parallel-plate channel (%s, %s)\n", r.openfoam_version.c_str(),
                a.heated == "both" ? "both walls heated" : "one wall heated, one adiabatic");
    std::printf("  gap %g mm, length %g mm, U %g m/s, Re_Dh %.1f, Pr %.2f, %ld cells\n",
                spec.gap * 1e3, spec.length * 1e3, spec.velocity, r.Re, r.Pr, r.mesh_cells);
    std::printf(
        "  simpleFoam %d iterations (residuals U %.1e, p %.1e); scalarTransportFoam %d "
        "(T %.1e)\n",
        r.flow_iterations, r.final_residual_U, r.final_residual_p, r.heat_iterations,
        r.final_residual_T);
    std::printf("  dp/dx      %12.4f Pa/m   exact 12 mu U/h^2 = %.4f   error %+.3f %%\n", r.dp_dx,
                r.dp_dx_exact, 100.0 * dp_error);
    std::printf("  Nu at x = %.1f mm (x* = %.3f)  %.4f   exact %.3f   error %+.3f %%\n",
                r.sample_x * 1e3, r.x_star, r.Nu, r.Nu_exact, 100.0 * nu_error);
    std::printf("  bulk temperature rise %.5f K (energy balance %.5f K)\n", r.T_bulk,
                r.T_bulk_energy);
    if (r.x_star < 0.1) {
      std::printf("  note: x* < 0.1, the temperature profile is still developing there\n");
    }
    std::printf("  OpenFOAM wall time %.2f s%s\n", r.wall_s,
                a.keep ? (", case kept in " + a.case_dir).c_str() : "");
    return kSuccess;
  } catch (const cfd::OpenFoamMissing& e) {
    markCaseFolder(a.case_dir);
    std::fprintf(stderr, "racktwin cfd channel: %s\n", e.what());
    return kRunFailed;
  } catch (const std::exception& e) {
    markCaseFolder(a.case_dir);
    std::fprintf(stderr, "racktwin cfd channel: %s\n", e.what());
    return kRunFailed;
  }
}

std::vector<double> parseFlows(const std::string& text) {
  std::vector<double> flows;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !(v > 0.0) || !std::isfinite(v)) {
      throw std::invalid_argument(
          "--flows: expected positive flows in L/min separated by commas "
          "(e.g. 0.5,1,2), got '"
          + text + "'");
    }
    for (double f : flows) {
      if (f == v * core::kLitrePerMinute_m3_per_s)
        throw std::invalid_argument("--flows: flow " + item + " L/min is given twice");
    }
    flows.push_back(v * core::kLitrePerMinute_m3_per_s);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (flows.size() < 2) throw std::invalid_argument("--flows: a curve needs at least two flows");
  return flows;
}

int coldPlateCommand(const ColdPlateArguments& a) {
  cfd::ColdPlateSpec spec;
  std::vector<double> flows;
  try {
    spec = cfd::readColdPlateSpec(a.spec);
    flows = parseFlows(a.flows);
    if (a.np < 1 || a.np > 256) throw std::invalid_argument("--np: expected 1 to 256 processes");
  } catch (const core::InputError& e) {
    std::fprintf(stderr, "racktwin cfd coldplate: %s\n", e.what());
    return kBadInput;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "racktwin cfd coldplate: %s\n", e.what());
    return kBadInput;
  }
  const fs::path work = a.case_dir.empty() ? fs::path(a.output + ".cases") : fs::path(a.case_dir);
  try {
    checkOutputTarget(a.output, "-o", {a.spec});
    claimCaseFolder(work, a.force, a.case_dir.empty() ? "-o" : "--case");
  } catch (const core::InputError& e) {
    std::fprintf(stderr, "racktwin cfd coldplate: %s\n", e.what());
    return kBadInput;
  }
  cfd::ColdPlateRunOptions options;
  options.processes = a.np;
  options.vtk_dir = a.vtk_dir;
  try {
    const cfd::ProcessRunner runner(cfd::OpenFoamEnvironment::fromProcess());
    if (!a.quiet) {
      std::printf("Cold plate %s: %zu flows, %d process%s per run\n", a.spec.c_str(), flows.size(),
                  a.np, a.np > 1 ? "es" : "");
      std::printf("  %10s %10s %10s %10s %10s %10s %6s %9s %7s\n", "L/min", "R_th K/W", "dp kPa",
                  "Q_fluid W", "T_out K", "T_max K", "iters", "balance", "wall s");
    }
    const cfd::ColdPlateCurve curve = cfd::characterise(
        spec, flows, work, runner, options, [&](std::size_t, const cfd::ColdPlatePoint& p) {
          if (a.quiet) return;
          std::printf("  %10.4g %10.5f %10.4f %10.2f %10.3f %10.3f %6d %9.1e %7.1f\n",
                      core::toLitrePerMinute(p.V_flow), p.R_th, p.dp / 1000.0, p.heat_to_fluid,
                      p.T_out, p.T_heater_max, p.iterations, p.energy_balance_relative_error,
                      p.wall_s);
          std::fflush(stdout);
        });
    cfd::writeCurveFile(a.output, cfd::formatCurve(spec, curve));
    if (!a.keep) removeCase(work.string());
    if (!a.quiet) {
      std::printf(
          "  fit R = %.5g + %.5g (V / 1 L/min)^-%.4g K/W, dp = %.4g kPa (V / 1 L/min)^%.4g\n",
          curve.resistance.constant, curve.resistance.flow_term, curve.resistance.exponent,
          curve.pressure_drop.evaluate(core::kLitrePerMinute_m3_per_s) / 1000.0,
          curve.pressure_drop.exponent);
      std::printf("  wrote %s (%.1f s)\n", a.output.c_str(), curve.wall_s);
    }
    return kSuccess;
  } catch (const core::InputError& e) {
    std::fprintf(stderr, "racktwin cfd coldplate: %s\n", e.what());
    return kBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "racktwin cfd coldplate: %s\nno curve written; cases kept in %s\n",
                 e.what(), work.string().c_str());
    return kRunFailed;
  }
}

}  // namespace

std::vector<Subcommand> addCfdCommands(CLI::App& app) {
  CLI::App* cfd = app.add_subcommand("cfd", "CFD characterisation with OpenFOAM v1912");
  cfd->require_subcommand(1);

  auto channel_args = std::make_shared<ChannelArguments>();
  CLI::App* channel = cfd->add_subcommand(
      "channel", "Laminar parallel-plate channel: dp/dx and Nu against the exact solutions");
  channel->add_option("--gap", channel_args->gap, "Plate spacing h (default 1 mm)");
  channel->add_option("--length", channel_args->length, "Channel length (default 100 mm)");
  channel->add_option("--fluid", channel_args->fluid, "Fluid (water)");
  channel->add_option("--temperature", channel_args->temperature,
                      "Fluid temperature for its properties (default 300 K)");
  channel->add_option("--velocity", channel_args->velocity, "Mean velocity in m/s (default 0.05)");
  channel->add_option("--cells-across", channel_args->cells_across,
                      "Cells across the gap (default 20; >= 15 for dp/dx within 1 %)");
  channel->add_option("--cells-along", channel_args->cells_along,
                      "Cells along the flow (default: cells 4 times longer than high)");
  channel->add_option("--heated", channel_args->heated, "Heated walls: one or both (default both)");
  channel->add_option("--case", channel_args->case_dir, "Case directory (default cfd-channel)");
  channel->add_flag("--keep", channel_args->keep, "Keep the case directory");
  channel->add_flag("--force", channel_args->force,
                    "Use a non-empty case directory this program did not create (its contents "
                    "are removed)");
  channel->add_flag("--json", channel_args->json, "Print the result as JSON");

  auto plate_args = std::make_shared<ColdPlateArguments>();
  CLI::App* plate = cfd->add_subcommand(
      "coldplate", "Microchannel cold plate: R_th and dp against flow, written as a curve");
  plate->add_option("spec", plate_args->spec, "Cold-plate spec (YAML)")->required();
  plate->add_option("--flows", plate_args->flows,
                    "Flows per plate in L/min, comma-separated (default 0.5,1,2)");
  plate->add_option("--np", plate_args->np, "Processes per run (mpirun when > 1)");
  plate->add_option("-o,--output", plate_args->output, "Curve file to write (YAML)")->required();
  plate->add_option("--vtk", plate_args->vtk_dir, "Also write VTK files of each run here");
  plate->add_option("--case", plate_args->case_dir,
                    "Case directory (default: <output>.cases, removed unless --keep)");
  plate->add_flag("--keep", plate_args->keep, "Keep the case directories");
  plate->add_flag("--force", plate_args->force,
                  "Use a non-empty case directory this program did not create (its contents are "
                  "removed)");
  plate->add_flag("-q,--quiet", plate_args->quiet, "Print nothing but errors");

  return {Subcommand{channel, [channel_args] { return channelCommand(*channel_args); }},
          Subcommand{plate, [plate_args] { return coldPlateCommand(*plate_args); }}};
}

}  // namespace racktwin::cli
