#include "cooling/RackAirExchangers.hpp"

#include <algorithm>
#include <string_view>

#include "cooling/CoolantLoop.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/StateArchive.hpp"
#include "racktwin/thermal/CrossFlowCoil.hpp"

namespace racktwin::thermal::cooling {

void RackAirExchangers::addOnLoop(Item item) {
  items_.push_back(std::move(item));
}

void RackAirExchangers::addOnFacilityWater(Item item, double water_rho_cp) {
  item.loop = -1;
  item.C_water_boundary = item.kind->nominalFlow(item.p) * water_rho_cp;
  items_.push_back(std::move(item));
}

void RackAirExchangers::finishBuild() {
  // The recorder takes one contiguous block of views per kind: group the items by kind.
  const std::span<const CoolantComponentKind* const> order = coolantComponentKinds();
  const auto rank = [&](const Item& x) {
    return std::find(order.begin(), order.end(), x.kind) - order.begin();
  };
  std::stable_sort(items_.begin(), items_.end(),
                   [&](const Item& a, const Item& b) { return rank(a) < rank(b); });
  const std::size_t n = items_.size();
  for (auto* v : {&C_air_, &T_air_in_, &G_boundary_, &Q_flow_, &V_flow_, &T_air_out_, &fan_P_})
    v->assign(n, 0.0);
}

void RackAirExchangers::prepare(const std::vector<double>& rack_air_P, double T_inlet,
                                double T_facility, const std::vector<CoolantLoop>& loops,
                                std::vector<HeatCoupling>& couplings) {
  T_facility_ = T_facility;
  for (std::size_t i = 0; i < items_.size(); ++i) {
    const Item& x = items_[i];
    const double speed = x.kind->fanSpeed(x.p);
    // Active: the fans set the air flow; passive: the servers push their own air through.
    const double V_air = speed > 0.0 ? x.kind->airFlow(x.p, speed) : x.rack_air_V_flow;
    const double C_air = V_air * kAirCapacityPerFlow;
    C_air_[i] = C_air;
    T_air_in_[i] = C_air > 0.0 ? T_inlet + rack_air_P[x.rack] / C_air : T_inlet;
    fan_P_[i] = x.kind->fanPower(x.p, speed);
    if (x.loop >= 0) {
      const CoolantLoop& loop = loops[static_cast<std::size_t>(x.loop)];
      HeatCoupling& c = couplings[x.coupling];
      c.G = x.kind->conductance(x.p, loop.C_link[x.link], C_air);
      c.T_other = T_air_in_[i];
    } else {
      G_boundary_[i] = x.kind->conductance(x.p, x.C_water_boundary, C_air);
    }
  }
}

void RackAirExchangers::take(const std::vector<CoolantLoop>& loops,
                             const std::vector<HeatCoupling>& couplings, double& Q_from_room,
                             double& Q_to_facility, double& P_fan) {
  Q_from_room = Q_to_facility = P_fan = 0.0;
  for (std::size_t i = 0; i < items_.size(); ++i) {
    const Item& x = items_[i];
    double Q = 0.0;  // W from the air into the water
    if (x.loop >= 0) {
      const CoolantLoop& loop = loops[static_cast<std::size_t>(x.loop)];
      Q = -couplings[x.coupling].Q_out;
      V_flow_[i] = loop.solver->V_flow()[x.link];
    } else {
      Q = G_boundary_[i] * (T_air_in_[i] - T_facility_);
      Q_to_facility += Q;
      V_flow_[i] = x.kind->nominalFlow(x.p);
    }
    Q_flow_[i] = Q;
    T_air_out_[i] = C_air_[i] > 0.0 ? T_air_in_[i] - Q / C_air_[i] : T_air_in_[i];
    Q_from_room += Q;
    P_fan += fan_P_[i];
  }
  Q_sum_ = Q_from_room;
  P_fan_sum_ = P_fan;
}

void RackAirExchangers::book(double h) {
  E_moved_ += Q_sum_ * h;
  E_fan_ += P_fan_sum_ * h;
}

void RackAirExchangers::declareChannels(core::Recorder& recorder) {
  // One group per kind present ("rear-door-hx" -> "rear_door_hx"), a column per instance.
  std::vector<const CoolantComponentKind*> kinds;
  for (const Item& x : items_)
    if (std::find(kinds.begin(), kinds.end(), x.kind) == kinds.end()) kinds.push_back(x.kind);
  for (const CoolantComponentKind* kind : kinds) {
    std::vector<std::string> ids;
    std::size_t first = items_.size();
    for (std::size_t i = 0; i < items_.size(); ++i) {
      if (items_[i].kind != kind) continue;
      first = std::min(first, i);
      ids.push_back(items_[i].id);
    }
    // finishBuild grouped the items by kind: a kind's views are one contiguous block.
    std::string group(kind->name());
    std::replace(group.begin(), group.end(), '-', '_');
    for (const ComponentChannel& ch : kind->channels()) {
      const std::string description(ch.description);
      switch (ch.quantity) {
        case ComponentQuantity::Q_flow:
          recorder.add({group, "Q_flow", "W", description, ids, core::Aggregation::Mean},
                       Q_flow_.data() + first);
          break;
        case ComponentQuantity::V_flow:
          recorder.add({group, "V_flow", "m3/s", description, ids, core::Aggregation::Mean},
                       V_flow_.data() + first);
          break;
        case ComponentQuantity::T_air_outlet:
          recorder.add(
              {group, "T_air_outlet", "K", description, ids, core::Aggregation::SampleAndMax},
              T_air_out_.data() + first);
          break;
        case ComponentQuantity::fan_P:
          recorder.add({group, "fan_P", "W", description, ids, core::Aggregation::Mean},
                       fan_P_.data() + first);
          break;
        case ComponentQuantity::T_outlet:
          break;  // the coolant side is recorded by its loop
      }
    }
  }
}

void RackAirExchangers::visitState(core::StateArchive& a) {
  a(C_air_, T_air_in_, G_boundary_, Q_flow_, V_flow_, T_air_out_, fan_P_);
  a(Q_sum_, P_fan_sum_, E_moved_, E_fan_, T_facility_);
}

}  // namespace racktwin::thermal::cooling
