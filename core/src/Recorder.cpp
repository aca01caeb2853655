#include "racktwin/core/Recorder.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/StateArchive.hpp"
#include "racktwin/core/ThreadPool.hpp"

namespace racktwin::core {

const char* aggregationName(Aggregation aggregation) noexcept {
  switch (aggregation) {
    case Aggregation::Mean:
    case Aggregation::SubstepMean:
      return "mean";
    case Aggregation::Sample:
    case Aggregation::SampleAndMax:
      return "sample";
    case Aggregation::Max:
      return "max";
    case Aggregation::Undeclared:
      break;
  }
  return "undeclared";
}

void Recorder::add(ChannelInfo channel, const double* data) {
  RACKTWIN_ASSERT(!open_, "channels must be declared before the recorder opens");
  RACKTWIN_ASSERT(data != nullptr, "a channel needs data");
  channels_.push_back(std::move(channel));
  sources_.push_back(data);
}

std::vector<ChannelInfo> Recorder::recordedChannels(double step, double record_interval) const {
  RACKTWIN_ASSERT(!open_, "Recorder::recordedChannels after open(): channels() has them");
  // Every channel says how it is aggregated: none is silently sampled.
  std::set<std::pair<std::string, std::string>> names;
  for (const ChannelInfo& channel : channels_) {
    RACKTWIN_ASSERT(channel.aggregation != Aggregation::Undeclared,
                    "every recorder channel must declare its aggregation (Mean, SubstepMean, "
                    "Sample or SampleAndMax)");
    RACKTWIN_ASSERT(channel.aggregation != Aggregation::Max,
                    "Aggregation::Max is the recorder's own sibling channel, not declarable");
    names.emplace(channel.group, channel.name);
  }
  std::vector<ChannelInfo> recorded = channels_;
  // A record of one macro step has its sample as its maximum (maxima are over the macro steps'
  // values): the sibling would be a second copy of the same numbers, so it is left out.
  const bool one_step_records = step > 0.0 && record_interval <= step * (1.0 + 1e-9);
  for (std::size_t c = 0; c < channels_.size() && !one_step_records; ++c) {
    if (channels_[c].aggregation != Aggregation::SampleAndMax) continue;
    ChannelInfo max = channels_[c];
    max.name += "_max";
    RACKTWIN_ASSERT(names.emplace(max.group, max.name).second,
                    "a recorder channel is named like another channel's \"_max\" sibling");
    max.description = "Maximum over the record interval of: " + max.description;
    max.aggregation = Aggregation::Max;
    recorded.push_back(std::move(max));
  }
  return recorded;
}

void Recorder::open(const RunMetadata& metadata) {
  RACKTWIN_ASSERT(!open_, "Recorder::open called twice");
  const std::size_t declared = channels_.size();
  channels_ = recordedChannels(metadata.step, metadata.record_interval);
  // A sibling reads the values of the channel it is the maximum of.
  for (std::size_t c = 0; c < declared && channels_.size() > declared; ++c) {
    if (channels_[c].aggregation == Aggregation::SampleAndMax) sources_.push_back(sources_[c]);
  }

  mean_spans_.clear();
  substep_spans_.clear();
  sample_spans_.clear();
  max_spans_.clear();
  std::size_t width = 0;
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    const Span span{sources_[c], width, channels_[c].width()};
    switch (channels_[c].aggregation) {
      case Aggregation::Mean:
        mean_spans_.push_back(span);
        break;
      case Aggregation::SubstepMean:
        substep_spans_.push_back(span);
        break;
      case Aggregation::Sample:
      case Aggregation::SampleAndMax:
        sample_spans_.push_back(span);
        break;
      case Aggregation::Max:
        max_spans_.push_back(span);
        break;
      case Aggregation::Undeclared:
        break;
    }
    width += span.count;
  }
  mean_pieces_ = cut(mean_spans_);
  substep_pieces_ = cut(substep_spans_);
  max_pieces_ = cut(max_spans_);
  row_.assign(width, 0.0);
  sum_.assign(width, 0.0);
  for (RecorderSink* sink : sinks_) {
    sink->useThreads(pool_);
    sink->open(metadata, channels_);
  }
  open_ = true;
  next_ = 0.0;
  samples_ = 0;
  mean_time_ = substep_time_ = substep_step_ = 0.0;
  max_fresh_ = true;
  started_ = false;
  last_t_ = 0.0;
}

void Recorder::flush() {
  for (RecorderSink* sink : sinks_)
    sink->flush();
}

void Recorder::visitState(StateArchive& a) {
  RACKTWIN_ASSERT(open_, "Recorder::visitState before open()");
  a.section("recorder");
  a(next_, samples_, row_, sum_, mean_time_, substep_time_, substep_step_, max_fresh_, last_t_,
    started_);
}

std::vector<Recorder::Span> Recorder::cut(const std::vector<Span>& spans) {
  std::size_t width = 0;
  for (const Span& span : spans)
    width += span.count;
  std::vector<Span> pieces;
  if (width < kThreadedWidth) return pieces;
  for (const Span& span : spans) {
    for (std::size_t begin = 0; begin < span.count; begin += kPieceWidth) {
      pieces.push_back(
          {span.source + begin, span.offset + begin, std::min(kPieceWidth, span.count - begin)});
    }
  }
  return pieces;
}

void Recorder::integrate(const std::vector<Span>& spans, const std::vector<Span>& pieces,
                         double dt) {
  double* sum = sum_.data();
  const auto add = [sum, dt](const Span& span) {
    const double* source = span.source;
    double* out = sum + span.offset;
    for (std::size_t i = 0; i < span.count; ++i)
      out[i] += dt * source[i];
  };
  // A wide row (per-GPU channels of a large site) in pieces on the run's threads.
  if (pool_ != nullptr && !pieces.empty()) {
    forEachTask(pool_, pieces.size(), [&](std::size_t k) { add(pieces[k]); });
    return;
  }
  for (const Span& span : spans)
    add(span);
}

void Recorder::accumulateSubstep(double dt) {
  if (!open_ || !started_ || !(dt > 0.0)) return;
  integrate(substep_spans_, substep_pieces_, dt);
  substep_time_ += dt;
  substep_step_ += dt;
}

void Recorder::sample(double t) {
  if (!open_) return;
  if (!started_) {
    // The initial state: an instant, recorded as it is.
    started_ = true;
    last_t_ = t;
    record(t);
    return;
  }
  const double dt = t - last_t_;
  last_t_ = t;
  if (dt > 0.0) {
    integrate(mean_spans_, mean_pieces_, dt);
    mean_time_ += dt;
    if (!(substep_step_ > 0.0)) {
      // No sub-step was reported: what the sources hold now stands for the whole step.
      integrate(substep_spans_, substep_pieces_, dt);
      substep_time_ += dt;
    }
    double* row = row_.data();
    const bool fresh = max_fresh_;
    const auto takeMax = [row, fresh](const Span& span) {
      double* out = row + span.offset;
      if (fresh) {
        std::copy_n(span.source, span.count, out);
      } else {
        for (std::size_t i = 0; i < span.count; ++i)
          out[i] = std::max(out[i], span.source[i]);
      }
    };
    // A wide row of maxima (per-GPU peaks of a large site) in pieces on the run's threads.
    if (pool_ != nullptr && !max_pieces_.empty()) {
      forEachTask(pool_, max_pieces_.size(), [&](std::size_t k) { takeMax(max_pieces_[k]); });
    } else {
      for (const Span& span : max_spans_)
        takeMax(span);
    }
    max_fresh_ = false;
  }
  substep_step_ = 0.0;
  if (t + 1e-9 * interval_ >= next_) record(t);
}

void Recorder::record(double t) {
  double* row = row_.data();
  double* sum = sum_.data();
  const auto finishMeans = [&](const std::vector<Span>& spans, double time) {
    for (const Span& span : spans) {
      double* out = row + span.offset;
      double* acc = sum + span.offset;
      if (time > 0.0) {
        const double inverse = 1.0 / time;
        for (std::size_t i = 0; i < span.count; ++i) {
          out[i] = acc[i] * inverse;
          acc[i] = 0.0;
        }
      } else {
        std::copy_n(span.source, span.count, out);  // an instant (the initial state)
      }
    }
  };
  finishMeans(mean_spans_, mean_time_);
  finishMeans(substep_spans_, substep_time_);
  for (const Span& span : sample_spans_)
    std::copy_n(span.source, span.count, row + span.offset);
  if (max_fresh_) {
    for (const Span& span : max_spans_)
      std::copy_n(span.source, span.count, row + span.offset);
  }
  for (RecorderSink* sink : sinks_)
    sink->append(t, row_);
  ++samples_;
  next_ = static_cast<double>(samples_) * interval_;
  mean_time_ = substep_time_ = 0.0;
  max_fresh_ = true;
}

void Recorder::recordPending() {
  // A duration that is not a multiple of the interval leaves a shorter last interval.
  if (open_ && started_ && (mean_time_ > 0.0 || substep_time_ > 0.0)) record(last_t_);
}

void Recorder::addTable(const ResultTable& table) {
  for (RecorderSink* sink : sinks_)
    sink->addTable(table);
}

void Recorder::close(bool complete, std::string_view summary_json) {
  if (!open_) return;
  if (complete) recordPending();
  for (RecorderSink* sink : sinks_)
    sink->close(complete, summary_json);
  open_ = false;
}

}  // namespace racktwin::core
