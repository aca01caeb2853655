#include "racktwin/scenarios/Twin.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "PeakDay.hpp"
#include "racktwin/core/Engine.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/FiniteCheck.hpp"
#include "racktwin/core/LimitMonitor.hpp"
#include "racktwin/core/StateArchive.hpp"
#include "racktwin/core/ThreadPool.hpp"
#include "racktwin/core/Version.hpp"
#include "racktwin/core/WorkloadExecutor.hpp"
#include "racktwin/power/ElectricalModel.hpp"
#include "racktwin/thermal/CoolingModel.hpp"
#include "racktwin/thermal/FacilityLoop.hpp"

namespace racktwin::scenarios {
namespace {

/// Facility energy from the models' figures: what the site drew (the power tree's input, or the
/// IT energy without a modelled tree, plus what its batteries and rack storage gave up) and the
/// cooling equipment. The summary's facility_energy_J, PUE and peak day all use it.
struct FacilityEnergy {
  double it = 0.0, supply = 0.0, cooling = 0.0;
  double total() const { return supply + cooling; }
};

std::optional<double> find(const core::Summary& summary, const char* key) {
  for (const core::SummaryItem& item : summary.items())
    if (item.key == key) return item.value;
  return std::nullopt;
}

FacilityEnergy facilityEnergyOf(const core::Summary& summary) {
  FacilityEnergy e;
  e.it = find(summary, "it_energy_J").value_or(0.0);
  e.supply = find(summary, "facility_electrical_energy_J").value_or(e.it)
             - find(summary, "electrical_storage_energy_change_J").value_or(0.0);
  e.cooling = find(summary, "cooling_energy_J").value_or(0.0);
  return e;
}

}  // namespace

struct Twin::Impl {
  Impl(core::SiteSpec spec, unsigned threads)
      : pool(threads),
        site(std::move(spec)),
        layout(core::SiteLayout::build(site)),
        workload(site, layout),
        electrical(site, layout),
        cooling(site, layout),
        engine(site.simulation, state),
        recorder(site.simulation.record_interval),
        peak_day(site.ambient) {
    const double T_initial = site.cdus.empty() ? site.facility.T_supply : site.cdus[0].T_supply_set;
    state.resize(layout, T_initial);
    engine.addFastModel(workload);
    engine.addFastModel(electrical);
    engine.addSlowModel(cooling);
    // Each coupling field has one writer, and what a model reads some model writes.
    core::checkCouplingOwnership(engine.models());
    for (core::Model* model : engine.models())
      model->useThreads(pool);
    engine.useThreads(pool.size() > 1 ? &pool : nullptr);
    for (const core::EventSpec& event : site.events)
      engine.schedule(event);
    for (core::Model* model : engine.models())
      model->declareChannels(recorder);
    recorder.addSink(finite_check);  // first: a non-finite row reaches no other sink
    recorder.addSink(limits);
    recorder.useThreads(pool.size() > 1 ? &pool : nullptr);
    engine.setRecorder(&recorder);
  }

  core::ThreadPool pool;  // first: the models' passes use it until they are destroyed
  core::SiteSpec site;
  core::SiteLayout layout;
  core::SiteState state;
  core::WorkloadExecutor workload;
  power::ElectricalModel electrical;
  thermal::CoolingModel cooling;
  core::Engine engine;
  core::Recorder recorder;
  core::FiniteCheckSink finite_check;
  detail::PeakDay peak_day;

  /// The facility energy so far, from the models' running totals (once a simulated day).
  double facilityEnergyNow() const {
    core::Summary so_far;
    for (const core::Model* model : engine.models())
      model->summarise(so_far);
    return facilityEnergyOf(so_far).total();
  }
  core::LimitMonitor limits{core::designLimits(site)};  // every rating, checked at each record
};

Twin::Twin(core::SiteSpec site, unsigned threads)
    : impl_(std::make_unique<Impl>(std::move(site), threads)) {}
Twin::~Twin() = default;

void Twin::addSink(core::RecorderSink& sink) {
  impl_->recorder.addSink(sink);
}

namespace {
core::RunMetadata metadataOf(const core::SiteSpec& site) {
  core::RunMetadata metadata;
  metadata.program_version = std::string(core::programVersion());
  metadata.site_name = site.name;
  metadata.scenario_path = site.scenario_path;
  metadata.scenario_text = site.scenario_text;
  metadata.seed = site.simulation.seed;
  metadata.step = site.simulation.step;
  metadata.substeps = site.simulation.substeps;
  metadata.record_interval = site.simulation.record_interval;
  metadata.duration = site.simulation.duration;
  metadata.input_warnings = site.input_warnings;
  return metadata;
}
}  // namespace

void Twin::initialize() {
  impl_->recorder.open(metadataOf(impl_->site));
  impl_->engine.initialize();
}

void Twin::resume(std::string_view state) {
  Impl& m = *impl_;
  m.recorder.open(metadataOf(m.site));
  core::StateArchive archive = core::StateArchive::restoring(state);
  archive.section("racktwin twin");
  m.engine.resume(archive);
  m.recorder.visitState(archive);
  m.peak_day.visitState(archive);
  m.limits.visitState(archive);
  archive.finish();
}

std::string Twin::saveState(std::string buffer) {
  Impl& m = *impl_;
  m.recorder.flush();
  core::StateArchive archive = core::StateArchive::saving(std::move(buffer));
  archive.section("racktwin twin");
  m.engine.saveState(archive);
  m.recorder.visitState(archive);
  m.peak_day.visitState(archive);
  m.limits.visitState(archive);
  return std::move(archive).take();
}

void Twin::schedule(core::EventSpec event) {
  event.time = std::max(event.time, impl_->engine.time());
  impl_->engine.schedule(event);
}

bool Twin::step() {
  Impl& m = *impl_;
  const double t0 = m.engine.time();
  if (!m.peak_day.reachesDayEnd(m.engine.nextStepEnd())) return m.engine.step();
  // A step that ends a day: the facility energy before and after it, for the peak day.
  const double E0 = m.facilityEnergyNow();
  const bool more = m.engine.step();
  m.peak_day.record(t0, E0, m.engine.time(), m.facilityEnergyNow());
  return more;
}

core::Summary Twin::finish(bool complete) {
  Impl& m = *impl_;
  m.engine.finalize();
  // The last, shorter record interval of a run ending between record times, before the summary:
  // the design limits see every record.
  if (complete) m.recorder.recordPending();
  core::Summary summary;
  // A rating exceeded is said first (docs/capacity.md).
  summary.add({"design_limits_violated", static_cast<double>(m.limits.violatedCount()),
               "Design limits exceeded (ratings, see the list below)", "", 1.0, 0.0});
  summary.add({"gpu_count", static_cast<double>(m.layout.gpu_count), "GPUs", "", 1.0, 0.0});
  summary.add({"simulated_time_s", m.engine.time(), "Simulated time", "s", 1.0, 0.0});
  if (m.site.simulation.fast_forward.enabled) {
    // How far the run fast-forwarded (docs/ARCHITECTURE.md, the engine's step rule).
    summary.add({"fast_forward_steps", static_cast<double>(m.engine.stepsTaken()),
                 "Fast-forward: macro steps taken", "", 1.0, 0.0});
    summary.add({"fast_forward_fine_steps", static_cast<double>(m.engine.fineStepsTaken()),
                 "Fast-forward: steps of one fine step", "", 1.0, 0.0});
    summary.add({"fast_forward_longest_step_s", m.engine.longestStep(),
                 "Fast-forward: longest step", "s", 1.0, 0.0});
  }
  for (const core::Model* model : m.engine.models())
    model->summarise(summary);
  // The weather year's figures: the plant hours of the facility loop, the peak day.
  thermal::FacilityLoop::summarise(m.cooling.facilityLoops(), summary);
  m.peak_day.summarise(summary);
  // The site's energy balance: the worse of the thermal and the electrical balance.
  summary.add({"energy_balance_relative_error",
               std::max(find(summary, "thermal_energy_balance_relative_error").value_or(0.0),
                        find(summary, "electrical_energy_balance_relative_error").value_or(0.0)),
               "Energy balance error (relative, worst of thermal and electrical)", "", 1.0, 0.0});
  // Facility energy: what the power tree draws (IT plus distribution losses above the racks;
  // IT alone without a modelled tree) plus the cooling equipment.
  const FacilityEnergy facility = facilityEnergyOf(summary);
  const double it = facility.it, supply = facility.supply, cooling = facility.cooling;
  summary.add({"facility_energy_J", supply + cooling,
               "Facility energy (power tree + storage drawn + cooling)", "kWh", 1.0 / 3.6e6, 0.0});
  // Energy conservation across the models: the site cannot draw less than its IT load uses.
  if (it > 0.0 && supply + cooling < it * (1.0 - 1e-9)) {
    throw core::RuntimeError("site energy audit failed: facility energy "
                             + std::to_string(supply + cooling) + " J is below the IT energy "
                             + std::to_string(it)
                             + " J (PUE below 1): an energy flow is not accounted for");
  }
  summary.add({"pue", it > 0.0 ? std::optional<double>((supply + cooling) / it) : std::nullopt,
               "PUE (power tree input + storage drawn + modelled cooling) / IT", "", 1.0, 0.0});
  // With an air-side plant: the PUE the site would show if the CRAH heat were free, as it is
  // without one (only the CRAH fans charged).
  if (const std::optional<double> plant = find(summary, "air_plant_energy_J")) {
    summary.add({"pue_without_air_side_plant",
                 it > 0.0 ? std::optional<double>((supply + cooling - *plant) / it) : std::nullopt,
                 "PUE without the air side's plant (CRAH heat free)", "", 1.0, 0.0});
  }
  // Water usage effectiveness (The Green Grid): site water in litres per kWh of IT energy; null
  // when the scenario models no facility plant (no water use is known).
  // Site water: the facility plant's towers and the air side's plant's.
  std::optional<double> water = find(summary, "water_use_m3");
  if (const std::optional<double> air = find(summary, "air_plant_water_use_m3"))
    water = water.value_or(0.0) + *air;
  summary.add(
      {"wue_L_per_kWh",
       water && it > 0.0 ? std::optional<double>(*water * 1e3 / (it / 3.6e6)) : std::nullopt,
       "WUE, make-up water per IT energy", "L/kWh", 1.0, 0.0});
  core::WorkloadExecutor::summariseWorkPerEnergy(summary);
  m.limits.summarise(summary);
  // Values of the scenario outside their engineering range (listed in the result's attributes).
  summary.add({"input_warnings", static_cast<double>(m.site.input_warnings.size()),
               "Input warnings (values outside their usual range)", "", 1.0, 0.0});
  // No summary figure is given from a non-finite result (a balance of 0 computed from NaN).
  for (const core::SummaryItem& item : summary.items()) {
    if (item.value && !std::isfinite(*item.value)) {
      throw core::RuntimeError("non-finite summary figure at t = " + std::to_string(m.engine.time())
                               + " s: " + item.key + " (" + item.label + ")");
    }
  }
  m.recorder.addTable(m.limits.limitTable());
  m.recorder.addTable(m.limits.headroomTable());
  m.recorder.close(complete, summary.toJson());
  return summary;
}

double Twin::time() const {
  return impl_->engine.time();
}
double Twin::duration() const {
  return impl_->engine.duration();
}
const core::SiteSpec& Twin::site() const noexcept {
  return impl_->site;
}
const core::SiteLayout& Twin::layout() const noexcept {
  return impl_->layout;
}
const core::SiteState& Twin::state() const noexcept {
  return impl_->state;
}
const thermal::CoolingModel& Twin::cooling() const noexcept {
  return impl_->cooling;
}
const core::Recorder& Twin::recorder() const noexcept {
  return impl_->recorder;
}
const core::LimitMonitor& Twin::limits() const noexcept {
  return impl_->limits;
}
std::vector<std::string> Twin::runWarnings() const {
  std::vector<std::string> lines;
  for (const core::Model* model : impl_->engine.models())
    model->runWarnings(lines);
  return lines;
}

void Twin::timeSteps() noexcept {
  impl_->engine.timeSteps();
}

std::vector<core::Engine::PartTime> Twin::stepTimes() const {
  return impl_->engine.stepTimes();
}

void Twin::watchCouplingWrites() noexcept {
  impl_->engine.watchCouplingWrites();
}

const std::vector<std::string>& Twin::undeclaredCouplingWrites() const noexcept {
  return impl_->engine.undeclaredWrites();
}

unsigned Twin::threads() const noexcept {
  return impl_->pool.size();
}

}  // namespace racktwin::scenarios
