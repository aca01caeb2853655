#pragma once
// Plausibility of input quantities (docs/scenario-format.md, "Plausible ranges"). Every quantity
// the loaders read, after conversion to SI, is checked against two ranges of its kind:
//  - a physical range: outside it the value cannot describe a working site (a coolant below its
//    freezing point, a GPU limit of a gigawatt); the loader refuses it with file, line and key;
//  - an engineering range: outside it the value is possible but unusual (facility water outside
//    the ASHRAE W classes, a GPU limit above its data sheet); the loader accepts it and records a
//    warning with file, line, key, value, range and reason.
// The kind is declared by the call site; Kind::Default gives the dimension's generic range.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "racktwin/core/Units.hpp"

namespace racktwin::scenarios::detail {

enum class Kind : std::uint8_t {
  Default,                   // the generic physical range of the dimension
  PlainNumber,               // a number whose unit is in the key name (MapReader::number)
  RunLength,                 // simulation.duration: bounded by the step count instead
  CoolantTemperature,        // secondary (TCS) coolant: CDU supply set-points
  FacilityWaterTemperature,  // facility (FWS) water supply
  RoomAirTemperature,        // room and CRAH supply air
  JunctionTemperature,       // chip slowdown and shutdown limits
  ChipPower,                 // any chip's power limit (GPU, CPU, NVSwitch)
  GpuPowerLimit,             // a GPU's power limit as configured on a rack
  CableLength,               // an electrical line or rack feed
  PipeDiameter,              // inner diameter of a pipe or hose
  PumpSpeed,                 // running speed of a pump, fraction of rated
  PumpEfficiency,            // pump wire-to-water efficiency
  ConverterEfficiency,       // PSU or UPS efficiency points
  RackPitch,                 // floor plan: centre distance of two racks of a row
  RowPitch,                  // floor plan: distance between two rows of a bay
  AisleWidth,                // floor plan: cross aisle between two bays of rows
  SwitchPower,               // a network switch without optics (data/network)
  TransceiverPower,          // one port's transceiver (data/network)
  SwitchRadix,               // ports of a network switch (data/network)
  PortSpeed,                 // Gb/s of a network port (data/network)
  PowerFactor,               // of a power supply's input
  FabricGroupRacks,          // fabric.group: racks whose leaf switches stand together
};

/// A range [min, max] and why it is what it is; an absent bound is unlimited.
struct Bound {
  std::optional<double> min;
  std::optional<double> max;
  std::string min_reason;
  std::string max_reason;
};

struct Plausibility {
  Bound physical;     // outside: an error
  Bound engineering;  // outside (and inside physical): a warning
};

/// The ranges of a quantity of dimension `d` and kind `k` (SI). Coolant temperatures use the
/// freezing point of the current load's secondary coolant (LoadSession).
Plausibility plausibility(core::Dimension d, Kind k);

/// Formats an SI value in the unit a user reads for this dimension and kind (degC, %, kW...).
std::string displayValue(double value, core::Dimension d, Kind k);

/// The error text when `value` is outside the physical range ("must be at most ..."), else empty.
std::string physicalViolation(double value, core::Dimension d, Kind k, const std::string& text);
/// The warning text when `value` is outside the engineering range, else empty.
std::string engineeringViolation(double value, core::Dimension d, Kind k, const std::string& text);

/// The state of one scenario load: the warnings collected so far and the facts later checks
/// need (the secondary coolant's freezing point). A load creates one on its stack; readers find
/// it through current(). Without one (a data file read alone) warnings are dropped.
class LoadSession {
 public:
  LoadSession();
  ~LoadSession();
  LoadSession(const LoadSession&) = delete;
  LoadSession& operator=(const LoadSession&) = delete;

  static LoadSession* current() noexcept;

  /// "FILE:LINE:COLUMN: key 'KEY': warning: MESSAGE"
  std::vector<std::string> warnings;
  double coolant_T_freeze = core::kZeroCelsius_K;  // K
  std::string coolant_name = "water";
  /// Appended to "the end of the simulation (...)" when --duration set it.
  std::string duration_origin;

 private:
  LoadSession* previous_;
};

/// Records a warning in the current session, if any.
void addWarning(const std::string& where_and_key, const std::string& message);

}  // namespace racktwin::scenarios::detail
