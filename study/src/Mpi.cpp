// MPI distribution of sweep cases (only this file includes MPI). Dynamic scheduling: a rank
// that is free asks rank 0 for the next case, sending the result of its last one with the
// request; rank 0 answers from its main thread (polling, so it does not spin a core while a
// thread of its own runs cases too) and keeps every result. Every rank builds the same cases
// from the same sweep file, so only case numbers and results travel.
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "Distribute.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/study/Sweep.hpp"

namespace racktwin::study {
namespace {

constexpr int kTagRequest = 1;  // worker -> 0: the last result (empty at first), "give me work"
constexpr int kTagAssign = 2;   // 0 -> worker: a case index, or -1: stop
bool g_initialised = false;
int g_size = 1;
int g_rank = 0;

/// Launched by an MPI launcher with several ranks: Open MPI (mpirun), PMI/PMIx (srun, MPICH).
bool launchedByMpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return true;
  }
  return false;
}

void initialise() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!launchedByMpi()) return;
    int provided = 0;
    // Only the main thread calls MPI; other threads run cases.
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
      throw core::RuntimeError("MPI_Init_thread failed");
    g_initialised = true;
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  });
}

void sendText(const std::string& text, int to, int tag) {
  MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, to, tag, MPI_COMM_WORLD);
}

}  // namespace

int mpiRanks() {
  initialise();
  return g_size;
}

int mpiRank() {
  initialise();
  return g_rank;
}

void mpiFinish() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (g_initialised && finalized == 0) MPI_Finalize();
}

namespace detail {

void runOverRanks(const std::vector<std::size_t>& pending, const CaseWork& work_here,
                  const std::function<CaseResult(std::size_t)>& run_remote,
                  const CaseRecord& record) {
  if (g_rank != 0) {
    // A worker: ask, run, send the result with the next request, until told to stop.
    std::string last;
    for (;;) {
      sendText(last, 0, kTagRequest);
      std::int64_t index = -1;
      MPI_Recv(&index, 1, MPI_INT64_T, 0, kTagAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (index < 0) return;
      last = run_remote(static_cast<std::size_t>(index)).toJson();
    }
  }
  std::mutex mutex;
  std::deque<std::size_t> queue(pending.begin(), pending.end());
  const auto take = [&]() -> std::int64_t {
    const std::lock_guard lock(mutex);
    if (queue.empty()) return -1;
    const std::size_t next = queue.front();
    queue.pop_front();
    return static_cast<std::int64_t>(next);
  };
  // Rank 0's own share, on a thread (MPI stays on this one).
  std::thread local([&] {
    for (std::int64_t i = take(); i >= 0; i = take())
      work_here(static_cast<std::size_t>(i));
  });
  int stopped = 0;
  std::string buffer;
  while (stopped < g_size - 1) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kTagRequest, MPI_COMM_WORLD, &flag, &status);
    if (flag == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    buffer.assign(static_cast<std::size_t>(count), '\0');
    MPI_Recv(buffer.data(), count, MPI_CHAR, status.MPI_SOURCE, kTagRequest, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    if (!buffer.empty()) record(CaseResult::fromJson(buffer));
    const std::int64_t next = take();
    MPI_Send(&next, 1, MPI_INT64_T, status.MPI_SOURCE, kTagAssign, MPI_COMM_WORLD);
    if (next < 0) ++stopped;
  }
  local.join();
}

void shareResults(std::vector<CaseResult>& results, std::size_t count) {
  std::string all;
  if (g_rank == 0) {
    for (const CaseResult& r : results)
      all += r.toJson() + "\n";
  }
  std::uint64_t size = all.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  all.resize(size);
  MPI_Bcast(all.data(), static_cast<int>(size), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (g_rank == 0) return;
  results.clear();
  results.reserve(count);
  std::size_t start = 0;
  while (start < all.size()) {
    const std::size_t end = all.find('\n', start);
    results.push_back(CaseResult::fromJson(all.substr(start, end - start)));
    start = end + 1;
  }
}

}  // namespace detail
}  // namespace racktwin::study
