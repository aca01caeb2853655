#pragma once
// Reads what OpenFOAM function objects write under postProcessing/. Columns are found by the names
// in the file's header, never by position: OpenFOAM adds columns (a processor column in parallel,
// location columns in fieldMinMax) depending on the run.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace racktwin::cfd {

/// A tab-separated .dat table: '#' comment lines, the last of which names the columns.
class DatTable {
 public:
  DatTable(std::string source, std::vector<std::string> columns,
           std::vector<std::vector<std::string>> rows);

  const std::string& source() const noexcept { return source_; }
  const std::vector<std::string>& columns() const noexcept { return columns_; }
  std::size_t rowCount() const noexcept { return rows_.size(); }
  bool hasColumn(std::string_view name) const;
  /// The index of a column; throws CfdError naming the file and the columns it has.
  std::size_t column(std::string_view name) const;
  /// A numeric cell; throws CfdError when the cell is not a finite number.
  double value(std::size_t row, std::string_view name) const;
  /// The value in the last row.
  double last(std::string_view name) const;

 private:
  std::string source_;
  std::vector<std::string> columns_;
  std::vector<std::vector<std::string>> rows_;
};

/// Parses a .dat text; `source` names it in messages.
DatTable parseDatTable(std::string_view text, std::string source);
DatTable readDatTable(const std::filesystem::path& file);

/// The newest output of a function object:
/// <case>/postProcessing/[<region>/]<function>/<start time>/<stem>[_N].dat - the latest start-time
/// directory and, when a rerun wrote <stem>_N.dat beside an old file, the most recently written.
std::filesystem::path findDatFile(const std::filesystem::path& case_dir, std::string_view region,
                                  std::string_view function_object, std::string_view stem);

/// Whitespace-separated numbers (a sampled set or surface in raw format). The header names come
/// from the last '#' line when there is one ("# x y z T"), else they are empty.
struct RawTable {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
  std::size_t column(std::string_view name, const std::string& source) const;
};
RawTable readRawTable(const std::filesystem::path& file);

/// The newest file named `file_name` under postProcessing/[<region>/]<function>/<time>/.
std::filesystem::path findSampleFile(const std::filesystem::path& case_dir, std::string_view region,
                                     std::string_view function_object, std::string_view file_name);

}  // namespace racktwin::cfd
