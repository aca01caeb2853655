#pragma once
// A stored summary item as people read it: label, value and unit from the summary layout table,
// in the units asked for, kW and kWh stepping up to MW and MWh for large values.
#include <cstddef>
#include <optional>
#include <string>

#include "racktwin/core/Units.hpp"

namespace racktwin::report {

struct SummaryDisplay {
  std::string label;
  std::optional<double> shown;
  std::string unit;
};

/// `value` (SI) as shown. `unit_for` (SI) picks the unit when it is given: the values of a
/// column or an axis share one unit, picked by the largest magnitude among them, so a header
/// names the unit of every number under it. Without it the value picks its own; without either,
/// the unit is the layout's (kW, not MW).
SummaryDisplay displaySummaryItem(const std::string& key, std::optional<double> value,
                                  core::UnitSystem units,
                                  std::optional<double> unit_for = std::nullopt);

/// The largest finite magnitude of `values` (SI), for displaySummaryItem's `unit_for`; nullopt
/// when none is finite.
std::optional<double> unitReference(const double* values, std::size_t count);

}  // namespace racktwin::report
