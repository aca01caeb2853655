#pragma once
// Levels of detail of a result: a DetailSink sits between the recorder and a sink (the HDF5 file)
// and decides which of the channels of the entities inside racks (GPUs, CPUs, NVSwitches, trays:
// every group whose entity ids start with a rack id) keep one column per entity, and records
// statistics over groups of them instead: per rack, per row, per hall.
//
// For a channel <group>/<name> of entities inside racks and an aggregate level L (rack, row, hall)
// the sink writes the group "<group>_by_<L>" with the L entities as its ids and
//   <name>.mean    the mean over the entities of each L entity      (not for "max" channels)
//   <name>.max     their maximum
//   <name>.argmax  the entity holding that maximum (the first in site order on a tie), as its
//                  0-based index into the full entity list RunMetadata::entity_lists (the HDF5
//                  file's /entities/<group>)
// computed from the record's values, so the honest-records rules carry over: each record is the
// statistic over entities of values that are themselves a time mean, a sample or an interval
// maximum, and keeps that aggregation (a mean over GPUs of interval means is the interval mean of
// the mean; the maximum of the "_max" siblings is the interval maximum of the hottest entity).
// The N hottest GPUs of each record (ranked by T_junction_max, else T_junction) go to the group
// "<group>_hottest": every channel of the group at those entities, hottest first, and "index"
// (their indices into the full list).
//
// Work per record is linear in the channels' values (plus N log N for the hottest), with no
// allocation after open(); the detail sink keeps no state between records (resume needs none).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "racktwin/core/Recorder.hpp"

namespace racktwin::core {

struct DetailPlan {
  std::vector<std::string> rack_ids;  // the site's racks, in site order
  /// Per rack: 1 when its inside entities keep one column each; empty means every rack does.
  std::vector<std::uint8_t> rack_detail;
  /// A grouping of racks the aggregates are computed over.
  struct Level {
    std::string name;                      // "rack", "row", "hall"
    std::vector<std::string> ids;          // its entities
    std::vector<std::uint32_t> of_rack;    // per rack, the index of its entity in ids
    std::vector<std::string> groups = {};  // the groups aggregated at this level; empty: all
  };
  std::vector<Level> levels;
  std::size_t hottest = 0;                     // N hottest entities of hottest_group a record
  std::string hottest_group = "gpu";           // ranked by hottest_channel's "_max" sibling,
  std::string hottest_channel = "T_junction";  // or by the channel itself without one
};

class DetailSink final : public RecorderSink {
 public:
  /// The sink passes what the plan keeps and computes to `downstream`, which it does not own.
  DetailSink(DetailPlan plan, RecorderSink& downstream);
  ~DetailSink() override;
  DetailSink(const DetailSink&) = delete;
  DetailSink& operator=(const DetailSink&) = delete;

  void open(const RunMetadata& metadata, const std::vector<ChannelInfo>& channels) override;
  void append(double time, std::span<const double> row) override;
  void close(bool complete, std::string_view summary_json) override;
  void flush() override;
  /// The reductions of a record (per rack, row and hall, and the hottest ranking) run side by
  /// side on the pool; each writes its own outputs, so the record is the same on any threads.
  void useThreads(ThreadPool* pool) override {
    pool_ = pool;
    downstream_.useThreads(pool);
  }
  /// Tables (design limits, headroom) pass through unchanged.
  void addTable(const ResultTable& table) override { downstream_.addTable(table); }

  /// What `downstream` receives for these recorder channels (for size estimates): its channels
  /// and the full entity lists (RunMetadata::entity_lists).
  struct Output {
    std::vector<ChannelInfo> channels;
    std::vector<std::pair<std::string, std::vector<std::string>>> entity_lists;
  };
  static Output output(const DetailPlan& plan, const std::vector<ChannelInfo>& channels);

 private:
  DetailPlan plan_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  RecorderSink& downstream_;
  ThreadPool* pool_ = nullptr;
};

}  // namespace racktwin::core
