#pragma once
// Run metrics the models contribute at the end of a run: written as the summary JSON, printed as
// the summary table and stored in the result file.
#include <optional>
#include <string>
#include <vector>

namespace racktwin::core {

struct SummaryItem {
  std::string key;              // JSON key, carries the unit: "max_gpu_temperature_K"
  std::optional<double> value;  // nullopt is written as JSON null
  std::string label;            // for the table: "Max GPU junction temperature"
  std::string display_unit;     // "degC", "kWh", ... for the table only
  double display_scale = 1.0;   // table value = value * scale + offset
  double display_offset = 0.0;
  // Heat (not electrical energy or power): shown in ton-hours or tons in US customary units.
  bool heat = false;
};

class Summary {
 public:
  void add(SummaryItem item);
  const std::vector<SummaryItem>& items() const noexcept { return items_; }
  /// The value of a key; throws std::out_of_range when it is missing.
  std::optional<double> value(const std::string& key) const;
  /// {"key": value, ...} in insertion order, with 17 significant digits.
  std::string toJson() const;

 private:
  std::vector<SummaryItem> items_;
};

}  // namespace racktwin::core
