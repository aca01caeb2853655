// Cold-plate characterisation cost: three flow points of the ~73k-cell 1 kW microchannel plate
// (data/cold-plates/cfd/microchannel-1kw.yaml), each run with decomposePar + mpirun on N
// processes. Target on a 2-core machine: <= 60 s wall for the three points.
// Usage: bench_cfd [SPEC.yaml] [processes]   (run from the source directory)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "racktwin/cfd/ColdPlateCurve.hpp"
#include "racktwin/cfd/ColdPlateSpec.hpp"
#include "racktwin/core/Units.hpp"

int main(int argc, char** argv) {
  using namespace racktwin;
  const std::string spec_path = argc > 1 ? argv[1] : "data/cold-plates/cfd/microchannel-1kw.yaml";
  const int processes = argc > 2 ? std::atoi(argv[2]) : 2;
  try {
    const cfd::ColdPlateSpec spec = cfd::readColdPlateSpec(spec_path);
    const std::vector<double> flows{0.75 * core::kLitrePerMinute_m3_per_s,
                                    1.5 * core::kLitrePerMinute_m3_per_s,
                                    3.0 * core::kLitrePerMinute_m3_per_s};
    const std::filesystem::path work =
        std::filesystem::temp_directory_path() / "racktwin-bench-cfd";
    cfd::ColdPlateRunOptions options;
    options.processes = processes;
    const cfd::ProcessRunner runner(cfd::OpenFoamEnvironment::fromProcess());
    const auto start = std::chrono::steady_clock::now();
    const cfd::ColdPlateCurve curve = cfd::characterise(
        spec, flows, work, runner, options, [](std::size_t, const cfd::ColdPlatePoint& p) {
          std::printf(
              "  %5.2f L/min: %ld cells, %d iterations, R_th %.5f K/W, dp %.3f kPa, "
              "%.1f s\n",
              core::toLitrePerMinute(p.V_flow), p.mesh_cells, p.iterations, p.R_th, p.dp / 1000.0,
              p.wall_s);
          std::fflush(stdout);
        });
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::filesystem::remove_all(work);
    std::printf("cold plate, 3 flow points on %d processes: %.1f s wall (target <= 60 s)\n",
                processes, wall);
    std::printf("fit: R = %.5g + %.5g (V / 1 L/min)^-%.4g K/W\n", curve.resistance.constant,
                curve.resistance.flow_term, curve.resistance.exponent);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cfd: %s\n", e.what());
    return 1;
  }
}
