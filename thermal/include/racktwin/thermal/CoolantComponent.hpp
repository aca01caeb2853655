#pragma once
// Coolant components: the two-port parts of a coolant loop (pipes and hoses, quick disconnects,
// cold plates, heat-exchanger sides, pumps, strainers, rear-door coils, air coils), in the spirit
// of Modelica Buildings' fluid components with a port_a and a port_b.
//
// Each kind declares, in one file under thermal/src/components/:
//  - its hydraulic law: one of the solver's generic laws (LinkLaw: pipe, power law, table, pump,
//    valve), so the hydraulic solver never learns about component kinds;
//  - its thermal role, one of four the heat sweeps know (ThermalRole): a volume, a heat source,
//    one side of an exchanger, or a chip's cold plate; the sweeps iterate over roles, never over
//    kinds;
//  - its parameters: the data-file schema (keys, dimensions, defaults, physical and usual ranges)
//    that the scenario loader reads generically from data/<folder>/<type>.yaml;
//  - for an exchanger, its effectiveness (what the other side is and how G follows the flows);
//  - the channels recorded per instance, and the validation case that checks it against an
//    independent reference (tests/thermal/test_component_<name>.cpp, docs/references/).
// A kind registers itself with one line in thermal/src/components/Registry.cpp.
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::thermal {

struct LinkLaw;

/// How a component exchanges heat with the coolant passing through it.
enum class ThermalRole : std::uint8_t {
  /// Carries and stores heat only (pipes, hoses, QDs, strainers, valves).
  Volume,
  /// A known heat flow q into its first volume (a pump's hydraulic power).
  HeatSource,
  /// One side of an exchanger: Q = G (T_in - T_other) leaves the coolant, with the
  /// inlet-referenced conductance G = eps C_min and the other side's inlet temperature set by the
  /// component's owner every step (facility water, rack exhaust air, room air).
  Exchanger,
  /// A chip's cold plate: its case node passes (T_case - T_in) / R(V) into the coolant.
  ChipPlate,
};
const char* thermalRoleName(ThermalRole role) noexcept;

/// What the other side of an Exchanger is.
enum class ExchangeMedium : std::uint8_t {
  None,            // not an exchanger
  FacilityWater,   // a CDU's plate heat exchanger
  RackExhaustAir,  // a rear-door coil: the air the rack's fans push through it
  RoomAir,         // a liquid-to-air coil with its own fans, drawing room air
};

/// One key of a component's data file.
struct ComponentParameter {
  std::string_view key;  // e.g. "Q_flow_nominal"
  core::Dimension dimension;
  /// SI value when the file omits the key; NaN: the key is required.
  double default_value = std::numeric_limits<double>::quiet_NaN();
  double physical_min = -std::numeric_limits<double>::infinity();  // outside: an error
  double physical_max = std::numeric_limits<double>::infinity();
  double usual_min = -std::numeric_limits<double>::infinity();  // outside: a warning
  double usual_max = std::numeric_limits<double>::infinity();
  std::string_view description;

  bool required() const noexcept { return default_value != default_value; }
};

/// The values of one component's parameters, SI, in its kind's schema order, plus an optional
/// pressure-drop characteristic (a power law or a table) when the kind takes one
/// (`CoolantComponentKind::takesPressureDrop`).
struct ComponentParameters {
  std::vector<double> values;
  std::optional<core::PressureDropLaw> pressure_drop;
};

/// A channel recorded for every instance of a kind (one column per instance).
enum class ComponentQuantity : std::uint8_t {
  V_flow,        // m3/s through the component, mean
  Q_flow,        // W out of the coolant (negative: into it), mean
  T_outlet,      // K, coolant leaving, sample and max
  T_air_outlet,  // K, air leaving an air-side exchanger, sample and max
  fan_P,         // W, fan power of an air-side exchanger, mean
};
struct ComponentChannel {
  ComponentQuantity quantity;
  std::string_view description;
};

class CoolantComponentKind {
 public:
  virtual ~CoolantComponentKind() = default;

  /// The kind's name, as scenarios write it (`kind: rear-door-hx`) and as the group of its
  /// recorded channels (with '-' as '_').
  virtual std::string_view name() const = 0;
  /// The folder of data/ that holds its types (`type: X` reads data/<folder>/X.yaml).
  virtual std::string_view dataFolder() const = 0;
  virtual std::span<const ComponentParameter> parameters() const = 0;
  /// Whether the data file carries a `pressure_drop` block (power law or table).
  virtual bool takesPressureDrop() const { return false; }
  virtual ThermalRole role() const = 0;
  virtual ExchangeMedium medium() const { return ExchangeMedium::None; }

  /// Completes an instance's parameters once its coolant is known (rho cp, J/(m3 K)): ratings
  /// derived from the data, appended after the schema's values. Throws std::invalid_argument
  /// when the data cannot describe a real component (an impossible rating).
  virtual void prepare(ComponentParameters& /*p*/, double /*coolant_rho_cp*/) const {}
  /// The hydraulic law of an instance.
  virtual LinkLaw law(const ComponentParameters& p) const = 0;
  /// Coolant volume inside (m3) and the number of upwind cells it is split into.
  virtual double volume(const ComponentParameters& p) const = 0;
  virtual int cells(const ComponentParameters& /*p*/) const { return 1; }

  /// Exchangers: the inlet-referenced conductance G = eps C_min (W/K) at coolant capacity rate
  /// C_coolant and other-side capacity rate C_other (both W/K, >= 0; G = 0 when either is 0).
  virtual double conductance(const ComponentParameters& /*p*/, double /*C_coolant*/,
                             double /*C_other*/) const {
    return 0.0;
  }
  /// Exchangers on air: the air flow (m3/s) and fan electrical power (W) at a fan speed in [0, 1],
  /// and the speed at which the component runs passively (no fan power; 0 if it cannot).
  virtual double airFlow(const ComponentParameters& /*p*/, double /*speed*/) const { return 0.0; }
  virtual double fanPower(const ComponentParameters& /*p*/, double /*speed*/) const { return 0.0; }
  /// Exchangers on air: the fan speed it runs at; 0 for a passive one (air from elsewhere).
  virtual double fanSpeed(const ComponentParameters& /*p*/) const { return 0.0; }
  /// Its nominal coolant flow (m3/s): what it takes from a boundary supply (facility water).
  virtual double nominalFlow(const ComponentParameters& /*p*/) const { return 0.0; }

  virtual std::span<const ComponentChannel> channels() const { return {}; }
  /// The test that validates the kind and its independent reference, for docs and reports.
  virtual std::string_view validation() const = 0;

  /// Index of a key in parameters(); asserts it exists (setup time only).
  std::size_t parameterIndex(std::string_view key) const;
  /// Parameters from values by key (missing keys take their defaults). Throws
  /// std::invalid_argument naming the key when a required key is missing, a key is unknown or a
  /// value is outside its physical range. For tests and built-in instances; the loader reads data
  /// files through the same schema with file and line in its messages.
  ComponentParameters make(std::initializer_list<std::pair<std::string_view, double>> values,
                           std::optional<core::PressureDropLaw> pressure_drop = std::nullopt) const;
};

/// Every registered kind, in registration order (thermal/src/components/Registry.cpp).
std::span<const CoolantComponentKind* const> coolantComponentKinds();
/// A kind by name; nullptr when none has it.
const CoolantComponentKind* findCoolantComponentKind(std::string_view name);

}  // namespace racktwin::thermal
