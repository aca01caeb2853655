#include "ResultData.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "racktwin/core/Error.hpp"

namespace racktwin::report {

ResultData::ResultData(std::string path) : path_(std::move(path)) {
  info_ = core::readResultInfo(path_);
  if (dataset("/time")) time_ = core::readResultDataset(path_, "/time");
  const std::string json = attribute("summary_json");
  if (json.empty()) return;  // a run that did not finish
  const nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(json, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    throw core::InputError({path_, 0, 0}, "summary_json", "is not a JSON object");
  }
  for (const auto& [key, value] : parsed.items()) {
    StoredSummaryItem item{key, std::nullopt};
    if (value.is_number()) {
      item.value = value.get<double>();
      if (!std::isfinite(*item.value)) item.value.reset();
    } else if (!value.is_null()) {
      throw core::InputError(
          {path_, 0, 0}, "summary_json",
          "item " + core::quoteForMessage(key) + " is neither a number nor null");
    }
    summary_.push_back(std::move(item));
  }
}

std::string ResultData::attribute(const std::string& name) const {
  const auto it = info_.attributes.find(name);
  return it == info_.attributes.end() ? std::string() : it->second;
}

std::optional<double> ResultData::numericAttribute(const std::string& name) const {
  const std::string text = attribute(name);
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<double> ResultData::summaryValue(const std::string& key) const {
  for (const StoredSummaryItem& item : summary_)
    if (item.key == key) return item.value;
  return std::nullopt;
}

bool ResultData::hasSummaryKey(const std::string& key) const {
  return std::any_of(summary_.begin(), summary_.end(),
                     [&](const StoredSummaryItem& item) { return item.key == key; });
}

const core::DatasetInfo* ResultData::dataset(const std::string& path) const {
  for (const core::DatasetInfo& d : info_.datasets)
    if (d.path == path) return &d;
  return nullptr;
}

std::optional<Matrix> ResultData::matrix(const std::string& path) const {
  const core::DatasetInfo* info = dataset(path);
  if (!info || info->type != "float64" || info->shape.empty() || info->shape.size() > 2)
    return std::nullopt;
  Matrix m;
  std::vector<unsigned long long> shape;
  m.values = core::readResultDataset(path_, path, &shape);
  m.rows = shape.empty() ? 0 : static_cast<std::size_t>(shape[0]);
  m.columns = shape.size() == 2 ? static_cast<std::size_t>(shape[1]) : 1;
  m.units = info->units;
  if (m.values.size() != m.rows * m.columns) {
    throw core::InputError({path_, 0, 0}, path, "holds fewer values than its shape says");
  }
  return m;
}

std::optional<Matrix> ResultData::series(const std::string& path) const {
  std::optional<Matrix> m = matrix(path);
  if (!m || m->rows != time_.size() || m->rows == 0) return std::nullopt;
  return m;
}

std::vector<std::string> ResultData::strings(const std::string& path) const {
  const core::DatasetInfo* info = dataset(path);
  if (!info || info->type != "string") return {};
  return core::readResultStrings(path_, path);
}

std::vector<std::string> ResultData::ids(const std::string& group, std::size_t columns) const {
  std::vector<std::string> names = strings("/" + group + "/ids");
  if (!names.empty() && names.size() != columns) {
    throw core::InputError({path_, 0, 0}, "/" + group + "/ids",
                           "names " + std::to_string(names.size()) + " columns, the group's "
                               + "datasets have " + std::to_string(columns));
  }
  return names;
}

}  // namespace racktwin::report
