#include "racktwin/core/ReplayWorkload.hpp"

#include <limits>

namespace racktwin::core {

ReplayWorkload::ReplayWorkload(const ReplayJobSpec& spec)
    : WorkloadJob(spec.id, spec.gpus > 0), spec_(&spec), trace_(spec) {}

JobPlaceRequest ReplayWorkload::placeRequest() const {
  JobPlaceRequest r = placeRequestOf(*spec_, trace_.start(), trace_.end());
  r.exclusive_class = 1;  // one replay job per rack, as a rack holds one trace offset
  return r;
}

void ReplayWorkload::reset(double /*time*/, const JobSite& /*site*/) {
  // A scheduled job waits (a window at +inf) until the scheduler places it.
  if (scheduled()) {
    trace_.setStart(std::numeric_limits<double>::infinity());
  } else {
    trace_.reset();
  }
}

void ReplayWorkload::place(double now, const JobSite& /*site*/) noexcept {
  trace_.setStart(now);
}

void ReplayWorkload::addDemandAt(double time, const JobSite& /*site*/, RackLoads& loads) {
  addToRacks(trace_.sampleAt(time), loads);
}

void ReplayWorkload::advance(const SubStep& step, const SiteState& /*state*/,
                             const JobSite& /*site*/, RackLoads& loads) noexcept {
  if (!(step.t1 > trace_.start() && step.t0 < trace_.end())) return;
  const double active = trace_.run(step.t0, step.t1);
  // Active through the whole sub-step: a share of exactly 1, whatever the job's start.
  const double share =
      step.t0 >= trace_.start() && step.t1 <= trace_.end() ? 1.0 : active / step.span();
  addToRacks(active > 0.0 ? share : 0.0, loads);
}

void ReplayWorkload::addToRacks(double share, RackLoads& loads) const noexcept {
  if (!(share > 0.0)) return;
  const std::span<const std::uint32_t> racks = this->racks();
  const std::span<const std::uint32_t> offsets = rackGpuOffsets();
  for (std::size_t k = 0; k < racks.size(); ++k) {
    const std::uint32_t r = racks[k];
    loads.busy[r] += share;
    loads.trace_job[r] = index();
    loads.trace_share[r] = share;
    loads.trace_offset[r] = offsets[k];
  }
}

void ReplayWorkload::visitState(StateArchive& archive) {
  trace_.visitState(archive);
}

}  // namespace racktwin::core
