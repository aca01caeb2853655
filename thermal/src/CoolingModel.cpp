#include "racktwin/thermal/CoolingModel.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "CoolingModelImpl.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Recorder.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::thermal {

using cooling::ChipKind;

void CoolingModel::Impl::recordDesignPoint() {
  // Facility engineers' questions at the design point: where the pumps run, how evenly the cold
  // plates are fed, and how much differential pressure the least favoured rack sees.
  design = DesignPoint{};
  for (const Unit& unit : units) {
    design.pump_V_flow += unit.V_secondary;
    design.pump_dp = std::max(design.pump_dp, unit.pump_dp);
    design.pump_P += unit.pump_P_electric;
  }
  double sum = 0.0;
  design.plate_V_min = dies.empty() ? 0.0 : 1e300;
  for (const Die& die : dies) {
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
  const Unit* critical = nullptr;
  for (const Unit& unit : units)
    if (unit.pumps_running > 0 && (critical == nullptr || unit.pump_dp > critical->pump_dp))
      critical = &unit;
  if (critical != nullptr) {
    Unit& unit = units[static_cast<std::size_t>(critical - units.data())];
    const core::PumpSpec& pump = unit.cdu->pump;
    design.pump_flow_fraction =
        unit.V_secondary / (unit.pumps_running * unit.pump_speed * pump.V_flow_max);
    Loop& loop = loops[unit.loop];
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

// ------------------------------------------------------------------------------------------------
// Controls

void CoolingModel::Impl::controlValve(Unit& unit, double dt) {
  const core::CduSpec& cdu = *unit.cdu;
  if (unit.valve_stuck) return;
  // PI on the secondary supply temperature (measured at the end of the last step): too warm ->
  // open. Anti-windup: the integral does not grow while the output is saturated that way.
  const double error = unit.T_supply - unit.T_supply_set;
  const double proportional = cdu.valve_gain * error;
  const double integral_rate = cdu.valve_gain / cdu.valve_integral_time * error;
  double wanted = proportional + unit.valve_integral + integral_rate * dt;
  const bool saturated_high = wanted > 1.0 && error > 0.0;
  const bool saturated_low = wanted < cdu.valve_opening_min && error < 0.0;
  if (!saturated_high && !saturated_low) unit.valve_integral += integral_rate * dt;
  wanted = std::clamp(proportional + unit.valve_integral, cdu.valve_opening_min, 1.0);
  if (facility) {
    // The facility unit's valve actuator strokes toward the command (its own stroke time).
    const auto u = static_cast<std::size_t>(&unit - units.data());
    facility->setValveCommand(u, wanted);
    unit.valve_opening = facility->valveOpening(u);
    return;
  }
  // The actuator moves at most dt / stroke_time per step.
  const double max_move = cdu.valve_stroke_time > 0.0 ? dt / cdu.valve_stroke_time : 1.0;
  unit.valve_opening += std::clamp(wanted - unit.valve_opening, -max_move, max_move);
}

void CoolingModel::Impl::controlPump(Unit& unit, double dt) {
  const core::CduSpec& cdu = *unit.cdu;
  if (unit.pumps_running == 0) return;
  Loop& loop = loops[unit.loop];
  if (cdu.pump_dp_set > 0.0) {
    // The dp now, from the last solve by the affinity laws (dp ~ speed^2 on a fixed system) at
    // the drive's actual speed, so the re-solve threshold below is no dead band for the
    // controller to cycle in, and the drive's lag is inside the loop the PI closes.
    const double ratio = unit.pump_speed / std::max(unit.pump_speed_solved, 1e-9);
    const double dp = loop.rack_dp_min * ratio * ratio;
    const double error = cdu.pump_dp_set - dp;  // too little dp: speed up
    const double proportional = cdu.pump_dp_gain * error;
    const double integral_rate = cdu.pump_dp_gain / cdu.pump_dp_integral_time * error;
    const double wanted = proportional + unit.pump_integral + integral_rate * dt;
    // Anti-windup: the integral does not grow while the command is saturated that way.
    const bool saturated =
        (wanted > 1.0 && error > 0.0) || (wanted < cdu.pump_speed_min && error < 0.0);
    if (!saturated) unit.pump_integral += integral_rate * dt;
    unit.pump_command = std::clamp(proportional + unit.pump_integral, cdu.pump_speed_min, 1.0);
  }
  // The drive follows the command with its rise time; a settled drive does not move.
  if (unit.pump_speed != unit.pump_command || unit.pump_drive.stage != unit.pump_command)
    unit.pump_speed = unit.pump_drive.advance(unit.pump_command, dt);
  // Solve again once the speed has moved a tenth of a percent: dp then lags by at most ~0.2 %.
  if (std::abs(unit.pump_speed - unit.pump_speed_solved) > 1e-3) solveHydraulics(loop);
}

double CoolingModel::Impl::stored() const {
  double E = 0.0;
  for (std::size_t c = 0; c < cell_C.size(); ++c) {
    E += cell_C[c] * (cell_T[c] - core::kZeroCelsius_K);
  }
  for (std::size_t d = 0; d < dies.size(); ++d) {
    E += dies[d].spec->heat_capacity * (die_T[d] - core::kZeroCelsius_K);
  }
  E += room.heat_capacity * (room_T - core::kZeroCelsius_K);
  if (facility) E += facility->storedEnergy();
  return E;
}

double CoolingModel::Impl::storedAfterSweep() const {
  double E = 0.0;
  for (const Loop& loop : loops)
    E += loop.E_stored;
  E += room.heat_capacity * (room_T - core::kZeroCelsius_K);
  if (facility) E += facility->storedEnergy();
  return E;
}

namespace {
/// The time in [t_begin, t_begin + dt] where a value linear from T_before to T_after meets
/// `threshold` (the nearer end when it does not).
double locateCrossing(double t_begin, double dt, double T_before, double T_after,
                      double threshold) {
  const double rise = T_after - T_before;
  if (!(std::abs(rise) > 0.0)) return t_begin + dt;
  return t_begin + dt * std::clamp((threshold - T_before) / rise, 0.0, 1.0);
}
}  // namespace

void CoolingModel::Impl::publish(core::SiteState& state, double dt, bool all) {
  for (std::size_t d = 0; d < dies.size(); ++d)
    die_T_junction[d] = die_T[d] + die_P[d] * die_R_jc[d];
  // Plain pointers and local sums: the byte-wide state flags may alias anything, and member
  // accesses in the loop would be reloaded after every store.
  const double* T_junction = die_T_junction.data();
  const std::uint32_t* die_of = gpu_die.data();
  const Die* die = dies.data();
  double* T_view = gpu_T_j.data();
  double* T_state = state.gpu_T_junction.data();
  double* T_peak = gpu_T_j_peak.data();
  const double* P_step_max = state.gpu_P_step_max.data();
  std::uint8_t* throttled = state.gpu_throttled.data();
  std::uint8_t* shutdown = state.gpu_shutdown.data();
  double T_max = max_gpu_T;
  std::size_t throttled_count = 0;
  // Crossings are located inside the step: the junction temperature is taken as linear between
  // the last step's value and this one's, so the throttle time and the throttled GPU-seconds do
  // not round to the step (a 5 s step would otherwise add up to 5 s to a ride-through).
  const double t_begin = now - dt;
  double first_throttle = cooling::kNever;  // earliest located slowdown start of this step
  double throttled_correction = 0.0;        // GPU-s: located crossings against whole steps
  const std::size_t n_gpus = gpu_die.size();
  for (std::size_t g = 0; g < n_gpus; ++g) {
    const std::uint32_t d = die_of[g];
    if (d == kNoDie) continue;
    const core::ChipSpec& spec = *die[d].spec;
    // The step's mean junction (case + mean power x R_jc) is what the executor's leakage and the
    // record use; slowdown and shutdown act within milliseconds, so they see the junction at the
    // highest power of the step's sub-steps (a 5 s step would otherwise average a compute phase
    // with a communication phase and throttle late).
    T_view[g] = T_junction[d];
    T_state[g] = T_junction[d];
    const double P_peak = std::max(P_step_max[g], die_P[d]);
    const double T_j = die_T[d] + P_peak * die_R_jc[d];
    const double T_j_before = T_peak[g];
    T_peak[g] = T_j;
    T_max = std::max(T_max, T_j);
    // Slowdown with hysteresis; thermal shutdown latches (the GPU stops computing and drawing
    // power for the run).
    const std::uint8_t throttled_before = throttled[g], shutdown_before = shutdown[g];
    std::uint8_t now_throttled = throttled_before;
    if (T_j > spec.T_slowdown) now_throttled = 1;
    if (T_j < spec.T_slowdown_release) now_throttled = 0;
    const std::uint8_t now_shutdown = shutdown_before != 0 || T_j > spec.T_shutdown ? 1 : 0;
    throttled_count += now_throttled;
    // The states change rarely: they and what follows from them are written only when they do.
    if (all || now_throttled != throttled_before || now_shutdown != shutdown_before) {
      if (!all && now_throttled != throttled_before && dt > 0.0) {
        const double threshold = now_throttled != 0 ? spec.T_slowdown : spec.T_slowdown_release;
        const double t_cross = locateCrossing(t_begin, dt, T_j_before, T_j, threshold);
        if (now_throttled != 0) {
          first_throttle = std::min(first_throttle, t_cross);
          throttled_correction -= t_cross - t_begin;  // slowed from t_cross, not all step
        } else {
          throttled_correction += t_cross - t_begin;  // still slowed until t_cross
        }
      }
      throttled[g] = now_throttled;
      shutdown[g] = now_shutdown;
      if (now_shutdown != shutdown_before) ++gpus_shut_down;
      // Clocks follow power as P ~ f^3, so speed = fraction^(1/3).
      state.gpu_speed[g] = now_shutdown != 0    ? 0.0
                           : now_throttled != 0 ? std::cbrt(spec.throttled_power_fraction)
                                                : 1.0;
      gpu_throttled_record[g] = now_throttled;
      gpu_shutdown_record[g] = now_shutdown;
    }
  }
  max_gpu_T = T_max;
  throttled_gpu_seconds += dt * static_cast<double>(throttled_count) + throttled_correction;
  if (throttled_count > 0 && now >= first_fault_time
      && first_throttle_after_fault == cooling::kNever) {
    // GPUs already slowed when the fault came are counted by applyEvent; otherwise one crossed
    // in this step.
    first_throttle_after_fault =
        std::max(first_fault_time, first_throttle != cooling::kNever ? first_throttle : t_begin);
  }
  for (std::size_t c = 0; c < cpu_die.size(); ++c) {
    if (cpu_die[c] != kNoDie) cpu_T_j[c] = T_junction[cpu_die[c]];
  }
  for (std::size_t w = 0; w < switch_die.size(); ++w) {
    if (switch_die[w] != kNoDie) switch_T_j[w] = T_junction[switch_die[w]];
  }
  std::size_t tray = 0;
  for (const Loop& loop : loops) {
    const std::span<const double> V = loop.solver->V_flow();
    for (std::size_t k = 0; k < loop.tray_links.size(); ++k, ++tray) {
      tray_V_flow[tray] = V[loop.tray_links[k]];
      const Link& ret = loop.links[loop.tray_return_links[k]];
      tray_T_out[tray] = cell_T[ret.cell_end - 1];
    }
  }
  for (std::size_t c = 0; c < units.size(); ++c) {
    const Unit& unit = units[c];
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
  }
  if (facility) {
    const FacilityLoop& f = *facility;
    for (std::size_t c = 0; c < units.size(); ++c) {
      cdu_T_facility_return[c] = f.cduReturnTemperature(c);
      cdu_T_facility_supply[c] = f.cduSupplyTemperature(c);
    }
    fac_T_supply = f.supplyTemperature();
    fac_T_return = f.returnTemperature();
    fac_V_flow = f.plantFlow();
    fac_pump_P = f.pumpElectricPower();
    fac_pump_speed = f.pumpSpeed();
    fac_dp_remote = f.remoteDifferentialPressure();
    fac_fan_P = f.fanPower();
    fac_Q_rejected = f.heatRejected();
    fac_chiller_Q = f.chillerHeat();
    fac_chiller_P = f.chillerElectricPower();
    fac_water_use = f.waterUseRate();
    fac_T_dry_bulb = f.ambientDryBulb();
    fac_T_wet_bulb = f.ambientWetBulb();
  }
}

// ------------------------------------------------------------------------------------------------

CoolingModel::CoolingModel(const core::SiteSpec& site, const core::SiteLayout& layout)
    : impl_(std::make_unique<Impl>()) {
  impl_->build(site, layout);
}

CoolingModel::~CoolingModel() = default;

void CoolingModel::initialize(core::SiteState& state) {
  Impl& m = *impl_;
  for (auto& loop : m.loops)
    m.solveHydraulics(loop);
  m.recordDesignPoint();
  // Start from rest at the supply set-point everywhere (the run warms the loop up).
  for (auto& loop : m.loops) {
    // A ring starts at its first CDU's set-point.
    const double T0 = m.units[loop.units.front()].cdu->T_supply_set;
    std::fill(m.die_T.begin() + loop.die_begin, m.die_T.begin() + loop.die_end, T0);
    std::fill(m.cell_T.begin() + loop.cell_begin, m.cell_T.begin() + loop.cell_end, T0);
    std::fill(loop.node_T.begin(), loop.node_T.end(), T0);
    for (const std::uint32_t u : loop.units) {
      Impl::Unit& unit = m.units[u];
      unit.T_supply = T0;
      unit.T_return = T0;
      unit.valve_opening = 0.5;
      unit.valve_integral = 0.5;
      unit.pump_integral = unit.pump_speed;  // the dp PI starts from the data's speed
      unit.pump_command = unit.pump_speed;   // the drive at rest at that speed
      unit.pump_drive.reset(unit.pump_speed);
    }
  }
  m.room_T = m.room.T_supply_air;
  std::fill(m.die_P.begin(), m.die_P.end(), 0.0);
  if (m.facility) {
    // Facility water starts at its supply set-point, the valves half open like the CDUs'.
    m.facility->initialize(m.facility->supplySetpoint(), 0.5);
    for (std::size_t u = 0; u < m.units.size(); ++u) {
      m.units[u].T_facility_supply = m.facility->cduSupplyTemperature(u);
      m.units[u].valve_opening = m.facility->valveOpening(u);
    }
  }
  m.E_stored_initial = m.stored();
  for (auto& loop : m.loops)
    loop.E_audit = loop.E_stored = m.loopStored(loop);
  m.E_in = m.E_rejected = m.E_cooling_electric = m.E_rejected_water = m.E_rejected_air = 0.0;
  m.max_gpu_T = 0.0;
  m.throttled_gpu_seconds = 0.0;
  m.publish(state, 0.0, true);
  m.initialised = true;
}

void CoolingModel::advance(double t, double dt, core::SiteState& state) {
  Impl& m = *impl_;
  // Heat of the step: the fast models' energies averaged over the macro step.
  const auto stepPower = [&](const std::vector<std::uint32_t>& die_of,
                             const std::vector<double>& E) {
    for (std::size_t chip = 0; chip < die_of.size(); ++chip) {
      if (die_of[chip] != Impl::kNoDie) m.die_P[die_of[chip]] = E[chip] / dt;
    }
  };
  stepPower(m.gpu_die, state.gpu_E_step);
  stepPower(m.cpu_die, state.cpu_E_step);
  stepPower(m.switch_die, state.switch_E_step);
  double Q_air = 0.0;
  for (double E : state.rack_air_E_step)
    Q_air += E / dt;
  Q_air += state.hall_air_E_step / dt;  // distribution losses in the hall (busways, RPPs)

  // Transport is implicit and stable at any step, but the valve PI is a sampled controller: one
  // sampled far slower than the loop responds (tens of seconds) overshoots and oscillates. Long
  // macro steps are therefore cycled in sub-steps of at most kControlStep.
  const int cycles = std::max(1, static_cast<int>(std::ceil(dt / cooling::kControlStep - 1e-9)));
  const double h = dt / cycles;
  for (int k = 0; k < cycles; ++k) {
    const double t_k = t + k * h;
    for (auto& loop : m.loops)
      m.updateHydraulics(loop, t_k);
    m.cycle(t_k, h, Q_air);
  }
  m.now = t + dt;
  m.publish(state, dt, false);
}

void CoolingModel::Impl::cycle(double t_start, double h, double Q_air) {
  // Every sweep rewrites all cell and die temperatures: the old step's become the "old" ones by
  // swapping buffers, not copying them.
  die_T.swap(die_T_old);
  cell_T.swap(cell_T_old);

  double Q_in = Q_air;
  for (double P : die_P)
    Q_in += P;
  double Q_out = 0.0;
  double Q_room = Q_air;
  double P_cooling = 0.0;
  for (Unit& unit : units) {
    controlValve(unit, h);
    controlPump(unit, h);
  }
  for (Loop& loop : loops)
    sweep(loop, h);
  for (std::uint32_t l = 0; l < loops.size(); ++l)
    auditLoop(l, t_start + h, h);
  double Q_water = 0.0;  // into facility water through the CDU exchangers
  for (const Unit& unit : units) {
    Q_in += unit.pump_P_electric;  // hydraulic part into the coolant, motor loss into the room
    Q_room += unit.pump_P_electric - unit.pump_P_hydraulic;
    Q_water += unit.Q_hx;
    P_cooling += unit.pump_P_electric;
  }
  double E_outdoors = 0.0;  // J leaving the site this cycle (besides the CRAH units)
  if (facility) {
    // The exchangers' heat of this cycle enters the facility loop, which carries it to the heat
    // rejection and the trim chiller. Energies from the loop's run totals, so they are exact.
    for (std::size_t u = 0; u < units.size(); ++u)
      facility_Q_cdu[u] = units[u].Q_hx;
    const FacilityLoop& f = *facility;
    const double pump_heat = f.pumpHeat(), rejected = f.energyRejected() + f.chillerEnergy();
    const double electric = f.pumpElectricEnergy() + f.fanEnergy() + f.chillerElectricEnergy();
    facility->advance(t_start + h, h, facility_Q_cdu);
    Q_in += (f.pumpHeat() - pump_heat) / h;  // the plant pumps' hydraulic power
    E_outdoors = f.energyRejected() + f.chillerEnergy() - rejected;
    P_cooling +=
        (f.pumpElectricEnergy() + f.fanEnergy() + f.chillerElectricEnergy() - electric) / h;
  } else {
    E_outdoors = Q_water * h;  // facility water is the boundary
  }

  // Room air node, implicit: C (T - T_old)/h = Q_room - Q_crah(T), Q_crah = G (T - T_sa) in
  // [0, capacity].
  room_T_old = room_T;
  const double store = room.heat_capacity / h;
  const double G = room.crah_conductance;
  double T = (store * room_T_old + Q_room + G * room.T_supply_air) / (store + G);
  double Q_crah_now = G * (T - room.T_supply_air);
  if (Q_crah_now > room.crah_Q_flow_max || Q_crah_now < 0.0) {
    Q_crah_now = std::clamp(Q_crah_now, 0.0, room.crah_Q_flow_max);
    T = room_T_old + (Q_room - Q_crah_now) / store;
  }
  room_T = T;
  Q_crah = Q_crah_now;
  crah_P_fan = room.crah_fan_power_fraction * Q_crah_now;
  P_cooling += crah_P_fan;
  Q_out += Q_crah_now;

  E_in += Q_in * h;
  E_rejected += Q_out * h + E_outdoors;
  E_rejected_air += Q_crah_now * h;
  E_rejected_water += Q_water * h;
  E_cooling_electric += P_cooling * h;
  site_E_balance_residual = E_in - E_rejected - (storedAfterSweep() - E_stored_initial);
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
  if (applied && isCoolingFault(event.kind)) {
    impl_->first_fault_time = std::min(impl_->first_fault_time, event.time);
    // A GPU already throttled when the fault strikes has no ride-through left.
    for (const std::uint8_t throttled : state.gpu_throttled) {
      if (throttled != 0 && impl_->first_throttle_after_fault == cooling::kNever) {
        impl_->first_throttle_after_fault = event.time;
      }
    }
  }
  return applied;
}

bool CoolingModel::Impl::applyEvent(const core::EventSpec& event) {
  Impl& m = *this;
  switch (event.kind) {
    case core::EventKind::CduLoss:
    case core::EventKind::ValveStuck:
      for (auto& unit : m.units) {
        if (unit.cdu->id.str() != event.target) continue;
        if (event.kind == core::EventKind::ValveStuck) {
          unit.valve_stuck = true;
          if (m.facility)
            m.facility->setValveStuck(static_cast<std::size_t>(&unit - m.units.data()), true);
          return true;
        }
        unit.pumps_running = unit.pumps_healthy = unit.pending_switches = 0;
        unit.switch_time = cooling::kNever;
        m.solveHydraulics(m.loops[unit.loop]);
        return true;
      }
      return false;
    case core::EventKind::ClogColdPlate: {
      // Partial clogging scales the plate's pressure-drop law; its flow falls, the others rise.
      const core::SiteLayout& L = *m.layout;
      for (const Die& die : m.dies) {
        const std::vector<std::string>& ids = die.kind == ChipKind::Gpu   ? L.gpu_ids
                                              : die.kind == ChipKind::Cpu ? L.cpu_ids
                                                                          : L.switch_ids;
        if (ids[die.chip] != event.target) continue;
        Loop& loop = m.loops[die.loop];
        loop.solver->law(die.link).dp_scale = event.value;
        m.solveHydraulics(loop);
        return true;
      }
      return false;
    }
    case core::EventKind::SetFacilitySupplyTemperature:
      if (m.facility) {
        m.facility->setSupplySetpoint(event.value);  // the plant's set-point moves
      } else {
        for (auto& unit : m.units)
          unit.T_facility_supply = event.value;
      }
      return true;
    case core::EventKind::FacilityPumpTrip:
      if (!m.facility) return false;
      m.facility->tripPump();
      return true;
    case core::EventKind::HeatRejectionFanLoss:
      if (!m.facility) return false;
      m.facility->setFanAvailability(1.0 - event.value);
      return true;
    case core::EventKind::SetSupplySetpoint:
    case core::EventKind::SetPumpSpeed:
    case core::EventKind::PumpTrip:
      for (auto& unit : m.units) {
        if (unit.cdu->id.str() != event.target) continue;
        if (event.kind == core::EventKind::SetSupplySetpoint) {
          unit.T_supply_set = event.value;
        } else if (event.kind == core::EventKind::SetPumpSpeed) {
          // The drive ramps to the new speed with its rise time (at once without one).
          unit.pump_command = event.value;
          unit.pump_integral = event.value;  // a dp PI goes on from the new speed
          if (unit.pump_drive.tau <= 0.0) {
            unit.pump_speed = event.value;
            unit.pump_drive.reset(event.value);
            m.solveHydraulics(m.loops[unit.loop]);
          }
        } else if (unit.pumps_running > 0) {
          // A duty pump trips for good. A healthy pump that is not running (a standby) starts
          // after the switch-over time; meanwhile the CDU runs on the remaining duty pumps.
          --unit.pumps_running;
          --unit.pumps_healthy;
          const int standby = unit.pumps_healthy - unit.pumps_running - unit.pending_switches;
          if (standby > 0) {
            if (unit.pending_switches == 0) {
              unit.switch_time = m.now + unit.cdu->standby_switchover_time;
            }
            ++unit.pending_switches;
          }
          m.solveHydraulics(m.loops[unit.loop]);
        }
        return true;
      }
      return false;
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
               m.gpu_T_j.data());
  recorder.add({"gpu", "V_flow", "m3/s", "Coolant volume flow through the GPU's cold plate",
                L.gpu_ids, kMean},
               m.gpu_V_flow.data());
  recorder.add({"rack", "V_flow", "m3/s", "Coolant volume flow into the rack (supply hose)",
                L.rack_ids, kMean},
               m.rack_V_flow.data());
  recorder.add(
      {"rack", "dp_available", "Pa",
       "Differential pressure across the rack's supply and return manifolds", L.rack_ids, kSample},
      m.rack_dp_available.data());
  recorder.add(
      {"gpu", "throttled", "1", "1 while the GPU is in thermal slowdown", L.gpu_ids, kSample},
      m.gpu_throttled_record.data());
  recorder.add(
      {"gpu", "shutdown", "1", "1 once the GPU has shut down over temperature", L.gpu_ids, kSample},
      m.gpu_shutdown_record.data());
  recorder.add(
      {"cpu", "T_junction", "K", "Grace CPU junction temperature", L.cpu_ids, kTemperature},
      m.cpu_T_j.data());
  recorder.add({"nvswitch", "T_junction", "K", "NVLink switch junction temperature", L.switch_ids,
                kTemperature},
               m.switch_T_j.data());
  recorder.add(
      {"tray", "V_flow", "m3/s", "Coolant volume flow through the tray", m.tray_ids, kMean},
      m.tray_V_flow.data());
  recorder.add(
      {"tray", "T_outlet", "K", "Coolant temperature leaving the tray", m.tray_ids, kTemperature},
      m.tray_T_out.data());
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
  if (m.facility) {
    const std::vector<std::string> none;
    recorder.add(
        {"facility", "T_supply", "K", "Facility water leaving the plant", none, kTemperature},
        &m.fac_T_supply);
    recorder.add(
        {"facility", "T_return", "K", "Facility water returning to the plant", none, kTemperature},
        &m.fac_T_return);
    recorder.add(
        {"facility", "V_flow", "m3/s", "Facility water flow through the plant pumps", none, kMean},
        &m.fac_V_flow);
    recorder.add({"facility", "pump_P", "W", "Electrical power of the plant pumps", none, kMean},
                 &m.fac_pump_P);
    recorder.add({"facility", "pump_speed", "1", "Plant pump speed", none, kMean},
                 &m.fac_pump_speed);
    recorder.add({"facility", "dp_remote", "Pa",
                  "Differential pressure across the most remote CDU branch", none, kSample},
                 &m.fac_dp_remote);
    recorder.add({"facility", "fan_P", "W", "Heat-rejection fan power", none, kMean}, &m.fac_fan_P);
    recorder.add({"facility", "Q_flow_rejected", "W", "Heat rejected to outdoor air", none, kMean},
                 &m.fac_Q_rejected);
    recorder.add(
        {"facility", "Q_flow_chiller", "W", "Heat removed by the trim chiller", none, kMean},
        &m.fac_chiller_Q);
    recorder.add(
        {"facility", "chiller_P", "W", "Electrical power of the trim chiller", none, kMean},
        &m.fac_chiller_P);
    recorder.add({"facility", "V_flow_water_use", "m3/s",
                  "Make-up water (evaporation, drift, "
                  "blow-down)",
                  none, kMean},
                 &m.fac_water_use);
    recorder.add({"ambient", "T_dry_bulb", "K", "Outdoor dry-bulb temperature", none, kTemperature},
                 &m.fac_T_dry_bulb);
    recorder.add({"ambient", "T_wet_bulb", "K", "Outdoor wet-bulb temperature", none, kTemperature},
                 &m.fac_T_wet_bulb);
  }
  recorder.add({"room", "T_air", "K", "Room (hot aisle) air temperature", {}, kTemperature},
               &m.room_T);
  recorder.add({"room", "Q_flow_crah", "W", "Heat removed by the CRAH units", {}, kMean},
               &m.Q_crah);
  recorder.add({"site",
                "energy_balance_residual",
                "J",
                "Heat in - heat rejected - change in stored heat, since the start",
                {},
                kSample},
               &m.site_E_balance_residual);
}

void CoolingModel::summarise(core::Summary& summary) const {
  const Impl& m = *impl_;
  const double residual = m.E_in - m.E_rejected - (m.stored() - m.E_stored_initial);
  summary.add({"max_gpu_temperature_K", m.max_gpu_T, "Max GPU junction temperature", "degC", 1.0,
               -core::kZeroCelsius_K});
  summary.add({"thermal_energy_balance_relative_error",
               m.E_in > 0.0 ? std::abs(residual) / m.E_in : 0.0,
               "Thermal energy balance error (relative)", "", 1.0, 0.0});
  summary.add({"energy_audit_relative_error_max", m.audit.worst,
               "Energy audit from enthalpy flows (plates, exchangers, loops), worst relative", "",
               1.0, 0.0});
  summary.add({"energy_audit_checks", static_cast<double>(m.audit.checks),
               "Energy audit checks passed", "", 1.0, 0.0});
  summary.add({"heat_input_J", m.E_in, "Heat into coolant and room air", "kWh", 1.0 / 3.6e6, 0.0,
               true});
  summary.add({"heat_rejected_to_facility_water_J", m.E_rejected_water,
               "Heat rejected to facility water", "kWh", 1.0 / 3.6e6, 0.0, true});
  if (m.facility) {
    const FacilityLoop& f = *m.facility;
    summary.add({"heat_rejected_outdoors_J",
                 f.energyRejected() + f.chillerEnergy() + f.chillerElectricEnergy(),
                 "Heat rejected outdoors (plant, chiller condenser)", "kWh", 1.0 / 3.6e6, 0.0,
                 true});
    summary.add({"facility_pump_energy_J", f.pumpElectricEnergy(), "Facility pump energy", "kWh",
                 1.0 / 3.6e6, 0.0});
    summary.add({"heat_rejection_fan_energy_J", f.fanEnergy(), "Heat-rejection fan energy", "kWh",
                 1.0 / 3.6e6, 0.0});
    summary.add({"chiller_energy_J", f.chillerElectricEnergy(), "Trim chiller energy", "kWh",
                 1.0 / 3.6e6, 0.0});
    summary.add({"water_use_m3", f.waterUsed(), "Make-up water", "L", 1e3, 0.0});
  }
  summary.add({"heat_rejected_to_air_J", m.E_rejected_air, "Heat removed by CRAH units", "kWh",
               1.0 / 3.6e6, 0.0, true});
  summary.add({"cooling_energy_J", m.E_cooling_electric, "Cooling electrical energy (pumps, fans)",
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
  for (const Impl::Unit& unit : m.units) {
    if (unit.facility_branch)
      authority = std::min(authority.value_or(1.0), unit.facility_branch->authority());
  }
  summary.add({"facility_valve_authority_min", authority,
               "Facility valve authority at nominal flow, lowest CDU", "", 1.0, 0.0});
  summary.add({"rack_dp_available_min_Pa", d.rack_dp_min,
               "Manifold dp, least favoured rack (design)", "kPa", 1e-3, 0.0});
  summary.add(
      {"throttled_gpu_seconds", m.throttled_gpu_seconds, "Throttled GPU time", "GPU s", 1.0, 0.0});
  summary.add({"gpus_shut_down", static_cast<double>(m.gpus_shut_down),
               "GPUs shut down over temperature", "", 1.0, 0.0});
  // From the first fault to the first GPU throttle at or after it (step resolution); null when
  // there was no fault or no GPU throttled after it.
  const bool rode =
      m.first_fault_time != cooling::kNever && m.first_throttle_after_fault != cooling::kNever;
  summary.add({"ride_through_s",
               rode ? std::optional<double>(m.first_throttle_after_fault - m.first_fault_time)
                    : std::nullopt,
               "Ride-through, first fault to first throttle", "s", 1.0, 0.0});
}

double CoolingModel::storedEnergy() const {
  return impl_->stored();
}
double CoolingModel::heatInput() const {
  return impl_->E_in;
}
double CoolingModel::heatRejected() const {
  return impl_->E_rejected;
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
  for (const Impl::Loop& loop : impl_->loops) {
    if (const auto n = loop.network.findNode(node_id)) return loop.node_T[*n];
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
double CoolingModel::maxGpuJunctionTemperature() const {
  return impl_->max_gpu_T;
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
  return impl_->gpu_V_flow;
}

}  // namespace racktwin::thermal
