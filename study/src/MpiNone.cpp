// A build without MPI: one process, threads only.
#include "Distribute.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/study/Sweep.hpp"

namespace racktwin::study {

int mpiRanks() {
  return 1;
}
int mpiRank() {
  return 0;
}
void mpiFinish() {}

namespace detail {
void runOverRanks(const std::vector<std::size_t>&, const CaseWork&,
                  const std::function<CaseResult(std::size_t)>&, const CaseRecord&) {
  throw core::RuntimeError("this build has no MPI (Debian: libopenmpi-dev; see tools/setup.sh)");
}
void shareResults(std::vector<CaseResult>&, std::size_t) {}
}  // namespace detail
}  // namespace racktwin::study
