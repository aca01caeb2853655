// A result file is untrusted input: whatever text it carries (site name, scenario text, ids,
// summary keys) reaches the page as text, never as markup or script.
#include <catch2/catch.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "ChartLibrary.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/report/Report.hpp"

using namespace racktwin;
namespace fs = std::filesystem;

namespace {

const std::string kScript = "<script>alert(1)</script>";
const std::string kImage = "<img src=x onerror=alert(2)>";
const std::string kSvg = "<svg onload=alert(3)>";

/// A small result whose every text field is an attack.
fs::path writeHostileResult(const fs::path& folder) {
  fs::create_directories(folder);
  const fs::path file = folder / "hostile.h5";
  std::vector<std::string> gpus{"row1/rack01/" + kImage, "row1/" + kScript + "/gpu1"};
  std::vector<double> T{300.0, 310.0};
  double P = 1.0e5;
  core::Recorder recorder(1.0);
  recorder.add({"gpu", "T_junction", "K", kSvg, gpus, core::Aggregation::SampleAndMax}, T.data());
  recorder.add({"site", "P_it", "W", "IT power", {}, core::Aggregation::Mean}, &P);
  const std::unique_ptr<core::RecorderSink> sink = core::makeHdf5Sink(file.string());
  recorder.addSink(*sink);
  core::RunMetadata metadata;
  metadata.program_version = "RackTwin " + kScript;
  metadata.site_name = kScript + " hall \xFF\xFE";
  metadata.scenario_path = "scenarios/" + kImage + ".yaml";
  metadata.scenario_text = "name: " + kScript + "\n# </pre>" + kSvg + "\n";
  metadata.step = 1.0;
  metadata.record_interval = 1.0;
  metadata.duration = 30.0;
  metadata.input_warnings = {"x.yaml:1:1: key 'a': warning: " + kImage};
  recorder.open(metadata);
  recorder.sample(0.0);
  for (int k = 1; k <= 30; ++k) {
    T[0] += 0.5;
    P += 100.0;
    recorder.sample(k);
  }
  recorder.close(true, R"({")" + std::string("<svg onload=alert(3)>") + R"(": 1, "pue": 1.2})");
  return file;
}

/// The page without the inlined charting library (whose code is not ours to check).
std::string pageText(const std::string& page) {
  std::string text = page;
  const std::string& library = report::chartLibrary();
  const std::size_t at = text.find(library);
  REQUIRE(at != std::string::npos);
  text.erase(at, library.size());
  return text;
}

}  // namespace

TEST_CASE("Text from a hostile result reaches the report escaped", "[report]") {
  const fs::path folder = fs::path(RACKTWIN_BINARY_DIR) / "test-report" / "hostile";
  const fs::path file = writeHostileResult(folder);
  const std::string page = pageText(report::runReport(file.string()));
  for (const std::string& attack : {kScript, kImage, kSvg, "</pre>" + kSvg}) {
    INFO(attack);
    CHECK(page.find(attack) == std::string::npos);
  }
  // Shown as text.
  CHECK(page.find("&lt;script&gt;alert(1)&lt;/script&gt; hall") != std::string::npos);
  CHECK(page.find("&lt;img src=x onerror=alert(2)&gt;") != std::string::npos);
  // The only script elements are the page's own three and the library's.
  std::size_t scripts = 0;
  for (std::size_t at = page.find("<script"); at != std::string::npos;
       at = page.find("<script", at + 1))
    ++scripts;
  CHECK(scripts == 4);  // error collector, library (emptied here), data, page script
  // Invalid UTF-8 in the site name is replaced, not passed on.
  CHECK(page.find("\xFF") == std::string::npos);
}

TEST_CASE("Comparing a result with a hostile one escapes both", "[report]") {
  const fs::path folder = fs::path(RACKTWIN_BINARY_DIR) / "test-report" / "hostile-compare";
  const fs::path file = writeHostileResult(folder);
  const std::string page = pageText(report::comparisonReport(file.string(), file.string()));
  for (const std::string& attack : {kScript, kImage, kSvg})
    CHECK(page.find(attack) == std::string::npos);
  CHECK(page.find("The two results were run from the same scenario text.") != std::string::npos);
}

TEST_CASE("A file that is not a result is bad input", "[report]") {
  const fs::path folder = fs::path(RACKTWIN_BINARY_DIR) / "test-report";
  fs::create_directories(folder);
  const fs::path file = folder / "not-a-result.h5";
  {
    std::FILE* f = std::fopen(file.c_str(), "wb");
    REQUIRE(f);
    std::fputs("not HDF5 at all", f);
    std::fclose(f);
  }
  CHECK_THROWS_AS(report::runReport(file.string()), core::InputError);
}
