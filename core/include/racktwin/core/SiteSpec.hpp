#pragma once
// SiteSpec: the validated, plain-data description of a site that scenarios::load produces from a
// scenario file and the component data it names. Every quantity is SI (K, Pa, m, m3, m3/s, kg/s,
// W, J, s). The models are built from a SiteSpec and never see the YAML.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "racktwin/core/ComponentId.hpp"
#include "racktwin/core/ElectricalSpec.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/FabricSpec.hpp"
#include "racktwin/core/PipingNetworkSpec.hpp"

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

/// A cold plate: thermal resistance from case to coolant inlet
/// R = R_constant + R_flow * V_flow^-R_flow_exponent (the OCP OAI fit has exponent 1; curves
/// from CFD fit their own), V_flow clamped below at V_flow_min; pressure drop law.
struct ColdPlateSpec {
  std::string type;         // data name, e.g. "ocp-oai-1kw-pg25"
  double R_constant = 0.0;  // K/W
  double R_flow = 0.0;      // K/W * (m3/s)^R_flow_exponent
  double V_flow_min = 0.0;  // m3/s
  PowerLawDrop dp;
  double volume = 0.0;           // m3 of coolant inside the plate
  double R_flow_exponent = 1.0;  // > 0 (last, so brace initialisers of the OCP form still hold)

  /// K/W at a volume flow (either direction; clamped below at V_flow_min).
  double resistance(double V_flow) const noexcept {
    const double V = std::max(V_flow < 0.0 ? -V_flow : V_flow, V_flow_min);
    return R_flow_exponent == 1.0 ? R_constant + R_flow / V
                                  : R_constant + R_flow * std::pow(V, -R_flow_exponent);
  }
};

/// A liquid-cooled chip (GPU, CPU, NVSwitch) as a lumped case node on its cold plate.
struct ChipSpec {
  double P_max = 0.0;               // W, power limit (TGP for GPUs)
  double P_idle = 0.0;              // W
  double heat_capacity = 0.0;       // J/K, die + lid + cold-plate metal lumped
  double R_junction_case = 0.0;     // K/W, junction above the case node
  double T_slowdown = 0.0;          // K, junction temperature where slowdown starts
  double T_slowdown_release = 0.0;  // K, hysteresis: slowdown ends below this
  /// K, junction temperature of the thermal shutdown: the chip stops (no power, no progress)
  /// for the rest of the run. Infinite when the data gives none (CPUs, switches).
  double T_shutdown = std::numeric_limits<double>::infinity();
  double throttled_power_fraction = 1.0;  // of P_max while slowed down
  /// Temperature-dependent leakage (GPUs): the workload's powers hold at the junction
  /// temperature T_leakage_reference, where leakage is P_leakage_reference; at T_j the chip
  /// draws P_leakage_reference (exp(leakage_coefficient (T_j - T_ref)) - 1) more (less when
  /// cooler), within [0, P_max]. P_leakage_reference = 0: no temperature dependence.
  double P_leakage_reference = 0.0;  // W
  double T_leakage_reference = 0.0;  // K
  double leakage_coefficient = 0.0;  // 1/K
  ColdPlateSpec cold_plate;
  /// An air-cooled chip (RackTypeSpec::liquid_cooled false): its heat sink passes
  /// (T_case - T_inlet) / R to the server's air, R = R_case_air_nominal (speed)^-0.8 at fan speed
  /// `speed` (film conductance ~ air flow^0.8, as for the coils).
  double R_case_air_nominal = 0.0;  // K/W at full fan speed
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

/// The cooling ratings of a rack type (its data file's `ratings:`), checked at every record by the
/// design-limit monitor (DesignLimits.hpp). 0 = not rated: that limit is not checked.
struct RackCoolingRatingsSpec {
  double T_inlet_max = 0.0;            // K, highest coolant supply temperature at the rack
  double T_return_max = 0.0;           // K, highest coolant temperature leaving a tray
  double flow_per_heat_min = 0.0;      // m3/s per W of heat into the liquid (1.5 L/min per kW...)
  double dp_manifold_max = 0.0;        // Pa, highest supply - return differential pressure
  double p_qd_max = 0.0;               // Pa gauge, working pressure of the quick disconnects
  double V_flow_cold_plate_min = 0.0;  // m3/s, lowest flow through one GPU cold plate
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
  RackCoolingRatingsSpec ratings;  // design limits (0 = not rated)
  /// Air the servers' fans move through the rack at design (m3/s): the air a passive rear door
  /// sees. 0 when the data gives none.
  double air_V_flow = 0.0;
  /// False for an air-cooled rack (HGX-class servers): its chips sit on heat sinks in the
  /// servers' air, no coolant reaches it, and its server fans (below) follow inlet temperature
  /// and load. compute_trays are then its servers, switch trays may be 0.
  bool liquid_cooled = true;
  /// Air-cooled servers' fans, per server (compute tray): electrical power at full speed, and
  /// speed = clamp(speed_idle + speed_per_load u + speed_per_K (T_inlet - T_reference), min, 1)
  /// with u the server's GPU power over their limits.
  struct ServerFans {
    double P_max = 0.0;           // W per server at full speed (the fan affinity law: P ~ speed^3)
    double V_flow_max = 0.0;      // m3/s per server at full speed
    double speed_min = 0.0;       // fraction
    double speed_idle = 0.0;      // fraction at no load and the reference inlet
    double speed_per_load = 0.0;  // fraction per unit of GPU load
    double speed_per_K = 0.0;     // fraction per K of inlet above the reference
    double T_reference = 0.0;     // K
  } fans;
  /// ASHRAE thermal guideline class of its allowable inlet air (A1 15-32, A2 10-35, A3 5-40,
  /// A4 5-45 degC); 0 for none (liquid-cooled racks). Time outside is reported.
  int ashrae_class = 0;
  double T_inlet_allowed_min = 0.0, T_inlet_allowed_max = 0.0;  // K, of that class
};

/// A coolant component a scenario attaches to a rack by the name of its kind (thermal's registry
/// of coolant component kinds, e.g. "rear-door-hx"): its data type and its parameter values in
/// the kind's schema order (SI), as the loader read them from the data file and the scenario.
struct AttachedComponentSpec {
  ComponentId id;    // e.g. "row5/rack01/rear_door"
  std::string kind;  // a registered kind's name
  std::string type;  // data name (data/<kind's folder>/<type>.yaml)
  std::vector<double> values;
  PressureDropLaw pressure_drop;  // when the kind takes one
  /// Where its water comes from: the secondary loop of the rack's CDU (between the rack's supply
  /// and return taps, in parallel with its manifolds), or facility water as a boundary (the
  /// site's supply temperature at the component's nominal flow, its heat into facility water).
  enum class Water : std::uint8_t { Cdu, Facility };
  Water water = Water::Cdu;
};

struct RackSpec {
  ComponentId id;  // e.g. "row1/rack01"
  RackTypeSpec type;
  std::string cdu;   // id of the CDU that serves this rack (empty when it is on a ring)
  std::string ring;  // id of the secondary ring that serves this rack (empty when on a CDU)
  std::vector<AttachedComponentSpec> attachments;  // rear doors and other attached components
};

/// Centrifugal pump: dp = s^2 * dp_shutoff * (1 - (V/(s*V_flow_max))^2), affinity laws on speed s.
struct PumpSpec {
  double dp_shutoff = 0.0;  // Pa at zero flow, full speed
  double V_flow_max = 0.0;  // m3/s at zero head, full speed
  double speed = 1.0;       // fraction of full speed
  double efficiency = 0.6;  // wire-to-water
  double volume = 0.0;      // m3
};

/// A control valve by its flow coefficient in SI (IEC 60534-1: A_v in m2, V_flow = A_v phi(x)
/// sqrt(dp / rho)) and its inherent characteristic phi(x) of the opening x in [0, 1]:
///  - Linear: phi = l + (1 - l) x;
///  - EqualPercentage: phi = R^(x - 1) for x >= 0.01, and linear from phi(0) = l to R^(0.01 - 1)
///    below, so the closed valve leaks l like a real one (the way Modelica Buildings'
///    Actuators.BaseClasses.equalPercentage treats the shut-off end).
/// l is the leakage of the closed valve (a fraction of A_v), R the rangeability. The US flow
/// coefficient converts as Cv = A_v / 2.4014e-5 m2 (1 US gpm of water at 60 degF at 1 psi).
/// The actuator moves the opening at most 1/stroke_time per second toward its command.
struct ControlValveSpec {
  enum class Characteristic : std::uint8_t { Linear, EqualPercentage };
  double A_v = 0.0;  // m2, fully open
  Characteristic characteristic = Characteristic::EqualPercentage;
  double rangeability = 50.0;  // R of the equal-percentage characteristic
  double leakage = 1e-4;       // l: phi of the closed valve
  double stroke_time = 0.0;    // s, closed to fully open; 0 = moves at once
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

/// Ratings of a CDU beyond its rated heat and approach (its data file's `ratings:`), checked at
/// every record by the design-limit monitor (DesignLimits.hpp). 0 = not rated: not checked.
struct CduRatingsSpec {
  double V_flow_secondary_max = 0.0;  // m3/s, highest secondary flow of the unit
  double p_secondary_design = 0.0;  // Pa gauge, design (working) pressure of the secondary circuit
  double p_fill = 0.0;              // Pa gauge, static pressure at the pump suction (tank)
  double pump_runout_fraction = 0.0;  // highest flow of one pump over its zero-head flow at speed
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
  /// With a facility loop (FacilityLoopSpec::present): the facility-side control valve and the
  /// exchanger's primary (facility water) side pressure drop. The PI above commands the valve.
  ControlValveSpec facility_valve;
  PressureDropLaw hx_facility_dp;
  double hx_facility_volume = 0.0;  // m3
  RowHeaderSpec headers;            // row headers to the racks (scenario), none by default
  /// Secondary pump speed PI on the differential pressure across the least favoured rack of the
  /// CDU's loop (supply manifold inlet - return manifold outlet). pump_dp_set <= 0: fixed speed.
  double pump_dp_set = 0.0;            // Pa
  double pump_dp_gain = 0.0;           // speed fraction per Pa of error
  double pump_dp_integral_time = 0.0;  // s
  double pump_speed_min = 0.0;         // fraction
  /// The pumps' drive: the speed follows its command (the dp PI, a set_pump_speed event) through
  /// a 2nd-order critically damped filter reaching 99.6 % of a step after this time (Modelica
  /// Buildings' movers, riseTime). 0: at once.
  double pump_rise_time = 0.0;  // s
  /// Without a facility loop, with facility_valve data: the facility supply - return pressure
  /// difference across the CDU, which drives the flow through the valve and the exchanger's
  /// primary side. <= 0: the one that passes facility_V_flow_nominal at full opening.
  double facility_dp_boundary = 0.0;  // Pa
  CduRatingsSpec ratings;             // design limits (0 = not rated)
  /// Where the CDU rejects its heat: facility water through its plate exchanger, or room air
  /// through an air coil with fans (a liquid-to-air "sidecar" CDU: no facility water; the PI
  /// above drives the fan speed, valve_opening_min being the lowest fan speed).
  enum class Rejection : std::uint8_t { FacilityWater, RoomAir };
  Rejection rejection = Rejection::FacilityWater;
  /// RoomAir: the air coil's parameters in the "air-coil" kind's schema order (SI) and its
  /// coolant-side pressure drop.
  std::vector<double> air_coil;
  PressureDropLaw air_coil_dp;
};

/// Several CDUs sharing one secondary ring main. `taps` lists CDU and rack ids in their order
/// around the ring; a supply main and a return main, each a closed ring of `segment` pipes, join
/// consecutive taps (the last back to the first). A CDU draws from the return main at its tap and
/// feeds the supply main there; a rack's hoses join both mains at its tap. The expansion tank sits
/// at the suction of the ring's first CDU.
/// A loop whose piping comes from an existing network (`networks[]` of a scenario) is a ring with
/// `network` set: its taps are the CDUs and racks attached to the network (CDUs first), and the
/// network replaces the ring mains (`segment` unused).
struct SecondaryRingSpec {
  ComponentId id;
  std::vector<std::string> taps;  // CDU and rack ids in ring order
  PipeSpec segment;               // one main segment between two taps, supply and return alike
  std::optional<PipingNetworkSpec> network;
};

struct CoolantSpec {
  std::string name;                   // "PG25", "water"
  double glycol_mass_fraction = 0.0;  // 0..0.6 propylene glycol
};

/// Outdoor air at the heat-rejection plant: constant, or a weather series (time, dry bulb, wet
/// bulb) interpolated linearly in time and held beyond its ends, or repeated with its period.
struct AmbientSpec {
  double T_dry_bulb = 0.0;                                         // K
  double T_wet_bulb = 0.0;                                         // K
  std::vector<double> time, T_dry_bulb_series, T_wet_bulb_series;  // s, K, K; empty: constant
  std::string weather_path;                                        // for messages and provenance
  /// s: the series repeats with this period (a weather file of one whole year, rotated so that it
  /// starts at simulation time 0); 0: the first and last values hold before and after it.
  double period = 0.0;
  /// s: the weather file's own time at simulation time 0 (`weather_start`): days of the summary's
  /// peak day are counted from the file's time 0.
  double file_time_at_start = 0.0;
  /// The file's time 0 is 00:00 on 1 January (EPW): its days are days of the year.
  bool calendar_year = false;
};

/// Heat rejection to outdoor air: identical units in parallel on the facility water loop.
///  - DryCooler: sensible only; leaving water approaches the dry bulb. eps-NTU cross flow with the
///    air capacity rate proportional to fan speed and UA ~ (air flow)^0.8 (water side held).
///  - CoolingTower: evaporative; leaving water approaches the wet bulb (Merkel effectiveness on
///    the same fan-speed scaling). Evaporation Q / h_fg, drift and blow-down from the cycles of
///    concentration make up the water use.
/// Both are sized by one design point per unit: Q_flow_nominal at V_flow_nominal water with
/// leaving water approach_nominal above the design ambient at full fan speed. Fan power goes
/// with the cube of speed.
struct HeatRejectionSpec {
  enum class Kind : std::uint8_t { DryCooler, CoolingTower };
  Kind kind = Kind::DryCooler;
  std::string type;                // data name
  int units = 1;                   // identical units in parallel
  double Q_flow_nominal = 0.0;     // W per unit at the design point
  double V_flow_nominal = 0.0;     // m3/s of water per unit
  double approach_nominal = 0.0;   // K, leaving water - ambient (dry or wet bulb) at design
  double T_ambient_nominal = 0.0;  // K, design dry bulb (DryCooler) or wet bulb (CoolingTower)
  double fan_P_nominal = 0.0;      // W per unit at full speed
  double fan_speed_min = 0.0;      // fraction, lowest running speed
  PressureDropLaw dp;              // water side of one unit
  double volume = 0.0;             // m3 of water per unit
  double cycles_of_concentration = 4.0;  // CoolingTower: blow-down = evaporation / (cycles - 1)
  double drift_fraction = 0.0;           // CoolingTower: of the circulating water flow
};

/// A trim chiller in series after the heat rejection: cools the leaving water down to the facility
/// supply set-point when the plant alone cannot. COP = carnot_fraction * T_evap / (T_cond -
/// T_evap) with T_evap the set-point and T_cond the ambient (dry bulb) plus condenser_approach,
/// capped at COP_max.
struct ChillerSpec {
  bool present = false;
  std::string type;
  double Q_flow_nominal = 0.0;      // W, capacity
  double carnot_fraction = 0.0;     // of the Carnot COP
  double condenser_approach = 0.0;  // K
  double COP_max = 0.0;
  PressureDropLaw dp;   // evaporator water side
  double volume = 0.0;  // m3
};

/// The facility water loop (primary loop): plant pumps (duty + standby, affinity laws, speed PI
/// on the differential pressure across the remote CDU), supply and return mains along the CDUs
/// (direct return, CDUs tapping in scenario order), each CDU's exchanger primary side and control
/// valve, heat rejection units and an optional trim chiller. Absent (present == false), facility
/// water is a boundary condition: FacilityWaterSpec::T_supply at every CDU inlet and a flow
/// proportional to the valve opening.
struct FacilityLoopSpec {
  bool present = false;
  /// `facility_water.loops[]`: the loop's id, its supply set-point (K; 0: FacilityWaterSpec::
  /// T_supply) and the CDUs it serves (indices into SiteSpec::cdus, in site order); where it was
  /// written. The single `facility_water.loop` has no id and serves every CDU that rejects its
  /// heat to facility water.
  std::string id;
  double T_supply = 0.0;
  std::vector<std::uint32_t> cdus;
  SourceLocation where;
  PumpSpec pump;
  int pumps_installed = 1, pumps_duty = 1;
  double standby_switchover_time = 0.0;  // s
  double dp_set = 0.0;                   // Pa across the remote CDU branch (pump speed PI)
  double pump_gain = 0.0;                // speed fraction per Pa of error
  double pump_integral_time = 0.0;       // s
  double pump_speed_min = 0.0;           // fraction
  PipeSpec plant_pipe;                   // plant to the first CDU tap, each way
  PipeSpec header_segment;               // between two CDU taps, supply and return mains alike
  HeatRejectionSpec heat_rejection;
  ChillerSpec chiller;
};

struct FacilityWaterSpec {
  double T_supply = 0.0;  // K: the supply set-point of the plant, or the boundary temperature
  FacilityLoopSpec loop;  // one loop serving every facility-water CDU (`loop`)
  /// Several loops, one per hall (`loops`), each serving its own CDUs; `loop` is then absent.
  std::vector<FacilityLoopSpec> loops;
  /// Facility water is modelled as one or more loops (not a boundary condition).
  bool modelled() const noexcept { return loop.present || !loops.empty(); }
};

/// A modelled facility loop and what it serves: the single `loop` (every CDU that rejects its
/// heat to facility water, in site order) or one of `loops` (its own CDUs).
struct FacilityLoopView {
  const FacilityLoopSpec* spec = nullptr;
  std::string id;                   // empty for the single `loop`
  double T_supply = 0.0;            // K, its supply set-point
  std::vector<std::uint32_t> cdus;  // indices into SiteSpec::cdus, in site order
};

/// Room air: a lumped air node heated by the air-cooled share and cooled by CRAH units.
struct RoomSpec {
  double T_supply_air = 0.0;             // K, CRAH supply air
  double crah_conductance = 0.0;         // W/K, heat removed per K of (room - supply air)
  double crah_Q_flow_max = 0.0;          // W, capacity
  double heat_capacity = 0.0;            // J/K, air and light structure
  double crah_fan_power_fraction = 0.0;  // fan W per W removed
  /// Share of the racks' intake that is hot-aisle air (recirculation, bypass): a rack's inlet is
  /// T_supply_air + recirculation (T_room - T_supply_air).
  double recirculation = 0.0;
};

/// The air side's plant: the CRAH units' coils on a chilled-water loop, chillers and a
/// water-side economiser, a cooling tower on their condenser water (ChilledWaterPlant in
/// thermal). Absent, the CRAH heat leaves the model with only the CRAH fans' power charged.
struct AirPlantSpec {
  bool present = false;
  std::string type;                       // data name
  double T_chw_supply = 0.0;              // K, chilled water to the CRAH coils
  double dT_chw = 0.0;                    // K, design rise through the coils
  double chw_pump_dp = 0.0;               // Pa, chilled-water pump head
  double chw_pump_efficiency = 0.0;       // wire to water
  int chillers = 0;                       // identical chillers, staged on load
  double chiller_Q_flow_nominal = 0.0;    // W each
  double chiller_COP_reference = 0.0;     // full load at the reference temperatures
  double T_chw_reference = 0.0;           // K, leaving chilled water of the reference point
  double T_cw_reference = 0.0;            // K, entering condenser water of the reference point
  double chiller_COP_max = 0.0;           // cap of the lift-scaled COP
  double eir_plr[3] = {0.0, 0.0, 0.0};    // EIR(PLR) / EIR(1) = a + b PLR + c PLR^2
  double chiller_PLR_min = 0.0;           // below: the chiller false-loads at this ratio
  bool economiser = false;                // a plate exchanger from tower water to chilled water
  double economiser_approach = 0.0;       // K, chilled water leaving it above tower water
  double tower_approach = 0.0;            // K, tower water above the wet bulb
  double tower_fan_power_fraction = 0.0;  // W of tower fans per W rejected
  double cw_pump_power_fraction = 0.0;    // W of condenser-water pumps per W rejected
  double cycles_of_concentration = 4.0;   // blow-down = evaporation / (cycles - 1)
};

/// Number formats of weights, activations and the KV cache.
enum class NumberFormat : std::uint8_t { Nvfp4, Fp8, Bf16 };

/// Bytes per element of a format (NVFP4: 4 bits plus one FP8 scale per 16 elements).
inline double bytesPerElement(NumberFormat f) noexcept {
  return f == NumberFormat::Nvfp4 ? 0.5625 : f == NumberFormat::Fp8 ? 1.0 : 2.0;
}

/// One GPU's roofline and power by phase (data/accelerators): what an inference or training job
/// derives its step times and power from.
struct AcceleratorSpec {
  std::string type;                  // data name, e.g. "b300"
  double fp4_flops = 0.0;            // FLOP/s, dense NVFP4 tensor peak
  double fp8_flops = 0.0;            // FLOP/s, dense FP8 tensor peak
  double bf16_flops = 0.0;           // FLOP/s, dense BF16 tensor peak
  double hbm_bandwidth = 0.0;        // bytes/s
  double hbm_capacity = 0.0;         // bytes
  double nvlink_bandwidth = 0.0;     // bytes/s per GPU and direction, within the NVLink domain
  double scale_out_bandwidth = 0.0;  // bytes/s per GPU and direction (InfiniBand/Ethernet NIC)
  // Achieved fractions of the peaks in well-tuned kernels (large GEMMs, streaming reads,
  // collectives): the roofline's ceilings.
  double compute_efficiency = 0.0;
  double memory_efficiency = 0.0;
  double network_efficiency = 0.0;
  // GPU power (of the power limit) with the tensor cores saturated and with HBM streaming at the
  // achieved bandwidth; a phase's power combines them by its compute and memory utilisation.
  double compute_power_fraction = 0.0;
  double memory_power_fraction = 0.0;
  double communication_power_fraction = 0.0;  // waiting on a collective
};

/// A language model's shape (data/models): enough for its FLOPs, bytes and KV cache per token.
struct LanguageModelSpec {
  std::string type;                // data name, e.g. "deepseek-r1"
  double parameters = 0.0;         // all weights
  double active_parameters = 0.0;  // used per token (= parameters for a dense model)
  int layers = 0;
  int hidden_size = 0;
  int attention_heads = 0;
  int qk_head_dim = 0;  // per head, as attention reads it (MLA: compressed latent + rope part)
  int v_head_dim = 0;
  double kv_elements_per_token = 0.0;  // cached elements per token over all layers
  int experts = 0;                     // routed experts per MoE layer, 0 for a dense model
  int experts_per_token = 0;
};

/// How a model is served on a job's GPUs: replicas of tensor x pipeline parallel GPUs inside an
/// NVLink domain, continuous batching limits and the latency target of a request.
struct InferenceDeploymentSpec {
  LanguageModelSpec model;
  AcceleratorSpec accelerator;
  NumberFormat weights = NumberFormat::Nvfp4;
  NumberFormat kv_cache = NumberFormat::Fp8;
  NumberFormat attention = NumberFormat::Fp8;  // attention math (softmax(QK) V)
  int tensor_parallel = 1;
  int expert_parallel = 1;  // divides tensor_parallel x pipeline_parallel
  int pipeline_parallel = 1;
  int max_batch = 256;               // requests decoding at once per replica
  int max_batch_tokens = 8192;       // tokens per iteration per replica (decode + prefill chunk)
  double memory_for_kv_cache = 0.9;  // share of HBM left after weights that holds the KV cache
  /// Achieved share of the roofline for this model on this accelerator with its serving stack
  /// (scheduling, kernels, imbalance): calibrated against published results (docs/workloads.md).
  double serving_efficiency = 1.0;
  double ttft_target = 0.0;  // s, time to first token a request must meet (0: none)
  double tpot_target = 0.0;  // s, time per output token after the first (0: none)
  // Disaggregated serving (docs/workloads.md): prefill_replicas > 0 splits the replicas into a
  // prefill pool (the first replicas in the job's GPU order) and a decode pool of
  // decode_replicas; prefill + decode = the job's replicas. 0 and 0: aggregated (every replica
  // runs prompts and decodes).
  int prefill_replicas = 0;
  int decode_replicas = 0;
  bool disaggregated() const noexcept { return prefill_replicas > 0; }
};

/// A training job derived from its model: the loader turns it into iteration durations.
struct TrainingModelSpec {
  LanguageModelSpec model;
  AcceleratorSpec accelerator;
  NumberFormat format = NumberFormat::Fp8;  // of the GEMMs
  double tokens_per_iteration = 0.0;        // global batch, tokens
  double sequence_length = 8192.0;          // tokens per sequence (sets the microbatches)
  double model_flops_utilisation = 0.0;     // MFU of the compute phase
  double communication_overlap = 0.0;       // share of the collectives hidden behind compute
  int tensor_parallel = 1;
  int pipeline_parallel = 1;
  int data_parallel = 1;
  double storage_bandwidth = 0.0;  // bytes/s of the checkpoint store for the whole job
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
  // Failures: exponentially distributed times between failures (mean failure_mtbf of running
  // time, 0 = none); a failure loses the work since the last checkpoint and the job idles for
  // restart_duration.
  double failure_mtbf = 0.0;      // s
  double restart_duration = 0.0;  // s
  // A scheduled job names no racks: it asks for `gpus` (a multiple of the GPUs of a rack, so
  // whole racks) at `submit`; the scheduler (JobScheduler.hpp) chooses its racks and its start,
  // and it runs for `duration`, which is also the runtime it requests.
  std::uint32_t gpus = 0;   // 0 when `racks` names the racks
  double submit = 0.0;      // s
  std::uint32_t order = 0;  // position in the scenario's workload list: queue ties go by it
  // Delivered work per iteration (for the summary): tokens and model FLOPs; 0 when the job's
  // durations were typed in without a model.
  double tokens_per_iteration = 0.0;
  double flops_per_iteration = 0.0;
  std::string model;  // model type when derived from one
  /// GPU power of the iterations: false, each phase at its own power (the square wave); true,
  /// both phases at the iteration's period average (annual studies with fast-forward: `power:
  /// average`). Checkpoints, restarts and progress are the same either way.
  bool average_power = false;
};

/// One request of an inference trace (Azure LLM inference format: arrival, context and generated
/// tokens).
struct InferenceRequest {
  double time = 0.0;  // s, relative to the first request of the trace
  std::uint32_t context_tokens = 0;
  std::uint32_t generated_tokens = 0;
};

/// An inference service on whole racks: requests from a replayed trace (when `trace` is not
/// empty) or from a Poisson process, served by one continuous-batching server (InferenceJob.hpp).
struct InferenceJobSpec {
  std::string id;
  double start = 0.0;                   // s
  double duration = 0.0;                // s
  std::vector<ComponentId> racks;       // racks whose GPUs serve the job (all GPUs of each)
  std::vector<InferenceRequest> trace;  // sorted by time; replayed from `start`
  std::string trace_path;               // for messages and metadata
  // Poisson arrivals when the trace is empty: rate * (1 + diurnal_amplitude *
  // cos(2 pi (t - diurnal_peak) / diurnal_period)), each request with fixed token counts.
  double rate = 0.0;  // requests/s (mean)
  double diurnal_amplitude = 0.0;
  double diurnal_period = 86400.0;  // s
  double diurnal_peak = 0.0;        // s of simulation time at which the rate peaks
  std::uint32_t context_tokens = 0;
  std::uint32_t generated_tokens = 0;
  // Server.
  std::uint32_t max_batch = 1;                // requests in service at once
  double prefill_tokens_per_s_per_gpu = 0.0;  // context tokens/s per GPU at full speed
  double decode_tokens_per_s_per_gpu = 0.0;   // generated tokens/s per GPU at full speed
  double busy_power_fraction = 0.0;           // GPU power at full batch, of P_max
  // Scheduled as a training job (TrainingJobSpec::gpus): no racks, `gpus` at `submit`, served
  // from the start the scheduler gives it; the trace and the Poisson stream begin there.
  std::uint32_t gpus = 0;   // 0 when `racks` names the racks
  double submit = 0.0;      // s
  std::uint32_t order = 0;  // position in the scenario's workload list
  /// Served from a model on its accelerator (ModelServer.hpp) instead of the fixed throughputs
  /// above when set.
  std::optional<InferenceDeploymentSpec> deployment;
};

/// A replayed GPU power trace on whole racks: each trace GPU's power as a step function held from
/// one sample to the next (zero-order hold), replayed from the job's start. Trace GPU i drives the
/// i-th GPU of the job's racks, repeated cyclically when the racks hold more GPUs.
struct ReplayJobSpec {
  std::string id;
  double start = 0.0;              // s
  double duration = 0.0;           // s
  std::vector<ComponentId> racks;  // racks whose GPUs replay the trace (all GPUs of each)
  std::string trace_path;          // for messages and metadata
  // Samples of trace GPU i: times[sample_begin[i] .. sample_begin[i + 1]) (s, relative to the
  // trace's first sample, non-decreasing) and power (W) at the same positions.
  std::vector<std::size_t> sample_begin;
  std::vector<double> times;
  std::vector<double> power;
  // Scheduled as a training job (TrainingJobSpec::gpus): no racks, `gpus` at `submit`; the
  // trace is replayed from the start the scheduler gives it, on its racks in placement order.
  std::uint32_t gpus = 0;   // 0 when `racks` names the racks
  double submit = 0.0;      // s
  std::uint32_t order = 0;  // position in the scenario's workload list
};

/// The queue of the scheduled jobs (`gpus` > 0, of any kind): first come, first served, or
/// EASY backfill (a later job may start early when it does not delay the first job's
/// reservation). See docs/scheduler.md.
struct SchedulerSpec {
  enum class Policy : std::uint8_t { Fifo, Backfill };
  Policy policy = Policy::Backfill;
};

enum class EventKind : std::uint8_t {
  SetFacilitySupplyTemperature,  // value: K; target: a facility loop id (empty: the only one)
  SetSupplySetpoint,             // target: CDU; value: K
  SetPumpSpeed,                  // target: CDU; value: fraction
  PumpTrip,                      // target: CDU
  CduLoss,                       // target: CDU; every pump stops for good, no standby starts
  ValveStuck,                    // target: CDU; its facility valve holds its opening
  ClogColdPlate,                 // target: chip (GPU, CPU, NVSwitch); value: dp multiplier >= 1
  FacilityPumpTrip,              // one facility water pump trips; target as above
  HeatRejectionFanLoss,  // target as above; value: fraction of the heat-rejection units' fans lost
  // Electrical (power tree; see ElectricalSpec).
  FeedLoss,        // target: rack, or empty for every rack; value: 0 = feed A, 1 = feed B
  FeedRestore,     // as FeedLoss
  UtilityOutage,   // site-wide: the utility supply is lost
  UtilityRestore,  // site-wide
  SetPowerCap,     // target: rack, or empty for every rack; value: W per GPU
  // Workload (the mix of jobs running).
  PauseJob,   // target: training job; its GPUs idle and it makes no progress until resumed
  ResumeJob,  // target: training job; the iteration in flight at the pause starts again
};

struct EventSpec {
  double time = 0.0;  // s
  EventKind kind = EventKind::PumpTrip;
  std::string target;  // component or facility loop id, empty when the event is site-wide
  double value = 0.0;
  SourceLocation where;  // for messages about the event
};

/// Most macro steps a run may take: a duration/step typo must fail at once, not run for days.
constexpr double kMaxSimulationSteps = 1.0e9;

/// Quasi-steady fast-forward (docs/scenario-format.md `simulation.fast_forward`, the engine's
/// rule in docs/ARCHITECTURE.md): macro steps of a whole number of fine steps (`step`), up to
/// max_step, while the GPU junction temperatures move by at most `tolerance` per step; fine steps
/// at and for `settle` after every event.
struct FastForwardSpec {
  bool enabled = false;
  double max_step = 0.0;   // s, a whole number of fine steps
  double tolerance = 0.0;  // K, the largest change of any GPU junction over one step
  double settle = 60.0;    // s of fine steps after each event, a whole number of fine steps
};

struct SimulationSpec {
  double duration = 0.0;          // s
  double step = 1.0;              // s, macro step (thermal)
  int substeps = 10;              // fast (workload, electrical) sub-steps per macro step
  double record_interval = 10.0;  // s
  std::uint64_t seed = 0;
  /// s, the longest interval between two samples of the cooling model's controllers (CDU valve
  /// and pump PIs): a macro step longer than this is cycled in thermal sub-steps of at most this
  /// length. Longer for annual studies at coarse steps (docs/scenario-format.md).
  double control_step = 2.0;
  FastForwardSpec fast_forward = {};
};

/// A row of racks on the floor plan (docs/scenario-format.md, `layout`). Rows come from the rack
/// ids: a row is the racks sharing an id prefix ("row3" of "row3/rack05"); a rack whose id has
/// no prefix forms a row with the other racks of its CDU (or ring), named after it.
struct FloorRowSpec {
  std::string id;                    // "row3", "hall1/row012"
  std::vector<std::uint32_t> racks;  // indices into SiteSpec::racks, in scenario order
  std::uint32_t hall = 0;            // index into FloorPlanSpec::halls
};

/// A hall: a grouping of rows placed together, in bays of rows side by side along y, the bays
/// one after another along x. Without `layout.halls` the site is one hall "hall" of every row.
struct FloorHallSpec {
  std::string id;                   // "hall1"
  std::vector<std::uint32_t> rows;  // indices into FloorPlanSpec::rows, in placement order
  bool origin_given = false;        // else halls stand in a grid, hall_gap apart
  double origin_x = 0.0;            // m, the corner of the hall's first row
  double origin_y = 0.0;            // m
  int rows_per_bay = 0;             // rows of a bay; 0: chosen to make the hall about square
};

/// The floor plan: rows and halls (always filled by the loader) and their spacing.
struct FloorPlanSpec {
  double rack_pitch = 0.6;   // m, centre distance of two racks of a row (an NVL72 is 0.6 m wide)
  double row_pitch = 3.6;    // m, between two rows of a bay: rack depth plus a hot and cold aisle
  double aisle_width = 3.0;  // m, the cross aisle between two bays of rows
  double hall_gap = 10.0;    // m, between two halls placed without an origin
  std::vector<FloorRowSpec> rows;
  std::vector<FloorHallSpec> halls;
};

/// What the result file records (scenario `output`, `racktwin run` options): the level of
/// detail of the entities inside racks (GPUs, CPUs, NVSwitches, trays) and the compression.
struct OutputSpec {
  enum class PerGpu : std::uint8_t {
    Auto,        // Every up to kAutoPerGpuLimit GPUs, Aggregated above
    Every,       // one column per entity
    Aggregated,  // aggregates only (X11 defines None)
    Selected,    // one column per entity of the racks, rows and halls in per_gpu_ids
  };
  static constexpr std::size_t kAutoPerGpuLimit = 10'000;  // GPUs
  PerGpu per_gpu = PerGpu::Auto;
  std::vector<std::string> per_gpu_ids;  // rack, row or hall ids (Selected)
  int hottest_gpus = -1;                 // N hottest GPUs each record; -1: 16 without per-GPU
                                         // columns of every GPU, else 0
  bool aggregates_auto = true;           // rack, row (and hall with several) when not All
  std::vector<std::string> aggregates;   // "rack", "row", "hall" (aggregates_auto false)
  int compression = 1;                   // deflate level 0-9, 0: none
  bool shuffle = true;                   // byte shuffle before deflate
  std::size_t chunk_columns = 256;       // entities per chunk of a 2-D dataset
};

struct SiteSpec {
  std::string name;
  SimulationSpec simulation;
  CoolantSpec secondary_coolant;
  FacilityWaterSpec facility;
  RoomSpec room;
  AirPlantSpec air_plant;
  AmbientSpec ambient;
  ElectricalSpec electrical;
  FabricSpec fabric;  // the scale-out network's switches (power and heat), if modelled
  std::vector<CduSpec> cdus;
  std::vector<SecondaryRingSpec> rings;
  std::vector<RackSpec> racks;
  std::vector<TrainingJobSpec> jobs;
  SchedulerSpec scheduler;
  std::vector<InferenceJobSpec> inference_jobs;
  std::vector<ReplayJobSpec> replay_jobs;
  std::vector<EventSpec> events;
  std::string scenario_path;  // as given on the command line
  std::string scenario_text;  // the file's bytes, stored in the result
  // Plausibility warnings of the load, "FILE:LINE:COLUMN: key 'KEY': warning: ..."
  // (docs/scenario-format.md, "Plausible ranges"): reported on stderr, in the summary and result.
  std::vector<std::string> input_warnings;
  std::vector<std::string> input_files;  // every file the loader read (data, weather, traces)
  FloorPlanSpec floor;  // rows and halls (scenarios::floorPlanOf fills a hand-built spec's)
  OutputSpec output;
};

/// The site's GPUs: each rack's compute trays times their GPUs (the count SiteLayout::build
/// lays out), without building the layout.
std::size_t gpuCount(const SiteSpec& site);

/// The site's modelled facility loops in the order of the scenario (none when facility water is a
/// boundary condition).
std::vector<FacilityLoopView> facilityLoopsOf(const SiteSpec& site);

}  // namespace racktwin::core
