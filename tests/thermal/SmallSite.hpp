#pragma once
// A hand-built site for thermal tests: one CDU, one rack with `trays` compute trays of one GPU,
// numbers in the range of the GB300 data (their sources are in data/).
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::test {

core::SiteSpec smallSite(int trays = 2, int gpus_per_tray = 1);

/// `racks` identical racks of smallSite(trays, gpus_per_tray) on its one CDU with row headers of
/// `segment`. The CDU's rating scales with the racks (the hydraulics do not depend on it).
core::SiteSpec rowSite(int racks, core::RowHeaderSpec::Return arrangement, core::PipeSpec segment,
                       int trays = 2, int gpus_per_tray = 1);

}  // namespace racktwin::test
