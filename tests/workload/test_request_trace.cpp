// Inference request traces in the Azure LLM inference format: the shipped Azure code trace is read
// whole and served whole; malformed rows are reported with file and line; the scenario loader's
// inference keys.
// Reference data: data/workload/azure-code-2023.csv (Azure Public Dataset, Microsoft, CC-BY-4.0).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "Gb300TestSite.hpp"
#include "RequestTrace.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/WorkloadExecutor.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

using namespace racktwin;

namespace {

const std::string kTrace = std::string(RACKTWIN_SOURCE_DIR) + "/data/workload/azure-code-2023.csv";

/// Rows and generated-token sum of the CSV, read here with plain string handling (the last field
/// of each non-header line), independently of the reader under test.
struct CsvFacts {
  std::size_t rows = 0;
  std::uint64_t generated = 0;
};
CsvFacts csvFacts(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  CsvFacts facts;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ++facts.rows;
    facts.generated += std::stoull(line.substr(line.rfind(',') + 1));
  }
  return facts;
}

/// The InputError of parsing `text` (named "t.csv"); fails the test when there is none.
core::InputError parseError(const std::string& text) {
  try {
    (void)scenarios::detail::parseRequestTrace(text, "t.csv");
  } catch (const core::InputError& e) {
    return e;
  }
  FAIL("no error for:\n" << text);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("The Azure code trace is read whole, relative to its first request", "[workload]") {
  const CsvFacts facts = csvFacts(kTrace);
  const auto requests = scenarios::detail::readRequestTrace(kTrace);
  REQUIRE(requests.size() == facts.rows);
  REQUIRE(facts.rows == 8819);  // data/workload/README.md
  CHECK(requests.front().time == 0.0);
  // First two rows: 18:17:03.9799600 and 18:17:04.0319600; last 19:14:19.9280160.
  CHECK(requests[1].time == Approx(0.052).margin(1e-9));
  CHECK(requests.back().time == Approx(57 * 60 + 15.9480560).margin(1e-6));
  CHECK(requests.front().context_tokens == 4808);
  CHECK(requests.front().generated_tokens == 10);
}

TEST_CASE("Every request of the Azure trace is served, generated tokens add up", "[workload]") {
  const CsvFacts facts = csvFacts(kTrace);
  core::SiteSpec site = test::gb300Site(1);
  core::InferenceJobSpec job;
  job.id = "serve";
  job.duration = 4000.0;  // the trace spans 3,436 s
  job.racks = {core::ComponentId("row1/rack01")};
  job.trace = scenarios::detail::readRequestTrace(kTrace);
  job.max_batch = 64;
  job.prefill_tokens_per_s_per_gpu = 20000.0;
  job.decode_tokens_per_s_per_gpu = 2000.0;
  job.busy_power_fraction = 0.85;
  site.inference_jobs.push_back(job);
  const core::SiteLayout layout = core::SiteLayout::build(site);
  core::WorkloadExecutor executor(site, layout);
  core::SiteState state;
  state.resize(layout, 300.0);
  executor.initialize(state);
  for (int i = 0; i < 40000; ++i) {
    state.time = i * 0.1;
    executor.advance(state.time, 0.1, state);
  }
  CHECK(executor.requestsServed() == facts.rows);
  CHECK(executor.tokensGenerated() == facts.generated);
  CHECK(executor.inferenceJob(0).queueLength() == 0);
  CHECK(executor.inferenceJob(0).inService() == 0);
}

TEST_CASE("Malformed trace rows are reported with file and line", "[workload]") {
  const std::string header = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
  const std::string good = "2023-11-16 18:17:03.9799600,4808,10\n";
  {
    const core::InputError e = parseError(header + good + "2023-11-16 18:17:0x,1,1\n");
    CHECK(e.where().file == "t.csv");
    CHECK(e.where().line == 3);
    CHECK(e.key() == "TIMESTAMP");
  }
  {
    const core::InputError e = parseError(header + good + good + "2023-11-16 18:17:04,-5,1\n");
    CHECK(e.where().line == 4);
    CHECK(e.key() == "ContextTokens");
    CHECK(e.where().column == 21);
  }
  {
    const core::InputError e = parseError(header + good + "2023-11-16 18:17:04,5,1.5\n");
    CHECK(e.where().line == 3);
    CHECK(e.key() == "GeneratedTokens");
  }
  {
    const core::InputError e = parseError(header + good + "2023-11-16 18:17:02,5,1\n");
    CHECK(e.where().line == 3);
    CHECK(e.message().find("must not decrease") != std::string::npos);
  }
  {
    const core::InputError e = parseError(header + good + "2023-11-16 18:17:05,5\n");
    CHECK(e.where().line == 3);
  }
  {
    const core::InputError e = parseError("# comment\nTIMESTAMP,Context,GeneratedTokens\n" + good);
    CHECK(e.where().line == 2);
    CHECK(e.where().column == 11);  // the file's text is not quoted; its column is named
    CHECK(e.key().empty());
    CHECK(e.message().find("unknown column (a field of 7 characters)") != std::string::npos);
  }
  CHECK(parseError(header).where().line == 1);  // no requests
  // Numbers of seconds, columns in another order, comments and CRLF are accepted.
  const auto r = scenarios::detail::parseRequestTrace(
      "GeneratedTokens,TIMESTAMP,ContextTokens\r\n5,10.5,100 # first\r\n\r\n7,12,3\r\n", "t.csv");
  REQUIRE(r.size() == 2);
  CHECK(r[1].time == 1.5);
  CHECK(r[1].generated_tokens == 7);
  CHECK(r[1].context_tokens == 3);
}

namespace {

std::string scenario(const std::string& job) {
  std::ifstream in(std::string(RACKTWIN_SOURCE_DIR) + "/scenarios/inference-azure.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  s = s.substr(0, s.find("workload:")) + "workload:\n" + job;
  return s;
}

core::SiteSpec load(const std::string& text) {
  return scenarios::loadScenarioFromString(
      text, std::string(RACKTWIN_SOURCE_DIR) + "/scenarios/test-inference.yaml",
      std::string(RACKTWIN_SOURCE_DIR) + "/data");
}

}  // namespace

TEST_CASE("The loader reads inference jobs and reports their errors", "[workload]") {
  const std::string server =
      "    server:\n      max_batch: 8\n      prefill_tokens_per_s_per_gpu: 1000\n"
      "      decode_tokens_per_s_per_gpu: 100\n      busy_power: 80 %\n";
  const std::string head = "  - id: serve\n    type: inference\n    racks: all\n";
  {
    const core::SiteSpec site =
        load(scenario(head + "    trace: ../data/workload/azure-code-2023.csv\n" + server));
    REQUIRE(site.inference_jobs.size() == 1);
    const core::InferenceJobSpec& job = site.inference_jobs[0];
    CHECK(job.trace.size() == csvFacts(kTrace).rows);
    CHECK(job.max_batch == 8);
    CHECK(job.busy_power_fraction == Approx(0.8));
    CHECK(job.duration == Approx(site.simulation.duration));
  }
  {
    const core::SiteSpec site =
        load(scenario(
            head
            + "    arrivals:\n      rate_per_s: 2.5\n      diurnal_amplitude: 30 %\n"
              "      diurnal_peak: 14 h\n      context_tokens: 1500\n      generated_tokens: 20\n"
            + server));
    const core::InferenceJobSpec& job = site.inference_jobs.at(0);
    CHECK(job.trace.empty());
    CHECK(job.rate == 2.5);
    CHECK(job.diurnal_amplitude == Approx(0.3));
    CHECK(job.diurnal_peak == Approx(14 * 3600.0));
    CHECK(job.context_tokens == 1500);
  }
  // A missing trace file, both sources, a training key: errors at the job's lines.
  const auto fails = [](const std::string& text, const std::string& what) {
    try {
      (void)load(text);
    } catch (const core::InputError& e) {
      INFO(e.what());
      CHECK(e.where().line > 0);
      CHECK(std::string(e.what()).find(what) != std::string::npos);
      return;
    }
    FAIL("no error");
  };
  fails(scenario(head + "    trace: no-such.csv\n" + server), "no request trace file");
  fails(scenario(head + "    trace: ../data/workload/azure-code-2023.csv\n"
                 + "    arrivals:\n      rate_per_s: 1\n" + server),
        "exactly one of");
  fails(scenario(head + "    trace: ../data/workload/azure-code-2023.csv\n"
                 + "    iteration: {compute: 1 s}\n" + server),
        "inference job");
}

namespace {

/// Runs only the workload executor of a shipped scenario over its whole duration.
core::WorkloadExecutor runScenarioWorkload(const std::string& name, core::SiteSpec& site,
                                           core::SiteLayout& layout) {
  site = scenarios::loadScenario(std::string(RACKTWIN_SOURCE_DIR) + "/scenarios/" + name);
  layout = core::SiteLayout::build(site);
  core::WorkloadExecutor executor(site, layout);
  core::SiteState state;
  state.resize(layout, 300.0);
  executor.initialize(state);
  const double dt = site.simulation.step / site.simulation.substeps;
  const long n = std::lround(site.simulation.duration / dt);
  for (long i = 0; i < n; ++i) {
    state.time = static_cast<double>(i) * dt;
    executor.advance(state.time, dt, state);
  }
  return executor;
}

}  // namespace

TEST_CASE("The shipped workload scenarios do what their comments say", "[workload]") {
  core::SiteSpec site;
  core::SiteLayout layout;
  {
    // 3.5 s + 1.5 s iterations for 600 s: 120 iterations of 5 s.
    const core::WorkloadExecutor ex = runScenarioWorkload("training-swing.yaml", site, layout);
    CHECK(ex.totalIterations() == 120);
    CHECK(*ex.meanIterationPeriod() == Approx(5.0).epsilon(1e-9));
  }
  {
    // Every request of the trace served within the run.
    const CsvFacts facts = csvFacts(kTrace);
    const core::WorkloadExecutor ex = runScenarioWorkload("inference-azure.yaml", site, layout);
    CHECK(ex.requestsServed() == facts.rows);
    CHECK(ex.tokensGenerated() == facts.generated);
  }
}
