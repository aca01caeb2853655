#pragma once
// ElectricalSpec: the site's power distribution tree above the racks' power shelves, its
// protection, and the GPUs' power management (caps, Max-Q/Max-P profiles, GB300 power smoothing).
// Plain SI data produced by the scenario loader (V, A, ohm, W, VA, J, s).
//
// The tree is radial. Its root is the medium-voltage (MV) bus, fed by the utility or, after an
// outage, by the generators. Every other element names its parent (another element, or "" for the
// MV bus): transformers step the voltage down, UPSs regulate their output and bridge outages
// from their batteries, lines (switchboards, busways, RPPs, cables) carry the load onward, and
// each rack hangs off one or two lines by its A and B feeds (the rack whips).
#include <cstdint>
#include <string>
#include <vector>

namespace racktwin::core {

/// Inverse-time overcurrent characteristic in the common form of IEEE C37.112-2018 and
/// IEC 60255-151:2009, with M = I / I_pickup and TD the time dial (time multiplier):
///   trip  t(M)   = TD * (A / (M^p - 1) + B)     for M > 1,
///   reset t_r(M) = TD * reset / (1 - M^2)        for M < 1 (IEEE C37.112 eq. 2).
/// reset = 0 resets the element at once when the current falls below pickup. Constants:
/// IEC standard inverse 0.14, 0, 0.02; IEC very inverse 13.5, 0, 1; IEC extremely inverse 80, 0, 2;
/// IEEE moderately inverse 0.0515, 0.114, 0.02 (reset 4.85); IEEE very inverse 19.61, 0.491, 2
/// (reset 21.6); IEEE extremely inverse 28.2, 0.1217, 2 (reset 29.1).
struct TripCurveSpec {
  double A = 0.14;     // s
  double B = 0.0;      // s
  double p = 0.02;     // exponent, > 0
  double reset = 0.0;  // s, IEEE t_r; 0 = instantaneous reset
};

/// A circuit breaker (or relay and breaker) on an element: opens the element's branch, and with
/// it everything below, on a thermal (inverse-time) or an instantaneous trip.
struct BreakerSpec {
  bool present = false;
  double I_pickup = 0.0;  // A rms phase current where the inverse-time element starts to time
  TripCurveSpec curve;
  double time_dial = 1.0;        // TD (IEEE) or TMS (IEC)
  double I_instantaneous = 0.0;  // A; trips within the step when reached; 0 = none
};

/// The utility supply at the MV bus.
struct UtilitySpec {
  double V_nominal = 13.8e3;     // V line-to-line at the MV bus
  double S_short_circuit = 0.0;  // VA, three-phase short-circuit power at the bus; 0 = stiff
  double X_over_R = 10.0;        // of the source impedance behind the bus
};

/// Standby generators on the MV bus: identical sets that start when the utility is lost.
struct GeneratorSpec {
  bool present = false;
  int units = 1;
  double P_rated = 0.0;         // W per set
  double start_delay = 15.0;    // s from utility loss to the sets closing onto the bus
  double ramp_rate = 0.0;       // W/s per set of load acceptance after closing; 0 = at once
  bool fails_to_start = false;  // the sets never close (a failure case)
};

/// A three-phase transformer. Series impedance from the short-circuit test: R gives the rated
/// load loss at rated current, |Z| = impedance * V_secondary^2 / S_rated; the no-load (core) loss
/// is drawn while the transformer is energised. Loss = P_no_load + P_load_rated (I / I_rated)^2.
struct TransformerSpec {
  std::string id;
  std::string parent;         // "" = the MV bus
  std::string type;           // data name, for reports
  double S_rated = 0.0;       // VA
  double V_primary = 0.0;     // V line-to-line; equals the parent's bus voltage
  double V_secondary = 0.0;   // V line-to-line
  double P_no_load = 0.0;     // W
  double P_load_rated = 0.0;  // W at rated current
  double impedance = 0.0;     // per unit on the transformer's rating, > its resistance
  std::string room;           // where its losses heat
  BreakerSpec breaker;        // secondary breaker
};

/// A double-conversion UPS of `modules` identical cabinets in parallel that share the load. Its
/// output voltage is regulated; its loss follows the efficiency table (output over input against
/// output over the cabinet rating, loss interpolated linearly as for the PSUs). On battery the
/// battery delivers output + loss. After the input returns it recharges at up to P_recharge (drawn
/// from the input; charge_efficiency of it is stored).
struct UpsSpec {
  std::string id;
  std::string parent;
  std::string type;
  int modules = 1;
  double P_rated = 0.0;                          // W output per module
  std::vector<double> efficiency_load_fraction;  // of P_rated, ascending
  std::vector<double> efficiency;                // output / input at those loads
  double input_power_factor = 0.99;              // of the rectifier
  double V_output = 0.0;                         // V line-to-line; 0 = the input bus voltage
  double E_battery = 0.0;                        // J usable at full charge, per module
  double soc_initial = 1.0;                      // fraction of E_battery
  double soc_min = 0.0;                          // end-of-discharge cut-off, fraction
  double P_recharge = 0.0;                       // W per module drawn to recharge
  double charge_efficiency = 0.95;               // stored / drawn while recharging
  std::string room;
  BreakerSpec breaker;  // output breaker
};

/// A series element at the voltage of its parent: a switchboard (incoming bus and main breaker),
/// a busway, an RPP with its feeder cable, or a plain cable.
struct LineSpec {
  enum class Kind : std::uint8_t { Switchboard, Busway, Rpp, Cable };
  Kind kind = Kind::Cable;
  std::string id;
  std::string parent;
  double R = 0.0;        // ohm per phase over the whole length
  double X = 0.0;        // ohm per phase
  double I_rated = 0.0;  // A, ampacity: the base of utilisation and headroom; 0 = unrated
  std::string room;
  BreakerSpec breaker;
};

/// A rack whip (one side's feed, all its cords lumped).
struct FeedSpec {
  double R = 0.0;        // ohm per phase
  double X = 0.0;        // ohm per phase
  double I_rated = 0.0;  // A; 0 = unrated
  BreakerSpec breaker;
};

/// How a rack's PSUs split between its A and B feeds.
///  - PsusInShelf: in every shelf the first half of the PSUs (rounded up) are on A, the rest on
///    B (3 + 3 per GB300 shelf, N+N);
///  - Shelves: the first half of the shelves (rounded up) are on A, the rest on B.
enum class FeedSplit : std::uint8_t { PsusInShelf, Shelves };

/// The feeds of one rack: the lines (or UPS, transformer) its A and B whips hang off.
struct RackFeedSpec {
  std::string rack;      // rack id
  std::string parent_a;  // element id; "" = the MV bus
  std::string parent_b;  // element id; "" = the MV bus
  bool dual = true;      // false: single-corded, every PSU on feed A
  FeedSpec a;
  FeedSpec b;
};

/// GB300 power smoothing (NVML power-smoothing controls; NVIDIA publishes the parameters, not
/// their values):
///  - the GPU's own power: a floor of floor_fraction * TGP held by the power burner while the GPU
///    has reached the floor within the last floor_hold_time (the ramp-down hysteresis), and rate
///    limits ramp_up / ramp_down on the GPU's power (0 = unlimited);
///  - the rack's PSU energy storage, E_per_gpu per GPU: the grid-facing power follows the moving
///    average (first-order lag, storage_time_constant) of the busbar load and the storage
///    supplies or absorbs the difference; when full or empty it passes the load through. The
///    grid-facing power so stays between the load and its average: the storage never widens
///    the swing, it charges in valleys and discharges on peaks.
struct PowerSmoothingSpec {
  bool enabled = false;
  double E_per_gpu = 65.0;             // J
  double floor_fraction = 0.0;         // of the GPU power limit (TGP)
  double ramp_up = 0.0;                // W/s per GPU; 0 = unlimited
  double ramp_down = 0.0;              // W/s per GPU; 0 = unlimited
  double floor_hold_time = 0.0;        // s
  double storage_time_constant = 0.0;  // s; 0 = the storage is not used
};

/// NVIDIA GPU power profiles: Max-P runs at the full power limit, Max-Q at a reduced one.
enum class PowerProfile : std::uint8_t { MaxP, MaxQ };

/// Power management of a group of racks: all racks (no racks and no job), listed racks, or the
/// racks of one job. Later groups override earlier ones for the racks they name.
struct PowerPolicySpec {
  std::vector<std::string> racks;  // rack ids
  std::string job;                 // job id
  PowerProfile profile = PowerProfile::MaxP;
  double gpu_P_cap = 0.0;  // W per GPU; 0 = no cap beyond the profile
  PowerSmoothingSpec smoothing;
};

struct ElectricalSpec {
  bool present = false;  // false: the racks' shelves are fed from an ideal source

  UtilitySpec utility;
  GeneratorSpec generator;
  std::vector<TransformerSpec> transformers;
  std::vector<UpsSpec> upses;
  std::vector<LineSpec> lines;
  /// One entry per rack, or none: then every rack has ideal A and B feeds on the MV bus.
  std::vector<RackFeedSpec> rack_feeds;
  FeedSplit feed_split = FeedSplit::PsusInShelf;
  double busbar_V_nominal = 50.0;           // V, the rack's DC busbar
  double busbar_R = 0.0;                    // ohm, the busbar from the shelves to the trays, lumped
  std::string default_room = "electrical";  // of elements that name no room

  double max_q_power_fraction = 0.75;           // Max-Q power limit as a fraction of TGP
  std::vector<PowerPolicySpec> power_policies;  // in order; the first is usually all racks
};

}  // namespace racktwin::core
