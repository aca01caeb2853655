#pragma once
// The design-limit monitor: a recorder sink that checks every limit of DesignLimits.hpp at every
// record and keeps, per limit, the worst margin, when it happened, the first violation and how
// long the limits were exceeded; per headroom group (CDU, row, feeder, site) the worst of its
// limits. It resolves the channels and columns it reads once, when the recorder opens; a record
// costs a pass over those columns, no lookup and no allocation.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "racktwin/core/DesignLimits.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/ResultTable.hpp"

namespace racktwin::core {

class StateArchive;
class Summary;

/// What one limit did over the run.
struct LimitOutcome {
  bool checked = false;           // every channel it needs is recorded
  bool evaluated = false;         // at least one record gave it a value
  double worst_value = 0.0;       // value at the worst record
  double worst_margin = 0.0;      // rating - value (at most) or value - rating (at least)
  double worst_time = 0.0;        // s
  double first_violation = -1.0;  // s; < 0: never violated
  double last_violation = -1.0;   // s, the last record exceeding the rating
  double violated_time = 0.0;     // s, total length of the record intervals it was exceeded
  bool violated() const noexcept { return first_violation >= 0.0; }
};

/// The worst of a headroom group's limits.
struct HeadroomRow {
  std::string group;
  std::string group_kind;
  double worst_margin_fraction = 0.0;
  double worst_time = 0.0;  // s
  std::size_t binding = 0;  // index of the limit in limits()
  std::size_t violations = 0;
};

class LimitMonitor final : public RecorderSink {
 public:
  explicit LimitMonitor(std::vector<DesignLimit> limits);

  void open(const RunMetadata& metadata, const std::vector<ChannelInfo>& channels) override;
  void append(double time, std::span<const double> row) override;
  void close(bool complete, std::string_view summary_json) override;

  const std::vector<DesignLimit>& limits() const noexcept { return limits_; }
  const std::vector<LimitOutcome>& outcomes() const noexcept { return outcomes_; }
  std::size_t violatedCount() const noexcept;
  std::size_t checkedCount() const noexcept;
  /// Per group in order of first appearance in limits(); groups with no evaluated limit are left
  /// out.
  std::vector<HeadroomRow> headroom() const;
  /// The smallest margin fraction of any evaluated limit; the index of that limit, or
  /// limits().size() when none was evaluated.
  std::size_t bindingLimit() const noexcept;

  /// One line per exceeded limit, worst first: "row1/cdu1: CDU rated heat 1350 kW exceeded by
  /// 392 kW (1742 kW at t = 610 s; first at t = 300 s, for 900 s)".
  std::vector<std::string> violationLines() const;
  /// Adds design_limits_checked, design_limits_violated and design_margin_min.
  void summarise(Summary& summary) const;
  /// The /limits and /headroom tables of docs/capacity.md.
  ResultTable limitTable() const;
  ResultTable headroomTable() const;

  /// Saves or restores the outcomes and the record clock, after open() (StateArchive.hpp).
  void visitState(StateArchive& archive);

 private:
  struct Column {
    std::size_t offset;  // in the recorder's row
  };
  struct ResolvedInput {
    std::vector<std::size_t> offsets;  // row offsets of the columns it reduces
    LimitInput::Reduce reduce = LimitInput::Reduce::Max;
  };
  struct Resolved {
    std::vector<ResolvedInput> inputs;
  };
  double evaluate(std::size_t limit, std::span<const double> row) const noexcept;

  std::vector<DesignLimit> limits_;
  std::vector<Resolved> resolved_;
  std::vector<LimitOutcome> outcomes_;
  double last_time_ = 0.0;  // s, time of the previous record
  bool started_ = false;
};

/// A value of `unit` for people: kW, degC, L/min, kPa, ... ("1742 kW").
std::string formatLimitValue(double value, const std::string& unit);
/// A difference of `unit` for people (temperatures as K): "392 kW", "1.5 K".
std::string formatLimitDifference(double value, const std::string& unit);

}  // namespace racktwin::core
