#pragma once
// An inference service of a named model (InferenceJobSpec::deployment) behind the WorkloadJob
// interface: the ModelServer on all GPUs of the job's racks, its iterations slowed by the job's
// slowest GPU. Its GPUs' power follows the phase of the iterations: busy, they draw
//   P = P_idle + u_c (f_c P_max - P_idle) + u_m (f_m P_max - P_idle) + u_n (f_n P_max - P_idle)
// (at most P_max), u_c, u_m, u_n the shares of an iteration bound by compute, by HBM and by
// collectives, averaged over the sub-step's busy time, f_c, f_m, f_n the accelerator's phase
// powers (data/accelerators), so a compute-bound prefill draws more than a memory-bound decode.
// Disaggregated, each pool's GPUs draw the power of its own utilisations; the prefill pool is the
// job's first GPUs in its rack order (docs/workloads.md).
#include <cstdint>
#include <span>
#include <string_view>

#include "racktwin/core/ModelServer.hpp"
#include "racktwin/core/WorkloadJob.hpp"

namespace racktwin::core {

class ModelInferenceWorkload final : public WorkloadJob {
 public:
  ModelInferenceWorkload(const InferenceJobSpec& spec, std::uint32_t gpus, std::uint64_t seed);

  std::string_view kind() const noexcept override { return "inference"; }
  JobPlaceRequest placeRequest() const override;
  double start() const noexcept override { return server_.start(); }
  double end() const noexcept override { return server_.end(); }
  std::span<const JobChannel> channels() const noexcept override;

  void reset(double time, const JobSite& site) override;
  void place(double now, const JobSite& site) noexcept override;
  void addDemandAt(double /*time*/, const JobSite& /*site*/, RackLoads& /*loads*/) override {}
  void advance(const SubStep& step, const SiteState& state, const JobSite& site,
               RackLoads& loads) noexcept override;
  void summarise(Summary& summary) const override;
  void visitState(StateArchive& archive) override;

  const ModelServer& server() const noexcept { return server_; }
  /// GPU energy the job's racks demanded while it ran, J.
  double gpuEnergy() const noexcept { return gpu_energy_; }
  /// Time the job was active, s.
  double activeTime() const noexcept { return active_time_; }

 private:
  /// The racks' loads and GPU energy of a disaggregated job, pool by pool.
  void advancePools(const ServerInterval& run, double span, double active, const JobSite& site,
                    RackLoads& loads) noexcept;

  const InferenceJobSpec* spec_;  // for the placement request
  ModelServer server_;
  double gpu_energy_ = 0.0;   // J
  double active_time_ = 0.0;  // s
};

}  // namespace racktwin::core
