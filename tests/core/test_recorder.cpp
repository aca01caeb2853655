// Recorder aggregation over the record interval, driven by the engine with probe models whose
// values are known functions of time, so every expected record is computed here by hand.
#include <array>
#include <catch2/catch.hpp>
#include <span>
#include <string>
#include <vector>

#include "racktwin/core/Engine.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/ThreadPool.hpp"

using namespace racktwin::core;

namespace {

/// A fast model whose value over each sub-step is the sub-step's start time (its mean over the
/// sub-step, as a fast model publishes).
struct FastRamp : Model {
  std::string_view name() const override { return "fast"; }
  void initialize(SiteState&) override { value = -1.0; }
  void advance(double t, double, SiteState&) override { value = t; }
  double value = 0.0;
};

/// A slow model holding, after each macro step, a rate (the step's end time) and a temperature
/// from a fixed sequence, one per step.
struct SlowSteps : Model {
  std::string_view name() const override { return "slow"; }
  void initialize(SiteState&) override {
    rate = 0.0;
    T = 300.0;
    steps = 0;
  }
  void advance(double t, double dt, SiteState&) override {
    rate = t + dt;
    T = kT[steps % kT.size()];
    count = static_cast<double>(++steps);
  }
  static constexpr std::array<double, 5> kT = {305.0, 309.0, 301.0, 304.0, 302.0};
  double rate = 0.0, T = 0.0, count = 0.0;
  std::size_t steps = 0;
};

struct MemorySink : RecorderSink {
  void open(const RunMetadata&, const std::vector<ChannelInfo>& channels_) override {
    channels = channels_;
    width = 0;
    for (const auto& c : channels)
      width += c.width();
  }
  void append(double t, std::span<const double> row) override {
    times.push_back(t);
    rows.push_back({row.begin(), row.end()});
  }
  void close(bool complete_, std::string_view) override { complete = complete_; }
  std::vector<ChannelInfo> channels;
  std::size_t width = 0;
  std::vector<double> times;
  std::vector<std::vector<double>> rows;
  bool complete = false;
};

}  // namespace

TEST_CASE("Records hold interval means of sub-step and macro-step rates, samples and maxima",
          "[core][recorder]") {
  // 0.5 s steps of 4 sub-steps (0.125 s), records every 1 s, 2.5 s: records at 0, 1, 2 and a
  // last one at the end (2.5 s) for the half interval left.
  SimulationSpec sim{2.5, 0.5, 4, 1.0, 0};
  SiteState state;
  Engine engine(sim, state);
  FastRamp fast;
  SlowSteps slow;
  engine.addFastModel(fast);
  engine.addSlowModel(slow);
  Recorder recorder(sim.record_interval);
  recorder.add({"f", "P", "W", "sub-step rate", {}, Aggregation::SubstepMean}, &fast.value);
  recorder.add({"s", "Q_flow", "W", "macro-step rate", {}, Aggregation::Mean}, &slow.rate);
  recorder.add({"s", "T", "K", "temperature", {}, Aggregation::SampleAndMax}, &slow.T);
  recorder.add({"s", "steps", "1", "a counter", {}, Aggregation::Sample}, &slow.count);
  MemorySink sink;
  recorder.addSink(sink);
  recorder.open({});
  engine.setRecorder(&recorder);
  engine.initialize();
  while (engine.step()) {
  }
  recorder.close(true, "");

  // The sink sees the declared channels, then the "_max" sibling of the temperature.
  REQUIRE(sink.channels.size() == 5);
  CHECK(sink.channels[4].group == "s");
  CHECK(sink.channels[4].name == "T_max");
  CHECK(sink.channels[4].unit == "K");
  CHECK(sink.channels[4].aggregation == Aggregation::Max);
  CHECK(recorder.channels().size() == 5);
  REQUIRE(sink.width == 5);

  REQUIRE(sink.times == std::vector<double>{0.0, 1.0, 2.0, 2.5});
  const auto& r = sink.rows;
  // t = 0: the initial state of every channel.
  CHECK(r[0] == std::vector<double>{-1.0, 0.0, 300.0, 0.0, 300.0});
  // Sub-step rate over (t0, t1]: the mean of the sub-step start times t0, t0 + 0.125, ...
  const auto meanStarts = [](double t0, double t1) {
    double sum = 0.0;
    int n = 0;
    for (double t = t0; t < t1 - 1e-12; t += 0.125, ++n)
      sum += t;
    return sum / n;
  };
  CHECK(r[1][0] == Approx(meanStarts(0.0, 1.0)).epsilon(1e-14));  // 0.4375
  CHECK(r[2][0] == Approx(meanStarts(1.0, 2.0)).epsilon(1e-14));
  CHECK(r[3][0] == Approx(meanStarts(2.0, 2.5)).epsilon(1e-14));
  // Macro-step rate (the step's end time) over (t0, t1]: steps ending at 0.5 and 1.0, ...
  CHECK(r[1][1] == Approx(0.75).epsilon(1e-14));
  CHECK(r[2][1] == Approx(1.75).epsilon(1e-14));
  CHECK(r[3][1] == Approx(2.5).epsilon(1e-14));
  // Temperature: the value after the record's last step; its max over the interval's steps.
  CHECK(r[1][2] == 309.0);
  CHECK(r[1][4] == 309.0);
  CHECK(r[2][2] == 304.0);
  CHECK(r[2][4] == 304.0);  // steps 3 and 4: 301, 304
  CHECK(r[3][2] == 302.0);
  CHECK(r[3][4] == 302.0);
  CHECK(r[1][3] == 2.0);  // the counter at the record time
  CHECK(r[3][3] == 5.0);
  CHECK(sink.complete);
}

TEST_CASE("A maximum covers only its own interval, an aborted run gets no partial record",
          "[core][recorder]") {
  double T = 0.0, P = 0.0;
  Recorder recorder(2.0);
  recorder.add({"g", "T", "K", "temperature", {"a"}, Aggregation::SampleAndMax}, &T);
  recorder.add({"g", "P", "W", "rate", {"a"}, Aggregation::SubstepMean}, &P);
  MemorySink sink;
  recorder.addSink(sink);
  recorder.open({});
  // A driver that reports no sub-steps: each step's value stands for the whole step.
  const std::vector<double> Ts = {10.0, 50.0, 20.0, 30.0, 25.0, 99.0, 1.0};
  const std::vector<double> Ps = {0.0, 4.0, 8.0, 1.0, 3.0, 100.0, 7.0};
  const std::vector<double> ts = {0.0, 0.5, 2.0, 3.0, 4.0, 5.0, 5.5};
  for (std::size_t k = 0; k < ts.size(); ++k) {
    T = Ts[k];
    P = Ps[k];
    recorder.sample(ts[k]);
  }
  recorder.close(false, "");
  REQUIRE(sink.times == std::vector<double>{0.0, 2.0, 4.0});
  CHECK(sink.rows[1][2] == 50.0);  // max over (0, 2]: 50, 20
  CHECK(sink.rows[2][2] == 30.0);  // max over (2, 4]: 30, 25 (not the earlier 50)
  CHECK(sink.rows[1][0] == 20.0);
  // Steps of different lengths are weighted by their length: (4 * 0.5 + 8 * 1.5) / 2.
  CHECK(sink.rows[1][1] == Approx(7.0).epsilon(1e-15));
  CHECK(sink.rows[2][1] == Approx(2.0).epsilon(1e-15));
  CHECK_FALSE(sink.complete);
}

// A site's per-GPU channels make rows of some 10^5 values, integrated every sub-step: on the
// run's threads in pieces (Recorder::useThreads), and the per-GPU peaks are maxima taken every
// step. Element by element, so the records are the same bits as on one thread, each column's
// record is its sub-step mean or its interval's maximum.
TEST_CASE("A wide row integrated on threads gives the records of one thread", "[core][recorder]") {
  // Not multiples of the piece width.
  const std::size_t n_substep = 100003, n_mean = 70001, n_max = 80001;
  std::vector<std::string> ids_a(n_substep, "x"), ids_b(n_mean, "y"), ids_c(n_max, "z");
  std::vector<double> P(n_substep), Q(n_mean), M(n_max);
  ThreadPool pool(3);
  std::vector<std::vector<std::vector<double>>> rows(2);
  for (int threaded = 0; threaded < 2; ++threaded) {
    Recorder recorder(1.0);
    recorder.add({"gpu", "P", "W", "rate", ids_a, Aggregation::SubstepMean}, P.data());
    recorder.add({"gpu", "Q", "W", "rate", ids_b, Aggregation::Mean}, Q.data());
    // A sample and its maximum since the last record (a sibling channel after the declared ones).
    recorder.add({"gpu", "M", "K", "peak", ids_c, Aggregation::SampleAndMax}, M.data());
    if (threaded == 1) recorder.useThreads(&pool);
    MemorySink sink;
    recorder.addSink(sink);
    recorder.open({});
    const auto set = [&](double t) {
      for (std::size_t j = 0; j < n_substep; ++j)
        P[j] = 1e-3 * static_cast<double>(j) + 0.37 * t;
      for (std::size_t j = 0; j < n_mean; ++j)
        Q[j] = 2e-3 * static_cast<double>(j) - 0.11 * t;
      // Rising in every third column, falling in the others: the maximum is the interval's last
      // sample in the first and its first in the others.
      for (std::size_t j = 0; j < n_max; ++j)
        M[j] = 1e-3 * static_cast<double>(j) + (j % 3 == 0 ? t : -t);
    };
    set(0.0);
    recorder.sample(0.0);
    // Steps of 0.5 s in 5 sub-steps of 0.1 s: records at 1 s and 2 s.
    for (int step = 0; step < 4; ++step) {
      for (int k = 0; k < 5; ++k) {
        set(0.5 * step + 0.1 * k);
        recorder.accumulateSubstep(0.1);
      }
      set(0.5 * (step + 1));
      recorder.sample(0.5 * (step + 1));
    }
    recorder.close(true, "");
    REQUIRE(sink.rows.size() == 3);
    rows[static_cast<std::size_t>(threaded)] = sink.rows;
  }
  for (std::size_t r = 0; r < 3; ++r)
    CHECK(rows[0][r] == rows[1][r]);  // bit for bit
  // The first interval's mean of P at column j: 1e-3 j + 0.37 x (mean of the ten sub-step starts
  // 0, 0.1, ..., 0.9 s = 0.45 s); of Q (held over each 0.5 s step, its end value): 2e-3 j - 0.11
  // x 0.75 s.
  for (const std::size_t j : {std::size_t{0}, std::size_t{16384}, n_substep - 1})
    CHECK(rows[1][1][j] == Approx(1e-3 * static_cast<double>(j) + 0.37 * 0.45).epsilon(1e-12));
  for (const std::size_t j : {std::size_t{1}, n_mean - 1}) {
    CHECK(rows[1][1][n_substep + j]
          == Approx(2e-3 * static_cast<double>(j) - 0.11 * 0.75).epsilon(1e-12));
  }
  // M sampled at 0.5 and 1 s in the first interval, 1.5 and 2 s in the second; its maxima follow
  // its samples.
  const std::size_t m0 = n_substep + n_mean + n_max;
  for (const std::size_t j : {std::size_t{0}, std::size_t{16385}, n_max - 2, n_max - 1}) {
    const double base = 1e-3 * static_cast<double>(j);
    CHECK(rows[1][1][m0 + j] == Approx(j % 3 == 0 ? base + 1.0 : base - 0.5).epsilon(1e-15));
    CHECK(rows[1][2][m0 + j] == Approx(j % 3 == 0 ? base + 2.0 : base - 1.5).epsilon(1e-15));
  }
}
