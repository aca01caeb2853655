#include "Quantities.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "racktwin/core/DisplayUnits.hpp"
#include "racktwin/scenarios/FloorPlan.hpp"

namespace racktwin::gui {

std::string unitText(std::string_view unit) {
  if (unit == "degC") return "\u00B0C";
  if (unit == "degF") return "\u00B0F";
  if (unit == "delta_degF") return "\u0394\u00B0F";
  return std::string(unit);
}

QuantityDisplay display(Quantity quantity, core::UnitSystem units, double magnitude) {
  const char* label = "";
  switch (quantity) {
    case Quantity::GpuJunctionTemperature:
      label = "GPU junction temperature";
      break;
    case Quantity::RackPower:
      label = "Rack power";
      break;
    case Quantity::CoolantTemperature:
      label = "Coolant temperature";
      break;
    case Quantity::CoolantFlow:
      label = "Coolant flow";
      break;
    case Quantity::DesignMarginUsed:
      label = "Design margin used (tightest limit)";
      break;
  }
  // Rack powers read in kW however small the values at a given moment.
  if (quantity == Quantity::RackPower) magnitude = std::max(magnitude, 1e3);
  const core::DisplayUnit unit =
      core::displayUnitFor(viz::quantityInfo(quantity).unit, units, magnitude);
  return {label, unitText(unit.unit), unit.scale, unit.offset};
}

Quantities::Quantities(const core::SiteSpec& site, const ResultStore& store) : store_(store) {
  for (const core::RackSpec& rack : site.racks) {
    if (!rack.cdu.empty()) served_racks_[rack.cdu].push_back(rack.id.str());
    if (!rack.ring.empty()) served_racks_[rack.ring].push_back(rack.id.str());
  }
  // A hall of several (a group in the site tree) stands for its rows' racks.
  const core::FloorPlanSpec floor = scenarios::floorPlanOf(site);
  if (floor.halls.size() > 1) {
    for (const core::FloorHallSpec& hall : floor.halls) {
      std::vector<std::string>& racks = hall_racks_[hall.id];
      for (const std::uint32_t row : hall.rows)
        for (const std::uint32_t r : floor.rows[row].racks)
          racks.push_back(site.racks[r].id.str());
    }
  }
  // A CDU on a ring serves the ring's racks (their flow shares its pumps).
  for (const core::SecondaryRingSpec& ring : site.rings) {
    for (const std::string& tap : ring.taps) {
      const bool is_cdu = std::any_of(site.cdus.begin(), site.cdus.end(),
                                      [&](const core::CduSpec& c) { return c.id.str() == tap; });
      if (is_cdu) served_racks_[tap] = served_racks_[ring.id.str()];
    }
  }
}

std::vector<std::size_t> Quantities::columnsUnder(std::size_t channel,
                                                  const std::vector<std::string>& prefixes) const {
  std::vector<std::size_t> columns;
  const std::vector<std::string>& ids = store_.channels()[channel].info.entity_ids;
  for (std::size_t c = 0; c < ids.size(); ++c) {
    for (const std::string& prefix : prefixes) {
      const bool under =
          prefix.empty()
          || (ids[c].size() >= prefix.size() && ids[c].compare(0, prefix.size(), prefix) == 0
              && (ids[c].size() == prefix.size() || ids[c][prefix.size()] == '/'));
      if (under) {
        columns.push_back(c);
        break;
      }
    }
  }
  return columns;
}

Quantities::Selection Quantities::select(const std::string& entity, EntityKind kind,
                                         Quantity quantity) const {
  Selection selection;
  // Entities that stand for the racks they serve.
  std::vector<std::string> prefixes{entity};
  const bool serves = kind == EntityKind::Cdu || kind == EntityKind::Ring;
  if (serves) {
    const auto it = served_racks_.find(entity);
    prefixes = it == served_racks_.end() ? std::vector<std::string>{} : it->second;
  }
  if (kind == EntityKind::Group) {
    // A hall among the tree's groups: its racks (a hall's id prefixes none of their ids).
    const auto it = hall_racks_.find(entity);
    if (it != hall_racks_.end()) prefixes = it->second;
  }
  const bool whole_site = kind == EntityKind::Site || kind == EntityKind::Facility;
  if (whole_site) prefixes = {std::string()};

  auto use = [&](const char* group, const char* name, Aggregate aggregate,
                 const std::vector<std::string>& under) {
    const auto channel = store_.find(group, name);
    if (!channel) return false;
    std::vector<std::size_t> columns;
    if (store_.channels()[*channel].info.entity_ids.empty()) {
      columns = {0};  // a scalar channel
    } else {
      columns = columnsUnder(*channel, under);
    }
    if (columns.empty()) return false;
    selection.channel = *channel;
    selection.columns = std::move(columns);
    selection.aggregate = aggregate;
    selection.valid = true;
    return true;
  };
  // The id itself, then its parents (a GPU's tray outlet temperature), so every entity finds the
  // nearest thing recorded for it.
  auto useNearest = [&](const char* group, const char* name, Aggregate aggregate) {
    if (use(group, name, aggregate, prefixes)) return true;
    if (prefixes.size() != 1) return false;
    std::string id = prefixes[0];
    while (!id.empty()) {
      const std::size_t slash = id.rfind('/');
      id = slash == std::string::npos ? std::string() : id.substr(0, slash);
      if (!id.empty() && use(group, name, aggregate, {id})) return true;
    }
    return false;
  };

  switch (quantity) {
    case Quantity::GpuJunctionTemperature:
      // A large site's result keeps per-rack aggregates, not every GPU (output.per_gpu): a rack's
      // hottest GPU stands for the rack and for what is in it, as in the 3D view.
      useNearest("gpu", "T_junction", Aggregate::Max)
          || useNearest("gpu_by_rack", "T_junction.max", Aggregate::Max);
      break;
    case Quantity::RackPower:
      if (kind == EntityKind::Chip || kind == EntityKind::Tray) {
        use("gpu", "P", Aggregate::Sum, prefixes);
      } else if (!use("rack", "P_ac", Aggregate::Sum, prefixes) && whole_site) {
        use("site", "P_it", Aggregate::Sum, prefixes);
      }
      break;
    case Quantity::CoolantTemperature:
      if (serves && kind == EntityKind::Cdu) {
        use("cdu", "T_return", Aggregate::Max, {entity});
      } else if (useNearest("tray", "T_outlet", Aggregate::WeightedMean)) {
        // Mixed outlet temperature: weighted by the trays' flows.
        const auto flow = store_.find("tray", "V_flow");
        if (flow) {
          selection.weight_channel = *flow;
        } else {
          selection.aggregate = Aggregate::Max;
        }
      } else {
        // Per-rack aggregates only: the plain mean of a rack's tray outlets (no tray flows to
        // mix them by), the hottest rack's for several, as in the 3D view.
        useNearest("tray_by_rack", "T_outlet.mean", Aggregate::Max);
      }
      break;
    case Quantity::CoolantFlow:
      if (kind == EntityKind::Cdu) {
        use("cdu", "V_flow", Aggregate::Sum, {entity});
      } else if (kind == EntityKind::Chip) {
        useNearest("gpu", "V_flow", Aggregate::Sum) || useNearest("tray", "V_flow", Aggregate::Sum);
      } else if (kind == EntityKind::Tray) {
        use("tray", "V_flow", Aggregate::Sum, prefixes);
      } else if (kind == EntityKind::Site || kind == EntityKind::Facility) {
        use("cdu", "V_flow", Aggregate::Sum, prefixes);
      } else {
        use("rack", "V_flow", Aggregate::Sum, prefixes);
      }
      break;
    case Quantity::DesignMarginUsed:
      break;  // not a recorded series: one value per run, from the result's /limits (the scene)
  }
  return selection;
}

const Quantities::Selection& Quantities::resolve(const std::string& entity, EntityKind kind,
                                                 Quantity quantity) {
  const auto key = std::make_pair(entity, static_cast<int>(quantity));
  auto it = cache_.find(key);
  if (it == cache_.end()) it = cache_.emplace(key, select(entity, kind, quantity)).first;
  return it->second;
}

double Quantities::evaluate(const Selection& selection, std::size_t sample) const {
  if (!selection.valid || sample >= store_.samples())
    return std::numeric_limits<double>::quiet_NaN();
  switch (selection.aggregate) {
    case Aggregate::Max: {
      double result = -std::numeric_limits<double>::infinity();
      for (const std::size_t c : selection.columns)
        result = std::max(result, store_.value(sample, selection.channel, c));
      return result;
    }
    case Aggregate::Sum: {
      double result = 0.0;
      for (const std::size_t c : selection.columns)
        result += store_.value(sample, selection.channel, c);
      return result;
    }
    case Aggregate::WeightedMean: {
      double weighted = 0.0, weight = 0.0, plain = 0.0;
      for (const std::size_t c : selection.columns) {
        const double v = store_.value(sample, selection.channel, c);
        const double w = std::abs(store_.value(sample, selection.weight_channel, c));
        weighted += w * v;
        weight += w;
        plain += v;
      }
      // No flow at all (every pump stopped): the plain mean still says how hot the coolant is.
      return weight > 0.0 ? weighted / weight
                          : plain / static_cast<double>(selection.columns.size());
    }
  }
  return std::numeric_limits<double>::quiet_NaN();
}

double Quantities::value(const std::string& entity, EntityKind kind, Quantity quantity,
                         std::size_t sample) {
  return evaluate(resolve(entity, kind, quantity), sample);
}

std::vector<double> Quantities::series(const std::string& entity, EntityKind kind,
                                       Quantity quantity) {
  const Selection& selection = resolve(entity, kind, quantity);
  std::vector<double> values(store_.samples());
  for (std::size_t s = 0; s < values.size(); ++s)
    values[s] = evaluate(selection, s);
  return values;
}

}  // namespace racktwin::gui
