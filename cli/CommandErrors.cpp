#include <cstdio>

#include "Commands.hpp"
#include "racktwin/core/Error.hpp"

namespace racktwin::cli {

int exitCodeOf(const std::function<int()>& body) {
  try {
    return body();
  } catch (const core::InputError& error) {
    std::fprintf(stderr, "racktwin: %s\n", error.what());
    return kBadInput;
  } catch (const core::Error& error) {
    std::fprintf(stderr, "racktwin: %s\n", error.what());
    return kRunFailed;
  }
}

}  // namespace racktwin::cli
