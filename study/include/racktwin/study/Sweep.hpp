#pragma once
// Sweeps (docs/capacity.md): the cases of a sweep file, running them on threads or MPI ranks,
// and the tables of the sweep file. A case is the base scenario with patches at key paths; every
// case runs a Twin of its own (all state lives in the Twin, so cases run side by side), and its
// result is its summary, its headroom and its exceeded limits. Results do not depend on the
// thread or rank count: each case is computed alone, and the tables list cases in case order.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "racktwin/core/ResultTable.hpp"
#include "racktwin/scenarios/ScenarioPatch.hpp"
#include "racktwin/scenarios/SweepSpec.hpp"

namespace racktwin::study {

struct SweepCase {
  std::size_t index = 0;
  std::string id;                                 // "case-0007"
  std::vector<scenarios::ScenarioPatch> patches;  // set, parameters, fault: in that order
  std::vector<std::string> parameter_text;        // per parameter: its label or value(s)
  std::vector<double> parameter_number;           // per parameter: the number, or NaN
  std::string fault;                              // "" or "pump_trip row1/cdu1 at 1800 s"
  std::size_t point = 0;                          // parameter point (cases sharing parameters)
};

/// The cases of a sweep file, in order: parameter points (grid: the first parameter slowest;
/// list: value i of each; Latin hypercube / Monte Carlo: `samples` draws from the seed), and per
/// point the unfaulted case then its faults. Faults need each point's site (its CDU and rack
/// ids), which is loaded here; a point that does not load keeps its unfaulted case, which then
/// fails with the loader's error.
std::vector<SweepCase> sweepCases(const scenarios::SweepSpec& spec);

/// The single faults of the site `patches` give, of the kinds of SweepFaults (cdu, pump, feed)
/// at spec.faults.at: each its label and its events[+] patch. Throws core::Error when the site
/// does not load.
std::vector<std::pair<std::string, scenarios::ScenarioPatch>> singleFaultPatches(
    const scenarios::SweepSpec& spec, const std::vector<scenarios::ScenarioPatch>& patches,
    const std::vector<std::string>& kinds);

/// One headroom group of a case (core/LimitMonitor.hpp).
struct CaseHeadroom {
  std::string group, kind, binding;
  double margin_fraction = 0.0;
};

/// A design limit a case exceeded.
struct LimitViolation {
  std::string limit;               // its id
  double first = 0.0, last = 0.0;  // s, its first and last record beyond the rating
};

/// Time windows in which an exceeded limit is excused (a start-up, a fault's settling time).
struct LimitExcuse {
  double warm_up = 0.0;          // s: limits exceeded only before it
  double from = 0.0, to = -1.0;  // s: limits exceeded only within [from, to]
  /// Whether every record of `v` beyond its rating lies inside one window (never for a GPU's
  /// slowdown temperature).
  bool covers(const LimitViolation& v) const;
};

struct CaseResult {
  std::size_t index = 0;
  bool ok = false;
  std::string error;       // what stopped a failed case
  double wall_time = 0.0;  // s (not compared between runs)
  std::vector<std::pair<std::string, std::optional<double>>> metrics;  // the summary, in order
  std::vector<CaseHeadroom> headroom;
  std::string binding;                     // the limit with the smallest margin fraction
  double margin_min = 0.0;                 // its margin fraction
  std::vector<LimitViolation> violations;  // worst first
  std::string result_file;                 // full result, when kept

  /// No design limit exceeded, no GPU throttled or shut down (what an envelope accepts); a limit
  /// exceeded only inside one of `excuse`'s windows is excused, a GPU's slowdown never.
  bool acceptable(const LimitExcuse& excuse = LimitExcuse()) const;
  /// One line of JSON (the journal and the MPI messages): every number at 17 digits.
  std::string toJson() const;
  static CaseResult fromJson(const std::string& line);  // throws std::exception when damaged
};

/// Runs one case: loads the patched base, runs it to its end, keeps its full result in
/// `result_file` when not empty. Never throws: a failure is a failed CaseResult.
CaseResult runCase(const scenarios::SweepSpec& spec, const SweepCase& c,
                   const std::string& result_file);

struct RunOptions {
  int threads = 1;
  std::string journal;           // finished cases, one line each; "" for none
  std::string full_results_dir;  // "" unless the sweep keeps full results
  /// With MPI: every rank gets every result (the envelope decides its next cases from them).
  bool results_on_every_rank = false;
  /// Called (on one thread at a time) after each case finishes, with the cases done so far.
  std::function<void(const CaseResult&, std::size_t done, std::size_t total)> progress;
};

/// The identity of a sweep run for its journal: program version, sweep and base texts, cases.
std::string sweepFingerprint(const scenarios::SweepSpec& spec, const std::vector<SweepCase>& cases);

/// Runs the cases on `options.threads` threads (or, launched by mpirun/srun, distributed over
/// the ranks: see mpiRanks()). Cases already in the journal (same fingerprint) are not run
/// again. Returns every case's result in case order on rank 0 (and without MPI); other ranks
/// return an empty vector when the sweep is done.
std::vector<CaseResult> runCases(const scenarios::SweepSpec& spec,
                                 const std::vector<SweepCase>& cases, const RunOptions& options);

/// The ranks when this process was launched by an MPI launcher (mpirun, srun) with more than
/// one rank and this build has MPI; 1 otherwise. MPI is initialised on the first call.
int mpiRanks();
/// This process's rank (0 without MPI).
int mpiRank();
/// Ends MPI when it was initialised (at exit of the command).
void mpiFinish();

/// The sweep file's content (docs/capacity.md): tables and root attributes.
core::TableFile sweepTables(const scenarios::SweepSpec& spec, const std::vector<SweepCase>& cases,
                            const std::vector<CaseResult>& results);
/// One row per case: id, status, fault, parameters, metrics (SI, unit in the header), headroom
/// margins, error.
std::string sweepCsv(const scenarios::SweepSpec& spec, const std::vector<SweepCase>& cases,
                     const std::vector<CaseResult>& results);
/// The SI unit of a summary key, from its suffix ("_K", "_J", "_m3_per_s"...); "1" otherwise.
std::string metricUnit(const std::string& key);

}  // namespace racktwin::study
