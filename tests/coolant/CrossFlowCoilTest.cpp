// The finned coils of rear doors and liquid-to-air CDUs (CrossFlowCoil): the rating they are
// built from is reproduced, the film scaling follows the flows as the plate exchangers' does, and
// impossible ratings are refused. The cross-flow effectiveness itself is checked against Kays and
// London's exact series in tests/thermal/test_heat_rejection.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "racktwin/thermal/CrossFlowCoil.hpp"

using racktwin::thermal::CrossFlowCoil;
using racktwin::thermal::crossFlowUnmixedEffectiveness;

TEST_CASE("A coil reproduces its rating and scales UA with flow^0.8 on each side",
          "[coolant][coil]") {
  // A 75 kW rear door: 150 L/min of water (rho cp 4.17e6 J/(m3 K)) and 6 m3/s of air at an
  // entering difference of 27 K.
  const double C_w = 150e-3 / 60.0 * 4.17e6, C_a = 6.0 * racktwin::thermal::kAirCapacityPerFlow;
  const CrossFlowCoil coil = CrossFlowCoil::fromRating(75e3, C_w, C_a, 27.0);
  CHECK(coil.conductance(C_w, C_a) * 27.0 == Approx(75e3).epsilon(1e-9));
  // Equal film resistances at the rating: doubling one side's flow gives 1/UA = (2^-0.8 + 1)/2
  // of the nominal 1/UA, i.e. UA x 2 / (1 + 2^-0.8).
  const double UA = coil.UA_nominal() * 2.0 / (1.0 + std::pow(2.0, -0.8));
  const double C_min = std::min(2.0 * C_w, C_a), C_max = std::max(2.0 * C_w, C_a);
  CHECK(coil.conductance(2.0 * C_w, C_a)
        == Approx(crossFlowUnmixedEffectiveness(UA / C_min, C_min / C_max) * C_min).epsilon(1e-12));
  // More flow on either side never moves less heat; no flow moves none.
  CHECK(coil.conductance(C_w, 1.5 * C_a) > coil.conductance(C_w, C_a));
  CHECK(coil.conductance(0.5 * C_w, C_a) < coil.conductance(C_w, C_a));
  CHECK(coil.conductance(0.0, C_a) == 0.0);
  CHECK(coil.conductance(C_w, 0.0) == 0.0);
  // G never exceeds the smaller capacity rate (effectiveness <= 1).
  CHECK(coil.conductance(C_w, 10.0 * C_a) <= std::min(C_w, 10.0 * C_a));
}

TEST_CASE("An impossible coil rating is refused", "[coolant][coil]") {
  // 100 kW across 10 K with a smaller stream of 5 kW/K would need an effectiveness of 2.
  CHECK_THROWS_AS(CrossFlowCoil::fromRating(100e3, 5e3, 20e3, 10.0), std::invalid_argument);
  CHECK_THROWS_AS(CrossFlowCoil::fromRating(50e3, 5e3, 20e3, 10.0), std::invalid_argument);
  CHECK_THROWS_AS(CrossFlowCoil::fromRating(-1.0, 5e3, 20e3, 10.0), std::invalid_argument);
  CHECK_THROWS_AS(CrossFlowCoil::fromRating(1e3, 5e3, 20e3, 0.0), std::invalid_argument);
  CHECK_NOTHROW(CrossFlowCoil::fromRating(49e3, 5e3, 20e3, 10.0));
}
