#pragma once
// Per-GPU power traces for replay jobs (core::ReplayJobSpec), in two formats:
//
// nvidia-smi: the CSV of `nvidia-smi --query-gpu=timestamp,index,utilization.gpu,power.draw
// --format=csv[,nounits]`, e.g.
//
//   timestamp, index, utilization.gpu [%], power.draw [W]
//   2025/10/01 12:00:00.123, 0, 97 %, 650.12 W
//
// Columns may come in any order; timestamp, index and power.draw are required, other queried
// columns are ignored. Values may carry the unit of their header ("650.12 W"). Timestamps are
// 'YYYY/MM/DD hh:mm:ss[.fraction]' (or with '-' between the date parts); each GPU's times never
// decrease. Sample times are relative to the first row's timestamp. Blank lines and lines
// starting with '#' are ignored.
//
// DCGM: the text of `dcgmi dmon -e 155,203` and the like, whitespace-separated, e.g.
//
//   #Entity   POWER  GPUTL
//   ID        W
//   GPU 0     650.12   97
//
// A '#' line names the columns after the entity (it may repeat); an 'ID' line holds units and is
// skipped; each row is 'GPU <index>' and one value per column. POWER is required. Other '#'
// lines are comments. dmon prints no times: the k-th row of each GPU is the sample at
// k * interval.
//
// Trace GPU i is the GPU with the i-th smallest index. Every problem is a core::InputError naming
// the file, the 1-based line and column, and the column name as the key.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace racktwin::scenarios::detail {

struct GpuTrace {
  std::vector<std::size_t> sample_begin;  // samples of trace GPU i: [sample_begin[i], [i + 1])
  std::vector<double> times;              // s, relative to the trace's first sample
  std::vector<double> power;              // W
};

GpuTrace parseNvidiaSmiTrace(std::string_view text, const std::string& file);
/// `interval`: the dmon sample interval, s (> 0).
GpuTrace parseDcgmTrace(std::string_view text, const std::string& file, double interval);

/// Reads and parses a trace file; `format` is "nvidia-smi" or "dcgm".
GpuTrace readGpuTrace(const std::string& path, std::string_view format, double interval);

}  // namespace racktwin::scenarios::detail
