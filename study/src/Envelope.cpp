// The capacity search of `racktwin envelope` (Envelope.hpp).
#include "racktwin/study/Envelope.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace racktwin::study {
namespace {

using scenarios::ScenarioPatch;
using scenarios::SweepSpec;

std::string valueText(const scenarios::SweepEnvelope& e, double x) {
  char text[48];
  if (e.integer) {
    std::snprintf(text, sizeof text, "%.0f", x);
  } else {
    std::snprintf(text, sizeof text, "%.10g", x);
  }
  return e.unit.empty() ? std::string(text) : std::string(text) + " " + e.unit;
}

/// What failed in an unacceptable case: its worst exceeded limit, the GPU throttle, or its error.
std::string whyUnacceptable(const CaseResult& r, const LimitExcuse& excuse) {
  if (!r.ok) return "error: " + r.error.substr(0, 200);
  for (const LimitViolation& v : r.violations) {
    if (!excuse.covers(v)) return v.limit;
  }
  return "GPU throttle (throttled_gpu_seconds > 0)";
}

/// The windows an envelope excuses for a case: the warm-up, and the fault's settling time.
LimitExcuse excuseFor(const SweepSpec& spec, bool faulted) {
  LimitExcuse excuse;
  excuse.warm_up = spec.envelope.warm_up;
  if (faulted) {
    excuse.from = spec.faults.at;
    excuse.to = spec.faults.at + spec.faults.settle;
  }
  return excuse;
}

/// One row of the table: the patches of its parameter values.
struct Row {
  std::string label;
  std::vector<ScenarioPatch> patches;
};

std::vector<Row> rowsOf(const SweepSpec& spec) {
  std::vector<Row> rows;
  const scenarios::SweepParameter* row_param = nullptr;
  std::vector<ScenarioPatch> fixed = spec.set;
  for (const scenarios::SweepParameter& p : spec.parameters) {
    if (p.name == spec.envelope.rows) {
      row_param = &p;
      continue;
    }
    for (std::size_t k = 0; k < p.keys.size(); ++k)
      fixed.push_back({p.keys[k], p.values.front()[k]});
  }
  if (row_param == nullptr) {
    rows.push_back({"", fixed});
    return rows;
  }
  for (std::size_t v = 0; v < row_param->values.size(); ++v) {
    Row r;
    r.label = row_param->labels.empty() ? row_param->values[v].front() : row_param->labels[v];
    r.patches = fixed;
    for (std::size_t k = 0; k < row_param->keys.size(); ++k)
      r.patches.push_back({row_param->keys[k], row_param->values[v][k]});
    rows.push_back(std::move(r));
  }
  return rows;
}

/// The search of one cell: [lo, hi] brackets the answer once both are known.
struct Search {
  std::size_t row = 0;
  bool n_plus_1 = false;
  std::optional<double> lo, hi;  // largest acceptable, smallest unacceptable seen
  bool done = false;
  EnvelopeCell cell;
};

}  // namespace

Envelope runEnvelope(const SweepSpec& spec, const RunOptions& options) {
  const scenarios::SweepEnvelope& e = spec.envelope;
  const std::vector<Row> rows = rowsOf(spec);
  const bool faulted = spec.faults.present && !spec.faults.n_minus_1.empty();
  std::vector<Search> searches;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    searches.push_back({r, false, {}, {}, false, {}});
    if (faulted) searches.push_back({r, true, {}, {}, false, {}});
  }
  Envelope out;
  // Results by (row, value text, fault label): N and N+1 share the unfaulted cases.
  std::map<std::tuple<std::size_t, std::string, std::string>, std::size_t> known;
  std::map<std::pair<std::size_t, std::string>, std::vector<std::pair<std::string, ScenarioPatch>>>
      faults_at;
  RunOptions round_options = options;
  round_options.journal.clear();
  round_options.results_on_every_rank = true;

  // The values each unfinished search needs next: both ends first, then the midpoint.
  const auto next = [&](const Search& s) -> std::optional<double> {
    if (!s.lo && !s.hi) return e.from;
    if (s.lo && !s.hi && *s.lo == e.from) return e.to;
    if (!s.lo || !s.hi) return std::nullopt;
    if (*s.hi - *s.lo <= e.resolution * (1.0 + 1e-9)) return std::nullopt;
    double mid = 0.5 * (*s.lo + *s.hi);
    if (e.integer) mid = std::floor(mid);
    return mid;
  };
  for (int round = 0; round < 200; ++round) {
    std::vector<SweepCase> batch;
    std::vector<std::pair<std::size_t, double>> asked;  // search, value
    for (std::size_t i = 0; i < searches.size(); ++i) {
      Search& s = searches[i];
      if (s.done) continue;
      const std::optional<double> x = next(s);
      if (!x) {
        s.done = true;
        continue;
      }
      asked.emplace_back(i, *x);
      const std::string text = valueText(e, *x);
      std::vector<ScenarioPatch> patches = rows[s.row].patches;
      patches.push_back({e.key, text});
      std::vector<std::pair<std::string, ScenarioPatch>> wanted = {{"", {}}};
      if (s.n_plus_1) {
        auto& faults = faults_at[{s.row, text}];
        if (faults.empty()) {
          try {
            faults = singleFaultPatches(spec, patches, spec.faults.n_minus_1);
          } catch (const core::Error&) {
            // The unfaulted case at this value reports why it does not load.
          }
        }
        wanted.insert(wanted.end(), faults.begin(), faults.end());
      }
      for (const auto& [label, patch] : wanted) {
        const auto key = std::make_tuple(s.row, text, label);
        if (known.count(key) != 0) continue;
        bool queued = false;
        for (const SweepCase& c : batch)
          queued =
              queued || (c.point == s.row && c.parameter_text.back() == text && c.fault == label);
        if (queued) continue;
        SweepCase c;
        c.point = s.row;
        c.patches = patches;
        if (!label.empty()) c.patches.push_back(patch);
        c.fault = label;
        c.parameter_text = {rows[s.row].label, text};
        c.parameter_number = {std::numeric_limits<double>::quiet_NaN(), *x};
        batch.push_back(std::move(c));
      }
    }
    if (asked.empty()) break;
    for (std::size_t k = 0; k < batch.size(); ++k) {
      batch[k].index = k;  // runCases numbers by position in the batch
      char id[32];
      std::snprintf(id, sizeof id, "case-%04zu", out.cases.size() + k);
      batch[k].id = id;
    }
    std::vector<CaseResult> results = runCases(spec, batch, round_options);
    for (std::size_t k = 0; k < batch.size(); ++k) {
      // Numbered in the envelope's file: every round's cases after the earlier rounds'.
      batch[k].index = results[k].index = out.cases.size();
      known[{batch[k].point, batch[k].parameter_text.back(), batch[k].fault}] = out.results.size();
      out.cases.push_back(batch[k]);
      out.results.push_back(results[k]);
    }
    // Each asked value: acceptable when the unfaulted case (and, for N+1, every fault) is.
    for (const auto& [i, x] : asked) {
      Search& s = searches[i];
      const std::string text = valueText(e, x);
      std::vector<std::string> labels = {""};
      if (s.n_plus_1)
        for (const auto& f : faults_at[{s.row, text}])
          labels.push_back(f.first);
      bool ok = true;
      const CaseResult* worst = nullptr;
      std::string worst_fault;
      for (const std::string& label : labels) {
        const CaseResult& r = out.results[known.at({s.row, text, label})];
        // The warm-up and a fault's settling time excuse limits (not the GPUs' slowdown).
        if (r.acceptable(excuseFor(spec, !label.empty()))) continue;
        if (worst == nullptr || !r.ok || (worst->ok && r.margin_min < worst->margin_min)) {
          worst = &r;
          worst_fault = label;
        }
        ok = false;
      }
      if (ok) {
        s.lo = x;
      } else {
        s.hi = x;
        s.cell.binding = whyUnacceptable(*worst, excuseFor(spec, !worst_fault.empty()));
        s.cell.binding_fault = worst_fault;
      }
      if (!ok && x == e.from) s.done = true;  // nothing in the search range is acceptable
      if (ok && x == e.to) s.done = true;     // the whole range is
    }
  }
  for (Search& s : searches) {
    EnvelopeCell cell = s.cell;
    cell.row = rows[s.row].label;
    cell.n_plus_1 = s.n_plus_1;
    if (!s.lo) {
      cell.answer = EnvelopeCell::Answer::BelowSearch;
      cell.first_failing = e.from;
    } else if (!s.hi) {
      cell.answer = EnvelopeCell::Answer::AtLeastTop;
      cell.value = *s.lo;
      cell.binding.clear();
      cell.binding_fault.clear();
    } else {
      cell.answer = EnvelopeCell::Answer::Found;
      cell.value = *s.lo;
      cell.first_failing = *s.hi;
    }
    out.cells.push_back(cell);
  }
  return out;
}

std::string envelopeText(const SweepSpec& spec, const Envelope& envelope) {
  const scenarios::SweepEnvelope& e = spec.envelope;
  std::string out = "Envelope of " + e.key + " over [" + valueText(e, e.from) + ", "
                    + valueText(e, e.to) + "], resolution " + valueText(e, e.resolution)
                    + ": every design limit met and no GPU throttled.\n";
  out += "N: no fault. N+1: through every single fault (";
  for (std::size_t k = 0; k < spec.faults.n_minus_1.size(); ++k)
    out += (k ? ", " : "") + spec.faults.n_minus_1[k];
  out += spec.faults.n_minus_1.empty() ? "none)" : ")";
  if (e.warm_up > 0.0) {
    char text[160];
    std::snprintf(text, sizeof text, "; limits excused in the first %g s (warm-up)", e.warm_up);
    out += text;
  }
  if (spec.faults.settle > 0.0) {
    char text[160];
    std::snprintf(text, sizeof text,
                  ", limits excused for %g s after the fault (the GPUs' slowdown never)",
                  spec.faults.settle);
    out += text;
  }
  out += "\n\n";
  for (const EnvelopeCell& c : envelope.cells) {
    std::string line =
        (c.row.empty() ? std::string("all") : c.row) + (c.n_plus_1 ? " N+1: " : " N:   ");
    switch (c.answer) {
      case EnvelopeCell::Answer::Found:
        line += valueText(e, c.value) + "  (at " + valueText(e, c.first_failing) + ": " + c.binding
                + (c.binding_fault.empty() ? "" : " under " + c.binding_fault) + ")";
        break;
      case EnvelopeCell::Answer::BelowSearch:
        line += "none from " + valueText(e, e.from) + "  (" + c.binding
                + (c.binding_fault.empty() ? "" : " under " + c.binding_fault) + ")";
        break;
      case EnvelopeCell::Answer::AtLeastTop:
        line += "at least " + valueText(e, c.value) + "  (the top of the search)";
        break;
    }
    out += "  " + line + "\n";
  }
  return out;
}

core::ResultTable envelopeTable(const SweepSpec& spec, const Envelope& envelope) {
  core::ResultTable t;
  t.group = "envelope";
  auto& row = t.strings("row", "The row parameter's value (label)");
  auto& column = t.strings("column", "N (no fault) or N+1 (every single fault)");
  auto& answer = t.strings("answer", "found, below_search (none acceptable) or at_least_top");
  auto& value = t.numbers("value", spec.envelope.unit.empty() ? "1" : spec.envelope.unit,
                          "The largest acceptable value of " + spec.envelope.key);
  auto& failing = t.numbers("first_failing", spec.envelope.unit.empty() ? "1" : spec.envelope.unit,
                            "The smallest unacceptable value found");
  auto& binding = t.strings("binding_limit", "What was exceeded at first_failing");
  auto& fault = t.strings("binding_fault", "The fault under which it was (N+1)");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const EnvelopeCell& c : envelope.cells) {
    row.strings.push_back(c.row);
    column.strings.push_back(c.n_plus_1 ? "N+1" : "N");
    answer.strings.push_back(c.answer == EnvelopeCell::Answer::Found         ? "found"
                             : c.answer == EnvelopeCell::Answer::BelowSearch ? "below_search"
                                                                             : "at_least_top");
    value.numbers.push_back(c.answer == EnvelopeCell::Answer::BelowSearch ? nan : c.value);
    failing.numbers.push_back(c.answer == EnvelopeCell::Answer::AtLeastTop ? nan : c.first_failing);
    binding.strings.push_back(c.binding);
    fault.strings.push_back(c.binding_fault);
  }
  return t;
}

}  // namespace racktwin::study
