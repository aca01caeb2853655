#pragma once
// CoolingModel's parts, one noun each (thermal/src/cooling/):
//  - CoolantLoop: a secondary loop's network, hydraulics, heat sweep and energy audit;
//  - CduUnit: a CDU's pumps, exchanger and controllers;
//  - ChipThermal: the chips' case nodes on their cold plates, junctions and throttling;
//  - RoomAir: the room air node and the CRAH units;
//  - EnergyLedger and EnergyAudit: the books and their independent check.
// The components of the loops come from the registry of coolant component kinds
// (thermal/src/components/). This struct composes the parts and orders their work in a step:
//  - CoolingBuild.cpp: the loops from the site (rings, CDU loops, racks, trays, plates);
//  - CoolingModel.cpp: the public model (steps, events, channels, summary);
//  - CoolingState.cpp: the checkpoint.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cooling/AttachedLinks.hpp"
#include "cooling/CduUnit.hpp"
#include "cooling/ChipThermal.hpp"
#include "cooling/Common.hpp"
#include "cooling/CoolantLoop.hpp"
#include "cooling/EnergyAudit.hpp"
#include "cooling/EnergyLedger.hpp"
#include "cooling/RackAirExchangers.hpp"
#include "cooling/RoomAir.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/ThreadPool.hpp"
#include "racktwin/thermal/ChilledWaterPlant.hpp"
#include "racktwin/thermal/CoolingModel.hpp"
#include "racktwin/thermal/FacilityLoop.hpp"

namespace racktwin::thermal {

struct CoolingModel::Impl {
  using Index = cooling::Index;

  cooling::CoolantCells cells;
  cooling::ChipThermal chips;
  std::vector<cooling::CduUnit> units;  // site order
  std::vector<cooling::CoolantLoop> loops;
  std::vector<cooling::HeatCoupling> couplings;  // of every HeatSource and Exchanger link
  cooling::RoomAir room;
  std::unique_ptr<ChilledWaterPlant> air_plant;  // the CRAH units' chilled water, if any
  cooling::RackAirExchangers rack_exchangers;    // rear doors and other coils on rack exhaust air
  cooling::AttachedLinks attached;               // other attached components (a bypass, ...)
  std::vector<double> rack_air_P_step;  // W of the racks' tray air loads and losses in the step
  std::vector<double> rack_air_P;  // W of air heat per rack in the cycle (with air-cooled chips)
  // Air at the racks' inlets: the CRAH supply with the room's recirculation; air-cooled racks'
  // server fans (speed from inlet and load each macro step) and their time outside the inlet
  // class of their type.
  std::vector<double> rack_T_inlet, rack_fan_speed, rack_fan_P, rack_out_of_class_s;
  std::vector<double> rack_air_film;     // speed^0.8 of each air-cooled rack's fans
  std::vector<std::uint32_t> air_racks;  // site indices of the air-cooled racks
  double T_inlet_max = 0.0, E_server_fans = 0.0;
  /// The racks' inlet air from the room's state: T_supply + recirculation (T_room - T_supply).
  void updateInlets();
  /// Server fan speeds and powers of the air-cooled racks for the coming macro step.
  void controlServerFans(core::SiteState& state, double dt);
  cooling::EnergyLedger ledger;
  cooling::EnergyAudit audit;
  // Partitions: within a thermal cycle the coolant loops are independent. A loop owns its cells
  // [cell_begin, cell_end), its dies [die_begin, die_end), its links' couplings and its CDUs
  // (checked when the model is built, checkPartitions), so the loops sweep and audit side by
  // side on the run's threads; each records its audit here, merged into `audit` in loop order.
  core::ThreadPool* pool = nullptr;
  std::vector<cooling::EnergyAudit> loop_audits;
  std::vector<int> loop_solves, loop_iterations_max;  // a pass's hydraulic solves, per loop
  std::vector<std::size_t> loop_tray_begin;           // each loop's first tray in the views
  // Per loop: the hydraulic solve (CoolantLoop::version) whose flows its trays' flow views hold,
  // or ~0 when they hold something else (a step's mean over its cycles): rewritten only then.
  std::vector<std::uint64_t> tray_V_version;
  std::vector<std::vector<std::uint32_t>> loop_units_in_site_order;  // its CDUs' controllers' order
  /// body(l) for every loop, side by side on the pool when there is one.
  template <class Body>
  void forEachLoop(Body&& body) {
    core::forEachTask(pool, loops.size(), body);
  }
  /// Adds the loops' audit records and solve counts of a pass to the model's, in loop order.
  void mergeLoopRecords();
  /// Throws core::RuntimeError when two loops would write the same cell, die, coupling or CDU.
  void checkPartitions() const;

  // ---- Facility water: modelled loops, one per hall (each its plant, pumps, valves and mains),
  // or a boundary condition (a fixed supply temperature and dp across each CDU,
  // CduUnit::facility_branch). ----
  std::vector<std::unique_ptr<FacilityLoop>> facilities;  // CduUnit::facility_loop indexes them
  std::vector<std::string> facility_ids;                  // "" for the single `loop`
  std::vector<std::vector<core::CduSpec>> facility_cdus;  // each loop's CDUs (facility_index)
  std::vector<std::vector<double>> facility_Q_cdu;  // W per CDU into its loop's water, this cycle
  std::vector<double> cdu_T_facility;  // K, each CDU's facility supply set-point at build
  // Recorder views of the plants, one element per loop.
  std::vector<double> fac_T_supply, fac_T_return, fac_V_flow, fac_pump_P, fac_pump_speed,
      fac_dp_remote, fac_fan_P, fac_Q_rejected, fac_chiller_Q, fac_chiller_P, fac_water_use;
  double fac_T_dry_bulb = 0.0, fac_T_wet_bulb = 0.0;  // the ambient (one for every loop)
  /// A plant's energy totals (J, m3) at the start of a macro step, for its mean powers.
  struct PlantTotals {
    double pump = 0.0, fan = 0.0, chiller_electric = 0.0, rejected = 0.0, chiller = 0.0,
           water = 0.0;
  };
  std::vector<PlantTotals> plant_before;  // one per loop

  double control_step = cooling::kControlStep;  // s, SimulationSpec::control_step
  // A CDU that hunts (cooling::HuntingWatch) halves the control step for the rest of the run,
  // down to kControlStepMin: the controllers' sample interval is numerics, and one that makes a
  // controller unstable gives a swing the real one would not have.
  static constexpr double kControlStepMin = 0.25;  // s
  struct ControlStepChange {
    double t = 0.0, from = 0.0, to = 0.0;  // s: when, and the control step before and after
    std::uint32_t unit = 0;                // the CDU whose hunting it answered
  };
  std::vector<ControlStepChange> control_step_changes;
  // Fast-forward (SimulationSpec::fast_forward): a step longer than the control step is one
  // cycle, its CDU PIs solved for the step's end (CduUnit::controlValveQuasiSteady,
  // controlPumpQuasiSteady), which is stable at any length.
  bool quasi_steady_enabled = false;
  bool quasi_steady_cycle = false;  // the cycle under way is such a step
  bool hunting_at_minimum = false;  // a CDU hunted with its PI sampled every kControlStepMin
  /// After a cycle of h ending at t: when a CDU's watch has just recognised hunting, halves the
  /// controllers' sample interval (the shorter of the control step and h).
  void answerHunting(double t, double h);
  int hydraulic_solves = 0, hydraulic_iterations_max = 0;
  bool initialised = false;
  double now = 0.0;                 // s, end of the last step (when events apply)
  bool general_sweep_only = false;  // validation: every loop takes the general sweep
  double plate_heat_error = 0.0;    // validation of the audit: injectPlateHeatErrorForValidation

  // ---- Recorder views (stable arrays). ----
  std::vector<double> rack_dp_available;  // Pa across each rack's manifolds (supply - return)
  std::vector<double> rack_V_flow;        // m3/s through each rack's supply hose
  // Design point: the first hydraulic solve.
  struct DesignPoint {
    double pump_V_flow = 0.0, pump_dp = 0.0, pump_P = 0.0;
    double plate_V_min = 0.0, plate_V_max = 0.0, plate_V_mean = 0.0;
    double plates_below_minimum = 0.0;
    double rack_dp_min = 0.0;
    // The pump with the highest head: its flow as a fraction of its curve's zero-head flow at
    // its speed, and the exponent n of the system curve dp = k V^n it meets.
    double pump_flow_fraction = 0.0, system_curve_exponent = 0.0;
  } design;
  std::vector<double> tray_V_flow, tray_T_out;
  std::vector<std::string> tray_ids;
  std::vector<double> cdu_T_supply, cdu_T_return, cdu_V_flow, cdu_Q_flow, cdu_valve, cdu_V_facility,
      cdu_T_facility_return, cdu_pump_dp, cdu_pump_P, cdu_T_facility_supply, cdu_pump_P_hydraulic,
      cdu_pumps_running;
  std::vector<std::string> cdu_ids;
  std::vector<double> cdu_fan_P;  // W, a liquid-to-air CDU's fans (recorded when there is one)
  // A macro step cycled in several thermal cycles: the views recorded as interval means are
  // averaged over its cycles (mean_views, summed in mean_sums), and the facility plant's powers
  // follow from its energy totals, so the file's means integrate to the summary's energies at
  // any step. One cycle: the cycle's values as they are.
  std::vector<double*> mean_views;
  std::vector<double> mean_sums;
  /// Lists mean_views (after build and channel declaration: the views are stable).
  void collectMeanViews();
  /// The CDU views of the last cycle (publish's, for the averaging between cycles).
  void publishUnits();

  const core::SiteLayout* layout = nullptr;
  const core::SiteSpec* site_spec = nullptr;  // outlives the model (the Twin holds it)

  /// The parts a loop works on.
  cooling::LoopContext context() { return context(audit); }
  /// The same, with the audit record and solve counts of one loop (a pass of loops side by side).
  cooling::LoopContext context(std::size_t l) {
    return context(loop_audits[l], loop_solves[l], loop_iterations_max[l]);
  }
  cooling::LoopContext context(cooling::EnergyAudit& record) {
    return context(record, hydraulic_solves, hydraulic_iterations_max);
  }
  cooling::LoopContext context(cooling::EnergyAudit& record, int& solves, int& iterations_max) {
    return cooling::LoopContext{
        cells,       chips,  units,          couplings,          record,          rack_dp_available,
        rack_V_flow, solves, iterations_max, general_sweep_only, plate_heat_error};
  }
  void solveHydraulics(cooling::CoolantLoop& loop) {
    cooling::LoopContext ctx = context();
    loop.solveHydraulics(ctx);
  }

  // CoolingBuild.cpp
  void build(const core::SiteSpec& site, const core::SiteLayout& site_layout);
  struct LoopBuilder;
  void finishLoop(cooling::CoolantLoop& loop, const core::SiteSpec& site,
                  std::vector<LinkLaw> laws);

  // CoolingModel.cpp
  void recordDesignPoint();
  /// One implicit thermal step of length h with the step's chip heat and air heat Q_air.
  void cycle(double t_start, double h, double Q_air);
  bool applyEvent(const core::EventSpec& event);
  double stored() const;
  /// stored() from the sums the last sweep of every loop made: valid right after a cycle.
  double storedAfterSweep() const;
  /// The step's results into the state and the recorder views; `all` also rewrites what
  /// follows from unchanged throttle and shutdown states (at initialisation).
  void publish(core::SiteState& state, double dt, bool all);
  /// Loop l's trays' flows and outlet temperatures into the views (its own slice): at the end of
  /// its sweep task, while its cells are in the core's caches, and at initialisation.
  void publishTrays(std::size_t l);
};

}  // namespace racktwin::thermal
