#pragma once
// A small table stored beside the recorded channels of a result file (the design limits and
// headroom of a run) or as a sweep file's cases: named columns of numbers (with an SI unit) or
// strings, all with the same number of rows. The HDF5 writer stores each column as a 1-D dataset
// /<group>/<column> (a 2-D one when `width` > 1), so h5py and pandas read it without RackTwin.
#include <cstddef>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace racktwin::core {

struct TableColumn {
  std::string name;         // column name; its dataset's name is tableLinkName(name)
  std::string unit;         // SI unit of a numeric column ("1" for pure numbers), empty for text
  std::string description;  // one sentence
  bool text = false;        // strings instead of numbers
  std::vector<double> numbers;       // rows x width, row-major, when !text
  std::vector<std::string> strings;  // rows x width, row-major, when text
  std::size_t width = 1;             // values per row (2-D dataset when > 1)
};

struct ResultTable {
  std::string group;        // "limits", "headroom", "cases", ...
  std::string description;  // what the table holds (documentation; the columns carry theirs)
  std::deque<TableColumn> columns;  // a deque: references to columns stay valid as more are added

  TableColumn& numbers(std::string name, std::string unit, std::string about) {
    columns.push_back({std::move(name), std::move(unit), std::move(about), false, {}, {}, 1});
    return columns.back();
  }
  TableColumn& strings(std::string name, std::string about) {
    columns.push_back({std::move(name), "", std::move(about), true, {}, {}, 1});
    return columns.back();
  }
  /// The column of that name; nullptr when there is none.
  const TableColumn* find(const std::string& name) const {
    for (const TableColumn& c : columns)
      if (c.name == name) return &c;
    return nullptr;
  }
};

/// The name of a column's dataset. An HDF5 name cannot hold '/', and column names made from ids
/// do ("mv_feeder_hall1/mv-feeder_current_max_A"), so a name is percent-encoded as in a URL
/// (RFC 3986): '%' becomes "%25", '/' becomes "%2F", every other character stays as it is.
std::string tableLinkName(std::string_view column_name);
/// The column name of a dataset's name: the inverse of tableLinkName ("%2F" or "%2f" -> '/',
/// "%25" -> '%'; any other '%' stays as it is).
std::string tableColumnName(std::string_view link_name);

/// A file of tables (a sweep file, docs/capacity.md): root attributes, texts stored as
/// /<group>/text, and tables.
struct TableFile {
  std::vector<std::pair<std::string, std::string>> text_attributes;
  std::vector<std::pair<std::string, double>> number_attributes;
  std::vector<std::pair<std::string, std::string>> texts;  // group -> /<group>/text
  std::vector<ResultTable> tables;
};

/// Writes `file` as HDF5 to <path>.partial and renames it to `path` when complete (HDF5 stays in
/// core/src): a reader never sees half a file, a failure leaves a previous file as it was. The
/// root attribute text_checksum covers its strings, as in a result file. Throws RuntimeError.
void writeTableFile(const std::string& path, const TableFile& file);

}  // namespace racktwin::core
