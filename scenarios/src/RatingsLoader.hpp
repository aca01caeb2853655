#pragma once
// The `ratings:` blocks of CDU and rack data files: the design limits the site is checked against
// at every record (core/DesignLimits.hpp, docs/capacity.md). Every key is optional; an absent
// rating is not checked.
#include "YamlReader.hpp"
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::scenarios::detail {

/// data/cdus/*.yaml `ratings:` (secondary_flow_max, secondary_design_pressure, fill_pressure,
/// pump_runout_fraction).
void readCduRatings(const MapReader& data_file, core::CduRatingsSpec& ratings);

/// data/racks/*.yaml `ratings:` (inlet_temperature_max, return_temperature_max, flow_per_kW_min,
/// manifold_differential_pressure_max, qd_working_pressure, cold_plate_minimum_flow).
void readRackRatings(const MapReader& data_file, core::RackCoolingRatingsSpec& ratings);

}  // namespace racktwin::scenarios::detail
