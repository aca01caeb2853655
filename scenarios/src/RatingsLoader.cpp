#include "RatingsLoader.hpp"

namespace racktwin::scenarios::detail {

using core::Dimension;

void readCduRatings(const MapReader& data_file, core::CduRatingsSpec& ratings) {
  const auto r = data_file.optionalMap(
      "ratings",
      {"secondary_flow_max", "secondary_design_pressure", "fill_pressure", "pump_runout_fraction"});
  if (!r) return;
  ratings.V_flow_secondary_max =
      r->quantityOr("secondary_flow_max", Dimension::VolumeFlow, 0.0, Check::Positive);
  ratings.p_secondary_design =
      r->quantityOr("secondary_design_pressure", Dimension::Pressure, 0.0, Check::Positive);
  ratings.p_fill = r->quantityOr("fill_pressure", Dimension::Pressure, 0.0, Check::NonNegative);
  if (ratings.p_secondary_design > 0.0 && ratings.p_fill >= ratings.p_secondary_design) {
    r->fail("fill_pressure", "must be below the secondary_design_pressure");
  }
  ratings.pump_runout_fraction =
      r->quantityOr("pump_runout_fraction", Dimension::Dimensionless, 0.0, Check::PositiveFraction);
  r->finish();
}

void readRackRatings(const MapReader& data_file, core::RackCoolingRatingsSpec& ratings) {
  const auto r =
      data_file.optionalMap("ratings", {"inlet_temperature_max", "return_temperature_max",
                                        "flow_per_kW_min", "manifold_differential_pressure_max",
                                        "qd_working_pressure", "cold_plate_minimum_flow"});
  if (!r) return;
  ratings.T_inlet_max = r->quantityOr("inlet_temperature_max", Dimension::Temperature, 0.0,
                                      Check::Positive, Kind::CoolantTemperature);
  // A return above the supply window is expected: only the physical range applies.
  ratings.T_return_max =
      r->quantityOr("return_temperature_max", Dimension::Temperature, 0.0, Check::Positive);
  if (ratings.T_inlet_max > 0.0 && ratings.T_return_max > 0.0
      && ratings.T_return_max <= ratings.T_inlet_max) {
    r->fail("return_temperature_max", "must be above the inlet_temperature_max");
  }
  // Litres per minute per kW of heat into the liquid: the key carries the "per kW".
  ratings.flow_per_heat_min =
      r->quantityOr("flow_per_kW_min", Dimension::VolumeFlow, 0.0, Check::Positive) / 1e3;
  ratings.dp_manifold_max = r->quantityOr("manifold_differential_pressure_max", Dimension::Pressure,
                                          0.0, Check::Positive);
  ratings.p_qd_max =
      r->quantityOr("qd_working_pressure", Dimension::Pressure, 0.0, Check::Positive);
  ratings.V_flow_cold_plate_min =
      r->quantityOr("cold_plate_minimum_flow", Dimension::VolumeFlow, 0.0, Check::Positive);
  r->finish();
}

}  // namespace racktwin::scenarios::detail
