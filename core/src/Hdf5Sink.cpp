// The HDF5 result writer.
//
// Crash safety without SWMR: HDF5 changes the file on disk only when it flushes (chunk and metadata
// caches), so a process killed between two H5Fflush calls leaves the state of the last flush, which
// h5py opens with complete = 0. Two choices keep that state intact as long as possible:
//  - Rows are buffered per dataset and handed to HDF5 one chunk-aligned block at a time; the chunk
//    cache of each dataset is sized to hold every chunk touched between flushes.
//  - A chunk's row count divides flush_rows when it can (see chunkRows), so every chunk is written
//    once, complete, at a flush. A flush that wrote a partial compressed chunk would rewrite it at
//    the next flush at a new address and free the old one, which HDF5 may reuse at once: a kill
//    during that flush then leaves chunks the old metadata still points to overwritten, and the
//    flush itself costs several times more (the partial chunk is compressed again each time).
// What remains is the flush itself: a kill while HDF5 writes its metadata can still leave one
// dataset unreadable (tests/hdf5 kills between flushes; random kill times were tried by hand).
// The file is created under a temporary name beside the target and renamed only by close(), the
// end of a run (complete, or stopped by the user): a run that fails or is killed leaves an older
// result under the same name as it was, and its own rows in <path>.partial (complete = 0, readable
// up to the last flush). The sink never writes through or renames over anything but a regular
// file (a device node, a FIFO, a directory or a symbolic link is refused).
#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "Hdf5Handle.hpp"
#include "Hdf5Tables.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/core/ResultTable.hpp"

namespace racktwin::core {
namespace {

using namespace hdf5;

constexpr std::size_t kMaxChunkBytes = std::size_t{1} << 20;  // chunks of about 1 MiB at most
constexpr std::size_t kMaxChunkColumns = kMaxChunkBytes / sizeof(double);
constexpr std::size_t kMaxCachedChunks = 16;  // per dataset: bounds the memory of the chunk cache
constexpr std::size_t kCacheSlots = 521;      // a prime, as HDF5's documentation advises

/// Columns per chunk of a dataset `width` values wide.
std::size_t chunkColumns(std::size_t width, const Hdf5SinkOptions& options) {
  const std::size_t columns = std::min(width, kMaxChunkColumns);
  return options.chunk_columns == 0 ? columns : std::min(columns, options.chunk_columns);
}

/// Rows per chunk of a dataset `width` values wide: at most options.chunk_rows and about 1 MiB,
/// and a divisor of flush_rows unless that would make chunks less than half as long.
std::size_t chunkRows(std::size_t width, const Hdf5SinkOptions& options) {
  const std::size_t columns = chunkColumns(width, options);
  const std::size_t limit =
      std::clamp<std::size_t>(kMaxChunkBytes / (columns * sizeof(double)), 1, options.chunk_rows);
  const std::size_t flush = options.flush_rows;
  if (flush == 0) return limit;
  if (flush <= limit) return flush;
  std::size_t divisor = limit;
  while (flush % divisor != 0)
    --divisor;
  return 2 * divisor >= limit ? divisor : limit;
}

/// One appendable float64 dataset (/time or a channel) with its row buffer.
struct Column {
  std::string path;        // "/gpu/T_junction", for messages
  std::size_t offset = 0;  // first value of this column in a recorder row
  std::size_t width = 1;   // values per row
  bool scalar = true;      // stored 1-D
  std::size_t chunk_rows = 1;
  std::vector<double> buffer;  // chunk_rows * width, preallocated
  std::size_t buffered = 0;    // rows in buffer
  hsize_t written = 0;         // rows in the file
  Dataset dataset;
  Dataspace file_space;    // reused for every block write
  Dataspace memory_space;  // the whole buffer; a hyperslab selects the rows to write
};

class Hdf5Sink final : public RecorderSink {
 public:
  Hdf5Sink(std::string path, Hdf5SinkOptions options) : path_(std::move(path)), options_(options) {
    RACKTWIN_ASSERT(options_.chunk_rows >= 1, "Hdf5SinkOptions::chunk_rows must be at least 1");
    RACKTWIN_ASSERT(options_.deflate_level >= 0 && options_.deflate_level <= 9,
                    "Hdf5SinkOptions::deflate_level must be in 0..9");
  }

  Hdf5Sink(const Hdf5Sink&) = delete;
  Hdf5Sink& operator=(const Hdf5Sink&) = delete;

  ~Hdf5Sink() override {
    if (!file_.valid()) return;
    const ErrorSilencer silence;
    if (!opened_) {
      (void)closeAll();
      // A resume that failed to open leaves the interrupted run's file as it was.
      if (options_.resume) return;
      // open() failed part-way: there is no result file, only the temporary one.
      std::error_code ignored;
      std::filesystem::remove(partialPath(), ignored);
      return;
    }
    // An abandoned run (exception, early exit): keep what was recorded in <path>.partial,
    // complete stays 0; a result already under <path> stays as it was.
    try {
      finish(false, {}, false);
    } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
    }
    (void)closeAll();
    (void)lastErrorDetail();  // clears the stack of a failed flush or close
  }

  void open(const RunMetadata& metadata, const std::vector<ChannelInfo>& channels) override;
  void append(double time, std::span<const double> row) override;
  void close(bool complete, std::string_view summary_json) override;
  void addTable(const ResultTable& table) override { tables_.push_back(table); }
  void flush() override {
    RACKTWIN_ASSERT(opened_ && !closed_, "Hdf5Sink::flush outside open()/close()");
    writeAllBuffered();
    flushFile();
  }

 private:
  std::string partialPath() const { return path_ + ".partial"; }
  [[noreturn]] void fail(const std::string& what) const;
  void requireShape(hid_t dataset, const std::string& path, int rank, hsize_t rows,
                    hsize_t width) const;
  void requireRegularOrMissing(const std::string& path) const;
  template <class T>
  T check(T value, const char* what, const std::string& object = {}) const {
    if (value < 0) fail(object.empty() ? std::string(what) : std::string(what) + " " + object);
    return value;
  }

  void createFile(const std::string& partial_path);
  void reopenFile(const std::string& partial_path);
  void recordResume();
  void writeRootAttributes(const RunMetadata& metadata);
  void writeScenario(const std::string& text);
  hid_t groupFor(const std::string& name);
  void writeIds(hid_t group, const std::string& group_name, const std::vector<std::string>& ids,
                const std::string& name = "ids");
  void createColumn(Column& column, hid_t parent, const std::string& name, const std::string& unit,
                    const std::string& description);
  void writeAggregation(const Column& column, Aggregation aggregation);
  void writeStringAttribute(hid_t object, const char* name, std::string_view value,
                            const std::string& object_path);
  template <class T>
  void writeScalarAttribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type,
                            const T& value);
  void writeBlock(Column& column);
  void writeAllBuffered();
  void flushFile();
  void finish(bool complete, std::string_view summary_json, bool write_summary);
  bool closeAll() noexcept;

  std::string path_;
  Hdf5SinkOptions options_;
  File file_;
  Datatype string_type_;
  std::map<std::string, Group, std::less<>> groups_;
  TextChecksum text_checksum_;       // of every string written; stored at each flush
  std::vector<ResultTable> tables_;  // written by close() (design limits, headroom)
  Column time_;
  std::vector<Column> columns_;
  std::size_t row_width_ = 0;
  std::size_t samples_ = 0;
  bool opened_ = false;  // open() completed: the temporary file is a valid result file
  bool closed_ = false;
};

// A resumed file's dataset: the rank and width this run writes, and at least `rows` rows (ids:
// exactly `rows` entities).
void Hdf5Sink::requireShape(hid_t dataset, const std::string& path, int rank, hsize_t rows,
                            hsize_t width) const {
  const Dataspace space(check(H5Dget_space(dataset), "reading the shape of", path));
  hsize_t dims[2] = {0, 0};
  const int found = check(H5Sget_simple_extent_ndims(space.get()), "reading the shape of", path);
  if (found == rank) check(H5Sget_simple_extent_dims(space.get(), dims, nullptr), "reading", path);
  const bool ids = width == 0;
  const bool fits =
      found == rank && (ids ? dims[0] == rows : dims[0] >= rows) && (rank == 1 || dims[1] == width);
  if (!fits) {
    throw RuntimeError("HDF5 result file '" + partialPath() + "' cannot be resumed: dataset " + path
                       + " is not the one this run writes (or holds fewer than "
                       + std::to_string(rows) + " rows); the scenario or the program has changed");
  }
}

void Hdf5Sink::fail(const std::string& what) const {
  std::string message = "HDF5 result file '" + path_ + "': " + what + " failed";
  const std::string detail = lastErrorDetail();
  if (!detail.empty()) message += " (" + detail + ")";
  throw RuntimeError(message);
}

void Hdf5Sink::open(const RunMetadata& metadata, const std::vector<ChannelInfo>& channels) {
  RACKTWIN_ASSERT(!file_.valid() && !closed_, "Hdf5Sink::open called twice");
  const ErrorSilencer silence;
  const std::string partial_path = partialPath();
  requireRegularOrMissing(path_);
  requireRegularOrMissing(partial_path);
  if (options_.resume) {
    reopenFile(partial_path);
  } else {
    createFile(partial_path);
  }
  string_type_ = makeUtf8StringType();
  if (!string_type_.valid()) fail("creating the UTF-8 string type");

  // A resumed file is written through the same calls: each object is opened instead of created
  // and its strings are written again, so the text checksum and every attribute come out as an
  // uninterrupted run's.
  writeRootAttributes(metadata);
  writeScenario(metadata.scenario_text);

  time_.path = "/time";
  time_.width = 1;
  time_.scalar = true;
  createColumn(time_, file_.get(), "time", "s", "Simulation time of each sample.");

  // Every vector channel of a group shares the group's /<group>/ids columns.
  std::map<std::string, const std::vector<std::string>*, std::less<>> group_ids;
  columns_.clear();
  columns_.reserve(channels.size());
  std::size_t offset = 0;
  for (const ChannelInfo& channel : channels) {
    RACKTWIN_ASSERT(!channel.group.empty() && !channel.name.empty(),
                    "a recorder channel needs a group and a name");
    RACKTWIN_ASSERT(
        channel.group.find('/') == std::string::npos && channel.name.find('/') == std::string::npos,
        "recorder channel group and name must not contain '/'");
    RACKTWIN_ASSERT(
        channel.group != "time" && channel.group != "scenario" && channel.group != "entities"
            && channel.group != "resume" && channel.name != "ids",
        "recorder channel uses a reserved name (time, scenario, entities, resume, ids)");
    const hid_t group = groupFor(channel.group);
    if (!channel.entity_ids.empty()) {
      auto [it, inserted] = group_ids.try_emplace(channel.group, &channel.entity_ids);
      if (inserted) {
        writeIds(group, channel.group, channel.entity_ids);
      } else {
        RACKTWIN_ASSERT(*it->second == channel.entity_ids,
                        "all vector channels of one recorder group must have the same entities");
      }
    }
    Column& column = columns_.emplace_back();
    column.path = "/" + channel.group + "/" + channel.name;
    column.offset = offset;
    column.width = channel.width();
    column.scalar = channel.entity_ids.empty();
    offset += column.width;
    createColumn(column, group, channel.name, channel.unit, channel.description);
    writeAggregation(column, channel.aggregation);
    if (!channel.statistic.empty()) {
      writeStringAttribute(column.dataset.get(), "statistic", channel.statistic, column.path);
      writeStringAttribute(column.dataset.get(), "source", channel.source, column.path);
    }
  }
  // Full entity lists of the groups a DetailSink reduced (the targets of argmax indices).
  for (const auto& [name, ids] : metadata.entity_lists) {
    RACKTWIN_ASSERT(!name.empty() && name.find('/') == std::string::npos,
                    "an entity list needs a name without '/'");
    writeIds(groupFor("entities"), "entities", ids, name);
  }
  row_width_ = offset;
  if (options_.resume) {
    samples_ = options_.resume_rows;
    recordResume();
  }
  flushFile();
  opened_ = true;
}

void Hdf5Sink::createFile(const std::string& partial_path) {
  // No object timestamps anywhere: the same run must give a byte-identical file.
  const PropertyList fcpl(check(H5Pcreate(H5P_FILE_CREATE), "creating a property list"));
  check(H5Pset_obj_track_times(fcpl.get(), false), "disabling timestamps");
  // The 1.8 file format and later: object headers, and so the attributes and the layout of every
  // dataset, carry a checksum that HDF5 verifies when it reads them (the 1.6 default has none).
  const PropertyList fapl(check(H5Pcreate(H5P_FILE_ACCESS), "creating a property list"));
  check(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST),
        "choosing the file format");
  file_ = File(check(H5Fcreate(partial_path.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()),
                     "creating", partial_path));
}

void Hdf5Sink::reopenFile(const std::string& partial_path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(partial_path, error)) {
    throw RuntimeError("HDF5 result file '" + partial_path
                       + "' to resume is missing: the interrupted run's rows are needed");
  }
  const PropertyList fapl(check(H5Pcreate(H5P_FILE_ACCESS), "creating a property list"));
  check(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST),
        "choosing the file format");
  file_ = File(check(H5Fopen(partial_path.c_str(), H5F_ACC_RDWR, fapl.get()),
                     "opening for a resume", partial_path));
}

// /resume: how often the file was resumed and from where (attributes outside the text checksum:
// they are what `h5diff --exclude-path /resume` leaves out).
void Hdf5Sink::recordResume() {
  const hid_t group = groupFor("resume");
  std::uint32_t count = 0;
  if (check(H5Aexists(group, "count"), "looking up", "/resume@count") > 0) {
    const Attribute attribute(check(H5Aopen(group, "count", H5P_DEFAULT), "opening", "/resume"));
    check(H5Aread(attribute.get(), H5T_NATIVE_UINT32, &count), "reading", "/resume@count");
  }
  ++count;
  const std::uint64_t rows = options_.resume_rows;
  writeScalarAttribute(group, "count", H5T_STD_U32LE, H5T_NATIVE_UINT32, count);
  writeScalarAttribute(group, "time_s", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, options_.resume_time);
  writeScalarAttribute(group, "rows", H5T_STD_U64LE, H5T_NATIVE_UINT64, rows);
}

void Hdf5Sink::requireRegularOrMissing(const std::string& path) const {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::symlink_status(path, error);
  if (error && status.type() != std::filesystem::file_type::not_found) {
    throw RuntimeError("HDF5 result file '" + path + "': " + error.message());
  }
  if (status.type() == std::filesystem::file_type::not_found
      || status.type() == std::filesystem::file_type::regular) {
    return;
  }
  throw RuntimeError("HDF5 result file '" + path
                     + "' exists and is not a regular file (a device, FIFO, directory or "
                       "symbolic link); it is left as it is");
}

void Hdf5Sink::writeRootAttributes(const RunMetadata& metadata) {
  const hid_t root = file_.get();
  writeStringAttribute(root, "program_version", metadata.program_version, "/");
  writeStringAttribute(root, "site_name", metadata.site_name, "/");
  writeStringAttribute(root, "scenario_path", metadata.scenario_path, "/");
  writeScalarAttribute(root, "seed", H5T_STD_U64LE, H5T_NATIVE_ULLONG, metadata.seed);
  writeScalarAttribute(root, "step_s", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, metadata.step);
  writeScalarAttribute(root, "substeps", H5T_STD_I32LE, H5T_NATIVE_INT, metadata.substeps);
  writeScalarAttribute(root, "record_interval_s", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                       metadata.record_interval);
  writeScalarAttribute(root, "duration_s", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, metadata.duration);
  writeStringAttribute(
      root, "record_convention",
      "The record at time t_k of a dataset with aggregation 'mean' is its time-weighted mean over "
      "(t_(k-1), t_k]; 'max' is the maximum over (t_(k-1), t_k] of the macro steps' values of the "
      "dataset without the '_max' suffix; 'sample' is the value at t_k. The record at t = 0 is "
      "the initial state; a run ending between record times has a last record at its end.",
      "/");
  // One "file:line:column: key 'k': warning: ..." a line; absent when there are none (the
  // summary's input_warnings count says 0).
  std::string warnings;
  for (const std::string& w : metadata.input_warnings)
    warnings += w + "\n";
  if (!warnings.empty()) writeStringAttribute(root, "input_warnings", warnings, "/");
  const std::uint8_t incomplete = 0;
  writeScalarAttribute(root, "complete", H5T_STD_U8LE, H5T_NATIVE_UINT8, incomplete);
}

void Hdf5Sink::writeScenario(const std::string& text) {
  const hid_t group = groupFor("scenario");
  const Dataspace space(check(H5Screate(H5S_SCALAR), "creating a dataspace"));
  const PropertyList dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "creating a property list"));
  check(H5Pset_obj_track_times(dcpl.get(), false), "disabling timestamps");
  const Dataset dataset(
      options_.resume
          ? check(H5Dopen2(group, "text", H5P_DEFAULT), "opening dataset", "/scenario/text")
          : check(H5Dcreate2(group, "text", string_type_.get(), space.get(), H5P_DEFAULT,
                             dcpl.get(), H5P_DEFAULT),
                  "creating dataset", "/scenario/text"));
  const char* data = text.c_str();
  check(H5Dwrite(dataset.get(), string_type_.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &data),
        "writing dataset", "/scenario/text");
  text_checksum_.setStrings("/scenario/text", {text});
}

hid_t Hdf5Sink::groupFor(const std::string& name) {
  if (auto it = groups_.find(name); it != groups_.end()) return it->second.get();
  const PropertyList gcpl(check(H5Pcreate(H5P_GROUP_CREATE), "creating a property list"));
  check(H5Pset_obj_track_times(gcpl.get(), false), "disabling timestamps");
  const bool exists =
      options_.resume
      && check(H5Lexists(file_.get(), name.c_str(), H5P_DEFAULT), "looking up", "/" + name) > 0;
  Group group(
      exists ? check(H5Gopen2(file_.get(), name.c_str(), H5P_DEFAULT), "opening group", "/" + name)
             : check(H5Gcreate2(file_.get(), name.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT),
                     "creating group", "/" + name));
  return groups_.emplace(name, std::move(group)).first->second.get();
}

void Hdf5Sink::writeIds(hid_t group, const std::string& group_name,
                        const std::vector<std::string>& ids, const std::string& name) {
  const std::string path = "/" + group_name + "/" + name;
  const hsize_t count = ids.size();
  const Dataspace space(check(H5Screate_simple(1, &count, nullptr), "creating a dataspace"));
  const PropertyList dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "creating a property list"));
  check(H5Pset_obj_track_times(dcpl.get(), false), "disabling timestamps");
  const Dataset dataset(
      options_.resume ? check(H5Dopen2(group, name.c_str(), H5P_DEFAULT), "opening dataset", path)
                      : check(H5Dcreate2(group, name.c_str(), string_type_.get(), space.get(),
                                         H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                              "creating dataset", path));
  if (options_.resume) requireShape(dataset.get(), path, 1, count, 0);
  std::vector<const char*> pointers;
  pointers.reserve(ids.size());
  for (const std::string& id : ids)
    pointers.push_back(id.c_str());
  check(H5Dwrite(dataset.get(), string_type_.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()),
        "writing dataset", path);
  text_checksum_.setStrings(path, ids);
  writeStringAttribute(dataset.get(), "description",
                       name == "ids" ? "Entity id of each column of this group."
                                     : "Every entity of the group, in site order: the argmax and "
                                       "hottest-entity datasets hold indices into this list.",
                       path);
}

void Hdf5Sink::createColumn(Column& column, hid_t parent, const std::string& name,
                            const std::string& unit, const std::string& description) {
  column.chunk_rows = chunkRows(column.width, options_);
  const hsize_t chunk_columns = chunkColumns(column.width, options_);
  const std::size_t chunk_bytes = column.chunk_rows * chunk_columns * sizeof(double);
  column.buffer.assign(column.chunk_rows * column.width, 0.0);
  column.buffered = 0;
  column.written = 0;

  const int rank = column.scalar ? 1 : 2;
  const hsize_t dims[2] = {0, column.width};
  const hsize_t max_dims[2] = {H5S_UNLIMITED, column.width};
  const hsize_t chunk[2] = {column.chunk_rows, chunk_columns};
  const hsize_t buffer_dims[2] = {column.chunk_rows, column.width};

  const PropertyList dcpl(check(H5Pcreate(H5P_DATASET_CREATE), "creating a property list"));
  check(H5Pset_obj_track_times(dcpl.get(), false), "disabling timestamps");
  check(H5Pset_chunk(dcpl.get(), rank, chunk), "setting the chunk size of", column.path);
  if (options_.deflate_level > 0) {
    if (options_.shuffle) {
      check(H5Pset_shuffle(dcpl.get()), "setting the shuffle filter of", column.path);
    }
    check(H5Pset_deflate(dcpl.get(), static_cast<unsigned>(options_.deflate_level)),
          "setting the deflate filter of", column.path);
  }
  // Fletcher32 last in the pipeline: the checksum covers the bytes as stored, so a reader
  // verifies it (HDF5 does by default) before inflating anything, and a flipped bit is a read
  // error instead of different numbers.
  check(H5Pset_fletcher32(dcpl.get()), "setting the checksum filter of", column.path);

  // Hold every chunk touched between two flushes (plus the one being filled), so blocks reach
  // the disk only inside H5Fflush; see the comment at the top of this file.
  const std::size_t rows_between_flushes =
      options_.flush_rows == 0 ? column.chunk_rows : options_.flush_rows;
  const std::size_t cached_chunks = std::min(
      kMaxCachedChunks, (rows_between_flushes + column.chunk_rows - 1) / column.chunk_rows + 2);
  const std::size_t chunks_per_row = (column.width + chunk_columns - 1) / chunk_columns;
  const PropertyList dapl(check(H5Pcreate(H5P_DATASET_ACCESS), "creating a property list"));
  check(H5Pset_chunk_cache(dapl.get(), kCacheSlots, cached_chunks * chunks_per_row * chunk_bytes,
                           1.0),
        "setting the chunk cache of", column.path);

  const Dataspace space(
      check(H5Screate_simple(rank, dims, max_dims), "creating the dataspace of", column.path));
  if (options_.resume) {
    column.dataset =
        Dataset(check(H5Dopen2(parent, name.c_str(), dapl.get()), "opening dataset", column.path));
    // The rows up to the checkpoint stay; those a killed run wrote after it go.
    requireShape(column.dataset.get(), column.path, rank, options_.resume_rows, column.width);
    const hsize_t rows[2] = {options_.resume_rows, column.width};
    check(H5Dset_extent(column.dataset.get(), rows), "cutting dataset", column.path);
    column.written = options_.resume_rows;
  } else {
    column.dataset = Dataset(check(H5Dcreate2(parent, name.c_str(), H5T_IEEE_F64LE, space.get(),
                                              H5P_DEFAULT, dcpl.get(), dapl.get()),
                                   "creating dataset", column.path));
  }
  column.file_space = Dataspace(
      check(H5Screate_simple(rank, dims, max_dims), "creating the dataspace of", column.path));
  column.memory_space = Dataspace(check(H5Screate_simple(rank, buffer_dims, nullptr),
                                        "creating the dataspace of", column.path));
  writeStringAttribute(column.dataset.get(), "units", unit, column.path);
  writeStringAttribute(column.dataset.get(), "description", description, column.path);
}

// The dataset's `aggregation` ("mean", "sample", "max") and the `interval` its records cover.
void Hdf5Sink::writeAggregation(const Column& column, Aggregation aggregation) {
  const char* interval = "";
  switch (aggregation) {
    case Aggregation::Mean:
      interval =
          "(t_prev, t]: time-weighted mean of the macro steps' means since the previous record; "
          "the record at t = 0 is the initial state";
      break;
    case Aggregation::SubstepMean:
      interval =
          "(t_prev, t]: time-weighted mean of the sub-steps' means since the previous record; "
          "the record at t = 0 is the initial state";
      break;
    case Aggregation::Sample:
      interval = "t: the value at the record time (a state, flag, count or running total)";
      break;
    case Aggregation::SampleAndMax:
      interval =
          "t: the value at the record time; the sibling dataset '_max' holds the maximum over "
          "the interval";
      break;
    case Aggregation::Max:
      interval =
          "(t_prev, t]: maximum of the macro steps' values since the previous record; the record "
          "at t = 0 is the initial state";
      break;
    case Aggregation::Undeclared:
      RACKTWIN_ASSERT(false, "a recorder channel without an aggregation reached the HDF5 sink");
  }
  writeStringAttribute(column.dataset.get(), "aggregation", aggregationName(aggregation),
                       column.path);
  writeStringAttribute(column.dataset.get(), "interval", interval, column.path);
}

void Hdf5Sink::writeStringAttribute(hid_t object, const char* name, std::string_view value,
                                    const std::string& object_path) {
  const std::string where = "attribute '" + std::string(name) + "' of " + object_path;
  const std::string text(value);  // NUL-terminated copy
  const Dataspace space(check(H5Screate(H5S_SCALAR), "creating a dataspace"));
  if (check(H5Aexists(object, name), "looking up", where) > 0) {
    check(H5Adelete(object, name), "replacing", where);
  }
  const Attribute attribute(
      check(H5Acreate2(object, name, string_type_.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
            "creating", where));
  const char* data = text.c_str();
  check(H5Awrite(attribute.get(), string_type_.get(), &data), "writing", where);
  text_checksum_.set(object_path + "@" + name, text);
}

template <class T>
void Hdf5Sink::writeScalarAttribute(hid_t object, const char* name, hid_t file_type,
                                    hid_t memory_type, const T& value) {
  const std::string where = "attribute '" + std::string(name) + "' of /";
  Attribute attribute;
  if (check(H5Aexists(object, name), "looking up", where) > 0) {
    attribute = Attribute(check(H5Aopen(object, name, H5P_DEFAULT), "opening", where));
  } else {
    const Dataspace space(check(H5Screate(H5S_SCALAR), "creating a dataspace"));
    attribute =
        Attribute(check(H5Acreate2(object, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                        "creating", where));
  }
  check(H5Awrite(attribute.get(), memory_type, &value), "writing", where);
}

void Hdf5Sink::append(double time, std::span<const double> row) {
  RACKTWIN_ASSERT(opened_ && !closed_, "Hdf5Sink::append outside open()/close()");
  RACKTWIN_ASSERT(row.size() == row_width_, "recorder row does not match the declared channels");

  // Buffer the row. A column's block ends at a chunk boundary of its dataset.
  time_.buffer[time_.buffered++] = time;
  if ((time_.written + time_.buffered) % time_.chunk_rows == 0) writeBlock(time_);
  for (Column& column : columns_) {
    std::copy_n(row.data() + column.offset, column.width,
                column.buffer.data() + column.buffered * column.width);
    ++column.buffered;
    if ((column.written + column.buffered) % column.chunk_rows == 0) writeBlock(column);
  }
  ++samples_;
  if (options_.flush_rows != 0 && samples_ % options_.flush_rows == 0) {
    writeAllBuffered();
    flushFile();
  }
}

void Hdf5Sink::writeBlock(Column& column) {
  if (column.buffered == 0) return;
  const ErrorSilencer silence;
  const int rank = column.scalar ? 1 : 2;
  const hsize_t rows = column.buffered;
  const hsize_t new_dims[2] = {column.written + rows, column.width};
  const hsize_t max_dims[2] = {H5S_UNLIMITED, column.width};
  const hsize_t start[2] = {column.written, 0};
  const hsize_t zero[2] = {0, 0};
  const hsize_t count[2] = {rows, column.width};

  check(H5Dset_extent(column.dataset.get(), new_dims), "extending dataset", column.path);
  check(H5Sset_extent_simple(column.file_space.get(), rank, new_dims, max_dims),
        "resizing the dataspace of", column.path);
  check(
      H5Sselect_hyperslab(column.file_space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr),
      "selecting rows of", column.path);
  check(
      H5Sselect_hyperslab(column.memory_space.get(), H5S_SELECT_SET, zero, nullptr, count, nullptr),
      "selecting buffered rows of", column.path);
  check(H5Dwrite(column.dataset.get(), H5T_NATIVE_DOUBLE, column.memory_space.get(),
                 column.file_space.get(), H5P_DEFAULT, column.buffer.data()),
        "writing dataset", column.path);
  column.written += rows;
  column.buffered = 0;
}

void Hdf5Sink::writeAllBuffered() {
  writeBlock(time_);
  for (Column& column : columns_)
    writeBlock(column);
}

void Hdf5Sink::flushFile() {
  const ErrorSilencer silence;
  const std::uint64_t checksum = text_checksum_.value();
  writeScalarAttribute(file_.get(), "text_checksum", H5T_STD_U64LE, H5T_NATIVE_UINT64, checksum);
  check(H5Fflush(file_.get(), H5F_SCOPE_LOCAL), "flushing");
}

void Hdf5Sink::close(bool complete, std::string_view summary_json) {
  RACKTWIN_ASSERT(opened_ && !closed_, "Hdf5Sink::close without open() or called twice");
  const ErrorSilencer silence;
  finish(complete, summary_json, true);
  closed_ = true;
  if (!closeAll()) fail("closing the file");
  // The target may have become something else since open(): never rename over it then.
  requireRegularOrMissing(path_);
  std::error_code error;
  std::filesystem::rename(partialPath(), path_, error);
  if (error) fail("renaming " + partialPath() + " (" + error.message() + ")");
}

void Hdf5Sink::finish(bool complete, std::string_view summary_json, bool write_summary) {
  const ErrorSilencer silence;
  writeAllBuffered();
  if (write_summary) {
    TableWriter tables(file_.get(), string_type_.get(), text_checksum_, path_);
    for (const ResultTable& table : tables_)
      tables.write(table);
    writeStringAttribute(file_.get(), "summary_json", summary_json, "/");
    const std::uint8_t flag = complete ? 1 : 0;
    writeScalarAttribute(file_.get(), "complete", H5T_STD_U8LE, H5T_NATIVE_UINT8, flag);
  }
  flushFile();
}

bool Hdf5Sink::closeAll() noexcept {
  // Objects first: the file itself is released only when nothing in it is open.
  bool ok = time_.dataset.close() && time_.file_space.close() && time_.memory_space.close();
  for (Column& column : columns_) {
    ok = column.dataset.close() && ok;
    ok = column.file_space.close() && ok;
    ok = column.memory_space.close() && ok;
  }
  for (auto& [name, group] : groups_)
    ok = group.close() && ok;
  ok = string_type_.close() && ok;
  ok = file_.close() && ok;
  return ok;
}

}  // namespace

double estimatedResultBytes(
    const std::vector<ChannelInfo>& channels,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& entity_lists,
    std::size_t records, const Hdf5SinkOptions& options) {
  // Deflated records keep 0.17-0.25 of their bytes with shuffle (one rack, the 64-rack cluster
  // and the aggregates of a 100k-GPU site over an hour, deflate 1-6) and about 0.25 without:
  // 0.3 and 0.35 leave room for less regular data. Without compression HDF5 stores every chunk
  // whole, the last one of each column too.
  const double kept = options.deflate_level > 0 ? (options.shuffle ? 0.3 : 0.35) : 1.0;
  double bytes = 0.0;
  const auto column = [&](std::size_t width) {
    const std::size_t rows = chunkRows(width, options);
    const std::size_t columns = chunkColumns(width, options);
    const double stored_rows = options.deflate_level > 0
                                   ? static_cast<double>(records)
                                   : static_cast<double>((records + rows - 1) / rows * rows);
    const double stored_columns =
        options.deflate_level > 0 ? static_cast<double>(width)
                                  : static_cast<double>((width + columns - 1) / columns * columns);
    bytes += stored_rows * stored_columns * sizeof(double) * kept;
  };
  column(1);  // time
  std::size_t id_bytes = 0;
  for (const ChannelInfo& channel : channels) {
    column(channel.width());
    bytes += 2500.0;  // object header, attributes, chunk index (h5stat: 2-2.5 kB a dataset)
  }
  // Entity ids once per group, and the full lists of reduced groups (variable-length strings:
  // the text and about 40 bytes of global heap each, by h5stat).
  std::map<std::string, const std::vector<std::string>*, std::less<>> groups;
  for (const ChannelInfo& channel : channels)
    groups.try_emplace(channel.group, &channel.entity_ids);
  for (const auto& [group, ids] : groups) {
    for (const std::string& id : *ids)
      id_bytes += id.size() + 40;
  }
  for (const auto& [group, ids] : entity_lists) {
    for (const std::string& id : ids)
      id_bytes += id.size() + 40;
  }
  return bytes + static_cast<double>(id_bytes);
}

double estimatedTableBytes(const ResultTable& table) {
  double bytes = 0.0;
  for (const TableColumn& column : table.columns) {
    bytes += 2500.0;  // object header and attributes, as a channel's dataset
    for (const std::string& text : column.strings)
      bytes += static_cast<double>(text.size() + 40);  // text and its global-heap entry
    bytes += static_cast<double>(column.numbers.size() * sizeof(double));
  }
  return bytes;
}

std::unique_ptr<RecorderSink> makeHdf5Sink(std::string path, Hdf5SinkOptions options) {
  silenceErrorPrinting();
  return std::make_unique<Hdf5Sink>(std::move(path), options);
}

}  // namespace racktwin::core
