// Workload executor, synchronous training: iteration count and period, the slowest-GPU law,
// phase-weighted demand energy independent of the sub-step, checkpoints, throttle caps.
// Power data of the test rack: gb300_nvl72.md s1 (P_max 1,400 W) and s5 (idle ~200 W, training
// phases: compute 0.9-1.0 x TGP, communication 0.3-0.5 x TGP, checkpoints near idle).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "Gb300TestSite.hpp"
#include "MemorySink.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/WorkloadExecutor.hpp"

using namespace racktwin;

namespace {

constexpr double kPmax = 1400.0;  // W, gb300_nvl72.md s1
constexpr double kPidle = 200.0;  // W, gb300_nvl72.md s5 (estimate used by the test rack)

core::TrainingJobSpec job(const std::string& id, double start, double duration, double Tc,
                          double fc, double Tm, double fm) {
  core::TrainingJobSpec j;
  j.id = id;
  j.start = start;
  j.duration = duration;
  j.racks = {core::ComponentId("row1/rack01")};
  j.compute_duration = Tc;
  j.compute_power_fraction = fc;
  j.communication_duration = Tm;
  j.communication_power_fraction = fm;
  return j;
}

struct Run {
  explicit Run(core::SiteSpec s)
      : site(std::move(s)), layout(core::SiteLayout::build(site)), executor(site, layout) {
    state.resize(layout, 300.0);
  }
  /// Advances n sub-steps of dt from t = 0; integrates each chip's demand (J).
  void run(int n, double dt) {
    gpu_E.assign(layout.gpu_count, 0.0);
    cpu_E.assign(layout.cpu_count, 0.0);
    executor.initialize(state);
    for (int i = 0; i < n; ++i) {
      const double t = i * dt;
      state.time = t;
      executor.advance(t, dt, state);
      for (std::size_t g = 0; g < layout.gpu_count; ++g)
        gpu_E[g] += state.gpu_P_demand[g] * dt;
      for (std::size_t c = 0; c < layout.cpu_count; ++c)
        cpu_E[c] += state.cpu_P_demand[c] * dt;
    }
  }
  core::SiteSpec site;
  core::SiteLayout layout;
  core::SiteState state;
  core::WorkloadExecutor executor;
  std::vector<double> gpu_E, cpu_E;
};

/// Analytic GPU energy of `progress` seconds of training whose phases last Tc s at Pc and Tm s at
/// Pm of wall-clock time.
double trainingEnergy(double progress, double Tc, double Pc, double Tm, double Pm) {
  const double period = Tc + Tm;
  const double whole = std::floor(progress / period);
  const double rest = progress - whole * period;
  return whole * (Tc * Pc + Tm * Pm) + std::min(rest, Tc) * Pc + std::max(0.0, rest - Tc) * Pm;
}

}  // namespace

TEST_CASE("Iteration period at full speed is compute + communication", "[workload]") {
  // 3.3 s + 0.8 s = 4.1 s; 600 s / 4.1 s = 146.3, so 146 iterations complete.
  for (const double dt : {0.1, 1.0, 10.0}) {
    core::SiteSpec site = test::gb300Site(2);
    site.jobs.push_back(job("train", 0.0, 600.0, 3.3, 0.95, 0.8, 0.4));
    Run r(site);
    r.run(static_cast<int>(std::lround(700.0 / dt)), dt);
    INFO("dt = " << dt);
    CHECK(r.executor.jobIterations(0) == static_cast<std::uint64_t>(std::floor(600.0 / 4.1)));
    REQUIRE(r.executor.meanIterationPeriod().has_value());
    CHECK(*r.executor.meanIterationPeriod() == Approx(4.1).epsilon(1e-9));
  }
}

TEST_CASE("The slowest GPU sets the pace of the whole job", "[workload]") {
  core::SiteSpec site = test::gb300Site(2);
  site.jobs.push_back(job("train", 0.0, 600.0, 3.3, 0.95, 0.8, 0.4));
  Run r(site);
  r.state.gpu_speed[17] = 0.5;   // one GPU of the job's rack at half speed
  r.state.gpu_speed[100] = 0.1;  // a GPU of the other rack does not matter
  r.run(6000, 0.1);
  // Half speed doubles the compute phase only (communication is set by the network):
  // 3.3 / 0.5 + 0.8 = 7.4 s, floor(600 / 7.4) = 81 iterations.
  const double period = 3.3 / 0.5 + 0.8;
  CHECK(r.executor.jobIterations(0) == static_cast<std::uint64_t>(std::floor(600.0 / period)));
  CHECK(*r.executor.meanIterationPeriod() == Approx(period).margin(1e-9));
  // Every GPU of the job runs the 6.6 s compute and 0.8 s communication phases, so the energy of
  // 81 iterations plus the 0.6 s of compute of the 82nd is analytic.
  const double Pc = 0.95 * kPmax, Pm = 0.4 * kPmax;
  const double E = trainingEnergy(600.0, 3.3 / 0.5, Pc, 0.8, Pm);
  CHECK(r.gpu_E[0] == Approx(E).epsilon(1e-9));
  CHECK(r.gpu_E[17] == Approx(E).epsilon(1e-9));
}

TEST_CASE("Demand energy is the phase-weighted average, independent of the sub-step",
          "[workload]") {
  // Compute 3.2 s at 0.95 x 1400 W, communication 0.8 s at 0.4 x 1400 W: the mean power over a
  // period is (3.2 * 0.95 + 0.8 * 0.4) / 4 * 1400 W (s5 trace shape).
  const double P_mean = (3.2 * 0.95 + 0.8 * 0.4) / 4.0 * kPmax;
  const double span = 84.0;  // a whole number of 4 s periods and of each dt below
  for (const double dt : {0.1, 0.3, 0.7}) {
    INFO("dt = " << dt);
    core::SiteSpec site = test::gb300Site(2);
    site.jobs.push_back(job("train", 0.0, 1000.0, 3.2, 0.95, 0.8, 0.4));
    Run r(site);
    r.run(static_cast<int>(std::lround(span / dt)), dt);
    CHECK(r.gpu_E[0] == Approx(P_mean * span).epsilon(1e-12));
    CHECK(r.gpu_E[71] == Approx(P_mean * span).epsilon(1e-12));
    CHECK(r.gpu_E[72] == Approx(kPidle * span).epsilon(1e-12));  // rack 2 is idle
    CHECK(r.cpu_E[0] == Approx(300.0 * span).epsilon(1e-12));    // cpu_P_busy of the test rack
    CHECK(r.cpu_E[36] == Approx(100.0 * span).epsilon(1e-12));   // cpu P_idle
  }
  // A job whose start and end fall inside sub-steps: idle before and after, 20 periods inside.
  for (const double dt : {0.1, 0.3, 0.7}) {
    INFO("dt = " << dt);
    core::SiteSpec site = test::gb300Site(1);
    site.jobs.push_back(job("train", 1.05, 80.0, 3.2, 0.95, 0.8, 0.4));
    Run r(site);
    r.run(static_cast<int>(std::lround(span / dt)), dt);
    CHECK(r.gpu_E[3] == Approx(P_mean * 80.0 + kPidle * (span - 80.0)).epsilon(1e-12));
    CHECK(r.cpu_E[3] == Approx(300.0 * 80.0 + 100.0 * (span - 80.0)).epsilon(1e-12));
  }
}

TEST_CASE("Average power: the period mean at every sub-step, the square wave's energy",
          "[workload]") {
  // `power: average` (annual studies with fast-forward): the GPUs draw the iteration's period
  // mean throughout, the checkpoints their own power, and the job progresses as with phases. Over
  // a span the energies differ by at most the part of one period that a span's end cuts off:
  // |Pc - P_mean| Tc.
  const double Tc = 3.2, Tm = 0.8, Pc = 0.95 * kPmax, Pm = 0.4 * kPmax;
  const double P_mean = (Tc * Pc + Tm * Pm) / (Tc + Tm);
  for (const double span : {3600.0, 3598.7}) {
    INFO("span " << span << " s");
    core::SiteSpec site = test::gb300Site(1);
    core::TrainingJobSpec spec = job("train", 0.0, 7200.0, Tc, 0.95, Tm, 0.4);
    spec.checkpoint_interval = 1800.0;  // one checkpoint of 30 s at 1800 s (the next at 3600 s)
    spec.checkpoint_duration = 30.0;
    spec.checkpoint_power_fraction = 0.5;
    site.jobs.push_back(spec);
    core::SiteSpec averaged = site;
    averaged.jobs[0].average_power = true;
    const double dt = 0.1;
    const int n = static_cast<int>(std::lround(span / dt));
    Run phases(site), average(averaged);
    phases.run(n, dt);
    average.run(n, dt);
    const double E_phases = phases.gpu_E[0], E_average = average.gpu_E[0];
    CHECK(std::abs(E_average - E_phases) <= std::abs(Pc - P_mean) * Tc * (1.0 + 1e-9));
    // The analytic energy: 30 s of checkpoint at 0.5 x 1400 W, the rest at the period mean.
    CHECK(E_average == Approx(P_mean * (n * dt - 30.0) + 30.0 * 0.5 * kPmax).epsilon(1e-9));
    CHECK(average.executor.jobIterations(0) == phases.executor.jobIterations(0));
    // Every training sub-step demands the mean: the last sub-step's demand (inside a period).
    CHECK(average.state.gpu_P_demand[0] == Approx(P_mean).epsilon(1e-12));
  }
}

TEST_CASE("A phase below idle power demands idle power", "[workload]") {
  // 0.1 x 1400 W = 140 W < P_idle 200 W: demand is max(P_idle, fraction * P_max).
  core::SiteSpec site = test::gb300Site(1);
  site.jobs.push_back(job("train", 0.0, 100.0, 1.0, 1.0, 1.0, 0.1));
  Run r(site);
  r.run(1400, 0.1);  // 140 s: 50 periods of 2 s, then 40 s idle
  CHECK(r.gpu_E[0] == Approx(50.0 * (1.0 * kPmax + 1.0 * kPidle) + 40.0 * kPidle).epsilon(1e-12));
}

TEST_CASE("A checkpoint pauses training and costs its analytic energy and iterations",
          "[workload]") {
  const double Tc = 3.3, Tm = 0.8;
  const double Pc = 0.95 * kPmax, Pm = 0.4 * kPmax;
  // Checkpoint at 0.1 x 1400 W = 140 W, below idle, so it draws P_idle = 200 W.
  const double P_checkpoint = kPidle;
  for (const double dt : {0.3, 1.0}) {
    INFO("dt = " << dt);
    core::SiteSpec site = test::gb300Site(1);
    core::TrainingJobSpec spec = job("train", 0.0, 600.0, Tc, 0.95, Tm, 0.4);
    spec.checkpoint_interval = 100.0;  // checkpoints at 100, 200, ..., 500 s (600 s is the end)
    spec.checkpoint_duration = 10.0;
    spec.checkpoint_power_fraction = 0.1;
    site.jobs.push_back(spec);
    Run r(site);
    r.run(static_cast<int>(std::lround(600.0 / dt)), dt);
    // 5 checkpoints x 10 s leave 550 s of training: floor(550 / 4.1) = 134 iterations (146
    // without checkpoints).
    CHECK(r.executor.jobIterations(0) == static_cast<std::uint64_t>(std::floor(550.0 / 4.1)));
    // An iteration lasts Tc + Tm: the ones a checkpoint interrupts resume after it, and the
    // pause is not part of their period (it read 4.11 s here, as if the GPUs were throttled).
    REQUIRE(r.executor.meanIterationPeriod());
    CHECK(*r.executor.meanIterationPeriod() == Approx(Tc + Tm).epsilon(1e-12));
    const double E = trainingEnergy(550.0, Tc, Pc, Tm, Pm) + 50.0 * P_checkpoint;
    CHECK(r.gpu_E[0] == Approx(E).epsilon(1e-12));
    // Against the same job without checkpoints: 12 iterations fewer and the analytic energy.
    core::SiteSpec plain = test::gb300Site(1);
    plain.jobs.push_back(job("train", 0.0, 600.0, Tc, 0.95, Tm, 0.4));
    Run p(plain);
    p.run(static_cast<int>(std::lround(600.0 / dt)), dt);
    CHECK(p.executor.jobIterations(0) - r.executor.jobIterations(0) == 146 - 134);
    const double saving = trainingEnergy(600.0, Tc, Pc, Tm, Pm)
                          - trainingEnergy(550.0, Tc, Pc, Tm, Pm) - 50.0 * P_checkpoint;
    CHECK(p.gpu_E[0] - r.gpu_E[0] == Approx(saving).epsilon(1e-9));
    // CPUs stay busy during checkpoints.
    CHECK(r.cpu_E[0] == Approx(300.0 * 600.0).epsilon(1e-12));
  }
}

TEST_CASE("A throttled GPU demands at most throttled_power_fraction x P_max", "[workload]") {
  core::SiteSpec site = test::gb300Site(1);
  site.jobs.push_back(job("train", 0.0, 1000.0, 3.2, 0.95, 0.8, 0.4));
  Run r(site);
  r.state.gpu_throttled[3] = 1;
  const double cap = 0.5 * kPmax;  // throttled_power_fraction of the test rack
  r.executor.initialize(r.state);
  CHECK(r.state.gpu_P_demand[3] == Approx(cap));           // compute phase at t = 0, capped
  CHECK(r.state.gpu_P_demand[2] == Approx(0.95 * kPmax));  // unthrottled neighbour
  const double dt = 0.7;
  const int steps = 130;  // 91 s = 22.75 periods
  double E3 = 0.0;
  for (int i = 0; i < steps; ++i) {
    r.executor.advance(i * dt, dt, r.state);
    CHECK(r.state.gpu_P_demand[3] <= cap * (1.0 + 1e-12));
    E3 += r.state.gpu_P_demand[3] * dt;
  }
  // Compute 1330 W is capped at 700 W; communication 560 W is below the cap.
  CHECK(E3 == Approx(trainingEnergy(steps * dt, 3.2, cap, 0.8, 0.4 * kPmax)).epsilon(1e-12));
  // Throttling alone does not slow the job (the thermal model lowers gpu_speed for that).
  CHECK(r.executor.jobIterations(0) == 22);
}

TEST_CASE("Initial demands and constant rack loads", "[workload]") {
  core::SiteSpec site = test::gb300Site(2);
  site.jobs.push_back(job("train", 0.0, 100.0, 3.2, 0.95, 0.8, 0.4));
  Run r(site);
  r.executor.initialize(r.state);
  CHECK(r.state.gpu_P_demand[0] == Approx(0.95 * kPmax));  // compute phase at t = 0
  CHECK(r.state.gpu_P_demand[72] == Approx(kPidle));
  CHECK(r.state.cpu_P_demand[0] == Approx(300.0));
  CHECK(r.state.switch_P_demand[0] == Approx(120.0));
  CHECK(r.state.switch_P_demand[18] == Approx(60.0));
  // 18 compute trays x 400 W + 9 switch trays x 200 W of air-cooled load (test rack).
  CHECK(r.state.rack_air_P_demand[1] == Approx(18 * 400.0 + 9 * 200.0));
}

TEST_CASE("Jobs on unknown, repeated or shared racks are rejected", "[workload]") {
  core::SiteSpec site = test::gb300Site(2);
  core::TrainingJobSpec a = job("a", 0.0, 100.0, 3.2, 0.95, 0.8, 0.4);
  a.racks = {core::ComponentId("row1/rack09")};
  site.jobs = {a};
  {
    const core::SiteLayout layout = core::SiteLayout::build(site);
    CHECK_THROWS_WITH(core::WorkloadExecutor(site, layout),
                      Catch::Matchers::Contains("unknown rack 'row1/rack09'"));
  }
  a.racks = {core::ComponentId("row1/rack01"), core::ComponentId("row1/rack01")};
  site.jobs = {a};
  {
    const core::SiteLayout layout = core::SiteLayout::build(site);
    CHECK_THROWS_AS(core::WorkloadExecutor(site, layout), std::invalid_argument);
  }
  a.racks = {core::ComponentId("row1/rack01"), core::ComponentId("row1/rack02")};
  core::TrainingJobSpec b = job("b", 50.0, 100.0, 3.2, 0.95, 0.8, 0.4);
  b.racks = {core::ComponentId("row1/rack02")};
  site.jobs = {a, b};
  const core::SiteLayout layout = core::SiteLayout::build(site);
  CHECK_THROWS_WITH(core::WorkloadExecutor(site, layout), Catch::Matchers::Contains("shares"));
  site.jobs[1].start = 100.0;  // back to back is fine
  CHECK_NOTHROW(core::WorkloadExecutor(site, layout));
  site.jobs[1].communication_duration = 0.0;
  site.jobs[1].compute_duration = 0.0;
  CHECK_THROWS_AS(core::WorkloadExecutor(site, layout), std::invalid_argument);
}

TEST_CASE("Workload channels and summary", "[workload]") {
  core::SiteSpec site = test::gb300Site(1);
  site.jobs.push_back(job("train", 0.0, 100.0, 3.2, 0.95, 0.8, 0.4));
  site.jobs.push_back(job("later", 1000.0, 100.0, 3.2, 0.95, 0.8, 0.4));
  Run r(site);
  core::Recorder recorder(1.0);
  r.executor.declareChannels(recorder);
  REQUIRE(recorder.channels().size() == 2);
  CHECK(recorder.channels()[0].group == "job");
  CHECK(recorder.channels()[0].name == "iterations");
  CHECK(recorder.channels()[0].entity_ids == std::vector<std::string>{"train", "later"});
  CHECK(recorder.channels()[1].name == "P_demand");
  CHECK(recorder.channels()[1].width() == 72);

  r.run(500, 0.1);  // 50 s: 12 iterations of 4 s
  core::Summary summary;
  r.executor.summarise(summary);
  CHECK(summary.value("training_iterations").value() == 12.0);
  CHECK(summary.value("training_iteration_period_s").value() == Approx(4.0).epsilon(1e-9));

  core::SiteSpec idle = test::gb300Site(1);
  idle.jobs.push_back(job("later", 1000.0, 100.0, 3.2, 0.95, 0.8, 0.4));
  Run q(idle);
  q.run(10, 0.1);
  core::Summary none;
  q.executor.summarise(none);
  CHECK(none.value("training_iterations").value() == 0.0);
  CHECK_FALSE(none.value("training_iteration_period_s").has_value());
}

TEST_CASE("The executor is deterministic", "[workload]") {
  const auto demands = [] {
    core::SiteSpec site = test::gb300Site(2);
    core::TrainingJobSpec spec = job("train", 0.3, 500.0, 3.3, 0.95, 0.8, 0.4);
    spec.checkpoint_interval = 60.0;
    spec.checkpoint_duration = 7.0;
    spec.checkpoint_power_fraction = 0.2;
    site.jobs.push_back(spec);
    Run r(site);
    r.state.gpu_speed[9] = 0.83;
    r.run(3000, 0.17);
    return r.gpu_E;
  };
  CHECK(demands() == demands());
}

TEST_CASE("Leakage adds P_ref (exp(k (T_j - T_ref)) - 1) to a GPU's demand, within its limit",
          "[workload]") {
  core::SiteSpec site = test::gb300Site(1);
  core::ChipSpec& gpu = site.racks[0].type.gpu;
  gpu.P_leakage_reference = 140.0;
  gpu.T_leakage_reference = 333.15;  // 60 degC
  gpu.leakage_coefficient = 0.02;
  site.jobs.push_back(job("train", 0.0, 100.0, 1.0, 0.5, 1.0, 0.5));  // 700 W in both phases
  Run r(site);
  r.state.gpu_T_junction.assign(r.layout.gpu_count, 333.15);
  r.state.gpu_T_junction[1] = 353.15;  // 20 K hotter: leakage x e^0.4
  r.state.gpu_T_junction[2] = 313.15;  // 20 K cooler: leakage x e^-0.4
  r.state.gpu_T_junction[3] = 500.0;   // far too hot: the power limit holds
  r.run(10, 0.1);
  CHECK(r.gpu_E[0] == Approx(700.0).epsilon(1e-12));  // 1 s at the reference: no change
  CHECK(r.gpu_E[1] == Approx(700.0 + 140.0 * std::expm1(0.4)).epsilon(1e-12));
  CHECK(r.gpu_E[2] == Approx(700.0 + 140.0 * std::expm1(-0.4)).epsilon(1e-12));
  CHECK(r.gpu_E[3] == Approx(kPmax).epsilon(1e-12));
}

TEST_CASE("A power cap below the compute power slows the job by the cube root of the ratio",
          "[workload]") {
  core::SiteSpec site = test::gb300Site(2);
  site.jobs.push_back(job("train", 0.0, 600.0, 3.3, 0.95, 0.8, 0.4));
  Run r(site);
  // Rack 0 capped at 0.95 x 1400 / 8 W per GPU: clocks (P ~ f^3) fall to half, so the job, set
  // by its slowest GPU, computes at half speed: period 3.3 / 0.5 + 0.8 = 7.4 s (communication is
  // set by the network).
  r.state.rack_gpu_P_limit[0] = 0.95 * kPmax / 8.0;
  r.state.rack_gpu_P_limit[1] = 0.5 * kPmax;  // the other rack is not in the job
  r.run(6000, 0.1);
  CHECK(*r.executor.meanIterationPeriod() == Approx(3.3 / 0.5 + 0.8).margin(1e-9));
  // A cap above the compute power changes nothing.
  core::SiteSpec site2 = test::gb300Site(2);
  site2.jobs.push_back(job("train", 0.0, 600.0, 3.3, 0.95, 0.8, 0.4));
  Run r2(site2);
  r2.state.rack_gpu_P_limit[0] = kPmax;
  r2.run(6000, 0.1);
  CHECK(*r2.executor.meanIterationPeriod() == Approx(4.1).epsilon(1e-9));
}

TEST_CASE("A slowed GPU stretches the compute phase only: period Tc / s + Tm, checkpoints not",
          "[workload]") {
  // Specified behaviour (issue 15, item 9): the clock sets the compute phase, the network the
  // communication phase, storage the checkpoints. Both ways of slowing a GPU: the thermal
  // model's speed (throttle) and a rack power limit below the compute power (P ~ f^3).
  constexpr double Tc = 3.0, Tm = 1.0, fc = 0.9;
  enum class Slow { Throttle, PowerLimit };
  const auto slowed = [&](Slow how, double s, core::TrainingJobSpec spec) {
    core::SiteSpec site = test::gb300Site(2);
    site.jobs.push_back(std::move(spec));
    auto r = std::make_unique<Run>(site);
    if (how == Slow::Throttle) {
      r->state.gpu_speed[5] = s;  // one GPU of the job's rack
      r->state.gpu_throttled[5] = 1;
    } else {
      r->state.rack_gpu_P_limit[0] = s * s * s * fc * kPmax;
    }
    return r;
  };
  for (const Slow how : {Slow::Throttle, Slow::PowerLimit}) {
    for (const double s : {0.8, 0.5, 0.3}) {
      INFO((how == Slow::Throttle ? "throttled" : "power limit") << ", s = " << s);
      // Without checkpoints: every iteration lasts Tc / s + Tm.
      auto r = slowed(how, s, job("train", 0.0, 600.0, Tc, fc, Tm, 0.4));
      r->run(7000, 0.1);
      const double period = Tc / s + Tm;
      REQUIRE(r->executor.meanIterationPeriod().has_value());
      CHECK(std::abs(*r->executor.meanIterationPeriod() - period) < 1e-9);
      CHECK(r->executor.jobIterations(0)
            == static_cast<std::uint64_t>(std::floor(600.0 / period + 1e-9)));
    }
  }
  for (const Slow how : {Slow::Throttle, Slow::PowerLimit}) {
    INFO((how == Slow::Throttle ? "throttled" : "power limit") << ", with checkpoints");
    // s = 1/2: 7 s iterations; checkpoints of D = 7 s at 70 s and 140 s (wall-clock schedule).
    // Ten iterations end at 70 s; the 11th started at 70 s resumes at 77 s and ends at 84 s, the
    // 19th at 140 s; then 154 s and 161 s: 21 iterations by 163 s. A checkpoint slowed to D / s
    // would leave 19. Each lasts Tc / s + Tm: the checkpoints' pauses are not part of an
    // iteration's period (with them, 161 s / 21 read as a slower GPU).
    constexpr double s = 0.5, D = 7.0;
    core::TrainingJobSpec spec = job("train", 0.0, 1000.0, Tc, fc, Tm, 0.4);
    spec.checkpoint_interval = 70.0;
    spec.checkpoint_duration = D;
    spec.checkpoint_power_fraction = 0.2;
    auto r = slowed(how, s, spec);
    r->run(326, 0.5);
    CHECK(r->executor.jobIterations(0) == 21);
    REQUIRE(r->executor.meanIterationPeriod().has_value());
    CHECK(std::abs(*r->executor.meanIterationPeriod() - (Tc / s + Tm)) < 1e-9);
  }
}

TEST_CASE("The recorded GPU demand is the time-weighted mean of its sub-steps' demands",
          "[workload]") {
  // Two racks: rack 0 trains with phases that end inside sub-steps and macro steps, and its
  // leakage follows junction temperatures changed between macro steps; rack 1 idles at a
  // constant demand. The recorder's record over each 2 s interval must equal the mean of the
  // demands the executor wrote, sub-step by sub-step, integrated here independently.
  core::SiteSpec site = test::gb300Site(2);
  core::ChipSpec& gpu = site.racks[0].type.gpu;
  gpu.P_leakage_reference = 140.0;
  gpu.T_leakage_reference = 333.15;
  gpu.leakage_coefficient = 0.02;
  site.jobs.push_back(job("train", 0.23, 100.0, 1.37, 0.95, 0.61, 0.4));
  Run r(site);
  core::SiteState& s = r.state;
  s.gpu_T_junction.assign(r.layout.gpu_count, 340.0);

  core::Recorder recorder(2.0);
  test::MemorySink sink;
  r.executor.declareChannels(recorder);
  recorder.addSink(sink);
  recorder.open(core::RunMetadata{});
  REQUIRE(sink.channels.back().name == "P_demand");
  CHECK(sink.channels.back().aggregation == core::Aggregation::Mean);
  std::size_t column = 0;
  for (std::size_t c = 0; c + 1 < sink.channels.size(); ++c)
    column += sink.channels[c].width();

  const std::size_t n_gpus = r.layout.gpu_count;
  const double step = 0.5;
  const int substeps = 7;
  const double h = step / substeps;
  s.time = s.step_start = 0.0;
  s.last_substep = true;
  r.executor.initialize(s);
  recorder.sample(0.0);
  REQUIRE(sink.rows.size() == 1);
  for (std::size_t g = 0; g < n_gpus; ++g)
    REQUIRE(sink.rows[0][column + g] == s.gpu_P_demand[g]);  // the initial instant

  std::vector<double> E(n_gpus, 0.0);
  double T = 0.0;
  for (int k = 0; k < 40; ++k) {  // 20 s: 10 records
    const double t0 = k * step;
    s.step_start = t0;
    for (int i = 0; i < substeps; ++i) {
      s.time = t0 + i * h;
      s.last_substep = i + 1 == substeps;
      r.executor.advance(s.time, h, s);
      for (std::size_t g = 0; g < n_gpus; ++g)
        E[g] += s.gpu_P_demand[g] * h;
      T += h;
      recorder.accumulateSubstep(h);
    }
    s.time = t0 + step;
    recorder.sample(s.time);
    // The thermal step moves the junctions: rack 0's leakage changes at the next sub-step.
    for (std::size_t g = 0; g < 72; ++g)
      s.gpu_T_junction[g] = 340.0 + 3.0 * std::sin(0.7 * k + 0.1 * static_cast<double>(g));
    if ((k + 1) % 4 == 0) {
      const std::vector<double>& row = sink.rows.back();
      for (std::size_t g = 0; g < n_gpus; ++g) {
        INFO("GPU " << g << " record " << sink.rows.size() - 1);
        REQUIRE(row[column + g] == Approx(E[g] / T).epsilon(1e-13));
      }
      // The idle rack's demand never changed: its record is that demand, to the bit.
      CHECK(row[column + 72] == s.gpu_P_demand[72]);
      std::fill(E.begin(), E.end(), 0.0);
      T = 0.0;
    }
  }
  CHECK(sink.rows.size() == 11);
  // Rack 0 changed inside the records: they are not its last demands.
  CHECK(sink.rows.back()[column] != s.gpu_P_demand[0]);
}
