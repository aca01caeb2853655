#pragma once
// SiteSpec: the validated, plain-data description of a site that scenarios::load produces from a
// scenario file and the component data it names. Every quantity is SI (K, Pa, m, m3, m3/s, kg/s,
// W, J, s). The models are built from a SiteSpec and never see the YAML.
#include <cstdint>
#include <string>
#include <vector>

#include "racktwin/core/ComponentId.hpp"
#include "racktwin/core/Error.hpp"

namespace racktwin::core {

/// dp = dp_nominal * (V_flow / V_flow_nominal)^exponent, odd in V_flow.
struct PowerLawDrop {
  double dp_nominal = 0.0;      // Pa
  double V_flow_nominal = 0.0;  // m3/s
  double exponent = 2.0;        // 1 = laminar, 2 = fully turbulent
};

/// A tabulated pressure drop (strainers, manifolds, heat-exchanger sides): dp[i] at V_flow[i],
/// both strictly increasing and positive, at least two points. The law runs piecewise linear from
/// (0, 0) through the points, continues along its last segment beyond the last point, and is odd
/// in V_flow; its gradient is therefore positive everywhere.
struct PressureDropTable {
  std::vector<double> V_flow;  // m3/s
  std::vector<double> dp;      // Pa
};

/// The pressure-drop law of a passive component, as its data file gives it.
struct PressureDropLaw {
  enum class Form : std::uint8_t { PowerLaw, Table };
  Form form = Form::PowerLaw;
  PowerLawDrop power_law;   // Form::PowerLaw
  PressureDropTable table;  // Form::Table
};

/// A straight pipe or hose: Darcy-Weisbach friction, split into `cells` upwind volumes for heat
/// transport (numerical diffusion of one cell, see docs/ARCHITECTURE.md).
struct PipeSpec {
  double length = 0.0;     // m
  double diameter = 0.0;   // m, inner
  double roughness = 0.0;  // m, absolute
  int cells = 1;
};

/// A cold plate: thermal resistance from case to coolant inlet R = R_constant + R_flow / V_flow
/// (fit to the OCP OAI cold-plate curve), V_flow clamped below at V_flow_min; pressure drop law.
struct ColdPlateSpec {
  std::string type;         // data name, e.g. "ocp-oai-1kw-pg25"
  double R_constant = 0.0;  // K/W
  double R_flow = 0.0;      // K/W * m3/s
  double V_flow_min = 0.0;  // m3/s
  PowerLawDrop dp;
  double volume = 0.0;  // m3 of coolant inside the plate
};

/// A liquid-cooled chip (GPU, CPU, NVSwitch) as a lumped case node on its cold plate.
struct ChipSpec {
  double P_max = 0.0;                     // W, power limit (TGP for GPUs)
  double P_idle = 0.0;                    // W
  double heat_capacity = 0.0;             // J/K, die + lid + cold-plate metal lumped
  double R_junction_case = 0.0;           // K/W, junction above the case node
  double T_slowdown = 0.0;                // K, junction temperature where slowdown starts
  double T_slowdown_release = 0.0;        // K, hysteresis: slowdown ends below this
  double throttled_power_fraction = 1.0;  // of P_max while slowed down
  ColdPlateSpec cold_plate;
};

/// 80 PLUS style efficiency table: efficiency[i] at load_fraction[i] (output / rated).
struct EfficiencyCurve {
  std::vector<double> load_fraction;
  std::vector<double> efficiency;
};

struct PowerShelfSpec {
  int shelves = 8;
  int psus_per_shelf = 6;
  double psu_P_rated = 5500.0;  // W, DC output
  EfficiencyCurve psu_efficiency;
  double power_factor = 0.99;
};

/// A rack type from data/ (GB300 NVL72 for now), copied into each rack that uses it.
struct RackTypeSpec {
  std::string type;  // data name, e.g. "gb300-nvl72"
  int compute_trays = 18;
  int gpus_per_tray = 4;
  int cpus_per_tray = 2;
  int switch_trays = 9;
  int switches_per_tray = 2;
  ChipSpec gpu;
  ChipSpec cpu;
  ChipSpec nvswitch;
  double compute_tray_air_P = 0.0;  // W, air-cooled tray load (NICs, drives, fans, VRM share)
  double switch_tray_air_P = 0.0;   // W
  double cpu_P_busy = 0.0;          // W per CPU while a job runs
  double switch_P_busy = 0.0;       // W per NVSwitch while a job runs
  PowerLawDrop quick_disconnect;    // one QD; each tray has one on supply and one on return
  /// The QD's flow coefficient Cv (US gpm at 1 psi, specific gravity 1) when its data file gives
  /// one, else 0. The loader converts it to `quick_disconnect` for the coolant of the rack's loop.
  double quick_disconnect_Cv = 0.0;
  PipeSpec manifold_segment;  // header pipe between two tray taps
  PipeSpec hose;              // CDU <-> rack manifold, each way
  PowerShelfSpec power;
};

struct RackSpec {
  ComponentId id;  // e.g. "row1/rack01"
  RackTypeSpec type;
  std::string cdu;  // id of the CDU that serves this rack
};

/// Centrifugal pump: dp = s^2 * dp_shutoff * (1 - (V/(s*V_flow_max))^2), affinity laws on speed s.
struct PumpSpec {
  double dp_shutoff = 0.0;  // Pa at zero flow, full speed
  double V_flow_max = 0.0;  // m3/s at zero head, full speed
  double speed = 1.0;       // fraction of full speed
  double efficiency = 0.6;  // wire-to-water
  double volume = 0.0;      // m3
};

/// Supply and return headers of a row, between a CDU and the racks it serves. The racks tap the
/// headers one after another in scenario order: supply header segment k runs from tap k-1 to tap k
/// (segment 1 from the CDU supply), and rack k's supply hose leaves tap k; rack k's return hose
/// joins the return header at its tap k.
///  - Direct return: the return header flows back toward the CDU (return segment k from tap k to
///    tap k-1, segment 1 into the CDU tank); the first rack has the shortest path.
///  - Reverse return (Tichelmann, "first in, last out"): the return header starts at the first
///    rack and flows to the last (segment k from tap k-1 to tap k, k = 2..n), then one return pipe
///    as long as the supply header (n segments) leads back to the CDU tank; every rack's path has
///    the same length, 2n segments.
/// Without headers (present == false) every rack's hoses join the CDU supply and tank directly.
struct RowHeaderSpec {
  enum class Return : std::uint8_t { Direct, Reverse };
  bool present = false;
  PipeSpec segment;  // one header segment: from the CDU to the first tap, and between two taps
  Return return_arrangement = Return::Direct;
};

/// Coolant distribution unit: counter-flow plate heat exchanger between the secondary (technology
/// cooling system) loop and facility water, a secondary pump, and a facility-side control valve
/// with a PI controller on the secondary supply temperature.
struct CduSpec {
  ComponentId id;
  std::string type;
  double Q_flow_nominal = 0.0;            // W, rated heat
  double approach_nominal = 0.0;          // K, secondary supply - facility supply at rating
  double secondary_V_flow_nominal = 0.0;  // m3/s
  double facility_V_flow_nominal = 0.0;   // m3/s at a fully open valve
  PressureDropLaw hx_secondary_dp;
  double hx_secondary_volume = 0.0;  // m3
  /// Optional strainer in series after the exchanger's secondary side (its own link).
  bool has_strainer = false;
  PressureDropLaw strainer_dp;
  double strainer_volume = 0.0;          // m3
  PumpSpec pump;                         // one pump; pumps_duty identical pumps run in parallel
  int pumps_installed = 1;               // duty + standby
  int pumps_duty = 1;                    // running in normal operation
  double standby_switchover_time = 0.0;  // s from a duty pump's trip until a standby pump runs
  double T_supply_set = 0.0;             // K, secondary supply set-point
  double valve_gain = 0.0;               // 1/K, PI proportional gain on opening
  double valve_integral_time = 0.0;      // s
  double valve_opening_min = 0.0;        // fraction
  double valve_stroke_time = 0.0;        // s, 0 to 100 %
  RowHeaderSpec headers;                 // row headers to the racks (scenario), none by default
};

struct CoolantSpec {
  std::string name;                   // "PG25", "water"
  double glycol_mass_fraction = 0.0;  // 0..0.6 propylene glycol
};

struct FacilityWaterSpec {
  double T_supply = 0.0;  // K
};

/// Room air: a lumped air node heated by the air-cooled share and cooled by CRAH units.
struct RoomSpec {
  double T_supply_air = 0.0;             // K, CRAH supply air
  double crah_conductance = 0.0;         // W/K, heat removed per K of (room - supply air)
  double crah_Q_flow_max = 0.0;          // W, capacity
  double heat_capacity = 0.0;            // J/K, air and light structure
  double crah_fan_power_fraction = 0.0;  // fan W per W removed
};

struct TrainingJobSpec {
  std::string id;
  double start = 0.0;                   // s
  double duration = 0.0;                // s
  std::vector<ComponentId> racks;       // racks whose GPUs the job uses (all GPUs of each)
  double compute_duration = 0.0;        // s per iteration at full speed
  double compute_power_fraction = 0.0;  // of P_max
  double communication_duration = 0.0;  // s per iteration
  double communication_power_fraction = 0.0;
  double checkpoint_interval = 0.0;  // s, 0 = none
  double checkpoint_duration = 0.0;  // s
  double checkpoint_power_fraction = 0.0;
};

enum class EventKind : std::uint8_t {
  SetFacilitySupplyTemperature,  // value: K
  SetSupplySetpoint,             // target: CDU; value: K
  SetPumpSpeed,                  // target: CDU; value: fraction
  PumpTrip,                      // target: CDU
};

struct EventSpec {
  double time = 0.0;  // s
  EventKind kind = EventKind::PumpTrip;
  std::string target;  // component id, empty when the event is site-wide
  double value = 0.0;
  SourceLocation where;  // for messages about the event
};

/// Most macro steps a run may take: a duration/step typo must fail at once, not run for days.
constexpr double kMaxSimulationSteps = 1.0e9;

struct SimulationSpec {
  double duration = 0.0;          // s
  double step = 1.0;              // s, macro step (thermal)
  int substeps = 10;              // fast (workload, electrical) sub-steps per macro step
  double record_interval = 10.0;  // s
  std::uint64_t seed = 0;
};

struct SiteSpec {
  std::string name;
  SimulationSpec simulation;
  CoolantSpec secondary_coolant;
  FacilityWaterSpec facility;
  RoomSpec room;
  std::vector<CduSpec> cdus;
  std::vector<RackSpec> racks;
  std::vector<TrainingJobSpec> jobs;
  std::vector<EventSpec> events;
  std::string scenario_path;  // as given on the command line
  std::string scenario_text;  // the file's bytes, stored in the result
};

}  // namespace racktwin::core
