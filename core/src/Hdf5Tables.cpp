#include "Hdf5Tables.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "racktwin/core/Error.hpp"

namespace racktwin::core::hdf5 {

TableWriter::TableWriter(hid_t file, hid_t string_type, TextChecksum& checksum,
                         std::string file_name)
    : file_(file),
      string_type_(string_type),
      checksum_(checksum),
      file_name_(std::move(file_name)) {}

void TableWriter::fail(const std::string& what) const {
  std::string message = "HDF5 file '" + file_name_ + "': " + what + " failed";
  const std::string detail = lastErrorDetail();
  if (!detail.empty()) message += " (" + detail + ")";
  throw RuntimeError(message);
}

Group TableWriter::replaceGroup(const std::string& name) {
  const std::string path = "/" + name;
  if (check(H5Lexists(file_, name.c_str(), H5P_DEFAULT), "looking up " + path) > 0) {
    check(H5Ldelete(file_, name.c_str(), H5P_DEFAULT), "replacing " + path);
  }
  const PropertyList gcpl(check(H5Pcreate(H5P_GROUP_CREATE), "creating a property list"));
  check(H5Pset_obj_track_times(gcpl.get(), false), "disabling timestamps");
  return Group(check(H5Gcreate2(file_, name.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT),
                     "creating group " + path));
}

void TableWriter::stringAttribute(const std::string& object_path, const char* name,
                                  std::string_view value) {
  const std::string where = "attribute '" + std::string(name) + "' of " + object_path;
  const Object object(
      check(H5Oopen(file_, object_path.c_str(), H5P_DEFAULT), "opening " + object_path));
  const std::string text(value);
  const Dataspace space(check(H5Screate(H5S_SCALAR), "creating a dataspace"));
  if (check(H5Aexists(object.get(), name), "looking up " + where) > 0) {
    check(H5Adelete(object.get(), name), "replacing " + where);
  }
  const Attribute attribute(
      check(H5Acreate2(object.get(), name, string_type_, space.get(), H5P_DEFAULT, H5P_DEFAULT),
            "creating " + where));
  const char* data = text.c_str();
  check(H5Awrite(attribute.get(), string_type_, &data), "writing " + where);
  checksum_.set(object_path + "@" + name, text);
}

void TableWriter::numberAttribute(const char* name, double value) {
  const std::string where = "attribute '" + std::string(name) + "' of /";
  if (check(H5Aexists(file_, name), "looking up " + where) > 0) {
    check(H5Adelete(file_, name), "replacing " + where);
  }
  const Dataspace space(check(H5Screate(H5S_SCALAR), "creating a dataspace"));
  const Attribute attribute(
      check(H5Acreate2(file_, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
            "creating " + where));
  check(H5Awrite(attribute.get(), H5T_NATIVE_DOUBLE, &value), "writing " + where);
}

void TableWriter::writeText(const std::string& group_name, const std::string& name,
                            std::string_view text) {
  const Group group = replaceGroup(group_name);
  const std::string path = "/" + group_name + "/" + name;
  const Dataspace space(check(H5Screate(H5S_SCALAR), "creating a dataspace"));
  const PropertyList dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "creating a property list"));
  check(H5Pset_obj_track_times(dcpl.get(), false), "disabling timestamps");
  const Dataset dataset(check(H5Dcreate2(group.get(), name.c_str(), string_type_, space.get(),
                                         H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                              "creating dataset " + path));
  const std::string copy(text);
  const char* data = copy.c_str();
  check(H5Dwrite(dataset.get(), string_type_, H5S_ALL, H5S_ALL, H5P_DEFAULT, &data),
        "writing dataset " + path);
  checksum_.setStrings(path, {copy});
}

void TableWriter::writeColumn(hid_t group, const std::string& group_name, const TableColumn& column,
                              std::size_t rows) {
  const std::string link = tableLinkName(column.name);
  const std::string path = "/" + group_name + "/" + link;
  const int rank = column.width > 1 ? 2 : 1;
  const hsize_t dims[2] = {rows, column.width};
  const Dataspace space(check(H5Screate_simple(rank, dims, nullptr), "creating a dataspace"));
  const PropertyList dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "creating a property list"));
  check(H5Pset_obj_track_times(dcpl.get(), false), "disabling timestamps");
  if (!column.text && rows > 0) {
    const hsize_t chunk[2] = {std::min<hsize_t>(rows, 4096), column.width};
    check(H5Pset_chunk(dcpl.get(), rank, chunk), "setting the chunks of " + path);
    check(H5Pset_shuffle(dcpl.get()), "setting the shuffle filter of " + path);
    check(H5Pset_deflate(dcpl.get(), 4), "setting the deflate filter of " + path);
    check(H5Pset_fletcher32(dcpl.get()), "setting the checksum filter of " + path);
  }
  const Dataset dataset(
      check(H5Dcreate2(group, link.c_str(), column.text ? string_type_ : H5T_IEEE_F64LE,
                       space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
            "creating dataset " + path));
  if (column.text) {
    std::vector<const char*> pointers;
    pointers.reserve(column.strings.size());
    for (const std::string& s : column.strings)
      pointers.push_back(s.c_str());
    if (!pointers.empty()) {
      check(H5Dwrite(dataset.get(), string_type_, H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()),
            "writing dataset " + path);
    }
    checksum_.setStrings(path, column.strings);
  } else if (!column.numbers.empty()) {
    check(H5Dwrite(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                   column.numbers.data()),
          "writing dataset " + path);
  }
  if (!column.unit.empty()) stringAttribute(path, "units", column.unit);
  if (!column.description.empty()) stringAttribute(path, "description", column.description);
}

void TableWriter::write(const ResultTable& table) {
  RACKTWIN_ASSERT(!table.group.empty() && table.group.find('/') == std::string::npos,
                  "a result table needs a group name without '/'");
  const Group group = replaceGroup(table.group);
  for (const TableColumn& column : table.columns) {
    RACKTWIN_ASSERT(column.width >= 1, "a table column needs a width of at least 1");
    const std::size_t values = column.text ? column.strings.size() : column.numbers.size();
    RACKTWIN_ASSERT(values % column.width == 0, "a table column's values fill whole rows");
    writeColumn(group.get(), table.group, column, values / column.width);
  }
}

}  // namespace racktwin::core::hdf5
