// One sweep case: the patched base scenario, run to its end in a Twin of its own.
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/core/LimitMonitor.hpp"
#include "racktwin/core/OutputDetail.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/scenarios/OutputPlan.hpp"
#include "racktwin/scenarios/ScenarioPatch.hpp"
#include "racktwin/scenarios/Twin.hpp"
#include "racktwin/study/Sweep.hpp"

namespace racktwin::study {

bool LimitExcuse::covers(const LimitViolation& v) const {
  // First and last record beyond the rating: inside one window means every record between was.
  if (v.limit.find(":gpu_slowdown") != std::string::npos) return false;
  return v.last <= warm_up || (v.first >= from && v.last <= to);
}

bool CaseResult::acceptable(const LimitExcuse& excuse) const {
  if (!ok) return false;
  for (const LimitViolation& v : violations) {
    if (!excuse.covers(v)) return false;
  }
  for (const auto& [key, value] : metrics) {
    if ((key == "throttled_gpu_seconds" || key == "gpus_shut_down") && value.value_or(0.0) > 0.0)
      return false;
  }
  return true;
}

std::string CaseResult::toJson() const {
  nlohmann::json j;
  j["index"] = index;
  j["ok"] = ok;
  j["error"] = error;
  j["wall_time"] = wall_time;
  nlohmann::json m = nlohmann::json::array();
  for (const auto& [key, value] : metrics) {
    // Non-finite values cannot be JSON numbers: a summary never holds one (Twin::finish).
    m.push_back({key, value && std::isfinite(*value) ? nlohmann::json(*value) : nlohmann::json()});
  }
  j["metrics"] = m;
  nlohmann::json h = nlohmann::json::array();
  for (const CaseHeadroom& row : headroom)
    h.push_back({row.group, row.kind, row.binding, row.margin_fraction});
  j["headroom"] = h;
  j["binding"] = binding;
  j["margin_min"] = margin_min;
  nlohmann::json v = nlohmann::json::array();
  for (const LimitViolation& x : violations)
    v.push_back({x.limit, x.first, x.last});
  j["violations"] = v;
  j["result_file"] = result_file;
  return j.dump();
}

CaseResult CaseResult::fromJson(const std::string& line) {
  const nlohmann::json j = nlohmann::json::parse(line);
  CaseResult r;
  r.index = j.at("index").get<std::size_t>();
  r.ok = j.at("ok").get<bool>();
  r.error = j.at("error").get<std::string>();
  r.wall_time = j.at("wall_time").get<double>();
  for (const auto& m : j.at("metrics")) {
    std::optional<double> value;
    if (!m.at(1).is_null()) value = m.at(1).get<double>();
    r.metrics.emplace_back(m.at(0).get<std::string>(), value);
  }
  for (const auto& h : j.at("headroom")) {
    r.headroom.push_back({h.at(0).get<std::string>(), h.at(1).get<std::string>(),
                          h.at(2).get<std::string>(), h.at(3).get<double>()});
  }
  r.binding = j.at("binding").get<std::string>();
  r.margin_min = j.at("margin_min").get<double>();
  for (const auto& v : j.at("violations"))
    r.violations.push_back(
        {v.at(0).get<std::string>(), v.at(1).get<double>(), v.at(2).get<double>()});
  r.result_file = j.at("result_file").get<std::string>();
  return r;
}

CaseResult runCase(const scenarios::SweepSpec& spec, const SweepCase& c,
                   const std::string& result_file) {
  CaseResult r;
  r.index = c.index;
  const auto start = std::chrono::steady_clock::now();
  try {
    scenarios::Twin twin(scenarios::loadPatchedScenario(spec.base_text, spec.base_path, c.patches));
    std::unique_ptr<core::RecorderSink> sink;
    std::unique_ptr<core::DetailSink> detail;
    if (!result_file.empty()) {
      // The file `racktwin run` writes for this scenario: its level of detail (aggregates above
      // 10,000 GPUs by default) and its compression.
      sink = core::makeHdf5Sink(result_file, scenarios::sinkOptionsOf(twin.site()));
      detail = std::make_unique<core::DetailSink>(scenarios::detailPlanOf(twin.site()), *sink);
      twin.addSink(*detail);
    }
    twin.initialize();
    while (twin.step()) {
    }
    const core::Summary summary = twin.finish(true);
    for (const core::SummaryItem& item : summary.items())
      r.metrics.emplace_back(item.key, item.value);
    const core::LimitMonitor& limits = twin.limits();
    for (const core::HeadroomRow& row : limits.headroom()) {
      r.headroom.push_back({row.group, row.group_kind, limits.limits()[row.binding].id(),
                            row.worst_margin_fraction});
    }
    const std::size_t binding = limits.bindingLimit();
    if (binding < limits.limits().size()) {
      r.binding = limits.limits()[binding].id();
      r.margin_min = limits.outcomes()[binding].worst_margin / limits.limits()[binding].scale;
    }
    // Exceeded limits, worst first (the order of violationLines()).
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < limits.limits().size(); ++i)
      if (limits.outcomes()[i].violated()) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return limits.outcomes()[a].worst_margin / limits.limits()[a].scale
             < limits.outcomes()[b].worst_margin / limits.limits()[b].scale;
    });
    for (const std::size_t i : order) {
      const core::LimitOutcome& o = limits.outcomes()[i];
      r.violations.push_back({limits.limits()[i].id(), o.first_violation, o.last_violation});
    }
    r.result_file = result_file;
    r.ok = true;
  } catch (const std::exception& e) {
    r.ok = false;
    r.error = e.what();
    r.metrics.clear();
    r.headroom.clear();
    r.violations.clear();
  }
  r.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace racktwin::study
