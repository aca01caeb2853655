// libFuzzer target: the EPANET .inp reader, as `racktwin hydraulics` calls it. core::InputError is
// its documented answer to bad or unsupported input; anything else is a finding. Only the reader
// is fuzzed: a solve of an arbitrary network is bounded by TRIALS, not by the input's size, and
// belongs to the solver's own tests.
#include <cstddef>
#include <cstdint>

#include "FuzzInputFile.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/EpanetInput.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const racktwin::fuzz::FuzzInputFile file(data, size, ".inp");
  try {
    (void)racktwin::scenarios::readEpanetInput(file.path());
  } catch (const racktwin::core::InputError&) {
    // bad input, reported as specified
  }
  return 0;
}
