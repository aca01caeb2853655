#pragma once
// Writing ResultTables (ResultTable.hpp) into an open HDF5 file: the result sink's /limits and
// /headroom, and the sweep file's groups. Private to core/src/Hdf5*.cpp, like HDF5 itself.
#include <hdf5.h>

#include <string>
#include <string_view>

#include "Hdf5Handle.hpp"
#include "racktwin/core/ResultTable.hpp"

namespace racktwin::core::hdf5 {

class TableWriter {
 public:
  /// `string_type` is the file's UTF-8 string type; every string written goes into `checksum`.
  /// `file_name` names the file in errors (core::RuntimeError).
  TableWriter(hid_t file, hid_t string_type, TextChecksum& checksum, std::string file_name);

  /// Writes each column as /<group>/<name> (1-D, or rows x width), numbers as float64 with
  /// `units` and `description` attributes (shuffle, deflate, Fletcher32), strings as
  /// variable-length UTF-8. A group of that name already in the file is replaced. Only the root's
  /// and the datasets' attributes are written (the reader's text checksum covers those).
  void write(const ResultTable& table);
  /// A scalar string dataset /<group>/<name> (the sweep and scenario texts).
  void writeText(const std::string& group, const std::string& name, std::string_view text);
  /// A string attribute of the object at `object_path` ("/" for the root).
  void stringAttribute(const std::string& object_path, const char* name, std::string_view value);
  /// A float64 attribute of the root.
  void numberAttribute(const char* name, double value);

 private:
  [[noreturn]] void fail(const std::string& what) const;
  template <class T>
  T check(T value, const std::string& what) const {
    if (value < 0) fail(what);
    return value;
  }
  Group replaceGroup(const std::string& name);
  void writeColumn(hid_t group, const std::string& group_name, const TableColumn& column,
                   std::size_t rows);

  hid_t file_;
  hid_t string_type_;
  TextChecksum& checksum_;
  std::string file_name_;
};

}  // namespace racktwin::core::hdf5
