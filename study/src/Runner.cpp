// Running a sweep's cases: threads of this process or MPI ranks, with the journal.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "Distribute.hpp"
#include "Journal.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Version.hpp"
#include "racktwin/study/Sweep.hpp"

namespace racktwin::study {
namespace {

/// FNV-1a 64 of the text.
std::uint64_t fnv1a(std::uint64_t h, const std::string& text) {
  for (const char c : text)
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return (h ^ 0xffU) * 1099511628211ULL;  // a separator between texts
}

}  // namespace

std::string sweepFingerprint(const scenarios::SweepSpec& spec,
                             const std::vector<SweepCase>& cases) {
  std::uint64_t h = 14695981039346656037ULL;
  h = fnv1a(h, std::string(core::programVersion()));
  h = fnv1a(h, spec.text);
  h = fnv1a(h, spec.base_text);
  for (const SweepCase& c : cases)
    h = fnv1a(h, c.id + "\n" + scenarios::describePatches(c.patches));
  char text[24];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

namespace detail {

void runOnThreads(const std::vector<std::size_t>& pending, int threads, const CaseWork& work) {
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t k = next++; k < pending.size(); k = next++)
      work(pending[k]);
  };
  const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)),
                                              std::max<std::size_t>(pending.size(), 1));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < n; ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool)
    t.join();
}

}  // namespace detail

std::vector<CaseResult> runCases(const scenarios::SweepSpec& spec,
                                 const std::vector<SweepCase>& cases, const RunOptions& options) {
  const bool ranks = mpiRanks() > 1;
  const bool root = mpiRank() == 0;
  std::vector<std::optional<CaseResult>> slots(cases.size());
  std::optional<Journal> journal;
  std::vector<std::size_t> pending;
  if (root) {
    journal.emplace(options.journal, sweepFingerprint(spec, cases));
    for (const auto& [index, result] : journal->finished())
      if (index < slots.size()) slots[index] = result;
    for (std::size_t i = 0; i < cases.size(); ++i)
      if (!slots[i]) pending.push_back(i);
  }
  if (!options.full_results_dir.empty()) {
    std::filesystem::create_directories(options.full_results_dir);
  }
  std::mutex mutex;
  std::size_t done = cases.size() - pending.size();
  const auto record = [&](CaseResult r) {
    const std::lock_guard lock(mutex);
    const std::size_t index = r.index;
    if (journal) journal->append(r);
    slots.at(index) = std::move(r);
    ++done;
    if (options.progress) options.progress(*slots[index], done, cases.size());
  };
  const auto run = [&](std::size_t index) {
    const std::string file = options.full_results_dir.empty()
                                 ? std::string()
                                 : options.full_results_dir + "/" + cases[index].id + ".h5";
    return runCase(spec, cases[index], file);
  };
  if (ranks) {
    detail::runOverRanks(
        pending, [&](std::size_t index) { record(run(index)); }, run, record);
  } else {
    detail::runOnThreads(pending, options.threads, [&](std::size_t index) { record(run(index)); });
  }
  std::vector<CaseResult> results;
  if (root) {
    results.reserve(cases.size());
    for (std::optional<CaseResult>& r : slots)
      results.push_back(std::move(*r));
  }
  if (ranks && options.results_on_every_rank) detail::shareResults(results, cases.size());
  return results;
}

}  // namespace racktwin::study
