#include "racktwin/core/ModelInferenceWorkload.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <string>

#include "racktwin/core/StateArchive.hpp"
#include "racktwin/core/Summary.hpp"

namespace racktwin::core {

namespace {

enum Channel : std::size_t { kQueue, kDecoding, kTokensPerSecond, kBusy };
constexpr std::array<JobChannel, 4> kChannels{{
    {"model_job", "queue_length", "1", "Requests waiting for admission at the end of the sub-step",
     Aggregation::Sample},
    {"model_job", "decoding", "1", "Requests decoding at the end of the sub-step",
     Aggregation::Sample},
    {"model_job", "tokens_per_s", "1/s",
     "Generated tokens of the requests completed in the sub-step, per second",
     Aggregation::SubstepMean},
    {"model_job", "busy", "1", "Share of the job's replicas running iterations",
     Aggregation::SubstepMean},
}};

/// The busy power of a phase above idle, W (never negative).
double above(double fraction, const RackPower& p) {
  return std::max(fraction * p.gpu_P_max - p.gpu_P_idle, 0.0);
}

/// A pool's busy GPU power from its utilisations, at most P_max, W.
double busyPower(double u_c, double u_m, double u_n, const AcceleratorSpec& a, const RackPower& p) {
  const double P = p.gpu_P_idle + u_c * above(a.compute_power_fraction, p)
                   + u_m * above(a.memory_power_fraction, p)
                   + u_n * above(a.communication_power_fraction, p);
  return std::min(P, p.gpu_P_max);
}

}  // namespace

ModelInferenceWorkload::ModelInferenceWorkload(const InferenceJobSpec& spec, std::uint32_t gpus,
                                               std::uint64_t seed)
    : WorkloadJob(spec.id, spec.gpus > 0), spec_(&spec), server_(spec, gpus, seed) {}

JobPlaceRequest ModelInferenceWorkload::placeRequest() const {
  return placeRequestOf(*spec_, server_.start(), server_.end());
}

std::span<const JobChannel> ModelInferenceWorkload::channels() const noexcept {
  return kChannels;
}

void ModelInferenceWorkload::reset(double /*time*/, const JobSite& /*site*/) {
  // One rack is one NVL72 domain: the pools share it only when the job holds one rack.
  server_.setKvTransferWithinDomain(racks().size() == 1);
  if (scheduled()) {
    server_.setStart(std::numeric_limits<double>::infinity());
  } else {
    server_.reset();
  }
  gpu_energy_ = active_time_ = 0.0;
  for (std::size_t c = 0; c < kChannels.size(); ++c)
    setView(c, 0.0);
}

void ModelInferenceWorkload::place(double now, const JobSite& /*site*/) noexcept {
  server_.setStart(now);
}

void ModelInferenceWorkload::advance(const SubStep& step, const SiteState& state,
                                     const JobSite& site, RackLoads& loads) noexcept {
  if (!(step.t1 > server_.start() && step.t0 < server_.end())) return;
  const AcceleratorSpec& a = server_.roofline().deployment().accelerator;
  const double speed = site.slowestSpeed(racks(), a.compute_power_fraction, state);
  const ServerInterval run = server_.run(step.t0, step.t1, speed);
  const double span = step.span();
  const double active = std::min(step.t1, server_.end()) - std::max(step.t0, server_.start());
  active_time_ += active;
  setView(kQueue, static_cast<double>(server_.queueLength()));
  setView(kDecoding, static_cast<double>(server_.decoding()));
  setView(kTokensPerSecond, static_cast<double>(server_.tokensLastRun()) / step.dt);
  setView(kBusy, run.busy / span);
  if (server_.disaggregated()) {
    advancePools(run, span, active, site, loads);
    return;
  }
  const double share = run.busy / span;
  const double u_c = run.busy > 0.0 ? run.compute / run.busy : 0.0;
  const double u_m = run.busy > 0.0 ? run.memory / run.busy : 0.0;
  const double u_n = run.busy > 0.0 ? run.network / run.busy : 0.0;
  for (const std::uint32_t r : racks()) {
    const RackPower& p = site.rack_power[r];
    const double n = site.layout->rack_gpu_begin[r + 1] - site.layout->rack_gpu_begin[r];
    double P = 0.0;
    if (share > 0.0) {
      P = busyPower(u_c, u_m, u_n, a, p);
      loads.add(r, share, P, p.gpuPowerCapped(P));
    }
    gpu_energy_ += n * (share * P + (active / span - share) * p.gpu_P_idle) * span;
  }
}

void ModelInferenceWorkload::advancePools(const ServerInterval& run, double span, double active,
                                          const JobSite& site, RackLoads& loads) noexcept {
  const AcceleratorSpec& a = server_.roofline().deployment().accelerator;
  struct Pool {
    double share, u_c, u_m, u_n;
  };
  const auto pool = [span](const PoolInterval& i) {
    return i.busy > 0.0
               ? Pool{i.busy / span, i.compute / i.busy, i.memory / i.busy, i.network / i.busy}
               : Pool{0.0, 0.0, 0.0, 0.0};
  };
  const Pool prefill = pool(run.prefill_pool);
  const Pool decode = pool(run.decode_pool);
  // The prefill pool is the job's first GPUs in its rack order; a rack across the boundary
  // hosts both pools in proportion to its GPUs.
  const double boundary =
      static_cast<double>(server_.prefillReplicas()) * server_.roofline().gpusPerReplica();
  const std::span<const std::uint32_t> job_racks = racks();
  const std::span<const std::uint32_t> offsets = rackGpuOffsets();
  for (std::size_t i = 0; i < job_racks.size(); ++i) {
    const std::uint32_t r = job_racks[i];
    const RackPower& p = site.rack_power[r];
    const double n = site.layout->rack_gpu_begin[r + 1] - site.layout->rack_gpu_begin[r];
    const double x = n > 0.0 ? std::clamp((boundary - offsets[i]) / n, 0.0, 1.0) : 0.0;
    const auto add = [&](double gpus_share, const Pool& q) {
      double P = 0.0;
      if (q.share > 0.0 && gpus_share > 0.0) {
        P = busyPower(q.u_c, q.u_m, q.u_n, a, p);
        loads.add(r, gpus_share * q.share, P, p.gpuPowerCapped(P));
      }
      gpu_energy_ +=
          gpus_share * n * (q.share * P + (active / span - q.share) * p.gpu_P_idle) * span;
    };
    add(x, prefill);
    add(1.0 - x, decode);
  }
}

void ModelInferenceWorkload::summarise(Summary& summary) const {
  const ModelServer& s = server_;
  const std::string k = "job_" + id() + "_";
  const std::string j = "Job " + id() + ": ";
  const auto n = [](std::uint64_t x) { return static_cast<double>(x); };
  const auto mean = [](double sum, std::uint64_t count) {
    return count > 0 ? std::optional<double>(sum / static_cast<double>(count)) : std::nullopt;
  };
  const auto quantile = [](const LatencyHistogram& h, double q) {
    return h.count() > 0 ? std::optional<double>(h.quantile(q)) : std::nullopt;
  };
  const std::uint64_t first_tokens = s.ttft().count();
  summary.add(SummaryItem{k + "requests_served", n(s.requestsServed()), j + "requests served", "",
                          1.0, 0.0});
  summary.add(SummaryItem{k + "requests_dropped", n(s.requestsDropped()),
                          j + "requests longer than a replica's KV cache (dropped)", "", 1.0, 0.0});
  summary.add(SummaryItem{k + "requests_meeting_latency_target", n(s.requestsMeetingTarget()),
                          j + "requests served within the TTFT and TPOT targets", "", 1.0, 0.0});
  summary.add(SummaryItem{k + "prompt_tokens", n(s.promptTokensServed()),
                          j + "prompt tokens processed", "", 1.0, 0.0});
  summary.add(SummaryItem{k + "tokens_generated", n(s.tokensGenerated()), j + "tokens generated",
                          "", 1.0, 0.0});
  summary.add(SummaryItem{k + "ttft_mean_s", mean(s.ttftSum(), first_tokens),
                          j + "mean time to first token", "s", 1.0, 0.0});
  summary.add(SummaryItem{k + "ttft_p99_s", quantile(s.ttft(), 0.99),
                          j + "99th percentile time to first token (histogram bin edge)", "s", 1.0,
                          0.0});
  summary.add(SummaryItem{k + "tpot_mean_s", mean(s.tpotSum(), s.tpotCount()),
                          j + "mean time per output token", "s", 1.0, 0.0});
  summary.add(SummaryItem{k + "tpot_p99_s", quantile(s.tpot(), 0.99),
                          j + "99th percentile time per output token (histogram bin edge)", "s",
                          1.0, 0.0});
  summary.add(SummaryItem{k + "queueing_delay_mean_s",
                          mean(s.queueingDelaySum(), s.requestsStarted()),
                          j + "mean wait for admission", "s", 1.0, 0.0});
  summary.add(SummaryItem{k + "delivered_flops", s.flopsDone(), j + "model FLOPs delivered", "FLOP",
                          1.0, 0.0});
  const double peak = s.roofline().replicaPeakFlops() * s.replicas() * active_time_;
  summary.add(SummaryItem{k + "flops_share_of_peak",
                          peak > 0.0 ? std::optional<double>(s.flopsDone() / peak) : std::nullopt,
                          j + "delivered FLOPs over the dense peak of its GPUs while it ran", "",
                          1.0, 0.0});
  summary.add(SummaryItem{k + "gpu_energy_J", gpu_energy_, j + "GPU energy demanded while it ran",
                          "J", 1.0, 0.0});
  summary.add(SummaryItem{k + "tokens_per_gpu_J",
                          gpu_energy_ > 0.0
                              ? std::optional<double>(n(s.tokensGenerated()) / gpu_energy_)
                              : std::nullopt,
                          j + "generated tokens per joule of GPU energy", "1/J", 1.0, 0.0});
  if (s.disaggregated()) {
    summary.add(SummaryItem{k + "kv_transfer_mean_s", mean(s.kvTransferSum(), s.kvTransferCount()),
                            j + "mean time to move a prompt's KV cache to the decode pool", "s",
                            1.0, 0.0});
  }
}

void ModelInferenceWorkload::visitState(StateArchive& archive) {
  server_.visitState(archive);
  archive(gpu_energy_, active_time_);
}

}  // namespace racktwin::core
