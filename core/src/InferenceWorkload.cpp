#include "racktwin/core/InferenceWorkload.hpp"

#include <array>
#include <limits>

#include "racktwin/core/StateArchive.hpp"

namespace racktwin::core {

namespace {

enum Channel : std::size_t { kQueue, kInService, kTokensPerSecond };
constexpr std::array<JobChannel, 3> kChannels{{
    {"inference_job", "queue_length", "1",
     "Requests waiting in the job's queue at the end of the sub-step", Aggregation::Sample},
    {"inference_job", "in_service", "1", "Requests in the job's batch at the end of the sub-step",
     Aggregation::Sample},
    {"inference_job", "tokens_per_s", "1/s",
     "Generated tokens of the requests completed in the last sub-step, per second",
     Aggregation::SubstepMean},
}};

}  // namespace

InferenceWorkload::InferenceWorkload(const InferenceJobSpec& spec, std::uint32_t gpus,
                                     std::uint64_t seed)
    : WorkloadJob(spec.id, spec.gpus > 0), spec_(&spec), server_(spec, gpus, seed) {}

JobPlaceRequest InferenceWorkload::placeRequest() const {
  return placeRequestOf(*spec_, server_.start(), server_.end());
}

std::span<const JobChannel> InferenceWorkload::channels() const noexcept {
  return kChannels;
}

void InferenceWorkload::reset(double /*time*/, const JobSite& /*site*/) {
  // A scheduled job waits (a window at +inf) until the scheduler places it.
  if (scheduled()) {
    server_.setStart(std::numeric_limits<double>::infinity());
  } else {
    server_.reset();
  }
  setView(kQueue, 0.0);
  setView(kInService, 0.0);
  setView(kTokensPerSecond, 0.0);
}

void InferenceWorkload::place(double now, const JobSite& /*site*/) noexcept {
  server_.setStart(now);  // its requests arrive from now on
}

void InferenceWorkload::advance(const SubStep& step, const SiteState& state, const JobSite& site,
                                RackLoads& loads) noexcept {
  if (!(step.t1 > server_.start() && step.t0 < server_.end())) return;
  const double fraction = server_.busyPowerFraction();
  const double speed = site.slowestSpeed(racks(), fraction, state);
  const double busy = server_.run(step.t0, step.t1, speed) / step.span();
  setView(kQueue, static_cast<double>(server_.queueLength()));
  setView(kInService, static_cast<double>(server_.inService()));
  setView(kTokensPerSecond, static_cast<double>(server_.tokensLastRun()) / step.dt);
  if (!(busy > 0.0)) return;
  for (const std::uint32_t r : racks()) {
    // P_idle + u (P_busy - P_idle) averaged over the sub-step: busy = the mean of u, so the busy
    // share at P_busy plus the rest at P_idle (filled in when the demands are written).
    const RackPower& p = site.rack_power[r];
    const double P_busy = p.gpuPower(fraction);
    loads.add(r, busy, P_busy, p.gpuPowerCapped(P_busy));
  }
}

void InferenceWorkload::visitState(StateArchive& archive) {
  server_.visitState(archive);
}

}  // namespace racktwin::core
