#pragma once
// EPANET input files (.inp): the network, its demands, patterns, curves and simple controls,
// converted to SI at read time (heads in m, flows in m3/s, potentials p* = rho g H in Pa) with
// EPANET's own conversion factors, and a steady solve at a given time with the file's tank levels
// held fixed. Results come back in the file's unit system.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "racktwin/core/FlowNetwork.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::scenarios {

/// The file's unit system (EPANET's [OPTIONS] UNITS and PRESSURE).
struct EpanetUnits {
  std::string flow = "GPM";        // CFS GPM MGD IMGD AFD (US) or LPS LPM MLD CMH CMD (SI)
  bool si = false;                 // metres, millimetres; else feet, inches
  std::string pressure = "psi";    // psi (US), m or kPa (SI)
  double flow_per_m3s = 0.0;       // file flow units per m3/s
  double length_m = 0.3048;        // metres per file length unit (head, elevation, length)
  double pressure_per_head = 0.0;  // file pressure units per file head unit (EPANET's factor)
  const char* headName() const { return si ? "m" : "ft"; }
};

struct EpanetNode {
  enum class Kind : std::uint8_t { Junction, Reservoir, Tank };
  std::string id;
  Kind kind = Kind::Junction;
  int line = 0;            // where the file defines it
  double elevation = 0.0;  // m (reservoir: its head)
  struct Demand {
    double base = 0.0;  // m3/s
    int pattern = -1;   // index into patterns, -1: none
    int line = 0;       // its line in [JUNCTIONS] or [DEMANDS]
  };
  std::vector<Demand> demands;                           // junctions
  int head_pattern = -1;                                 // reservoirs
  double level = 0.0, level_min = 0.0, level_max = 0.0;  // tanks, m above elevation
  double area = 0.0;  // tanks: m2 of the cylinder (Diameter column); level changes by volume/area
  bool volume_curve = false;  // tanks: a VolCurve is given (extended-period runs refuse it)
};

struct EpanetLink {
  enum class Kind : std::uint8_t { Pipe, Pump, Valve };
  std::string id;
  Kind kind = Kind::Pipe;
  int line = 0;
  int speed_pattern = -1;  // pumps
};

/// A simple control: LINK id status|setting AT TIME t | AT CLOCKTIME t | IF NODE id ABOVE|BELOW x.
struct EpanetControl {
  enum class Kind : std::uint8_t { Timer, ClockTime, Above, Below };
  Kind kind = Kind::Timer;
  core::FlowNetwork::Index link = 0;
  std::optional<thermal::LinkStatus> status;  // OPEN / CLOSED
  std::optional<double> setting;              // SI: pump speed, valve setting
  double time = 0.0;                          // s (timer: since start; clock time: of day)
  core::FlowNetwork::Index node = 0;
  double grade = 0.0;  // m of head the node's head is compared with
  int line = 0;
};

struct EpanetModel {
  std::string path;
  std::string title;
  EpanetUnits units;
  core::FlowNetwork network;
  std::vector<EpanetNode> nodes;  // in network index order
  std::vector<EpanetLink> links;
  std::vector<thermal::LinkLaw> laws;  // initial statuses and settings ([STATUS] applied)
  std::vector<std::string> pattern_ids;
  std::vector<std::vector<double>> patterns;
  std::vector<EpanetControl> controls;
  thermal::FluidState fluid;
  thermal::SolverOptions solver_options;
  double specific_gravity = 1.0;
  double accuracy = 0.001;
  int trials = 200;
  double demand_multiplier = 1.0;
  double pattern_step = 3600.0;    // s
  double hydraulic_step = 3600.0;  // s ([TIMES] HYDRAULIC TIMESTEP)
  double pattern_start = 0.0;      // s
  double start_clocktime = 0.0;    // s of day
  double duration = 0.0;           // s
  std::vector<std::string> warnings;
  // The first data line of sections the reader does not act on (0: absent), for readers that
  // must refuse them (a closed coolant loop has no leaks and no rule-based controls).
  int rules_line = 0, emitters_line = 0;
  bool viscosity_given = false;  // [OPTIONS] VISCOSITY or SPECIFIC GRAVITY set the fluid

  std::optional<core::FlowNetwork::Index> findNode(std::string_view id) const;
};

/// Reads an .inp file. Bad input throws core::InputError with file, line, column and the section
/// and keyword as key; unsupported features (constant-power pumps, PCVs, pressure-driven demand,
/// Chezy-Manning) are refused the same way, never computed wrongly.
EpanetModel readEpanetInput(const std::string& path);
/// The same from the file's text already read (`path` for messages).
EpanetModel parseEpanetInput(const std::string& text, const std::string& path);

/// Holds a tank at `head` (file units): a steady solve treats tanks as fixed heads.
void holdTankHead(EpanetModel& model, std::string_view tank_id, double head);

struct EpanetSolution {
  thermal::SolveStatus status;
  std::vector<double> head;      // file units (ft or m)
  std::vector<double> pressure;  // file units (psi, m or kPa)
  std::vector<double> demand;    // file flow units, the demand applied
  std::vector<double> flow;      // file flow units; exactly 0 for closed links
  std::vector<thermal::LinkState> state;
  double largest_imbalance = 0.0;  // m3/s, over connected junctions
};

struct EpanetSolveOptions {
  double time = 0.0;       // s since the start of the simulation
  double accuracy = 0.0;   // relative flow change; 0: the file's ACCURACY
  int max_iterations = 0;  // 0: the file's TRIALS
};

/// Steady state at options.time: demands and reservoir heads from the patterns, link statuses
/// and settings from [STATUS] and the controls as they stand at that time (timer controls up to
/// it, tank-level controls with the tanks at their file levels, junction-pressure controls
/// checked after the solve and re-solved like EPANET's pswitch).
EpanetSolution solveEpanet(const EpanetModel& model, const EpanetSolveOptions& options = {});
/// The same solve for a caller that solves the model once: model.laws move into the solver
/// instead of being copied (a law is a few hundred bytes per link) and are left empty.
EpanetSolution solveEpanetOnce(EpanetModel& model, const EpanetSolveOptions& options = {});

/// An extended-period run from t = 0 to options.time, as EPANET's hydraulic simulation: a steady
/// solve at each hydraulic time, then every tank's level moves by its net inflow times the step
/// over its area (EPANET's explicit tank update, hydraul.c tanklevels). Steps end at the
/// hydraulic time step, pattern boundaries, timer and clock-time controls, a tank reaching its
/// minimum or maximum level, and a tank reaching the grade of a level control on it. Link
/// statuses and settings carry over from step to step as controls change them. The solution is
/// the solve at options.time (tank heads in `head`).
/// Throws core::InputError for a tank with a volume curve (not supported) and
/// core::RuntimeError when a solve fails or a tank would overflow or drain (EPANET then closes the
/// tank's links; this is not modelled, so the run stops with the time and tank).
EpanetSolution simulateEpanet(const EpanetModel& model, const EpanetSolveOptions& options);

}  // namespace racktwin::scenarios
