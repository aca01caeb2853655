#include "SummaryDisplay.hpp"

#include <cmath>

#include "racktwin/report/SummaryLayout.hpp"

namespace racktwin::report {

SummaryDisplay displaySummaryItem(const std::string& key, std::optional<double> value,
                                  core::UnitSystem units) {
  SummaryDisplay display;
  const SummaryKeyLayout* layout = findSummaryKeyLayout(key);
  if (!layout) {
    // A key the table does not know: its SI value, the unit in its name.
    display.label = key;
    display.shown = value;
    return display;
  }
  display.label = summaryLabel(*layout, key);
  display.unit = std::string(layout->display_unit);
  if (!value) return display;
  double shown = *value * layout->display_scale + layout->display_offset;
  if (units == core::UnitSystem::US) {
    if (const auto us = core::usCustomaryFromMetric(layout->display_unit, layout->heat)) {
      shown = shown * us->scale + us->offset;
      display.unit = std::string(us->unit);
    }
  }
  if ((display.unit == "kW" || display.unit == "kWh") && std::abs(shown) >= 1e4) {
    shown *= 1e-3;
    display.unit = display.unit == "kW" ? "MW" : "MWh";
  }
  display.shown = shown;
  return display;
}

}  // namespace racktwin::report
