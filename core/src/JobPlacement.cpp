#include "racktwin/core/JobPlacement.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "racktwin/core/Error.hpp"
#include "racktwin/core/StateArchive.hpp"

namespace racktwin::core {

double workloadTimeTolerance(double t) noexcept {
  return 1e-12 * std::max(1.0, std::abs(t));
}

JobPlacement::JobPlacement(const SiteSpec& site, const SiteLayout& layout) : layout_(layout) {
  RACKTWIN_ASSERT(site.racks.size() == layout.rack_count, "layout built from another site");
  rack_shut_down_.assign(layout.rack_count, 0);
}

std::uint32_t JobPlacement::scheduledRacks(const std::string& what, std::uint32_t gpus) const {
  // Whole racks: the GPUs asked for must fill racks of one size.
  const std::size_t n = layout_.rack_count;
  const auto per_rack = static_cast<std::uint32_t>(n > 0 ? layout_.rack_gpu_begin[1] : 0);
  for (std::size_t r = 0; r < n; ++r) {
    if (layout_.rack_gpu_begin[r + 1] - layout_.rack_gpu_begin[r] != per_rack) {
      throw std::invalid_argument(what
                                  + ": asks for GPUs, but the site's racks differ in GPU count");
    }
  }
  if (per_rack == 0 || gpus % per_rack != 0 || gpus / per_rack > n) {
    throw std::invalid_argument(what + ": asks for " + std::to_string(gpus)
                                + " GPUs; expected a multiple of the " + std::to_string(per_rack)
                                + " GPUs of a rack, at most the site's " + std::to_string(n)
                                + " racks");
  }
  return gpus / per_rack;
}

void JobPlacement::add(const std::string& what, const JobPlaceRequest& request) {
  Entry entry;
  entry.what = what;
  entry.exclusive_class = request.exclusive_class;
  entry.begin = static_cast<std::uint32_t>(racks_.size());
  if (request.gpus > 0) {
    // A scheduled job reserves its entries (filled when it starts) and queues.
    if (!request.racks.empty()) {
      throw std::invalid_argument(what + ": names racks and asks for GPUs; give one");
    }
    if (!(std::isfinite(request.submit) && std::isfinite(request.duration)
          && request.duration > 0.0)) {
      throw std::invalid_argument(what
                                  + ": submit must be a number and duration a positive number");
    }
    const std::uint32_t racks = scheduledRacks(what, request.gpus);
    entry.request = static_cast<std::int32_t>(requests_.size());
    requests_.push_back(JobScheduler::Request{request.submit, request.duration, racks});
    request_orders_.push_back(request.order);
    racks_.resize(racks_.size() + racks, 0);
  } else {
    if (request.racks.empty()) throw std::invalid_argument(what + ": names no rack");
    for (const ComponentId& rack : request.racks) {
      const auto found = std::find(layout_.rack_ids.begin(), layout_.rack_ids.end(), rack.str());
      if (found == layout_.rack_ids.end()) {
        throw std::invalid_argument(what + ": unknown rack '" + rack.str() + "'");
      }
      const auto r = static_cast<std::uint32_t>(found - layout_.rack_ids.begin());
      if (std::find(racks_.begin() + entry.begin, racks_.end(), r) != racks_.end()) {
        throw std::invalid_argument(what + ": names rack '" + rack.str() + "' twice");
      }
      racks_.push_back(r);
    }
    entry.start = request.start;
    entry.end_time = request.end;
  }
  entry.end = static_cast<std::uint32_t>(racks_.size());
  jobs_.push_back(std::move(entry));
}

void JobPlacement::finish(const SiteSpec& site) {
  std::vector<std::uint8_t> seen(layout_.rack_count, 0);
  const auto sharedRack = [&](const Entry& a, const Entry& b) -> std::optional<std::uint32_t> {
    for (std::uint32_t k = a.begin; k < a.end; ++k)
      seen[racks_[k]] = 1;
    std::optional<std::uint32_t> shared;
    for (std::uint32_t k = b.begin; k < b.end && !shared; ++k) {
      if (seen[racks_[k]] != 0) shared = racks_[k];
    }
    for (std::uint32_t k = a.begin; k < a.end; ++k)
      seen[racks_[k]] = 0;
    return shared;
  };
  // Within an exclusive class (replays: one per rack), named jobs share no rack at all.
  for (std::size_t a = 0; a < jobs_.size(); ++a) {
    if (jobs_[a].request >= 0 || jobs_[a].exclusive_class == 0) continue;
    for (std::size_t b = a + 1; b < jobs_.size(); ++b) {
      if (jobs_[b].request >= 0 || jobs_[b].exclusive_class != jobs_[a].exclusive_class) continue;
      if (const auto r = sharedRack(jobs_[a], jobs_[b])) {
        throw std::invalid_argument(jobs_[b].what + ": rack '" + layout_.rack_ids[*r]
                                    + "' is also used by " + jobs_[a].what
                                    + "; one job of this kind per rack");
      }
    }
  }
  // Two named jobs may share a rack only at different times.
  for (std::size_t a = 0; a < jobs_.size(); ++a) {
    if (jobs_[a].request >= 0) continue;
    for (std::size_t b = a + 1; b < jobs_.size(); ++b) {
      const Entry& ja = jobs_[a];
      const Entry& jb = jobs_[b];
      if (jb.request >= 0) continue;
      if (!(std::max(ja.start, jb.start) < std::min(ja.end_time, jb.end_time))) continue;
      if (const auto r = sharedRack(ja, jb)) {
        throw std::invalid_argument(jb.what + ": shares rack '" + layout_.rack_ids[*r] + "' with "
                                    + ja.what + " while both run");
      }
    }
  }

  gpu_offsets_.assign(racks_.size(), 0);
  for (const Entry& entry : jobs_) {
    if (entry.request < 0) setGpuOffsets(entry.begin, entry.end);
  }
  if (requests_.empty()) return;

  // Cooling groups for placement: racks of one CDU (or one ring) in scenario order.
  std::vector<std::string> groups;
  std::vector<std::uint32_t> rack_group(layout_.rack_count, 0);
  for (std::size_t r = 0; r < layout_.rack_count; ++r) {
    const RackSpec& rack = site.racks[r];
    const std::string key = rack.cdu.empty() ? "ring " + rack.ring : "cdu " + rack.cdu;
    const auto found = std::find(groups.begin(), groups.end(), key);
    rack_group[r] = static_cast<std::uint32_t>(found - groups.begin());
    if (found == groups.end()) groups.push_back(key);
  }
  // Requests in scenario order, so that jobs submitted at one time queue in that order whatever
  // their kind (stable: jobs built without an order keep the order they were added in).
  std::vector<std::uint32_t> request_jobs(requests_.size());
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    if (jobs_[j].request >= 0)
      request_jobs[static_cast<std::size_t>(jobs_[j].request)] = static_cast<std::uint32_t>(j);
  }
  std::vector<std::uint32_t> by_order(requests_.size());
  std::iota(by_order.begin(), by_order.end(), 0U);
  std::stable_sort(by_order.begin(), by_order.end(), [this](std::uint32_t a, std::uint32_t b) {
    return request_orders_[a] < request_orders_[b];
  });
  std::vector<JobScheduler::Request> ordered;
  for (std::size_t q = 0; q < by_order.size(); ++q) {
    ordered.push_back(requests_[by_order[q]]);
    const std::uint32_t j = request_jobs[by_order[q]];
    queue_jobs_.push_back(j);
    jobs_[j].request = static_cast<std::int32_t>(q);
  }
  requests_ = ordered;
  scheduler_.emplace(site.scheduler.policy == SchedulerSpec::Policy::Fifo
                         ? JobScheduler::Policy::Fifo
                         : JobScheduler::Policy::Backfill,
                     std::move(rack_group), std::move(ordered));
  for (const Entry& entry : jobs_) {
    if (entry.request >= 0) continue;
    for (std::uint32_t k = entry.begin; k < entry.end; ++k)
      scheduler_->addFixedUse(racks_[k], entry.start, entry.end_time);
  }
  placed_.reserve(jobs_.size());
}

std::span<const std::uint32_t> JobPlacement::racks(std::size_t j) const noexcept {
  return {racks_.data() + jobs_[j].begin, jobs_[j].end - jobs_[j].begin};
}

std::span<const std::uint32_t> JobPlacement::gpuOffsets(std::size_t j) const noexcept {
  return {gpu_offsets_.data() + jobs_[j].begin, jobs_[j].end - jobs_[j].begin};
}

void JobPlacement::setGpuOffsets(std::uint32_t begin, std::uint32_t end) noexcept {
  std::uint32_t gpus = 0;
  for (std::uint32_t k = begin; k < end; ++k) {
    gpu_offsets_[k] = gpus;
    gpus += static_cast<std::uint32_t>(layout_.rack_gpu_begin[racks_[k] + 1]
                                       - layout_.rack_gpu_begin[racks_[k]]);
  }
}

void JobPlacement::reset(const SiteState& state) noexcept {
  if (!scheduler_) return;
  scheduler_->reset();
  for (std::size_t r = 0; r < layout_.rack_count; ++r) {
    const std::size_t g0 = layout_.rack_gpu_begin[r];
    noteRackShutdown(r, state.gpu_shutdown.data() + g0, layout_.rack_gpu_begin[r + 1] - g0);
  }
  noteRacksDown(state);
}

void JobPlacement::noteRackShutdown(std::size_t r, const std::uint8_t* shutdown,
                                    std::size_t n) noexcept {
  bool down = false;
  for (std::size_t k = 0; k < n; ++k)
    down = down || shutdown[k] != 0;
  rack_shut_down_[r] = down ? 1 : 0;
}

// A rack takes no new job while one of its GPUs is shut down or the rack has lost power: O(racks)
// per sub-step, and the scheduler runs only when a rack's state flips.
void JobPlacement::noteRacksDown(const SiteState& state) noexcept {
  if (!scheduler_) return;
  for (std::size_t r = 0; r < layout_.rack_count; ++r) {
    const bool down = rack_shut_down_[r] != 0 || state.rack_powered[r] == 0;
    const auto rack = static_cast<std::uint32_t>(r);
    if (down != scheduler_->rackDown(rack)) {
      scheduler_->setRackDown(rack, down);
      racks_changed_ = true;
    }
  }
}

bool JobPlacement::due(double t) const noexcept {
  return scheduler_ && (racks_changed_ || t + workloadTimeTolerance(t) >= next_schedule_);
}

std::span<const std::uint32_t> JobPlacement::schedule(double now) noexcept {
  placed_.clear();
  for (const std::uint32_t q : scheduler_->schedule(now, workloadTimeTolerance(now))) {
    const std::uint32_t j = queue_jobs_[q];
    const std::span<const std::uint32_t> racks = scheduler_->racks(q);
    std::copy(racks.begin(), racks.end(), racks_.begin() + jobs_[j].begin);
    // A replay's trace GPUs follow the racks in the order the placement chose them.
    setGpuOffsets(jobs_[j].begin, jobs_[j].end);
    placed_.push_back(j);
  }
  next_schedule_ = scheduler_->nextEvent();
  racks_changed_ = false;
  queued_ = static_cast<double>(scheduler_->queued());
  return placed_;
}

std::size_t JobPlacement::queuedAt(double now) const noexcept {
  if (!scheduler_) return 0;
  std::size_t n = 0;
  for (std::size_t q = 0; q < scheduler_->requestCount(); ++q)
    n += !scheduler_->started(q) && scheduler_->request(q).submit < now ? 1 : 0;
  return n;
}

std::optional<double> JobPlacement::meanWait() const noexcept {
  if (!scheduler_) return std::nullopt;
  double wait = 0.0;
  std::size_t started = 0;
  for (std::size_t q = 0; q < scheduler_->requestCount(); ++q) {
    if (!scheduler_->started(q)) continue;
    wait += scheduler_->startTime(q) - scheduler_->request(q).submit;
    ++started;
  }
  if (started == 0) return std::nullopt;
  return wait / static_cast<double>(started);
}

std::optional<double> JobPlacement::startOf(std::size_t j) const noexcept {
  const std::int32_t q = jobs_[j].request;
  if (!scheduler_ || q < 0 || !scheduler_->started(static_cast<std::size_t>(q))) {
    return std::nullopt;
  }
  return scheduler_->startTime(static_cast<std::size_t>(q));
}

double JobPlacement::submitOf(std::size_t j) const noexcept {
  const std::int32_t q = jobs_[j].request;
  return q >= 0 && scheduler_ ? scheduler_->request(static_cast<std::size_t>(q)).submit : 0.0;
}

std::span<const std::uint32_t> JobPlacement::placedRacks(std::size_t j) const noexcept {
  const std::int32_t q = jobs_[j].request;
  if (!scheduler_ || q < 0) return {};
  return scheduler_->racks(static_cast<std::size_t>(q));
}

void JobPlacement::visitState(StateArchive& a) {
  a.section("job placement");
  bool has_scheduler = scheduler_.has_value();
  a(has_scheduler);
  if (has_scheduler != scheduler_.has_value()) {
    throw RuntimeError("saved state does not fit this run: the job scheduler differs");
  }
  if (scheduler_) scheduler_->visitState(a);
  a(racks_, gpu_offsets_, rack_shut_down_, next_schedule_, racks_changed_, queued_);
}

}  // namespace racktwin::core
