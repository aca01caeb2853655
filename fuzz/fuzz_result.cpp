// libFuzzer target: the HDF5 result reader (core/Hdf5Result.hpp) through its public functions,
// the way `racktwin info`/`racktwin summary` and the GUI read a result file: its structure, then
// every dataset by type.
//
// Why the public functions, fork probe included, and not libhdf5's calls directly: libhdf5 1.10
// is not instrumented and crashes on some damaged files (a variable-length string read past its
// buffer). The reader guards against that by reading each file first in a forked child
// (Hdf5Reader.cpp, probeOnce) and turning a child killed by a signal into an InputError. Such a
// crash in the child is the guard working, not a finding; what the fuzzer reports is what reaches
// this process: a crash or sanitizer report in the project's own code or in an in-process read
// after the probe passed, a hang, a leak, or an exception other than core::InputError.
// A fork per input is slow (a few hundred inputs a second), which is the price of fuzzing the path
// users take.
#include <cstddef>
#include <cstdint>

#include "FuzzInputFile.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace core = racktwin::core;
  const racktwin::fuzz::FuzzInputFile file(data, size, ".h5");
  try {
    const core::ResultFileInfo info = core::readResultInfo(file.path());
    for (const core::DatasetInfo& dataset : info.datasets) {
      try {
        if (dataset.type == "string") {
          (void)core::readResultStrings(file.path(), dataset.path);
        } else {
          (void)core::readResultDataset(file.path(), dataset.path);
        }
      } catch (const core::InputError&) {
        // one bad dataset; the others are still read
      }
    }
  } catch (const core::InputError&) {
    // bad input, reported as specified
  }
  return 0;
}
