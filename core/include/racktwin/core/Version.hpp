#pragma once
#include <string_view>

namespace racktwin::core {

/// "RackTwin <major.minor.patch>", stored in every result file.
std::string_view programVersion() noexcept;

}  // namespace racktwin::core
