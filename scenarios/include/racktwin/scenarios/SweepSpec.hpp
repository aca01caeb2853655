#pragma once
// A sweep file (docs/capacity.md, "Sweep files"): a base scenario, patches every case shares,
// parameters over scenario keys (lists, grids, Latin hypercube or Monte Carlo draws with a seed),
// fault sets (N-1 over every CDU, pump or feed; random k of n), and optionally the capacity
// search of `racktwin envelope`. Loaded and checked here (YAML stays in scenarios/src); the
// study library turns it into cases and runs them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/ScenarioPatch.hpp"

namespace racktwin::scenarios {

/// The sweep format version this program reads (the `racktwin_sweep:` key).
inline constexpr int kSweepFormatVersion = 1;

/// One parameter: the scenario keys it sets together and its values (a list), or a numeric range
/// the Latin hypercube and Monte Carlo designs draw from.
struct SweepParameter {
  std::string name;               // identifier: /parameters/<name> in the sweep file
  std::vector<std::string> keys;  // key paths set together
  // values[i][k]: value i for keys[k], as YAML text ("32 degC", "xdu1350", "8")
  std::vector<std::vector<std::string>> values;
  std::vector<std::string> labels;  // per value ("W32"); empty: the values name themselves
  bool is_range = false;
  double from = 0.0, to = 0.0;  // in `unit`, for a range
  std::string unit;             // the unit the range is written in ("degC"); "" for a number
  bool integer = false;         // a range of whole numbers (counts)
  core::SourceLocation where;
};

enum class SweepDesign { Grid, List, LatinHypercube, MonteCarlo };

/// Fault cases made for every parameter point (their events apply at `at`).
struct SweepFaults {
  bool present = false;
  double at = 0.0;        // s
  double settle = 0.0;    // s after `at` in which an envelope excuses exceeded limits (not GPUs)
  bool unfaulted = true;  // the point without a fault is a case too
  std::vector<std::string> n_minus_1;  // kinds: "cdu" (loss), "pump" (trip), "feed" (loss)
  std::size_t random_k = 0;            // random k-of-n draws from the kinds in random_of
  std::size_t random_draws = 0;
  std::vector<std::string> random_of;
};

/// `racktwin envelope`: the largest value of `key` in [from, to] that meets every design limit
/// and throttles no GPU, found by a monotone search to `resolution` (whole numbers for counts),
/// for each value of the parameter `rows`, without a fault (N) and through every fault of the
/// fault set (N+1, the worst single fault).
struct SweepEnvelope {
  bool present = false;
  std::string key;
  double from = 0.0, to = 0.0, resolution = 1.0;  // in `unit`
  std::string unit;
  bool integer = true;
  std::string rows;  // a parameter's name; empty: one row
  /// Limits (not the GPUs' slowdown) exceeded only before this time are excused: the loops
  /// settling from the scenario's initial state, every job starting at once.
  double warm_up = 0.0;  // s
  core::SourceLocation where;
};

struct SweepSpec {
  std::string path;  // the sweep file
  std::string name;
  std::string text;       // the file's bytes
  std::string base_path;  // the base scenario (relative to the working directory)
  std::string base_text;
  std::vector<ScenarioPatch> set;  // patches every case shares
  SweepDesign design = SweepDesign::Grid;
  std::size_t samples = 0;  // Latin hypercube and Monte Carlo
  std::uint64_t seed = 0;
  std::vector<SweepParameter> parameters;
  SweepFaults faults;
  bool full_results = false;  // keep each case's full result file
  SweepEnvelope envelope;
};

/// "grid", "list", "latin_hypercube", "monte_carlo".
const char* sweepDesignName(SweepDesign design);

/// Loads and checks a sweep file. Throws core::InputError naming file, line and key.
SweepSpec loadSweep(const std::string& path);

}  // namespace racktwin::scenarios
