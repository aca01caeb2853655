#pragma once
// The HDF5 result file: writing (a RecorderSink) and reading back what it holds. No HDF5 type
// appears here; the library is used only in core/src/Hdf5*.cpp.
//
// Layout (readable by h5py, pandas, HDFView without RackTwin):
//   /time                          float64 (samples,)            units "s"
//   /<group>/ids                   variable-length UTF-8 strings (entities,)
//   /<group>/<name>                float64 (samples, entities) or (samples,) for scalar channels,
//                                  chunked, (shuffle +) deflate + Fletcher32 checksum, attributes
//                                  `units`, `description`,
//                                  `aggregation` and `interval`:
//                                    "mean": the record at t_k is the time-weighted mean over
//                                      (t_(k-1), t_k] (power, heat flow, flow, utilisation, speed),
//                                      so sum(record_k * (t_k - t_(k-1))) is the energy or volume;
//                                    "sample": the value at t_k (states, flags, counts, running
//                                      totals; temperatures);
//                                    "max": /<group>/<name>_max, same shape as its sampled
//                                      sibling, the maximum over (t_(k-1), t_k] of the macro
//                                      steps' values (temperatures); absent when the record
//                                      interval is one macro step (the sample is the max).
//                                  The record at t = 0 is the initial state (all kinds); a run
//                                  ending between record times has a last record at its end.
//   /<group>_by_<level>/<name>.<statistic>
//                                  aggregates over the entities inside racks (GPUs, CPUs,
//                                  NVSwitches, trays) per rack, row or hall when the run's level
//                                  of detail asks for them (core/OutputDetail.hpp): statistic
//                                  "mean", "max" or "argmax" (an index into /entities/<group>),
//                                  with attributes `statistic` and `source` (the channel they are
//                                  computed from) besides the ones above; the aggregation is
//                                  the source's ("sample" for a sampled temperature)
//   /<group>_hottest/<name>, /<group>_hottest/index
//                                  every channel of the N hottest entities of each record and
//                                  their indices into /entities/<group> (statistic "hottest",
//                                  "hottest_index")
//   /entities/<group>              every entity of a group whose columns were reduced, in site
//                                  order; /<group>/ids then lists the entities it keeps
//   /scenario/text                 the scenario file as given (variable-length UTF-8 string)
//   root attributes                program_version, site_name, scenario_path, seed, step_s,
//                                  substeps, record_interval_s, duration_s, complete (0/1),
//                                  record_convention (the rule above, as text), summary_json
//                                  (set when the run ends), input_warnings (the scenario's
//                                  plausibility warnings, one a line; absent when there are none)
//   /limits/<column>, /headroom/<column>   design limits and headroom of the run, one row per
//                                  limit or group (written when the run ends; docs/capacity.md)
// Sweep files (`racktwin sweep`, `racktwin envelope`) share the reader: docs/capacity.md.
// All string attributes are variable-length UTF-8. The file is flushed every `flush_rows` samples
// so a run killed part-way leaves a readable file with complete = 0. The file is written as
// <path>.partial and renamed to <path> by close() only: a run that throws or is killed leaves a
// previous <path> untouched and its rows so far in <path>.partial.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "racktwin/core/Recorder.hpp"

namespace racktwin::core {

struct Hdf5SinkOptions {
  // Samples per chunk. The sink picks a divisor of flush_rows at or below this so chunks and
  // flushes line up: a flush then never rewrites a chunk flushed before, which keeps the rows of a
  // killed run readable.
  std::size_t chunk_rows = 60;
  int deflate_level = 4;        // 0..9
  std::size_t flush_rows = 60;  // samples between H5Fflush calls
  // A resumed run: open() reopens the existing <path>.partial, checks that its datasets are the
  // run's channels with at least resume_rows samples, cuts every dataset to resume_rows (rows a
  // killed run wrote after its last checkpoint) and appends after them. The resume is recorded in
  // the group /resume (attributes count, time_s, rows), so `h5diff --exclude-path /resume`
  // compares a resumed file with an uninterrupted run's.
  bool resume = false;
  std::size_t resume_rows = 0;
  double resume_time = 0.0;  // s, the checkpoint's simulated time
  // Compression of the float datasets: deflate at deflate_level (0: none), after the byte shuffle
  // when `shuffle` (which groups the bytes of equal significance of neighbouring values).
  bool shuffle = true;
  // Columns (entities) per chunk of a 2-D dataset; 0: the whole row up to about 1 MiB. Fewer
  // columns make a chunk hold more rows, so reading one entity's series inflates less data.
  std::size_t chunk_columns = 0;
};

/// Creates <path>.partial when open() is called (reopens it with options.resume) and renames it to
/// `path` in close(). Throws RuntimeError on I/O failure, and when `path` or <path>.partial exists
/// and is not a regular file.
std::unique_ptr<RecorderSink> makeHdf5Sink(std::string path, Hdf5SinkOptions options = {});

/// The size of a result file of `records` records of these channels and entity lists (what the
/// sink's open() receives) written with `options`: the chunks the sink allocates, times the share
/// deflate leaves of float64 records (measured on runs: bench/README.md, "Result files"), plus
/// metadata.
double estimatedResultBytes(
    const std::vector<ChannelInfo>& channels,
    const std::vector<std::pair<std::string, std::vector<std::string>>>& entity_lists,
    std::size_t records, const Hdf5SinkOptions& options);
/// The size a table the run writes at its end takes in the file (the design limits: some 30,000
/// rows of ten strings on a 300,000-GPU site, most of a short run's file): its strings as
/// estimatedResultBytes counts ids, its numbers whole, a dataset header each.
double estimatedTableBytes(const ResultTable& table);

struct DatasetInfo {
  std::string path;  // "/gpu/T_junction"
  std::vector<unsigned long long> shape;
  std::string type;   // "float64", "string", ...
  std::string units;  // empty when absent
  std::string description;
  std::string aggregation;  // "mean", "sample", "max"; empty when absent (ids, older files)
  // Aggregates over entities (OutputDetail.hpp): "mean", "max", "argmax", "hottest",
  // "hottest_index", and the dataset they are computed from; empty for recorded channels.
  std::string statistic;
  std::string source;
};

struct ResultFileInfo {
  std::map<std::string, std::string> attributes;  // root attributes, numbers as text
  std::vector<DatasetInfo> datasets;              // sorted by path
};

/// Reads the structure of a result file. Throws InputError naming the file when it cannot be read.
ResultFileInfo readResultInfo(const std::string& path);

/// Reads a float64 dataset into row-major doubles; `shape` receives its dimensions.
std::vector<double> readResultDataset(const std::string& path, const std::string& dataset,
                                      std::vector<unsigned long long>* shape = nullptr);

/// Reads a string dataset (variable- or fixed-length; a scalar gives one string), e.g. a group's
/// /<group>/ids or /scenario/text. Throws InputError naming the file and the dataset when it is
/// absent or holds no strings.
std::vector<std::string> readResultStrings(const std::string& path, const std::string& dataset);

}  // namespace racktwin::core
