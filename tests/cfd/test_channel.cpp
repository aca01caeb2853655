// Laminar parallel-plate channel against the exact solutions: dp/dx = 12 mu U / h^2 (Poiseuille)
// and the fully developed Nusselt numbers for uniform wall flux (Shah & London 1978, D_h = 2h):
// 8.235 with both walls heated, 5.385 with one heated and the other adiabatic.
#include <catch2/catch.hpp>
#include <cmath>

#include "CfdTestUtil.hpp"
#include "ValidationRecord.hpp"
#include "racktwin/cfd/ChannelCase.hpp"

using namespace racktwin::cfd;

namespace {

ProcessRunner runner() {
  return ProcessRunner(OpenFoamEnvironment::fromProcess());
}

}  // namespace

TEST_CASE("channel with both walls heated: dp/dx and Nu within 1 %",
          "[cfd][channel][openfoam][validation]") {
  ChannelSpec spec;        // 1 mm gap, 100 mm, 0.05 m/s water at 300 K
  spec.cells_across = 16;  // >= 15 cells: the -2/N^2 error of dp/dx is 0.78 %
  spec.heated = HeatedWalls::Both;
  const ChannelResult r = runChannel(spec, racktwin::test::cfdScratch("channel-both"), runner());

  const double exact = 12.0 * spec.fluid.mu * spec.velocity / (spec.gap * spec.gap);
  CHECK(r.dp_dx_exact == Approx(exact).epsilon(1e-12));
  CHECK(std::abs(r.dp_dx / exact - 1.0) < 0.01);
  CHECK(std::abs(r.Nu / 8.235 - 1.0) < 0.01);
  {
    const char* name = "channel with both walls heated: dp/dx and Nu within 1 %";
    racktwin::test::WorstError dp, nu;
    dp.add(r.dp_dx, exact, true);
    nu.add(r.Nu, 8.235, true);
    racktwin::test::recordValidation(
        {"CFD: laminar parallel-plate channel (OpenFOAM v1912, 16 cells across)",
         "1 mm gap, water at 0.05 m/s: fully developed pressure gradient",
         "Analytic: dp/dx = 12 mu U / h^2", "laminar-channel.md", name, "1", true, 0.01,
         dp.value()});
    racktwin::test::recordValidation(
        {"CFD: laminar parallel-plate channel (OpenFOAM v1912, 16 cells across)",
         "Both walls at uniform heat flux: fully developed Nusselt number",
         "Shah and London: Nu = 8.235 (hydraulic diameter 2 h)", "laminar-channel.md", name, "1",
         true, 0.01, nu.value()});
  }
  // The section's velocity-weighted temperature against the energy balance 2 q x / (rho cp U h).
  const double T_bulk = 2.0 * spec.wall_heat_flux * r.sample_x
                        / (spec.fluid.rho * spec.fluid.cp * spec.velocity * spec.gap);
  CHECK(std::abs(r.T_bulk / T_bulk - 1.0) < 1e-3);
  CHECK(r.mesh_cells == 16 * 400);
  CHECK(r.openfoam_version.find("1912") != std::string::npos);
  CHECK(r.final_residual_p < 1e-6);
  CHECK(r.flow_iterations > 0);
  CHECK(r.flow_iterations < spec.max_iterations);
}

TEST_CASE("channel with one wall heated: Nu within 1 % of 5.385 where x* > 0.1",
          "[cfd][channel][openfoam][validation]") {
  ChannelSpec spec;
  spec.length = 0.3;  // long enough for x* = x / (D_h Re Pr) > 0.1 near the outlet
  spec.cells_across = 16;
  spec.cells_along = 480;
  spec.heated = HeatedWalls::One;
  const ChannelResult r = runChannel(spec, racktwin::test::cfdScratch("channel-one"), runner());

  const double D_h = 2.0 * spec.gap;
  const double x_star = r.sample_x
                        / (D_h * (spec.velocity * D_h / spec.fluid.nu())
                           * (spec.fluid.mu * spec.fluid.cp / spec.fluid.k));
  REQUIRE(x_star > 0.1);
  CHECK(std::abs(r.Nu / 5.385 - 1.0) < 0.01);
  racktwin::test::WorstError nu;
  nu.add(r.Nu, 5.385, true);
  racktwin::test::recordValidation(
      {"CFD: laminar parallel-plate channel (OpenFOAM v1912, 16 cells across)",
       "One wall at uniform heat flux, the other insulated: Nusselt number where x* > 0.1",
       "Shah and London: Nu = 5.385 (hydraulic diameter 2 h)", "laminar-channel.md",
       "channel with one wall heated: Nu within 1 % of 5.385 where x* > 0.1", "1", true, 0.01,
       nu.value()});
  CHECK(std::abs(r.dp_dx / (12.0 * spec.fluid.mu * spec.velocity / (spec.gap * spec.gap)) - 1.0)
        < 0.01);
}
