#include "SummaryDisplay.hpp"

#include <cmath>

#include "racktwin/report/SummaryLayout.hpp"

namespace racktwin::report {

namespace {

/// An SI value in the layout's display unit (US customary when asked); `unit` is set to it.
double inDisplayUnit(const SummaryKeyLayout& layout, double si, core::UnitSystem units,
                     std::string& unit) {
  unit = std::string(layout.display_unit);
  double shown = si * layout.display_scale + layout.display_offset;
  if (units == core::UnitSystem::US) {
    if (const auto us = core::usCustomaryFromMetric(layout.display_unit, layout.heat)) {
      shown = shown * us->scale + us->offset;
      unit = std::string(us->unit);
    }
  }
  return shown;
}

}  // namespace

SummaryDisplay displaySummaryItem(const std::string& key, std::optional<double> value,
                                  core::UnitSystem units, std::optional<double> unit_for) {
  SummaryDisplay display;
  const SummaryKeyLayout* layout = findSummaryKeyLayout(key);
  if (!layout) {
    // A key the table does not know: its SI value, the unit in its name.
    display.label = key;
    display.shown = value;
    return display;
  }
  display.label = summaryLabel(*layout, key);
  const std::optional<double> reference = unit_for ? unit_for : value;
  const double reference_shown =
      inDisplayUnit(*layout, reference.value_or(0.0), units, display.unit);
  const bool step_up = reference && (display.unit == "kW" || display.unit == "kWh")
                       && std::abs(reference_shown) >= 1e4;
  if (value) {
    std::string unit;
    const double shown = inDisplayUnit(*layout, *value, units, unit);
    display.shown = step_up ? shown * 1e-3 : shown;
  }
  if (step_up) display.unit = display.unit == "kW" ? "MW" : "MWh";
  return display;
}

std::optional<double> unitReference(const double* values, std::size_t count) {
  std::optional<double> largest;
  for (std::size_t i = 0; i < count; ++i)
    if (std::isfinite(values[i]) && (!largest || std::abs(values[i]) > *largest))
      largest = std::abs(values[i]);
  return largest;
}

}  // namespace racktwin::report
