// Located events: the ride-through of a CDU pump trip (first fault to first GPU slowdown) does not
// depend on the step the scenario is solved with. Slowdown crossings are located inside the step
// (the junction at the step's highest sub-step power, linear between steps), so the metric moves
// by less than half a second from 0.25 s to 5 s steps; rounded to the step it moved by 4 s.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "RunProgram.hpp"

using namespace racktwin;

TEST_CASE("Ride-through and throttled time of a pump trip do not depend on the step",
          "[integration]") {
  const std::string dir = test::scratchDirectory("located-" + std::to_string(getpid()));
  std::vector<double> ride, throttled;
  for (const char* step : {"0.25", "0.5", "1", "2", "5"}) {
    const std::string json = dir + "/s" + step + ".json";
    const auto run = test::runProgram(
        std::string(RACKTWIN_CLI)
        + " run scenarios/faults/cdu-pump-trip.yaml -q --record-interval 10 --step " + step + " -o "
        + dir + "/r.h5 --summary-json " + json);
    INFO("step " << step << ": " << run.err);
    REQUIRE(run.exit_code == 0);
    const auto s = nlohmann::json::parse(test::readFile(json));
    REQUIRE(s.at("ride_through_s").is_number());
    ride.push_back(s.at("ride_through_s").get<double>());
    throttled.push_back(s.at("throttled_gpu_seconds").get<double>());
  }
  const auto [ride_min, ride_max] = std::minmax_element(ride.begin(), ride.end());
  const auto [thr_min, thr_max] = std::minmax_element(throttled.begin(), throttled.end());
  INFO("ride-through " << *ride_min << " .. " << *ride_max << " s; throttled " << *thr_min << " .. "
                       << *thr_max << " GPU s");
  CHECK(*ride_max - *ride_min < 0.5);
  CHECK(*thr_min > 0.0);
  CHECK((*thr_max - *thr_min) / *thr_min < 5e-3);
}
