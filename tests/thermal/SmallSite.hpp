#pragma once
// A hand-built site for thermal tests: one CDU, one rack with `trays` compute trays of one GPU,
// numbers in the range of the GB300 data (their sources are in data/).
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::test {

core::SiteSpec smallSite(int trays = 2, int gpus_per_tray = 1);

}  // namespace racktwin::test
