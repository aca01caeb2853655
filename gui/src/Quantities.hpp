#pragma once
// The quantities the window colours the 3D view by and charts: what each means for each kind of
// entity (a GPU's own junction temperature, a rack's hottest GPU, a CDU's return temperature) and
// how it is read from the recorded channels. Selections are resolved once per entity and then
// evaluated per sample without string work. No Qt here.
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ResultStore.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/viz/Quantity.hpp"

namespace racktwin::gui {

using viz::Quantity;

/// How the window shows a quantity: the unit core::displayUnitFor gives for the unit system and
/// the size of the values (the scene's legend follows the same rule), so a temperature reads in
/// the same unit in the charts, the details and the legend.
struct QuantityDisplay {
  const char* label;   // "GPU junction temperature"
  std::string unit;    // display unit as people write it, "°C", "kW", "gpm"
  double scale = 1.0;  // display = SI * scale + offset
  double offset = 0.0;
};
/// `magnitude`: the largest absolute SI value to show (chooses W, kW or MW); 0 when unknown.
QuantityDisplay display(Quantity quantity, core::UnitSystem units = core::UnitSystem::SI,
                        double magnitude = 0.0);
/// A unit as people write it: degC -> °C, degF -> °F; others as they are.
std::string unitText(std::string_view unit);

/// Kinds of entity in the site tree.
enum class EntityKind : int { Site, Row, Rack, Tray, Chip, Cdu, Ring, Feed, Facility, Group };

class Quantities {
 public:
  /// `site` names which racks a CDU or ring serves; the store gives the channels.
  Quantities(const core::SiteSpec& site, const ResultStore& store);

  /// The quantity of an entity at a sample, SI; NaN when the run holds nothing for it.
  double value(const std::string& entity, EntityKind kind, Quantity quantity, std::size_t sample);
  /// The whole series of value() over the store's samples.
  std::vector<double> series(const std::string& entity, EntityKind kind, Quantity quantity);
  /// The store's channels changed (a new run): forget the resolved selections.
  void invalidate() { cache_.clear(); }

 private:
  enum class Aggregate { Max, Sum, WeightedMean };
  struct Selection {
    std::size_t channel = 0;
    std::size_t weight_channel = 0;  // WeightedMean: flow of the same entities
    std::vector<std::size_t> columns;
    Aggregate aggregate = Aggregate::Max;
    bool valid = false;
  };
  const Selection& resolve(const std::string& entity, EntityKind kind, Quantity quantity);
  Selection select(const std::string& entity, EntityKind kind, Quantity quantity) const;
  double evaluate(const Selection& selection, std::size_t sample) const;
  /// Columns of `channel` whose ids lie under one of `prefixes` (the id itself or below it).
  std::vector<std::size_t> columnsUnder(std::size_t channel,
                                        const std::vector<std::string>& prefixes) const;

  const ResultStore& store_;
  std::map<std::string, std::vector<std::string>> served_racks_;  // CDU or ring -> rack ids
  std::map<std::string, std::vector<std::string>> hall_racks_;    // hall (a tree group) -> racks
  std::map<std::pair<std::string, int>, Selection> cache_;
};

}  // namespace racktwin::gui
