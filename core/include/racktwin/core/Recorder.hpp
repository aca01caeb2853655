#pragma once
// Recorder channels: named, unit-carrying views of model state, recorded at a chosen interval and
// handed to sinks (the HDF5 file, VTK series and the GUI). A channel is a group (component class,
// e.g. "gpu"), a name ("T_junction"), a unit, a description, its entities and how it is
// aggregated over a record interval; it reads `width()` doubles from a pointer that stays valid
// for the whole run.
//
// Records are honest about time: a record at t_k of a Mean channel holds the time-weighted mean
// over (t_(k-1), t_k], so means and energies from the file agree with the run's totals (an
// instantaneous sample of a 4 s training iteration every 10 s would alias). Temperatures keep
// the instantaneous value at t_k and add a sibling channel "<name>_max", the maximum of the
// macro steps' values over (t_(k-1), t_k]. States, flags, counts and cumulative counters are the
// instantaneous value at t_k. The record at t = 0 is the initial state (every kind). A run that
// ends between two record times gets a last record at its end time.
//
// Every step adds into preallocated rows (one multiply-add per value, no allocation, no lookup).
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace racktwin::core {

class StateArchive;
class ThreadPool;
struct ResultTable;

/// How a channel's values over a record interval become one record. Every declaration chooses:
/// Undeclared is rejected when the recorder opens.
enum class Aggregation {
  Undeclared,
  /// Time-weighted mean over the interval of what the source holds after each macro step, which
  /// must be the macro step's own mean (slow models' step values, the electrical model's
  /// macro-step means). Rates: power, heat flow, flow, utilisation, speed.
  Mean,
  /// Time-weighted mean over the interval of what the source holds after each sub-step of the
  /// fast models, which must be that sub-step's mean (Recorder::accumulateSubstep). Rates of the
  /// fast models (GPU power, rack power), which change inside a macro step.
  SubstepMean,
  /// The value at the record time: states, positions, flags, counts, cumulative counters.
  Sample,
  /// The value at the record time plus the sibling channel "<name>_max" (temperatures).
  SampleAndMax,
  /// The maximum over the interval of a SampleAndMax channel's macro-step values; the recorder
  /// adds these siblings itself when it opens (not declarable).
  Max,
};

/// "mean", "sample" or "max" (the HDF5 attribute `aggregation`); "undeclared" for Undeclared.
const char* aggregationName(Aggregation aggregation) noexcept;

struct ChannelInfo {
  std::string group;        // "gpu", "rack", "cdu", "site", ...
  std::string name;         // "T_junction"
  std::string unit;         // "K", "W", "m3/s", "1"
  std::string description;  // one sentence
  /// Entity ids of the columns; empty for a scalar channel (one value per sample, stored 1-D).
  std::vector<std::string> entity_ids;
  Aggregation aggregation = Aggregation::Undeclared;
  /// Channels a DetailSink computes over groups of entities (OutputDetail.hpp): "mean", "max" or
  /// "argmax" over the entities of each column, and the channel they are computed from
  /// ("/gpu/T_junction"). Empty for a recorded channel.
  std::string statistic = {};
  std::string source = {};

  std::size_t width() const noexcept { return entity_ids.empty() ? 1 : entity_ids.size(); }
};

struct RunMetadata {
  std::string program_version;
  std::string site_name;
  std::string scenario_path;
  std::string scenario_text;
  unsigned long long seed = 0;
  double step = 0.0;  // s
  int substeps = 1;
  double record_interval = 0.0;             // s
  double duration = 0.0;                    // s
  std::vector<std::string> input_warnings;  // the scenario's plausibility warnings, one a line
  /// Every entity of a group whose columns a DetailSink reduced ("gpu" -> all GPU ids in site
  /// order): the argmax and hottest-entity channels hold indices into these lists. Set by the
  /// DetailSink for the sinks after it.
  std::vector<std::pair<std::string, std::vector<std::string>>> entity_lists = {};
};

class RecorderSink {
 public:
  virtual ~RecorderSink() = default;
  virtual void open(const RunMetadata& metadata, const std::vector<ChannelInfo>& channels) = 0;
  /// `channels` are the declared ones in declaration order followed by the "<name>_max"
  /// siblings (Aggregation::Max) of the SampleAndMax channels in their order.
  /// One record: `row` holds every channel's values, channels in the order given to open().
  virtual void append(double time, std::span<const double> row) = 0;
  /// Ends the file; `complete` is false when the run stopped early. summary_json may be empty.
  virtual void close(bool complete, std::string_view summary_json) = 0;
  /// Makes every row appended so far durable (a checkpoint follows). Default: nothing to do.
  virtual void flush() {}
  /// The run's threads (null: one), given before open(), for a sink whose records take work
  /// (reductions of a large site's rows); a sink that passes records on passes them on too.
  /// Default: not used.
  virtual void useThreads(ThreadPool* /*pool*/) {}
  /// A table to store beside the records (design limits, headroom); called before close().
  /// Default: not kept. A sink that passes records on to another must pass tables on too.
  virtual void addTable(const ResultTable& /*table*/) {}
};

class Recorder {
 public:
  explicit Recorder(double interval) : interval_(interval) {}

  /// Declares a channel reading `channel.width()` doubles from `data`. Its aggregation must be
  /// declared (asserted at open()).
  void add(ChannelInfo channel, const double* data);
  void addSink(RecorderSink& sink) { sinks_.push_back(&sink); }
  /// Threads for the integration of wide rows (a site's per-GPU channels, every sub-step);
  /// null: on the caller. The sums are element by element, so the threads change no bit.
  void useThreads(ThreadPool* pool) noexcept { pool_ = pool; }

  /// Adds the "<name>_max" siblings and opens the sinks.
  void open(const RunMetadata& metadata);
  /// The channels open() hands the sinks for a run of this macro step and record interval: the
  /// declared ones followed by the "_max" siblings (none when a record is one macro step).
  std::vector<ChannelInfo> recordedChannels(double step, double record_interval) const;
  /// After each sub-step of the fast models, of length dt: integrates the SubstepMean channels.
  /// A driver that never calls it gets those channels integrated over each step in sample().
  void accumulateSubstep(double dt);
  /// Once at the start (the initial state is the first record) and after each macro step at the
  /// time t it reached: integrates the Mean channels over the step since the previous call (its
  /// length, so steps may vary), updates the maxima, and records when t has reached the next
  /// record time.
  void sample(double t);
  /// Records the interval begun since the last record (a run that ended between two record
  /// times), so the sinks hold every record before the summary is made; close() does it too.
  void recordPending();
  /// Hands a table to every sink (before close()).
  void addTable(const ResultTable& table);
  /// Records the interval begun since the last record first when `complete`, then closes the
  /// sinks.
  void close(bool complete, std::string_view summary_json);
  /// Makes the records taken so far durable in every sink (before a checkpoint is written).
  void flush();

  /// The declared channels; after open() followed by the "_max" siblings.
  const std::vector<ChannelInfo>& channels() const noexcept { return channels_; }
  std::size_t samplesTaken() const noexcept { return samples_; }
  /// Saves or restores the accumulators and the record clock (StateArchive.hpp), after open():
  /// a resumed run's sinks already hold the records taken.
  void visitState(StateArchive& archive);

 private:
  /// `count` contiguous values read from `source` into row/accumulator offset `offset`.
  struct Span {
    const double* source;
    std::size_t offset;
    std::size_t count;
  };
  /// sum += dt x source over the spans; on the threads, as `pieces` (cut() of the same spans),
  /// when there are both.
  void integrate(const std::vector<Span>& spans, const std::vector<Span>& pieces, double dt);
  /// The spans cut into pieces of at most kPieceWidth values: the tasks of a threaded
  /// integration or maxima (empty when the row is too narrow for threads to pay).
  static std::vector<Span> cut(const std::vector<Span>& spans);
  static constexpr std::size_t kPieceWidth = 16384;
  static constexpr std::size_t kThreadedWidth = 65536;  // narrower: integrated on the caller
  void record(double t);

  double interval_;
  double next_ = 0.0;
  std::size_t samples_ = 0;
  std::vector<ChannelInfo> channels_;
  std::vector<const double*> sources_;
  std::vector<double> row_;
  std::vector<double> sum_;  // time-weighted sums of the mean channels, row layout
  std::vector<Span> mean_spans_, substep_spans_, sample_spans_, max_spans_;
  // cut(): the tasks of the threaded integration and maxima
  std::vector<Span> mean_pieces_, substep_pieces_, max_pieces_;
  ThreadPool* pool_ = nullptr;
  double mean_time_ = 0.0;     // s, macro-step time integrated into sum_ since the last record
  double substep_time_ = 0.0;  // s, sub-step time integrated since the last record
  double substep_step_ = 0.0;  // s, sub-step time integrated since the last sample() call
  bool max_fresh_ = true;      // the next macro step starts new maxima
  double last_t_ = 0.0;        // s, time of the last sample() call
  bool started_ = false;       // sample() has recorded the initial state
  std::vector<RecorderSink*> sinks_;
  bool open_ = false;
};

}  // namespace racktwin::core
