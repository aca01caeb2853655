#include "racktwin/core/Summary.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace racktwin::core {

void Summary::add(SummaryItem item) {
  for (SummaryItem& existing : items_) {
    if (existing.key == item.key) {
      existing = std::move(item);
      return;
    }
  }
  items_.push_back(std::move(item));
}

std::optional<double> Summary::value(const std::string& key) const {
  for (const SummaryItem& item : items_) {
    if (item.key == key) return item.value;
  }
  throw std::out_of_range("no summary item '" + key + "'");
}

std::string Summary::toJson() const {
  std::string json = "{\n";
  for (std::size_t i = 0; i < items_.size(); ++i) {
    const SummaryItem& item = items_[i];
    json += "  \"" + item.key + "\": ";
    if (item.value && std::isfinite(*item.value)) {
      char buffer[40];
      std::snprintf(buffer, sizeof buffer, "%.17g", *item.value);
      json += buffer;
    } else {
      json += "null";  // JSON has no NaN: a missing or undefined metric is null
    }
    json += i + 1 < items_.size() ? ",\n" : "\n";
  }
  json += "}\n";
  return json;
}

}  // namespace racktwin::core
