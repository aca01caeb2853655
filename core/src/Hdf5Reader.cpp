// Reading a result file back: its structure (for `racktwin info` and tests), float datasets and
// string datasets.
// Every failure becomes an InputError naming the file and the object that could not be read.
#include <hdf5.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "Hdf5Handle.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"

namespace racktwin::core {
namespace {

using namespace hdf5;

// Limits on what a result file may declare before anything is read (a damaged or hostile file
// declares anything): this program writes far below them.
constexpr std::size_t kMaxFixedStringBytes = std::size_t{1} << 20;  // one fixed-length string
constexpr hssize_t kMaxStrings = 10'000'000;                        // strings in one dataset
constexpr int kMaxRank = 2;

void probeOnce(const std::string& path);
bool g_in_probe = false;                // set in the probe's child only (probeOnce)
constexpr int kNeedsTooMuchMemory = 5;  // the child's exit code (probeOnce)

/// True when the innermost errors on HDF5's stack are a failed allocation (its H5E_RESOURCE
/// class). Leaves the stack as it is.
bool allocationFailed() {
  bool failed = false;
  auto callback = [](unsigned /*n*/, const H5E_error2_t* error, void* data) noexcept -> herr_t {
    if (error != nullptr && error->maj_num == H5E_RESOURCE) *static_cast<bool*>(data) = true;
    return 0;
  };
  (void)H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, callback, &failed);
  return failed;
}

/// The memory of the variable-length strings one H5Dread makes, allocated through this (the
/// transfer's vlen memory manager) and all freed with it. A conversion that fails part-way on a
/// damaged file leaves the strings it made in libhdf5's conversion buffer, where no API call
/// reaches them; here they are still known.
class VlenArena {
 public:
  VlenArena() = default;
  VlenArena(const VlenArena&) = delete;
  VlenArena& operator=(const VlenArena&) = delete;
  ~VlenArena() {
    for (void* block : blocks_)
      std::free(block);
  }
  /// A transfer property list that allocates and frees through this arena.
  hid_t transfer() {
    if (!plist_.valid()) {
      plist_ = PropertyList(H5Pcreate(H5P_DATASET_XFER));
      if (!plist_.valid()
          || H5Pset_vlen_mem_manager(plist_.get(), &allocate, this, &release, this) < 0) {
        return H5I_INVALID_HID;
      }
    }
    return plist_.get();
  }

 private:
  static void* allocate(std::size_t size, void* info) noexcept {
    auto* arena = static_cast<VlenArena*>(info);
    void* block = std::malloc(size > 0 ? size : 1);
    if (block == nullptr) return nullptr;
    try {
      arena->blocks_.insert(block);
    } catch (...) {
      std::free(block);
      return nullptr;
    }
    return block;
  }
  static void release(void* block, void* info) noexcept {
    if (block == nullptr) return;
    static_cast<VlenArena*>(info)->blocks_.erase(block);
    std::free(block);
  }

  std::set<void*> blocks_;
  PropertyList plist_;
};

/// Reads one result file; `path` names the file in every error.
class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {
    silenceErrorPrinting();
    openFile();
  }

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    // In the probe's child a read that ran out of its address-space budget is the file's doing
    // (a declared length it cannot hold): the parent must not read it again in process.
    if (g_in_probe && allocationFailed()) _exit(kNeedsTooMuchMemory);
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
  probeOnce(path_);
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
  const H5S_class_t space_class = H5Sget_simple_extent_type(space.get());
  if (space_class != H5S_SCALAR && space_class != H5S_SIMPLE) {
    fail(where, "attribute has no readable shape");
  }
  if (check(H5Sget_simple_extent_ndims(space.get()), where, "cannot read attribute shape") > 1) {
    fail(where, "attribute has more than one dimension");
  }
  const H5T_class_t type_class = H5Tget_class(type.get());

  if (type_class == H5T_STRING) {
    if (points != 1) return "<" + std::to_string(points) + " strings>";
    const H5T_cset_t cset = H5Tget_cset(type.get());
    if (cset != H5T_CSET_ASCII && cset != H5T_CSET_UTF8) fail(where, "bad string type");
    if (H5Tis_variable_str(type.get()) <= 0 && H5Tget_size(type.get()) > kMaxFixedStringBytes) {
      fail(where, "string attribute longer than 1 MiB");
    }
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
  const std::size_t value_bytes = H5Tget_size(type.get());
  if (value_bytes == 0 || value_bytes > 8)
    fail(where, "attribute holds numbers of an unusual size");
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
  if (check(H5Aexists(dataset.get(), "statistic"), path, "cannot read attributes") > 0) {
    info.statistic = attributeText(dataset.get(), "statistic", path);
  }
  if (check(H5Aexists(dataset.get(), "source"), path, "cannot read attributes") > 0) {
    info.source = attributeText(dataset.get(), "source", path);
  }
  return info;
}

// --- reading a file first in a child process -------------------------------------------------
//
// libhdf5 1.10 trusts the lengths in a file: a damaged global heap makes H5Aread/H5Dread of a
// variable-length string copy past its buffer (SIGSEGV), and no API call shows that length
// before the read. So the first time this process reads a file (by path, size and mtime), a
// forked child reads all of it that is variable-length or small (every attribute, every string
// dataset, and every float dataset of a file up to kFullProbeBytes) under a time limit; a child
// killed by a signal or too slow makes the file an InputError here, never a crash or a hang.
// The child leaves with _exit: no atexit handler (HDF5's own) runs on the parent's open files.

constexpr std::uintmax_t kFullProbeBytes = std::uintmax_t{256} << 20;
constexpr int kCleanError = 3;            // the child's exit code: an InputError, found again
constexpr int kTextChecksumMismatch = 4;  // the child's exit code

bool isStringAttribute(hid_t object, const std::string& name) {
  const Attribute attribute(H5Aopen(object, name.c_str(), H5P_DEFAULT));
  if (!attribute.valid()) return false;
  const Datatype type(H5Aget_type(attribute.get()));
  return type.valid() && H5Tget_class(type.get()) == H5T_STRING;
}

/// False when the file has a `text_checksum` and its strings do not give it (see TextChecksum);
/// throws core::Error when one of them cannot be read.
bool textChecksumMatchesOrThrows(const std::string& path) {
  const Reader reader(path);
  const hid_t root = reader.file();
  if (reader.check(H5Aexists(root, "text_checksum"), "/", "cannot read attributes") <= 0) {
    return true;  // a file from before the checksum
  }
  std::uint64_t stored = 0;
  {
    const Attribute attribute(reader.check(H5Aopen(root, "text_checksum", H5P_DEFAULT),
                                           "/@text_checksum", "cannot open attribute"));
    const Datatype type(reader.check(H5Aget_type(attribute.get()), "/@text_checksum",
                                     "cannot read attribute type"));
    if (H5Tget_class(type.get()) != H5T_INTEGER || H5Tget_size(type.get()) != 8) return false;
    reader.check(H5Aread(attribute.get(), H5T_NATIVE_UINT64, &stored), "/@text_checksum",
                 "cannot read attribute");
  }
  TextChecksum checksum;
  for (const std::string& name : reader.attributeNames(root, "/")) {
    if (isStringAttribute(root, name))
      checksum.set("/@" + name, reader.attributeText(root, name, "/"));
  }
  for (const std::string& dataset_path : reader.datasetPaths()) {
    const Dataset dataset(reader.check(H5Dopen2(root, dataset_path.c_str(), H5P_DEFAULT),
                                       dataset_path, "cannot open dataset"));
    for (const std::string& name : reader.attributeNames(dataset.get(), dataset_path)) {
      if (isStringAttribute(dataset.get(), name)) {
        checksum.set(dataset_path + "@" + name,
                     reader.attributeText(dataset.get(), name, dataset_path));
      }
    }
    const Datatype type(reader.check(H5Dget_type(dataset.get()), dataset_path, "cannot read type"));
    if (H5Tget_class(type.get()) == H5T_STRING) {
      checksum.setStrings(dataset_path, readResultStrings(path, dataset_path));
    }
  }
  return checksum.value() == stored;
}

/// False when the file has a `text_checksum` and its strings do not give it (see TextChecksum),
/// or when one of them cannot be read: strings that cannot all be checked are not trusted (the
/// one that fails may not be the one a reader shows).
bool textChecksumMatches(const std::string& path) {
  try {
    return textChecksumMatchesOrThrows(path);
  } catch (const Error&) {
    return false;
  }
}

/// The child's address space while it reads strings: what it has plus `budget` bytes, restored
/// when this ends. libhdf5 sizes a variable-length string's conversion buffer from the length the
/// file declares, before it reads the string: a damaged length of a gigabyte in a file of a few
/// kilobytes is allocated as asked. Under the budget that allocation fails in the child, which
/// then reports the file (kNeedsTooMuchMemory) instead of the parent reading it in process.
class AddressSpaceBudget {
 public:
  explicit AddressSpaceBudget(std::uintmax_t budget) {
    if (getrlimit(RLIMIT_AS, &old_) != 0) return;
    std::FILE* statm = std::fopen("/proc/self/statm", "r");
    if (statm == nullptr) return;
    unsigned long pages = 0;
    const bool read = std::fscanf(statm, "%lu", &pages) == 1;
    std::fclose(statm);
    if (!read) return;
    const std::uintmax_t page = static_cast<std::uintmax_t>(sysconf(_SC_PAGESIZE));
    const std::uintmax_t limit = pages * page + budget;
    if (old_.rlim_cur != RLIM_INFINITY && old_.rlim_cur <= limit) return;
    rlimit lower = old_;
    lower.rlim_cur = static_cast<rlim_t>(limit);
    set_ = setrlimit(RLIMIT_AS, &lower) == 0;
  }
  ~AddressSpaceBudget() {
    if (set_) (void)setrlimit(RLIMIT_AS, &old_);
  }
  AddressSpaceBudget(const AddressSpaceBudget&) = delete;
  AddressSpaceBudget& operator=(const AddressSpaceBudget&) = delete;

 private:
  rlimit old_{};
  bool set_ = false;
};

/// What reading a file's strings may take: far above what this program writes (the ids of a
/// 300,000-GPU site are some 33 MB), far below what a damaged length asks for.
std::uintmax_t stringBudget(std::uintmax_t file_size) {
  return std::max<std::uintmax_t>(std::uintmax_t{256} << 20, 16 * file_size);
}

/// Everything the child reads, each dataset even after another failed; returns false when
/// something failed cleanly (an InputError the parent finds again when it reads that part).
bool readEverything(const std::string& path, std::uintmax_t size) {
  ResultFileInfo info;
  {
    const AddressSpaceBudget budget(stringBudget(size));  // the attributes are strings
    info = readResultInfo(path);
    if (!textChecksumMatches(path)) _exit(kTextChecksumMismatch);
  }
  bool ok = true;
  for (const DatasetInfo& dataset : info.datasets) {
    try {
      if (dataset.type == "string") {
        const AddressSpaceBudget budget(stringBudget(size));
        (void)readResultStrings(path, dataset.path);
      } else if (dataset.type.rfind("float", 0) == 0 && size <= kFullProbeBytes) {
        (void)readResultDataset(path, dataset.path);
      }
    } catch (const Error&) {
      ok = false;
    }
  }
  return ok;
}

std::string signalName(int signal) {
  const char* name = sigabbrev_np(signal);
  return name != nullptr ? std::string("SIG") + name : std::string("a signal");
}

void probeOnce(const std::string& path) {
  if (g_in_probe) return;
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  const auto mtime = std::filesystem::last_write_time(path, error);
  const std::string canonical = std::filesystem::weakly_canonical(path, error).string();
  const std::string key = canonical + '\n' + std::to_string(size) + '\n'
                          + std::to_string(mtime.time_since_epoch().count());
  static std::mutex mutex;
  static std::set<std::string> probed;
  {
    const std::lock_guard lock(mutex);
    if (probed.count(key) != 0) return;
  }
  // Reading costs the child at most 2 s of processor time plus 1 s per 10 MB read: the 64 MB
  // result of the 300k site's first 10 s takes 0.7 s in a release build and under 4 s under
  // AddressSanitizer, while a damaged file libhdf5 spins on is refused within seconds.
  const double cpu_limit_s = 2.0 + static_cast<double>(std::min(size, kFullProbeBytes)) / 10e6;
  // RLIMIT_CPU counts whole seconds; the limit and its message use the same figure.
  const auto cpu_s = static_cast<rlim_t>(std::ceil(cpu_limit_s));
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t child = fork();
  if (child < 0) return;  // cannot isolate: read in process as before
  if (child == 0) {
    g_in_probe = true;
    // The default action for faults: a handler the caller installed (a test framework, a crash
    // reporter) would turn the crash into a normal exit or report it as the caller's.
    for (const int fault : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU})
      (void)std::signal(fault, SIG_DFL);
    // A damaged structure libhdf5 loops on costs the child processor time: the kernel stops it
    // at the limit (SIGXCPU), however long the machine kept it from running. No core file.
    const rlimit no_core{0, 0};
    (void)setrlimit(RLIMIT_CORE, &no_core);
    const rlimit cpu{cpu_s, cpu_s + 2};
    (void)setrlimit(RLIMIT_CPU, &cpu);
    // glibc reports heap corruption on stderr before it aborts ("munmap_chunk(): invalid
    // pointer"); the parent names the damage in one line, so the child's stderr goes nowhere.
    const int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0) (void)dup2(null_fd, STDERR_FILENO);
    int code = 0;
    try {
      code = readEverything(path, size) ? 0 : kCleanError;
    } catch (const std::bad_alloc&) {
      code = kNeedsTooMuchMemory;
    } catch (...) {
      code = kCleanError;  // the parent reports it when it reads
    }
    _exit(code);
  }
  // Waiting stops only a child that neither runs nor finishes (storage that does not answer):
  // a loaded machine or a stopped process group only delays it, and its processor time is
  // bounded in the child (cpu_limit_s). So the wall clock's limit is far above the processor's.
  const double wait_limit_s = std::max(600.0, 20.0 * cpu_limit_s);
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (done < 0) return;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
        > wait_limit_s) {
      kill(child, SIGKILL);
      (void)waitpid(child, &status, 0);
      throw InputError(SourceLocation{path, 0, 0}, "/",
                       "reading the file did not finish within "
                           + std::to_string(int(wait_limit_s))
                           + " s: it was not read (its storage did not answer, or the reading "
                             "process was kept from running)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) {
    throw InputError(SourceLocation{path, 0, 0}, "/",
                     "the file is damaged: reading it used more than " + std::to_string(cpu_s)
                         + " s of processor time (libhdf5 loops on a damaged structure)");
  }
  if (WIFSIGNALED(status)) {
    throw InputError(SourceLocation{path, 0, 0}, "/",
                     std::string("the file is damaged: reading it stopped libhdf5 with ")
                         + signalName(WTERMSIG(status)) + " (signal "
                         + std::to_string(WTERMSIG(status)) + ")");
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kNeedsTooMuchMemory) {
    throw InputError(SourceLocation{path, 0, 0}, "/",
                     "the file is damaged: reading its strings needs more than "
                         + std::to_string(stringBudget(size) >> 20)
                         + " MiB of memory (a declared string length the file cannot hold)");
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kTextChecksumMismatch) {
    throw InputError(SourceLocation{path, 0, 0}, "/text_checksum",
                     "the file is damaged: its strings (attributes, ids, scenario) do not match "
                     "their checksum");
  }
  // Any other exit code is the child stopped inside a read: a sanitizer (RACKTWIN_SANITIZE, the
  // fuzz targets) reports libhdf5's overrun of a damaged heap and exits 1 where a plain build dies
  // by a signal. Reading in process would then meet the same damage.
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != kCleanError) {
    throw InputError(SourceLocation{path, 0, 0}, "/",
                     "the file is damaged: reading it stopped libhdf5 (exit code "
                         + std::to_string(WEXITSTATUS(status)) + ")");
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    const std::lock_guard lock(mutex);
    probed.insert(key);
  }
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
  const std::size_t value_bytes = H5Tget_size(type.get());
  if (value_bytes != 4 && value_bytes != 8) {
    throw InputError(SourceLocation{path, 0, 0}, dataset, "dataset holds floats of an odd size");
  }
  const std::vector<unsigned long long> dims = reader.shapeOf(handle.get(), dataset);
  if (dims.size() > kMaxRank) {
    throw InputError(SourceLocation{path, 0, 0}, dataset, "dataset has more than two dimensions");
  }
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
  if (points > kMaxStrings) reader.fail(dataset, "dataset holds too many strings");
  const H5T_cset_t cset = H5Tget_cset(type.get());
  if (cset != H5T_CSET_ASCII && cset != H5T_CSET_UTF8) reader.fail(dataset, "bad string type");
  const auto count = static_cast<std::size_t>(points);
  if (H5Tis_variable_str(type.get()) <= 0
      && (H5Tget_size(type.get()) > kMaxFixedStringBytes
          || H5Tget_size(type.get()) * count > (std::size_t{1} << 28))) {
    reader.fail(dataset, "fixed-length strings too long to read");
  }
  std::vector<std::string> strings;
  strings.reserve(count);
  if (count == 0) return strings;
  Datatype memory_type(reader.check(H5Tcopy(H5T_C_S1), dataset, "cannot copy a type"));
  reader.check(H5Tset_cset(memory_type.get(), H5Tget_cset(type.get())), dataset, "bad string type");
  if (reader.check(H5Tis_variable_str(type.get()), dataset, "bad string type") > 0) {
    reader.check(H5Tset_size(memory_type.get(), H5T_VARIABLE), dataset, "bad string type");
    std::vector<char*> data(count, nullptr);
    VlenArena arena;  // frees every string the read made, whether it succeeds or not
    const hid_t transfer =
        reader.check(arena.transfer(), dataset, "cannot create a transfer property list");
    reader.check(H5Dread(handle.get(), memory_type.get(), H5S_ALL, H5S_ALL, transfer, data.data()),
                 dataset, "cannot read dataset");
    for (const char* text : data)
      strings.emplace_back(text != nullptr ? text : "");
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
