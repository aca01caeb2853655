// The facility power's dominant oscillation over a shipped hour (scenarios/nvl72-rack.yaml): its
// training job's checkpoint at 30 min pauses the swing for 30 s, 7.5 iterations of 4 s, so the
// swing after it runs half a period out of phase with the swing before it. The summary's
// frequency and amplitude must be those of the same hour without the checkpoint (the swing the
// utility sees while the job trains), not the second harmonic that one transform of the whole
// hour leaves when the fundamental's halves cancel.
#include <catch2/catch.hpp>

#include <string>

#include "ScenarioTestUtil.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/scenarios/Twin.hpp"

namespace {

using racktwin::test::readText;
using racktwin::test::replaced;
using racktwin::test::sourcePath;

racktwin::core::Summary run(const std::string& text) {
  racktwin::scenarios::Twin twin(racktwin::scenarios::loadScenarioFromString(
      text, sourcePath("scenarios/nvl72-rack.yaml"), ""));
  twin.initialize();
  while (twin.step()) {
  }
  return twin.finish(true);
}

}  // namespace

TEST_CASE("A checkpoint's pause does not change the dominant oscillation of an hour's power",
          "[scenarios]") {
  const std::string with = readText(sourcePath("scenarios/nvl72-rack.yaml"));
  const std::string checkpoint =
      "    checkpoint:\n      interval: 30 min\n      duration: 30 s\n      power: 15 %\n";
  const std::string without = replaced(with, checkpoint, "");
  REQUIRE(without.find("checkpoint:\n") == std::string::npos);
  const racktwin::core::Summary paused = run(with), steady = run(without);
  const auto f_paused = paused.value("facility_power_dominant_frequency_Hz");
  const auto f_steady = steady.value("facility_power_dominant_frequency_Hz");
  REQUIRE(f_paused);
  REQUIRE(f_steady);
  CHECK(*f_steady == Approx(0.25).epsilon(1e-3));  // 1 / (3.2 s + 0.8 s)
  CHECK(*f_paused == Approx(*f_steady).epsilon(1e-3));
  CHECK(paused.value("facility_power_dominant_amplitude_W").value()
        == Approx(steady.value("facility_power_dominant_amplitude_W").value()).epsilon(0.01));
}
