#pragma once
// An inference service (InferenceJobSpec) behind the WorkloadJob interface: the server
// (InferenceJob.hpp) on all GPUs of the job's racks, its requests progressing at the speed of the
// job's slowest GPU. Its GPUs draw P_idle + u (max(P_idle, busy_power_fraction P_max) - P_idle),
// u the share of busy batch slots averaged exactly over the sub-step.
#include <cstdint>
#include <span>
#include <string_view>

#include "racktwin/core/InferenceJob.hpp"
#include "racktwin/core/WorkloadJob.hpp"

namespace racktwin::core {

class InferenceWorkload final : public WorkloadJob {
 public:
  /// `gpus`: the GPUs serving the job (its named racks' or the count it asks for, so that its
  /// throughput does not depend on which racks it gets); `seed`: its Poisson stream.
  InferenceWorkload(const InferenceJobSpec& spec, std::uint32_t gpus, std::uint64_t seed);

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
  void visitState(StateArchive& archive) override;

  const InferenceJob& server() const noexcept { return server_; }

 private:
  const InferenceJobSpec* spec_;  // for the placement request
  InferenceJob server_;
};

}  // namespace racktwin::core
