// Energy flows of a run as a Sankey diagram: from the electricity the site drew, through IT and
// its losses, to the heat the coolant and room air carried and where it was rejected. Every flow
// is a summary energy of the run (the models' books, closed by the energy audit).
#include <algorithm>
#include <cmath>
#include <map>

#include "Html.hpp"
#include "RunContext.hpp"

namespace racktwin::report {
namespace {

class Flows {
 public:
  std::size_t node(const std::string& label, const char* colour) {
    const auto it = index_.find(label);
    if (it != index_.end()) return it->second;
    labels_.push_back(label);
    colours_.push_back(colour);
    return index_[label] = labels_.size() - 1;
  }
  /// A flow of `energy` J; left out when it is not a positive amount (above 1e-9 of the total).
  void link(std::size_t from, std::size_t to, double energy, double scale) {
    if (!(energy > 1e-9 * std::max(1.0, reference_))) return;
    source_.push_back(from);
    target_.push_back(to);
    value_.push_back(energy * scale);
  }
  void setReference(double energy) { reference_ = energy; }
  bool empty() const { return value_.empty(); }
  nlohmann::json trace(const std::string& unit) const {
    return {{"type", "sankey"},
            {"orientation", "h"},
            {"valueformat", ",.4~r"},
            {"valuesuffix", " " + unit},
            {"node", {{"label", labels_}, {"color", colours_}, {"pad", 18}, {"thickness", 16}}},
            {"link", {{"source", source_}, {"target", target_}, {"value", value_}}},
            {"meta", {{"source", "summary_json"}, {"reduction", "sankey"}}}};
  }

 private:
  std::map<std::string, std::size_t> index_;
  std::vector<std::string> labels_;
  std::vector<std::string> colours_;
  std::vector<std::size_t> source_, target_;
  std::vector<double> value_;
  double reference_ = 0.0;
};

}  // namespace

void energyFlowSection(Page& page, const RunContext& c) {
  const ResultData& data = c.data;
  const auto get = [&data](const char* key) { return data.summaryValue(key).value_or(0.0); };
  const double it = get("it_energy_J");
  if (!(it > 0.0)) return;
  page.section("energy", "Energy flows");
  const double tree_input =
      data.hasSummaryKey("facility_electrical_energy_J") ? get("facility_electrical_energy_J") : it;
  const double stored_electrically = get("electrical_storage_energy_change_J");  // > 0: charged
  const double cooling = get("cooling_energy_J");
  const double psu = get("psu_loss_energy_J");
  const double busbar = get("busbar_loss_energy_J");
  const double heat_in = get("heat_input_J");
  const double water = get("heat_rejected_to_facility_water_J");
  const double air = get("heat_rejected_to_air_J");
  const double outdoors = get("heat_rejected_outdoors_J");

  const bool mwh = it >= 3.6e10;
  const double scale = mwh ? 1.0 / 3.6e9 : 1.0 / 3.6e6;
  Flows f;
  f.setReference(it);
  const bool tree_modelled = data.hasSummaryKey("utility_energy_J");
  const std::size_t grid =
      f.node(tree_modelled ? "Utility and generators" : "Electricity supply", "#1d2b44");
  const std::size_t storage = f.node("Batteries and rack storage", "#556b8f");
  const std::size_t tree = f.node(tree_modelled ? "Power tree" : "Rack feeds", "#34568b");
  const std::size_t cooling_power = f.node("Cooling equipment", "#17becf");
  const std::size_t it_node = f.node("IT (power shelves)", "#1f77b4");
  const std::size_t distribution = f.node("Distribution losses", "#7f7f7f");
  const std::size_t psu_node = f.node("PSU and busbar losses", "#8c564b");
  const std::size_t chips = f.node("Chips and trays", "#d62728");
  const std::size_t heat = f.node("Heat into coolant and room air", "#ff7f0e");
  const std::size_t water_node = f.node("Facility water", "#2ca02c");
  const std::size_t air_node = f.node("Room air (CRAH)", "#bcbd22");
  const std::size_t stored_heat = f.node("Heat stored (coolant, chips, room)", "#9467bd");
  const std::size_t released = f.node("Heat released from storage", "#9467bd");
  const std::size_t elsewhere = f.node("Fans and motors outside the room", "#aec7e8");

  const double drawn = std::max(0.0, -stored_electrically);
  const double charged = std::max(0.0, stored_electrically);
  f.link(grid, tree, tree_input, scale);
  f.link(storage, tree, drawn, scale);
  f.link(tree, storage, charged, scale);
  f.link(tree, it_node, it, scale);
  const double distribution_losses = tree_input + drawn - charged - it;
  f.link(tree, distribution, distribution_losses, scale);
  f.link(it_node, psu_node, psu + busbar, scale);
  f.link(it_node, chips, it - psu - busbar, scale);
  f.link(chips, heat, it - psu - busbar, scale);
  f.link(psu_node, heat, psu + busbar, scale);
  // What entered the coolant and room air beyond the IT energy came from the cooling equipment
  // (pump work, fans in the room) and then from distribution losses inside the room.
  const double extra = heat_in - it;
  const double from_cooling = std::clamp(extra, 0.0, cooling);
  f.link(cooling_power, heat, from_cooling, scale);
  f.link(cooling_power, elsewhere, cooling - from_cooling, scale);
  f.link(distribution, heat,
         std::clamp(extra - from_cooling, 0.0, std::max(0.0, distribution_losses)), scale);
  const double stored = heat_in - water - air;
  f.link(heat, water_node, water, scale);
  f.link(heat, air_node, air, scale);
  f.link(heat, stored_heat, stored, scale);
  f.link(released, water_node, -stored, scale);
  if (outdoors > 0.0)
    f.link(water_node, f.node("Outdoors (heat rejection, chiller)", "#98df8a"), outdoors, scale);
  page.figure(nlohmann::json::array({f.trace(mwh ? "MWh" : "kWh")}), nlohmann::json::object(),
              "Energy over the run from the summary: the electricity drawn (utility, generators, "
              "storage, cooling equipment), IT and its losses, and the heat the coolant and room "
              "air carried to facility water, the CRAH units and storage. Heat beyond the IT "
              "energy is pump work and losses inside the room.",
              460);
}

}  // namespace racktwin::report
