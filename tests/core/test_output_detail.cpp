// DetailSink (core/OutputDetail.hpp): what it keeps, and its statistics against the same
// statistics computed here from the rows it was given.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "MemorySink.hpp"
#include "racktwin/core/OutputDetail.hpp"
#include "racktwin/core/ThreadPool.hpp"

using namespace racktwin::core;

namespace {

using racktwin::test::MemorySink;

/// Offset of a channel of the sink's row; throws (fails the test) when absent.
std::size_t offsetOf(const std::vector<ChannelInfo>& channels, const std::string& group,
                     const std::string& name) {
  std::size_t offset = 0;
  for (const ChannelInfo& c : channels) {
    if (c.group == group && c.name == name) return offset;
    offset += c.width();
  }
  FAIL("no channel " << group << "/" << name);
  return 0;
}

const ChannelInfo* find(const std::vector<ChannelInfo>& channels, const std::string& group,
                        const std::string& name) {
  for (const ChannelInfo& c : channels) {
    if (c.group == group && c.name == name) return &c;
  }
  return nullptr;
}

// A small site: racks of 3, 5, 2 and 4 GPUs (uneven on purpose), racks 0-1 in row "a", 2-3 in
// row "b"; one rack channel and one site channel besides.
struct Site {
  std::vector<std::string> racks = {"a/r1", "a/r2", "b/r1", "b/r2"};
  std::vector<std::size_t> gpus = {3, 5, 2, 4};
  std::vector<std::string> gpu_ids;
  std::vector<std::uint32_t> gpu_rack;
  Site() {
    for (std::size_t r = 0; r < racks.size(); ++r) {
      for (std::size_t g = 0; g < gpus[r]; ++g) {
        gpu_ids.push_back(racks[r] + "/tray1/gpu" + std::to_string(g));
        gpu_rack.push_back(static_cast<std::uint32_t>(r));
      }
    }
  }
  std::vector<ChannelInfo> channels() const {
    return {
        {"gpu", "T_junction", "K", "junction", gpu_ids, Aggregation::Sample},
        {"gpu", "P", "W", "power", gpu_ids, Aggregation::Mean},
        {"rack", "P_ac", "W", "rack power", racks, Aggregation::Mean},
        {"site", "P_it", "W", "site power", {}, Aggregation::Mean},
        {"gpu", "T_junction_max", "K", "junction max", gpu_ids, Aggregation::Max},
    };
  }
  DetailPlan plan() const {
    DetailPlan p;
    p.rack_ids = racks;
    p.levels.push_back({"rack", racks, {0, 1, 2, 3}});
    p.levels.push_back({"row", {"a", "b"}, {0, 0, 1, 1}});
    return p;
  }
};

}  // namespace

TEST_CASE("detail sink: aggregates equal the statistics of the values it was given",
          "[output_detail]") {
  const Site site;
  DetailPlan plan = site.plan();
  plan.rack_detail = {0, 1, 0, 0};  // rack a/r2 keeps its GPUs
  plan.hottest = 4;
  MemorySink memory;
  DetailSink detail(plan, memory);
  const std::vector<ChannelInfo> in = site.channels();
  detail.open(RunMetadata{}, in);
  std::size_t width = 0;
  for (const ChannelInfo& c : in)
    width += c.width();
  const std::size_t n = site.gpu_ids.size();

  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> temperature(300.0, 360.0);
  std::vector<std::vector<double>> given;
  for (int record = 0; record < 20; ++record) {
    std::vector<double> row(width);
    for (double& v : row)
      v = temperature(random);
    // Ties: equal maxima must name the first GPU of the group.
    if (record == 3) {
      row[0] = row[1] = row[2] = 400.0;
      row[2 * n + 4 + 1 + 5] = row[2 * n + 4 + 1 + 6] = 500.0;
    }
    given.push_back(row);
    detail.append(record * 10.0, row);
  }
  detail.close(true, "{}");
  REQUIRE(memory.complete);
  REQUIRE(memory.rows.size() == given.size());

  // The full GPU list for argmax and hottest indices.
  REQUIRE(memory.metadata.entity_lists.size() == 1);
  CHECK(memory.metadata.entity_lists[0].first == "gpu");
  CHECK(memory.metadata.entity_lists[0].second == site.gpu_ids);
  // Kept: only rack a/r2's GPUs, in site order.
  const ChannelInfo* kept = find(memory.channels, "gpu", "T_junction");
  REQUIRE(kept != nullptr);
  CHECK(kept->entity_ids
        == std::vector<std::string>(site.gpu_ids.begin() + 3, site.gpu_ids.begin() + 8));
  // A mean over GPUs of interval maxima is not written; the maxima are.
  CHECK(find(memory.channels, "gpu_by_rack", "T_junction_max.mean") == nullptr);
  CHECK(find(memory.channels, "gpu_by_rack", "T_junction_max.max") != nullptr);
  const ChannelInfo* mean = find(memory.channels, "gpu_by_row", "P.mean");
  REQUIRE(mean != nullptr);
  CHECK(mean->aggregation == Aggregation::Mean);
  CHECK(mean->statistic == "mean");
  CHECK(mean->source == "/gpu/P");
  CHECK(mean->entity_ids == std::vector<std::string>{"a", "b"});

  const std::map<std::string, std::size_t> source_offset = {
      {"T_junction", 0}, {"P", n}, {"T_junction_max", 2 * n + 4 + 1}};
  const std::vector<std::pair<std::string, std::vector<std::uint32_t>>> levels = {
      {"rack", {0, 1, 2, 3}}, {"row", {0, 0, 1, 1}}};
  for (std::size_t k = 0; k < given.size(); ++k) {
    const std::vector<double>& row = given[k];
    const std::vector<double>& out = memory.rows[k];
    // Pass-through: the rack and site channels as given.
    const std::size_t rack_at = offsetOf(memory.channels, "rack", "P_ac");
    for (std::size_t r = 0; r < 4; ++r)
      CHECK(out[rack_at + r] == row[2 * n + r]);
    CHECK(out[offsetOf(memory.channels, "site", "P_it")] == row[2 * n + 4]);
    for (std::size_t g = 0; g < 5; ++g)
      CHECK(out[offsetOf(memory.channels, "gpu", "T_junction") + g] == row[3 + g]);

    for (const auto& [name, in_at] : source_offset) {
      for (const auto& [level, of_rack] : levels) {
        const std::size_t entities = level == "rack" ? 4 : 2;
        const std::string group = "gpu_by_" + level;
        for (std::size_t e = 0; e < entities; ++e) {
          double sum = 0.0, max = -1.0;
          std::size_t count = 0, argmax = 0;
          for (std::size_t g = 0; g < n; ++g) {
            if (of_rack[site.gpu_rack[g]] != e) continue;
            sum += row[in_at + g];
            ++count;
            if (row[in_at + g] > max) max = row[in_at + g], argmax = g;
          }
          INFO(group << "/" << name << " entity " << e << " record " << k);
          CHECK(out[offsetOf(memory.channels, group, name + ".max") + e] == max);
          CHECK(out[offsetOf(memory.channels, group, name + ".argmax") + e]
                == static_cast<double>(argmax));
          if (name != "T_junction_max") {
            CHECK(out[offsetOf(memory.channels, group, name + ".mean") + e]
                  == Approx(sum / static_cast<double>(count)).epsilon(1e-15));
          }
        }
      }
    }
    // The four hottest by T_junction_max, hottest first, ties in site order; their values of
    // every GPU channel.
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    const double* rank = row.data() + 2 * n + 4 + 1;
    std::stable_sort(order.begin(), order.end(),
                     [rank](std::size_t a, std::size_t b) { return rank[a] > rank[b]; });
    for (std::size_t h = 0; h < 4; ++h) {
      CHECK(out[offsetOf(memory.channels, "gpu_hottest", "index") + h]
            == static_cast<double>(order[h]));
      CHECK(out[offsetOf(memory.channels, "gpu_hottest", "P") + h] == row[n + order[h]]);
      CHECK(out[offsetOf(memory.channels, "gpu_hottest", "T_junction") + h] == row[order[h]]);
    }
  }
}

TEST_CASE("detail sink: every rack kept and no levels passes the rows through unchanged",
          "[output_detail]") {
  const Site site;
  DetailPlan plan;
  plan.rack_ids = site.racks;
  MemorySink memory;
  DetailSink detail(plan, memory);
  const std::vector<ChannelInfo> in = site.channels();
  detail.open(RunMetadata{}, in);
  REQUIRE(memory.channels.size() == in.size());
  for (std::size_t c = 0; c < in.size(); ++c) {
    CHECK(memory.channels[c].group == in[c].group);
    CHECK(memory.channels[c].name == in[c].name);
    CHECK(memory.channels[c].entity_ids == in[c].entity_ids);
  }
  CHECK(memory.metadata.entity_lists.empty());
  std::vector<double> row(3 * site.gpu_ids.size() + 5);
  std::iota(row.begin(), row.end(), 1.0);
  detail.append(0.0, row);
  CHECK(memory.rows.front() == row);
}

TEST_CASE("detail sink: no rack kept drops the per-GPU channels", "[output_detail]") {
  const Site site;
  DetailPlan plan = site.plan();
  plan.rack_detail.assign(4, 0);
  MemorySink memory;
  DetailSink detail(plan, memory);
  detail.open(RunMetadata{}, site.channels());
  CHECK(find(memory.channels, "gpu", "T_junction") == nullptr);
  CHECK(find(memory.channels, "gpu", "P") == nullptr);
  CHECK(find(memory.channels, "gpu_by_rack", "P.mean") != nullptr);
  CHECK(find(memory.channels, "rack", "P_ac") != nullptr);
  // What open() hands on is what output() predicts (the run's size estimate uses it).
  DetailPlan only_rows = plan;
  only_rows.levels[0].groups = {"tray"};  // racks aggregate trays only: no GPU rack aggregates
  const DetailSink::Output rows_only = DetailSink::output(only_rows, site.channels());
  CHECK(find(rows_only.channels, "gpu_by_rack", "P.mean") == nullptr);
  CHECK(find(rows_only.channels, "gpu_by_row", "P.mean") != nullptr);
  const DetailSink::Output predicted = DetailSink::output(plan, site.channels());
  REQUIRE(predicted.channels.size() == memory.channels.size());
  for (std::size_t c = 0; c < predicted.channels.size(); ++c) {
    CHECK(predicted.channels[c].group == memory.channels[c].group);
    CHECK(predicted.channels[c].name == memory.channels[c].name);
    CHECK(predicted.channels[c].width() == memory.channels[c].width());
  }
}

TEST_CASE("detail sink: the reductions on threads give the records of one thread",
          "[output_detail]") {
  // A wider site than above (200 racks of 8 to 15 GPUs in 25 rows), so the reductions and the
  // ranking are many tasks; with ties, NaN-free random rows. Records on 3 threads must be those
  // of the sink without a pool, to the bit, and the downstream sink is given the pool too.
  std::vector<std::string> racks, rows, gpu_ids;
  std::vector<std::uint32_t> rack_index, row_of_rack;
  for (std::uint32_t r = 0; r < 200; ++r) {
    racks.push_back("row" + std::to_string(r / 8) + "/rack" + std::to_string(r % 8));
    rack_index.push_back(r);
    row_of_rack.push_back(r / 8);
    for (std::uint32_t g = 0; g < 8 + r % 8; ++g)
      gpu_ids.push_back(racks.back() + "/gpu" + std::to_string(g));
  }
  for (std::uint32_t w = 0; w < 25; ++w)
    rows.push_back("row" + std::to_string(w));
  const std::vector<ChannelInfo> in = {
      {"gpu", "T_junction", "K", "junction", gpu_ids, Aggregation::Sample},
      {"gpu", "P", "W", "power", gpu_ids, Aggregation::Mean},
      {"rack", "P_ac", "W", "rack power", racks, Aggregation::Mean},
      {"gpu", "T_junction_max", "K", "junction max", gpu_ids, Aggregation::Max},
  };
  DetailPlan plan;
  plan.rack_ids = racks;
  plan.levels.push_back({"rack", racks, rack_index});
  plan.levels.push_back({"row", rows, row_of_rack});
  plan.hottest = 50;

  struct PoolSink : MemorySink {
    void useThreads(ThreadPool* p) override { pool = p; }
    ThreadPool* pool = nullptr;
  };
  PoolSink one, three;
  DetailSink serial(plan, one), threaded(plan, three);
  ThreadPool pool(3);
  threaded.useThreads(&pool);
  CHECK(three.pool == &pool);
  serial.open(RunMetadata{}, in);
  threaded.open(RunMetadata{}, in);
  std::size_t width = 0;
  for (const ChannelInfo& c : in)
    width += c.width();
  std::mt19937_64 random(11);
  std::uniform_int_distribution<int> level(0, 40);  // few distinct values: many ties
  for (int record = 0; record < 30; ++record) {
    std::vector<double> row(width);
    for (double& v : row)
      v = 300.0 + 0.5 * level(random);
    serial.append(record, row);
    threaded.append(record, row);
  }
  REQUIRE(one.rows.size() == 30);
  CHECK(one.rows == three.rows);
  CHECK(one.channels.size() == three.channels.size());
}
