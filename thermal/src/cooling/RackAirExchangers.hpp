#pragma once
// Exchangers on a rack's exhaust air (components of a kind with ExchangeMedium::RackExhaustAir,
// e.g. rear-door heat exchangers), attached by the scenario. Each step, before the loops' sweeps,
// an exchanger sees the rack's exhaust air, the rack's air heat carried by the air through it
// (T_air_in = T_inlet + Q_rack_air / C_air, C_air from its fans or, passive, the servers' own air
// flow), and sets its coupling (G = eps C_min by the kind, T_other = T_air_in). On a CDU loop the
// sweep then moves the heat into the coolant implicitly; on facility water (a boundary) the heat
// is G (T_air_in - T_facility) at the kind's nominal water flow. The heat it moves leaves the
// room air; its fans' power enters it.
#include <cstdint>
#include <string>
#include <vector>

#include "cooling/Common.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/thermal/CoolantComponent.hpp"

namespace racktwin::core {
class Recorder;
class StateArchive;
}  // namespace racktwin::core

namespace racktwin::thermal::cooling {

struct CoolantLoop;

class RackAirExchangers {
 public:
  struct Item {
    const CoolantComponentKind* kind = nullptr;
    ComponentParameters p;
    std::string id;
    std::uint32_t rack = 0;
    double rack_air_V_flow = 0.0;  // m3/s of the servers' fans (a passive coil's air)
    std::int32_t loop = -1;        // its loop, or -1 on facility water (a boundary)
    Index link = 0;
    std::uint32_t coupling = 0;
    double C_water_boundary = 0.0;  // W/K at its nominal flow, on facility water
  };

  /// An exchanger on a loop's link (after the builder has placed it), or on facility water with
  /// the water's rho cp (J/(m3 K)).
  void addOnLoop(Item item);
  void addOnFacilityWater(Item item, double water_rho_cp);
  void finishBuild();
  bool empty() const noexcept { return items_.empty(); }

  /// Before the sweeps: every exchanger's air side and coupling. `rack_air_P` (W per rack) is the
  /// step's air heat, T_inlet the air entering the racks, T_facility the facility supply.
  void prepare(const std::vector<double>& rack_air_P, double T_inlet, double T_facility,
               const std::vector<CoolantLoop>& loops, std::vector<HeatCoupling>& couplings);
  /// After the sweeps: the heat each moved and the air leaving it. Returns, through the
  /// arguments, the heat taken from the room air (W), the part sent to facility water directly
  /// (W) and the fans' power (W).
  void take(const std::vector<CoolantLoop>& loops, const std::vector<HeatCoupling>& couplings,
            double& Q_from_room, double& Q_to_facility, double& P_fan);
  void book(double h);  // run totals over a cycle of length h

  void declareChannels(core::Recorder& recorder);
  /// The views recorded as interval means (for a step cycled in several thermal cycles).
  void meanViews(std::vector<double*>& out) {
    for (std::vector<double>* v : {&Q_flow_, &V_flow_, &fan_P_})
      for (double& x : *v)
        out.push_back(&x);
  }
  double heatMoved() const noexcept { return E_moved_; }  // J, from air into water
  double fanEnergy() const noexcept { return E_fan_; }    // J
  void visitState(core::StateArchive& archive);

 private:
  std::vector<Item> items_;
  // Per item: the step's air side, and the recorder views.
  std::vector<double> C_air_, T_air_in_, G_boundary_;
  std::vector<double> Q_flow_, V_flow_, T_air_out_, fan_P_;
  double Q_sum_ = 0.0, P_fan_sum_ = 0.0;
  double T_facility_ = 0.0;  // K, facility supply of the step (exchangers on facility water)
  double E_moved_ = 0.0, E_fan_ = 0.0;
};

}  // namespace racktwin::thermal::cooling
