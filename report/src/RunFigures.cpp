// The time-series sections of a run's report: faults and ride-through, temperatures, power, PUE
// and WUE, the spectrum of facility power, the electrical tree and the cooling loops.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "Html.hpp"
#include "RunContext.hpp"
#include "Series.hpp"
#include "SummaryDisplay.hpp"
#include "racktwin/power/Spectrum.hpp"

namespace racktwin::report {
namespace {

constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

std::string actionName(core::EventKind kind) {
  using K = core::EventKind;
  switch (kind) {
    case K::SetFacilitySupplyTemperature:
      return "set_facility_supply_temperature";
    case K::SetSupplySetpoint:
      return "set_supply_temperature_setpoint";
    case K::SetPumpSpeed:
      return "set_pump_speed";
    case K::PumpTrip:
      return "pump_trip";
    case K::CduLoss:
      return "cdu_loss";
    case K::ValveStuck:
      return "valve_stuck";
    case K::ClogColdPlate:
      return "clog_cold_plate";
    case K::FacilityPumpTrip:
      return "facility_pump_trip";
    case K::HeatRejectionFanLoss:
      return "heat_rejection_fan_loss";
    case K::FeedLoss:
      return "feed_loss";
    case K::FeedRestore:
      return "feed_restore";
    case K::UtilityOutage:
      return "utility_outage";
    case K::UtilityRestore:
      return "utility_restore";
    case K::SetPowerCap:
      return "set_power_cap";
    case K::PauseJob:
      return "pause_job";
    case K::ResumeJob:
      return "resume_job";
  }
  return "event";
}

/// An event's value as people read it; empty for actions without one.
std::string eventValue(const core::EventSpec& e, core::UnitSystem units) {
  using K = core::EventKind;
  switch (e.kind) {
    case K::SetFacilitySupplyTemperature:
    case K::SetSupplySetpoint: {
      const core::DisplayUnit u = core::displayUnitFor("K", units);
      return formatNumber(e.value * u.scale + u.offset) + " " + shownUnit(u.unit);
    }
    case K::SetPumpSpeed:
    case K::HeatRejectionFanLoss:
      return formatNumber(e.value * 100.0) + " %";
    case K::ClogColdPlate:
      return "dp x " + formatNumber(e.value);
    case K::SetPowerCap:
      return formatNumber(e.value) + " W per GPU";
    case K::FeedLoss:
    case K::FeedRestore:
      return e.value == 0.0 ? "feed A" : "feed B";
    default:
      return "";
  }
}

/// A temperature dataset's interval maxima when the file has them, else its samples.
std::optional<Matrix> peakTemperature(const ResultData& data, const std::string& path,
                                      std::string* used) {
  if (auto m = data.series(path + "_max")) {
    *used = path + "_max";
    return m;
  }
  *used = path;
  return data.series(path);
}

/// A vertical line and label at each event, for the time axis of a figure.
void markEvents(const RunContext& c, nlohmann::json& layout) {
  if (!c.site) return;
  nlohmann::json shapes = nlohmann::json::array(), notes = nlohmann::json::array();
  for (const core::EventSpec& e : c.site->events) {
    const double x = e.time * c.t_scale;
    shapes.push_back({{"type", "line"},
                      {"xref", "x"},
                      {"yref", "paper"},
                      {"x0", x},
                      {"x1", x},
                      {"y0", 0},
                      {"y1", 1},
                      {"line", {{"color", "#c0392b"}, {"dash", "dot"}}}});
    notes.push_back(
        {{"x", x},
         {"xref", "x"},
         {"yref", "paper"},
         {"y", 1.0},
         {"yanchor", "bottom"},
         {"text", sanitizeUtf8(actionName(e.kind) + (e.target.empty() ? "" : " " + e.target))},
         {"showarrow", false},
         {"font", {{"size", 10}, {"color", "#c0392b"}}}});
  }
  layout["shapes"] = shapes;
  layout["annotations"] = notes;
}

/// The layout of a figure over time: the time axis, a value axis titled "title (unit)", and the
/// scenario's events marked.
nlohmann::json timeLayout(const RunContext& c, const std::string& title, std::string_view unit,
                          bool from_zero = false) {
  nlohmann::json layout = {
      {"xaxis", c.timeAxis()},
      {"yaxis",
       {{"title", {{"text", title + (unit.empty() ? "" : " (" + shownUnit(unit) + ")")}}}}}};
  if (from_zero) layout["yaxis"]["rangemode"] = "tozero";
  markEvents(c, layout);
  return layout;
}

}  // namespace

void faultSection(Page& page, const RunContext& c) {
  const ResultData& data = c.data;
  page.section("faults", "Ride-through and faults");
  const std::vector<core::EventSpec> none;
  const std::vector<core::EventSpec>& events = c.site ? c.site->events : none;
  if (!c.site) page.paragraph("The stored scenario did not load here: " + c.site_problem, "note");
  const SummaryDisplay ride =
      displaySummaryItem("ride_through_s", data.summaryValue("ride_through_s"), c.units);
  if (events.empty()) {
    page.paragraph("The scenario schedules no events (no fault, no what-if).");
  } else {
    Table table({"time", "action", "target", "value"});
    for (const core::EventSpec& e : events) {
      table.row()
          .markup(Page::numberCell(e.time, e.time, "s"))
          .cell(actionName(e.kind))
          .cell(e.target.empty() ? "site" : e.target)
          .cell(eventValue(e, c.units));
    }
    page.append(table.html());
    page.paragraph("Ride-through (first fault to the first GPU throttle after it): "
                   + formatNumber(ride.shown)
                   + (ride.shown ? " " + ride.unit : " (no GPU throttled after a fault)"));
  }
  std::string used;
  const std::optional<Matrix> T = peakTemperature(data, "/gpu/T_junction", &used);
  const std::optional<Matrix> throttled = data.series("/gpu/throttled");
  const std::optional<Matrix> shutdown = data.series("/gpu/shutdown");
  if (!T) return;
  const std::vector<double> hottest = rowMax(*T);
  nlohmann::json traces = nlohmann::json::array();
  traces.push_back(
      c.line(hottest, unitFor(c, "K", hottest), "hottest GPU junction", used, "row_max"));
  nlohmann::json layout = timeLayout(c, "junction", unitFor(c, "K", hottest).unit);
  if (throttled) {
    const std::vector<double> count = rowSum(*throttled);
    nlohmann::json trace =
        c.line(count, {"GPUs", 1.0, 0.0}, "GPUs throttled", "/gpu/throttled", "row_sum");
    trace["yaxis"] = "y2";
    trace["line"] = {{"color", "#ff7f0e"}, {"shape", "hv"}};
    traces.push_back(trace);
    layout["yaxis2"] = {{"title", {{"text", "GPUs"}}},
                        {"overlaying", "y"},
                        {"side", "right"},
                        {"rangemode", "tozero"},
                        {"showgrid", false}};
  }
  if (shutdown) {
    const std::vector<double> count = rowSum(*shutdown);
    if (*std::max_element(count.begin(), count.end()) > 0) {
      nlohmann::json trace =
          c.line(count, {"GPUs", 1.0, 0.0}, "GPUs shut down", "/gpu/shutdown", "row_sum");
      trace["yaxis"] = "y2";
      trace["line"] = {{"color", "#c0392b"}, {"shape", "hv"}};
      traces.push_back(trace);
    }
  }
  page.figure(traces, layout,
              "The hottest GPU junction at each record (" + used
                  + ") and the GPUs in thermal slowdown; dotted lines mark the scenario's events.");
}

void temperatureSection(Page& page, const RunContext& c) {
  const ResultData& data = c.data;
  std::string used;
  const std::optional<Matrix> T = peakTemperature(data, "/gpu/T_junction", &used);
  if (!T || T->columns == 0) return;
  page.section("temperatures", "GPU temperatures");
  const core::DisplayUnit unit = unitFor(c, "K", rowMax(*T));
  nlohmann::json traces = nlohmann::json::array();
  const struct {
    double q;
    const char* name;
  } bands[] = {{0.0, "coolest GPU"},
               {0.05, "5th percentile"},
               {0.95, "95th percentile"},
               {0.5, "median"},
               {1.0, "hottest GPU"}};
  for (const auto& band : bands) {
    nlohmann::json trace = c.line(band.q == 0.0   ? rowMin(*T)
                                  : band.q == 1.0 ? rowMax(*T)
                                                  : rowQuantile(*T, band.q),
                                  unit, band.name, used,
                                  band.q == 0.0   ? "row_min"
                                  : band.q == 1.0 ? "row_max"
                                                  : "row_quantile");
    trace["meta"]["q"] = band.q;
    if (band.q == 0.95) trace["fill"] = "tonexty";
    trace["line"] = {{"color", band.q == 0.5   ? "#1f77b4"
                               : band.q == 1.0 ? "#d62728"
                                               : "#7aa6d6"},
                     {"width", band.q == 0.5 || band.q == 1.0 ? 2 : 1}};
    traces.push_back(trace);
  }
  const nlohmann::json layout = timeLayout(c, "junction", unit.unit);
  page.figure(traces, layout,
              "Distribution of the " + std::to_string(T->columns)
                  + " GPU junction temperatures over time (" + used
                  + "): coolest, 5th percentile, median, 95th percentile (shaded band from the "
                    "5th) and hottest.");

  // The hottest racks: each rack's hottest GPU over the run, the five highest named.
  const std::vector<std::string> ids = data.ids("gpu", T->columns);
  if (ids.empty()) return;
  std::vector<std::string> racks;
  std::map<std::string, std::size_t> rack_index;
  std::vector<std::size_t> group_of(ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const std::string rack = rackOf(ids[k]);
    auto [it, added] = rack_index.emplace(rack, racks.size());
    if (added) racks.push_back(rack);
    group_of[k] = it->second;
  }
  const std::vector<std::vector<double>> per_rack = groupRowMax(*T, group_of, racks.size());
  std::vector<std::size_t> order(racks.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> peak(racks.size());
  std::vector<double> peak_time(racks.size());
  for (std::size_t r = 0; r < racks.size(); ++r) {
    const auto at = std::max_element(per_rack[r].begin(), per_rack[r].end());
    peak[r] = *at;
    peak_time[r] = data.time()[static_cast<std::size_t>(at - per_rack[r].begin())];
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return peak[a] > peak[b]; });
  const std::size_t shown = std::min<std::size_t>(5, order.size());
  page.subsection("Hottest racks");
  Table table({"rack", "hottest GPU junction", "at"});
  nlohmann::json lines = nlohmann::json::array();
  for (std::size_t i = 0; i < shown; ++i) {
    const std::size_t r = order[i];
    table.row()
        .cell(racks[r])
        .markup(Page::numberCell(peak[r], peak[r] * unit.scale + unit.offset, unit.unit))
        .markup(Page::numberCell(peak_time[r], peak_time[r], "s"));
    nlohmann::json trace = c.line(per_rack[r], unit, racks[r], used, "group_max");
    trace["meta"]["group"] = sanitizeUtf8(racks[r]);
    trace["line"] = {{"color", kColours[i % 10]}};
    lines.push_back(trace);
  }
  page.append(table.html());
  if (racks.size() > 1) {
    page.figure(lines, timeLayout(c, "junction", unit.unit),
                "The hottest GPU of each of the " + std::to_string(shown) + " hottest racks (of "
                    + std::to_string(racks.size()) + ").");
  }
}

namespace {

/// Electrical power of the cooling equipment at each record: CDU pumps, plant pumps, fans, chiller,
/// and the CRAH fans (their power is a fraction of the heat they remove, from the scenario's room).
struct CoolingPower {
  std::vector<double> total;
  std::vector<std::string> parts;
  bool complete = true;  // false when the CRAH fans could not be counted
};

CoolingPower coolingPower(const RunContext& c) {
  CoolingPower out;
  out.total.assign(c.data.time().size(), 0.0);
  // Every recorded electrical power of cooling equipment: pumps, fans and chillers of the CDUs,
  // the facility plant, the air side's plant and the rack exchangers (rear doors). A rack's own
  // fan_P is its servers' fans, which are IT power.
  static constexpr std::string_view kNames[] = {"pump_P",     "fan_P",     "chiller_P",
                                                "chw_pump_P", "cw_pump_P", "tower_fan_P"};
  for (const core::DatasetInfo& d : c.data.info().datasets) {
    const std::size_t slash = d.path.rfind('/');
    if (slash == 0 || slash == std::string::npos || d.units != "W") continue;
    const std::string group = d.path.substr(1, slash - 1), name = d.path.substr(slash + 1);
    if (group == "rack" || group.find('/') != std::string::npos) continue;
    if (std::find(std::begin(kNames), std::end(kNames), name) == std::end(kNames)) continue;
    const std::optional<Matrix> m = c.data.series(d.path);
    if (!m) continue;
    const std::vector<double> sum = rowSum(*m);
    for (std::size_t k = 0; k < sum.size(); ++k)
      out.total[k] += sum[k];
    out.parts.push_back(d.path);
  }
  const std::optional<Matrix> crah = c.data.series("/room/Q_flow_crah");
  if (crah && c.site) {
    const double fraction = c.site->room.crah_fan_power_fraction;
    for (std::size_t k = 0; k < crah->rows; ++k)
      out.total[k] += fraction * crah->values[k];
    out.parts.push_back("CRAH fans (" + formatNumber(fraction * 100.0)
                        + " % of /room/Q_flow_crah)");
  } else if (crah) {
    out.complete = false;
  }
  return out;
}

/// Energy the site drew from storage at each record (W): UPS battery discharge and the racks'
/// smoothing storage giving up energy.
std::vector<double> storageDrawn(const ResultData& data) {
  std::vector<double> drawn(data.time().size(), 0.0);
  if (const auto battery = data.series("/ups/P_battery")) {
    const std::vector<double> sum = rowSum(*battery);
    for (std::size_t k = 0; k < sum.size(); ++k)
      drawn[k] += sum[k];
  }
  if (const auto stored = data.series("/rack/E_storage")) {
    const std::vector<double> sum = rowSum(*stored);
    for (std::size_t k = 1; k < sum.size(); ++k) {
      const double dt = data.time()[k] - data.time()[k - 1];
      if (dt > 0.0) drawn[k] -= (sum[k] - sum[k - 1]) / dt;
    }
  }
  return drawn;
}

}  // namespace

void powerSection(Page& page, const RunContext& c) {
  const ResultData& data = c.data;
  const std::optional<Matrix> it = data.series("/site/P_it");
  if (!it) return;
  page.section("power", "Facility, IT and cooling power; PUE and WUE");
  const std::optional<Matrix> facility = data.series("/site/P_facility");
  const CoolingPower cooling = coolingPower(c);
  const core::DisplayUnit unit = unitFor(c, "W", facility ? facility->values : it->values);
  nlohmann::json traces = nlohmann::json::array();
  if (facility)
    traces.push_back(c.line(facility->values, unit, "facility (power tree input)",
                            "/site/P_facility", "column"));
  traces.push_back(c.line(it->values, unit, "IT (power shelf AC input)", "/site/P_it", "column"));
  nlohmann::json cool = c.line(cooling.total, unit, "cooling equipment", "cooling", "sum");
  traces.push_back(cool);
  const nlohmann::json layout = timeLayout(c, "power", unit.unit, true);
  std::string parts;
  for (const std::string& p : cooling.parts)
    parts += (parts.empty() ? "" : ", ") + p;
  page.figure(
      traces, layout,
      "Means over each record interval. Cooling equipment: "
          + (parts.empty() ? std::string("none recorded") : parts)
          + (facility ? "."
                      : "; without a power tree the facility's electrical input is the IT power."));

  const double E_it = integrateMeans(data.time(), it->values);
  const double E_cooling = integrateMeans(data.time(), cooling.total);
  // PUE and WUE over time, as the summary defines them: (tree input + storage drawn + cooling) /
  // IT.
  const std::vector<double> drawn = storageDrawn(data);
  std::vector<double> pue(it->rows, std::nan(""));
  double numerator = 0.0;
  for (std::size_t k = 1; k < it->rows; ++k) {
    const double supply = (facility ? facility->values[k] : it->values[k]) + drawn[k];
    if (it->values[k] > 0.0) pue[k] = (supply + cooling.total[k]) / it->values[k];
    numerator += (supply + cooling.total[k]) * (data.time()[k] - data.time()[k - 1]);
  }
  pue[0] = pue.size() > 1 ? pue[1] : pue[0];  // the initial state has no interval
  nlohmann::json pue_trace = c.line(pue, {"", 1.0, 0.0}, "PUE", "pue", "pue");
  nlohmann::json pue_traces = nlohmann::json::array({pue_trace});
  nlohmann::json pue_layout = timeLayout(c, "PUE", "");
  const std::optional<Matrix> water = data.series("/facility/V_flow_water_use");
  if (water) {
    const std::vector<double> used = rowSum(*water);  // every facility loop's make-up water
    std::vector<double> wue(it->rows, std::nan(""));
    for (std::size_t k = 0; k < it->rows; ++k)
      if (it->values[k] > 0.0) wue[k] = used[k] * 1e3 / (it->values[k] / 3.6e6);  // L/kWh
    const bool us = c.units == core::UnitSystem::US;
    const core::DisplayUnit wue_unit =
        us ? core::DisplayUnit{"gal/kWh", 1e-3 / core::kUsGallon_m3, 0.0}
           : core::DisplayUnit{"L/kWh", 1.0, 0.0};
    nlohmann::json trace = c.line(wue, wue_unit, "WUE", "/facility/V_flow_water_use", "wue");
    trace["yaxis"] = "y2";
    pue_traces.push_back(trace);
    pue_layout["yaxis2"] = {{"title", {{"text", "WUE (" + shownUnit(wue_unit.unit) + ")"}}},
                            {"overlaying", "y"},
                            {"side", "right"},
                            {"showgrid", false}};
  }
  const double pue_run = E_it > 0.0 ? numerator / E_it : std::nan("");

  // The records integrated against the summary (the models' own books): they agree when the
  // records hold every flow the summary counts.
  Table table({"", "from the records", "in the summary"}, "records-vs-summary");
  std::vector<std::string> disagree;
  const auto row = [&](std::string_view label, double records, const char* key) {
    const std::optional<double> value = data.summaryValue(key);
    const SummaryDisplay d = displaySummaryItem(key, value, c.units);
    const double scale = d.shown && value && *value != 0.0 ? *d.shown / *value : 1.0;
    const bool agree = value && std::abs(records - *value) <= 1e-6 * std::abs(*value);
    if (!agree) disagree.emplace_back(label);
    table.row(agree ? "" : "warn")
        .cell(label)
        .markup(Page::numberCell(records, records * scale, d.unit))
        .markup(Page::numberCell(value, d.shown, d.unit, key));
  };
  row("IT energy", E_it, "it_energy_J");
  if (cooling.complete) row("Cooling electrical energy", E_cooling, "cooling_energy_J");
  if (cooling.complete) row("PUE", pue_run, "pue");
  page.append(table.html());
  if (!disagree.empty()) {
    std::string list;
    for (const std::string& label : disagree)
      list += (list.empty() ? "" : ", ") + label;
    page.append("<p class=\"note\" id=\"records-disagree\">The records do not integrate to the "
                "summary's figures (more than 1e-6 apart): " + escapeHtml(list)
                + ". The summary is the models' own account; the records either miss a flow it "
                  "counts or are not means over their interval (macro step "
                + escapeHtml(data.attribute("step_s")) + " s).</p>\n");
  }
  page.figure(
      pue_traces, pue_layout,
      "PUE of each record interval: (power tree input + storage drawn + cooling) / IT"
          + std::string(
              water ? "; WUE: make-up water per IT energy."
                    : "; no facility plant is modelled, so no water use is known (WUE n/a)."));
}

void spectrumSection(Page& page, const RunContext& c) {
  const ResultData& data = c.data;
  std::string source = "/site/P_facility";
  std::optional<Matrix> P = data.series(source);
  if (!P) P = data.series(source = "/site/P_it");
  if (!P || P->rows < 16) return;
  page.section("spectrum", "Spectrum of facility power");
  // Uniform records only: the last record may close a shorter interval.
  std::size_t n = P->rows;
  const double dt = data.time()[1] - data.time()[0];
  while (n > 2 && std::abs((data.time()[n - 1] - data.time()[n - 2]) - dt) > 1e-9 * dt)
    --n;
  const std::vector<double> series(P->values.begin() + 1,
                                   P->values.begin() + static_cast<std::ptrdiff_t>(n));
  const power::AmplitudeSpectrum s = power::amplitudeSpectrum(series, dt);
  if (s.frequency.empty()) return;
  const core::DisplayUnit unit = unitFor(c, "W", s.amplitude);
  std::vector<double> amplitude(s.amplitude.size());
  for (std::size_t k = 0; k < amplitude.size(); ++k)
    amplitude[k] = s.amplitude[k] * unit.scale;
  const Line l = decimate(s.frequency, amplitude, 4000);
  nlohmann::json trace = {
      {"type", "scatter"},
      {"mode", "lines"},
      {"name", "amplitude"},
      {"x", l.x},
      {"y", l.y},
      {"meta", {{"source", source}, {"reduction", "spectrum"}, {"scale", unit.scale}}}};
  nlohmann::json layout = {
      {"xaxis", {{"title", {{"text", "frequency (Hz)"}}}, {"type", "log"}}},
      {"yaxis",
       {{"title", {{"text", "amplitude (" + shownUnit(unit.unit) + ")"}}}, {"type", "log"}}}};
  const std::optional<double> f = data.summaryValue("facility_power_dominant_frequency_Hz");
  page.figure(nlohmann::json::array({trace}), layout,
              "Amplitude spectrum of " + source + " as recorded (means over " + formatNumber(dt)
                  + " s records, Hann window; up to the records' Nyquist frequency "
                  + formatNumber(0.5 / dt) + " Hz). The summary's dominant oscillation, "
                  + formatNumber(f) + " Hz, comes from the model's own sub-step series, which also "
                  "sees what the record means smooth out.");
}

void electricalSection(Page& page, const RunContext& c) {
  const ResultData& data = c.data;
  const std::optional<Matrix> utilisation = data.series("/power_tree/utilisation");
  const std::optional<Matrix> feed_a = data.series("/rack/feed_a_utilisation");
  const std::optional<Matrix> rack_power = data.series("/rack/P_ac");
  if (!utilisation && !feed_a && !rack_power) return;
  page.section("electrical", "Electrical loading");
  if (utilisation) {
    const std::vector<std::string> ids = data.ids("power_tree", utilisation->columns);
    const std::vector<double> peak = columnMax(*utilisation, 1);
    std::vector<std::size_t> order(peak.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return peak[a] > peak[b]; });
    // A bar a row of 18 px is readable: a site's hundreds of elements (353 on the 100k site)
    // show their 40 most loaded, and the caption counts the rest.
    constexpr std::size_t kBarsShown = 40;
    const std::size_t shown = std::min(order.size(), kBarsShown);
    std::vector<std::string> names;
    std::vector<double> values;
    std::vector<std::string> colours;
    for (std::size_t j = 0; j < shown; ++j) {
      const std::size_t k = order[j];
      names.push_back(sanitizeUtf8(ids.empty() ? "element " + std::to_string(k + 1) : ids[k]));
      values.push_back(peak[k] * 100.0);
      colours.push_back(peak[k] > 1.0 ? "#c0392b" : peak[k] > 0.8 ? "#e0a100" : "#2e8540");
    }
    const int height = static_cast<int>(std::clamp<std::size_t>(names.size() * 18 + 80, 240, 1400));
    page.figure(nlohmann::json::array({{{"type", "bar"},
                                        {"orientation", "h"},
                                        {"name", "peak utilisation"},
                                        {"y", names},
                                        {"x", values},
                                        {"marker", {{"color", colours}}},
                                        {"meta",
                                         {{"source", "/power_tree/utilisation"},
                                          {"reduction", "column_max"},
                                          {"scale", 100.0}}}}}),
                {{"xaxis", {{"title", {{"text", "peak current / rating (%), record means"}}}}},
                 {"yaxis", {{"autorange", "reversed"}, {"automargin", true}}},
                 {"margin", {{"l", 160}, {"r", 30}, {"t", 20}, {"b", 50}}}},
                (shown < order.size() ? "The " + std::to_string(shown) + " most loaded of the "
                                            + std::to_string(order.size())
                                            + " elements of the power tree"
                                      : std::string("Each element of the power tree"))
                    + " at its highest record (after t = 0): amber above 80 %, red above its "
                      "rating."
                    + (shown < order.size()
                           ? " The others peaked at " + formatNumber(peak[order[shown]] * 100.0)
                                 + " % or less."
                           : std::string()),
                height);
  } else {
    page.paragraph(
        "No power tree is modelled in this scenario (electrical section of the scenario).", "note");
  }
  if (rack_power) {
    const std::vector<std::string> ids = data.ids("rack", rack_power->columns);
    const std::vector<double> peak = columnMax(*rack_power, 1);
    const core::DisplayUnit unit = unitFor(c, "W", peak);
    Table table({"rack", "peak AC input", "peak feed A utilisation"});
    const std::vector<double> a_peak = feed_a ? columnMax(*feed_a, 1) : std::vector<double>();
    std::vector<std::size_t> order(peak.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return peak[x] > peak[y]; });
    for (std::size_t i = 0; i < std::min<std::size_t>(order.size(), 10); ++i) {
      const std::size_t k = order[i];
      table.row()
          .cell(ids.empty() ? "rack " + std::to_string(k + 1) : ids[k])
          .markup(Page::numberCell(peak[k], peak[k] * unit.scale, unit.unit))
          .markup(Page::numberCell(
              a_peak.empty() ? std::nullopt : std::optional<double>(a_peak[k]),
              a_peak.empty() ? std::nullopt : std::optional<double>(a_peak[k] * 100.0), "%"));
    }
    page.subsection("Racks by peak power (the ten highest)");
    page.append(table.html());
  }
}

void coolingSection(Page& page, const RunContext& c) {
  const ResultData& data = c.data;
  const std::optional<Matrix> supply = data.series("/cdu/T_supply");
  const std::optional<Matrix> ret = data.series("/cdu/T_return");
  const std::optional<Matrix> heat = data.series("/cdu/Q_flow");
  if (!supply || !ret) return;
  page.section("cooling", "Coolant distribution units");
  const std::vector<std::string> ids = data.ids("cdu", supply->columns);
  const core::DisplayUnit unit = unitFor(c, "K", supply->values);
  nlohmann::json traces = nlohmann::json::array();
  // Eight CDUs at most; of a site's hundreds, those whose return ran hottest (the hottest first,
  // ties in site order), not the first eight by id.
  constexpr std::size_t kShown = 8;
  const std::size_t shown = std::min<std::size_t>(supply->columns, kShown);
  std::vector<std::size_t> columns(supply->columns);
  for (std::size_t k = 0; k < columns.size(); ++k)
    columns[k] = k;
  const bool hottest = supply->columns > kShown;
  if (hottest) {
    std::vector<double> peak(ret->columns, -std::numeric_limits<double>::infinity());
    for (std::size_t i = 0; i < ret->rows; ++i)
      for (std::size_t k = 0; k < ret->columns; ++k)
        if (ret->at(i, k) > peak[k]) peak[k] = ret->at(i, k);  // NaN never counts
    std::stable_sort(columns.begin(), columns.end(),
                     [&](std::size_t a, std::size_t b) { return peak[a] > peak[b]; });
  }
  for (std::size_t j = 0; j < shown; ++j) {
    const std::size_t k = columns[j];
    const std::string name = ids.empty() ? "CDU " + std::to_string(k + 1) : ids[k];
    std::vector<double> s(supply->rows), r(ret->rows);
    for (std::size_t i = 0; i < supply->rows; ++i) {
      s[i] = supply->at(i, k);
      r[i] = ret->at(i, k);
    }
    nlohmann::json a = c.line(s, unit, name + " supply", "/cdu/T_supply", "column");
    a["meta"]["column"] = k;
    a["line"] = {{"color", kColours[j % 10]}};
    nlohmann::json b = c.line(r, unit, name + " return", "/cdu/T_return", "column");
    b["meta"]["column"] = k;
    b["line"] = {{"color", kColours[j % 10]}, {"dash", "dash"}};
    traces.push_back(a);
    traces.push_back(b);
  }
  const nlohmann::json layout = timeLayout(c, "secondary coolant", unit.unit);
  page.figure(traces, layout,
              "Secondary supply (solid) and return (dashed) temperature of "
                  + (hottest ? "the " + std::to_string(shown)
                                   + " CDUs whose return ran hottest (the hottest first), of "
                             : std::string())
                  + std::to_string(supply->columns) + " CDU(s).");
  if (!heat) return;
  const std::vector<double> total = rowSum(*heat);
  const core::DisplayUnit heat_unit = unitFor(c, "W", total, true);
  nlohmann::json h =
      nlohmann::json::array({c.line(total, heat_unit, "all CDUs", "/cdu/Q_flow", "row_sum")});
  const nlohmann::json heat_layout = timeLayout(c, "heat to facility water", heat_unit.unit, true);
  page.figure(h, heat_layout,
              "Heat the CDUs move from the secondary loops to facility water (record means).", 300);
}

}  // namespace racktwin::report
