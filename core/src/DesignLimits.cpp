// The catalogue of design limits: which recorded channels each rating of the site's data is
// checked against (docs/capacity.md, "Limits checked").
#include "racktwin/core/DesignLimits.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "racktwin/core/Units.hpp"

namespace racktwin::core {
namespace {

using Reduce = LimitInput::Reduce;

// ASHRAE TC 9.9 liquid cooling classes (5th ed.): the class number is the highest facility water
// supply temperature in degC (gb300_nvl72.md §2, [S] Upsite via reedos item 7).
constexpr double kWClasses_degC[] = {17.0, 27.0, 32.0, 40.0, 45.0};

LimitInput input(std::string channel, std::vector<std::string> entities,
                 Reduce reduce = Reduce::Max, bool peak = false) {
  LimitInput in;
  in.channel = std::move(channel);
  in.entities = std::move(entities);
  in.reduce = reduce;
  in.peak = peak;
  return in;
}

LimitInput prefixed(std::string channel, std::string prefix, Reduce reduce, bool peak = false) {
  LimitInput in;
  in.channel = std::move(channel);
  in.prefix = std::move(prefix);
  in.reduce = reduce;
  in.peak = peak;
  return in;
}

LimitInput scalar(std::string channel, bool peak = false) {
  return input(std::move(channel), {}, Reduce::Max, peak);
}

/// The row a rack stands in, as the floor plan names it: its id's prefix ("row1/rack03" ->
/// "row1", "hall1/row02/rack03" -> "hall1/row02"), or the id.
std::string rowOf(const std::string& rack) {
  const std::size_t slash = rack.rfind('/');
  return slash == std::string::npos ? rack : rack.substr(0, slash);
}

std::string dataFile(const char* folder, const std::string& type) {
  return "data/" + std::string(folder) + "/" + type + ".yaml";
}

/// Builds the list; each add* names its group once.
class Catalogue {
 public:
  explicit Catalogue(const SiteSpec& site) : site_(site) {}

  std::vector<DesignLimit> build() {
    for (const CduSpec& cdu : site_.cdus)
      addCdu(cdu);
    for (const RackSpec& rack : site_.racks)
      addRack(rack);
    addFacility();
    addElectrical();
    return std::move(limits_);
  }

 private:
  DesignLimit& add(std::string component, std::string name, std::string group,
                   std::string group_kind, std::string label, std::string unit, std::string source,
                   bool at_most, double rating, double scale) {
    DesignLimit l;
    l.component = std::move(component);
    l.name = std::move(name);
    l.group = std::move(group);
    l.group_kind = std::move(group_kind);
    l.label = std::move(label);
    l.unit = std::move(unit);
    l.source = std::move(source);
    l.at_most = at_most;
    l.rating = rating;
    l.scale = scale;
    limits_.push_back(std::move(l));
    return limits_.back();
  }
  DesignLimit& addTemperature(std::string component, std::string name, std::string group,
                              std::string group_kind, std::string label, std::string source,
                              double rating) {
    return add(std::move(component), std::move(name), std::move(group), std::move(group_kind),
               std::move(label), "K", std::move(source), true, rating, kTemperatureMarginScale_K);
  }

  /// The racks a CDU cools: those naming it, and those on its ring.
  std::vector<const RackSpec*> racksOf(const CduSpec& cdu) const {
    std::vector<const RackSpec*> out;
    std::string ring;
    for (const SecondaryRingSpec& r : site_.rings) {
      if (std::find(r.taps.begin(), r.taps.end(), cdu.id.str()) != r.taps.end()) ring = r.id.str();
    }
    for (const RackSpec& rack : site_.racks) {
      if (rack.cdu == cdu.id.str() || (!ring.empty() && rack.ring == ring)) out.push_back(&rack);
    }
    return out;
  }

  void addCdu(const CduSpec& c);
  void addRack(const RackSpec& rack);
  void addFacility();
  void addElectrical();
  void addWClass(const std::string& component, const std::string& group,
                 const std::string& group_kind, double T_supply, LimitInput supply);

  const SiteSpec& site_;
  std::vector<DesignLimit> limits_;
};

void Catalogue::addWClass(const std::string& component, const std::string& group,
                          const std::string& group_kind, double T_supply, LimitInput supply) {
  const double T_class = ashraeWClassLimit(T_supply);
  if (!(T_class > 0.0)) return;  // W+: no upper limit
  DesignLimit& l = addTemperature(
      component, "facility_supply_class", group, group_kind,
      "Facility water supply within ASHRAE " + ashraeWClassName(T_supply),
      "ASHRAE liquid cooling class of the facility supply set-point (gb300_nvl72.md §2) [S]",
      T_class);
  l.inputs = {std::move(supply)};
}

void Catalogue::addCdu(const CduSpec& c) {
  const std::string id = c.id.str();
  const std::string file = dataFile("cdus", c.type);
  const std::vector<std::string> me{id};
  {
    DesignLimit& l = add(id, "rated_heat", id, "cdu", "CDU rated heat", "W", file + ": rated_heat",
                         true, c.Q_flow_nominal, c.Q_flow_nominal);
    l.inputs = {input("cdu/Q_flow", me)};
  }
  if (c.rejection == CduSpec::Rejection::FacilityWater) {
    // At rated flows a counter-flow exchanger of equal capacity rates has the same temperature
    // difference along its length, Q / UA: the approach it needs grows in proportion to the heat
    // it moves. The facility supply plus that approach must stay at or below the set-point.
    DesignLimit& l = addTemperature(
        id, "approach", id, "cdu", "Facility supply + approach at this heat within the set-point",
        file + ": approach, rated_heat; the CDU's set-point", c.T_supply_set);
    l.formula = LimitFormula::Affine;
    l.inputs = {input("cdu/T_facility_supply", me, Reduce::Max, true), input("cdu/Q_flow", me)};
    l.c0 = c.approach_nominal / c.Q_flow_nominal;
  }
  const CduRatingsSpec& r = c.ratings;
  if (r.V_flow_secondary_max > 0.0) {
    DesignLimit& l = add(id, "secondary_flow", id, "cdu", "CDU secondary flow", "m3/s",
                         file + ": ratings.secondary_flow_max", true, r.V_flow_secondary_max,
                         r.V_flow_secondary_max);
    l.inputs = {input("cdu/V_flow", me)};
  }
  if (r.pump_runout_fraction > 0.0) {
    DesignLimit& l =
        add(id, "pump_runout", id, "cdu", "Pump flow over its zero-head flow at speed (run-out)",
            "1", file + ": ratings.pump_runout_fraction", true, r.pump_runout_fraction,
            r.pump_runout_fraction);
    l.formula = LimitFormula::PumpRunout;
    l.inputs = {input("cdu/V_flow", me), input("cdu/pump_dp", me), input("cdu/pumps_running", me)};
    l.c0 = c.pump.dp_shutoff;
    l.c1 = c.pump.V_flow_max;
  }
  const auto served = racksOf(c);
  if (r.p_secondary_design > 0.0) {
    DesignLimit& l = add(id, "loop_pressure", id, "cdu",
                         "Pump discharge pressure (fill + pump rise) within the loop's design",
                         "Pa", file + ": ratings.secondary_design_pressure, ratings.fill_pressure",
                         true, r.p_secondary_design, r.p_secondary_design);
    l.formula = LimitFormula::Affine;
    l.inputs = {input("cdu/pump_dp", me)};
    l.c1 = r.p_fill;
  }
  // The racks' limits that the CDU's own supply decides: the lowest rating of the racks served.
  double T_inlet = std::numeric_limits<double>::infinity(), p_qd = T_inlet;
  std::string inlet_type, qd_type;
  for (const RackSpec* rack : served) {
    const RackCoolingRatingsSpec& rr = rack->type.ratings;
    if (rr.T_inlet_max > 0.0 && rr.T_inlet_max < T_inlet) {
      T_inlet = rr.T_inlet_max;
      inlet_type = rack->type.type;
    }
    if (rr.p_qd_max > 0.0 && rr.p_qd_max < p_qd) {
      p_qd = rr.p_qd_max;
      qd_type = rack->type.type;
    }
  }
  if (std::isfinite(T_inlet)) {
    DesignLimit& l = addTemperature(
        id, "rack_inlet_temperature", id, "cdu", "Secondary supply within the racks' inlet limit",
        dataFile("racks", inlet_type) + ": ratings.inlet_temperature_max", T_inlet);
    l.inputs = {input("cdu/T_supply", me, Reduce::Max, true)};
  }
  if (std::isfinite(p_qd) && r.p_fill > 0.0) {
    DesignLimit& l = add(id, "qd_pressure", id, "cdu",
                         "Pump discharge pressure within the quick disconnects' rating", "Pa",
                         dataFile("racks", qd_type) + ": ratings.qd_working_pressure; " + file
                             + ": ratings.fill_pressure",
                         true, p_qd, p_qd);
    l.formula = LimitFormula::Affine;
    l.inputs = {input("cdu/pump_dp", me)};
    l.c1 = r.p_fill;
  }
}

void Catalogue::addRack(const RackSpec& rack) {
  const std::string id = rack.id.str();
  const std::string row = rowOf(id);
  const std::string file = dataFile("racks", rack.type.type);
  const std::string inside = id + "/";
  const RackTypeSpec& type = rack.type;
  const RackCoolingRatingsSpec& r = type.ratings;
  {
    // A GPU in slowdown runs slower (throttled): the junction must stay below where it starts.
    DesignLimit& l = addTemperature(id, "gpu_slowdown", row, "row",
                                    "GPU junction below its slowdown temperature",
                                    file + ": gpu.slowdown_temperature", type.gpu.T_slowdown);
    l.inputs = {prefixed("gpu/T_junction", inside, Reduce::Max, true)};
  }
  if (r.T_return_max > 0.0) {
    DesignLimit& l =
        addTemperature(id, "return_temperature", row, "row", "Coolant leaving the rack's trays",
                       file + ": ratings.return_temperature_max", r.T_return_max);
    l.inputs = {prefixed("tray/T_outlet", inside, Reduce::Max, true)};
  }
  if (r.flow_per_heat_min > 0.0) {
    // Heat into the liquid: the DC busbar load less the air-cooled tray loads of the data.
    const double air =
        type.compute_trays * type.compute_tray_air_P + type.switch_trays * type.switch_tray_air_P;
    DesignLimit& l =
        add(id, "flow_per_heat", row, "row", "Rack coolant flow per heat into liquid", "m3/s/W",
            file + ": ratings.flow_per_kW_min", false, r.flow_per_heat_min, r.flow_per_heat_min);
    l.formula = LimitFormula::PerHeat;
    l.inputs = {input("rack/V_flow", {id}), input("rack/P_dc", {id})};
    l.c0 = air;
  }
  if (r.V_flow_cold_plate_min > 0.0) {
    DesignLimit& l = add(id, "cold_plate_flow", row, "row", "Lowest GPU cold-plate flow", "m3/s",
                         file + ": ratings.cold_plate_minimum_flow", false, r.V_flow_cold_plate_min,
                         r.V_flow_cold_plate_min);
    l.inputs = {prefixed("gpu/V_flow", inside, Reduce::Min)};
  }
  if (r.dp_manifold_max > 0.0) {
    DesignLimit& l =
        add(id, "manifold_dp", row, "row", "Differential pressure across the rack's manifolds",
            "Pa", file + ": ratings.manifold_differential_pressure_max", true, r.dp_manifold_max,
            r.dp_manifold_max);
    l.inputs = {input("rack/dp_available", {id})};
  }
}

void Catalogue::addFacility() {
  // A boundary's supply temperature is given, not an outcome: limits only on modelled loops.
  const std::vector<FacilityLoopView> loops = facilityLoopsOf(site_);
  for (const FacilityLoopView& loop : loops) {
    // One loop: scalar channels of the site. Several: each loop's column, grouped by loop.
    const bool one = loops.size() == 1;
    const std::string base = one ? "facility" : "facility/" + loop.id;
    const std::string group = one ? "site" : loop.id;
    const std::string kind = one ? "site" : "facility loop";
    const auto channel = [&](std::string name, bool peak = false) {
      return one ? scalar(std::move(name), peak)
                 : input(std::move(name), {loop.id}, Reduce::Max, peak);
    };
    addWClass(base, group, kind, loop.T_supply, channel("facility/T_supply", true));
    const HeatRejectionSpec& h = loop.spec->heat_rejection;
    if (h.units > 0 && h.Q_flow_nominal > 0.0) {
      const double rated = h.units * h.Q_flow_nominal;
      DesignLimit& l =
          add(base + "/heat_rejection", "rated_heat", group, kind,
              "Heat rejected by the plant (all units at their design point)", "W",
              dataFile("heat-rejection", h.type) + ": rated_heat x units", true, rated, rated);
      l.inputs = {channel("facility/Q_flow_rejected")};
    }
    const ChillerSpec& chiller = loop.spec->chiller;
    if (chiller.present && chiller.Q_flow_nominal > 0.0) {
      DesignLimit& l = add(base + "/chiller", "capacity", group, kind, "Trim chiller capacity", "W",
                           dataFile("chillers", chiller.type) + ": capacity", true,
                           chiller.Q_flow_nominal, chiller.Q_flow_nominal);
      l.inputs = {channel("facility/Q_flow_chiller")};
    }
  }
}

void Catalogue::addElectrical() {
  const ElectricalSpec& e = site_.electrical;
  if (!e.present) return;
  const std::string source = "the scenario's electrical section";
  const auto current = [&](const std::string& id, const char* label, double I_rated,
                           const std::string& how) {
    if (!(I_rated > 0.0)) return;
    DesignLimit& l = add(id, "rated_current", id, "feeder", label, "A", source + ": " + how, true,
                         I_rated, I_rated);
    l.inputs = {input("power_tree/current", {id})};
  };
  const auto breaker = [&](const std::string& id, const BreakerSpec& b) {
    if (!b.present || !(b.I_pickup > 0.0)) return;
    DesignLimit& l = add(id, "breaker_pickup", id, "feeder",
                         "Current below the breaker's pickup (inverse-time element)", "A",
                         source + ": breaker pickup", true, b.I_pickup, b.I_pickup);
    l.inputs = {input("power_tree/current", {id})};
  };
  const double kSqrt3 = std::sqrt(3.0);
  for (const TransformerSpec& t : e.transformers) {
    current(t.id, "Transformer loading (current over rated)", t.S_rated / (kSqrt3 * t.V_secondary),
            "S_rated / (sqrt(3) V_secondary)");
    breaker(t.id, t.breaker);
  }
  for (const UpsSpec& u : e.upses) {
    const double P = u.modules * u.P_rated;
    DesignLimit& l = add(u.id, "rated_power", u.id, "feeder", "UPS output over its rating", "W",
                         source + ": modules x rated power", true, P, P);
    l.inputs = {input("ups/P_out", {u.id})};
    breaker(u.id, u.breaker);
  }
  for (const LineSpec& line : e.lines) {
    current(line.id, "Line loading (current over its ampacity)", line.I_rated, "I_rated");
    breaker(line.id, line.breaker);
  }
  if (e.generator.present && e.generator.P_rated > 0.0) {
    const double P = e.generator.units * e.generator.P_rated;
    DesignLimit& l =
        add("generators", "rated_power", "generators", "feeder", "Generator output over its rating",
            "W", source + ": units x rated power", true, P, P);
    l.inputs = {scalar("site/P_generator")};
  }
  for (const RackFeedSpec& f : e.rack_feeds) {
    for (const int side : {0, 1}) {
      const FeedSpec& feed = side == 0 ? f.a : f.b;
      if (side == 1 && !f.dual) continue;
      if (!(feed.I_rated > 0.0)) continue;
      const std::string& parent = side == 0 ? f.parent_a : f.parent_b;
      const std::string name = side == 0 ? "feed_a_current" : "feed_b_current";
      DesignLimit& l = add(f.rack, name, parent.empty() ? "mv_bus" : parent, "feeder",
                           side == 0 ? "Rack feed A loading" : "Rack feed B loading", "A",
                           source + ": rack feed I_rated", true, feed.I_rated, feed.I_rated);
      l.inputs = {input("rack/" + name, {f.rack})};
    }
  }
}

}  // namespace

std::string DesignLimit::quantity() const {
  std::string out;
  for (const LimitInput& in : inputs) {
    if (!out.empty()) out += ", ";
    out += "/" + in.channel;
  }
  return out;
}

double ashraeWClassLimit(double T_supply) {
  for (const double T : kWClasses_degC) {
    if (T_supply <= fromCelsius(T) + 1e-9) return fromCelsius(T);
  }
  return 0.0;
}

std::string ashraeWClassName(double T_supply) {
  const double T = ashraeWClassLimit(T_supply);
  if (!(T > 0.0)) return "W+";
  return "W" + std::to_string(static_cast<int>(std::lround(toCelsius(T))));
}

std::vector<DesignLimit> designLimits(const SiteSpec& site) {
  return Catalogue(site).build();
}

}  // namespace racktwin::core
