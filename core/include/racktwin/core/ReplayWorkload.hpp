#pragma once
// A replayed GPU power trace (ReplayJobSpec) behind the WorkloadJob interface: trace GPU i drives
// the i-th GPU of the job's racks (racks in the job's or the placement's order), cyclically; the
// executor writes each GPU's trace average (ReplayJob.hpp) with the idle power for the part of the
// sub-step outside the job, capped while throttled, without leakage (the measured power holds it).
#include <span>
#include <string_view>

#include "racktwin/core/ReplayJob.hpp"
#include "racktwin/core/WorkloadJob.hpp"

namespace racktwin::core {

class ReplayWorkload final : public WorkloadJob {
 public:
  explicit ReplayWorkload(const ReplayJobSpec& spec);

  std::string_view kind() const noexcept override { return "replay"; }
  JobPlaceRequest placeRequest() const override;
  double start() const noexcept override { return trace_.start(); }
  double end() const noexcept override { return trace_.end(); }

  void reset(double time, const JobSite& site) override;
  void place(double now, const JobSite& site) noexcept override;
  void addDemandAt(double time, const JobSite& site, RackLoads& loads) override;
  void advance(const SubStep& step, const SiteState& state, const JobSite& site,
               RackLoads& loads) noexcept override;
  void visitState(StateArchive& archive) override;

  const ReplayJob* gpuTrace() const noexcept override { return &trace_; }
  const ReplayJob& trace() const noexcept { return trace_; }

 private:
  /// Marks the job's racks as driven by its trace for an active share (0..1) of the sub-step.
  void addToRacks(double share, RackLoads& loads) const noexcept;

  const ReplayJobSpec* spec_;  // for the placement request
  ReplayJob trace_;
};

}  // namespace racktwin::core
