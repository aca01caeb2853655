// The HDF5 result writer alone: replays the records of an existing result file through the sink
// with several compression and chunk settings and prints, for each, the wall time of writing
// (open, every append, close) and the size of the file. The data are a real run's, so the
// compression ratios are the ones a run gets.
//   build/release/bench/bench_result_write RESULT.h5 [OUT_DIR] [repeats]
// Reads of the files written (one entity's series, one record of every entity) are timed by
// bench/bench_result_read.py with h5py, as a user would read them.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/core/Recorder.hpp"

namespace {

namespace rc = racktwin::core;

struct Setting {
  const char* name;
  rc::Hdf5SinkOptions options;
};

struct Replay {
  rc::RunMetadata metadata;
  std::vector<rc::ChannelInfo> channels;
  std::vector<std::vector<double>> data;  // per channel, samples x width
  std::vector<double> times;
};

rc::Aggregation aggregationOf(const std::string& name) {
  if (name == "mean") return rc::Aggregation::Mean;
  if (name == "max") return rc::Aggregation::Max;
  return rc::Aggregation::Sample;
}

Replay load(const std::string& path) {
  Replay r;
  const rc::ResultFileInfo info = rc::readResultInfo(path);
  r.metadata.program_version = "bench";
  r.metadata.scenario_text = rc::readResultStrings(path, "/scenario/text").front();
  r.times = rc::readResultDataset(path, "/time");
  for (const rc::DatasetInfo& d : info.datasets) {
    if (d.type != "float64" || d.path == "/time") continue;
    const auto slash = d.path.rfind('/');
    rc::ChannelInfo c;
    c.group = d.path.substr(1, slash - 1);
    c.name = d.path.substr(slash + 1);
    if (c.group.find('/') != std::string::npos) continue;
    c.unit = d.units;
    c.description = d.description;
    c.aggregation = aggregationOf(d.aggregation);
    if (d.shape.size() == 2) c.entity_ids = rc::readResultStrings(path, "/" + c.group + "/ids");
    r.data.push_back(rc::readResultDataset(path, d.path));
    r.channels.push_back(std::move(c));
  }
  return r;
}

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_result_write RESULT.h5 [OUT_DIR] [repeats]\n");
    return 2;
  }
  const std::string out_dir = argc > 2 ? argv[2] : "/tmp";
  const int repeats = argc > 3 ? std::max(1, std::atoi(argv[3])) : 3;
  try {
    const Replay replay = load(argv[1]);
    std::size_t width = 0;
    for (const rc::ChannelInfo& c : replay.channels)
      width += c.width();
    const std::size_t samples = replay.times.size();
    std::printf("%s: %zu channels, %zu values a record, %zu records (%.1f MB of float64)\n",
                argv[1], replay.channels.size(), width, samples,
                8.0 * static_cast<double>(width * samples) / 1e6);
    std::vector<double> rows(width * samples);
    for (std::size_t i = 0; i < samples; ++i) {
      std::size_t offset = i * width;
      for (std::size_t k = 0; k < replay.channels.size(); ++k) {
        const std::size_t w = replay.channels[k].width();
        std::copy_n(replay.data[k].begin() + static_cast<std::ptrdiff_t>(i * w), w,
                    rows.begin() + static_cast<std::ptrdiff_t>(offset));
        offset += w;
      }
    }
    const std::vector<Setting> settings = {
        {"shuffle+deflate4, whole rows (before)", {.deflate_level = 4}},
        {"no compression", {.deflate_level = 0}},
        {"deflate1, no shuffle", {.deflate_level = 1, .shuffle = false}},
        {"shuffle+deflate1, whole rows", {.deflate_level = 1}},
        {"shuffle+deflate1, 256 columns (default)", {.deflate_level = 1, .chunk_columns = 256}},
        {"shuffle+deflate1, 512 columns", {.deflate_level = 1, .chunk_columns = 512}},
        {"shuffle+deflate1, 128 columns", {.deflate_level = 1, .chunk_columns = 128}},
        {"shuffle+deflate2, 256 columns", {.deflate_level = 2, .chunk_columns = 256}},
        {"shuffle+deflate4, 256 columns", {.deflate_level = 4, .chunk_columns = 256}},
        {"shuffle+deflate6, 256 columns", {.deflate_level = 6, .chunk_columns = 256}},
        {"no compression, 256 columns", {.deflate_level = 0, .chunk_columns = 256}},
    };
    std::printf("%-40s %10s %10s %8s\n", "setting", "write s", "MB", "ratio");
    int index = 0;
    for (const Setting& s : settings) {
      const std::string path = out_dir + "/bench_write_" + std::to_string(index++) + ".h5";
      double best = 1e300;
      for (int k = 0; k < repeats; ++k) {
        std::filesystem::remove(path);
        const auto start = std::chrono::steady_clock::now();
        auto sink = rc::makeHdf5Sink(path, s.options);
        sink->open(replay.metadata, replay.channels);
        for (std::size_t i = 0; i < samples; ++i) {
          sink->append(replay.times[i], std::span<const double>(rows.data() + i * width, width));
        }
        sink->close(true, "{}");
        best = std::min(best, seconds(start));
      }
      const double bytes = static_cast<double>(std::filesystem::file_size(path));
      std::printf("%-40s %10.3f %10.2f %8.3f   %s\n", s.name, best, bytes / 1e6,
                  bytes / (8.0 * static_cast<double>(width * samples)), path.c_str());
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_result_write: %s\n", error.what());
    return 1;
  }
  return 0;
}
