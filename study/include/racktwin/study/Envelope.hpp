#pragma once
// `racktwin envelope` (docs/capacity.md): on top of sweeps, the largest value of a numeric key
// (rack count, IT load, facility supply temperature) that meets every design limit and throttles
// no GPU, per value of a row parameter (W-classes), without a fault (N) and through every single
// fault of the sweep's fault set (N+1). Monotone search: acceptable at a value means acceptable
// at every smaller one, so bisection between a known acceptable and a known unacceptable value
// halves the interval each round until it is within the stated resolution.
#include <string>
#include <vector>

#include "racktwin/core/ResultTable.hpp"
#include "racktwin/study/Sweep.hpp"

namespace racktwin::study {

struct EnvelopeCell {
  std::string row;        // the row parameter's label or value ("W32"); "" with one row
  bool n_plus_1 = false;  // through every single fault (N+1) or without a fault (N)
  enum class Answer { Found, BelowSearch, AtLeastTop } answer = Answer::Found;
  double value = 0.0;          // the largest acceptable value (Found, AtLeastTop)
  double first_failing = 0.0;  // the smallest unacceptable value (Found, BelowSearch)
  std::string binding;         // the limit exceeded there ("GPU throttle", or the error)
  std::string binding_fault;   // the fault under which it was exceeded (N+1)
};

struct Envelope {
  std::vector<EnvelopeCell> cells;  // per row: N, then N+1 when the sweep has a fault set
  std::vector<SweepCase> cases;     // every case run, in the order run
  std::vector<CaseResult> results;
};

/// Runs the search (spec.envelope must be present). Cases of each round run together on the
/// threads or ranks of `options` (its journal is not used). On MPI ranks other than 0 the
/// cells are the same (every rank gets every result).
Envelope runEnvelope(const scenarios::SweepSpec& spec, const RunOptions& options);

/// The answer as a table for people: one line per row, "N" and "N+1" columns with the value and
/// the binding limit.
std::string envelopeText(const scenarios::SweepSpec& spec, const Envelope& envelope);
/// The /envelope group of the envelope's sweep file.
core::ResultTable envelopeTable(const scenarios::SweepSpec& spec, const Envelope& envelope);

}  // namespace racktwin::study
