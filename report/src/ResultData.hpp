#pragma once
// What a report reads from a result file, through the validated reader of core (Hdf5Result.hpp):
// a result is untrusted input, so nothing here opens the file another way.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "racktwin/core/Hdf5Result.hpp"

namespace racktwin::report {

/// A float64 dataset: row-major values of shape (rows) or (rows, columns).
struct Matrix {
  std::vector<double> values;
  std::size_t rows = 0;
  std::size_t columns = 1;
  std::string units;
  double at(std::size_t row, std::size_t column) const { return values[row * columns + column]; }
};

/// One summary item as the file stores it (summary_json): the key carries its SI unit.
struct StoredSummaryItem {
  std::string key;
  std::optional<double> value;
};

class ResultData {
 public:
  /// Reads the structure, /time and the summary. Throws core::InputError naming the file.
  explicit ResultData(std::string path);

  const std::string& path() const noexcept { return path_; }
  const core::ResultFileInfo& info() const noexcept { return info_; }
  /// A root attribute's text, or "" when absent.
  std::string attribute(const std::string& name) const;
  std::optional<double> numericAttribute(const std::string& name) const;
  const std::vector<double>& time() const noexcept { return time_; }
  const std::vector<StoredSummaryItem>& summary() const noexcept { return summary_; }
  std::optional<double> summaryValue(const std::string& key) const;
  bool hasSummaryKey(const std::string& key) const;

  /// The dataset's info, or nullptr when the file has none of that path.
  const core::DatasetInfo* dataset(const std::string& path) const;
  /// A float64 dataset; nullopt when absent or not float64.
  std::optional<Matrix> matrix(const std::string& path) const;
  /// A record series: a float64 dataset whose rows are the samples of /time; nullopt otherwise.
  std::optional<Matrix> series(const std::string& path) const;
  /// A string dataset (ids, /scenario/text); empty when absent.
  std::vector<std::string> strings(const std::string& path) const;
  /// /<group>/ids; empty when absent. Throws InputError when their count differs from `columns`.
  std::vector<std::string> ids(const std::string& group, std::size_t columns) const;

 private:
  std::string path_;
  core::ResultFileInfo info_;
  std::vector<double> time_;
  std::vector<StoredSummaryItem> summary_;
};

}  // namespace racktwin::report
