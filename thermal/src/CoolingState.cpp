// CoolingModel's checkpoint: every value a step changes, so a resumed run continues bit for bit.
// What the build fixes (networks, cell capacities, specs, the coolant) comes from the scenario
// and initialize(); what the run changes (temperatures, flows, controls, caches of the sweeps,
// totals and recorder views) is listed here. Caches are saved rather than rebuilt: a rebuild
// from a different history could round differently.
#include "CoolingModelImpl.hpp"
#include "racktwin/core/StateArchive.hpp"

namespace racktwin::thermal {

void CoolingModel::visitState(core::StateArchive& a, const core::SiteState& /*state*/) {
  Impl& m = *impl_;
  RACKTWIN_ASSERT(m.initialised, "CoolingModel::visitState before initialize()");
  a(m.die_T, m.die_T_old, m.die_alpha, m.die_P, m.die_R, m.die_T_junction, m.die_g, m.die_inv,
    m.die_store, m.cell_T, m.cell_T_old, m.cell_alpha);
  a.section("cooling chips and cells");

  a.each(m.units, [](core::StateArchive& b, Impl::Unit& u) {
    b(u.pump_speed, u.pumps_running, u.pumps_healthy, u.pending_switches, u.switch_time,
      u.valve_opening, u.valve_integral, u.pump_integral, u.pump_speed_solved, u.pump_command,
      u.pump_drive.tau, u.pump_drive.stage, u.pump_drive.output, u.valve_stuck, u.T_facility_supply,
      u.T_supply_set, u.facility_C_nominal, u.C_facility, u.G_hx);
    b(u.Q_hx, u.T_supply, u.T_return, u.V_secondary, u.V_facility, u.T_facility_return, u.pump_dp,
      u.pump_P_hydraulic, u.pump_P_electric);
  });
  a.section("cooling units");

  a.each(m.loops, [](core::StateArchive& b, Impl::Loop& loop) {
    loop.solver->visitState(b);
    b.resizable(loop.order);
    b.resizable(loop.C_link);
    b.resizable(loop.link_up);
    b.resizable(loop.link_down);
    b.resizable(loop.in_begin);
    b.resizable(loop.in_links);
    b.resizable(loop.out_begin);
    b.resizable(loop.out_links);
    b.resizable(loop.node_alpha);
    b.resizable(loop.node_beta);
    b.resizable(loop.node_T);
    b.resizable(loop.cell_beta);
    b.resizable(loop.die_beta);
    b.resizable(loop.closure);
    b.resizable(loop.cell_inv_diag);
    b.resizable(loop.in_last_cell);
    b.resizable(loop.in_weight);
    b.resizable(loop.still_links);
    b(loop.E_stored, loop.E_audit);
    b.resizable(loop.plate_cell_begin);
    b.resizable(loop.plate_cell_end);
    b.resizable(loop.plate_up);
    b.resizable(loop.plate_C_flow);
    b.resizable(loop.plate_C_cells);
    b(loop.cache_dt, loop.version, loop.cache_version);
    b.resizable(loop.x);
    Impl::Loop::SingleSweep& s = loop.single;
    b(s.valid);
    for (auto* v : {&s.p, &s.f, &s.s, &s.gamma, &s.die_a, &s.die_b, &s.die_d1, &s.die_e, &s.die_d0,
                    &s.die_gamma, &s.node_gamma})
      b.resizable(*v);
    b.resizable(s.die_cell);
    b.resizable(s.die_up);
    b.resizable(s.out_cell_begin);
    b.resizable(s.out_cell_end);
    b(s.Gamma, s.hx_cell, s.pump_cell_begin, s.pump_cell_end, s.pump_out);
    b.resizable(loop.flow_scratch);
    b.resizable(loop.in_fill);
    b.resizable(loop.out_fill);
    b.resizable(loop.direction);
    b.trivial(loop.fluid);
    b(loop.cp, loop.T_hydraulics, loop.last_status.converged, loop.last_status.iterations,
      loop.last_status.relative_flow_change, loop.last_status.message);
    b.resizable(loop.last_status.disconnected_nodes);
    b(loop.rack_dp_min);
  });
  a.section("cooling loops");

  bool has_facility = m.facility != nullptr;
  a(has_facility);
  if (has_facility != (m.facility != nullptr)) {
    throw core::RuntimeError("saved state does not fit this run: the facility loop differs");
  }
  if (m.facility) m.facility->visitState(a);
  a(m.facility_Q_cdu, m.E_facility_stored_initial, m.fac_T_supply, m.fac_T_return, m.fac_V_flow,
    m.fac_pump_P, m.fac_pump_speed, m.fac_dp_remote, m.fac_fan_P, m.fac_Q_rejected, m.fac_chiller_Q,
    m.fac_chiller_P, m.fac_water_use, m.fac_T_dry_bulb, m.fac_T_wet_bulb);
  a(m.room_T, m.room_T_old, m.Q_crah, m.crah_P_fan);
  a(m.E_in, m.E_rejected, m.E_stored_initial, m.E_cooling_electric, m.E_rejected_water,
    m.E_rejected_air, m.max_gpu_T, m.throttled_gpu_seconds, m.gpus_shut_down, m.first_fault_time,
    m.first_throttle_after_fault, m.hydraulic_solves, m.hydraulic_iterations_max, m.now);
  a.trivial(m.audit);
  a.trivial(m.design);
  a(m.gpu_T_j, m.cpu_T_j, m.switch_T_j, m.gpu_throttled_record, m.gpu_shutdown_record,
    m.gpu_T_j_peak, m.gpu_V_flow, m.rack_dp_available, m.rack_V_flow, m.tray_V_flow, m.tray_T_out);
  a(m.cdu_T_supply, m.cdu_T_return, m.cdu_V_flow, m.cdu_Q_flow, m.cdu_valve, m.cdu_V_facility,
    m.cdu_T_facility_return, m.cdu_pump_dp, m.cdu_pump_P, m.cdu_T_facility_supply,
    m.cdu_pump_P_hydraulic, m.cdu_pumps_running, m.site_E_balance_residual);
  a.section("cooling totals");
}

}  // namespace racktwin::thermal
