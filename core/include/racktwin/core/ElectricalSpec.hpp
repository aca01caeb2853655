#pragma once
// ElectricalSpec: the site's power distribution tree above the racks' power shelves, and the GB300
// power-smoothing settings. Plain SI data produced by the scenario loader.
#include <cstdint>
#include <string>
#include <vector>

namespace racktwin::core {

struct ElectricalSpec {
  bool present = false;  // false: the racks' shelves are fed from an ideal source
};

}  // namespace racktwin::core
