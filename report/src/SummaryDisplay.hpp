#pragma once
// A stored summary item as people read it: label, value and unit from the summary layout table,
// in the units asked for, kW and kWh stepping up to MW and MWh for large values.
#include <optional>
#include <string>

#include "racktwin/core/Units.hpp"

namespace racktwin::report {

struct SummaryDisplay {
  std::string label;
  std::optional<double> shown;
  std::string unit;
};

SummaryDisplay displaySummaryItem(const std::string& key, std::optional<double> value,
                                  core::UnitSystem units);

}  // namespace racktwin::report
