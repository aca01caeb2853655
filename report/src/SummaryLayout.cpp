#include "racktwin/report/SummaryLayout.hpp"

#include <array>

namespace racktwin::report {
namespace {

using S = SummarySection;
constexpr double kWh = 1.0 / 3.6e6;     // J -> kWh
constexpr double kLpm = 60.0e3;         // m3/s -> L/min
constexpr double kZeroC = -273.15;      // K -> degC
constexpr double kHour = 1.0 / 3600.0;  // s -> h

// Keys in the order people read them within each section. Labels and display units are the
// models' own (a test holds them equal); the headline numbers give the answers' order.
constexpr std::array kLayouts = std::to_array<SummaryKeyLayout>({
    // Design limits (issue 18, docs/capacity.md): the first answer.
    {"design_limits_violated", S::DesignLimits, 1, "Design limits exceeded", "", 1.0, 0.0, false},
    {"design_margin_min", S::DesignLimits, 2, "Smallest design margin", "%", 100.0, 0.0, false},
    {"design_limits_checked", S::DesignLimits, 0, "Design limits checked", "", 1.0, 0.0, false},
    // Chips.
    {"max_gpu_temperature_K", S::Thermal, 3, "Max GPU junction temperature", "degC", 1.0, kZeroC,
     false},
    {"ride_through_s", S::Thermal, 4, "Ride-through, first fault to first throttle", "s", 1.0, 0.0,
     false},
    {"throttled_gpu_seconds", S::Thermal, 0, "Throttled GPU time", "GPU s", 1.0, 0.0, false},
    {"gpus_shut_down", S::Thermal, 0, "GPUs shut down over temperature", "", 1.0, 0.0, false},
    {"rack_inlet_temperature_max_K", S::Thermal, 0, "Rack inlet air, highest", "degC", 1.0, kZeroC,
     false},
    {"rack_inlet_out_of_class_rack_s", S::Thermal, 0,
     "Air-cooled rack time with inlet outside its ASHRAE class", "rack h", kHour, 0.0, false},
    // Facility energy and power.
    {"pue", S::FacilityPower, 5, "PUE (power tree input + storage drawn + modelled cooling) / IT",
     "", 1.0, 0.0, false},
    {"wue_L_per_kWh", S::FacilityPower, 6, "WUE, make-up water per IT energy", "L/kWh", 1.0, 0.0,
     false},
    {"facility_power_max_W", S::FacilityPower, 7, "Facility power at the tree input, max", "kW",
     1e-3, 0.0, false},
    {"facility_power_min_W", S::FacilityPower, 0, "Facility power at the tree input, min", "kW",
     1e-3, 0.0, false},
    {"it_power_max_W", S::FacilityPower, 0, "IT power, max", "kW", 1e-3, 0.0, false},
    {"it_power_min_W", S::FacilityPower, 0, "IT power, min", "kW", 1e-3, 0.0, false},
    {"it_energy_J", S::FacilityPower, 0, "IT energy (power shelf AC input)", "kWh", kWh, 0.0,
     false},
    {"facility_energy_J", S::FacilityPower, 0,
     "Facility energy (power tree + storage drawn + cooling)", "kWh", kWh, 0.0, false},
    {"cooling_energy_J", S::FacilityPower, 0, "Cooling electrical energy (pumps, fans)", "kWh", kWh,
     0.0, false},
    {"pue_without_air_side_plant", S::FacilityPower, 0,
     "PUE without the air side's plant (CRAH heat free)", "", 1.0, 0.0, false},
    {"fabric_switches", S::FacilityPower, 0, "Fabric switches (non-blocking fat tree)", "", 1.0,
     0.0, false},
    {"fabric_power_W", S::FacilityPower, 0, "Fabric switch power (all switches)", "kW", 1e-3, 0.0,
     false},
    {"fabric_energy_J", S::FacilityPower, 0, "Fabric switch energy (part of IT)", "kWh", kWh, 0.0,
     false},
    {"fabric_it_share", S::FacilityPower, 0, "Fabric share of the IT energy", "%", 100.0, 0.0,
     false},
    {"server_fan_energy_J", S::FacilityPower, 0,
     "Server fan energy of air-cooled racks (part of IT)", "kWh", kWh, 0.0, false},
    {"peak_day_number", S::FacilityPower, 0, "Peak day (highest facility energy), day of the", "",
     1.0, 0.0, false},
    {"peak_day_facility_energy_J", S::FacilityPower, 0, "Peak day facility energy", "kWh", kWh, 0.0,
     false},
    {"peak_day_facility_power_mean_W", S::FacilityPower, 0, "Peak day mean facility power", "kW",
     1e-3, 0.0, false},
    {"facility_power_dominant_frequency_Hz", S::FacilityPower, 0,
     "Dominant oscillation of the facility power at the tree input", "Hz", 1.0, 0.0, false},
    {"facility_power_dominant_amplitude_W", S::FacilityPower, 0, "Amplitude of that oscillation",
     "kW", 1e-3, 0.0, false},
    // The secondary loops at design conditions.
    {"pump_V_flow_m3_per_s", S::SecondaryLoop, 0, "Secondary pump flow (design, all CDUs)", "L/min",
     kLpm, 0.0, false},
    {"pump_dp_Pa", S::SecondaryLoop, 0, "Secondary pump head (design, largest)", "kPa", 1e-3, 0.0,
     false},
    {"pump_power_W", S::SecondaryLoop, 0, "Secondary pump power (design, all CDUs)", "kW", 1e-3,
     0.0, false},
    {"cold_plate_V_flow_min_m3_per_s", S::SecondaryLoop, 0, "Cold-plate flow, lowest (design)",
     "L/min", kLpm, 0.0, false},
    {"cold_plate_V_flow_max_m3_per_s", S::SecondaryLoop, 0, "Cold-plate flow, highest (design)",
     "L/min", kLpm, 0.0, false},
    {"cold_plate_flow_spread", S::SecondaryLoop, 0, "Cold-plate flow spread (max-min)/mean", "",
     1.0, 0.0, false},
    {"cold_plates_below_minimum_flow", S::SecondaryLoop, 0,
     "Cold plates below minimum flow (design)", "", 1.0, 0.0, false},
    {"pump_flow_fraction_of_curve", S::SecondaryLoop, 0,
     "Pump flow / its zero-head flow at speed (design, highest-head CDU)", "", 1.0, 0.0, false},
    {"system_curve_exponent", S::SecondaryLoop, 0,
     "System curve exponent n, dp = k V^n (design, highest-head CDU)", "", 1.0, 0.0, false},
    {"facility_valve_authority_min", S::SecondaryLoop, 0,
     "Facility valve authority at nominal flow, lowest CDU", "", 1.0, 0.0, false},
    {"rack_dp_available_min_Pa", S::SecondaryLoop, 0, "Manifold dp, least favoured rack (design)",
     "kPa", 1e-3, 0.0, false},
    // Heat.
    {"heat_input_J", S::Heat, 0, "Heat into coolant and room air", "kWh", kWh, 0.0, true},
    {"heat_rejected_to_facility_water_J", S::Heat, 0, "Heat rejected to facility water", "kWh", kWh,
     0.0, true},
    {"heat_rejected_outdoors_J", S::Heat, 0, "Heat rejected outdoors (plant, chiller condenser)",
     "kWh", kWh, 0.0, true},
    {"heat_rejected_to_air_J", S::Heat, 0, "Heat removed by CRAH units", "kWh", kWh, 0.0, true},
    {"rack_exchanger_heat_J", S::Heat, 0,
     "Heat moved from rack exhaust air into water (rear doors)", "kWh", kWh, 0.0, true},
    {"rack_exchanger_fan_energy_J", S::Heat, 0, "Rear-door fan energy", "kWh", kWh, 0.0, false},
    // The facility plant.
    {"facility_pump_energy_J", S::FacilityPlant, 0, "Facility pump energy", "kWh", kWh, 0.0, false},
    {"heat_rejection_fan_energy_J", S::FacilityPlant, 0, "Heat-rejection fan energy", "kWh", kWh,
     0.0, false},
    {"chiller_energy_J", S::FacilityPlant, 0, "Trim chiller energy", "kWh", kWh, 0.0, false},
    {"water_use_m3", S::FacilityPlant, 0, "Make-up water", "L", 1e3, 0.0, false},
    {"free_cooling_time_s", S::FacilityPlant, 0,
     "Free-cooling hours (heat rejection alone holds the supply)", "h", kHour, 0.0, false},
    {"chiller_time_s", S::FacilityPlant, 0, "Chiller hours (trim chiller needed)", "h", kHour, 0.0,
     false},
    {"supply_above_setpoint_time_s", S::FacilityPlant, 0,
     "Hours with the plant supply above set-point + 0.5 K", "h", kHour, 0.0, false},
    {"air_plant_energy_J", S::FacilityPlant, 0,
     "Air-side plant energy (chillers, pumps, tower fans)", "kWh", kWh, 0.0, false},
    {"air_plant_chiller_energy_J", S::FacilityPlant, 0, "Air-side chiller energy", "kWh", kWh, 0.0,
     false},
    {"air_plant_chiller_time_s", S::FacilityPlant, 0, "Air-side chillers running", "h", kHour, 0.0,
     false},
    {"air_plant_free_cooling_time_s", S::FacilityPlant, 0, "Air-side plant on the economiser alone",
     "h", kHour, 0.0, false},
    {"air_plant_economiser_share", S::FacilityPlant, 0,
     "Share of the CRAH heat the economiser carried", "", 1.0, 0.0, false},
    {"air_plant_unmet_time_s", S::FacilityPlant, 0, "Air-side load beyond the chillers' capacity",
     "h", kHour, 0.0, false},
    {"air_plant_water_use_m3", S::FacilityPlant, 0, "Air-side plant make-up water", "L", 1e3, 0.0,
     false},
    // Electrical distribution.
    {"facility_electrical_energy_J", S::Distribution, 0,
     "Facility electrical energy (input of the power tree)", "kWh", kWh, 0.0, false},
    {"electrical_losses_J", S::Distribution, 0,
     "Electrical losses (PSU, busbar, distribution, UPS)", "kWh", kWh, 0.0, false},
    {"psu_loss_energy_J", S::Distribution, 0, "PSU conversion losses", "kWh", kWh, 0.0, false},
    {"busbar_loss_energy_J", S::Distribution, 0, "Rack busbar losses", "kWh", kWh, 0.0, false},
    {"electrical_loss_*_J", S::Distribution, 0, "Losses: {1}", "kWh", kWh, 0.0, false},
    {"utility_energy_J", S::Distribution, 0, "Utility energy", "kWh", kWh, 0.0, false},
    {"generator_energy_J", S::Distribution, 0, "Generator energy", "kWh", kWh, 0.0, false},
    {"electrical_storage_energy_change_J", S::Distribution, 0,
     "Energy stored in UPS batteries and rack storage (change)", "kWh", kWh, 0.0, false},
    {"ups_battery_energy_change_J", S::Distribution, 0, "Change of UPS battery energy", "kWh", kWh,
     0.0, false},
    {"ups_soc_min", S::Distribution, 0, "Lowest UPS state of charge", "%", 100.0, 0.0, false},
    {"ups_battery_depletions", S::Distribution, 0, "UPS battery depletions (load lost)", "", 1.0,
     0.0, false},
    {"breaker_trips", S::Distribution, 0, "Breaker trips", "", 1.0, 0.0, false},
    {"feed_utilisation_max", S::Distribution, 0, "Highest rack feed utilisation", "%", 100.0, 0.0,
     false},
    {"mv_feeder_*_current_max_A", S::Distribution, 0, "MV feeder {1}: highest current", "A", 1.0,
     0.0, false},
    {"mv_feeder_*_utilisation_max", S::Distribution, 0, "MV feeder {1}: highest utilisation", "%",
     100.0, 0.0, false},
    {"generator_utilisation_max", S::Distribution, 0, "Highest generator utilisation", "%", 100.0,
     0.0, false},
    {"gpus_unpowered_max", S::Distribution, 0, "Most GPUs without power at once", "", 1.0, 0.0,
     false},
    {"smoothing_burner_energy_J", S::Distribution, 0, "Power burner energy (smoothing)", "kWh", kWh,
     0.0, false},
    {"smoothing_ramp_deficit_energy_J", S::Distribution, 0,
     "GPU energy held back by the ramp-up limit", "kWh", kWh, 0.0, false},
    // Workload.
    {"training_iterations", S::Training, 0, "Training iterations completed", "", 1.0, 0.0, false},
    {"training_iteration_period_s", S::Training, 0, "Mean training iteration period", "s", 1.0, 0.0,
     false},
    {"training_failures", S::Training, 0, "Training job failures (each followed by a restart)", "",
     1.0, 0.0, false},
    {"jobs_completed", S::Training, 0, "Jobs run to their end", "", 1.0, 0.0, false},
    {"training_tokens", S::Training, 0, "Training tokens of the completed iterations", "", 1.0, 0.0,
     false},
    {"training_tokens_per_facility_kWh", S::Training, 0, "Training tokens per facility kWh",
     "1/kWh", 1.0, 0.0, false},
    {"delivered_flops", S::Training, 0, "Model FLOPs delivered by inference and training", "FLOP",
     1.0, 0.0, false},
    {"requests_served", S::Inference, 0, "Inference requests served", "", 1.0, 0.0, false},
    {"tokens_generated", S::Inference, 0, "Tokens generated by inference", "", 1.0, 0.0, false},
    {"mean_queueing_delay_s", S::Inference, 0, "Mean inference queueing delay", "s", 1.0, 0.0,
     false},
    {"prompt_tokens_served", S::Inference, 0, "Prompt tokens processed by inference", "", 1.0, 0.0,
     false},
    {"requests_meeting_latency_target", S::Inference, 0,
     "Inference requests within their TTFT and TPOT targets", "", 1.0, 0.0, false},
    {"inference_tokens_per_it_J", S::Inference, 0,
     "Inference tokens generated per joule of IT energy", "1/J", 1.0, 0.0, false},
    {"inference_tokens_per_facility_kWh", S::Inference, 0,
     "Inference tokens generated per facility kWh", "1/kWh", 1.0, 0.0, false},
    {"jobs_queued_at_end", S::ScheduledJobs, 0, "Scheduled jobs still queued at the end", "", 1.0,
     0.0, false},
    {"mean_job_wait_s", S::ScheduledJobs, 0, "Mean wait of the started scheduled jobs", "s", 1.0,
     0.0, false},
    {"job_*_start_s", S::ScheduledJobs, 0, "Job {1}: start", "s", 1.0, 0.0, false},
    {"job_*_wait_s", S::ScheduledJobs, 0, "Job {1}: wait", "s", 1.0, 0.0, false},
    {"job_*_rack_*", S::ScheduledJobs, 0, "Job {1}: on rack {2}", "", 1.0, 0.0, false},
    // Each job's work (docs/workloads.md): training, then inference serving.
    {"job_*_iteration_compute_s", S::ScheduledJobs, 0, "Job {1}: compute phase of an iteration",
     "s", 1.0, 0.0, false},
    {"job_*_iteration_communication_s", S::ScheduledJobs, 0,
     "Job {1}: exposed communication and bubble of an iteration", "s", 1.0, 0.0, false},
    {"job_*_checkpoint_s", S::ScheduledJobs, 0, "Job {1}: checkpoint write", "s", 1.0, 0.0, false},
    {"job_*_training_tokens", S::ScheduledJobs, 0, "Job {1}: training tokens of the completed", "",
     1.0, 0.0, false},
    {"job_*_delivered_flops", S::ScheduledJobs, 0, "Job {1}: model FLOPs", "FLOP", 1.0, 0.0, false},
    {"job_*_flops_share_of_peak", S::ScheduledJobs, 0,
     "Job {1}: delivered FLOPs over the dense peak of its GPUs while it ran", "", 1.0, 0.0, false},
    {"job_*_requests_served", S::ScheduledJobs, 0, "Job {1}: requests served", "", 1.0, 0.0, false},
    {"job_*_requests_dropped", S::ScheduledJobs, 0,
     "Job {1}: requests longer than a replica's KV cache (dropped)", "", 1.0, 0.0, false},
    {"job_*_requests_meeting_latency_target", S::ScheduledJobs, 0,
     "Job {1}: requests served within the TTFT and TPOT targets", "", 1.0, 0.0, false},
    {"job_*_prompt_tokens", S::ScheduledJobs, 0, "Job {1}: prompt tokens processed", "", 1.0, 0.0,
     false},
    {"job_*_tokens_generated", S::ScheduledJobs, 0, "Job {1}: tokens generated", "", 1.0, 0.0,
     false},
    {"job_*_ttft_mean_s", S::ScheduledJobs, 0, "Job {1}: mean time to first token", "s", 1.0, 0.0,
     false},
    {"job_*_ttft_p99_s", S::ScheduledJobs, 0, "Job {1}: 99th percentile time to first token", "s",
     1.0, 0.0, false},
    {"job_*_tpot_mean_s", S::ScheduledJobs, 0, "Job {1}: mean time per output token", "s", 1.0, 0.0,
     false},
    {"job_*_tpot_p99_s", S::ScheduledJobs, 0, "Job {1}: 99th percentile time per output token", "s",
     1.0, 0.0, false},
    {"job_*_queueing_delay_mean_s", S::ScheduledJobs, 0, "Job {1}: mean wait for admission", "s",
     1.0, 0.0, false},
    {"job_*_kv_transfer_mean_s", S::ScheduledJobs, 0,
     "Job {1}: mean time to move a prompt's KV cache to the decode pool", "s", 1.0, 0.0, false},
    {"job_*_gpu_energy_J", S::ScheduledJobs, 0, "Job {1}: GPU energy demanded while it ran", "J",
     1.0, 0.0, false},
    {"job_*_tokens_per_gpu_J", S::ScheduledJobs, 0,
     "Job {1}: generated tokens per joule of GPU energy", "1/J", 1.0, 0.0, false},
    // Checks a reader should see before trusting the numbers.
    {"energy_audit_relative_error_max", S::Checks, 0,
     "Energy audit from enthalpy flows (plates, exchangers, loops), worst relative", "", 1.0, 0.0,
     false},
    {"energy_audit_checks", S::Checks, 0, "Energy audit checks passed", "", 1.0, 0.0, false},
    {"energy_balance_relative_error", S::Checks, 0,
     "Energy balance error (relative, worst of thermal and electrical)", "", 1.0, 0.0, false},
    {"thermal_energy_balance_relative_error", S::Checks, 0,
     "Thermal energy balance error (relative)", "", 1.0, 0.0, false},
    {"electrical_energy_balance_relative_error", S::Checks, 0,
     "Electrical energy balance, relative error", "", 1.0, 0.0, false},
    {"input_warnings", S::Checks, 0, "Input warnings (values outside their usual range)", "", 1.0,
     0.0, false},
    {"cdus_hunting", S::Checks, 0, "CDUs whose supply hunts about its set-point", "", 1.0, 0.0,
     false},
    {"cdu_hunting_swing_max_K", S::Checks, 0, "Largest swing of a hunting CDU supply", "K", 1.0,
     0.0, false},
    {"control_step_final_s", S::Run, 0, "Control step at the end (halved while a CDU hunted)", "s",
     1.0, 0.0, false},
    {"load_flow_unconverged_steps", S::Checks, 0,
     "Load-flow steps without convergence (voltage collapse)", "", 1.0, 0.0, false},
    // The run.
    {"gpu_count", S::Run, 0, "GPUs", "", 1.0, 0.0, false},
    {"air_cooled_racks", S::Run, 0, "Air-cooled racks", "", 1.0, 0.0, false},
    {"simulated_time_s", S::Run, 0, "Simulated time", "s", 1.0, 0.0, false},
    {"fast_forward_steps", S::Run, 0, "Fast-forward: macro steps taken", "", 1.0, 0.0, false},
    {"fast_forward_fine_steps", S::Run, 0, "Fast-forward: steps of one fine step", "", 1.0, 0.0,
     false},
    {"fast_forward_longest_step_s", S::Run, 0, "Fast-forward: longest step", "s", 1.0, 0.0, false},
});

/// Matches `key` against `pattern` ('*': any non-empty text, the shortest that lets the rest
/// match); the texts the '*'s took go to `parts` when given.
bool matches(std::string_view pattern, std::string_view key, std::vector<std::string>* parts) {
  const std::size_t star = pattern.find('*');
  if (star == std::string_view::npos) return pattern == key;
  if (key.substr(0, star) != pattern.substr(0, star)) return false;
  const std::string_view rest = pattern.substr(star + 1);
  for (std::size_t end = star + 1; end <= key.size(); ++end) {
    std::vector<std::string> tail;
    if (matches(rest, key.substr(end), parts ? &tail : nullptr)) {
      if (parts) {
        parts->emplace_back(key.substr(star, end - star));
        parts->insert(parts->end(), tail.begin(), tail.end());
      }
      return true;
    }
  }
  return false;
}

bool isEmptyValue(const std::optional<double>& value) {
  return !value || *value == 0.0;
}

}  // namespace

std::span<const SummaryKeyLayout> summaryKeyLayouts() noexcept {
  return kLayouts;
}

const SummaryKeyLayout* findSummaryKeyLayout(std::string_view key) noexcept {
  for (const SummaryKeyLayout& layout : kLayouts)
    if (matches(layout.key, key, nullptr)) return &layout;
  return nullptr;
}

std::string summaryLabel(const SummaryKeyLayout& layout, std::string_view key) {
  std::vector<std::string> parts;
  matches(layout.key, key, &parts);
  std::string label(layout.label);
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const std::string mark = "{" + std::to_string(k + 1) + "}";
    if (const std::size_t at = label.find(mark); at != std::string::npos)
      label.replace(at, mark.size(), parts[k]);
  }
  return label;
}

std::string_view sectionTitle(SummarySection section) noexcept {
  switch (section) {
    case S::Headline:
      return "Answers";
    case S::DesignLimits:
      return "Design limits";
    case S::Thermal:
      return "Chips";
    case S::SecondaryLoop:
      return "Secondary coolant loops (design conditions)";
    case S::Heat:
      return "Heat";
    case S::FacilityPlant:
      return "Facility plant";
    case S::FacilityPower:
      return "Facility energy and power";
    case S::Distribution:
      return "Electrical distribution";
    case S::Training:
      return "Training";
    case S::Inference:
      return "Inference";
    case S::ScheduledJobs:
      return "Jobs";
    case S::Checks:
      return "Checks";
    case S::Run:
      return "Run";
    case S::Other:
      return "Other";
  }
  return "Other";
}

bool sectionOmittedWhenEmpty(SummarySection section) noexcept {
  switch (section) {
    case S::FacilityPlant:
    case S::Distribution:
    case S::Training:
    case S::Inference:
    case S::ScheduledJobs:
    case S::DesignLimits:
      return true;
    default:
      return false;
  }
}

std::vector<SummaryGroup> arrangeSummary(std::span<const std::string> keys,
                                         std::span<const std::optional<double>> values) {
  struct Placed {
    std::size_t row;  // table row, or the table's size for unknown keys
    std::size_t index;
  };
  std::vector<Placed> placed;
  placed.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const SummaryKeyLayout* layout = findSummaryKeyLayout(keys[i]);
    placed.push_back(
        {layout ? static_cast<std::size_t>(layout - kLayouts.data()) : kLayouts.size(), i});
  }
  std::vector<SummaryGroup> groups;
  // The headline answers, by their order.
  SummaryGroup headline{S::Headline, {}};
  for (int rank = 1;; ++rank) {
    bool any_rank = false;
    for (const SummaryKeyLayout& layout : kLayouts)
      any_rank = any_rank || layout.headline >= rank;
    if (!any_rank) break;
    for (const Placed& p : placed)
      if (p.row < kLayouts.size() && kLayouts[p.row].headline == rank)
        headline.items.push_back(p.index);
  }
  if (!headline.items.empty()) groups.push_back(std::move(headline));
  // The sections, each in table order; headline items are not repeated.
  for (int s = static_cast<int>(S::DesignLimits); s <= static_cast<int>(S::Other); ++s) {
    const auto section = static_cast<SummarySection>(s);
    SummaryGroup group{section, {}};
    for (std::size_t row = 0; row <= kLayouts.size(); ++row) {
      const bool in_section = row < kLayouts.size()
                                  ? kLayouts[row].section == section && kLayouts[row].headline == 0
                                  : section == S::Other;
      if (!in_section) continue;
      for (const Placed& p : placed)
        if (p.row == row) group.items.push_back(p.index);
    }
    if (group.items.empty()) continue;
    bool empty = true;
    for (std::size_t i : group.items)
      empty = empty && isEmptyValue(values[i]);
    if (empty && sectionOmittedWhenEmpty(section)) continue;
    groups.push_back(std::move(group));
  }
  return groups;
}

}  // namespace racktwin::report
