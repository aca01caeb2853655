// CoolingModel's checkpoint: every value a step changes, so a resumed run continues bit for bit.
// What the build fixes (networks, cell capacities, specs, the coolant) comes from the scenario
// and initialize(); what the run changes (temperatures, flows, controls, caches of the sweeps,
// totals and recorder views) is listed by each part. Caches are saved rather than rebuilt: a
// rebuild from a different history could round differently.
#include <algorithm>

#include "CoolingModelImpl.hpp"
#include "racktwin/core/StateArchive.hpp"

namespace racktwin::thermal {

namespace cooling {

void CoolantLoop::visitState(core::StateArchive& b) {
  solver->visitState(b);
  b.resizable(order);
  b.resizable(C_link);
  b.resizable(link_up);
  b.resizable(link_down);
  b.resizable(in_begin);
  b.resizable(in_links);
  b.resizable(out_begin);
  b.resizable(out_links);
  b.resizable(node_alpha);
  b.resizable(node_beta);
  b.resizable(node_T);
  b.resizable(cell_beta);
  b.resizable(die_beta);
  b.resizable(closure);
  b.resizable(cell_inv_diag);
  b.resizable(in_last_cell);
  b.resizable(in_weight);
  b.resizable(still_links);
  b(E_stored, E_audit);
  b.resizable(plate_cell_begin);
  b.resizable(plate_cell_end);
  b.resizable(plate_up);
  b.resizable(plate_C_flow);
  b.resizable(plate_C_cells);
  b(cache_dt, version, cache_version);
  b.resizable(x);
  b(single.valid);
  for (auto* v : {&single.p, &single.f, &single.gamma, &single.die_a, &single.die_b, &single.die_d1,
                  &single.die_e, &single.die_gamma, &single.node_gamma})
    b.resizable(*v);
  b.resizable(single.die_cell);
  b.resizable(single.die_up);
  b.trivialResizable(single.node_start);
  for (auto* v : {&single.node_in_end, &single.node_out_end, &single.mix_cell, &single.run_begin,
                  &single.run_end})
    b.resizable(*v);
  b.resizable(single.mix_weight);
  b(single.Gamma, single.hx_cell, single.pump_cell_begin, single.pump_cell_end, single.pump_out);
  b.resizable(flow_scratch);
  b.resizable(in_fill);
  b.resizable(out_fill);
  b.resizable(direction);
  b.trivial(fluid);
  b(cp, T_hydraulics, last_status.converged, last_status.iterations,
    last_status.relative_flow_change, last_status.message);
  b.resizable(last_status.disconnected_nodes);
  b(rack_dp_min);
}

}  // namespace cooling

void CoolingModel::visitState(core::StateArchive& a, const core::SiteState& /*state*/) {
  Impl& m = *impl_;
  RACKTWIN_ASSERT(m.initialised, "CoolingModel::visitState before initialize()");
  m.chips.visitState(a);
  a(m.cells.T, m.cells.T_old, m.cells.alpha);
  a.each(m.couplings,
         [](core::StateArchive& b, cooling::HeatCoupling& c) { b(c.q, c.G, c.T_other, c.Q_out); });
  a.section("cooling chips and cells");

  a.each(m.units, [](core::StateArchive& b, cooling::CduUnit& u) { u.visitState(b); });
  a.section("cooling units");

  a.each(m.loops, [](core::StateArchive& b, cooling::CoolantLoop& loop) { loop.visitState(b); });
  a.section("cooling loops");

  std::size_t facility_loops = m.facilities.size();
  a(facility_loops);
  if (facility_loops != m.facilities.size()) {
    throw core::RuntimeError("saved state does not fit this run: the facility loops differ");
  }
  for (const auto& f : m.facilities)
    f->visitState(a);
  a(m.facility_Q_cdu, m.fac_T_supply, m.fac_T_return, m.fac_V_flow, m.fac_pump_P, m.fac_pump_speed,
    m.fac_dp_remote, m.fac_fan_P, m.fac_Q_rejected, m.fac_chiller_Q, m.fac_chiller_P,
    m.fac_water_use, m.fac_T_dry_bulb, m.fac_T_wet_bulb);
  m.room.visitState(a);
  m.rack_exchangers.visitState(a);
  bool has_air_plant = m.air_plant != nullptr;
  a(has_air_plant);
  if (has_air_plant != (m.air_plant != nullptr)) {
    throw core::RuntimeError("saved state does not fit this run: the air-side plant differs");
  }
  if (m.air_plant) m.air_plant->visitState(a);
  a(m.rack_air_P, m.rack_air_P_step, m.rack_T_inlet, m.rack_fan_speed, m.rack_air_film,
    m.rack_fan_P, m.rack_out_of_class_s);
  a(m.T_inlet_max, m.E_server_fans);
  m.ledger.visitState(a);
  a(m.hydraulic_solves, m.hydraulic_iterations_max, m.now);
  a(m.control_step, m.hunting_at_minimum);
  a.trivialResizable(m.control_step_changes);
  a.trivial(m.audit);
  a.trivial(m.design);
  a(m.rack_dp_available, m.rack_V_flow, m.tray_V_flow, m.tray_T_out);
  // Restored views may hold a step's means: the next step rewrites the flows (the same values
  // when they held one solve's).
  std::fill(m.tray_V_version.begin(), m.tray_V_version.end(), ~std::uint64_t{0});
  a(m.cdu_T_supply, m.cdu_T_return, m.cdu_V_flow, m.cdu_Q_flow, m.cdu_valve, m.cdu_V_facility,
    m.cdu_T_facility_return, m.cdu_pump_dp, m.cdu_pump_P, m.cdu_T_facility_supply,
    m.cdu_pump_P_hydraulic, m.cdu_pumps_running, m.cdu_fan_P);
  a.section("cooling totals");
}

}  // namespace racktwin::thermal
