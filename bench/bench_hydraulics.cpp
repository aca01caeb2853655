// Steady hydraulic solve of an EPANET network: best of N runs of the solve alone (solver set-up,
// ordering, factorisations and iterations) and of file reading plus solve.
// Usage: bench_hydraulics FILE.inp [runs]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/EpanetInput.hpp"

namespace {

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace racktwin;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.inp [runs]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  try {
    double best_read = 1e300, best_solve = 1e300, best_total = 1e300;
    scenarios::EpanetSolution solution;
    std::size_t nodes = 0, links = 0;
    for (int run = 0; run < runs; ++run) {
      const auto start = std::chrono::steady_clock::now();
      scenarios::EpanetModel model = scenarios::readEpanetInput(path);
      const double read = seconds(start);
      const auto solve_start = std::chrono::steady_clock::now();
      solution = scenarios::solveEpanetOnce(model);
      const double solve = seconds(solve_start);
      best_read = std::min(best_read, read);
      best_solve = std::min(best_solve, solve);
      best_total = std::min(best_total, seconds(start));
      nodes = model.nodes.size();
      links = model.links.size();
    }
    std::printf("%s: %zu nodes, %zu links (unknowns: %zu heads + %zu flows)\n", path.c_str(), nodes,
                links, nodes, links);
    std::printf("  %s in %d iterations, relative flow change %.3g, largest imbalance %.3g m3/s\n",
                solution.status.converged ? "converged" : "NOT converged",
                solution.status.iterations, solution.status.relative_flow_change,
                solution.largest_imbalance);
    std::printf("  best of %d: read %.4f s, solve %.4f s, read + solve %.4f s\n", runs, best_read,
                best_solve, best_total);
  } catch (const core::Error& error) {
    std::fprintf(stderr, "bench_hydraulics: %s\n", error.what());
    return 2;
  }
  return 0;
}
