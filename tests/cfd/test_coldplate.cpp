// A small cold plate through the whole chain (spec file -> racktwin cfd coldplate -> curve file),
// checked by energy conservation, by the trend with flow, by a mesh study and by the fit.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

#include "CfdTestUtil.hpp"
#include "racktwin/cfd/CaseWriter.hpp"
#include "racktwin/cfd/ColdPlateCase.hpp"
#include "racktwin/core/Units.hpp"

using namespace racktwin::cfd;
namespace fs = std::filesystem;

namespace {

double quantity(const YAML::Node& node, racktwin::core::Dimension d) {
  return racktwin::core::parseQuantity(node.as<std::string>(), d);
}

}  // namespace

TEST_CASE("cold plate: energy balance, R_th against flow, mesh study, parallel, curve file",
          "[cfd][coldplate][openfoam]") {
  using racktwin::core::Dimension;
  const fs::path dir = racktwin::test::cfdScratch("coldplate");
  writeTextFile(dir / "mini.yaml", racktwin::test::miniPlateYaml());
  const fs::path curve_file = dir / "curve.yaml";
  // 0.25, 0.5 and 1 m/s in the 1 x 2 mm channels.
  std::string output;
  const int code = racktwin::test::runCli("cfd coldplate " + (dir / "mini.yaml").string()
                                              + " --flows 0.09,0.18,0.36 -o " + curve_file.string()
                                              + " --vtk " + (dir / "vtk").string(),
                                          output);
  INFO(output);
  REQUIRE(code == 0);
  REQUIRE(fs::exists(curve_file));
  CHECK_FALSE(fs::exists(dir / "curve.yaml.partial"));
  CHECK_FALSE(fs::exists(dir / "curve.yaml.cases"));  // removed without --keep
  CHECK(fs::exists(dir / "vtk" / "flow-0.18-L-per-min"));

  const YAML::Node curve = YAML::LoadFile(curve_file.string());
  CHECK(curve["kind"].as<std::string>() == "cold_plate");
  const FluidProperties water = racktwin::cfd::water(300.0);
  const double power = 125.0;
  const YAML::Node points = curve["cfd"]["points"];
  REQUIRE(points.size() == 3);
  std::vector<double> V, R;
  for (const YAML::Node& p : points) {
    const double V_flow = quantity(p["flow"], Dimension::VolumeFlow);
    const double T_in = quantity(p["T_in"], Dimension::Temperature);
    const double T_out = quantity(p["T_out"], Dimension::Temperature);
    const double T_max = quantity(p["T_heater_max"], Dimension::Temperature);
    // Heat into the fluid (wall heat flux on the interface) equals the heater power, and so
    // does the enthalpy rise m cp dT of the coolant.
    CHECK(std::abs(quantity(p["heat_to_fluid"], Dimension::Power) / power - 1.0) < 1e-3);
    CHECK(std::abs(water.rho * V_flow * water.cp * (T_out - T_in) / power - 1.0) < 1e-3);
    CHECK(T_in == Approx(300.0).epsilon(1e-9));
    CHECK(quantity(p["R_th"], Dimension::ThermalResistance)
          == Approx((T_max - T_in) / power).epsilon(1e-5));
    CHECK(p["iterations"].as<int>() < 1500);
    V.push_back(V_flow);
    R.push_back(quantity(p["R_th"], Dimension::ThermalResistance));
  }
  // More flow, lower resistance.
  CHECK(R[1] < R[0]);
  CHECK(R[2] < R[1]);

  // The fit passes through its three points (three parameters).
  const YAML::Node fit = curve["thermal_resistance"];
  const double a = quantity(fit["constant"], Dimension::ThermalResistance);
  const double b = quantity(fit["flow_term"], Dimension::ThermalResistance);
  const double V_ref = quantity(fit["reference_flow"], Dimension::VolumeFlow);
  const double n = fit["flow_exponent"].as<double>();
  for (std::size_t i = 0; i < 3; ++i)
    CHECK(a + b * std::pow(V[i] / V_ref, -n) == Approx(R[i]).epsilon(1e-4));
  CHECK(quantity(curve["minimum_flow"], Dimension::VolumeFlow) == Approx(0.5 * V[0]).epsilon(1e-4));
  const YAML::Node dp = curve["pressure_drop"];
  CHECK(quantity(dp["nominal"], Dimension::Pressure) > 0.0);
  CHECK(dp["exponent"].as<double>() > 1.0);  // laminar with entrance effects: 1 < m < 2
  CHECK(dp["exponent"].as<double>() < 2.0);
  // 3 channels of 1 x 2 x 20 mm and two plenums of 2 mm over the 4.5 mm x 2 mm array.
  CHECK(quantity(curve["volume"], Dimension::Volume)
        == Approx(3 * 1e-3 * 2e-3 * 20e-3 + 2 * 2e-3 * 4.5e-3 * 2e-3).epsilon(1e-5));

  // Mesh study: 1.5 times the cells in every direction (3.4 times the cells) at the middle flow.
  // Tolerance 5 %: unlimited linearUpwind converges from above (openfoam.md section 3).
  const ColdPlateSpec spec = parseColdPlateSpec(racktwin::test::miniPlateYaml(), "mini.yaml");
  ColdPlateRunOptions fine;
  fine.mesh_scale = 1.5;
  const ColdPlatePoint p = runColdPlatePoint(
      spec, V[1], dir / "fine", ProcessRunner(OpenFoamEnvironment::fromProcess()), fine);
  INFO("R coarse " << R[1] << ", fine " << p.R_th << ", cells " << p.mesh_cells);
  CHECK(p.mesh_cells > 3 * curve["cfd"]["mesh_cells"].as<long>());
  CHECK(std::abs(p.R_th / R[1] - 1.0) < 0.05);
  CHECK(p.R_th < R[1]);
  CHECK(p.energy_balance_relative_error < 1e-3);

  // The same point decomposed on two processes (decomposePar -allRegions, mpirun) converges to
  // the serial result (openfoam.md: 5 significant figures).
  ColdPlateRunOptions parallel;
  parallel.processes = 2;
  const ColdPlatePoint q = runColdPlatePoint(
      spec, V[1], dir / "parallel", ProcessRunner(OpenFoamEnvironment::fromProcess()), parallel);
  CHECK(fs::exists(dir / "parallel" / "processor1"));
  CHECK(std::abs(q.R_th / R[1] - 1.0) < 1e-3);
  CHECK(std::abs(q.heat_to_fluid / power - 1.0) < 1e-3);
}
