#pragma once
// How people see a quantity: the one rule the report, the GUI's charts and its scene legend share,
// so a temperature reads in the same unit everywhere and a power is never shown as 1.2e+05 W.
#include <string_view>

#include "racktwin/core/Units.hpp"

namespace racktwin::core {

/// The display of an SI quantity named by its SI unit as result datasets carry it ("K", "W", "J",
/// "m3/s", "Pa", "m3", ...), in `system`, for values of about `magnitude` (in SI; the largest
/// absolute value to show, 0 when unknown):
///   K: degC (degF); W: W, kW or MW by magnitude (heat in US units: ton of refrigeration, or
///   Btu/h below one ton); J: kWh or MWh (heat in US units: ton-h); m3/s: L/min (gpm); Pa: kPa
///   (psi); m3: L (gal); m: m (ft); anything else as it is (the unit then views `si_unit`).
/// `heat`: a heat flow or heat rather than electrical power or energy.
DisplayUnit displayUnitFor(std::string_view si_unit, UnitSystem system, double magnitude = 0.0,
                           bool heat = false);

/// The same for a temperature difference in K: K (delta_degF).
DisplayUnit displayUnitForDifference(UnitSystem system);

}  // namespace racktwin::core
