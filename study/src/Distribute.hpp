#pragma once
// Running the pending cases of a sweep: on threads of this process, or over MPI ranks.
#include <functional>
#include <optional>
#include <vector>

#include "Journal.hpp"
#include "racktwin/study/Sweep.hpp"

namespace racktwin::study::detail {

/// Runs one case and records it (thread-safe); the rank or thread that ran it does not matter.
using CaseWork = std::function<void(std::size_t index)>;
/// Records a case another rank ran.
using CaseRecord = std::function<void(CaseResult result)>;

/// Runs `pending` on `threads` threads of this process; each index once.
void runOnThreads(const std::vector<std::size_t>& pending, int threads, const CaseWork& work);

/// Distributes `pending` (known on rank 0) over the ranks dynamically: each rank asks for a
/// case when it is free; rank 0 hands them out from its main thread while a thread of its own
/// runs cases too. `work` runs a case on any rank; `run_remote` runs one on a worker rank and
/// returns its result; `record` stores, on rank 0, a result a worker rank sent. Returns when
/// every case is done and every rank has been told to stop. Only with MPI (mpiRanks() > 1).
void runOverRanks(const std::vector<std::size_t>& pending, const CaseWork& work_here,
                  const std::function<CaseResult(std::size_t)>& run_remote,
                  const CaseRecord& record);

/// With MPI: rank 0's results (one per case) sent to every rank, in case order.
void shareResults(std::vector<CaseResult>& results, std::size_t count);

}  // namespace racktwin::study::detail
