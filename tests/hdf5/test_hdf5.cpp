// The HDF5 result file (core/include/racktwin/core/Hdf5Result.hpp): what is written is read back
// bit for bit, the storage layout is the one the header specifies, a killed run leaves a readable
// file, and unreadable files give InputError. The file is also checked independently of our reader
// through the HDF5 C API and through h5py (tests/hdf5/check_result.py).
#include <hdf5.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/core/Recorder.hpp"

namespace rc = racktwin::core;
namespace fs = std::filesystem;

namespace {

fs::path testDirectory() {
  const fs::path dir = fs::path(RACKTWIN_BINARY_DIR) / "tests" / "hdf5" / "files";
  fs::create_directories(dir);
  return dir;
}

/// Runs tests/hdf5/check_result.py (h5py, independent of our reader); returns its exit status.
int runChecker(const fs::path& file, bool allow_incomplete) {
  const std::string command =
      std::string("/usr/bin/python3 '") + RACKTWIN_SOURCE_DIR + "/tests/hdf5/check_result.py' "
      + (allow_incomplete ? "--allow-incomplete '" : "'") + file.string() + "'";
  const int status = std::system(command.c_str());
  return (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
}

// The synthetic run: values are closed-form functions of the sample index, so the test knows
// exactly what the file must hold.
constexpr double kInterval = 0.5;  // s; exact in binary, so times compare exactly
const std::vector<std::string> kGpuIds = {"rack01/tray01/gpu0", "rack01/tray01/gpu1",
                                          "rack01/tray02/gpu0"};
const std::vector<std::string> kRackIds = {"rack01", "rack02"};

double gpuTemperature(std::size_t k, std::size_t i) {
  return 300.0 + std::sin(static_cast<double>(k) * kInterval) * static_cast<double>(i + 1);
}
double gpuPower(std::size_t k, std::size_t i) {
  return 1000.0 * static_cast<double>(i + 1) + std::cos(static_cast<double>(k) * 0.37);
}
double sitePower(std::size_t k) {
  return 1.0e5 + 3.0 * static_cast<double>(k * k);
}
double rackHeat(std::size_t k, std::size_t i) {
  return std::exp(-0.01 * static_cast<double>(k)) * static_cast<double>(10 * i + 7);
}

rc::RunMetadata testMetadata() {
  rc::RunMetadata metadata;
  metadata.program_version = "RackTwin 0.1.0";
  metadata.site_name = "test hall";
  metadata.scenario_path = "scenarios/test_hall.yaml";
  metadata.scenario_text =
      "site:\n  name: test hall  # \xc2\xb0"
      "C and \xce\x94"
      "p\n";
  metadata.seed = 18446744073709551557ULL;  // largest 64-bit prime: needs all 64 bits
  metadata.step = 0.25;
  metadata.substeps = 4;
  metadata.record_interval = kInterval;
  metadata.duration = 26.5;
  return metadata;
}

/// The channels and their live values, as a model would expose them to a Recorder.
struct TestModel {
  std::vector<double> T_gpu = std::vector<double>(kGpuIds.size());
  std::vector<double> P_gpu = std::vector<double>(kGpuIds.size());
  double P_site = 0.0;
  std::vector<double> Q_rack = std::vector<double>(kRackIds.size());
  std::vector<double> wide;  // optional very wide channel (chunk-size cap)

  void set(std::size_t k) {
    for (std::size_t i = 0; i < T_gpu.size(); ++i)
      T_gpu[i] = gpuTemperature(k, i);
    for (std::size_t i = 0; i < P_gpu.size(); ++i)
      P_gpu[i] = gpuPower(k, i);
    P_site = sitePower(k);
    for (std::size_t i = 0; i < Q_rack.size(); ++i)
      Q_rack[i] = rackHeat(k, i);
    for (std::size_t i = 0; i < wide.size(); ++i)
      wide[i] = static_cast<double>(k + i);
  }

  void declare(rc::Recorder& recorder, const std::string& gpu_unit = "K") {
    recorder.add({"gpu", "T_junction", gpu_unit, "GPU junction temperature.", kGpuIds,
                  rc::Aggregation::SampleAndMax},
                 T_gpu.data());
    recorder.add({"gpu", "P", "W", "GPU electrical power.", kGpuIds, rc::Aggregation::Mean},
                 P_gpu.data());
    recorder.add(
        {"site", "P_total", "W", "Total site electrical power.", {}, rc::Aggregation::Mean},
        &P_site);
    recorder.add(
        {"rack", "Q_flow", "W", "Heat taken by the rack coolant.", kRackIds, rc::Aggregation::Mean},
        Q_rack.data());
    if (!wide.empty()) {
      std::vector<std::string> ids;
      for (std::size_t i = 0; i < wide.size(); ++i)
        ids.push_back("cell" + std::to_string(i));
      recorder.add({"grid", "value", "1", "A very wide channel.", ids, rc::Aggregation::Sample},
                   wide.data());
    }
  }
};

constexpr const char* kSummary = R"({"T_junction_max_K": 351.25, "energy_J": 1.5e9})";

/// Records `samples` samples through a Recorder into `file` and closes it as complete.
void writeRun(const fs::path& file, std::size_t samples, rc::Hdf5SinkOptions options,
              std::size_t wide_width = 0) {
  TestModel model;
  model.wide.assign(wide_width, 0.0);
  rc::Recorder recorder(kInterval);
  model.declare(recorder);
  const std::unique_ptr<rc::RecorderSink> sink = rc::makeHdf5Sink(file.string(), options);
  recorder.addSink(*sink);
  recorder.open(testMetadata());
  for (std::size_t k = 0; k < samples; ++k) {
    model.set(k);
    recorder.sample(static_cast<double>(k) * kInterval);
  }
  recorder.close(true, kSummary);
}

// --- direct HDF5 C API access for the checks that must not rely on our reader ---

struct Id {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Id() {
    if (id >= 0) close(id);
  }
};

std::vector<std::string> readStrings(const fs::path& file, const char* dataset) {
  const Id f{H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  REQUIRE(f.id >= 0);
  const Id d{H5Dopen2(f.id, dataset, H5P_DEFAULT), H5Dclose};
  REQUIRE(d.id >= 0);
  const Id space{H5Dget_space(d.id), H5Sclose};
  const hssize_t n = H5Sget_simple_extent_npoints(space.id);
  REQUIRE(n >= 1);
  const Id type{H5Tcopy(H5T_C_S1), H5Tclose};
  REQUIRE(H5Tset_size(type.id, H5T_VARIABLE) >= 0);
  REQUIRE(H5Tset_cset(type.id, H5T_CSET_UTF8) >= 0);
  std::vector<char*> data(static_cast<std::size_t>(n), nullptr);
  REQUIRE(H5Dread(d.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) >= 0);
  std::vector<std::string> out;
  for (char* s : data) {
    out.emplace_back(s);
    H5free_memory(s);
  }
  return out;
}

void requireUtf8VariableString(hid_t type) {
  CHECK(H5Tget_class(type) == H5T_STRING);
  CHECK(H5Tis_variable_str(type) > 0);
  CHECK(H5Tget_cset(type) == H5T_CSET_UTF8);
}

void requireUtf8Attribute(hid_t object, const char* name) {
  INFO("attribute " << name);
  const Id attribute{H5Aopen(object, name, H5P_DEFAULT), H5Aclose};
  REQUIRE(attribute.id >= 0);
  const Id type{H5Aget_type(attribute.id), H5Tclose};
  requireUtf8VariableString(type.id);
}

const rc::DatasetInfo* findDataset(const rc::ResultFileInfo& info, const std::string& path) {
  for (const rc::DatasetInfo& d : info.datasets)
    if (d.path == path) return &d;
  return nullptr;
}

std::string fileBytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("HDF5 result round trip reproduces every value, shape and attribute", "[hdf5]") {
  // 53 samples: more than chunk_rows = 16 and not a multiple of any chunk size used. Flushing
  // every 10 rows gives aligned 10-row chunks; every 17 rows (prime) keeps 16-row chunks, so
  // flushes write partial chunks that later grow.
  constexpr std::size_t kSamples = 53;
  const std::size_t flush_rows = GENERATE(as<std::size_t>{}, 10, 17);
  const fs::path file = testDirectory() / ("round_trip_" + std::to_string(flush_rows) + ".h5");
  writeRun(file, kSamples, {.chunk_rows = 16, .deflate_level = 4, .flush_rows = flush_rows});
  CHECK_FALSE(fs::exists(file.string() + ".partial"));

  SECTION("values are stored losslessly (float64 + shuffle + deflate are lossless)") {
    std::vector<unsigned long long> shape;
    const std::vector<double> time = rc::readResultDataset(file.string(), "/time", &shape);
    REQUIRE(shape == std::vector<unsigned long long>{kSamples});
    for (std::size_t k = 0; k < kSamples; ++k)
      CHECK(time[k] == static_cast<double>(k) * 0.5);

    const std::vector<double> T = rc::readResultDataset(file.string(), "/gpu/T_junction", &shape);
    REQUIRE(shape == std::vector<unsigned long long>{kSamples, kGpuIds.size()});
    const std::vector<double> P = rc::readResultDataset(file.string(), "/gpu/P", &shape);
    REQUIRE(shape == std::vector<unsigned long long>{kSamples, kGpuIds.size()});
    std::size_t mismatches = 0;
    for (std::size_t k = 0; k < kSamples; ++k) {
      for (std::size_t i = 0; i < kGpuIds.size(); ++i) {
        mismatches += T[k * kGpuIds.size() + i] != gpuTemperature(k, i);
        mismatches += P[k * kGpuIds.size() + i] != gpuPower(k, i);
      }
    }
    CHECK(mismatches == 0);

    const std::vector<double> site = rc::readResultDataset(file.string(), "site/P_total", &shape);
    REQUIRE(shape == std::vector<unsigned long long>{kSamples});  // scalar channel: 1-D
    for (std::size_t k = 0; k < kSamples; ++k)
      CHECK(site[k] == sitePower(k));

    const std::vector<double> Q = rc::readResultDataset(file.string(), "/rack/Q_flow", &shape);
    REQUIRE(shape == std::vector<unsigned long long>{kSamples, kRackIds.size()});
    for (std::size_t k = 0; k < kSamples; ++k)
      for (std::size_t i = 0; i < kRackIds.size(); ++i)
        CHECK(Q[k * kRackIds.size() + i] == rackHeat(k, i));
  }

  SECTION("structure, units, descriptions and root attributes") {
    const rc::ResultFileInfo info = rc::readResultInfo(file.string());
    std::vector<std::string> paths;
    for (const rc::DatasetInfo& d : info.datasets)
      paths.push_back(d.path);
    CHECK(paths
          == std::vector<std::string>{"/gpu/P", "/gpu/T_junction", "/gpu/T_junction_max",
                                      "/gpu/ids", "/rack/Q_flow", "/rack/ids", "/scenario/text",
                                      "/site/P_total", "/time"});

    const rc::DatasetInfo* T = findDataset(info, "/gpu/T_junction");
    REQUIRE(T != nullptr);
    CHECK(T->type == "float64");
    CHECK(T->units == "K");
    CHECK(T->description == "GPU junction temperature.");
    CHECK(T->shape == std::vector<unsigned long long>{kSamples, 3});
    const rc::DatasetInfo* site = findDataset(info, "/site/P_total");
    REQUIRE(site != nullptr);
    CHECK(site->units == "W");
    CHECK(site->description == "Total site electrical power.");
    const rc::DatasetInfo* time = findDataset(info, "/time");
    REQUIRE(time != nullptr);
    CHECK(time->units == "s");
    CHECK(time->type == "float64");
    const rc::DatasetInfo* ids = findDataset(info, "/gpu/ids");
    REQUIRE(ids != nullptr);
    CHECK(ids->type == "string");
    CHECK(ids->shape == std::vector<unsigned long long>{3});
    const rc::DatasetInfo* text = findDataset(info, "/scenario/text");
    REQUIRE(text != nullptr);
    CHECK(text->type == "string");
    CHECK(text->shape.empty());  // a scalar dataset

    const rc::RunMetadata metadata = testMetadata();
    const auto& a = info.attributes;
    CHECK(a.at("program_version") == metadata.program_version);
    CHECK(a.at("site_name") == metadata.site_name);
    CHECK(a.at("scenario_path") == metadata.scenario_path);
    CHECK(a.at("seed") == "18446744073709551557");
    CHECK(a.at("step_s") == "0.25");
    CHECK(a.at("substeps") == "4");
    CHECK(a.at("record_interval_s") == "0.5");
    CHECK(a.at("duration_s") == "26.5");
    CHECK(a.at("complete") == "1");
    CHECK(a.at("summary_json") == kSummary);
    CHECK(a.count("record_convention") == 1);
    CHECK(a.count("text_checksum") == 1);
    CHECK(a.size() == 12);
  }

  SECTION("entity ids and scenario text, read with the HDF5 C API") {
    CHECK(readStrings(file, "/gpu/ids") == kGpuIds);
    CHECK(readStrings(file, "/rack/ids") == kRackIds);
    CHECK(readStrings(file, "/scenario/text")
          == std::vector<std::string>{testMetadata().scenario_text});
  }

  SECTION("entity ids and scenario text, read by core::readResultStrings") {
    CHECK(rc::readResultStrings(file.string(), "/gpu/ids") == kGpuIds);
    CHECK(rc::readResultStrings(file.string(), "/rack/ids") == kRackIds);
    CHECK(rc::readResultStrings(file.string(), "/scenario/text")
          == std::vector<std::string>{testMetadata().scenario_text});
  }

  SECTION("h5py sees a complete, consistent file") {
    CHECK(runChecker(file, false) == 0);
  }
}

TEST_CASE("HDF5 result storage: chunked, shuffle + deflate, UTF-8 strings, deterministic",
          "[hdf5]") {
  const fs::path file = testDirectory() / "storage.h5";
  constexpr std::size_t kWide = 1000;
  const rc::Hdf5SinkOptions options{.chunk_rows = 256, .deflate_level = 6, .flush_rows = 60};
  writeRun(file, 300, options, kWide);

  const Id f{H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  REQUIRE(f.id >= 0);

  SECTION("float datasets are chunked, extendible and filtered shuffle, deflate, Fletcher32") {
    for (const char* path : {"/time", "/gpu/T_junction", "/site/P_total", "/grid/value"}) {
      INFO(path);
      const Id d{H5Dopen2(f.id, path, H5P_DEFAULT), H5Dclose};
      REQUIRE(d.id >= 0);
      const Id dcpl{H5Dget_create_plist(d.id), H5Pclose};
      REQUIRE(H5Pget_layout(dcpl.id) == H5D_CHUNKED);
      hsize_t chunk[2] = {0, 0};
      const int rank = H5Pget_chunk(dcpl.id, 2, chunk);
      const std::string p(path);
      CHECK(rank == (p == "/time" || p == "/site/P_total" ? 1 : 2));
      if (rank == 2) CHECK(chunk[1] == (p == "/grid/value" ? kWide : kGpuIds.size()));
      // chunk_rows = 256, but a chunk divides the 60-row flush interval, so every chunk is
      // written once, complete (see Hdf5Sink.cpp).
      CHECK(chunk[0] == 60);

      const Id space{H5Dget_space(d.id), H5Sclose};
      hsize_t dims[2] = {0, 0};
      hsize_t max_dims[2] = {0, 0};
      REQUIRE(H5Sget_simple_extent_dims(space.id, dims, max_dims) == rank);
      CHECK(dims[0] == 300);
      CHECK(max_dims[0] == H5S_UNLIMITED);

      REQUIRE(H5Pget_nfilters(dcpl.id) == 3);
      unsigned flags = 0;
      std::size_t n_values = 4;
      unsigned values[4] = {};
      CHECK(H5Pget_filter2(dcpl.id, 0, &flags, &n_values, values, 0, nullptr, nullptr)
            == H5Z_FILTER_SHUFFLE);
      n_values = 4;
      CHECK(H5Pget_filter2(dcpl.id, 1, &flags, &n_values, values, 0, nullptr, nullptr)
            == H5Z_FILTER_DEFLATE);
      REQUIRE(n_values >= 1);
      CHECK(values[0] == 6);  // the deflate level asked for
      // The checksum last: it covers the stored (compressed) bytes and is verified first.
      n_values = 4;
      CHECK(H5Pget_filter2(dcpl.id, 2, &flags, &n_values, values, 0, nullptr, nullptr)
            == H5Z_FILTER_FLETCHER32);
    }
  }

  SECTION("string attributes and string datasets are variable-length UTF-8") {
    for (const char* name : {"program_version", "site_name", "scenario_path", "summary_json"})
      requireUtf8Attribute(f.id, name);
    for (const char* path : {"/time", "/gpu/T_junction", "/site/P_total"}) {
      INFO(path);
      const Id d{H5Dopen2(f.id, path, H5P_DEFAULT), H5Dclose};
      REQUIRE(d.id >= 0);
      requireUtf8Attribute(d.id, "units");
      requireUtf8Attribute(d.id, "description");
    }
    for (const char* path : {"/gpu/ids", "/scenario/text"}) {
      INFO(path);
      const Id d{H5Dopen2(f.id, path, H5P_DEFAULT), H5Dclose};
      REQUIRE(d.id >= 0);
      const Id type{H5Dget_type(d.id), H5Tclose};
      requireUtf8VariableString(type.id);
    }
  }

  SECTION("numeric root attributes have the specified types") {
    const auto typeOf = [&](const char* name, H5T_class_t cls, std::size_t size, bool is_signed) {
      INFO(name);
      const Id attribute{H5Aopen(f.id, name, H5P_DEFAULT), H5Aclose};
      REQUIRE(attribute.id >= 0);
      const Id type{H5Aget_type(attribute.id), H5Tclose};
      CHECK(H5Tget_class(type.id) == cls);
      CHECK(H5Tget_size(type.id) == size);
      if (cls == H5T_INTEGER) CHECK((H5Tget_sign(type.id) == H5T_SGN_2) == is_signed);
    };
    typeOf("seed", H5T_INTEGER, 8, false);
    typeOf("substeps", H5T_INTEGER, 4, true);
    typeOf("step_s", H5T_FLOAT, 8, true);
    typeOf("record_interval_s", H5T_FLOAT, 8, true);
    typeOf("duration_s", H5T_FLOAT, 8, true);
    typeOf("complete", H5T_INTEGER, 1, false);
  }

  SECTION("chunk rows: at most chunk_rows, about 1 MiB at most, dividing flush_rows") {
    const auto chunkRows = [&](rc::Hdf5SinkOptions o, const char* path) {
      const fs::path other = testDirectory() / "chunks.h5";
      writeRun(other, 20, o, kWide);
      const Id g{H5Fopen(other.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
      const Id d{H5Dopen2(g.id, path, H5P_DEFAULT), H5Dclose};
      const Id dcpl{H5Dget_create_plist(d.id), H5Pclose};
      hsize_t chunk[2] = {0, 0};
      REQUIRE(H5Pget_chunk(dcpl.id, 2, chunk) >= 1);
      return chunk[0];
    };
    // No periodic flush: chunk_rows, but 1000 columns * 8 B = 8000 B a row caps a chunk at
    // floor(2^20 / 8000) = 131 rows.
    CHECK(chunkRows({.chunk_rows = 256, .deflate_level = 1, .flush_rows = 0}, "/gpu/P") == 256);
    CHECK(chunkRows({.chunk_rows = 256, .deflate_level = 1, .flush_rows = 0}, "/grid/value")
          == 131);
    // Flushing every 1000 rows: 250 is the largest divisor of 1000 not above 256.
    CHECK(chunkRows({.chunk_rows = 256, .deflate_level = 1, .flush_rows = 1000}, "/gpu/P") == 250);
    // 1009 is prime: aligned chunks would be 1 row, so chunk_rows is kept.
    CHECK(chunkRows({.chunk_rows = 256, .deflate_level = 1, .flush_rows = 1009}, "/gpu/P") == 256);
  }

  SECTION("no object carries a timestamp") {
    for (const char* path :
         {"/", "/gpu", "/time", "/gpu/T_junction", "/gpu/ids", "/scenario", "/scenario/text"}) {
      INFO(path);
#if H5_VERSION_GE(1, 12, 0)
      H5O_info2_t object{};
      REQUIRE(H5Oget_info_by_name3(f.id, path, &object, H5O_INFO_TIME, H5P_DEFAULT) >= 0);
#else
      H5O_info_t object{};
      REQUIRE(H5Oget_info_by_name2(f.id, path, &object, H5O_INFO_TIME, H5P_DEFAULT) >= 0);
#endif
      CHECK(object.ctime == 0);
      CHECK(object.mtime == 0);
      CHECK(object.btime == 0);
      CHECK(object.atime == 0);
    }
  }

  SECTION("the same run gives a byte-identical file") {
    const fs::path again = testDirectory() / "storage_again.h5";
    writeRun(again, 300, options, kWide);
    const std::string first = fileBytes(file);
    CHECK(!first.empty());
    CHECK(first == fileBytes(again));
  }
}

TEST_CASE("HDF5 result of a run killed with SIGKILL is readable up to the last flush", "[hdf5]") {
  // The rows are in <file>.partial: only close() gives the result its name.
  const fs::path file = testDirectory() / "killed.h5";
  const fs::path partial = file.string() + ".partial";
  fs::remove(file);
  fs::remove(partial);
  constexpr std::size_t kSamples = 47;
  constexpr std::size_t kFlushRows = 10;  // flushes after samples 10, 20, 30, 40

  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The child never returns into Catch2: it dies like a killed batch run, or exits on error.
    try {
      TestModel model;
      rc::Recorder recorder(kInterval);
      model.declare(recorder);
      const std::unique_ptr<rc::RecorderSink> sink = rc::makeHdf5Sink(
          file.string(), {.chunk_rows = 16, .deflate_level = 4, .flush_rows = kFlushRows});
      recorder.addSink(*sink);
      recorder.open(testMetadata());
      for (std::size_t k = 0; k < kSamples; ++k) {
        model.set(k);
        recorder.sample(static_cast<double>(k) * kInterval);
      }
      raise(SIGKILL);
    } catch (...) {
    }
    _exit(3);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(WTERMSIG(status) == SIGKILL);
  CHECK_FALSE(fs::exists(file));

  const rc::ResultFileInfo info = rc::readResultInfo(partial.string());
  CHECK(info.attributes.at("complete") == "0");
  CHECK(info.attributes.count("summary_json") == 0);

  std::vector<unsigned long long> shape;
  const std::vector<double> time = rc::readResultDataset(partial.string(), "/time", &shape);
  REQUIRE(shape.size() == 1);
  const std::size_t rows = shape[0];
  CHECK(rows >= 40);
  CHECK(rows <= kSamples);
  for (std::size_t k = 0; k < rows; ++k)
    CHECK(time[k] == static_cast<double>(k) * kInterval);

  const std::vector<double> T = rc::readResultDataset(partial.string(), "/gpu/T_junction", &shape);
  REQUIRE(shape.size() == 2);
  CHECK(shape[0] == rows);
  std::size_t mismatches = 0;
  for (std::size_t k = 0; k < shape[0]; ++k)
    for (std::size_t i = 0; i < kGpuIds.size(); ++i)
      mismatches += T[k * kGpuIds.size() + i] != gpuTemperature(k, i);
  CHECK(mismatches == 0);

  CHECK(runChecker(partial, true) == 0);
  CHECK(runChecker(partial, false) == 1);  // complete = 0 is a problem unless allowed
}

TEST_CASE("HDF5 result sink destroyed without close keeps the rows, complete = 0", "[hdf5]") {
  // A previous result of the same name stays as it was; the abandoned run's rows are kept in
  // <file>.partial.
  const fs::path file = testDirectory() / "abandoned.h5";
  const fs::path partial = file.string() + ".partial";
  writeRun(file, 7, {.chunk_rows = 16, .deflate_level = 4, .flush_rows = 10});
  const std::string previous = fileBytes(file);
  {
    TestModel model;
    rc::Recorder recorder(kInterval);
    model.declare(recorder);
    const std::unique_ptr<rc::RecorderSink> sink =
        rc::makeHdf5Sink(file.string(), {.chunk_rows = 16, .deflate_level = 4, .flush_rows = 10});
    recorder.addSink(*sink);
    recorder.open(testMetadata());
    for (std::size_t k = 0; k < 25; ++k) {
      model.set(k);
      recorder.sample(static_cast<double>(k) * kInterval);
    }
  }  // e.g. an exception unwinding a run
  CHECK(fileBytes(file) == previous);
  CHECK(rc::readResultInfo(file.string()).attributes.at("complete") == "1");
  const rc::ResultFileInfo info = rc::readResultInfo(partial.string());
  CHECK(info.attributes.at("complete") == "0");
  CHECK(info.attributes.count("summary_json") == 0);
  std::vector<unsigned long long> shape;
  const std::vector<double> P = rc::readResultDataset(partial.string(), "/gpu/P", &shape);
  REQUIRE(shape == std::vector<unsigned long long>{25, kGpuIds.size()});
  CHECK(P[24 * kGpuIds.size() + 2] == gpuPower(24, 2));
  CHECK(runChecker(partial, true) == 0);
}

TEST_CASE("HDF5 result sink never writes through or over a device node, FIFO or link", "[hdf5]") {
  const fs::path dir = testDirectory() / "special";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path fifo = dir / "fifo.h5";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  const fs::path link = dir / "link.h5";
  fs::create_symlink(dir / "elsewhere.h5", link);
  std::vector<fs::path> targets = {fifo, link, fs::path(dir / "through.h5")};
  fs::create_symlink(fifo, dir / "through.h5.partial");  // the temporary name is checked too
  const fs::path device = dir / "null.h5";
  if (mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) targets.push_back(device);
  for (const fs::path& target : targets) {
    INFO(target);
    const auto type_before = fs::symlink_status(target).type();
    TestModel model;
    rc::Recorder recorder(kInterval);
    model.declare(recorder);
    const std::unique_ptr<rc::RecorderSink> sink = rc::makeHdf5Sink(target.string());
    recorder.addSink(*sink);
    CHECK_THROWS_AS(recorder.open(testMetadata()), rc::RuntimeError);
    CHECK(fs::symlink_status(target).type() == type_before);
  }
  CHECK_FALSE(fs::exists(dir / "elsewhere.h5"));
}

TEST_CASE("HDF5 result: a changed digit in a stored string is an InputError, not a new number",
          "[hdf5]") {
  // Variable-length strings live in HDF5's global heap, which has no checksum of its own; the
  // root attribute text_checksum covers them.
  const fs::path file = testDirectory() / "tampered.h5";
  writeRun(file, 20, {.chunk_rows = 16, .deflate_level = 4, .flush_rows = 10});
  std::string bytes = fileBytes(file);
  const std::size_t at = bytes.find("351.25");
  REQUIRE(at != std::string::npos);
  bytes[at + 5] = '6';  // 351.26: still valid JSON, a plausible temperature
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  try {
    (void)rc::readResultInfo(file.string());
    FAIL("the changed summary was read");
  } catch (const rc::InputError& e) {
    CHECK(std::string(e.what()).find("checksum") != std::string::npos);
  }
  CHECK_THROWS_AS(rc::readResultDataset(file.string(), "/time"), rc::InputError);
}

TEST_CASE("HDF5 result: flipped bits in the data are errors, never different numbers", "[hdf5]") {
  const fs::path file = testDirectory() / "flipped.h5";
  writeRun(file, 300, {.chunk_rows = 60, .deflate_level = 4, .flush_rows = 60});
  const std::string bytes = fileBytes(file);
  const std::vector<std::string> datasets = {"/time", "/gpu/P", "/gpu/T_junction"};
  std::vector<std::vector<double>> before;
  for (const std::string& d : datasets)
    before.push_back(rc::readResultDataset(file.string(), d));
  // 64 single-bit flips at fixed offsets over the second half of the file (chunks and heaps).
  int errors = 0, same = 0, different = 0;
  for (int i = 0; i < 64; ++i) {
    std::string copy = bytes;
    const std::size_t offset =
        bytes.size() / 2 + static_cast<std::size_t>(i) * (bytes.size() / 130);
    copy[offset] = static_cast<char>(copy[offset] ^ (1 << (i % 8)));
    const fs::path variant = testDirectory() / ("flipped_" + std::to_string(i) + ".h5");
    std::ofstream(variant, std::ios::binary | std::ios::trunc) << copy;
    bool all_same = true;
    try {
      for (std::size_t d = 0; d < datasets.size(); ++d)
        all_same = all_same && rc::readResultDataset(variant.string(), datasets[d]) == before[d];
      (all_same ? same : different) += 1;
    } catch (const rc::InputError&) {
      ++errors;
    }
    fs::remove(variant);
  }
  INFO(errors << " errors, " << same << " identical, " << different << " different");
  CHECK(different == 0);
  CHECK(errors > 0);
}

TEST_CASE("HDF5 result checker reports non-finite values and missing units", "[hdf5]") {
  const fs::path file = testDirectory() / "bad_values.h5";
  TestModel model;
  rc::Recorder recorder(kInterval);
  model.declare(recorder, "");  // no unit on /gpu/T_junction
  const std::unique_ptr<rc::RecorderSink> sink = rc::makeHdf5Sink(file.string());
  recorder.addSink(*sink);
  recorder.open(testMetadata());
  for (std::size_t k = 0; k < 5; ++k) {
    model.set(k);
    if (k == 3) model.P_gpu[1] = std::nan("");
    recorder.sample(static_cast<double>(k) * kInterval);
  }
  recorder.close(true, "{}");
  CHECK(runChecker(file, false) == 1);
}

TEST_CASE("HDF5 result reader reports unreadable files as InputError naming the file", "[hdf5]") {
  const fs::path dir = testDirectory();
  using Catch::Matchers::Contains;

  SECTION("missing file") {
    const std::string missing = (dir / "does_not_exist.h5").string();
    CHECK_THROWS_MATCHES(rc::readResultInfo(missing), rc::InputError,
                         Catch::Matchers::Predicate<rc::InputError>(
                             [&](const rc::InputError& e) {
                               return std::string(e.what()).find(missing) != std::string::npos;
                             },
                             "names the file"));
    CHECK_THROWS_AS(rc::readResultDataset(missing, "/time"), rc::InputError);
  }

  SECTION("a file that is not HDF5") {
    const fs::path text = dir / "not_hdf5.h5";
    std::ofstream(text) << "time,T\n0,300\n";
    try {
      (void)rc::readResultInfo(text.string());
      FAIL("no exception");
    } catch (const rc::InputError& e) {
      CHECK_THAT(e.what(), Contains(text.string()));
    }
    CHECK_THROWS_AS(rc::readResultDataset(text.string(), "/time"), rc::InputError);
  }

  SECTION("a truncated result file") {
    const fs::path whole = dir / "to_truncate.h5";
    writeRun(whole, 40, {.chunk_rows = 16, .deflate_level = 4, .flush_rows = 10});
    const fs::path cut = dir / "truncated.h5";
    fs::copy_file(whole, cut, fs::copy_options::overwrite_existing);
    fs::resize_file(cut, fs::file_size(whole) / 2);
    try {
      (void)rc::readResultDataset(cut.string(), "/gpu/T_junction");
      FAIL("no exception");
    } catch (const rc::InputError& e) {
      CHECK_THAT(e.what(), Contains(cut.string()));
    }
  }

  SECTION("missing datasets, or ones of another type, name the dataset") {
    const fs::path file = dir / "reader_errors.h5";
    writeRun(file, 5, {});
    const auto requireNamed = [&](const char* name, const auto& read) {
      INFO(name);
      try {
        (void)read(file.string(), name);
        FAIL("no exception");
      } catch (const rc::InputError& e) {
        CHECK(e.key() == name);
        CHECK_THAT(e.what(), Contains(file.string()));
      }
    };
    const auto numbers = [](const std::string& f, const char* d) {
      return rc::readResultDataset(f, d);
    };
    const auto strings = [](const std::string& f, const char* d) {
      return rc::readResultStrings(f, d);
    };
    for (const char* name : {"/gpu/nothing", "/nogroup/T", "/gpu/ids", "/scenario/text", "/gpu"})
      requireNamed(name, numbers);
    for (const char* name : {"/gpu/nothing", "/nogroup/ids", "/time", "/gpu/T_junction", "/gpu"})
      requireNamed(name, strings);
  }
}

TEST_CASE("HDF5 result reader reads fixed-length, space-padded string datasets", "[hdf5]") {
  // Other writers (h5py with numpy bytes, Fortran codes) store fixed-length strings, padded with
  // NUL or spaces: the reader returns them without the padding.
  const fs::path file = testDirectory() / "fixed_strings.h5";
  {
    const Id f{H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
    REQUIRE(f.id >= 0);
    const Id type{H5Tcopy(H5T_C_S1), H5Tclose};
    REQUIRE(H5Tset_size(type.id, 8) >= 0);
    REQUIRE(H5Tset_strpad(type.id, H5T_STR_SPACEPAD) >= 0);
    const hsize_t n = 3;
    const Id space{H5Screate_simple(1, &n, nullptr), H5Sclose};
    const Id d{H5Dcreate2(f.id, "ids", type.id, space.id, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
               H5Dclose};
    REQUIRE(d.id >= 0);
    const char data[] = "cdu1    cdu-two rack_001";  // 3 x 8 characters, no terminators
    REQUIRE(H5Dwrite(d.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
  }
  CHECK(rc::readResultStrings(file.string(), "/ids")
        == std::vector<std::string>{"cdu1", "cdu-two", "rack_001"});
}
