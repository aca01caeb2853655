// The engine's clock: sub-stepping, event order and recorder sampling, with probe models.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "racktwin/core/Engine.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/ThreadPool.hpp"

using namespace racktwin::core;

namespace {

struct Probe : Model {
  explicit Probe(std::string name_) : label(std::move(name_)) {}
  std::string_view name() const override { return label; }
  void initialize(SiteState&) override { initialised = true; }
  void advance(double t, double dt, SiteState&) override {
    calls.push_back(t);
    simulated += dt;
  }
  bool applyEvent(const EventSpec& event, SiteState&) override {
    if (event.target != label) return false;
    events.push_back(event.value);
    event_times.push_back(calls.size());
    return true;
  }
  std::string label;
  bool initialised = false;
  std::vector<double> calls;
  double simulated = 0.0;
  std::vector<double> events;
  std::vector<std::size_t> event_times;
};

struct MemorySink : RecorderSink {
  void open(const RunMetadata&, const std::vector<ChannelInfo>& channels) override {
    width = 0;
    for (const auto& c : channels)
      width += c.width();
  }
  void append(double t, std::span<const double> row) override {
    times.push_back(t);
    rows.insert(rows.end(), row.begin(), row.end());
  }
  void close(bool complete_, std::string_view) override { complete = complete_; }
  std::size_t width = 0;
  std::vector<double> times, rows;
  bool complete = false;
};

}  // namespace

TEST_CASE("Fast models sub-step, slow models step once, time does not drift", "[core]") {
  SimulationSpec sim{10.0, 0.1, 4, 0.1, 0};
  SiteState state;
  Engine engine(sim, state);
  Probe fast("fast"), slow("slow");
  engine.addFastModel(fast);
  engine.addSlowModel(slow);
  engine.initialize();
  while (engine.step()) {
  }
  CHECK(fast.initialised);
  CHECK(engine.stepsTaken() == 100);
  CHECK(fast.calls.size() == 400);
  CHECK(slow.calls.size() == 100);
  CHECK(fast.simulated == Approx(10.0).epsilon(1e-12));
  CHECK(slow.simulated == Approx(10.0).epsilon(1e-12));
  CHECK(engine.time() == 10.0);  // computed as steps * step, not accumulated
  CHECK(fast.calls[397] == Approx(9.925).epsilon(1e-12));
}

TEST_CASE("Events apply at the start of their step, in time then file order", "[core]") {
  SimulationSpec sim{5.0, 1.0, 1, 1.0, 0};
  SiteState state;
  Engine engine(sim, state);
  Probe model("m");
  engine.addSlowModel(model);
  EventSpec late{3.0, EventKind::SetPumpSpeed, "m", 2.0, {}};
  EventSpec early{1.0, EventKind::SetPumpSpeed, "m", 1.0, {}};
  EventSpec same_time{3.0, EventKind::SetPumpSpeed, "m", 3.0, {}};
  engine.schedule(late);
  engine.schedule(early);
  engine.schedule(same_time);
  engine.initialize();
  while (engine.step()) {
  }
  CHECK(model.events == std::vector<double>{1.0, 2.0, 3.0});
  // Applied before the step at t = 1 s (one advance done) and t = 3 s (three done).
  CHECK(model.event_times == std::vector<std::size_t>{1, 3, 3});

  EventSpec orphan{0.0, EventKind::PumpTrip, "nobody", 0.0, {}};
  Engine other(sim, state);
  other.addSlowModel(model);
  other.schedule(orphan);
  other.initialize();
  CHECK_THROWS_WITH(other.step(), Catch::Contains("nobody"));
}

TEST_CASE("The recorder samples at its interval from t = 0, one row per sample", "[core]") {
  SimulationSpec sim{10.0, 0.5, 1, 2.0, 0};
  SiteState state;
  Engine engine(sim, state);
  Probe model("m");
  engine.addSlowModel(model);
  Recorder recorder(sim.record_interval);
  const double values[3] = {1.0, 2.0, 3.0};
  recorder.add({"g", "x", "1", "test", {"a", "b", "c"}, Aggregation::Mean}, values);
  recorder.add({"g", "y", "K", "scalar", {}, Aggregation::Sample}, values);
  MemorySink sink;
  recorder.addSink(sink);
  recorder.open({});
  engine.setRecorder(&recorder);
  engine.initialize();
  while (engine.step()) {
  }
  recorder.close(true, "");
  CHECK(sink.width == 4);
  CHECK(sink.times == std::vector<double>{0.0, 2.0, 4.0, 6.0, 8.0, 10.0});
  CHECK(sink.rows.size() == 6 * 4);
  CHECK(sink.rows[4] == 1.0);
  CHECK(sink.rows[7] == 1.0);
  CHECK(sink.complete);
}

namespace {

/// A slow model whose one GPU junction is 300 K, then from `ramp_start` rises at `rate` K/s; it
/// keeps every step it is given and the times at which events reach it.
struct Thermometer : Model {
  std::string_view name() const override { return "thermometer"; }
  void initialize(SiteState& state) override { state.gpu_T_junction.assign(1, 300.0); }
  void advance(double t, double dt, SiteState& state) override {
    steps.emplace_back(t, dt);
    const double end = t + dt;
    state.gpu_T_junction[0] = 300.0 + (end > ramp_start ? rate * (end - ramp_start) : 0.0);
  }
  bool applyEvent(const EventSpec&, SiteState& state) override {
    event_times.push_back(state.time);
    return true;
  }
  double ramp_start = 1000.0, rate = 0.01;
  std::vector<std::pair<double, double>> steps;  // (start, length)
  std::vector<double> event_times;
};

}  // namespace

TEST_CASE("Fast-forward: whole fine steps up to max_step, never across records or events",
          "[core][fast_forward]") {
  SimulationSpec sim{2400.0, 1.0, 1, 600.0, 0};
  sim.fast_forward = {true, 300.0, 0.05, 60.0};
  SiteState state;
  Engine engine(sim, state);
  Thermometer thermometer;
  engine.addSlowModel(thermometer);
  engine.schedule(EventSpec{700.5, EventKind::SetPumpSpeed, "thermometer", 0.5, {}});
  engine.initialize();
  bool more = true;
  while (more) {
    const double planned = engine.nextStepEnd();
    more = engine.step();
    CHECK(engine.time() == planned);
  }
  CHECK(engine.time() == 2400.0);
  // The event reaches the model at the fine-grid time fine steps would apply it.
  REQUIRE(thermometer.event_times.size() == 1);
  CHECK(thermometer.event_times[0] == 701.0);
  double covered = 0.0, longest = 0.0;
  for (const auto& [t, dt] : thermometer.steps) {
    INFO("step at " << t << " s of " << dt << " s");
    CHECK(t == covered);  // contiguous
    covered += dt;
    CHECK(dt == std::round(dt));  // whole fine steps
    CHECK(dt <= 300.0);
    CHECK(std::floor((t + dt) / 600.0 - 1e-12) <= std::floor(t / 600.0));  // no record crossed
    CHECK((t >= 701.0 || t + dt <= 701.0));                                // nor the event
    if (t >= 701.0 && t < 761.0) CHECK(dt == 1.0);                         // settle: fine steps
    // On the ramp (0.01 K/s), once the rule has seen it: a step moves the junction by at most
    // twice the tolerance (0.1 K: 10 s) before it falls back.
    if (t >= 1300.0) CHECK(dt <= 10.0);
    longest = std::max(longest, dt);
  }
  CHECK(covered == 2400.0);
  CHECK(longest == 300.0);  // quiet before the event: the steps grew to max_step
  CHECK(engine.stepsTaken() < 2400 / 4);
}

// The step accumulators start every macro step at zero: each thread zeroes its share of every
// array (lengths that do not divide among the threads), and nothing is left over.
TEST_CASE("The step accumulators are zeroed in shares on threads, every element",
          "[core][engine]") {
  SiteState state;
  const std::size_t lengths[] = {100003, 7, 1, 0, 64, 3};
  std::vector<double>* arrays[] = {&state.gpu_E_step,      &state.gpu_P_step_max,
                                   &state.cpu_E_step,      &state.switch_E_step,
                                   &state.rack_air_E_step, &state.rack_ac_E_step};
  for (const unsigned threads : {1u, 2u, 3u, 5u}) {
    ThreadPool pool(threads);
    for (std::size_t a = 0; a < std::size(arrays); ++a)
      arrays[a]->assign(lengths[a], 1.5);
    state.hall_air_E_step = 2.5;
    state.clearStepAccumulators(threads > 1 ? &pool : nullptr);
    for (std::size_t a = 0; a < std::size(arrays); ++a) {
      INFO(threads << " threads, array " << a);
      CHECK(arrays[a]->size() == lengths[a]);
      CHECK(std::count(arrays[a]->begin(), arrays[a]->end(), 0.0)
            == static_cast<std::ptrdiff_t>(lengths[a]));
    }
    CHECK(state.hall_air_E_step == 0.0);
  }
}

namespace {
/// A model whose every advance lasts at least `hold` of wall time (it waits on the clock).
struct SlowProbe : Probe {
  SlowProbe(std::string name_, std::chrono::microseconds hold_)
      : Probe(std::move(name_)), hold(hold_) {}
  void advance(double t, double dt, SiteState& state) override {
    const auto until = std::chrono::steady_clock::now() + hold;
    while (std::chrono::steady_clock::now() < until) {
    }
    Probe::advance(t, dt, state);
  }
  std::chrono::microseconds hold;
};
}  // namespace

TEST_CASE("Step times are kept by part, only when asked, and within the steps' wall time",
          "[core]") {
  SimulationSpec sim{20.0, 1.0, 4, 1.0, 0};
  SiteState state;
  Engine engine(sim, state);
  Probe slow("slow");
  // Each fast call lasts 500 us or more: far beyond what the slow model's 10 trivial calls take,
  // even if the machine preempts one of them.
  SlowProbe fast("fast", std::chrono::microseconds(500));
  engine.addSlowModel(slow);
  engine.addFastModel(fast);
  Recorder recorder(sim.record_interval);
  const double value = 1.0;
  recorder.add({"g", "x", "1", "test", {}, Aggregation::Mean}, &value);
  MemorySink sink;
  recorder.addSink(sink);
  recorder.open({});
  engine.setRecorder(&recorder);
  engine.initialize();
  const auto names = [&] {
    std::vector<std::string> out;
    for (const Engine::PartTime& part : engine.stepTimes())
      out.push_back(part.name);
    return out;
  };
  // The models in the order they run, then the recorder and the rest of the step.
  CHECK(names() == std::vector<std::string>{"fast", "slow", "recorder", "engine"});
  for (int k = 0; k < 5; ++k)
    engine.step();
  for (const Engine::PartTime& part : engine.stepTimes())
    CHECK(part.seconds == 0.0);  // not asked for: nothing is timed

  engine.timeSteps();
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < 10; ++k)
    engine.step();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double sum = 0.0;
  for (const Engine::PartTime& part : engine.stepTimes()) {
    CHECK(std::isfinite(part.seconds));
    CHECK(part.seconds >= 0.0);
    sum += part.seconds;
  }
  CHECK(sum <= wall);  // the parts of the steps, not more than the steps took
  // 10 steps of 4 sub-steps, each of the fast model's lasting 500 us or more: its own part.
  const std::vector<Engine::PartTime> parts = engine.stepTimes();
  CHECK(parts[0].seconds >= 40 * 500e-6);
  CHECK(parts[1].seconds < parts[0].seconds);
}
