// Reading a result file back: its structure (for `racktwin info` and tests), float datasets and
// string datasets.
// Every failure becomes an InputError naming the file and the object that could not be read.
#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <new>
#include <string>
#include <system_error>
#include <vector>

#include "Hdf5Handle.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"

namespace racktwin::core {
namespace {

using namespace hdf5;

/// Reads one result file; `path` names the file in every error.
class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) { openFile(); }

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    std::string text = message;
    const std::string detail = lastErrorDetail();
    if (!detail.empty()) text += " (HDF5: " + detail + ")";
    throw InputError(SourceLocation{path_, 0, 0}, key, text);
  }

  template <class T>
  T check(T value, const std::string& key, const std::string& message) const {
    if (value < 0) fail(key, message);
    return value;
  }

  hid_t file() const noexcept { return file_.get(); }

  /// Every dataset path below the root, e.g. "/gpu/T_junction".
  std::vector<std::string> datasetPaths() const;
  /// True when every component of `path` exists and the last one is a dataset.
  bool isDataset(const std::string& path) const;
  DatasetInfo describe(const std::string& path) const;
  std::vector<std::string> attributeNames(hid_t object, const std::string& key) const;
  std::string attributeText(hid_t object, const std::string& name, const std::string& key) const;
  std::vector<unsigned long long> shapeOf(hid_t dataset, const std::string& key) const;

  struct TypedDataset {
    Dataset dataset;
    Datatype type;  // its type in the file
  };
  /// Opens the dataset at `path`, which must hold values of type class `type_class` (`what` names
  /// them in the message when it does not).
  TypedDataset openDataset(const std::string& path, H5T_class_t type_class, const char* what) const;

 private:
  void openFile();

  std::string path_;
  File file_;
};

void Reader::openFile() {
  std::error_code error;
  if (!std::filesystem::exists(path_, error)) {
    throw InputError(SourceLocation{path_, 0, 0}, "/", "result file not found");
  }
  if (!std::filesystem::is_regular_file(path_, error)) {
    throw InputError(SourceLocation{path_, 0, 0}, "/", "result file is not a regular file");
  }
  const htri_t is_hdf5 = H5Fis_hdf5(path_.c_str());
  if (is_hdf5 == 0) {
    (void)lastErrorDetail();
    throw InputError(SourceLocation{path_, 0, 0}, "/", "not an HDF5 file");
  }
  check(is_hdf5, "/", "cannot read the file");
  file_ = File(
      check(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "/", "cannot open the HDF5 file"));
}

std::vector<std::string> Reader::datasetPaths() const {
  struct Visit {
    std::vector<std::string> paths;
    bool out_of_memory = false;
  } visit;
  // Runs inside HDF5 (C frames): no exception may leave the callback.
  auto callback = [](hid_t group, const char* name, const H5L_info_t* info,
                     void* data) noexcept -> herr_t {
    auto* out = static_cast<Visit*>(data);
    if (info == nullptr || info->type != H5L_TYPE_HARD) return 0;
    const Object object(H5Oopen(group, name, H5P_DEFAULT));
    if (!object.valid()) return -1;
    if (H5Iget_type(object.get()) != H5I_DATASET) return 0;
    try {
      out->paths.push_back(std::string("/") + name);
    } catch (...) {
      out->out_of_memory = true;
      return -1;
    }
    return 0;
  };
  const herr_t status = H5Lvisit(file_.get(), H5_INDEX_NAME, H5_ITER_INC, callback, &visit);
  if (visit.out_of_memory) throw std::bad_alloc();
  check(status, "/", "cannot list the objects in the file");
  std::sort(visit.paths.begin(), visit.paths.end());
  return visit.paths;
}

bool Reader::isDataset(const std::string& path) const {
  if (path.empty()) return false;
  // H5Lexists fails on a missing intermediate group, so test each prefix in turn.
  std::size_t position = path.front() == '/' ? 1 : 0;
  while (position <= path.size()) {
    std::size_t end = path.find('/', position);
    if (end == std::string::npos) end = path.size();
    if (end == position) return false;  // empty component
    const std::string prefix = path.substr(0, end);
    if (H5Lexists(file_.get(), prefix.c_str(), H5P_DEFAULT) <= 0) {
      (void)lastErrorDetail();
      return false;
    }
    position = end + 1;
  }
  const Object object(H5Oopen(file_.get(), path.c_str(), H5P_DEFAULT));
  if (!object.valid()) {
    (void)lastErrorDetail();
    return false;
  }
  return H5Iget_type(object.get()) == H5I_DATASET;
}

std::vector<std::string> Reader::attributeNames(hid_t object, const std::string& key) const {
  struct Names {
    std::vector<std::string> names;
    bool out_of_memory = false;
  } names;
  auto callback = [](hid_t, const char* name, const H5A_info_t*, void* data) noexcept -> herr_t {
    auto* out = static_cast<Names*>(data);
    try {
      out->names.emplace_back(name);
    } catch (...) {
      out->out_of_memory = true;
      return -1;
    }
    return 0;
  };
  hsize_t index = 0;
  const herr_t status = H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, &index, callback, &names);
  if (names.out_of_memory) throw std::bad_alloc();
  check(status, key, "cannot list attributes");
  return names.names;
}

std::string formatNumber(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string Reader::attributeText(hid_t object, const std::string& name,
                                  const std::string& key) const {
  const std::string where = key + "@" + name;
  const Attribute attribute(
      check(H5Aopen(object, name.c_str(), H5P_DEFAULT), where, "cannot open attribute"));
  const Datatype type(check(H5Aget_type(attribute.get()), where, "cannot read attribute type"));
  const Dataspace space(check(H5Aget_space(attribute.get()), where, "cannot read attribute shape"));
  const hssize_t points =
      check(H5Sget_simple_extent_npoints(space.get()), where, "cannot read attribute shape");
  const H5T_class_t type_class = H5Tget_class(type.get());

  if (type_class == H5T_STRING) {
    if (points != 1) return "<" + std::to_string(points) + " strings>";
    const htri_t variable = check(H5Tis_variable_str(type.get()), where, "bad string type");
    Datatype memory_type(check(H5Tcopy(H5T_C_S1), where, "cannot copy a type"));
    check(H5Tset_cset(memory_type.get(), H5Tget_cset(type.get())), where, "bad string type");
    if (variable > 0) {
      check(H5Tset_size(memory_type.get(), H5T_VARIABLE), where, "bad string type");
      char* data = nullptr;
      check(H5Aread(attribute.get(), memory_type.get(), &data), where, "cannot read attribute");
      std::string text = data != nullptr ? std::string(data) : std::string();
      H5free_memory(data);
      return text;
    }
    const std::size_t size = H5Tget_size(type.get());
    if (size == 0) fail(where, "bad string type");
    check(H5Tset_size(memory_type.get(), size), where, "bad string type");
    // Null-padded in memory: a string filling its whole width keeps its last character.
    check(H5Tset_strpad(memory_type.get(), H5T_STR_NULLPAD), where, "bad string type");
    std::string text(size, '\0');
    check(H5Aread(attribute.get(), memory_type.get(), text.data()), where, "cannot read attribute");
    text.resize(std::min(text.find('\0'), text.size()));
    while (!text.empty() && text.back() == ' ')
      text.pop_back();  // space-padded strings
    return text;
  }

  if (type_class != H5T_INTEGER && type_class != H5T_FLOAT) {
    return "<" + std::string(type_class == H5T_COMPOUND ? "compound" : "unsupported type") + ">";
  }
  if (points < 1 || points > 1024) return "<" + std::to_string(points) + " values>";
  const auto count = static_cast<std::size_t>(points);
  std::string text;
  if (type_class == H5T_FLOAT) {
    std::vector<double> values(count);
    check(H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, values.data()), where,
          "cannot read attribute");
    for (std::size_t i = 0; i < count; ++i)
      text += (i ? ", " : "") + formatNumber(values[i]);
  } else if (H5Tget_sign(type.get()) == H5T_SGN_NONE) {
    std::vector<unsigned long long> values(count);
    check(H5Aread(attribute.get(), H5T_NATIVE_ULLONG, values.data()), where,
          "cannot read attribute");
    for (std::size_t i = 0; i < count; ++i)
      text += (i ? ", " : "") + std::to_string(values[i]);
  } else {
    std::vector<long long> values(count);
    check(H5Aread(attribute.get(), H5T_NATIVE_LLONG, values.data()), where,
          "cannot read attribute");
    for (std::size_t i = 0; i < count; ++i)
      text += (i ? ", " : "") + std::to_string(values[i]);
  }
  return count == 1 ? text : "[" + text + "]";
}

std::vector<unsigned long long> Reader::shapeOf(hid_t dataset, const std::string& key) const {
  const Dataspace space(check(H5Dget_space(dataset), key, "cannot read dataset shape"));
  const int rank = check(H5Sget_simple_extent_ndims(space.get()), key, "cannot read dataset shape");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (rank > 0) {
    check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), key,
          "cannot read dataset shape");
  }
  return {dims.begin(), dims.end()};
}

std::string typeName(hid_t type) {
  const std::size_t bits = H5Tget_size(type) * 8;
  switch (H5Tget_class(type)) {
    case H5T_FLOAT:
      return "float" + std::to_string(bits);
    case H5T_INTEGER:
      return (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(bits);
    case H5T_STRING:
      return "string";
    case H5T_ENUM:
      return "enum";
    case H5T_COMPOUND:
      return "compound";
    case H5T_BITFIELD:
      return "bitfield";
    case H5T_OPAQUE:
      return "opaque";
    case H5T_REFERENCE:
      return "reference";
    case H5T_VLEN:
      return "vlen";
    case H5T_ARRAY:
      return "array";
    default:
      return "unknown";
  }
}

Reader::TypedDataset Reader::openDataset(const std::string& path, H5T_class_t type_class,
                                         const char* what) const {
  if (!isDataset(path)) fail(path, "no such dataset in the result file");
  TypedDataset typed;
  typed.dataset =
      Dataset(check(H5Dopen2(file_.get(), path.c_str(), H5P_DEFAULT), path, "cannot open dataset"));
  typed.type = Datatype(check(H5Dget_type(typed.dataset.get()), path, "cannot read type"));
  if (H5Tget_class(typed.type.get()) != type_class) {
    throw InputError(SourceLocation{path_, 0, 0}, path,
                     "dataset holds " + typeName(typed.type.get()) + ", not " + what);
  }
  return typed;
}

DatasetInfo Reader::describe(const std::string& path) const {
  DatasetInfo info;
  info.path = path;
  const Dataset dataset(
      check(H5Dopen2(file_.get(), path.c_str(), H5P_DEFAULT), path, "cannot open dataset"));
  info.shape = shapeOf(dataset.get(), path);
  const Datatype type(check(H5Dget_type(dataset.get()), path, "cannot read dataset type"));
  info.type = typeName(type.get());
  if (check(H5Aexists(dataset.get(), "units"), path, "cannot read attributes") > 0) {
    info.units = attributeText(dataset.get(), "units", path);
  }
  if (check(H5Aexists(dataset.get(), "description"), path, "cannot read attributes") > 0) {
    info.description = attributeText(dataset.get(), "description", path);
  }
  if (check(H5Aexists(dataset.get(), "aggregation"), path, "cannot read attributes") > 0) {
    info.aggregation = attributeText(dataset.get(), "aggregation", path);
  }
  return info;
}

}  // namespace

ResultFileInfo readResultInfo(const std::string& path) {
  const ErrorSilencer silence;
  const Reader reader(path);
  ResultFileInfo info;
  for (const std::string& name : reader.attributeNames(reader.file(), "/")) {
    info.attributes[name] = reader.attributeText(reader.file(), name, "/");
  }
  for (const std::string& dataset : reader.datasetPaths()) {
    info.datasets.push_back(reader.describe(dataset));
  }
  return info;
}

std::vector<double> readResultDataset(const std::string& path, const std::string& dataset,
                                      std::vector<unsigned long long>* shape) {
  const ErrorSilencer silence;
  const Reader reader(path);
  const auto [handle, type] = reader.openDataset(dataset, H5T_FLOAT, "floating-point numbers");
  const std::vector<unsigned long long> dims = reader.shapeOf(handle.get(), dataset);
  std::size_t count = 1;
  for (const unsigned long long dim : dims) {
    if (dim != 0 && count > std::numeric_limits<std::size_t>::max() / sizeof(double) / dim) {
      throw InputError(SourceLocation{path, 0, 0}, dataset, "dataset too large to read");
    }
    count *= static_cast<std::size_t>(dim);
  }
  std::vector<double> values;
  try {
    values.resize(count);
  } catch (const std::bad_alloc&) {
    throw InputError(SourceLocation{path, 0, 0}, dataset, "dataset too large to read");
  }
  if (count > 0) {
    reader.check(
        H5Dread(handle.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
        dataset, "cannot read dataset");
  }
  if (shape != nullptr) *shape = dims;
  return values;
}

std::vector<std::string> readResultStrings(const std::string& path, const std::string& dataset) {
  const ErrorSilencer silence;
  const Reader reader(path);
  const auto [handle, type] = reader.openDataset(dataset, H5T_STRING, "strings");
  const Dataspace space(
      reader.check(H5Dget_space(handle.get()), dataset, "cannot read dataset shape"));
  const hssize_t points =
      reader.check(H5Sget_simple_extent_npoints(space.get()), dataset, "cannot read dataset shape");
  const auto count = static_cast<std::size_t>(points);
  std::vector<std::string> strings;
  strings.reserve(count);
  if (count == 0) return strings;
  Datatype memory_type(reader.check(H5Tcopy(H5T_C_S1), dataset, "cannot copy a type"));
  reader.check(H5Tset_cset(memory_type.get(), H5Tget_cset(type.get())), dataset, "bad string type");
  if (reader.check(H5Tis_variable_str(type.get()), dataset, "bad string type") > 0) {
    reader.check(H5Tset_size(memory_type.get(), H5T_VARIABLE), dataset, "bad string type");
    std::vector<char*> data(count, nullptr);
    reader.check(
        H5Dread(handle.get(), memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()),
        dataset, "cannot read dataset");
    // Copy first, then give HDF5's buffers back whatever happens.
    try {
      for (const char* text : data)
        strings.emplace_back(text != nullptr ? text : "");
    } catch (...) {
      H5Dvlen_reclaim(memory_type.get(), space.get(), H5P_DEFAULT, data.data());
      throw;
    }
    H5Dvlen_reclaim(memory_type.get(), space.get(), H5P_DEFAULT, data.data());
    return strings;
  }
  const std::size_t size = H5Tget_size(type.get());
  if (size == 0) reader.fail(dataset, "bad string type");
  reader.check(H5Tset_size(memory_type.get(), size), dataset, "bad string type");
  // Null-padded in memory: a string filling its whole width keeps its last character.
  reader.check(H5Tset_strpad(memory_type.get(), H5T_STR_NULLPAD), dataset, "bad string type");
  std::string buffer(count * size, '\0');
  reader.check(
      H5Dread(handle.get(), memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()),
      dataset, "cannot read dataset");
  for (std::size_t i = 0; i < count; ++i) {
    std::string text = buffer.substr(i * size, size);
    text.resize(std::min(text.find('\0'), text.size()));
    while (!text.empty() && text.back() == ' ')
      text.pop_back();  // space-padded strings
    strings.push_back(std::move(text));
  }
  return strings;
}

}  // namespace racktwin::core
