#pragma once
// A workload executor on its site, layout and state, stepped from t = 0 while each GPU's demanded
// energy is integrated: the harness of the scheduler and scheduled-job tests.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "racktwin/core/ComponentId.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/WorkloadExecutor.hpp"

namespace racktwin::test {

struct ExecutorRun {
  explicit ExecutorRun(core::SiteSpec s)
      : site(std::move(s)), layout(core::SiteLayout::build(site)), executor(site, layout) {
    state.resize(layout, 300.0);
  }
  /// n sub-steps of dt from t = 0 (the executor initialised there); integrates each GPU's demand
  /// (J) from t = `from` on.
  void run(long n, double dt, double from = 0.0) {
    gpu_E.assign(layout.gpu_count, 0.0);
    state.time = 0.0;
    executor.initialize(state);
    for (long i = 0; i < n; ++i) {
      const double t = static_cast<double>(i) * dt;
      state.time = t;
      executor.advance(t, dt, state);
      if (t < from) continue;
      for (std::size_t g = 0; g < layout.gpu_count; ++g)
        gpu_E[g] += state.gpu_P_demand[g] * dt;
    }
  }
  /// Ids of the racks training job `job` holds now.
  std::vector<std::string> racks(std::size_t job) const {
    std::vector<std::string> ids;
    for (const std::uint32_t r : executor.jobRacks(job))
      ids.push_back(layout.rack_ids[r]);
    return ids;
  }
  /// Ids of racks given by index.
  std::vector<core::ComponentId> rackIds(std::span<const std::uint32_t> racks) const {
    std::vector<core::ComponentId> ids;
    for (const std::uint32_t r : racks)
      ids.emplace_back(layout.rack_ids[r]);
    return ids;
  }
  core::SiteSpec site;
  core::SiteLayout layout;
  core::SiteState state;
  core::WorkloadExecutor executor;
  std::vector<double> gpu_E;
};

}  // namespace racktwin::test
