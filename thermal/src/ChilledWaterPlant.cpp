#include "racktwin/thermal/ChilledWaterPlant.hpp"

#include <algorithm>
#include <cmath>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/StateArchive.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/thermal/Coolant.hpp"
#include "racktwin/thermal/HeatRejection.hpp"

namespace racktwin::thermal {

ChilledWaterPlant::ChilledWaterPlant(const core::AirPlantSpec& spec,
                                     const core::AmbientSpec& ambient)
    : spec_(spec), outdoor_(ambient) {
  RACKTWIN_ASSERT(spec.chillers >= 1 && spec.chiller_Q_flow_nominal > 0.0
                      && spec.chiller_COP_reference > 0.0 && spec.dT_chw > 0.0
                      && spec.T_cw_reference > spec.T_chw_reference,
                  "the loader checks the air-side plant's data");
}

double ChilledWaterPlant::fullLoadCop(double T_e, double T_c) const {
  // A constant fraction of the Carnot COP, anchored at the reference point; no lift: the cap.
  if (!(T_c > T_e)) return spec_.chiller_COP_max;
  const double carnot = T_e / (T_c - T_e);
  const double carnot_ref = spec_.T_chw_reference / (spec_.T_cw_reference - spec_.T_chw_reference);
  return std::min(spec_.chiller_COP_max, spec_.chiller_COP_reference * carnot / carnot_ref);
}

double ChilledWaterPlant::partLoadFactor(double PLR) const {
  return spec_.eir_plr[0] + spec_.eir_plr[1] * PLR + spec_.eir_plr[2] * PLR * PLR;
}

void ChilledWaterPlant::advance(double t, double h, double Q) {
  outdoor_.update(t);
  T_wet_bulb_ = outdoor_.wetBulb();
  const CoolantProperties water = Coolant::water().at(spec_.T_chw_supply);
  Q_ = std::max(Q, 0.0);
  // Chilled water at the design rise through the coils (variable flow).
  const double V_chw = Q_ / (water.rho * water.cp * spec_.dT_chw);
  P_chw_pump_ = V_chw * spec_.chw_pump_dp / spec_.chw_pump_efficiency;
  const double T_return = spec_.T_chw_supply + spec_.dT_chw;
  const double T_tower = T_wet_bulb_ + spec_.tower_approach;
  // The economiser precools the return with tower water (in series ahead of the chillers).
  double f = 0.0;
  if (spec_.economiser) {
    const double T_econ = T_tower + spec_.economiser_approach;
    f = std::clamp((T_return - T_econ) / spec_.dT_chw, 0.0, 1.0);
  }
  // The pump's work heats the chilled water: the plant carries it with the coils' load.
  const double Q_water = Q_ + P_chw_pump_;
  Q_economiser_ = f * Q_water;
  const double Q_chiller_load = Q_water - Q_economiser_;
  const double capacity = spec_.chillers * spec_.chiller_Q_flow_nominal;
  Q_chillers_ = std::min(Q_chiller_load, capacity);
  P_chillers_ = 0.0;
  COP_ = 0.0;
  chillers_running_ = 0.0;
  if (Q_chillers_ > 0.0) {
    const double n = std::min<double>(
        spec_.chillers, std::ceil(Q_chillers_ / spec_.chiller_Q_flow_nominal - 1e-12));
    const double PLR =
        std::max(Q_chillers_ / (n * spec_.chiller_Q_flow_nominal), spec_.chiller_PLR_min);
    COP_ = fullLoadCop(spec_.T_chw_supply, T_tower);
    P_chillers_ = n * spec_.chiller_Q_flow_nominal * partLoadFactor(PLR) / COP_;
    chillers_running_ = n;
    t_chillers_ += h;
  } else if (Q_water > 0.0) {
    t_free_ += h;
  }
  if (Q_chiller_load > capacity * (1.0 + 1e-12)) t_unmet_ += h;
  // The tower rejects the economiser's and the chillers' heat and the chillers' work.
  Q_rejected_ = Q_economiser_ + Q_chillers_ + P_chillers_;
  P_tower_fans_ = spec_.tower_fan_power_fraction * Q_rejected_;
  P_cw_pumps_ = spec_.cw_pump_power_fraction * Q_rejected_;
  // Evaporation carries the rejected heat; blow-down keeps the concentration of solids.
  const double evaporation = Q_rejected_ / (kWaterLatentHeat_J_per_kg * water.rho);
  water_rate_ = evaporation * spec_.cycles_of_concentration / (spec_.cycles_of_concentration - 1.0);
  P_electric_ = P_chillers_ + P_chw_pump_ + P_tower_fans_ + P_cw_pumps_;
  E_electric_ += P_electric_ * h;
  E_chillers_ += P_chillers_ * h;
  E_economiser_ += Q_economiser_ * h;
  E_load_ += Q_ * h;
  water_m3_ += water_rate_ * h;
}

void ChilledWaterPlant::declareChannels(core::Recorder& r) {
  using core::Aggregation;
  const std::vector<std::string> none;
  r.add({"air_plant", "Q_flow", "W", "Heat the CRAH coils put into chilled water", none,
         Aggregation::Mean},
        &Q_);
  r.add({"air_plant", "Q_flow_economiser", "W", "Heat the water-side economiser carries", none,
         Aggregation::Mean},
        &Q_economiser_);
  r.add(
      {"air_plant", "chiller_P", "W", "Electrical power of the chillers", none, Aggregation::Mean},
      &P_chillers_);
  r.add({"air_plant", "chillers_running", "1", "Chillers running", none, Aggregation::Sample},
        &chillers_running_);
  r.add({"air_plant", "COP", "1", "Full-load COP of a chiller at the present lift (0: off)", none,
         Aggregation::Sample},
        &COP_);
  r.add({"air_plant", "cw_pump_P", "W", "Electrical power of the condenser-water pumps", none,
         Aggregation::Mean},
        &P_cw_pumps_);
  r.add({"air_plant", "chw_pump_P", "W", "Electrical power of the chilled-water pumps", none,
         Aggregation::Mean},
        &P_chw_pump_);
  r.add({"air_plant", "tower_fan_P", "W", "Electrical power of the cooling-tower fans", none,
         Aggregation::Mean},
        &P_tower_fans_);
  r.add(
      {"air_plant", "P", "W", "Electrical power of the air side's plant", none, Aggregation::Mean},
      &P_electric_);
  r.add({"air_plant", "V_flow_water_use", "m3/s", "Cooling-tower make-up water", none,
         Aggregation::Mean},
        &water_rate_);
}

void ChilledWaterPlant::summarise(core::Summary& s) const {
  s.add({"air_plant_energy_J", E_electric_, "Air-side plant energy (chillers, pumps, tower fans)",
         "kWh", 1.0 / 3.6e6, 0.0});
  s.add({"air_plant_chiller_energy_J", E_chillers_, "Air-side chiller energy", "kWh", 1.0 / 3.6e6,
         0.0});
  s.add({"air_plant_economiser_share",
         E_load_ > 0.0 ? std::optional<double>(E_economiser_ / E_load_) : std::nullopt,
         "Share of the CRAH heat the economiser carried", "", 1.0, 0.0});
  s.add({"air_plant_chiller_time_s", t_chillers_, "Air-side chillers running", "h", 1.0 / 3600.0,
         0.0});
  s.add({"air_plant_free_cooling_time_s", t_free_, "Air-side plant on the economiser alone", "h",
         1.0 / 3600.0, 0.0});
  s.add({"air_plant_unmet_time_s", t_unmet_, "Air-side load beyond the chillers' capacity", "h",
         1.0 / 3600.0, 0.0});
  s.add({"air_plant_water_use_m3", water_m3_, "Air-side plant make-up water", "L", 1e3, 0.0});
}

void ChilledWaterPlant::visitState(core::StateArchive& a) {
  outdoor_.visitState(a);
  a(Q_, Q_economiser_, Q_chillers_, Q_rejected_, P_chillers_, P_chw_pump_, P_tower_fans_,
    P_cw_pumps_, P_electric_, COP_, chillers_running_, water_rate_, T_wet_bulb_);
  a(E_electric_, E_chillers_, E_economiser_, E_load_, t_chillers_, t_free_, t_unmet_, water_m3_);
}

}  // namespace racktwin::thermal
