#include "racktwin/core/OutputDetail.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/ThreadPool.hpp"

namespace racktwin::core {
namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

/// A group of entities inside racks ("gpu"), as the plan treats it.
struct InsideGroup {
  std::string name;
  std::vector<std::string> ids;     // every entity, in site order
  std::vector<std::uint32_t> kept;  // columns that keep their own column
  bool all_kept = false;
  struct LevelMap {
    std::vector<std::string> ids;       // the level's entities that hold any column
    std::vector<double> inverse_count;  // 1 / columns per entity
    // Which entity each column belongs to, as runs of consecutive columns of one entity (a
    // rack's GPUs, a row's racks): a reduction keeps the entity's sum and maximum in registers
    // along a run.
    struct Run {
      std::uint32_t begin, end, entity;
    };
    std::vector<Run> runs;
  };
  std::vector<LevelMap> levels;  // one per DetailPlan::levels
};

struct Copy {
  std::size_t in, out, count;
};
struct Gather {
  std::size_t in, out;
  const std::vector<std::uint32_t>* columns;
};
struct Reduce {
  std::size_t in, width;
  const InsideGroup::LevelMap* level;
  std::size_t mean, max, argmax;  // output offsets; kNone when not written
};
struct HottestGather {
  std::size_t in, out;
};

/// The recorder row -> output row program of a plan for a list of channels.
struct Program {
  std::vector<ChannelInfo> channels;
  std::vector<std::unique_ptr<InsideGroup>> groups;
  std::vector<Copy> copies;
  std::vector<Gather> gathers;
  std::vector<Reduce> reduces;
  std::vector<HottestGather> hottest;
  std::size_t hottest_count = 0;
  std::size_t hottest_rank = kNone;  // input offset of the ranking channel
  std::size_t hottest_width = 0;
  std::size_t hottest_index = kNone;  // output offset of the indices
  std::size_t in_width = 0, out_width = 0;
  std::vector<std::pair<std::string, std::vector<std::string>>> entity_lists;

  std::size_t add(ChannelInfo channel) {
    const std::size_t offset = out_width;
    out_width += channel.width();
    channels.push_back(std::move(channel));
    return offset;
  }
  void copy(std::size_t in, const ChannelInfo& channel) {
    const std::size_t out = add(channel);
    const std::size_t count = channel.width();
    if (!copies.empty() && copies.back().in + copies.back().count == in
        && copies.back().out + copies.back().count == out) {
      copies.back().count += count;
    } else {
      copies.push_back({in, out, count});
    }
  }
};

/// The rack an entity id lies in (a rack id followed by '/'), or -1.
std::int64_t rackOf(std::string_view id,
                    const std::unordered_map<std::string_view, std::uint32_t>& racks) {
  for (std::size_t slash = id.find('/'); slash != std::string_view::npos;
       slash = id.find('/', slash + 1)) {
    if (const auto it = racks.find(id.substr(0, slash)); it != racks.end()) return it->second;
  }
  return -1;
}

std::unique_ptr<InsideGroup> classify(
    const DetailPlan& plan, const ChannelInfo& channel,
    const std::unordered_map<std::string_view, std::uint32_t>& racks) {
  const std::vector<std::string>& ids = channel.entity_ids;
  std::vector<std::uint32_t> rack_of(ids.size());
  for (std::size_t j = 0; j < ids.size(); ++j) {
    const std::int64_t r = rackOf(ids[j], racks);
    if (r < 0) return nullptr;  // not every entity lies in a rack: kept as it is
    rack_of[j] = static_cast<std::uint32_t>(r);
  }
  auto group = std::make_unique<InsideGroup>();
  group->name = channel.group;
  group->ids = ids;
  for (std::size_t j = 0; j < ids.size(); ++j) {
    if (plan.rack_detail.empty() || plan.rack_detail[rack_of[j]] != 0) {
      group->kept.push_back(static_cast<std::uint32_t>(j));
    }
  }
  group->all_kept = group->kept.size() == ids.size();
  for (const DetailPlan::Level& level : plan.levels) {
    RACKTWIN_ASSERT(level.of_rack.size() == plan.rack_ids.size(),
                    "a detail level must name the entity of every rack");
    // The level's entities that hold any column, in the level's order.
    std::vector<std::int64_t> compact(level.ids.size(), -1);
    for (const std::uint32_t r : rack_of) {
      RACKTWIN_ASSERT(level.of_rack[r] < level.ids.size(),
                      "a detail level names an entity it does not have");
      compact[level.of_rack[r]] = 0;
    }
    InsideGroup::LevelMap map;
    for (std::size_t e = 0; e < level.ids.size(); ++e) {
      if (compact[e] < 0) continue;
      compact[e] = static_cast<std::int64_t>(map.ids.size());
      map.ids.push_back(level.ids[e]);
    }
    map.inverse_count.assign(map.ids.size(), 0.0);
    for (std::size_t j = 0; j < ids.size(); ++j) {
      const auto column = static_cast<std::uint32_t>(j);
      const auto entity = static_cast<std::uint32_t>(compact[level.of_rack[rack_of[j]]]);
      map.inverse_count[entity] += 1.0;
      if (j == 0 || entity != map.runs.back().entity) {
        map.runs.push_back({column, column + 1, entity});
      } else {
        map.runs.back().end = column + 1;
      }
    }
    for (double& c : map.inverse_count)
      c = 1.0 / c;
    group->levels.push_back(std::move(map));
  }
  return group;
}

std::string entitiesOf(const std::string& group) {
  return "the '" + group + "' entities";
}

Program compile(const DetailPlan& plan, const std::vector<ChannelInfo>& channels) {
  RACKTWIN_ASSERT(plan.rack_detail.empty() || plan.rack_detail.size() == plan.rack_ids.size(),
                  "DetailPlan::rack_detail needs one flag per rack");
  Program p;
  std::unordered_map<std::string_view, std::uint32_t> racks;
  for (std::size_t r = 0; r < plan.rack_ids.size(); ++r)
    racks.emplace(plan.rack_ids[r], static_cast<std::uint32_t>(r));
  std::map<std::string, InsideGroup*, std::less<>> inside;
  std::map<std::string, bool, std::less<>> outside;
  struct Pending {
    std::size_t in;
    const ChannelInfo* channel;
  };
  std::vector<Pending> hottest_channels;

  std::size_t in = 0;
  for (const ChannelInfo& channel : channels) {
    const std::size_t width = channel.width();
    InsideGroup* group = nullptr;
    if (!channel.entity_ids.empty() && !outside.contains(channel.group)) {
      if (const auto it = inside.find(channel.group); it != inside.end()) {
        group = it->second;
      } else if (auto made = classify(plan, channel, racks)) {
        group = made.get();
        inside.emplace(channel.group, group);
        p.groups.push_back(std::move(made));
      } else {
        outside.emplace(channel.group, true);
      }
    }
    if (group == nullptr) {
      p.copy(in, channel);
      in += width;
      continue;
    }
    if (group->all_kept) {
      p.copy(in, channel);
    } else if (!group->kept.empty()) {
      ChannelInfo subset = channel;
      subset.entity_ids.clear();
      for (const std::uint32_t j : group->kept)
        subset.entity_ids.push_back(group->ids[j]);
      const std::size_t out = p.add(std::move(subset));
      p.gathers.push_back({in, out, &group->kept});
    }
    const Aggregation over_time = channel.aggregation == Aggregation::SampleAndMax
                                      ? Aggregation::Sample
                                      : channel.aggregation;
    const std::string source = "/" + channel.group + "/" + channel.name;
    for (std::size_t l = 0; l < plan.levels.size(); ++l) {
      const std::vector<std::string>& only = plan.levels[l].groups;
      if (!only.empty() && std::find(only.begin(), only.end(), channel.group) == only.end()) {
        continue;
      }
      const InsideGroup::LevelMap& level = group->levels[l];
      const std::string by = channel.group + "_by_" + plan.levels[l].name;
      const std::string each = " of each " + plan.levels[l].name + " of: ";
      const auto stat = [&](const char* statistic, std::string description, std::string unit) {
        ChannelInfo c;
        c.group = by;
        c.name = channel.name + "." + statistic;
        c.unit = std::move(unit);
        c.description = std::move(description);
        c.entity_ids = level.ids;
        c.aggregation = over_time;
        c.statistic = statistic;
        c.source = source;
        return p.add(std::move(c));
      };
      Reduce reduce{in, width, &level, kNone, kNone, kNone};
      // A mean over entities of their interval maxima is no physical quantity: maxima only.
      if (channel.aggregation != Aggregation::Max) {
        reduce.mean =
            stat("mean", "Mean over " + entitiesOf(channel.group) + each + channel.description,
                 channel.unit);
      }
      reduce.max =
          stat("max", "Maximum over " + entitiesOf(channel.group) + each + channel.description,
               channel.unit);
      reduce.argmax =
          stat("argmax",
               "Index into /entities/" + channel.group + " of the entity holding " + channel.name
                   + ".max (the first on a tie)" + each + channel.description,
               "1");
      p.reduces.push_back(reduce);
    }
    if (plan.hottest > 0 && channel.group == plan.hottest_group) {
      hottest_channels.push_back({in, &channel});
    }
    in += width;
  }
  p.in_width = in;

  // The N hottest: ranked by the interval maximum when recorded, else by the sample.
  const Pending* rank = nullptr;
  for (const Pending& h : hottest_channels) {
    if (h.channel->name == plan.hottest_channel + "_max") rank = &h;
  }
  for (const Pending& h : hottest_channels) {
    if (rank == nullptr && h.channel->name == plan.hottest_channel) rank = &h;
  }
  if (rank != nullptr) {
    const ChannelInfo& ranked = *rank->channel;
    p.hottest_count = std::min(plan.hottest, ranked.width());
    p.hottest_rank = rank->in;
    p.hottest_width = ranked.width();
    std::vector<std::string> ranks;
    for (std::size_t k = 1; k <= p.hottest_count; ++k)
      ranks.push_back(std::to_string(k));
    const std::string group = plan.hottest_group + "_hottest";
    const std::string which = " (the " + std::to_string(p.hottest_count) + " '" + plan.hottest_group
                              + "' entities with the highest " + ranked.name
                              + " of the record, hottest first)";
    ChannelInfo index;
    index.group = group;
    index.name = "index";
    index.unit = "1";
    index.description = "Index into /entities/" + plan.hottest_group + " of each entity" + which;
    index.entity_ids = ranks;
    index.aggregation = Aggregation::Sample;
    index.statistic = "hottest_index";
    index.source = "/" + ranked.group + "/" + ranked.name;
    p.hottest_index = p.add(std::move(index));
    for (const Pending& h : hottest_channels) {
      ChannelInfo c = *h.channel;
      c.group = group;
      c.entity_ids = ranks;
      c.description += which;
      c.statistic = "hottest";
      c.source = "/" + h.channel->group + "/" + h.channel->name;
      p.hottest.push_back({h.in, p.add(std::move(c))});
    }
  }
  for (const auto& group : p.groups) {
    if (!group->all_kept || !plan.levels.empty()
        || (rank != nullptr && group->name == plan.hottest_group)) {
      p.entity_lists.emplace_back(group->name, group->ids);
    }
  }
  return p;
}

}  // namespace

struct DetailSink::Impl {
  Program program;
  std::vector<double> out;
  // Per reduction, its level's running sums, maxima and their columns (each task its own).
  struct Scratch {
    std::vector<double> sum, max;
    std::vector<std::uint32_t> argmax;
  };
  std::vector<Scratch> scratch;
  std::vector<std::uint32_t> order;  // hottest ranking scratch
  bool open = false;

  void reduce(std::size_t k, const double* in);
  void rankHottest(const double* in);
};

DetailSink::DetailSink(DetailPlan plan, RecorderSink& downstream)
    : plan_(std::move(plan)), impl_(std::make_unique<Impl>()), downstream_(downstream) {}

DetailSink::~DetailSink() = default;

DetailSink::Output DetailSink::output(const DetailPlan& plan,
                                      const std::vector<ChannelInfo>& channels) {
  Program p = compile(plan, channels);
  return {std::move(p.channels), std::move(p.entity_lists)};
}

void DetailSink::open(const RunMetadata& metadata, const std::vector<ChannelInfo>& channels) {
  Impl& m = *impl_;
  m.program = compile(plan_, channels);
  m.out.assign(m.program.out_width, 0.0);
  m.scratch.assign(m.program.reduces.size(), Impl::Scratch{});
  for (std::size_t k = 0; k < m.program.reduces.size(); ++k) {
    const std::size_t n = m.program.reduces[k].level->ids.size();
    m.scratch[k].sum.assign(n, 0.0);
    m.scratch[k].max.assign(n, 0.0);
    m.scratch[k].argmax.assign(n, 0);
  }
  m.order.resize(m.program.hottest_width);
  RunMetadata reduced = metadata;
  reduced.entity_lists = m.program.entity_lists;
  downstream_.open(reduced, m.program.channels);
  m.open = true;
}

void DetailSink::Impl::reduce(std::size_t k, const double* in) {
  constexpr double kLowest = -std::numeric_limits<double>::infinity();
  const Reduce& r = program.reduces[k];
  Scratch& s = scratch[k];
  const InsideGroup::LevelMap& level = *r.level;
  const std::size_t n = level.ids.size();
  std::fill_n(s.sum.begin(), n, 0.0);
  std::fill_n(s.max.begin(), n, kLowest);
  std::fill_n(s.argmax.begin(), n, 0U);
  const double* values = in + r.in;
  // Each entity's columns in column order, as one pass over the columns would take them: the
  // same sums and the same first maximum, without a store and reload per column.
  for (const InsideGroup::LevelMap::Run& run : level.runs) {
    if (run.begin >= r.width) break;
    const auto end = static_cast<std::uint32_t>(std::min<std::size_t>(run.end, r.width));
    double sum = s.sum[run.entity], max = s.max[run.entity];
    std::uint32_t argmax = s.argmax[run.entity];
    for (std::uint32_t j = run.begin; j < end; ++j) {
      const double v = values[j];
      sum += v;
      if (v > max) {
        max = v;
        argmax = j;
      }
    }
    s.sum[run.entity] = sum;
    s.max[run.entity] = max;
    s.argmax[run.entity] = argmax;
  }
  double* o = out.data();
  for (std::size_t e = 0; e < n; ++e) {
    if (r.mean != kNone) o[r.mean + e] = s.sum[e] * level.inverse_count[e];
    o[r.max + e] = s.max[e];
    o[r.argmax + e] = static_cast<double>(s.argmax[e]);
  }
}

void DetailSink::Impl::rankHottest(const double* in) {
  const Program& p = program;
  const double* rank = in + p.hottest_rank;
  std::iota(order.begin(), order.end(), 0U);
  // Highest first; equal values in site order, so the choice does not depend on the algorithm.
  const auto hotter = [rank](std::uint32_t a, std::uint32_t b) {
    return rank[a] > rank[b] || (rank[a] == rank[b] && a < b);
  };
  const auto nth = order.begin() + static_cast<std::ptrdiff_t>(p.hottest_count);
  if (nth != order.end()) std::nth_element(order.begin(), nth, order.end(), hotter);
  std::sort(order.begin(), nth, hotter);
  double* o = out.data();
  for (std::size_t k = 0; k < p.hottest_count; ++k)
    o[p.hottest_index + k] = static_cast<double>(order[k]);
  for (const HottestGather& h : p.hottest) {
    for (std::size_t k = 0; k < p.hottest_count; ++k)
      o[h.out + k] = in[h.in + order[k]];
  }
}

void DetailSink::append(double time, std::span<const double> row) {
  Impl& m = *impl_;
  const Program& p = m.program;
  RACKTWIN_ASSERT(m.open && row.size() == p.in_width, "DetailSink: row does not fit open()");
  const double* in = row.data();
  double* out = m.out.data();
  for (const Copy& c : p.copies)
    std::copy_n(in + c.in, c.count, out + c.out);
  for (const Gather& g : p.gathers) {
    const std::vector<std::uint32_t>& columns = *g.columns;
    for (std::size_t k = 0; k < columns.size(); ++k)
      out[g.out + k] = in[g.in + columns[k]];
  }
  // The reductions and the hottest ranking, each a task that writes only its own outputs.
  const std::size_t reduces = p.reduces.size();
  const bool hottest = p.hottest_index != kNone;
  forEachTask(pool_, reduces + (hottest ? 1 : 0), [&](std::size_t k) {
    if (k < reduces) {
      m.reduce(k, in);
    } else {
      m.rankHottest(in);
    }
  });
  downstream_.append(time, m.out);
}

void DetailSink::close(bool complete, std::string_view summary_json) {
  downstream_.close(complete, summary_json);
}

void DetailSink::flush() {
  downstream_.flush();
}

}  // namespace racktwin::core
