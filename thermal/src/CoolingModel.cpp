#include "racktwin/thermal/CoolingModel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "CoolingModelImpl.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/FastSum.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::thermal {

using cooling::CduUnit;
using cooling::ChipThermal;
using cooling::CoolantLoop;

void CoolingModel::Impl::recordDesignPoint() {
  // Facility engineers' questions at the design point: where the pumps run, how evenly the cold
  // plates are fed, and how much differential pressure the least favoured rack sees.
  design = DesignPoint{};
  for (const CduUnit& unit : units) {
    design.pump_V_flow += unit.V_secondary;
    design.pump_dp = std::max(design.pump_dp, unit.pump_dp);
    design.pump_P += unit.pump_P_electric;
  }
  double sum = 0.0;
  // The chips on cold plates (air-cooled dies come after them).
  const std::span<const ChipThermal::Die> dies(chips.dies.data(), chips.air_begin);
  design.plate_V_min = dies.empty() ? 0.0 : 1e300;
  for (const ChipThermal::Die& die : dies) {
    const double V = std::abs(loops[die.loop].solver->V_flow()[die.link]);
    design.plate_V_min = std::min(design.plate_V_min, V);
    design.plate_V_max = std::max(design.plate_V_max, V);
    sum += V;
    if (V < die.spec->cold_plate.V_flow_min) design.plates_below_minimum += 1.0;
  }
  design.plate_V_mean = dies.empty() ? 0.0 : sum / static_cast<double>(dies.size());
  design.rack_dp_min = rack_dp_available.empty() ? 0.0 : 1e300;
  for (double dp : rack_dp_available)
    design.rack_dp_min = std::min(design.rack_dp_min, dp);

  // The operating point against the system curve, for the CDU with the highest head: the system
  // curve is traced by the solver itself at 90 % of the pump speed (a single-CDU loop's system
  // does not depend on its pump), n = ln(dp1/dp2) / ln(V1/V2); then the design solve is restored.
  const CduUnit* critical = nullptr;
  for (const CduUnit& unit : units)
    if (unit.pumps_running > 0 && (critical == nullptr || unit.pump_dp > critical->pump_dp))
      critical = &unit;
  if (critical != nullptr) {
    CduUnit& unit = units[static_cast<std::size_t>(critical - units.data())];
    const core::PumpSpec& pump = unit.cdu->pump;
    design.pump_flow_fraction =
        unit.V_secondary / (unit.pumps_running * unit.pump_speed * pump.V_flow_max);
    CoolantLoop& loop = loops[unit.loop];
    if (loop.units.size() == 1 && unit.V_secondary > 0.0) {
      const double V1 = unit.V_secondary, dp1 = unit.pump_dp, speed = unit.pump_speed;
      unit.pump_speed = 0.9 * speed;
      solveHydraulics(loop);
      const double V2 = unit.V_secondary, dp2 = unit.pump_dp;
      unit.pump_speed = speed;
      solveHydraulics(loop);
      if (V2 > 0.0 && V2 < V1)
        design.system_curve_exponent = std::log(dp1 / dp2) / std::log(V1 / V2);
    }
  }
}

double CoolingModel::Impl::stored() const {
  double E = 0.0;
  for (std::size_t c = 0; c < cells.C.size(); ++c) {
    E += cells.C[c] * (cells.T[c] - core::kZeroCelsius_K);
  }
  chips.addStored(E);
  room.addStored(E);
  for (const auto& f : facilities)
    E += f->storedEnergy();
  return E;
}

double CoolingModel::Impl::storedAfterSweep() const {
  double E = 0.0;
  for (const CoolantLoop& loop : loops)
    E += loop.E_stored;
  chips.addAirStored(E);
  room.addStored(E);
  for (const auto& f : facilities)
    E += f->storedEnergy();
  return E;
}

void CoolingModel::Impl::updateInlets() {
  const double T_sa = room.spec.T_supply_air;
  const double recirculation = room.spec.recirculation;
  for (double& T : rack_T_inlet)
    T = T_sa + recirculation * (room.T - T_sa);
}

void CoolingModel::Impl::controlServerFans(core::SiteState& state, double dt) {
  updateInlets();
  const core::SiteLayout& L = *layout;
  for (const std::uint32_t r : air_racks) {
    const core::RackTypeSpec& type = site_spec->racks[r].type;
    const core::RackTypeSpec::ServerFans& f = type.fans;
    // The servers' GPU load over the step, as a fraction of their limits.
    double P = 0.0, P_max = 0.0;
    for (std::uint32_t g = L.rack_gpu_begin[r]; g < L.rack_gpu_begin[r + 1]; ++g) {
      P += state.gpu_E_step[g] / dt;
      P_max += type.gpu.P_max;
    }
    const double u = P_max > 0.0 ? P / P_max : 0.0;
    const double T_in = rack_T_inlet[r];
    const double speed =
        std::clamp(f.speed_idle + f.speed_per_load * u + f.speed_per_K * (T_in - f.T_reference),
                   f.speed_min, 1.0);
    rack_fan_speed[r] = speed;
    // Heat-sink film conductance ~ air flow^0.8: once a step, not per die and cycle.
    rack_air_film[r] = std::pow(std::max(speed, 1e-3), 0.8);
    rack_fan_P[r] = type.compute_trays * f.P_max * speed * speed * speed;
    state.rack_fan_P[r] = rack_fan_P[r];
    E_server_fans += rack_fan_P[r] * dt;
    // Inlet outside the rack type's ASHRAE allowable class.
    if (T_in < type.T_inlet_allowed_min || T_in > type.T_inlet_allowed_max)
      rack_out_of_class_s[r] += dt;
    T_inlet_max = std::max(T_inlet_max, T_in);
  }
}

void CoolingModel::Impl::collectMeanViews() {
  mean_views.clear();
  for (std::vector<double>* v :
       {&cdu_V_flow, &cdu_Q_flow, &cdu_V_facility, &cdu_pump_P, &cdu_pump_P_hydraulic, &cdu_fan_P,
        &rack_V_flow, &tray_V_flow, &chips.gpu_V_flow})
    for (double& x : *v)
      mean_views.push_back(&x);
  mean_views.push_back(&room.Q_crah);
  for (std::vector<double>* v : {&fac_V_flow, &fac_pump_speed})
    for (double& x : *v)
      mean_views.push_back(&x);
  rack_exchangers.meanViews(mean_views);
  attached.meanViews(mean_views);
  if (air_plant) air_plant->meanViews(mean_views);
  mean_sums.assign(mean_views.size(), 0.0);
}

void CoolingModel::Impl::publishUnits() {
  for (std::size_t c = 0; c < units.size(); ++c) {
    const CduUnit& unit = units[c];
    cdu_V_flow[c] = unit.V_secondary;
    cdu_Q_flow[c] = unit.Q_hx;
    cdu_V_facility[c] = unit.V_facility;
    cdu_pump_P[c] = unit.pump_P_electric;
    cdu_pump_P_hydraulic[c] = unit.pump_P_hydraulic;
    cdu_fan_P[c] = unit.fan_P;
  }
  std::size_t tray = 0;
  for (const CoolantLoop& loop : loops) {
    const std::span<const double> V = loop.solver->V_flow();
    for (std::size_t k = 0; k < loop.tray_links.size(); ++k, ++tray)
      tray_V_flow[tray] = V[loop.tray_links[k]];
  }
  if (!attached.empty()) attached.publish(loops);
  for (std::size_t i = 0; i < facilities.size(); ++i) {
    fac_V_flow[i] = facilities[i]->plantFlow();
    fac_pump_speed[i] = facilities[i]->pumpSpeed();
  }
}

void CoolingModel::Impl::publishTrays(std::size_t l) {
  const CoolantLoop& loop = loops[l];
  const std::size_t tray0 = loop_tray_begin[l];
  const std::size_t n_trays = loop.tray_links.size();
  for (std::size_t k = 0; k < n_trays; ++k)
    tray_T_out[tray0 + k] = cells.T[loop.tray_out_cell[k]];
  // The flows change only with a hydraulic solve; reading them from the solver every step
  // missed the caches once a tray.
  if (tray_V_version[l] == loop.version) return;
  tray_V_version[l] = loop.version;
  const std::span<const double> V = loop.solver->V_flow();
  for (std::size_t k = 0; k < n_trays; ++k)
    tray_V_flow[tray0 + k] = V[loop.tray_links[k]];
}

void CoolingModel::Impl::publish(core::SiteState& state, double dt, bool all) {
  chips.publish(state, now, dt, all);
  if (!attached.empty()) attached.publish(loops);
  // The trays' views: written by each loop's sweep task (cycle), which is the last to change
  // its flows and cells in a step.
  if (all) {
    std::fill(tray_V_version.begin(), tray_V_version.end(), ~std::uint64_t{0});
    forEachLoop([&](std::size_t l) { publishTrays(l); });
  }
  for (std::size_t c = 0; c < units.size(); ++c) {
    const CduUnit& unit = units[c];
    cdu_T_supply[c] = unit.T_supply;
    cdu_T_return[c] = unit.T_return;
    cdu_V_flow[c] = unit.V_secondary;
    cdu_Q_flow[c] = unit.Q_hx;
    cdu_valve[c] = unit.valve_opening;
    cdu_V_facility[c] = unit.V_facility;
    cdu_T_facility_return[c] = unit.T_facility_return;
    cdu_T_facility_supply[c] = unit.T_facility_supply;
    cdu_pump_dp[c] = unit.pump_dp;
    cdu_pump_P[c] = unit.pump_P_electric;
    cdu_pump_P_hydraulic[c] = unit.pump_P_hydraulic;
    cdu_pumps_running[c] = unit.pumps_running;
    cdu_fan_P[c] = unit.fan_P;
  }
  for (std::size_t c = 0; c < units.size(); ++c) {
    const FacilityLoop* f = units[c].plantOf(facilities);
    if (f == nullptr) continue;
    const auto k = static_cast<std::size_t>(units[c].facility_index);
    cdu_T_facility_return[c] = f->cduReturnTemperature(k);
    cdu_T_facility_supply[c] = f->cduSupplyTemperature(k);
  }
  for (std::size_t i = 0; i < facilities.size(); ++i) {
    const FacilityLoop& f = *facilities[i];
    fac_T_supply[i] = f.supplyTemperature();
    fac_T_return[i] = f.returnTemperature();
    fac_V_flow[i] = f.plantFlow();
    fac_pump_P[i] = f.pumpElectricPower();
    fac_pump_speed[i] = f.pumpSpeed();
    fac_dp_remote[i] = f.remoteDifferentialPressure();
    fac_fan_P[i] = f.fanPower();
    fac_Q_rejected[i] = f.heatRejected();
    fac_chiller_Q[i] = f.chillerHeat();
    fac_chiller_P[i] = f.chillerElectricPower();
    fac_water_use[i] = f.waterUseRate();
  }
  if (!facilities.empty()) {
    // One ambient for every plant.
    fac_T_dry_bulb = facilities.front()->ambientDryBulb();
    fac_T_wet_bulb = facilities.front()->ambientWetBulb();
  }
}

// ------------------------------------------------------------------------------------------------

CoolingModel::CoolingModel(const core::SiteSpec& site, const core::SiteLayout& layout)
    : impl_(std::make_unique<Impl>()) {
  impl_->build(site, layout);
  impl_->checkPartitions();
  impl_->loop_audits.assign(impl_->loops.size(), cooling::EnergyAudit{});
  impl_->loop_solves.assign(impl_->loops.size(), 0);
  impl_->loop_tray_begin.assign(impl_->loops.size(), 0);
  impl_->tray_V_version.assign(impl_->loops.size(), ~std::uint64_t{0});
  impl_->loop_units_in_site_order.resize(impl_->loops.size());
  for (std::size_t l = 0; l < impl_->loops.size(); ++l) {
    std::vector<std::uint32_t>& order = impl_->loop_units_in_site_order[l];
    order = impl_->loops[l].units;
    std::sort(order.begin(), order.end());
  }
  for (std::size_t l = 1; l < impl_->loops.size(); ++l)
    impl_->loop_tray_begin[l] =
        impl_->loop_tray_begin[l - 1] + impl_->loops[l - 1].tray_links.size();
  impl_->loop_iterations_max.assign(impl_->loops.size(), 0);
}

void CoolingModel::useThreads(core::ThreadPool& pool) {
  impl_->pool = pool.size() > 1 && impl_->loops.size() > 1 ? &pool : nullptr;
  impl_->chips.useThreads(pool.size() > 1 ? &pool : nullptr);
}

void CoolingModel::Impl::mergeLoopRecords() {
  for (std::size_t l = 0; l < loops.size(); ++l) {
    audit.merge(loop_audits[l]);
    loop_audits[l] = cooling::EnergyAudit{};
    hydraulic_solves += loop_solves[l];
    hydraulic_iterations_max = std::max(hydraulic_iterations_max, loop_iterations_max[l]);
    loop_solves[l] = loop_iterations_max[l] = 0;
  }
}

void CoolingModel::Impl::checkPartitions() const {
  // Every cell, die, heat coupling and CDU a loop writes while the loops run side by side (its
  // sweep, its exchangers, its audit) must belong to that loop alone.
  constexpr std::uint32_t kFree = ~std::uint32_t{0};
  std::vector<std::uint32_t> cell_owner(cells.C.size(), kFree), die_owner(chips.dies.size(), kFree),
      coupling_owner(couplings.size(), kFree), unit_owner(units.size(), kFree),
      rack_owner(rack_V_flow.size(), kFree);
  const auto claim = [](std::vector<std::uint32_t>& owner, std::size_t k, std::uint32_t l,
                        const char* what, const CoolantLoop& loop) {
    if (k < owner.size() && (owner[k] == kFree || owner[k] == l)) {
      owner[k] = l;
      return;
    }
    throw core::RuntimeError(
        "cooling model: the coolant loop of " + loop.name + " writes " + what + " "
        + std::to_string(k)
        + (k < owner.size() ? ", which another loop writes" : ", which does not exist")
        + ": the loops cannot run side by side");
  };
  for (std::uint32_t l = 0; l < loops.size(); ++l) {
    const CoolantLoop& loop = loops[l];
    for (std::uint32_t c = loop.cell_begin; c < loop.cell_end; ++c)
      claim(cell_owner, c, l, "cell", loop);
    for (std::uint32_t d = loop.die_begin; d < loop.die_end; ++d)
      claim(die_owner, d, l, "die", loop);
    for (const cooling::Link& link : loop.links) {
      for (std::uint32_t c = link.cell_begin; c < link.cell_end; ++c)
        claim(cell_owner, c, l, "cell", loop);
      if (link.coupling >= 0)
        claim(coupling_owner, static_cast<std::size_t>(link.coupling), l, "heat coupling", loop);
    }
    for (const std::uint32_t u : loop.units) {
      claim(unit_owner, u, l, "CDU", loop);
      claim(coupling_owner, units[u].hx_coupling, l, "heat coupling", loop);
      claim(coupling_owner, units[u].pump_coupling, l, "heat coupling", loop);
    }
    for (const std::uint32_t r : loop.racks)  // its hydraulic solves write the racks' views
      claim(rack_owner, r, l, "the flow and pressure views of rack", loop);
  }
  for (std::uint32_t d = 0; d < chips.air_begin; ++d)
    if (die_owner[d] != chips.dies[d].loop)
      throw core::RuntimeError("cooling model: " + chips.describe(d)
                               + " lies outside the dies of its coolant loop");
}

CoolingModel::~CoolingModel() = default;

void CoolingModel::initialize(core::SiteState& state) {
  Impl& m = *impl_;
  // Each loop's first solve, side by side on the pool as in a step's controllers (each writes only
  // its own flows, racks and CDUs); the solve counts are added in loop order. 521 loops on the
  // 300k site: the largest serial item of its initialisation.
  m.forEachLoop([&](std::size_t l) {
    cooling::LoopContext own = m.context(l);
    m.loops[l].solveHydraulics(own);
  });
  m.mergeLoopRecords();
  m.recordDesignPoint();
  // Start from rest at the supply set-point everywhere (the run warms the loop up).
  for (auto& loop : m.loops) {
    // A ring starts at its first CDU's set-point.
    const double T0 = m.units[loop.units.front()].cdu->T_supply_set;
    m.chips.reset(loop.die_begin, loop.die_end, T0);
    std::fill(m.cells.T.begin() + loop.cell_begin, m.cells.T.begin() + loop.cell_end, T0);
    std::fill(loop.node_T.begin(), loop.node_T.end(), T0);
    for (const std::uint32_t u : loop.units)
      m.units[u].initialise(T0);
  }
  m.room.initialise();
  m.chips.resetMetrics();
  // Facility water starts at its supply set-point, the valves half open like the CDUs'.
  for (const auto& f : m.facilities)
    f->initialize(f->supplySetpoint(), 0.5);
  for (CduUnit& unit : m.units) {
    const FacilityLoop* f = unit.plantOf(m.facilities);
    if (f == nullptr) continue;
    const auto k = static_cast<std::size_t>(unit.facility_index);
    unit.T_facility_supply = f->cduSupplyTemperature(k);
    unit.valve_opening = f->valveOpening(k);
  }
  m.ledger.reset(m.stored());
  cooling::LoopContext ctx = m.context();
  for (auto& loop : m.loops)
    loop.E_audit = loop.E_stored = loop.stored(ctx);
  m.publish(state, 0.0, true);
  m.initialised = true;
}

void CoolingModel::advance(double t, double dt, core::SiteState& state) {
  Impl& m = *impl_;
  m.chips.takeStepPower(state, dt);
  double Q_air = 0.0;
  for (std::size_t r = 0; r < state.rack_air_E_step.size(); ++r) {
    const double P = state.rack_air_E_step[r] / dt;
    m.rack_air_P_step[r] = P;
    Q_air += P;
  }
  Q_air += state.hall_air_E_step / dt;  // distribution losses in the hall (busways, RPPs)

  if (!m.air_racks.empty()) m.controlServerFans(state, dt);

  // Transport is implicit and stable at any step, but the valve PI is a sampled controller: one
  // sampled far slower than the loop responds (tens of seconds) overshoots and oscillates. Long
  // macro steps are therefore cycled in sub-steps of at most the control step (2 s by default),
  // except under fast-forward, whose long steps come only while nothing moves: there a step is
  // one cycle and the PIs are solved for its end (quasi_steady_cycle).
  m.quasi_steady_cycle = m.quasi_steady_enabled && dt > m.control_step;
  const int cycles = m.quasi_steady_cycle
                         ? 1
                         : std::max(1, static_cast<int>(std::ceil(dt / m.control_step - 1e-9)));
  const double h = dt / cycles;
  // Several cycles (or a facility loop that sub-cycles): the mean records are averaged.
  const bool averaged = cycles > 1 || (!m.facilities.empty() && h > FacilityLoop::kControlStep);
  const auto totals = [&](std::size_t i) {
    const FacilityLoop& f = *m.facilities[i];
    return Impl::PlantTotals{f.pumpElectricEnergy(), f.fanEnergy(),     f.chillerElectricEnergy(),
                             f.energyRejected(),     f.chillerEnergy(), f.waterUsed()};
  };
  if (averaged) {
    std::fill(m.mean_sums.begin(), m.mean_sums.end(), 0.0);
    for (std::size_t i = 0; i < m.facilities.size(); ++i)
      m.plant_before[i] = totals(i);
  }
  for (int k = 0; k < cycles; ++k) {
    const double t_k = t + k * h;
    m.cycle(t_k, h, Q_air);
    if (averaged) {
      m.publishUnits();
      for (std::size_t i = 0; i < m.mean_views.size(); ++i)
        m.mean_sums[i] += *m.mean_views[i] * h;
    }
  }
  m.now = t + dt;
  m.publish(state, dt, false);
  if (averaged) {
    for (std::size_t i = 0; i < m.mean_views.size(); ++i)
      *m.mean_views[i] = m.mean_sums[i] / dt;
    // The trays' flow views now hold means, not one solve's flows.
    std::fill(m.tray_V_version.begin(), m.tray_V_version.end(), ~std::uint64_t{0});
    for (std::size_t i = 0; i < m.facilities.size(); ++i) {
      // The plant's powers from its energy totals over the step: exact whatever it sub-cycled.
      const Impl::PlantTotals after = totals(i);
      const Impl::PlantTotals& before = m.plant_before[i];
      m.fac_pump_P[i] = (after.pump - before.pump) / dt;
      m.fac_fan_P[i] = (after.fan - before.fan) / dt;
      m.fac_chiller_P[i] = (after.chiller_electric - before.chiller_electric) / dt;
      m.fac_Q_rejected[i] = (after.rejected - before.rejected) / dt;
      m.fac_chiller_Q[i] = (after.chiller - before.chiller) / dt;
      m.fac_water_use[i] = (after.water - before.water) / dt;
    }
  }
}

void CoolingModel::Impl::answerHunting(double t, double h) {
  // Serial, in site order after the loops' pass: the same answer for any number of threads.
  bool fresh = false;
  std::uint32_t first = 0;
  for (std::uint32_t u = 0; u < units.size(); ++u) {
    if (units[u].supply_watch.takeFresh() && !fresh) {
      fresh = true;
      first = u;
    }
  }
  if (!fresh) return;
  const double sample = std::min(control_step, h);
  if (sample <= kControlStepMin * (1.0 + 1e-9)) {
    hunting_at_minimum = true;
    return;
  }
  const double shorter = std::max(0.5 * sample, kControlStepMin);
  control_step_changes.push_back({t, sample, shorter, first});
  control_step = shorter;
  for (CduUnit& unit : units)
    unit.supply_watch.rearm();
}

void CoolingModel::Impl::cycle(double t_start, double h, double Q_air) {
  // Every sweep rewrites all cell and die temperatures: the old step's become the "old" ones by
  // swapping buffers, not copying them.
  chips.T.swap(chips.T_old);
  cells.T.swap(cells.T_old);

  // The chips' heat in four lanes (175,014 dies on the 100k site: a running sum waits on each
  // add, on the run's first thread while the others wait).
  double Q_in = Q_air + core::sum4(chips.P.data(), chips.P.size());
  double Q_out = 0.0;
  double Q_room = Q_air;
  double P_cooling = 0.0;
  const cooling::FacilityLoops plant = facilities;  // each unit works with its own loop
  // Each loop's hydraulics brought up to date (a standby pump starting, the viscosity), then its
  // CDUs' controllers (a pump speed change re-solves only its own loop; each valve command goes
  // to its own slot of its facility loop), each loop's CDUs in site order.
  const auto controlLoop = [&](std::size_t l) {
    CoolantLoop& loop = loops[l];
    cooling::LoopContext own = context(l);
    loop.updateHydraulics(own, t_start);
    for (const std::uint32_t u : loop_units_in_site_order[l]) {
      CduUnit& unit = units[u];
      if (quasi_steady_cycle) {
        unit.controlValveQuasiSteady(h, plant, loop.C_link[unit.hx_link]);
      } else {
        unit.controlValve(h, plant);
      }
      const bool moved = quasi_steady_cycle ? unit.controlPumpQuasiSteady(h, loop.rack_dp_min)
                                            : unit.controlPump(h, loop.rack_dp_min);
      if (moved) loop.solveHydraulics(own);
    }
  };
  // Rear doors read every loop's flows after the controllers (RackAirExchangers::prepare): then
  // the controllers are a pass of their own. Without them nothing between the controllers and
  // the sweep reads what the controllers write, and each loop does both in one task.
  const bool own_pass = !rack_exchangers.empty();
  if (own_pass) {
    forEachLoop(controlLoop);
    mergeLoopRecords();
  }
  // Each rack's air heat of the cycle: its trays' loads and losses, and its air-cooled chips.
  std::copy(rack_air_P_step.begin(), rack_air_P_step.end(), rack_air_P.begin());
  if (chips.hasAirCooled()) {
    // Air-cooled chips give their heat to their servers' air, and so to the room (and to a
    // rear door on the way).
    updateInlets();
    Q_room += chips.advanceAir(h, rack_T_inlet, rack_air_film, rack_air_P);
  }
  if (!rack_exchangers.empty()) {
    const double T_facility = units.empty() ? 0.0 : units.front().T_facility_supply;
    rack_exchangers.prepare(rack_air_P, room.spec.T_supply_air, T_facility, loops, couplings);
  }
  // The loops side by side (Partitions, CoolingModelImpl.hpp): each reads the facility side
  // and the room as they stand and writes only what it owns.
  const auto sweepLoop = [&](std::size_t l) {
    if (!own_pass) controlLoop(l);
    CoolantLoop& loop = loops[l];
    cooling::LoopContext own = context(l);
    // The facility side of every exchanger for this step, then the sweep and its audit.
    for (const std::uint32_t u : loop.units) {
      CduUnit& unit = units[u];
      unit.prepareExchanger(plant, loop.C_link[unit.hx_link], room.T, couplings[unit.hx_coupling]);
    }
    loop.sweep(own, h);
    for (const std::uint32_t u : loop.units) {
      CduUnit& unit = units[u];
      unit.takeSweep(couplings[unit.hx_coupling], loop.node_T[unit.supply],
                     loop.node_T[unit.suction], plant);
      // A running unit whose valve its PI moves: does the supply hunt about the set-point?
      if (unit.pumps_running > 0 && !unit.valve_stuck)
        unit.supply_watch.observe(t_start + h, h, unit.T_supply - unit.T_supply_set);
    }
    loop.audit(own, static_cast<std::uint32_t>(l), t_start + h, h);
    publishTrays(l);
  };
  forEachLoop(sweepLoop);
  mergeLoopRecords();
  answerHunting(t_start + h, h);
  double Q_water = 0.0;  // into facility water through the CDU exchangers
  for (const CduUnit& unit : units) {
    Q_in += unit.pump_P_electric;  // hydraulic part into the coolant, motor loss into the room
    Q_room += unit.pump_P_electric - unit.pump_P_hydraulic;
    P_cooling += unit.pump_P_electric;
    if (unit.rejectsToAir()) {
      // A liquid-to-air CDU heats the room (its coil, and its fans' power).
      Q_room += unit.Q_hx + unit.fan_P;
      Q_in += unit.fan_P;
      P_cooling += unit.fan_P;
    } else {
      Q_water += unit.Q_hx;
    }
  }
  if (!rack_exchangers.empty()) {
    // Rear doors: the heat they move leaves the room air (into a loop, or facility water
    // directly); their fans' power is cooling electricity that ends up in the room air.
    double Q_from_room = 0.0, Q_to_facility = 0.0, P_fan = 0.0;
    rack_exchangers.take(loops, couplings, Q_from_room, Q_to_facility, P_fan);
    rack_exchangers.book(h);
    Q_room += P_fan - Q_from_room;
    Q_in += P_fan;
    P_cooling += P_fan;
    Q_water += Q_to_facility;
  }
  double E_outdoors = 0.0;  // J leaving the site this cycle (besides the CRAH units)
  if (!facilities.empty()) {
    // The exchangers' heat of this cycle enters each CDU's facility loop, which carries it to
    // its heat rejection and trim chiller. Energies from the loops' run totals, so they are exact.
    for (const CduUnit& unit : units)
      if (unit.facility_loop >= 0)
        facility_Q_cdu[static_cast<std::size_t>(unit.facility_loop)]
                      [static_cast<std::size_t>(unit.facility_index)] = unit.Q_hx;
    for (std::size_t i = 0; i < facilities.size(); ++i) {
      FacilityLoop& f = *facilities[i];
      const double pump_heat = f.pumpHeat(), rejected = f.energyRejected() + f.chillerEnergy();
      const double electric = f.pumpElectricEnergy() + f.fanEnergy() + f.chillerElectricEnergy();
      f.advance(t_start + h, h, facility_Q_cdu[i]);
      Q_in += (f.pumpHeat() - pump_heat) / h;  // the plant pumps' hydraulic power
      E_outdoors += f.energyRejected() + f.chillerEnergy() - rejected;
      P_cooling +=
          (f.pumpElectricEnergy() + f.fanEnergy() + f.chillerElectricEnergy() - electric) / h;
    }
  } else {
    E_outdoors = Q_water * h;  // facility water is the boundary
  }

  room.advance(Q_room, h);
  P_cooling += room.crah_P_fan;
  Q_out += room.Q_crah;
  if (air_plant) {
    // The CRAH heat is not free: chilled water, chillers or the economiser, the tower.
    air_plant->advance(t_start + h, h, room.Q_crah);
    P_cooling += air_plant->electricPower();
  }
  ledger.book(h, Q_in, Q_out, E_outdoors, room.Q_crah, Q_water, P_cooling, storedAfterSweep());
}

namespace {
bool isCoolingFault(core::EventKind kind) {
  switch (kind) {
    case core::EventKind::PumpTrip:
    case core::EventKind::CduLoss:
    case core::EventKind::ValveStuck:
    case core::EventKind::ClogColdPlate:
    case core::EventKind::FacilityPumpTrip:
    case core::EventKind::HeatRejectionFanLoss:
    case core::EventKind::SetFacilitySupplyTemperature:  // a facility supply excursion
      return true;
    default:
      return false;
  }
}
}  // namespace

bool CoolingModel::applyEvent(const core::EventSpec& event, core::SiteState& state) {
  const bool applied = impl_->applyEvent(event);
  if (applied && isCoolingFault(event.kind)) impl_->chips.noteFault(event.time, state);
  return applied;
}

bool CoolingModel::Impl::applyEvent(const core::EventSpec& event) {
  // The CDU an event names (linear: events are rare).
  auto unitNamed = [&](const std::string& id) -> CduUnit* {
    for (CduUnit& unit : units)
      if (unit.cdu->id.str() == id) return &unit;
    return nullptr;
  };
  // The facility loops a plant event acts on: the one its target names, or every loop without
  // a target (the scenario loader requires one with several loops; the GUI's what-if acts on
  // the site). False when none matches.
  auto onPlants = [&](const std::string& id, auto&& act) {
    bool any = false;
    for (std::size_t i = 0; i < facilities.size(); ++i) {
      if (!id.empty() && facility_ids[i] != id) continue;
      act(*facilities[i]);
      any = true;
    }
    return any;
  };
  switch (event.kind) {
    case core::EventKind::CduLoss:
    case core::EventKind::ValveStuck: {
      CduUnit* unit = unitNamed(event.target);
      if (unit == nullptr) return false;
      if (event.kind == core::EventKind::ValveStuck) {
        unit->valve_stuck = true;
        if (FacilityLoop* f = unit->plantOf(facilities))
          f->setValveStuck(static_cast<std::size_t>(unit->facility_index), true);
        return true;
      }
      unit->lose();
      solveHydraulics(loops[unit->loop]);
      return true;
    }
    case core::EventKind::ClogColdPlate: {
      // Partial clogging scales the plate's pressure-drop law; its flow falls, the others rise.
      const auto d = chips.findDie(event.target);
      if (!d) return false;
      const ChipThermal::Die& die = chips.dies[*d];
      CoolantLoop& loop = loops[die.loop];
      loop.solver->law(die.link).dp_scale = event.value;
      solveHydraulics(loop);
      return true;
    }
    case core::EventKind::SetFacilitySupplyTemperature:
      if (!facilities.empty()) {
        // The plant's set-point moves.
        return onPlants(event.target, [&](FacilityLoop& f) { f.setSupplySetpoint(event.value); });
      } else {
        for (auto& unit : units)
          unit.T_facility_supply = event.value;
      }
      return true;
    case core::EventKind::FacilityPumpTrip:
      return onPlants(event.target, [](FacilityLoop& f) { f.tripPump(); });
    case core::EventKind::HeatRejectionFanLoss:
      return onPlants(event.target,
                      [&](FacilityLoop& f) { f.setFanAvailability(1.0 - event.value); });
    case core::EventKind::SetSupplySetpoint:
    case core::EventKind::SetPumpSpeed:
    case core::EventKind::PumpTrip: {
      CduUnit* unit = unitNamed(event.target);
      if (unit == nullptr) return false;
      bool solve = false;
      if (event.kind == core::EventKind::SetSupplySetpoint) {
        unit->T_supply_set = event.value;
      } else if (event.kind == core::EventKind::SetPumpSpeed) {
        solve = unit->commandPumpSpeed(event.value);
      } else {
        solve = unit->tripPump(now);
      }
      if (solve) solveHydraulics(loops[unit->loop]);
      return true;
    }
    default:
      return false;  // not a cooling event
  }
  return false;
}

void CoolingModel::declareChannels(core::Recorder& recorder) {
  Impl& m = *impl_;
  const core::SiteLayout& L = *m.layout;
  // The thermal model advances once per macro step (implicit Euler): the flows, heat flows and
  // powers it holds after a step stand for that step (Mean). Temperatures are recorded at the
  // record time with the interval's maximum (SampleAndMax); pressures, positions, flags, counts
  // and the running energy residual at the record time (Sample).
  constexpr core::Aggregation kMean = core::Aggregation::Mean;
  constexpr core::Aggregation kTemperature = core::Aggregation::SampleAndMax;
  constexpr core::Aggregation kSample = core::Aggregation::Sample;
  recorder.add({"gpu", "T_junction", "K", "GPU junction temperature", L.gpu_ids, kTemperature},
               m.chips.gpu_T_j.data());
  recorder.add({"gpu", "V_flow", "m3/s", "Coolant volume flow through the GPU's cold plate",
                L.gpu_ids, kMean},
               m.chips.gpu_V_flow.data());
  recorder.add({"rack", "V_flow", "m3/s", "Coolant volume flow into the rack (supply hose)",
                L.rack_ids, kMean},
               m.rack_V_flow.data());
  recorder.add(
      {"rack", "dp_available", "Pa",
       "Differential pressure across the rack's supply and return manifolds", L.rack_ids, kSample},
      m.rack_dp_available.data());
  recorder.add(
      {"gpu", "throttled", "1", "1 while the GPU is in thermal slowdown", L.gpu_ids, kSample},
      m.chips.gpu_throttled_record.data());
  recorder.add(
      {"gpu", "shutdown", "1", "1 once the GPU has shut down over temperature", L.gpu_ids, kSample},
      m.chips.gpu_shutdown_record.data());
  recorder.add(
      {"cpu", "T_junction", "K", "Grace CPU junction temperature", L.cpu_ids, kTemperature},
      m.chips.cpu_T_j.data());
  // A site of air-cooled racks alone has no switches or trays: no empty channels.
  if (!L.switch_ids.empty()) {
    recorder.add({"nvswitch", "T_junction", "K", "NVLink switch junction temperature", L.switch_ids,
                  kTemperature},
                 m.chips.switch_T_j.data());
  }
  if (!m.tray_ids.empty()) {
    recorder.add(
        {"tray", "V_flow", "m3/s", "Coolant volume flow through the tray", m.tray_ids, kMean},
        m.tray_V_flow.data());
    recorder.add(
        {"tray", "T_outlet", "K", "Coolant temperature leaving the tray", m.tray_ids, kTemperature},
        m.tray_T_out.data());
  }
  const auto& ids = m.cdu_ids;
  recorder.add(
      {"cdu", "T_supply", "K", "Secondary supply temperature leaving the CDU", ids, kTemperature},
      m.cdu_T_supply.data());
  recorder.add(
      {"cdu", "T_return", "K", "Secondary return temperature entering the CDU", ids, kTemperature},
      m.cdu_T_return.data());
  recorder.add({"cdu", "V_flow", "m3/s", "Secondary volume flow through the CDU pump", ids, kMean},
               m.cdu_V_flow.data());
  recorder.add(
      {"cdu", "Q_flow", "W", "Heat moved from the secondary loop to facility water", ids, kMean},
      m.cdu_Q_flow.data());
  recorder.add({"cdu", "valve_opening", "1", "Facility-side control valve opening", ids, kSample},
               m.cdu_valve.data());
  recorder.add(
      {"cdu", "V_flow_facility", "m3/s", "Facility water flow through the CDU", ids, kMean},
      m.cdu_V_facility.data());
  recorder.add({"cdu", "T_facility_supply", "K", "Facility water temperature entering the CDU", ids,
                kTemperature},
               m.cdu_T_facility_supply.data());
  recorder.add({"cdu", "T_facility_return", "K", "Facility water temperature leaving the CDU", ids,
                kTemperature},
               m.cdu_T_facility_return.data());
  recorder.add({"cdu", "pump_dp", "Pa", "Pressure rise across the secondary pump", ids, kSample},
               m.cdu_pump_dp.data());
  recorder.add({"cdu", "pump_P", "W", "Electrical power of the secondary pumps", ids, kMean},
               m.cdu_pump_P.data());
  recorder.add({"cdu", "pump_P_hydraulic", "W",
                "Hydraulic power of the secondary pumps (pressure rise x flow)", ids, kMean},
               m.cdu_pump_P_hydraulic.data());
  recorder.add({"cdu", "pumps_running", "1", "Secondary pumps running", ids, kSample},
               m.cdu_pumps_running.data());
  bool air_cdus = false;
  for (const CduUnit& unit : m.units)
    air_cdus = air_cdus || unit.rejectsToAir();
  if (air_cdus) {
    recorder.add(
        {"cdu", "fan_P", "W", "Fans of a liquid-to-air CDU's coil (0 on water)", ids, kMean},
        m.cdu_fan_P.data());
  }
  if (!m.facilities.empty()) {
    // One plant: scalar channels. Several: one column per loop, named by its id.
    const std::vector<std::string> none;
    const std::vector<std::string>& loops = m.facilities.size() == 1 ? none : m.facility_ids;
    recorder.add(
        {"facility", "T_supply", "K", "Facility water leaving the plant", loops, kTemperature},
        m.fac_T_supply.data());
    recorder.add(
        {"facility", "T_return", "K", "Facility water returning to the plant", loops, kTemperature},
        m.fac_T_return.data());
    recorder.add(
        {"facility", "V_flow", "m3/s", "Facility water flow through the plant pumps", loops, kMean},
        m.fac_V_flow.data());
    recorder.add({"facility", "pump_P", "W", "Electrical power of the plant pumps", loops, kMean},
                 m.fac_pump_P.data());
    recorder.add({"facility", "pump_speed", "1", "Plant pump speed", loops, kMean},
                 m.fac_pump_speed.data());
    recorder.add({"facility", "dp_remote", "Pa",
                  "Differential pressure across the most remote CDU branch", loops, kSample},
                 m.fac_dp_remote.data());
    recorder.add({"facility", "fan_P", "W", "Heat-rejection fan power", loops, kMean},
                 m.fac_fan_P.data());
    recorder.add({"facility", "Q_flow_rejected", "W", "Heat rejected to outdoor air", loops, kMean},
                 m.fac_Q_rejected.data());
    recorder.add(
        {"facility", "Q_flow_chiller", "W", "Heat removed by the trim chiller", loops, kMean},
        m.fac_chiller_Q.data());
    recorder.add(
        {"facility", "chiller_P", "W", "Electrical power of the trim chiller", loops, kMean},
        m.fac_chiller_P.data());
    recorder.add({"facility", "V_flow_water_use", "m3/s",
                  "Make-up water (evaporation, drift, "
                  "blow-down)",
                  loops, kMean},
                 m.fac_water_use.data());
    recorder.add({"ambient", "T_dry_bulb", "K", "Outdoor dry-bulb temperature", none, kTemperature},
                 &m.fac_T_dry_bulb);
    recorder.add({"ambient", "T_wet_bulb", "K", "Outdoor wet-bulb temperature", none, kTemperature},
                 &m.fac_T_wet_bulb);
  }
  if (!m.rack_exchangers.empty()) m.rack_exchangers.declareChannels(recorder);
  if (!m.attached.empty()) m.attached.declareChannels(recorder);
  if (m.air_plant) m.air_plant->declareChannels(recorder);
  if (!m.air_racks.empty()) {
    recorder.add(
        {"rack", "T_inlet", "K", "Air temperature at the rack's inlet", L.rack_ids, kTemperature},
        m.rack_T_inlet.data());
    recorder.add({"rack", "fan_P", "W", "Server fans of an air-cooled rack (0 for liquid-cooled)",
                  L.rack_ids, kMean},
                 m.rack_fan_P.data());
  }
  recorder.add({"room", "T_air", "K", "Room (hot aisle) air temperature", {}, kTemperature},
               &m.room.T);
  recorder.add({"room", "Q_flow_crah", "W", "Heat removed by the CRAH units", {}, kMean},
               &m.room.Q_crah);
  recorder.add({"site",
                "energy_balance_residual",
                "J",
                "Heat in - heat rejected - change in stored heat, since the start",
                {},
                kSample},
               &m.ledger.residual);
}

void CoolingModel::runWarnings(std::vector<std::string>& lines) const {
  const Impl& m = *impl_;
  char text[640];
  // A site of hundreds of CDUs that all hunt: the first few by name, then how many more.
  constexpr std::size_t kNamed = 5;
  std::size_t found = 0;
  for (const CduUnit& unit : m.units) {
    const cooling::HuntingWatch& w = unit.supply_watch;
    if (!w.found() || ++found > kNamed) continue;
    std::snprintf(text, sizeof text,
                  "CDU '%s' hunted from t = %.0f s: its secondary supply swung by up to %.2f K "
                  "about its %.2f degC set-point (period about %.0f s) with its valve PI sampled "
                  "every %.3g s (the thermal cycle: simulation.control_step, or the step when "
                  "shorter)",
                  unit.cdu->id.str().c_str(), w.foundAt(), w.amplitude(),
                  unit.T_supply_set - core::kZeroCelsius_K, w.period(), w.sample());
    lines.emplace_back(text);
  }
  if (found > kNamed) {
    lines.push_back("and " + std::to_string(found - kNamed)
                    + " more CDUs hunted (summary: cdus_hunting, cdu_hunting_swing_max_K)");
  }
  for (const Impl::ControlStepChange& c : m.control_step_changes) {
    std::snprintf(text, sizeof text,
                  "the controllers' sample interval was halved from %.3g s to %.3g s at t = %.0f s "
                  "(CDU '%s' hunted); values before then carry the swing",
                  c.from, c.to, c.t, m.units[c.unit].cdu->id.str().c_str());
    lines.emplace_back(text);
  }
  if (m.hunting_at_minimum) {
    std::snprintf(text, sizeof text,
                  "a CDU hunted with its valve PI sampled every %.3g s, the shortest interval "
                  "the run tries: its PI's gains are unstable on this loop, not the numerics",
                  Impl::kControlStepMin);
    lines.emplace_back(text);
  }
}

void CoolingModel::summarise(core::Summary& summary) const {
  const Impl& m = *impl_;
  {
    // CDUs whose supply hunts (runWarnings), and the largest swing among them.
    double hunting = 0.0, swing = 0.0;
    for (const CduUnit& unit : m.units) {
      if (!unit.supply_watch.found()) continue;
      hunting += 1.0;
      swing = std::max(swing, unit.supply_watch.amplitude());
    }
    summary.add(
        {"cdus_hunting", hunting, "CDUs whose supply hunts about its set-point", "", 1.0, 0.0});
    summary.add({"cdu_hunting_swing_max_K",
                 hunting > 0.0 ? std::optional<double>(swing) : std::nullopt,
                 "Largest swing of a hunting CDU supply", "K", 1.0, 0.0});
    summary.add({"control_step_final_s", m.control_step,
                 "Control step at the end (halved while a CDU hunted)", "s", 1.0, 0.0});
  }
  const cooling::EnergyLedger& e = m.ledger;
  const double residual = e.E_in - e.E_rejected - (m.stored() - e.E_stored_initial);
  summary.add({"max_gpu_temperature_K", m.chips.maxGpuJunction(), "Max GPU junction temperature",
               "degC", 1.0, -core::kZeroCelsius_K});
  summary.add({"thermal_energy_balance_relative_error",
               e.E_in > 0.0 ? std::abs(residual) / e.E_in : 0.0,
               "Thermal energy balance error (relative)", "", 1.0, 0.0});
  summary.add({"energy_audit_relative_error_max", m.audit.worst,
               "Energy audit from enthalpy flows (plates, exchangers, loops), worst relative", "",
               1.0, 0.0});
  summary.add({"energy_audit_checks", static_cast<double>(m.audit.checks),
               "Energy audit checks passed", "", 1.0, 0.0});
  summary.add(
      {"heat_input_J", e.E_in, "Heat into coolant and room air", "kWh", 1.0 / 3.6e6, 0.0, true});
  summary.add({"heat_rejected_to_facility_water_J", e.E_rejected_water,
               "Heat rejected to facility water", "kWh", 1.0 / 3.6e6, 0.0, true});
  if (!m.facilities.empty()) {
    // Every plant's totals together.
    double outdoors = 0.0, pump = 0.0, fan = 0.0, chiller = 0.0, water = 0.0;
    for (const auto& f : m.facilities) {
      outdoors += f->energyRejected() + f->chillerEnergy() + f->chillerElectricEnergy();
      pump += f->pumpElectricEnergy();
      fan += f->fanEnergy();
      chiller += f->chillerElectricEnergy();
      water += f->waterUsed();
    }
    summary.add({"heat_rejected_outdoors_J", outdoors,
                 "Heat rejected outdoors (plant, chiller condenser)", "kWh", 1.0 / 3.6e6, 0.0,
                 true});
    summary.add({"facility_pump_energy_J", pump, "Facility pump energy", "kWh", 1.0 / 3.6e6, 0.0});
    summary.add(
        {"heat_rejection_fan_energy_J", fan, "Heat-rejection fan energy", "kWh", 1.0 / 3.6e6, 0.0});
    summary.add({"chiller_energy_J", chiller, "Trim chiller energy", "kWh", 1.0 / 3.6e6, 0.0});
    summary.add({"water_use_m3", water, "Make-up water", "L", 1e3, 0.0});
  }
  summary.add({"heat_rejected_to_air_J", e.E_rejected_air, "Heat removed by CRAH units", "kWh",
               1.0 / 3.6e6, 0.0, true});
  if (!m.rack_exchangers.empty()) {
    summary.add({"rack_exchanger_heat_J", m.rack_exchangers.heatMoved(),
                 "Heat moved from rack exhaust air into water (rear doors)", "kWh", 1.0 / 3.6e6,
                 0.0, true});
    summary.add({"rack_exchanger_fan_energy_J", m.rack_exchangers.fanEnergy(),
                 "Rear-door fan energy", "kWh", 1.0 / 3.6e6, 0.0});
  }
  if (m.air_plant) m.air_plant->summarise(summary);
  if (!m.air_racks.empty()) {
    double out_of_class = 0.0;
    for (double t : m.rack_out_of_class_s)
      out_of_class += t;
    summary.add({"air_cooled_racks", static_cast<double>(m.air_racks.size()), "Air-cooled racks",
                 "", 1.0, 0.0});
    summary.add({"rack_inlet_temperature_max_K", m.T_inlet_max, "Rack inlet air, highest", "degC",
                 1.0, -core::kZeroCelsius_K});
    summary.add({"rack_inlet_out_of_class_rack_s", out_of_class,
                 "Air-cooled rack time with inlet outside its ASHRAE class", "rack h", 1.0 / 3600.0,
                 0.0});
    summary.add({"server_fan_energy_J", m.E_server_fans,
                 "Server fan energy of air-cooled racks (part of IT)", "kWh", 1.0 / 3.6e6, 0.0});
  }
  summary.add({"cooling_energy_J", e.E_cooling_electric, "Cooling electrical energy (pumps, fans)",
               "kWh", 1.0 / 3.6e6, 0.0});
  const auto& d = m.design;
  constexpr double lpm = core::kLitrePerMinute_m3_per_s;
  summary.add({"pump_V_flow_m3_per_s", d.pump_V_flow, "Secondary pump flow (design, all CDUs)",
               "L/min", 1.0 / lpm, 0.0});
  summary.add({"pump_dp_Pa", d.pump_dp, "Secondary pump head (design, largest)", "kPa", 1e-3, 0.0});
  summary.add(
      {"pump_power_W", d.pump_P, "Secondary pump power (design, all CDUs)", "kW", 1e-3, 0.0});
  summary.add({"cold_plate_V_flow_min_m3_per_s", d.plate_V_min, "Cold-plate flow, lowest (design)",
               "L/min", 1.0 / lpm, 0.0});
  summary.add({"cold_plate_V_flow_max_m3_per_s", d.plate_V_max, "Cold-plate flow, highest (design)",
               "L/min", 1.0 / lpm, 0.0});
  summary.add({"cold_plate_flow_spread",
               d.plate_V_mean > 0.0 ? (d.plate_V_max - d.plate_V_min) / d.plate_V_mean : 0.0,
               "Cold-plate flow spread (max-min)/mean", "", 1.0, 0.0});
  summary.add({"cold_plates_below_minimum_flow", d.plates_below_minimum,
               "Cold plates below minimum flow (design)", "", 1.0, 0.0});
  summary.add({"pump_flow_fraction_of_curve", d.pump_flow_fraction,
               "Pump flow / its zero-head flow at speed (design, highest-head CDU)", "", 1.0, 0.0});
  summary.add({"system_curve_exponent",
               d.system_curve_exponent > 0.0 ? std::optional<double>(d.system_curve_exponent)
                                             : std::nullopt,
               "System curve exponent n, dp = k V^n (design, highest-head CDU)", "", 1.0, 0.0});
  // The facility valves' authority (boundary facility water with valve data), lowest over CDUs.
  std::optional<double> authority;
  for (const cooling::CduUnit& unit : m.units) {
    if (unit.facility_branch)
      authority = std::min(authority.value_or(1.0), unit.facility_branch->authority());
  }
  summary.add({"facility_valve_authority_min", authority,
               "Facility valve authority at nominal flow, lowest CDU", "", 1.0, 0.0});
  summary.add({"rack_dp_available_min_Pa", d.rack_dp_min,
               "Manifold dp, least favoured rack (design)", "kPa", 1e-3, 0.0});
  summary.add({"throttled_gpu_seconds", m.chips.throttledGpuSeconds(), "Throttled GPU time",
               "GPU s", 1.0, 0.0});
  summary.add({"gpus_shut_down", static_cast<double>(m.chips.gpusShutDown()),
               "GPUs shut down over temperature", "", 1.0, 0.0});
  // From the first fault to the first GPU throttle at or after it (located inside its step);
  // null when there was no fault or no GPU throttled after it.
  summary.add({"ride_through_s", m.chips.rideThrough(),
               "Ride-through, first fault to first throttle", "s", 1.0, 0.0});
}

double CoolingModel::storedEnergy() const {
  return impl_->stored();
}
double CoolingModel::heatInput() const {
  return impl_->ledger.E_in;
}
double CoolingModel::heatRejected() const {
  return impl_->ledger.E_rejected;
}
double CoolingModel::largestMassImbalance() const {
  double worst = 0.0;
  for (const auto& loop : impl_->loops)
    worst = std::max(worst, loop.solver->largestImbalance());
  return worst;
}
double CoolingModel::cduSupplyTemperature(std::size_t cdu) const {
  return impl_->units.at(cdu).T_supply;
}
double CoolingModel::cduReturnTemperature(std::size_t cdu) const {
  return impl_->units.at(cdu).T_return;
}
double CoolingModel::cduHeatFlow(std::size_t cdu) const {
  return impl_->units.at(cdu).Q_hx;
}
double CoolingModel::cduSecondaryFlow(std::size_t cdu) const {
  return impl_->units.at(cdu).V_secondary;
}
int CoolingModel::cduPumpsRunning(std::size_t cdu) const {
  return impl_->units.at(cdu).pumps_running;
}
double CoolingModel::cduHydraulicTemperature(std::size_t cdu) const {
  return impl_->loops.at(impl_->units.at(cdu).loop).T_hydraulics;
}
double CoolingModel::cduPumpHydraulicPower(std::size_t cdu) const {
  return impl_->units.at(cdu).pump_P_hydraulic;
}
double CoolingModel::cduPumpHead(std::size_t cdu) const {
  return impl_->units.at(cdu).pump_dp;
}
std::optional<double> CoolingModel::nodeTemperature(std::string_view node_id) const {
  for (const cooling::CoolantLoop& loop : impl_->loops) {
    if (const auto n = loop.network.findNode(node_id)) return loop.node_T[*n];
  }
  return std::nullopt;
}
std::optional<double> CoolingModel::nodePressure(std::string_view node_id) const {
  for (const cooling::CoolantLoop& loop : impl_->loops) {
    if (const auto n = loop.network.findNode(node_id)) return loop.solver->p()[*n];
  }
  return std::nullopt;
}
std::optional<double> CoolingModel::linkFlow(std::string_view link_id) const {
  for (const cooling::CoolantLoop& loop : impl_->loops) {
    for (cooling::Index l = 0; l < loop.network.linkCount(); ++l) {
      if (loop.network.linkId(l) == link_id) return loop.solver->V_flow()[l];
    }
  }
  return std::nullopt;
}
void CoolingModel::injectPlateHeatErrorForValidation(double relative) {
  impl_->plate_heat_error = relative;
}

void CoolingModel::useGeneralSweepOnly(bool on) {
  impl_->general_sweep_only = on;
}

int CoolingModel::hydraulicSolves() const {
  return impl_->hydraulic_solves;
}
std::size_t CoolingModel::coolantCells() const {
  return impl_->cells.C.size();
}
std::size_t CoolingModel::chipNodes() const {
  return impl_->chips.dies.size();
}
std::size_t CoolingModel::coolantLoops() const {
  return impl_->loops.size();
}
double CoolingModel::maxGpuJunctionTemperature() const {
  return impl_->chips.maxGpuJunction();
}
std::span<const double> CoolingModel::trayFlows() const {
  return impl_->tray_V_flow;
}
std::span<const double> CoolingModel::rackFlows() const {
  return impl_->rack_V_flow;
}
std::span<const double> CoolingModel::rackDifferentialPressures() const {
  return impl_->rack_dp_available;
}
double CoolingModel::cduValveOpening(std::size_t cdu) const {
  return impl_->units.at(cdu).valve_opening;
}
double CoolingModel::cduFacilityFlow(std::size_t cdu) const {
  return impl_->units.at(cdu).V_facility;
}
std::optional<double> CoolingModel::cduValveAuthority(std::size_t cdu) const {
  const auto& branch = impl_->units.at(cdu).facility_branch;
  return branch ? std::optional<double>(branch->authority()) : std::nullopt;
}
std::optional<double> CoolingModel::cduFacilityBoundaryDp(std::size_t cdu) const {
  const auto& branch = impl_->units.at(cdu).facility_branch;
  return branch ? std::optional<double>(branch->boundaryDifferentialPressure()) : std::nullopt;
}
double CoolingModel::cduPumpSpeed(std::size_t cdu) const {
  return impl_->units.at(cdu).pump_speed;
}
std::span<const double> CoolingModel::gpuColdPlateFlows() const {
  return impl_->chips.gpu_V_flow;
}

}  // namespace racktwin::thermal
