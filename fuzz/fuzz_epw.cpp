// libFuzzer target: the EnergyPlus weather-file reader (EPW text -> dry bulb, dew point, pressure
// and the computed wet bulb per record), as a scenario's `ambient.weather: FILE.epw` reaches it.
// core::InputError is the reader's documented answer to bad input; anything else (a crash, a
// sanitizer report, a leak, a hang, another exception such as a psychrometric domain error) is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "EpwWeather.hpp"
#include "racktwin/core/Error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)racktwin::scenarios::detail::parseEpw(text, "fuzz-input.epw");
  } catch (const racktwin::core::InputError&) {
    // bad input, reported as specified
  }
  return 0;
}
