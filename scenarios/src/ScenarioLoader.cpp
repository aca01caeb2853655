#include "racktwin/scenarios/ScenarioLoader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "ComponentLoader.hpp"
#include "FabricLoader.hpp"
#include "GpuTrace.hpp"
#include "InputPaths.hpp"
#include "LayoutOutputLoader.hpp"
#include "NetworkLoader.hpp"
#include "RatingsLoader.hpp"
#include "RequestTrace.hpp"
#include "ScenarioTemplate.hpp"
#include "WeatherCsv.hpp"
#include "WeatherFile.hpp"
#include "WorkloadModels.hpp"
#include "YamlReader.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/Units.hpp"
#include "racktwin/power/PsuEfficiency.hpp"
#include "racktwin/scenarios/ElectricalLoader.hpp"
#include "racktwin/scenarios/ScenarioPatch.hpp"
#include "racktwin/thermal/Coolant.hpp"
#include "racktwin/thermal/CoolantComponent.hpp"
#include "racktwin/thermal/HeatExchanger.hpp"
#include "racktwin/thermal/HeatRejection.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

#ifndef RACKTWIN_SOURCE_DIR
#define RACKTWIN_SOURCE_DIR "."
#endif

namespace racktwin::scenarios {
namespace {

namespace fs = std::filesystem;
using core::Dimension;
using detail::Check;
using detail::componentParameterKeys;
using detail::finishAttachedComponent;
using detail::finishComponentParameters;
using detail::formatNumber;
using detail::joined;
using detail::Kind;
using detail::ListReader;
using detail::MapReader;
using detail::readComponentParameters;
using detail::YamlDocument;

constexpr int kMaxCount = 1000;  // trays, chips, PSUs, cells: catches typos like 1800
constexpr int kMaxSubsteps = 1000;
constexpr double kMaxSteps = core::kMaxSimulationSteps;
constexpr double kStepTolerance = 1.0e-9;  // relative, for "a whole number of steps"
constexpr int kMaxGlycolPercent = 60;      // range of the propylene glycol property correlations

std::string degC(double T) {
  return formatNumber(core::toCelsius(T)) + " degC";
}
std::string seconds(double t) {
  return formatNumber(t) + " s";
}
std::string watts(double P) {
  return formatNumber(P) + " W";
}
/// The end of the run for messages, naming --duration when the command line set it.
std::string runEnd(const core::SimulationSpec& sim) {
  const detail::LoadSession* session = detail::LoadSession::current();
  return seconds(sim.duration) + (session != nullptr ? session->duration_origin : std::string());
}

/// An outdoor dry or wet bulb must lie within the range of outdoor air on Earth (WeatherCsv.hpp):
/// a Fahrenheit or kelvin figure given with the wrong unit fails here.
void requireOutdoorAir(const MapReader& m, std::string_view key, double T) {
  const double t = core::toCelsius(T);
  if (!(t >= detail::kOutdoorAirMin_degC && t <= detail::kOutdoorAirMax_degC)) {
    m.fail(key, "must be an outdoor air temperature, " + formatNumber(detail::kOutdoorAirMin_degC)
                    + " to " + formatNumber(detail::kOutdoorAirMax_degC) + " degC, got "
                    + formatNumber(t) + " degC");
  }
}

// A file whose version key names a format this program does not read fails on that key, before
// its other keys are judged against this version's vocabulary.
void checkFormatVersion(const YamlDocument& doc, std::string_view key, int version,
                        std::string_view what) {
  if (!doc.root.IsMap()) return;
  for (auto it = doc.root.begin(); it != doc.root.end(); ++it) {
    if (!it->first.IsScalar() || it->first.Scalar() != key) continue;
    if (it->second.IsScalar() && it->second.Scalar() == std::to_string(version)) return;
    const std::string got = it->second.IsScalar() ? it->second.Scalar() : "not a number";
    throw core::InputError(detail::locate(doc.file, it->second.Mark()), std::string(key),
                           "unsupported " + std::string(what) + " format version '" + got
                               + "'; this program reads version " + std::to_string(version));
  }
}

// ---------------------------------------------------------------------------------------------
// Component data files (data/<folder>/<type>.yaml)

struct DataKind {
  std::string_view kind;    // value of the file's `kind:` key
  std::string_view folder;  // folder under the data directory
  std::string_view noun;    // for messages
};
constexpr DataKind kRackKind{"rack", "racks", "rack type"};
constexpr DataKind kCduKind{"cdu", "cdus", "CDU type"};
constexpr DataKind kColdPlateKind{"cold_plate", "cold-plates", "cold plate type"};
constexpr DataKind kPsuKind{"psu", "psus", "PSU type"};
constexpr DataKind kRoomKind{"room", "rooms", "room type"};
// A heat-rejection file is of kind dry_cooler or cooling_tower (readHeatRejection checks it).
constexpr DataKind kHeatRejectionKind{"dry_cooler", "heat-rejection", "heat-rejection type"};
constexpr DataKind kChillerKind{"chiller", "chillers", "chiller type"};
constexpr DataKind kAirPlantKind{"air_plant", "air-plants", "air-side plant type"};

/// What a PSU data file gives to a rack's PowerShelfSpec.
struct PsuData {
  double P_rated = 0.0;
  core::EfficiencyCurve efficiency;
  double power_factor = 0.0;
};

/// Reads the header of a data file whose `kind:` must be one of `kinds`; returns the kind.
std::string readHeader(const MapReader& r, std::initializer_list<std::string_view> kinds,
                       std::string_view noun) {
  // racktwin_data was checked by checkFormatVersion; read it so the key counts as used.
  if (!r.has("racktwin_data")) {
    r.fail("racktwin_data", "required key is missing; a data file starts with 'racktwin_data: "
                                + std::to_string(kDataFormatVersion) + "'");
  }
  (void)r.integer("racktwin_data", kDataFormatVersion, kDataFormatVersion);
  const std::string k = r.string("kind", "the kind of data file");
  if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) {
    std::string expected;
    std::size_t i = 0;
    for (std::string_view kind : kinds) {
      if (i > 0) expected += i + 1 == kinds.size() ? " or " : ", ";
      expected += "'" + std::string(kind) + "'";
      ++i;
    }
    r.fail("kind", "expected kind " + expected + " (this file is read as a " + std::string(noun)
                       + "), got " + core::quoteForMessage(k));
  }
  (void)r.optionalString("description", "a description");
  return k;
}

void readHeader(const MapReader& r, const DataKind& kind) {
  (void)readHeader(r, {kind.kind}, kind.noun);
}

core::PowerLawDrop readDrop(const MapReader& m) {
  core::PowerLawDrop d;
  d.dp_nominal = m.quantity("nominal", Dimension::Pressure, Check::Positive);
  d.V_flow_nominal = m.quantity("at_flow", Dimension::VolumeFlow, Check::Positive);
  d.exponent = m.quantity("exponent", Dimension::Dimensionless, Check::Positive);
  if (d.exponent < 1.0 || d.exponent > 2.0) {
    m.fail("exponent",
           "must be from 1 (laminar) to 2 (fully turbulent), got " + formatNumber(d.exponent));
  }
  m.finish();
  return d;
}

core::PowerLawDrop readDrop(const MapReader& parent, std::string_view key) {
  return readDrop(parent.map(key, {"nominal", "at_flow", "exponent"}));
}

/// `pressure_drop_table: {flow: [...], dp: [...]}`: flows and drops positive and strictly
/// increasing, one drop per flow, at least two points (core::PressureDropTable).
core::PressureDropTable readDropTable(const MapReader& m) {
  core::PressureDropTable t;
  const ListReader flow = m.list("flow", "volume flows");
  const ListReader dp = m.list("dp", "pressure drops");
  if (flow.size() < 2) m.fail("flow", "expected at least two points");
  if (dp.size() != flow.size()) {
    m.fail("dp", "expected " + std::to_string(flow.size()) + " values, one per flow, got "
                     + std::to_string(dp.size()));
  }
  for (std::size_t i = 0; i < flow.size(); ++i) {
    const double V = flow.quantity(i, Dimension::VolumeFlow, Check::Positive);
    if (!t.V_flow.empty() && V <= t.V_flow.back()) flow.failItem(i, "flows must increase strictly");
    const double d = dp.quantity(i, Dimension::Pressure, Check::Positive);
    if (!t.dp.empty() && d <= t.dp.back()) {
      dp.failItem(i, "pressure drops must increase strictly with flow");
    }
    t.V_flow.push_back(V);
    t.dp.push_back(d);
  }
  m.finish();
  return t;
}

/// A component's drop: the power law under `key` or the table under `key`_table, exactly one.
core::PressureDropLaw readDropLaw(const MapReader& parent, const std::string& key) {
  const std::string table_key = key + "_table";
  const bool has_law = parent.has(key);
  const bool has_table = parent.has(table_key);
  if (has_law && has_table) {
    parent.fail(table_key, "give either '" + key + "' (a power law) or '" + table_key
                               + "' (a table), not both");
  }
  core::PressureDropLaw law;
  if (has_table) {
    law.form = core::PressureDropLaw::Form::Table;
    law.table = readDropTable(parent.map(table_key, {"flow", "dp"}));
  } else if (has_law) {
    law.power_law = readDrop(parent, key);
  } else {
    parent.fail(key, "required key is missing; expected '" + key + "' (nominal, at_flow, exponent) "
                         + "or '" + table_key + "' (flow, dp)");
  }
  return law;
}

core::PipeSpec readPipe(const MapReader& parent, std::string_view key) {
  const MapReader m = parent.map(key, {"length", "inner_diameter", "roughness", "cells"});
  core::PipeSpec p;
  p.length = m.quantity("length", Dimension::Length, Check::Positive);
  p.diameter = m.quantity("inner_diameter", Dimension::Length, Check::Positive, Kind::PipeDiameter);
  p.roughness = m.quantity("roughness", Dimension::Length, Check::NonNegative);
  p.cells = m.integer("cells", 1, kMaxCount);
  m.finish();
  return p;
}

/// A pump map's `installed`, `duty` (both default 1) and `standby_switchover_time` (required
/// exactly when installed > duty).
void readPumpCounts(const MapReader& pump, int& installed, int& duty, double& switchover) {
  installed = pump.integerOr("installed", 1, 1, kMaxCount);
  duty = pump.integerOr("duty", 1, 1, kMaxCount);
  if (duty > installed) {
    pump.fail("duty", "must not exceed the pumps installed (" + std::to_string(installed) + ")");
  }
  if (installed > duty) {
    switchover = pump.quantity("standby_switchover_time", Dimension::Time, Check::NonNegative);
  } else if (pump.has("standby_switchover_time")) {
    pump.fail("standby_switchover_time", "only with a standby pump (installed above duty)");
  }
}

/// Reads data files on demand and keeps each type once.
class DataLibrary {
 public:
  explicit DataLibrary(fs::path root) : root_(std::move(root)) {}

  const fs::path& root() const noexcept { return root_; }

  const core::RackTypeSpec& rack(const MapReader& ref, std::string_view key) {
    const std::string type = ref.typeName(key);
    auto it = racks_.find(type);
    if (it == racks_.end()) {
      it = racks_.emplace(type, readRack(open(kRackKind, type, ref, key), type)).first;
    }
    return it->second;
  }

  const core::ColdPlateSpec& coldPlate(const MapReader& ref, std::string_view key) {
    const std::string type = ref.typeName(key);
    auto it = cold_plates_.find(type);
    if (it == cold_plates_.end()) {
      it = cold_plates_.emplace(type, readColdPlate(open(kColdPlateKind, type, ref, key), type))
               .first;
    }
    return it->second;
  }

  const core::CduSpec& cdu(const MapReader& ref, std::string_view key) {
    const std::string type = ref.typeName(key);
    auto it = cdus_.find(type);
    if (it == cdus_.end()) {
      it = cdus_.emplace(type, readCdu(open(kCduKind, type, ref, key), type)).first;
    }
    return it->second;
  }

  core::RoomSpec room(const std::string& type, const core::SourceLocation& where,
                      const std::string& key) {
    return readRoom(open(kRoomKind, type, where, key));
  }

  /// A heat-rejection type (one unit). Its design point is rated with water of density rho and
  /// heat capacity cp, as the facility loop rates it (water at the plant's supply set-point).
  core::HeatRejectionSpec heatRejection(const MapReader& ref, std::string_view key, double rho,
                                        double cp) {
    const std::string type = ref.typeName(key);
    return readHeatRejection(open(kHeatRejectionKind, type, ref, key), type, rho, cp);
  }

  core::AirPlantSpec airPlant(const MapReader& ref, std::string_view key) {
    const std::string type = ref.typeName(key);
    return readAirPlant(open(kAirPlantKind, type, ref, key), type);
  }

  core::ChillerSpec chiller(const MapReader& ref, std::string_view key) {
    const std::string type = ref.typeName(key);
    return readChiller(open(kChillerKind, type, ref, key), type);
  }

  /// Records an id with the place that gives it (IdRegistry::add).
  using RegisterId = std::function<void(const std::string&, const MapReader&, std::string_view)>;
  /// A coolant component a rack attaches by the name of its kind (ComponentLoader.hpp): the
  /// kind's data file for `type`, then the scenario's overrides beside `kind` and `type`. Its
  /// water is the rack's CDU loop (rated with the secondary coolant at the CDU's set-point) or
  /// facility water at the site's supply temperature.
  core::AttachedComponentSpec attachment(const ListReader& list, std::size_t i,
                                         const core::RackSpec& rack,
                                         const std::vector<core::CduSpec>& cdus,
                                         const core::CoolantSpec& coolant,
                                         const core::FacilityWaterSpec& facility,
                                         const RegisterId& register_id) {
    // Every kind's keys are accepted at first; once `kind` is known, only its own.
    std::vector<std::string> keys{"kind", "type", "id", "water"};
    for (const thermal::CoolantComponentKind* k : thermal::coolantComponentKinds())
      for (std::string& key : componentParameterKeys(*k))
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
    const MapReader m = list.map(i, keys);
    const std::string name = m.string("kind", "a coolant component kind");
    const thermal::CoolantComponentKind* kind = thermal::findCoolantComponentKind(name);
    std::vector<std::string> kinds;
    for (const thermal::CoolantComponentKind* k : thermal::coolantComponentKinds())
      kinds.emplace_back(k->name());
    if (kind == nullptr) {
      m.fail("kind", "unknown coolant component kind " + core::quoteForMessage(name)
                         + "; expected one of: " + joined(kinds));
    }
    std::vector<std::string> own{"kind", "type", "id", "water"};
    for (std::string& key : componentParameterKeys(*kind))
      own.push_back(std::move(key));
    for (const std::string& key : keys) {
      if (std::find(own.begin(), own.end(), key) == own.end() && m.has(key)) {
        m.fail(key, "not a parameter of a " + name + "; expected one of: " + joined(own));
      }
    }
    core::AttachedComponentSpec spec;
    spec.kind = name;
    spec.type = m.typeName("type");
    // Default id: the rack's id and the kind's name ("row5/rack01/rear-door-hx").
    spec.id = m.has("id") ? m.id("id") : rack.id.child(kind->name());
    register_id(spec.id.str(), m, m.has("id") ? "id" : "kind");
    // The data file: the kind's schema, read like any other data file.
    const DataKind data_kind{kind->name(), kind->dataFolder(), "component type"};
    const YamlDocument doc = open(data_kind, spec.type, m, "type");
    std::vector<std::string> file_keys{"racktwin_data", "kind", "description", "source"};
    for (std::string& key : componentParameterKeys(*kind))
      file_keys.push_back(std::move(key));
    const MapReader d = MapReader::root(doc, file_keys);
    readHeader(d, data_kind);
    d.optionalRecord("source", "where the data comes from");
    std::vector<bool> given;
    readComponentParameters(d, *kind, spec.values, given);
    if (kind->takesPressureDrop()) spec.pressure_drop = readDropLaw(d, "pressure_drop");
    d.finish();
    // The scenario's overrides.
    readComponentParameters(m, *kind, spec.values, given);
    if (kind->takesPressureDrop() && (m.has("pressure_drop") || m.has("pressure_drop_table")))
      spec.pressure_drop = readDropLaw(m, "pressure_drop");
    const std::string water = m.has("water") ? m.string("water", "'cdu' or 'facility'")
                                             : std::string(rack.cdu.empty() ? "facility" : "cdu");
    double rho_cp = 0.0;
    if (water == "cdu") {
      spec.water = core::AttachedComponentSpec::Water::Cdu;
      const auto cdu = std::find_if(cdus.begin(), cdus.end(),
                                    [&](const core::CduSpec& c) { return c.id.str() == rack.cdu; });
      if (cdu == cdus.end()) {
        m.fail("water",
               "the rack has no CDU of its own (a rack on a ring cannot take a "
               "component on its CDU's water yet); give 'water: facility'");
      }
      const thermal::CoolantProperties props =
          thermal::Coolant::fromSpec(coolant).at(cdu->T_supply_set);
      rho_cp = props.rho * props.cp;
    } else if (water == "facility") {
      spec.water = core::AttachedComponentSpec::Water::Facility;
      if (kind->medium() != thermal::ExchangeMedium::RackExhaustAir) {
        m.fail("water", "a " + name + " is a link of the rack's CDU loop: only exchangers on the "
                        "rack's air take facility water");
      }
      if (facility.modelled()) {
        m.fail("water",
               "facility water is modelled as a loop here, which does not carry "
               "attached components yet; put the component on the rack's CDU "
               "('water: cdu') or take facility water as a boundary");
      }
      const thermal::CoolantProperties props = thermal::Coolant::water().at(facility.T_supply);
      rho_cp = props.rho * props.cp;
    } else {
      m.fail("water", "expected 'cdu' or 'facility', got " + core::quoteForMessage(water));
    }
    finishAttachedComponent(m, "type", *kind, spec, given, dataFile(data_kind, spec.type).string(),
                            rho_cp);
    m.finish();
    return spec;
  }

  /// The data file of a CDU type, for messages.
  std::string cduDataFile(const std::string& type) const {
    return dataFile(kCduKind, type).string();
  }

 private:
  fs::path dataFile(const DataKind& kind, const std::string& type) const {
    return (root_ / std::string(kind.folder) / (type + ".yaml")).lexically_normal();
  }

  std::string available(const DataKind& kind) const {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(root_ / std::string(kind.folder), ec), end; !ec && it != end;
         it.increment(ec)) {
      if (it->path().extension() == ".yaml") names.push_back(it->path().stem().string());
    }
    std::sort(names.begin(), names.end());
    return names.empty() ? std::string("none") : joined(names);
  }

  YamlDocument open(const DataKind& kind, const std::string& type,
                    const core::SourceLocation& where, const std::string& key) const {
    const fs::path file = dataFile(kind, type);
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      throw core::InputError(where, key,
                             "unknown " + std::string(kind.noun) + " '" + type + "': no data file "
                                 + file.string() + "; available: " + available(kind));
    }
    YamlDocument doc = detail::parseYaml(detail::readFileBytes(file.string()), file.string());
    checkFormatVersion(doc, "racktwin_data", kDataFormatVersion, "data file");
    return doc;
  }

  YamlDocument open(const DataKind& kind, const std::string& type, const MapReader& ref,
                    std::string_view key) const {
    return open(kind, type, ref.whereValue(key), ref.keyPath(key));
  }

  const PsuData& psu(const MapReader& ref, std::string_view key) {
    const std::string type = ref.typeName(key);
    auto it = psus_.find(type);
    if (it == psus_.end()) it = psus_.emplace(type, readPsu(open(kPsuKind, type, ref, key))).first;
    return it->second;
  }

  /// A chip on a cold plate (`cold_plate`), or on an air-cooled heat sink
  /// (`case_to_air_resistance`) in an air-cooled rack.
  core::ChipSpec readChip(const MapReader& m, double* P_busy, bool air = false) {
    core::ChipSpec c;
    if (air && m.has("cold_plate")) {
      m.fail("cold_plate",
             "an air-cooled rack's chips have no cold plate; give "
             "case_to_air_resistance (heat sink to the server's air)");
    }
    if (!air && m.has("case_to_air_resistance")) {
      m.fail("case_to_air_resistance",
             "applies to air-cooled racks (cooling: air); a liquid-cooled chip has a cold_plate");
    }
    c.P_max = m.quantity("power_limit", Dimension::Power, Check::Positive, Kind::ChipPower);
    c.P_idle = m.quantity("idle_power", Dimension::Power, Check::NonNegative);
    if (c.P_idle >= c.P_max) {
      m.fail("idle_power", "must be below power_limit (" + watts(c.P_max) + ")");
    }
    if (P_busy != nullptr) {
      *P_busy = m.quantity("busy_power", Dimension::Power, Check::NonNegative);
      if (*P_busy > c.P_max) {
        m.fail("busy_power", "must not exceed power_limit (" + watts(c.P_max) + ")");
      }
    }
    c.heat_capacity = m.quantity("heat_capacity", Dimension::HeatCapacity, Check::Positive);
    c.R_junction_case =
        m.quantity("junction_to_case_resistance", Dimension::ThermalResistance, Check::NonNegative);
    c.T_slowdown = m.quantity("slowdown_temperature", Dimension::Temperature, Check::Positive,
                              Kind::JunctionTemperature);
    c.T_slowdown_release = m.quantity("slowdown_release_temperature", Dimension::Temperature,
                                      Check::Positive, Kind::JunctionTemperature);
    if (c.T_slowdown_release >= c.T_slowdown) {
      m.fail("slowdown_release_temperature",
             "must be below slowdown_temperature (" + degC(c.T_slowdown) + ")");
    }
    c.throttled_power_fraction =
        m.quantity("throttled_power_fraction", Dimension::Dimensionless, Check::PositiveFraction);
    if (m.has("leakage")) {
      const MapReader leak =
          m.map("leakage", {"power_at_reference", "reference_temperature", "coefficient_per_K"});
      c.P_leakage_reference =
          leak.quantity("power_at_reference", Dimension::Power, Check::Positive);
      if (c.P_leakage_reference >= c.P_max) {
        leak.fail("power_at_reference", "must be below power_limit (" + watts(c.P_max) + ")");
      }
      c.T_leakage_reference =
          leak.quantity("reference_temperature", Dimension::Temperature, Check::Positive);
      c.leakage_coefficient = leak.number("coefficient_per_K", Check::Positive);
      if (c.leakage_coefficient > 0.2) {
        leak.fail("coefficient_per_K",
                  "expected a fraction per K (leakage doubles every ln 2 / coefficient K; "
                  "0.01-0.05 is typical), got "
                      + std::to_string(c.leakage_coefficient));
      }
      leak.finish();
    }
    if (m.has("shutdown_temperature")) {
      c.T_shutdown = m.quantity("shutdown_temperature", Dimension::Temperature, Check::Positive,
                                Kind::JunctionTemperature);
      if (c.T_shutdown <= c.T_slowdown) {
        m.fail("shutdown_temperature",
               "must be above slowdown_temperature (" + degC(c.T_slowdown) + ")");
      }
    }
    if (air) {
      c.R_case_air_nominal =
          m.quantity("case_to_air_resistance", Dimension::ThermalResistance, Check::Positive);
    } else {
      c.cold_plate = coldPlate(m, "cold_plate");
    }
    m.finish();
    return c;
  }

  core::RackTypeSpec readRack(const YamlDocument& doc, const std::string& type) {
    const MapReader r = MapReader::root(doc, {"racktwin_data",
                                              "kind",
                                              "description",
                                              "cooling",
                                              "compute_trays",
                                              "gpus_per_compute_tray",
                                              "cpus_per_compute_tray",
                                              "switch_trays",
                                              "nvswitches_per_switch_tray",
                                              "compute_tray_air_power",
                                              "switch_tray_air_power",
                                              "gpu",
                                              "cpu",
                                              "nvswitch",
                                              "quick_disconnect",
                                              "manifold_segment",
                                              "hose",
                                              "power",
                                              "air_flow",
                                              "server_fans",
                                              "ashrae_class",
                                              "ratings"});
    readHeader(r, kRackKind);
    core::RackTypeSpec s;
    s.type = type;
    detail::readRackRatings(r, s.ratings);  // RatingsLoader.cpp
    // Liquid-cooled (the NVL72 racks) or air-cooled (HGX-class servers on heat sinks and fans).
    const std::string cooling =
        r.has("cooling") ? r.string("cooling", "'liquid' or 'air'") : std::string("liquid");
    if (cooling != "liquid" && cooling != "air") {
      r.fail("cooling", "expected 'liquid' or 'air', got " + core::quoteForMessage(cooling));
    }
    const bool air = cooling == "air";
    s.liquid_cooled = !air;
    for (const char* key : {"server_fans", "ashrae_class"}) {
      if (!air && r.has(key)) r.fail(key, "applies to air-cooled racks (cooling: air)");
    }
    s.compute_trays = r.integer("compute_trays", 1, kMaxCount);
    s.gpus_per_tray = r.integer("gpus_per_compute_tray", 1, kMaxCount);
    s.cpus_per_tray = r.integer("cpus_per_compute_tray", 1, kMaxCount);
    s.switch_trays = r.integer("switch_trays", air ? 0 : 1, kMaxCount);
    s.switches_per_tray =
        s.switch_trays > 0 ? r.integer("nvswitches_per_switch_tray", 1, kMaxCount) : 0;
    s.compute_tray_air_P =
        r.quantity("compute_tray_air_power", Dimension::Power, Check::NonNegative);
    s.switch_tray_air_P = s.switch_trays > 0 ? r.quantity("switch_tray_air_power", Dimension::Power,
                                                          Check::NonNegative)
                                             : 0.0;
    s.air_V_flow = r.quantityOr("air_flow", Dimension::VolumeFlow, 0.0, Check::NonNegative);
    const auto chipKeys = [](bool busy) {
      std::vector<std::string> keys{"power_limit",
                                    "idle_power",
                                    "heat_capacity",
                                    "junction_to_case_resistance",
                                    "slowdown_temperature",
                                    "slowdown_release_temperature",
                                    "shutdown_temperature",
                                    "throttled_power_fraction",
                                    "leakage",
                                    "cold_plate",
                                    "case_to_air_resistance"};
      if (busy) keys.emplace_back("busy_power");
      return keys;
    };
    s.gpu = readChip(r.map("gpu", chipKeys(false)), nullptr, air);
    s.cpu = readChip(r.map("cpu", chipKeys(true)), &s.cpu_P_busy, air);
    if (s.switch_trays > 0) {
      s.nvswitch = readChip(r.map("nvswitch", chipKeys(true)), &s.switch_P_busy, air);
    }
    if (air) {
      // Server fans and the allowable inlet class; no coolant reaches the servers.
      const MapReader f =
          r.map("server_fans", {"power", "air_flow", "minimum_speed", "idle_speed",
                                "speed_per_load", "speed_per_K", "reference_inlet"});
      core::RackTypeSpec::ServerFans& fans = s.fans;
      fans.P_max = f.quantity("power", Dimension::Power, Check::Positive);
      fans.V_flow_max = f.quantity("air_flow", Dimension::VolumeFlow, Check::Positive);
      fans.speed_min =
          f.quantity("minimum_speed", Dimension::Dimensionless, Check::PositiveFraction);
      fans.speed_idle = f.quantity("idle_speed", Dimension::Dimensionless, Check::PositiveFraction);
      fans.speed_per_load = f.quantity("speed_per_load", Dimension::Dimensionless, Check::Fraction);
      fans.speed_per_K = f.number("speed_per_K", Check::NonNegative);
      fans.T_reference = f.quantity("reference_inlet", Dimension::Temperature, Check::Positive,
                                    Kind::RoomAirTemperature);
      f.finish();
      // ASHRAE TC 9.9 thermal guidelines, allowable inlet dry bulb per class.
      const std::string c = r.string("ashrae_class", "A1, A2, A3 or A4");
      constexpr double kC = core::kZeroCelsius_K;
      const struct {
        const char* name;
        double lo, hi;
      } classes[] = {{"A1", 15, 32}, {"A2", 10, 35}, {"A3", 5, 40}, {"A4", 5, 45}};
      bool found = false;
      for (int k = 0; k < 4; ++k) {
        if (c != classes[k].name) continue;
        s.ashrae_class = k + 1;
        s.T_inlet_allowed_min = kC + classes[k].lo;
        s.T_inlet_allowed_max = kC + classes[k].hi;
        found = true;
      }
      if (!found)
        r.fail("ashrae_class", "expected A1, A2, A3 or A4, got " + core::quoteForMessage(c));
      if (r.has("hose")) s.hose = readPipe(r, "hose");  // for a rear door on a CDU's water
      s.power = readPower(r);
      r.finish();
      return s;
    }
    // A QD by its power law, or by its flow coefficient Cv (converted per rack, for the coolant
    // of the rack's loop, in readRacks).
    const MapReader qd = r.map("quick_disconnect", {"pressure_drop", "flow_coefficient_Cv"});
    if (qd.has("pressure_drop") == qd.has("flow_coefficient_Cv")) {
      qd.fail(
          qd.has("pressure_drop") ? "flow_coefficient_Cv" : "pressure_drop",
          "give either 'pressure_drop' (a power law) or 'flow_coefficient_Cv' (US gpm at 1 psi),"
          " exactly one");
    }
    if (qd.has("pressure_drop")) {
      s.quick_disconnect = readDrop(qd, "pressure_drop");
    } else {
      s.quick_disconnect_Cv = qd.number("flow_coefficient_Cv", Check::Positive);
    }
    qd.finish();
    s.manifold_segment = readPipe(r, "manifold_segment");
    s.hose = readPipe(r, "hose");
    s.power = readPower(r);
    r.finish();
    return s;
  }

  /// A rack type's power shelves (an air-cooled server's own PSUs count as its shelf).
  core::PowerShelfSpec readPower(const MapReader& r) {
    const MapReader p = r.map("power", {"shelves", "psus_per_shelf", "psu"});
    core::PowerShelfSpec power;
    power.shelves = p.integer("shelves", 1, kMaxCount);
    power.psus_per_shelf = p.integer("psus_per_shelf", 1, kMaxCount);
    const PsuData& psu_data = psu(p, "psu");
    power.psu_P_rated = psu_data.P_rated;
    power.psu_efficiency = psu_data.efficiency;
    power.power_factor = psu_data.power_factor;
    p.finish();
    return power;
  }

  core::ColdPlateSpec readColdPlate(const YamlDocument& doc, const std::string& type) {
    const MapReader r =
        MapReader::root(doc, {"racktwin_data", "kind", "description", "thermal_resistance",
                              "minimum_flow", "pressure_drop", "volume", "reference_curve", "cfd"});
    readHeader(r, kColdPlateKind);
    core::ColdPlateSpec c;
    c.type = type;
    // Either the OCP form R = constant + b / V (b in K/W x m3/s), or a fitted power law
    // R = constant + flow_term (V / reference_flow)^-flow_exponent (racktwin cfd coldplate).
    const MapReader t =
        r.map("thermal_resistance", {"constant", "flow_coefficient_K_m3_per_W_s", "flow_term",
                                     "reference_flow", "flow_exponent"});
    c.R_constant = t.quantity("constant", Dimension::ThermalResistance, Check::NonNegative);
    if (t.has("flow_coefficient_K_m3_per_W_s")) {
      t.restrictTo({"constant", "flow_coefficient_K_m3_per_W_s"},
                   "with flow_coefficient_K_m3_per_W_s (the power-law form uses flow_term, "
                   "reference_flow and flow_exponent instead)");
      c.R_flow = t.number("flow_coefficient_K_m3_per_W_s", Check::Positive);
    } else {
      const double term = t.quantity("flow_term", Dimension::ThermalResistance, Check::Positive);
      const double V_ref = t.quantity("reference_flow", Dimension::VolumeFlow, Check::Positive);
      c.R_flow_exponent = t.number("flow_exponent", Check::Positive);
      if (c.R_flow_exponent > 5.0) {
        t.fail("flow_exponent",
               "expected an exponent in (0, 5], got " + std::to_string(c.R_flow_exponent));
      }
      c.R_flow = term * std::pow(V_ref, c.R_flow_exponent);
    }
    t.finish();
    r.optionalRecord("cfd", "the provenance of a CFD-derived curve");
    c.V_flow_min = r.quantity("minimum_flow", Dimension::VolumeFlow, Check::Positive);
    c.dp = readDrop(r.map("pressure_drop", {"nominal", "at_flow", "exponent"}));
    c.volume = r.quantity("volume", Dimension::Volume, Check::Positive);
    // The measured curve the fit came from: checked here, compared with the fit by the tests.
    if (const auto ref = r.optionalMap("reference_curve", {"coolant", "flow", "resistance"})) {
      (void)ref->string("coolant", "the coolant of the measurement");
      const ListReader flow = ref->list("flow", "volume flows");
      const ListReader res = ref->list("resistance", "thermal resistances");
      if (flow.size() < 2) ref->fail("flow", "expected at least two points");
      if (res.size() != flow.size()) {
        ref->fail("resistance", "expected " + std::to_string(flow.size())
                                    + " values, one per flow, got " + std::to_string(res.size()));
      }
      double previous = 0.0;
      for (std::size_t i = 0; i < flow.size(); ++i) {
        const double V = flow.quantity(i, Dimension::VolumeFlow, Check::Positive);
        if (V <= previous) flow.failItem(i, "flows must increase strictly");
        previous = V;
        (void)res.quantity(i, Dimension::ThermalResistance, Check::Positive);
      }
      ref->finish();
    }
    r.finish();
    return c;
  }

  PsuData readPsu(const YamlDocument& doc) {
    const MapReader r = MapReader::root(doc, {"racktwin_data", "kind", "description", "rated_power",
                                              "efficiency_curve", "power_factor"});
    readHeader(r, kPsuKind);
    PsuData d;
    d.P_rated = r.quantity("rated_power", Dimension::Power, Check::Positive);
    const MapReader e = r.map("efficiency_curve", {"load", "efficiency"});
    const ListReader load = e.list("load", "load fractions");
    const ListReader eff = e.list("efficiency", "efficiencies");
    if (load.size() < 2) e.fail("load", "expected at least two points");
    if (eff.size() != load.size()) {
      e.fail("efficiency", "expected " + std::to_string(load.size()) + " values, one per load, got "
                               + std::to_string(eff.size()));
    }
    for (std::size_t i = 0; i < load.size(); ++i) {
      const double x = load.quantity(i, Dimension::Dimensionless, Check::PositiveFraction);
      if (!d.efficiency.load_fraction.empty() && x <= d.efficiency.load_fraction.back()) {
        load.failItem(i, "loads must increase strictly");
      }
      d.efficiency.load_fraction.push_back(x);
      d.efficiency.efficiency.push_back(eff.quantity(
          i, Dimension::Dimensionless, Check::PositiveFraction, Kind::ConverterEfficiency));
    }
    // The electrical model's own check (a loss that turns negative between 0 and 120 % load),
    // made here so that it names this file.
    try {
      (void)power::PsuEfficiency(d.efficiency, d.P_rated);
    } catch (const std::invalid_argument& ex) {
      e.fail("efficiency", ex.what());
    }
    e.finish();
    d.power_factor = r.quantity("power_factor", Dimension::Dimensionless, Check::PositiveFraction);
    r.finish();
    return d;
  }

  core::CduSpec readCdu(const YamlDocument& doc, const std::string& type) {
    const MapReader r =
        MapReader::root(doc, {"racktwin_data", "kind", "description", "rated_heat", "approach",
                              "secondary_nominal_flow", "facility_nominal_flow", "heat_exchanger",
                              "strainer", "pump", "supply_temperature_setpoint", "valve",
                              "facility_side", "air_coil", "ratings"});
    readHeader(r, kCduKind);
    core::CduSpec c;
    c.type = type;
    detail::readCduRatings(r, c.ratings);  // RatingsLoader.cpp
    c.Q_flow_nominal = r.quantity("rated_heat", Dimension::Power, Check::Positive);
    c.secondary_V_flow_nominal =
        r.quantity("secondary_nominal_flow", Dimension::VolumeFlow, Check::Positive);
    if (r.has("air_coil")) {
      // A liquid-to-air CDU: an air coil and fans in place of the plate exchanger, no facility
      // water; `valve:` below drives the fans.
      for (const char* key :
           {"approach", "facility_nominal_flow", "heat_exchanger", "facility_side"}) {
        if (r.has(key)) {
          r.fail(key,
                 "a CDU with an air_coil rejects its heat to room air and has no facility "
                 "water side; remove this key");
        }
      }
      c.rejection = core::CduSpec::Rejection::RoomAir;
      const thermal::CoolantComponentKind& kind = *thermal::findCoolantComponentKind("air-coil");
      const MapReader coil = r.map("air_coil", componentParameterKeys(kind));
      std::vector<bool> given;
      readComponentParameters(coil, kind, c.air_coil, given);
      c.air_coil_dp = readDropLaw(coil, "pressure_drop");
      finishComponentParameters(r, "air_coil", kind, type, c.air_coil, c.air_coil_dp, given,
                                dataFile(kCduKind, type).string(), 0.0);
      coil.finish();
    } else {
      c.approach_nominal =
          r.quantity("approach", Dimension::TemperatureDifference, Check::Positive);
      c.facility_V_flow_nominal =
          r.quantity("facility_nominal_flow", Dimension::VolumeFlow, Check::Positive);
      const MapReader hx =
          r.map("heat_exchanger",
                {"secondary_pressure_drop", "secondary_pressure_drop_table", "secondary_volume"});
      c.hx_secondary_dp = readDropLaw(hx, "secondary_pressure_drop");
      c.hx_secondary_volume = hx.quantity("secondary_volume", Dimension::Volume, Check::Positive);
      hx.finish();
    }
    if (const auto strainer =
            r.optionalMap("strainer", {"pressure_drop", "pressure_drop_table", "volume"})) {
      c.has_strainer = true;
      c.strainer_dp = readDropLaw(*strainer, "pressure_drop");
      c.strainer_volume = strainer->quantity("volume", Dimension::Volume, Check::Positive);
      strainer->finish();
    }
    const MapReader pump =
        r.map("pump", {"shutoff_pressure", "max_flow", "speed", "efficiency", "volume", "installed",
                       "duty", "standby_switchover_time", "rise_time"});
    c.pump.dp_shutoff = pump.quantity("shutoff_pressure", Dimension::Pressure, Check::Positive);
    c.pump.V_flow_max = pump.quantity("max_flow", Dimension::VolumeFlow, Check::Positive);
    c.pump.speed =
        pump.quantity("speed", Dimension::Dimensionless, Check::PositiveFraction, Kind::PumpSpeed);
    c.pump.efficiency = pump.quantity("efficiency", Dimension::Dimensionless,
                                      Check::PositiveFraction, Kind::PumpEfficiency);
    c.pump.volume = pump.quantity("volume", Dimension::Volume, Check::Positive);
    readPumpCounts(pump, c.pumps_installed, c.pumps_duty, c.standby_switchover_time);
    c.pump_rise_time = pump.quantity("rise_time", Dimension::Time, Check::NonNegative);
    pump.finish();
    c.T_supply_set = r.quantity("supply_temperature_setpoint", Dimension::Temperature, Check::Any,
                                Kind::CoolantTemperature);
    const MapReader valve = r.map(
        "valve", {"proportional_gain_per_K", "integral_time", "minimum_opening", "stroke_time"});
    c.valve_gain = valve.number("proportional_gain_per_K", Check::Positive);
    c.valve_integral_time = valve.quantity("integral_time", Dimension::Time, Check::Positive);
    c.valve_opening_min =
        valve.quantity("minimum_opening", Dimension::Dimensionless, Check::Fraction);
    if (c.valve_opening_min >= 1.0) valve.fail("minimum_opening", "must be below 100 %");
    c.valve_stroke_time = valve.quantity("stroke_time", Dimension::Time, Check::Positive);
    valve.finish();
    readFacilitySide(r, c);
    r.finish();
    return c;
  }

  /// The optional `facility_side` of a CDU: its facility-side control valve (by Cv) and the
  /// exchanger's primary side, used when the scenario has a facility loop. Without it A_v stays 0
  /// (readCdus refuses such a CDU in a loop). The valve is the one `valve:` controls, so its
  /// actuator's stroke time is valve.stroke_time.
  static void readFacilitySide(const MapReader& r, core::CduSpec& c) {
    const auto side =
        r.optionalMap("facility_side", {"valve", "pressure_drop", "pressure_drop_table", "volume"});
    if (!side) return;
    const MapReader v =
        side->map("valve", {"flow_coefficient_Cv", "characteristic", "rangeability", "leakage"});
    core::ControlValveSpec& valve = c.facility_valve;
    valve.A_v = v.number("flow_coefficient_Cv", Check::Positive) * thermal::kCvToAv_m2;
    const std::string ch = v.string("characteristic", "'equal_percentage' or 'linear'");
    if (ch == "equal_percentage") {
      valve.characteristic = core::ControlValveSpec::Characteristic::EqualPercentage;
      valve.rangeability = v.number("rangeability", Check::Positive);
      if (valve.rangeability <= 1.0) {
        v.fail("rangeability",
               "must be above 1 (the ratio of the largest to the smallest "
               "controllable flow), got "
                   + formatNumber(valve.rangeability));
      }
    } else if (ch == "linear") {
      valve.characteristic = core::ControlValveSpec::Characteristic::Linear;
      v.restrictTo({"flow_coefficient_Cv", "characteristic", "leakage"},
                   "by a linear characteristic (rangeability belongs to equal_percentage)");
    } else {
      v.fail("characteristic",
             "expected 'equal_percentage' or 'linear', got " + core::quoteForMessage(ch));
    }
    valve.leakage = v.quantity("leakage", Dimension::Dimensionless, Check::Positive);
    if (valve.leakage >= 1.0) {
      v.fail("leakage",
             "must be below 100 % (the closed valve's flow as a fraction of the open "
             "valve's), got "
                 + formatNumber(valve.leakage));
    }
    valve.stroke_time = c.valve_stroke_time;
    v.finish();
    c.hx_facility_dp = readDropLaw(*side, "pressure_drop");
    c.hx_facility_volume = side->quantity("volume", Dimension::Volume, Check::Positive);
    side->finish();
  }

  core::HeatRejectionSpec readHeatRejection(const YamlDocument& doc, const std::string& type,
                                            double rho, double cp) {
    const MapReader r = MapReader::root(
        doc, {"racktwin_data", "kind", "description", "rated_heat", "nominal_water_flow",
              "approach", "design_ambient", "fan_power", "minimum_fan_speed", "pressure_drop",
              "pressure_drop_table", "volume", "cycles_of_concentration", "drift"});
    const std::string kind =
        readHeader(r, {"dry_cooler", "cooling_tower"}, kHeatRejectionKind.noun);
    core::HeatRejectionSpec h;
    h.type = type;
    const bool tower = kind == "cooling_tower";
    h.kind = tower ? core::HeatRejectionSpec::Kind::CoolingTower
                   : core::HeatRejectionSpec::Kind::DryCooler;
    if (!tower) {
      r.restrictTo({"racktwin_data", "kind", "description", "rated_heat", "nominal_water_flow",
                    "approach", "design_ambient", "fan_power", "minimum_fan_speed", "pressure_drop",
                    "pressure_drop_table", "volume"},
                   "by kind dry_cooler (cycles_of_concentration and drift are a cooling tower's)");
    }
    h.Q_flow_nominal = r.quantity("rated_heat", Dimension::Power, Check::Positive);
    h.V_flow_nominal = r.quantity("nominal_water_flow", Dimension::VolumeFlow, Check::Positive);
    h.approach_nominal = r.quantity("approach", Dimension::TemperatureDifference, Check::Positive);
    h.T_ambient_nominal = r.quantity("design_ambient", Dimension::Temperature, Check::Positive);
    requireOutdoorAir(r, "design_ambient", h.T_ambient_nominal);
    h.fan_P_nominal = r.quantity("fan_power", Dimension::Power, Check::NonNegative);
    h.fan_speed_min = r.quantity("minimum_fan_speed", Dimension::Dimensionless, Check::Fraction);
    if (h.fan_speed_min >= 1.0) r.fail("minimum_fan_speed", "must be below 100 %");
    h.dp = readDropLaw(r, "pressure_drop");
    h.volume = r.quantity("volume", Dimension::Volume, Check::Positive);
    if (tower) {
      h.cycles_of_concentration = r.number("cycles_of_concentration", Check::Positive);
      if (h.cycles_of_concentration <= 1.0) {
        r.fail("cycles_of_concentration",
               "must be above 1 (blow-down = evaporation / (cycles - 1)), got "
                   + formatNumber(h.cycles_of_concentration));
      }
      h.drift_fraction = r.quantity("drift", Dimension::Dimensionless, Check::Fraction);
      if (h.drift_fraction >= 1.0) r.fail("drift", "must be below 100 % of the water flow");
    }
    // The model rates the unit from this design point; one it cannot rate fails here, at the
    // approach that decides it, rather than when the run starts.
    try {
      (void)thermal::HeatRejectionUnit(h, rho, cp);
    } catch (const std::invalid_argument& e) {
      r.fail("approach", std::string("the design point cannot be rated: ") + e.what());
    }
    r.finish();
    return h;
  }

  core::ChillerSpec readChiller(const YamlDocument& doc, const std::string& type) {
    const MapReader r = MapReader::root(
        doc, {"racktwin_data", "kind", "description", "capacity", "carnot_fraction",
              "condenser_approach", "max_cop", "pressure_drop", "pressure_drop_table", "volume"});
    readHeader(r, kChillerKind);
    core::ChillerSpec c;
    c.present = true;
    c.type = type;
    c.Q_flow_nominal = r.quantity("capacity", Dimension::Power, Check::Positive);
    c.carnot_fraction =
        r.quantity("carnot_fraction", Dimension::Dimensionless, Check::PositiveFraction);
    c.condenser_approach =
        r.quantity("condenser_approach", Dimension::TemperatureDifference, Check::NonNegative);
    c.COP_max = r.number("max_cop", Check::Positive);
    c.dp = readDropLaw(r, "pressure_drop");
    c.volume = r.quantity("volume", Dimension::Volume, Check::Positive);
    r.finish();
    return c;
  }

  /// The air side's chilled-water plant (core::AirPlantSpec).
  core::AirPlantSpec readAirPlant(const YamlDocument& doc, const std::string& type) {
    const MapReader r =
        MapReader::root(doc, {"racktwin_data", "kind", "description", "chilled_water", "chillers",
                              "economiser", "cooling_tower"});
    readHeader(r, kAirPlantKind);
    core::AirPlantSpec p;
    p.present = true;
    p.type = type;
    const MapReader w = r.map(
        "chilled_water", {"supply_temperature", "design_rise", "pump_head", "pump_efficiency"});
    p.T_chw_supply = w.quantity("supply_temperature", Dimension::Temperature, Check::Positive,
                                Kind::FacilityWaterTemperature);
    p.dT_chw = w.quantity("design_rise", Dimension::TemperatureDifference, Check::Positive);
    p.chw_pump_dp = w.quantity("pump_head", Dimension::Pressure, Check::Positive);
    p.chw_pump_efficiency = w.quantity("pump_efficiency", Dimension::Dimensionless,
                                       Check::PositiveFraction, Kind::PumpEfficiency);
    w.finish();
    const MapReader c =
        r.map("chillers", {"count", "capacity", "reference_cop", "reference_leaving_chilled_water",
                           "reference_entering_condenser_water", "maximum_cop", "part_load_curve",
                           "minimum_part_load"});
    p.chillers = c.integer("count", 1, kMaxCount);
    p.chiller_Q_flow_nominal = c.quantity("capacity", Dimension::Power, Check::Positive);
    p.chiller_COP_reference = c.number("reference_cop", Check::Positive);
    p.T_chw_reference =
        c.quantity("reference_leaving_chilled_water", Dimension::Temperature, Check::Positive);
    p.T_cw_reference =
        c.quantity("reference_entering_condenser_water", Dimension::Temperature, Check::Positive);
    if (!(p.T_cw_reference > p.T_chw_reference)) {
      c.fail("reference_entering_condenser_water",
             "must be above the reference leaving chilled water (" + degC(p.T_chw_reference)
                 + "): a chiller lifts heat");
    }
    // The Carnot COP of the reference point bounds the reference COP.
    const double carnot = p.T_chw_reference / (p.T_cw_reference - p.T_chw_reference);
    if (p.chiller_COP_reference >= carnot) {
      c.fail("reference_cop", "must be below the Carnot COP of the reference temperatures ("
                                  + formatNumber(carnot) + ")");
    }
    p.chiller_COP_max = c.number("maximum_cop", Check::Positive);
    if (p.chiller_COP_max < p.chiller_COP_reference) {
      c.fail("maximum_cop", "must be at least the reference COP");
    }
    const ListReader curve = c.list("part_load_curve", "three coefficients a, b, c");
    if (curve.size() != 3) {
      c.fail("part_load_curve",
             "expected three coefficients a, b, c of EIR(PLR) / EIR(1) = a + b PLR + c PLR^2");
    }
    for (std::size_t i = 0; i < 3; ++i)
      p.eir_plr[i] = curve.quantity(i, Dimension::Dimensionless);
    const double at_full = p.eir_plr[0] + p.eir_plr[1] + p.eir_plr[2];
    if (std::abs(at_full - 1.0) > 1e-3) {
      c.fail("part_load_curve",
             "must give 1 at full load (a + b + c = 1), got " + formatNumber(at_full));
    }
    p.chiller_PLR_min =
        c.quantity("minimum_part_load", Dimension::Dimensionless, Check::PositiveFraction);
    for (double PLR = p.chiller_PLR_min; PLR <= 1.0; PLR += 0.01) {
      if (!(p.eir_plr[0] + p.eir_plr[1] * PLR + p.eir_plr[2] * PLR * PLR > 0.0)) {
        c.fail("part_load_curve", "must stay positive from minimum_part_load to full load");
      }
    }
    c.finish();
    if (const auto e = r.optionalMap("economiser", {"approach"})) {
      p.economiser = true;
      p.economiser_approach =
          e->quantity("approach", Dimension::TemperatureDifference, Check::NonNegative);
      e->finish();
    }
    const MapReader t =
        r.map("cooling_tower", {"approach", "fan_power_fraction", "condenser_pump_power_fraction",
                                "cycles_of_concentration"});
    p.tower_approach = t.quantity("approach", Dimension::TemperatureDifference, Check::Positive);
    p.tower_fan_power_fraction =
        t.quantity("fan_power_fraction", Dimension::Dimensionless, Check::Fraction);
    p.cw_pump_power_fraction =
        t.quantity("condenser_pump_power_fraction", Dimension::Dimensionless, Check::Fraction);
    p.cycles_of_concentration = t.number("cycles_of_concentration", Check::Positive);
    if (p.cycles_of_concentration <= 1.0) {
      t.fail("cycles_of_concentration", "must be above 1 (blow-down = evaporation / (cycles - 1))");
    }
    t.finish();
    r.finish();
    return p;
  }

  core::RoomSpec readRoom(const YamlDocument& doc) {
    const MapReader r = MapReader::root(
        doc, {"racktwin_data", "kind", "description", "supply_air_temperature", "crah_conductance",
              "crah_capacity", "heat_capacity", "crah_fan_power_fraction", "recirculation"});
    readHeader(r, kRoomKind);
    core::RoomSpec room = readRoomValues(r, core::RoomSpec{}, true);
    r.finish();
    return room;
  }

 public:
  /// The room keys, shared by data/rooms/*.yaml (all required) and a scenario's `room:`
  /// (each optional, overriding the room type).
  static core::RoomSpec readRoomValues(const MapReader& r, core::RoomSpec room, bool required) {
    auto read = [&](std::string_view key, Dimension d, double current, Check check,
                    Kind kind = Kind::Default) {
      return required ? r.quantity(key, d, check, kind)
                      : r.quantityOr(key, d, current, check, kind);
    };
    room.T_supply_air = read("supply_air_temperature", Dimension::Temperature, room.T_supply_air,
                             Check::Positive, Kind::RoomAirTemperature);
    room.crah_conductance = read("crah_conductance", Dimension::ThermalConductance,
                                 room.crah_conductance, Check::Positive);
    room.crah_Q_flow_max =
        read("crah_capacity", Dimension::Power, room.crah_Q_flow_max, Check::Positive);
    room.heat_capacity =
        read("heat_capacity", Dimension::HeatCapacity, room.heat_capacity, Check::Positive);
    room.crah_fan_power_fraction = read("crah_fan_power_fraction", Dimension::Dimensionless,
                                        room.crah_fan_power_fraction, Check::Fraction);
    // Optional in data files too: 0 (every rack breathes the CRAH supply) unless given.
    room.recirculation = r.quantityOr("recirculation", Dimension::Dimensionless, room.recirculation,
                                      Check::Fraction);
    return room;
  }

 private:
  fs::path root_;
  std::map<std::string, core::RackTypeSpec> racks_;
  std::map<std::string, core::CduSpec> cdus_;
  std::map<std::string, core::ColdPlateSpec> cold_plates_;
  std::map<std::string, PsuData> psus_;
};

// ---------------------------------------------------------------------------------------------
// The scenario file

core::CoolantSpec readCoolant(const MapReader& r) {
  const std::string text = r.string("coolant", "'water' or 'PG<percent>' such as 'PG25'");
  core::CoolantSpec c;
  c.name = text;
  if (text == "water") return c;
  const std::string_view digits = std::string_view(text).substr(text.size() >= 2 ? 2 : 0);
  int percent = 0;
  bool ok = text.size() > 2 && text.size() <= 4 && text.compare(0, 2, "PG") == 0;
  for (char ch : digits)
    ok = ok && ch >= '0' && ch <= '9';
  if (ok) percent = std::stoi(std::string(digits));
  if (!ok || percent < 1 || percent > kMaxGlycolPercent) {
    r.fail("coolant", "expected 'water' or 'PG<percent>' (propylene glycol, mass percent 1 to "
                          + std::to_string(kMaxGlycolPercent) + ", such as 'PG25'), got "
                          + core::quoteForMessage(text));
  }
  c.glycol_mass_fraction = percent / 100.0;
  return c;
}

/// Tells the plausibility checks of the coolant temperatures read later which coolant it is.
void noteCoolant(const core::CoolantSpec& c) {
  if (detail::LoadSession* session = detail::LoadSession::current()) {
    session->coolant_T_freeze = thermal::Coolant::fromSpec(c).freezingPoint();
    session->coolant_name = c.name;
  }
}

/// A command-line value in seconds, checked as the file's key would be; errors name the option.
double checkedOption(const char* option, double value, Kind kind) {
  const core::SourceLocation where{"<command line>", 0, 0};
  const std::string text = formatNumber(value) + " s";
  if (!(value > 0.0))
    throw core::InputError(where, option, "must be > 0, got " + core::quoteForMessage(text));
  const std::string error = detail::physicalViolation(value, Dimension::Time, kind, text);
  if (!error.empty()) throw core::InputError(where, option, error);
  return value;
}

/// As requireWholeSteps for a value the command line changed: errors name `option`.
/// `too_many` is named when the count exceeds the limit, `not_whole` when it is not whole.
void requireWholeStepsOption(const char* too_many, const char* not_whole, const char* what,
                             double value, double step) {
  const core::SourceLocation where{"<command line>", 0, 0};
  const double n = value / step;
  if (n > kMaxSteps) {
    throw core::InputError(where, too_many,
                           "the " + std::string(what) + " " + seconds(value) + " gives "
                               + formatNumber(n) + " steps of " + seconds(step) + "; at most "
                               + formatNumber(kMaxSteps)
                               + " steps are allowed (use a larger step)");
  }
  const double whole = std::round(n);
  if (whole < 1.0 || std::abs(value - whole * step) > kStepTolerance * value) {
    throw core::InputError(where, not_whole,
                           "the " + std::string(what) + " must be a whole number of steps (step "
                               + seconds(step) + "), got " + seconds(value) + " = "
                               + formatNumber(n) + " steps");
  }
}

/// `value` must be a whole, positive number of `step`s.
void requireWholeSteps(const MapReader& m, std::string_view key, double value, double step) {
  const double n = value / step;
  if (n > kMaxSteps) {
    m.fail(key, "gives " + formatNumber(n) + " steps of " + seconds(step) + "; at most "
                    + formatNumber(kMaxSteps) + " steps are allowed (use a larger step)");
  }
  const double whole = std::round(n);
  if (whole < 1.0 || std::abs(value - whole * step) > kStepTolerance * value) {
    m.fail(key, "must be a whole number of steps (step " + seconds(step) + "), got "
                    + seconds(value) + " = " + formatNumber(n) + " steps");
  }
}

/// `simulation.fast_forward` (core::FastForwardSpec): the longest step, the tolerance and the
/// settle time after events, all on the grid of the fine step `s.step`.
void readFastForward(const MapReader& m, core::SimulationSpec& s) {
  const auto f = m.optionalMap("fast_forward", {"max_step", "tolerance", "settle"});
  if (!f) return;
  core::FastForwardSpec& ff = s.fast_forward;
  ff.enabled = true;
  ff.max_step = f->quantity("max_step", Dimension::Time, Check::Positive);
  requireWholeSteps(*f, "max_step", ff.max_step, s.step);
  ff.tolerance = f->quantity("tolerance", Dimension::TemperatureDifference, Check::Positive);
  ff.settle = f->quantityOr("settle", Dimension::Time, 60.0, Check::NonNegative);
  if (ff.settle > 0.0) requireWholeSteps(*f, "settle", ff.settle, s.step);
  const auto warn = [&](std::string_view key, const std::string& text) {
    const core::SourceLocation at = f->whereValue(key);
    detail::addWarning(at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column)
                           + ": key '" + f->keyPath(key) + "'",
                       text);
  };
  if (ff.tolerance > 1.0) {
    warn("tolerance", formatNumber(ff.tolerance)
                          + " K is above 1 K: long steps may hide transients a facility engineer "
                            "would want to see (0.05 K keeps an annual PUE within 0.1 %)");
  }
  if (ff.max_step > s.record_interval * (1.0 + kStepTolerance)) {
    warn("max_step", "is longer than the record interval (" + seconds(s.record_interval)
                         + "): steps end at every record time, so no step is longer than that");
  }
  f->finish();
}

core::SimulationSpec readSimulation(const MapReader& r, const SimulationOverrides& o) {
  const MapReader m = r.map("simulation", {"duration", "step", "substeps", "record_interval",
                                           "seed", "control_step", "fast_forward"});
  core::SimulationSpec s;
  s.step = m.quantityOr("step", Dimension::Time, 1.0, Check::Positive);
  s.duration = m.quantity("duration", Dimension::Time, Check::Positive, Kind::RunLength);
  // Command-line values replace the file's and pass the same checks, naming the option.
  if (o.step) s.step = checkedOption("--step", *o.step, Kind::Default);
  if (o.duration) {
    s.duration = checkedOption("--duration", *o.duration, Kind::RunLength);
    if (detail::LoadSession* session = detail::LoadSession::current()) {
      session->duration_origin = ", set by --duration";
    }
  }
  if (o.step || o.duration) {
    requireWholeStepsOption(o.step ? "--step" : "--duration", o.duration ? "--duration" : "--step",
                            "duration", s.duration, s.step);
  } else {
    requireWholeSteps(m, "duration", s.duration, s.step);
  }
  s.substeps = m.integerOr("substeps", 10, 1, kMaxSubsteps);
  s.record_interval = m.quantityOr("record_interval", Dimension::Time, s.step, Check::Positive);
  if (o.record_interval) {
    s.record_interval = checkedOption("--record-interval", *o.record_interval, Kind::Default);
    requireWholeStepsOption("--record-interval", o.step ? "--step" : "--record-interval",
                            "record_interval", s.record_interval, s.step);
  } else if (o.step && m.has("record_interval")) {
    requireWholeStepsOption("--step", "--step", "record_interval", s.record_interval, s.step);
  } else {
    requireWholeSteps(m, "record_interval", s.record_interval, s.step);
  }
  if (s.record_interval > s.duration) {
    if (o.record_interval) {
      throw core::InputError({"<command line>", 0, 0}, "--record-interval",
                             "must not exceed the duration (" + seconds(s.duration) + ")");
    }
    if (o.duration) {
      throw core::InputError({"<command line>", 0, 0}, "--duration",
                             "must not be shorter than simulation.record_interval ("
                                 + seconds(s.record_interval) + ", "
                                 + m.whereValue("record_interval").file + " line "
                                 + std::to_string(m.whereValue("record_interval").line) + ")");
    }
    m.fail("record_interval", "must not exceed the duration (" + seconds(s.duration) + ")");
  }
  s.seed = m.unsignedIntegerOr("seed", 0);
  // The cooling controllers' sampling: 2 s by default; coarser for annual studies.
  s.control_step = m.quantityOr("control_step", Dimension::Time, 2.0, Check::Positive);
  if (s.control_step > 3600.0) {
    m.fail("control_step",
           "must be at most 1 h: the CDU and pump PIs cannot hold a loop "
           "sampled once an hour");
  }
  if (s.control_step > 10.0) {
    const core::SourceLocation at = m.whereValue("control_step");
    detail::addWarning(at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column)
                           + ": key '" + m.keyPath("control_step") + "'",
                       seconds(s.control_step)
                           + " is above 10 s: the CDU valve and pump PIs can overshoot at coarser "
                             "sampling (the shipped halls are checked up to 10 s)");
  }
  readFastForward(m, s);
  m.finish();
  return s;
}

// ---------------------------------------------------------------------------------------------
// Facility water and the outdoor ambient

/// Where the facility loops were given, for the checks that need the CDUs (read later).
struct FacilityOrigin {
  core::SourceLocation loop_where;  // the `loop:` (or `loops:`) key
  bool header_segment = false;      // facility_water.loop.header_segment was given
  /// `loops[]`: each loop's `cdus` items as written, for resolving them once the CDUs are read.
  struct CduItem {
    std::string text;  // a CDU id, or PREFIX/*
    core::SourceLocation where;
    std::string key;  // "facility_water.loops[1].cdus[0]"
  };
  struct Loop {
    std::vector<CduItem> cdus;
    core::SourceLocation where;  // the loop's map
    std::string key;             // "facility_water.loops[1]"
    bool header_segment = false;
  };
  std::vector<Loop> loops;
};

/// A facility loop's supply set-point is held at the plant and the loop's water at its
/// properties: it must be liquid.
void requireLiquidSetpoint(const MapReader& m, std::string_view key, double T_supply) {
  const double T_degC = core::toCelsius(T_supply);
  if (!(T_degC > 0.0 && T_degC < 100.0)) {
    m.fail(key,
           "with a facility loop this is the plant's supply set-point and must be liquid water, "
           "above 0 and below 100 degC, got "
               + degC(T_supply));
  }
}

/// A facility loop (`facility_water.loop`, or an entry of `loops`): plant pumps, their
/// differential-pressure control, the mains, the heat rejection and the optional trim chiller
/// (core::FacilityLoopSpec), its water at T_supply.
void readFacilityLoop(const MapReader& m, DataLibrary& lib, double T_supply,
                      core::FacilityLoopSpec& l, bool& header_segment) {
  l.present = true;
  const bool controlled = m.has("control");
  const MapReader pump = m.map("pump", {"shutoff_pressure", "max_flow", "speed", "efficiency",
                                        "volume", "installed", "duty", "standby_switchover_time"});
  l.pump.dp_shutoff = pump.quantity("shutoff_pressure", Dimension::Pressure, Check::Positive);
  l.pump.V_flow_max = pump.quantity("max_flow", Dimension::VolumeFlow, Check::Positive);
  if (controlled && pump.has("speed")) {
    pump.fail("speed",
              "the differential-pressure control (facility_water.loop.control) sets the speed; "
              "give either pump.speed (a fixed speed) or control, not both");
  }
  l.pump.speed = pump.quantityOr("speed", Dimension::Dimensionless, 1.0, Check::PositiveFraction,
                                 Kind::PumpSpeed);
  l.pump.efficiency = pump.quantity("efficiency", Dimension::Dimensionless, Check::PositiveFraction,
                                    Kind::PumpEfficiency);
  l.pump.volume = pump.quantity("volume", Dimension::Volume, Check::Positive);
  readPumpCounts(pump, l.pumps_installed, l.pumps_duty, l.standby_switchover_time);
  pump.finish();
  if (const auto c = m.optionalMap("control", {"differential_pressure", "proportional_gain_per_kPa",
                                               "integral_time", "minimum_speed"})) {
    l.dp_set = c->quantity("differential_pressure", Dimension::Pressure, Check::Positive);
    l.pump_gain = c->number("proportional_gain_per_kPa", Check::Positive) / 1000.0;  // per Pa
    l.pump_integral_time = c->quantity("integral_time", Dimension::Time, Check::NonNegative);
    l.pump_speed_min = c->quantity("minimum_speed", Dimension::Dimensionless, Check::Fraction);
    if (l.pump_speed_min >= 1.0) {
      c->fail("minimum_speed", "must be below 100 %, or the speed cannot follow the control");
    }
    c->finish();
  }
  l.plant_pipe = readPipe(m, "plant_pipe");
  if (m.has("header_segment")) {
    l.header_segment = readPipe(m, "header_segment");
    header_segment = true;
  }
  const thermal::CoolantProperties water = thermal::Coolant::water().at(T_supply);
  const MapReader hr = m.map("heat_rejection", {"type", "units"});
  l.heat_rejection = lib.heatRejection(hr, "type", water.rho, water.cp);
  l.heat_rejection.units = hr.integer("units", 1, kMaxCount);
  hr.finish();
  if (const auto ch = m.optionalMap("chiller", {"type"})) {
    l.chiller = lib.chiller(*ch, "type");
    ch->finish();
  }
  m.finish();
}

/// `facility_water.loops`: one loop per hall, each with an id, the CDUs it serves (read as
/// written; resolveFacilityLoops names them once the CDUs are read) and the keys of `loop`.
void readFacilityLoops(const MapReader& fw, DataLibrary& lib, core::FacilityWaterSpec& f,
                       FacilityOrigin& origin) {
  origin.loop_where = fw.whereKey("loops");
  const ListReader list =
      fw.list("loops", "a list of facility loops (id, cdus and the keys of facility_water.loop)");
  if (list.size() == 0) fw.fail("loops", "expected at least one facility loop");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const MapReader m = list.map(i, {"id", "cdus", "supply_temperature", "pump", "control",
                                     "plant_pipe", "header_segment", "heat_rejection", "chiller"});
    core::FacilityLoopSpec& l = f.loops.emplace_back();
    l.id = m.id("id").str();
    l.where = m.where();
    for (std::size_t k = 0; k + 1 < f.loops.size(); ++k) {
      if (f.loops[k].id == l.id) m.fail("id", "facility loop '" + l.id + "' is defined twice");
    }
    double T_supply = f.T_supply;
    if (m.has("supply_temperature")) {
      T_supply = l.T_supply = m.quantity("supply_temperature", Dimension::Temperature);
      requireLiquidSetpoint(m, "supply_temperature", T_supply);
      m.plausible("supply_temperature", T_supply, Dimension::Temperature,
                  Kind::FacilityWaterTemperature);
    } else {
      requireLiquidSetpoint(fw, "supply_temperature", T_supply);
    }
    FacilityOrigin::Loop& o = origin.loops.emplace_back();
    o.where = m.where();
    o.key = list.itemPath(i);
    const ListReader cdus = m.list("cdus", "CDU ids, or PREFIX/* for every CDU under PREFIX/");
    if (cdus.size() == 0) m.fail("cdus", "expected at least one CDU id or PREFIX/*");
    for (std::size_t k = 0; k < cdus.size(); ++k) {
      o.cdus.push_back(
          {cdus.string(k, "a CDU id, or PREFIX/*"), cdus.whereItem(k), cdus.itemPath(k)});
    }
    readFacilityLoop(m, lib, T_supply, l, o.header_segment);
  }
}

core::FacilityWaterSpec readFacilityWater(const MapReader& r, DataLibrary& lib,
                                          FacilityOrigin& origin) {
  const MapReader fw = r.map("facility_water", {"supply_temperature", "loop", "loops"});
  core::FacilityWaterSpec f;
  f.T_supply = fw.quantity("supply_temperature", Dimension::Temperature);
  if (fw.has("loop") && fw.has("loops")) {
    fw.fail("loops",
            "give either loop (one loop serving every CDU) or loops (one per hall), not both");
  }
  if (const auto loop = fw.optionalMap("loop", {"pump", "control", "plant_pipe", "header_segment",
                                                "heat_rejection", "chiller"})) {
    origin.loop_where = fw.whereKey("loop");
    requireLiquidSetpoint(fw, "supply_temperature", f.T_supply);
    readFacilityLoop(*loop, lib, f.T_supply, f.loop, origin.header_segment);
  }
  if (fw.has("loops")) readFacilityLoops(fw, lib, f, origin);
  // After the loop's own check (liquid water), which names the plant set-point.
  fw.plausible("supply_temperature", f.T_supply, Dimension::Temperature,
               Kind::FacilityWaterTemperature);
  fw.finish();
  return f;
}

/// `ambient`: outdoor air at the plant, constant or from a weather file. Required with a facility
/// loop, refused without one (nothing else uses it).
core::AmbientSpec readAmbient(const MapReader& r, const core::FacilityWaterSpec& f,
                              const FacilityOrigin& origin, double duration) {
  const auto m = r.optionalMap("ambient", {"dry_bulb", "wet_bulb", "weather", "weather_start"});
  if (!m) {
    if (f.modelled()) {
      r.fail("ambient", "required key is missing: the facility loop (facility_water.loop at line "
                            + std::to_string(origin.loop_where.line)
                            + ") rejects heat to outdoor air; expected a map with dry_bulb and "
                              "wet_bulb, or weather (a weather file)");
    }
    return {};
  }
  if (!f.modelled()) {
    r.fail("ambient",
           "the outdoor ambient is used only by a facility loop; add "
           "facility_water.loop or remove ambient");
  }
  core::AmbientSpec a;
  if (m->has("weather")) {
    a = detail::readWeatherEntry(*m, duration);
  } else {
    m->restrictTo({"dry_bulb", "wet_bulb"},
                  "without a weather file (weather_start shifts a weather file's time)");
    if (!m->has("dry_bulb") && !m->has("wet_bulb")) {
      m->fail("dry_bulb",
              "required key is missing; expected dry_bulb and wet_bulb "
              "(temperatures) or weather (a weather file)");
    }
    a.T_dry_bulb = m->quantity("dry_bulb", Dimension::Temperature, Check::Positive);
    requireOutdoorAir(*m, "dry_bulb", a.T_dry_bulb);
    a.T_wet_bulb = m->quantity("wet_bulb", Dimension::Temperature, Check::Positive);
    requireOutdoorAir(*m, "wet_bulb", a.T_wet_bulb);
    if (a.T_wet_bulb > a.T_dry_bulb) {
      m->fail("wet_bulb", "must not exceed the dry bulb (" + degC(a.T_dry_bulb) + "), got "
                              + degC(a.T_wet_bulb));
    }
  }
  m->finish();
  return a;
}

/// Every id in a scenario (CDUs, racks, jobs) names one thing.
class IdRegistry {
 public:
  void add(const std::string& id, std::string_view what, const MapReader& m, std::string_view key) {
    const auto [it, inserted] = ids_.emplace(id, Owner{std::string(what), m.whereValue(key).line});
    if (!inserted) {
      m.fail(key, "duplicate id '" + id + "'; already used by the " + it->second.what + " at line "
                      + std::to_string(it->second.line));
    }
  }
  /// The kind of thing an id names, or "" when it names nothing.
  std::string kindOf(const std::string& id) const {
    const auto it = ids_.find(id);
    return it == ids_.end() ? std::string() : it->second.what;
  }

 private:
  struct Owner {
    std::string what;
    int line;
  };
  std::map<std::string, Owner> ids_;
};

std::string unknownComponent(const std::string& id, const IdRegistry& ids, std::string_view wanted,
                             const std::vector<std::string>& defined) {
  const std::string kind = ids.kindOf(id);
  const std::string head =
      kind.empty() ? "unknown component " + core::quoteForMessage(id)
                   : core::quoteForMessage(id) + " is a " + kind + ", not a " + std::string(wanted);
  return head + "; defined " + std::string(wanted) + "s: " + detail::closestNames(id, defined);
}

/// A CDU's optional row headers: one segment's pipe and the return arrangement.
core::RowHeaderSpec readHeaders(const MapReader& cdu) {
  core::RowHeaderSpec h;
  const auto m = cdu.optionalMap(
      "headers", {"segment_length", "inner_diameter", "roughness", "cells", "return"});
  if (!m) return h;
  h.present = true;
  h.segment.length = m->quantity("segment_length", Dimension::Length, Check::Positive);
  h.segment.diameter =
      m->quantity("inner_diameter", Dimension::Length, Check::Positive, Kind::PipeDiameter);
  h.segment.roughness = m->quantity("roughness", Dimension::Length, Check::NonNegative);
  h.segment.cells = m->integer("cells", 1, kMaxCount);
  const std::string arrangement = m->string("return", "'direct' or 'reverse'");
  if (arrangement == "direct") {
    h.return_arrangement = core::RowHeaderSpec::Return::Direct;
  } else if (arrangement == "reverse") {
    h.return_arrangement = core::RowHeaderSpec::Return::Reverse;
  } else {
    m->fail("return",
            "expected 'direct' (the return header flows back toward the CDU) or "
            "'reverse' (first in, last out), got "
                + core::quoteForMessage(arrangement));
  }
  m->finish();
  return h;
}

/// Why the CDU's exchanger cannot be rated at this site's coolant, its set-point and facility
/// water at T_facility, as the cooling model rates it (CoolingBuild.cpp); nullopt when it can.
std::optional<std::string> exchangerRatingProblem(const core::CduSpec& c, DataLibrary& lib,
                                                  const core::SiteSpec& site, double T_facility) {
  const thermal::CoolantProperties secondary =
      thermal::Coolant::fromSpec(site.secondary_coolant).at(c.T_supply_set);
  const thermal::CoolantProperties water = thermal::Coolant::water().at(T_facility);
  try {
    (void)thermal::CounterFlowHeatExchanger::fromRating(
        c.Q_flow_nominal, c.secondary_V_flow_nominal * secondary.rho * secondary.cp,
        c.facility_V_flow_nominal * water.rho * water.cp, c.approach_nominal);
  } catch (const std::invalid_argument& e) {
    return "CDU type '" + c.type + "' (" + lib.cduDataFile(c.type)
           + "): rated_heat, approach and the nominal flows cannot be rated: " + e.what();
  }
  return std::nullopt;
}

/// The CDU's exchanger must be ratable at the site's facility water; else the model would refuse
/// it with no line. (A loop with its own supply temperature checks its CDUs again.)
void requireRatableExchanger(const MapReader& m, const core::CduSpec& c, DataLibrary& lib,
                             const core::SiteSpec& site) {
  if (const auto problem = exchangerRatingProblem(c, lib, site, site.facility.T_supply))
    m.fail("type", *problem);
}

/// A liquid-to-air CDU's coil must be ratable with this site's coolant at its set-point.
void requireRatableAirCoil(const MapReader& m, const core::CduSpec& c, DataLibrary& lib,
                           const core::SiteSpec& site) {
  const thermal::CoolantProperties secondary =
      thermal::Coolant::fromSpec(site.secondary_coolant).at(c.T_supply_set);
  const thermal::CoolantComponentKind& kind = *thermal::findCoolantComponentKind("air-coil");
  thermal::ComponentParameters p{c.air_coil, c.air_coil_dp};
  try {
    kind.prepare(p, secondary.rho * secondary.cp);
  } catch (const std::invalid_argument& e) {
    m.fail("type", "CDU type '" + c.type + "' (" + lib.cduDataFile(c.type)
                       + "): its air_coil cannot be rated with this coolant: " + e.what());
  }
}

std::vector<core::CduSpec> readCdus(const MapReader& r, DataLibrary& lib, IdRegistry& ids,
                                    bool facility_loop, const core::SiteSpec& site) {
  const ListReader list = r.list("cdus", "CDUs");
  if (list.size() == 0) r.fail("cdus", "expected at least one CDU");
  std::vector<core::CduSpec> cdus;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const MapReader m = list.map(
        i, {"id", "type", "supply_temperature_setpoint", "pump_speed", "pumps_installed", "headers",
            "pump_control", "pump_rise_time", "facility_differential_pressure"});
    const core::ComponentId id = m.id("id");
    ids.add(id.str(), "CDU", m, "id");
    core::CduSpec c = lib.cdu(m, "type");
    c.id = id;
    const bool air = c.rejection == core::CduSpec::Rejection::RoomAir;
    if (facility_loop && !air && !(c.facility_valve.A_v > 0.0)) {
      m.fail("type", "CDU type '" + c.type + "' has no facility_side in its data file "
                         + lib.cduDataFile(c.type)
                         + "; a facility loop (facility_water.loop) needs each CDU's facility-side "
                           "valve and exchanger pressure drop");
    }
    c.T_supply_set = m.quantityOr("supply_temperature_setpoint", Dimension::Temperature,
                                  c.T_supply_set, Check::Any, Kind::CoolantTemperature);
    c.pump.speed = m.quantityOr("pump_speed", Dimension::Dimensionless, c.pump.speed,
                                Check::PositiveFraction, Kind::PumpSpeed);
    const int installed = m.integerOr("pumps_installed", c.pumps_installed, 1, kMaxCount);
    if (installed < c.pumps_duty) {
      m.fail("pumps_installed", "must be at least the duty pumps of CDU type '" + c.type + "' ("
                                    + std::to_string(c.pumps_duty) + ")");
    }
    if (installed > c.pumps_duty && c.pumps_installed == c.pumps_duty) {
      m.fail("pumps_installed", "CDU type '" + c.type
                                    + "' has no standby pump, so no standby_switchover_time; "
                                      "add one to a copy of its data file");
    }
    c.pumps_installed = installed;
    c.pump_rise_time =
        m.quantityOr("pump_rise_time", Dimension::Time, c.pump_rise_time, Check::NonNegative);
    // Facility water as a boundary: the supply - return dp across the CDU that drives the flow
    // through its facility valve and exchanger (default: nominal flow at full opening).
    if (m.has("facility_differential_pressure")) {
      if (air) {
        m.fail("facility_differential_pressure",
               "CDU type '" + c.type + "' rejects its heat to room air (air_coil): it has no "
                   + "facility water");
      }
      if (facility_loop) {
        m.fail("facility_differential_pressure",
               "applies only when facility water is a boundary; with facility_water.loop the "
               "loop's pumps and mains set each CDU's differential pressure");
      }
      if (!(c.facility_valve.A_v > 0.0)) {
        m.fail("facility_differential_pressure",
               "CDU type '" + c.type + "' has no facility_side (valve and exchanger pressure "
                   + "drop) in its data file " + lib.cduDataFile(c.type)
                   + ", so no pressure difference can set its facility flow");
      }
      c.facility_dp_boundary =
          m.quantity("facility_differential_pressure", Dimension::Pressure, Check::Positive);
    }
    if (air) {
      requireRatableAirCoil(m, c, lib, site);
    } else {
      requireRatableExchanger(m, c, lib, site);
    }
    c.headers = readHeaders(m);
    // Optional secondary pump speed PI on the least favoured rack's manifold dp.
    if (const auto pc =
            m.optionalMap("pump_control", {"differential_pressure", "proportional_gain_per_kPa",
                                           "integral_time", "minimum_speed"})) {
      c.pump_dp_set = pc->quantity("differential_pressure", Dimension::Pressure, Check::Positive);
      // Default gains: those of Modelica Buildings' CDU example (1/60 per kPa, Ti = 120 s),
      // which settle with the drive's rise time in the loop.
      c.pump_dp_gain = (pc->has("proportional_gain_per_kPa")
                            ? pc->number("proportional_gain_per_kPa", Check::Positive)
                            : 1.0 / 60.0)
                       / 1000.0;
      c.pump_dp_integral_time =
          pc->quantityOr("integral_time", Dimension::Time, 120.0, Check::Positive);
      c.pump_speed_min =
          pc->quantity("minimum_speed", Dimension::Dimensionless, Check::PositiveFraction);
      pc->finish();
    }
    m.finish();
    cdus.push_back(std::move(c));
  }
  return cdus;
}

std::vector<std::string> idsOf(const std::vector<core::CduSpec>& cdus) {
  std::vector<std::string> out;
  for (const core::CduSpec& c : cdus)
    out.push_back(c.id.str());
  return out;
}

std::vector<std::string> idsOf(const std::vector<core::RackSpec>& racks) {
  std::vector<std::string> out;
  for (const core::RackSpec& r : racks)
    out.push_back(r.id.str());
  return out;
}

/// A key whose value must be the id of a CDU of this scenario.
std::string requireCdu(const MapReader& m, std::string_view key,
                       const std::vector<core::CduSpec>& cdus, const IdRegistry& ids) {
  const std::string id = m.id(key).str();
  const bool found =
      std::any_of(cdus.begin(), cdus.end(), [&id](const auto& c) { return c.id.str() == id; });
  if (!found) m.fail(key, unknownComponent(id, ids, "CDU", idsOf(cdus)));
  return id;
}

/// A QD given by its flow coefficient as a power law for the coolant of the rack's loop. The
/// specific gravity is the coolant's density at the CDU's supply set-point over 999 kg/m3 (water
/// at 60 degF, the reference of Cv); a later set-point change does not convert again.
core::PowerLawDrop quickDisconnectFromCv(double Cv, const core::CoolantSpec& coolant,
                                         const core::CduSpec& cdu) {
  const double rho = thermal::Coolant::fromSpec(coolant).density(cdu.T_supply_set);
  return thermal::powerLawFromCv(Cv, rho / thermal::kCvReferenceDensity);
}

/// Where each rack was defined, for errors found after the racks are read (a rack on no loop).
struct RackOrigin {
  core::SourceLocation where;
  std::string path;  // "racks[i]"
};

std::vector<core::RackSpec> readRacks(const MapReader& r, DataLibrary& lib, IdRegistry& ids,
                                      const std::vector<core::CduSpec>& cdus,
                                      const core::CoolantSpec& coolant,
                                      const core::FacilityWaterSpec& facility,
                                      std::vector<RackOrigin>& origins) {
  const ListReader list = r.list("racks", "racks");
  if (list.size() == 0) r.fail("racks", "expected at least one rack");
  std::vector<core::RackSpec> racks;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const MapReader m =
        list.map(i, {"id", "type", "cdu", "gpu_power_limit", "gpu_slowdown_temperature",
                     "gpu_slowdown_release_temperature", "gpu_cold_plate", "attach"});
    core::RackSpec rack;
    rack.id = m.id("id");
    ids.add(rack.id.str(), "rack", m, "id");
    rack.type = lib.rack(m, "type");
    // A rack on a secondary ring has no cdu key: the ring's taps list it (readRings).
    if (m.has("cdu")) rack.cdu = requireCdu(m, "cdu", cdus, ids);
    origins.push_back({m.where(), list.itemPath(i)});
    if (rack.type.quick_disconnect_Cv > 0.0) {
      for (const core::CduSpec& cdu : cdus) {
        if (cdu.id.str() == rack.cdu) {
          rack.type.quick_disconnect =
              quickDisconnectFromCv(rack.type.quick_disconnect_Cv, coolant, cdu);
        }
      }
    }
    core::ChipSpec& gpu = rack.type.gpu;
    // A what-if or a CFD-derived curve (racktwin cfd coldplate) in place of the type's GPU plate.
    if (m.has("gpu_cold_plate")) {
      if (!rack.type.liquid_cooled) {
        m.fail("gpu_cold_plate",
               "rack type '" + rack.type.type + "' is air-cooled: no cold plates");
      }
      gpu.cold_plate = lib.coldPlate(m, "gpu_cold_plate");
    }
    gpu.P_max = m.quantityOr("gpu_power_limit", Dimension::Power, gpu.P_max, Check::Positive,
                             Kind::GpuPowerLimit);
    if (gpu.P_max <= gpu.P_idle) {
      m.fail("gpu_power_limit",
             "must be above the GPU idle power of the rack type (" + watts(gpu.P_idle) + ")");
    }
    gpu.T_slowdown = m.quantityOr("gpu_slowdown_temperature", Dimension::Temperature,
                                  gpu.T_slowdown, Check::Any, Kind::JunctionTemperature);
    gpu.T_slowdown_release =
        m.quantityOr("gpu_slowdown_release_temperature", Dimension::Temperature,
                     gpu.T_slowdown_release, Check::Any, Kind::JunctionTemperature);
    if (gpu.T_slowdown_release >= gpu.T_slowdown) {
      const std::string_view key = m.has("gpu_slowdown_release_temperature")
                                       ? "gpu_slowdown_release_temperature"
                                       : "gpu_slowdown_temperature";
      m.fail(key, "the GPU slowdown release temperature (" + degC(gpu.T_slowdown_release) +
                      ") must be below the slowdown temperature (" + degC(gpu.T_slowdown) +
                      "); set both gpu_slowdown_temperature and "
                      "gpu_slowdown_release_temperature");
    }
    if (const auto attach = m.optionalList("attach", "components attached to the rack")) {
      for (std::size_t k = 0; k < attach->size(); ++k) {
        if (!rack.type.liquid_cooled && !rack.cdu.empty() && !(rack.type.hose.length > 0.0)) {
          attach->failItem(k, "rack type '" + rack.type.type
                                  + "' has no hose to bring its CDU's water to the component; "
                                    "add `hose` to its data file");
        }
        rack.attachments.push_back(
            lib.attachment(*attach, k, rack, cdus, coolant, facility,
                           [&](const std::string& id, const MapReader& at, std::string_view key) {
                             ids.add(id, "attached component", at, key);
                           }));
      }
    }
    m.finish();
    racks.push_back(std::move(rack));
  }
  return racks;
}

/// Secondary rings shared by several CDUs: the CDUs and racks in ring order, and one main segment.
/// Every rack must end up on exactly one loop: a CDU (its cdu key) or a ring (a ring's taps).
/// `rings` comes in with the loops of `networks` (NetworkLoader.cpp), whose CDUs and racks are
/// taken.
std::vector<core::SecondaryRingSpec> readRings(const MapReader& r, std::vector<core::CduSpec>& cdus,
                                               std::vector<core::RackSpec>& racks,
                                               const std::vector<RackOrigin>& origins,
                                               const core::CoolantSpec& coolant, IdRegistry& ids,
                                               std::vector<core::SecondaryRingSpec> rings) {
  std::vector<std::string> cdu_ring(cdus.size());
  for (const core::SecondaryRingSpec& net : rings) {
    for (std::size_t c = 0; c < cdus.size(); ++c) {
      if (std::find(net.taps.begin(), net.taps.end(), cdus[c].id.str()) != net.taps.end())
        cdu_ring[c] = net.id.str();
    }
  }
  if (const auto list = r.optionalList("rings", "secondary rings")) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const MapReader m = list->map(i, {"id", "segment", "taps"});
      core::SecondaryRingSpec ring;
      ring.id = m.id("id");
      ids.add(ring.id.str(), "ring", m, "id");
      const MapReader seg = m.map("segment", {"length", "inner_diameter", "roughness", "cells"});
      ring.segment.length = seg.quantity("length", Dimension::Length, Check::Positive);
      ring.segment.diameter =
          seg.quantity("inner_diameter", Dimension::Length, Check::Positive, Kind::PipeDiameter);
      ring.segment.roughness = seg.quantity("roughness", Dimension::Length, Check::NonNegative);
      ring.segment.cells = seg.integer("cells", 1, kMaxCount);
      seg.finish();
      const ListReader taps = m.list("taps", "the CDU and rack ids in ring order");
      const core::CduSpec* first_cdu = nullptr;
      for (std::size_t k = 0; k < taps.size(); ++k) {
        const std::string id = taps.id(k).str();
        const auto cdu =
            std::find_if(cdus.begin(), cdus.end(), [&](const auto& c) { return c.id.str() == id; });
        const auto rack = std::find_if(racks.begin(), racks.end(),
                                       [&](const auto& x) { return x.id.str() == id; });
        if (cdu != cdus.end()) {
          auto& owner = cdu_ring[static_cast<std::size_t>(cdu - cdus.begin())];
          if (!owner.empty()) {
            taps.failItem(k, "CDU '" + id + "' is already on ring '" + owner + "'");
          }
          if (cdu->headers.present) {
            taps.failItem(k, "CDU '" + id + "' has row headers; a CDU on a ring feeds the ring "
                                            "mains, so remove its headers");
          }
          owner = ring.id.str();
          if (first_cdu == nullptr) first_cdu = &*cdu;
        } else if (rack != racks.end()) {
          if (!rack->cdu.empty()) {
            taps.failItem(k, "rack '" + id + "' is served by CDU '" + rack->cdu
                                 + "' (its cdu key); a rack on a ring has no cdu key");
          }
          if (!rack->ring.empty()) {
            taps.failItem(k, "rack '" + id + "' is already on ring '" + rack->ring + "'");
          }
          rack->ring = ring.id.str();
        } else {
          taps.failItem(k, unknownComponent(id, ids, "CDU or rack", idsOf(cdus)));
        }
        ring.taps.push_back(id);
      }
      if (first_cdu == nullptr) m.fail("taps", "expected at least one CDU on the ring");
      // QDs given by Cv: converted for the coolant at the ring's first CDU's set-point.
      for (core::RackSpec& rack : racks) {
        if (rack.ring == ring.id.str() && rack.type.quick_disconnect_Cv > 0.0) {
          rack.type.quick_disconnect =
              quickDisconnectFromCv(rack.type.quick_disconnect_Cv, coolant, *first_cdu);
        }
      }
      m.finish();
      rings.push_back(std::move(ring));
    }
  }
  for (std::size_t k = 0; k < racks.size(); ++k) {
    const core::RackSpec& rack = racks[k];
    if (rack.cdu.empty() && rack.ring.empty() && rack.type.liquid_cooled) {
      throw core::InputError(origins[k].where, origins[k].path + ".cdu",
                             "required key is missing: the id of the CDU that serves rack '"
                                 + rack.id.str()
                                 + "' (or list the rack in a ring's taps or a network's racks)");
    }
    if (rack.cdu.empty()) continue;
    for (std::size_t c = 0; c < cdus.size(); ++c) {
      if (cdus[c].id.str() == rack.cdu && !cdu_ring[c].empty()) {
        throw core::InputError(origins[k].where, origins[k].path + ".cdu",
                               "CDU '" + rack.cdu + "' feeds ring '" + cdu_ring[c]
                                   + "'; list rack '" + rack.id.str()
                                   + "' in the ring's taps (or the network's racks) instead of "
                                     "naming the CDU");
      }
    }
  }
  return rings;
}

/// `racks`: 'all' or a list of rack ids, each once.
std::vector<core::ComponentId> readJobRacks(const MapReader& m,
                                            const std::vector<core::RackSpec>& racks,
                                            IdRegistry& ids) {
  std::vector<core::ComponentId> out;
  if (m.isScalar("racks")) {
    const std::string all = m.string("racks", "'all' or a list of rack ids");
    if (all != "all")
      m.fail("racks", "expected 'all' or a list of rack ids, got " + core::quoteForMessage(all));
    for (const core::RackSpec& r : racks)
      out.push_back(r.id);
    return out;
  }
  const ListReader list = m.list("racks", "rack ids (or 'all')");
  if (list.size() == 0) m.fail("racks", "expected at least one rack");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const core::ComponentId rack = list.id(i);
    const bool found = std::any_of(racks.begin(), racks.end(),
                                   [&rack](const core::RackSpec& r) { return r.id == rack; });
    if (!found) list.failItem(i, unknownComponent(rack.str(), ids, "rack", idsOf(racks)));
    if (std::find(out.begin(), out.end(), rack) != out.end()) {
      list.failItem(i, "rack '" + rack.str() + "' is listed twice");
    }
    out.push_back(rack);
  }
  return out;
}

/// `start` and `duration` of a job: start before the end of the run, duration to its end by
/// default.
void readJobWindow(const MapReader& m, const core::SimulationSpec& sim, double& start,
                   double& duration) {
  start = m.quantityOr("start", Dimension::Time, 0.0, Check::NonNegative);
  if (start >= sim.duration) {
    m.fail("start", "must be before the end of the simulation (" + runEnd(sim) + ")");
  }
  duration = m.quantityOr("duration", Dimension::Time, sim.duration - start, Check::Positive);
}

/// Where a job runs: a job sized in GPUs for the scheduler (any kind) or one naming its racks.
struct JobPlace {
  std::string id;
  std::vector<core::ComponentId> racks;
  double start = 0.0, duration = 0.0;  // s
  std::uint32_t gpus = 0;
  double submit = 0.0;  // s
};

/// A job sized in GPUs for the scheduler: `gpus` (whole racks), `submit` and a required
/// `duration` (the runtime it requests), instead of `racks` and `start`.
void readScheduledJob(const MapReader& m, const core::SimulationSpec& sim,
                      const std::vector<core::RackSpec>& racks, JobPlace& job) {
  if (m.has("racks")) {
    m.fail("gpus", "give racks (named racks) or gpus (a size for the scheduler), not both");
  }
  if (m.has("start")) {
    m.fail("start", "a job sized by gpus is started by the scheduler; give its submit time");
  }
  // Whole NVL72 domains: the size is a multiple of one rack's GPUs.
  const auto gpusOf = [](const core::RackSpec& r) {
    return r.type.compute_trays * r.type.gpus_per_tray;
  };
  const int per_rack = racks.empty() ? 0 : gpusOf(racks.front());
  for (const core::RackSpec& r : racks) {
    if (gpusOf(r) != per_rack) {
      m.fail("gpus", "a job sized by gpus needs racks of one GPU count; rack '" + r.id.str()
                         + "' has " + std::to_string(gpusOf(r)) + ", rack '"
                         + racks.front().id.str() + "' " + std::to_string(per_rack));
    }
  }
  const int gpus = m.integer("gpus", 1, 100'000'000);
  if (per_rack <= 0 || gpus % per_rack != 0) {
    m.fail("gpus", "expected a multiple of the " + std::to_string(per_rack)
                       + " GPUs of a rack (jobs get whole racks), got " + std::to_string(gpus));
  }
  const std::size_t rack_count = static_cast<std::size_t>(gpus / per_rack);
  if (rack_count > racks.size()) {
    m.fail("gpus", "job '" + job.id + "' asks for " + std::to_string(gpus) + " GPUs ("
                       + std::to_string(rack_count) + " racks), but the site has "
                       + std::to_string(racks.size()) + " racks ("
                       + std::to_string(racks.size() * static_cast<std::size_t>(per_rack))
                       + " GPUs)");
  }
  job.gpus = static_cast<std::uint32_t>(gpus);
  job.submit = m.quantityOr("submit", Dimension::Time, 0.0, Check::NonNegative);
  if (job.submit >= sim.duration) {
    m.fail("submit", "must be before the end of the simulation (" + runEnd(sim) + ")");
  }
  if (!m.has("duration")) {
    m.fail("duration",
           "required key is missing: a job sized by gpus runs for its duration, "
           "the runtime the scheduler plans with");
  }
  job.duration = m.quantity("duration", Dimension::Time, Check::Positive);
}

/// `id`, then `gpus`, `submit` and `duration` (a job for the scheduler) or `racks`, `start` and
/// `duration` (a job naming its racks), for a job of any kind.
template <typename Spec>
void readJobPlace(const MapReader& m, const core::SimulationSpec& sim,
                  const std::vector<core::RackSpec>& racks, IdRegistry& ids, Spec& spec) {
  JobPlace job;
  job.id = m.id("id").str();
  ids.add(job.id, "job", m, "id");
  if (m.has("gpus")) {
    readScheduledJob(m, sim, racks, job);
  } else {
    if (m.has("submit")) {
      m.fail("submit", "only a job sized by gpus is queued; a job naming racks has a start");
    }
    job.racks = readJobRacks(m, racks, ids);
    readJobWindow(m, sim, job.start, job.duration);
  }
  spec.id = std::move(job.id);
  spec.racks = std::move(job.racks);
  spec.start = job.start;
  spec.duration = job.duration;
  spec.gpus = job.gpus;
  spec.submit = job.submit;
}

/// `failures` of a training job.
void readFailures(const MapReader& m, core::TrainingJobSpec& job) {
  if (const auto f = m.optionalMap("failures", {"mtbf", "restart"})) {
    job.failure_mtbf = f->quantity("mtbf", Dimension::Time, Check::Positive);
    job.restart_duration = f->quantity("restart", Dimension::Time, Check::NonNegative);
    f->finish();
  }
}

/// GPUs of a job (training or inference): those it asks for, or those of its named racks.
template <class JobSpec>
std::uint32_t jobGpus(const JobSpec& job, const std::vector<core::RackSpec>& racks) {
  if (job.gpus > 0) return job.gpus;
  std::uint32_t gpus = 0;
  for (const core::ComponentId& id : job.racks) {
    for (const core::RackSpec& r : racks) {
      if (r.id == id)
        gpus += static_cast<std::uint32_t>(r.type.compute_trays * r.type.gpus_per_tray);
    }
  }
  return gpus;
}

core::TrainingJobSpec readJob(const MapReader& m, const core::SimulationSpec& sim,
                              const std::vector<core::RackSpec>& racks, IdRegistry& ids,
                              const fs::path& data_root) {
  m.restrictTo({"id", "type", "racks", "gpus", "submit", "start", "duration", "iteration",
                "checkpoint", "failures", "model", "power"},
               "in a training job");
  core::TrainingJobSpec job;
  readJobPlace(m, sim, racks, ids, job);
  // The iterations' power: each phase at its own (the square wave) or the period average.
  if (const auto power = m.optionalString("power", "'phases' or 'average'")) {
    if (*power != "phases" && *power != "average") {
      m.fail("power",
             "must be 'phases' (each phase at its own power) or 'average' (the "
             "iteration's period average), got '"
                 + *power + "'");
    }
    job.average_power = *power == "average";
  }
  if (m.has("model")) {
    // Durations derived from the model (WorkloadModels.hpp).
    detail::readDerivedTraining(m, data_root, jobGpus(job, racks), job);
    readFailures(m, job);
    m.finish();
    return job;
  }

  const MapReader it =
      m.map("iteration", {"compute", "compute_power", "communication", "communication_power"});
  job.compute_duration = it.quantity("compute", Dimension::Time, Check::Positive);
  job.compute_power_fraction =
      it.quantity("compute_power", Dimension::Dimensionless, Check::Fraction);
  job.communication_duration = it.quantity("communication", Dimension::Time, Check::NonNegative);
  job.communication_power_fraction =
      it.quantity("communication_power", Dimension::Dimensionless, Check::Fraction);
  it.finish();

  if (const auto cp = m.optionalMap("checkpoint", {"interval", "duration", "power"})) {
    job.checkpoint_interval = cp->quantity("interval", Dimension::Time, Check::Positive);
    job.checkpoint_duration = cp->quantity("duration", Dimension::Time, Check::Positive);
    if (job.checkpoint_duration >= job.checkpoint_interval) {
      cp->fail("duration", "must be shorter than the checkpoint interval ("
                               + seconds(job.checkpoint_interval) + ")");
    }
    job.checkpoint_power_fraction =
        cp->quantity("power", Dimension::Dimensionless, Check::Fraction);
    cp->finish();
  }
  readFailures(m, job);
  m.finish();
  return job;
}

/// A replay job: a recorded per-GPU power trace (GpuTrace.hpp) replayed on the GPUs of `racks`.
core::ReplayJobSpec readReplay(const MapReader& m, const core::SimulationSpec& sim,
                               const std::vector<core::RackSpec>& racks, IdRegistry& ids) {
  m.restrictTo(
      {"id", "type", "racks", "gpus", "submit", "start", "duration", "trace", "format", "interval"},
      "in a replay job");
  core::ReplayJobSpec job;
  readJobPlace(m, sim, racks, ids, job);
  const std::string format = m.string("format", "a GPU trace format (nvidia-smi or dcgm)");
  double interval = 0.0;
  if (format == "dcgm") {
    interval = m.quantity("interval", Dimension::Time, Check::Positive);
  } else if (format == "nvidia-smi") {
    if (m.has("interval")) {
      m.fail("interval", "only a dcgm trace takes an interval (nvidia-smi rows carry their times)");
    }
  } else {
    m.fail("format", "unknown GPU trace format '" + format + "'; supported: nvidia-smi, dcgm");
  }
  const fs::path path = detail::resolveInputPath(
      m, "trace", m.string("trace", "the path of a GPU power trace file"), "GPU trace file");
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    m.fail("trace", "no GPU trace file '" + path.string()
                        + "' (a relative path starts at the scenario file's folder)");
  }
  job.trace_path = path.string();
  detail::GpuTrace trace = detail::readGpuTrace(job.trace_path, format, interval);
  job.sample_begin = std::move(trace.sample_begin);
  job.times = std::move(trace.times);
  job.power = std::move(trace.power);
  m.finish();
  return job;
}

/// An inference job: requests from `trace` (an Azure-format CSV, RequestTrace.hpp) or `arrivals`
/// (a Poisson process), served by `server` (InferenceJob.hpp).
core::InferenceJobSpec readInference(const MapReader& m, const core::SimulationSpec& sim,
                                     const std::vector<core::RackSpec>& racks, IdRegistry& ids,
                                     const fs::path& data_root) {
  m.restrictTo({"id", "type", "racks", "gpus", "submit", "start", "duration", "trace", "arrivals",
                "server", "model", "load"},
               "in an inference job");
  core::InferenceJobSpec job;
  readJobPlace(m, sim, racks, ids, job);

  constexpr int kMaxTokens = 100'000'000;
  if (m.has("trace") == m.has("arrivals")) {
    m.fail(m.has("trace") ? "arrivals" : "trace",
           "expected exactly one of trace (a request trace file) and arrivals (a Poisson rate)");
  }
  if (m.has("trace")) {
    const fs::path path = detail::resolveInputPath(
        m, "trace", m.string("trace", "the path of a request trace CSV file"),
        "request trace file");
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      m.fail("trace", "no request trace file '" + path.string()
                          + "' (a relative path starts at the scenario file's folder)");
    }
    job.trace_path = path.string();
    job.trace = detail::readRequestTrace(job.trace_path);
    if (m.has("load")) detail::readLoadShaping(m, job);
  } else {
    const MapReader a = m.map("arrivals", {"rate_per_s", "diurnal_amplitude", "diurnal_period",
                                           "diurnal_peak", "context_tokens", "generated_tokens"});
    job.rate = a.number("rate_per_s", Check::Positive);
    job.diurnal_amplitude =
        a.optionalQuantity("diurnal_amplitude", Dimension::Dimensionless, Check::Fraction)
            .value_or(0.0);
    job.diurnal_period = a.quantityOr("diurnal_period", Dimension::Time, 86400.0, Check::Positive);
    job.diurnal_peak = a.quantityOr("diurnal_peak", Dimension::Time, 0.0);
    job.context_tokens = static_cast<std::uint32_t>(a.integer("context_tokens", 0, kMaxTokens));
    job.generated_tokens = static_cast<std::uint32_t>(a.integer("generated_tokens", 0, kMaxTokens));
    a.finish();
  }

  if (m.has("model") || !m.has("server")) {
    // Served from a named model on its accelerator (WorkloadModels.hpp).
    if (m.has("server")) m.fail("server", "give server (fixed throughputs) or model, not both");
    if (m.has("load") && !m.has("trace")) m.fail("load", "load shaping needs a trace");
    detail::readInferenceModel(m, data_root, jobGpus(job, racks), job);
    m.finish();
    return job;
  }
  if (m.has("load") && !m.has("trace")) m.fail("load", "load shaping needs a trace");
  const MapReader sv = m.map("server", {"max_batch", "prefill_tokens_per_s_per_gpu",
                                        "decode_tokens_per_s_per_gpu", "busy_power"});
  job.max_batch = static_cast<std::uint32_t>(sv.integer("max_batch", 1, 1'000'000));
  job.prefill_tokens_per_s_per_gpu = sv.number("prefill_tokens_per_s_per_gpu", Check::Positive);
  job.decode_tokens_per_s_per_gpu = sv.number("decode_tokens_per_s_per_gpu", Check::Positive);
  job.busy_power_fraction = sv.quantity("busy_power", Dimension::Dimensionless, Check::Fraction);
  sv.finish();
  m.finish();
  return job;
}

/// `workload`: training and inference jobs. Two jobs may not hold one rack at the same time: a
/// job uses all GPUs of its racks.
void readWorkload(const MapReader& r, core::SiteSpec& site, IdRegistry& ids,
                  const fs::path& data_root) {
  // `scheduler`: the queue policy of the jobs sized by gpus (docs/scheduler.md).
  if (const auto s = r.optionalMap("scheduler", {"policy"})) {
    const std::string policy = s->string("policy", "fifo or backfill");
    if (policy == "fifo") {
      site.scheduler.policy = core::SchedulerSpec::Policy::Fifo;
    } else if (policy == "backfill") {
      site.scheduler.policy = core::SchedulerSpec::Policy::Backfill;
    } else {
      s->fail("policy", "expected fifo or backfill, got " + core::quoteForMessage(policy));
    }
    s->finish();
  }
  const auto list = r.optionalList("workload", "jobs");
  if (!list) return;
  struct Held {
    std::string id;
    double start, end;
    std::vector<core::ComponentId> racks;
  };
  std::vector<Held> held;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const MapReader m = list->map(i, {"id", "type", "racks", "gpus", "submit", "start", "duration",
                                      "iteration", "checkpoint", "failures", "trace", "arrivals",
                                      "server", "format", "interval", "model", "load", "power"});
    const std::string type = m.string("type", "a workload type (training, inference or replay)");
    Held h;
    // `order`: jobs submitted at one time queue in scenario order, whatever their kind.
    const auto order = static_cast<std::uint32_t>(i);
    if (type == "training") {
      core::TrainingJobSpec job = readJob(m, site.simulation, site.racks, ids, data_root);
      job.order = order;
      h = Held{job.id, job.start, job.start + job.duration, job.racks};
      site.jobs.push_back(std::move(job));
    } else if (type == "inference") {
      core::InferenceJobSpec job = readInference(m, site.simulation, site.racks, ids, data_root);
      job.order = order;
      h = Held{job.id, job.start, job.start + job.duration, job.racks};
      site.inference_jobs.push_back(std::move(job));
    } else if (type == "replay") {
      core::ReplayJobSpec job = readReplay(m, site.simulation, site.racks, ids);
      job.order = order;
      h = Held{job.id, job.start, job.start + job.duration, job.racks};
      site.replay_jobs.push_back(std::move(job));
    } else {
      m.fail("type",
             "unknown workload type '" + type + "'; supported: training, inference, replay");
    }
    for (const Held& other : held) {
      if (!(h.start < other.end && other.start < h.end)) continue;
      for (const core::ComponentId& rack : h.racks) {
        if (std::find(other.racks.begin(), other.racks.end(), rack) != other.racks.end()) {
          m.fail("racks", "rack '" + rack.str() + "' is already used by job '" + other.id
                              + "' from " + seconds(other.start) + " to " + seconds(other.end));
        }
      }
    }
    held.push_back(std::move(h));
  }
}

/// `facility_water.loops[].cdus`, once the CDUs are read: every CDU that rejects its heat to
/// facility water on exactly one loop, each loop serving at least one (in site order).
void resolveFacilityLoops(core::SiteSpec& site, const FacilityOrigin& origin, DataLibrary& lib) {
  std::vector<core::FacilityLoopSpec>& loops = site.facility.loops;
  if (loops.empty()) return;
  constexpr std::int64_t kNone = -1;
  std::vector<std::int64_t> loop_of(site.cdus.size(), kNone);
  std::vector<std::uint32_t> line_of(site.cdus.size(), 0);
  for (std::size_t l = 0; l < loops.size(); ++l) {
    const FacilityOrigin::Loop& o = origin.loops[l];
    for (const FacilityOrigin::CduItem& item : o.cdus) {
      const bool pattern =
          item.text.size() >= 2 && item.text.compare(item.text.size() - 2, 2, "/*") == 0;
      const std::string prefix = pattern ? item.text.substr(0, item.text.size() - 1) : "";
      bool matched = false;
      for (std::size_t c = 0; c < site.cdus.size(); ++c) {
        const core::CduSpec& cdu = site.cdus[c];
        const std::string id = cdu.id.str();
        const bool named =
            pattern ? id.size() > prefix.size() && id.compare(0, prefix.size(), prefix) == 0
                    : id == item.text;
        if (!named) continue;
        matched = true;
        if (cdu.rejection != core::CduSpec::Rejection::FacilityWater) {
          // A pattern passes over liquid-to-air CDUs; a CDU named by its id is an error.
          if (pattern) continue;
          throw core::InputError(item.where, item.key,
                                 "CDU '" + id
                                     + "' rejects its heat to room air (an air coil) and has "
                                       "no facility water; remove it from the loop");
        }
        if (loop_of[c] != kNone) {
          const auto other = static_cast<std::size_t>(loop_of[c]);
          throw core::InputError(
              item.where, item.key,
              other == l
                  ? "CDU '" + id + "' is named twice in this loop"
                  : "CDU '" + id + "' is already on facility loop '" + loops[other].id + "' (line "
                        + std::to_string(line_of[c]) + "); a CDU is on exactly one facility loop");
        }
        loop_of[c] = static_cast<std::int64_t>(l);
        line_of[c] = static_cast<std::uint32_t>(item.where.line);
      }
      if (!matched) {
        std::string known;
        for (std::size_t c = 0; c < site.cdus.size() && c < 4; ++c)
          known += (c ? ", " : "") + site.cdus[c].id.str();
        if (site.cdus.size() > 4) known += ", ...";
        throw core::InputError(item.where, item.key,
                               "no CDU " + core::quoteForMessage(item.text)
                                   + " (a CDU id, or PREFIX/* for every CDU under PREFIX/; CDUs: "
                                   + (known.empty() ? std::string("none") : known) + ")");
      }
    }
  }
  for (std::size_t c = 0; c < site.cdus.size(); ++c) {
    if (loop_of[c] != kNone) {
      loops[static_cast<std::size_t>(loop_of[c])].cdus.push_back(static_cast<std::uint32_t>(c));
    } else if (site.cdus[c].rejection == core::CduSpec::Rejection::FacilityWater) {
      throw core::InputError(origin.loop_where, "facility_water.loops",
                             "CDU '" + site.cdus[c].id.str()
                                 + "' rejects its heat to facility water but no facility loop "
                                   "names it; add it (or PREFIX/*) to one loop's cdus");
    }
  }
  for (std::size_t l = 0; l < loops.size(); ++l) {
    const FacilityOrigin::Loop& o = origin.loops[l];
    if (loops[l].cdus.empty()) {
      throw core::InputError(o.where, o.key + ".cdus",
                             "facility loop '" + loops[l].id
                                 + "' serves no CDU that rejects its heat to facility water");
    }
    if (loops[l].T_supply > 0.0) {
      // Its CDUs' exchangers are rated at its own supply temperature.
      for (const std::uint32_t c : loops[l].cdus) {
        if (const auto problem = exchangerRatingProblem(site.cdus[c], lib, site, loops[l].T_supply))
          throw core::InputError(o.where, o.key + ".supply_temperature",
                                 "CDU '" + site.cdus[c].id.str() + "': " + *problem);
      }
    }
    if (loops[l].cdus.size() > 1 && !o.header_segment) {
      throw core::InputError(o.where, o.key + ".header_segment",
                             "required key is missing: with " + std::to_string(loops[l].cdus.size())
                                 + " CDUs the supply and return mains run between their taps; "
                                   "expected a pipe (length, inner_diameter, roughness, cells)");
    }
  }
}

/// The facility loop a plant event targets: `target` names one of facility_water.loops (required
/// with several; optional with one); none with the single `loop` or a boundary.
std::string facilityLoopTarget(const MapReader& m, const core::FacilityWaterSpec& f) {
  std::vector<std::string> loop_ids;
  for (const core::FacilityLoopSpec& loop : f.loops)
    loop_ids.push_back(loop.id);
  if (!m.has("target")) {
    if (loop_ids.size() > 1) {
      m.fail("target", "required key is missing: the site has " + std::to_string(loop_ids.size())
                           + " facility loops; expected one of: " + joined(loop_ids));
    }
    return {};
  }
  const std::string id = m.id("target").str();
  if (loop_ids.empty()) {
    m.fail("target", f.loop.present
                         ? "the single facility_water.loop has no id: remove target (or name "
                           "the loop in facility_water.loops)"
                         : "facility water is a boundary here (no facility_water.loops to "
                           "target): remove target");
  }
  if (std::find(loop_ids.begin(), loop_ids.end(), id) == loop_ids.end()) {
    m.fail("target", "unknown facility loop " + core::quoteForMessage(id)
                         + "; expected one of: " + joined(loop_ids));
  }
  return id;
}

std::vector<core::EventSpec> readEvents(const MapReader& r, const core::SiteSpec& site,
                                        const IdRegistry& ids) {
  const core::SimulationSpec& sim = site.simulation;
  const std::vector<core::CduSpec>& cdus = site.cdus;
  std::vector<core::EventSpec> events;
  const auto list = r.optionalList("events", "events");
  if (!list) return events;
  // RackOrAll: an optional rack id (absent: every rack).
  // FacilityLoop: a facility loop's id (facility_water.loops), required with several loops.
  enum class Target : std::uint8_t { None, Cdu, Chip, RackOrAll, TrainingJob, FacilityLoop };
  struct Action {
    std::string_view name;
    core::EventKind kind;
    Target target;
    std::optional<Dimension> value;
    Check check;
    Kind plausible = Kind::Default;  // the plausible range of the value
  };
  static constexpr Action kActions[] = {
      {"pump_trip", core::EventKind::PumpTrip, Target::Cdu, std::nullopt, Check::Any},
      {"cdu_loss", core::EventKind::CduLoss, Target::Cdu, std::nullopt, Check::Any},
      {"valve_stuck", core::EventKind::ValveStuck, Target::Cdu, std::nullopt, Check::Any},
      {"clog_cold_plate", core::EventKind::ClogColdPlate, Target::Chip, Dimension::Dimensionless,
       Check::Positive},
      {"set_facility_supply_temperature", core::EventKind::SetFacilitySupplyTemperature,
       Target::FacilityLoop, Dimension::Temperature, Check::Positive,
       Kind::FacilityWaterTemperature},
      {"set_supply_temperature_setpoint", core::EventKind::SetSupplySetpoint, Target::Cdu,
       Dimension::Temperature, Check::Positive, Kind::CoolantTemperature},
      {"set_pump_speed", core::EventKind::SetPumpSpeed, Target::Cdu, Dimension::Dimensionless,
       Check::Fraction},
      {"facility_pump_trip", core::EventKind::FacilityPumpTrip, Target::FacilityLoop, std::nullopt,
       Check::Any},
      {"heat_rejection_fan_loss", core::EventKind::HeatRejectionFanLoss, Target::FacilityLoop,
       Dimension::Dimensionless, Check::Fraction},
      // Electrical (need an `electrical` section). Feed actions take `feed: a|b`.
      {"feed_loss", core::EventKind::FeedLoss, Target::RackOrAll, std::nullopt, Check::Any},
      {"feed_restore", core::EventKind::FeedRestore, Target::RackOrAll, std::nullopt, Check::Any},
      {"utility_outage", core::EventKind::UtilityOutage, Target::None, std::nullopt, Check::Any},
      {"utility_restore", core::EventKind::UtilityRestore, Target::None, std::nullopt, Check::Any},
      {"pause_job", core::EventKind::PauseJob, Target::TrainingJob, std::nullopt, Check::Any},
      {"resume_job", core::EventKind::ResumeJob, Target::TrainingJob, std::nullopt, Check::Any},
      {"set_power_cap", core::EventKind::SetPowerCap, Target::RackOrAll, Dimension::Power,
       Check::NonNegative, Kind::GpuPowerLimit},
  };
  // Chip ids as the layout names them, for clog_cold_plate targets (built only when needed).
  std::optional<core::SiteLayout> layout;
  std::vector<std::string> action_names;
  for (const Action& a : kActions)
    action_names.emplace_back(a.name);

  for (std::size_t i = 0; i < list->size(); ++i) {
    const MapReader m = list->map(i, {"at", "action", "target", "value", "feed"});
    const std::string name = m.string("action", "an action (" + joined(action_names) + ")");
    const Action* action = nullptr;
    for (const Action& a : kActions) {
      if (a.name == name) action = &a;
    }
    if (action == nullptr) {
      m.fail("action", "unknown action '" + name + "'; expected one of: " + joined(action_names));
    }
    const std::string why = "by action " + name;
    const bool has_target = action->target != Target::None;
    const bool feed_action =
        action->kind == core::EventKind::FeedLoss || action->kind == core::EventKind::FeedRestore;
    if (feed_action) {
      m.restrictTo({"at", "action", "target", "feed"}, why);
    } else if (has_target && action->value) {
      m.restrictTo({"at", "action", "target", "value"}, why);
    } else if (has_target) {
      m.restrictTo({"at", "action", "target"}, why);
    } else if (action->value) {
      m.restrictTo({"at", "action", "value"}, why);
    } else {
      m.restrictTo({"at", "action"}, why);
    }
    const bool electrical_action = feed_action || action->kind == core::EventKind::UtilityOutage
                                   || action->kind == core::EventKind::UtilityRestore
                                   || action->kind == core::EventKind::SetPowerCap;
    if (electrical_action && !site.electrical.present) {
      m.fail("action", "action " + name + " needs an electrical section (electrical:)");
    }
    const bool loop = site.facility.modelled();
    if (!loop
        && (action->kind == core::EventKind::FacilityPumpTrip
            || action->kind == core::EventKind::HeatRejectionFanLoss)) {
      m.fail("action", "action " + name + " needs a facility loop (facility_water.loop)");
    }
    core::EventSpec e;
    e.kind = action->kind;
    e.where = m.where();
    e.time = m.quantity("at", Dimension::Time);
    if (e.time < 0.0 || e.time > sim.duration) {
      m.fail("at", "must be from 0 s to the end of the simulation (" + runEnd(sim) + "), got "
                       + seconds(e.time));
    }
    if (action->target == Target::Cdu) e.target = requireCdu(m, "target", cdus, ids);
    if (action->target == Target::FacilityLoop) e.target = facilityLoopTarget(m, site.facility);
    if (action->target == Target::RackOrAll && m.has("target")) {
      e.target = m.id("target").str();
      const bool known = std::any_of(site.racks.begin(), site.racks.end(),
                                     [&](const auto& rack) { return rack.id.str() == e.target; });
      if (!known) m.fail("target", unknownComponent(e.target, ids, "rack", idsOf(site.racks)));
    }
    if (feed_action) {
      const std::string feed = m.string("feed", "'a' or 'b'");
      if (feed != "a" && feed != "b")
        m.fail("feed", "expected 'a' or 'b', got " + core::quoteForMessage(feed));
      e.value = feed == "a" ? 0.0 : 1.0;
    }
    if (action->target == Target::TrainingJob) {
      e.target = m.string("target", "the id of a training job");
      std::vector<std::string> job_ids;
      for (const core::TrainingJobSpec& job : site.jobs)
        job_ids.push_back(job.id);
      if (std::find(job_ids.begin(), job_ids.end(), e.target) == job_ids.end()) {
        m.fail("target", "unknown training job '" + e.target + "'; expected one of: "
                             + (job_ids.empty() ? std::string("(none)") : joined(job_ids)));
      }
    }
    if (action->target == Target::Chip) {
      e.target = m.id("target").str();
      if (!layout) layout = core::SiteLayout::build(site);
      const auto known = [&](const std::vector<std::string>& v) {
        return std::find(v.begin(), v.end(), e.target) != v.end();
      };
      if (!known(layout->gpu_ids) && !known(layout->cpu_ids) && !known(layout->switch_ids)) {
        m.fail("target", "unknown chip '" + e.target
                             + "'; expected a GPU, CPU or NVSwitch id such as '"
                             + layout->gpu_ids.front() + "'");
      }
    }
    if (action->value) e.value = m.quantity("value", *action->value, action->check);
    if (loop && e.kind == core::EventKind::SetFacilitySupplyTemperature
        && !(core::toCelsius(e.value) > 0.0 && core::toCelsius(e.value) < 100.0)) {
      m.fail("value",
             "the facility loop's supply set-point must be liquid water, above 0 and "
             "below 100 degC, got "
                 + degC(e.value));
    }
    if (action->value) m.plausible("value", e.value, *action->value, action->plausible);
    if (e.kind == core::EventKind::ClogColdPlate && e.value < 1.0) {
      m.fail("value", "a clogged cold plate's pressure-drop multiplier must be at least 1, got "
                          + std::to_string(e.value));
    }
    m.finish();
    events.push_back(std::move(e));
  }
  // The engine applies events in time order; events at one time keep the file's order.
  std::stable_sort(
      events.begin(), events.end(),
      [](const core::EventSpec& a, const core::EventSpec& b) { return a.time < b.time; });
  return events;
}

fs::path resolveDataDir(const MapReader& r, const std::string& fallback) {
  if (const auto dir = r.optionalString("data_dir", "a directory")) {
    const fs::path p = detail::resolveInputPath(r, "data_dir", *dir, "data directory");
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      r.fail("data_dir", "directory '" + p.string() + "' does not exist");
    }
    return p;
  }
  return fs::path(fallback.empty() ? defaultDataDir() : fallback);
}

core::SiteSpec readScenario(const YamlDocument& doc, const std::string& data_dir,
                            const SimulationOverrides& overrides) {
  checkFormatVersion(doc, "racktwin_scenario", kScenarioFormatVersion, "scenario");
  const MapReader r = MapReader::root(doc, {"racktwin_scenario",
                                            "name",
                                            "description",
                                            "allow_outside_paths",
                                            "data_dir",
                                            "simulation",
                                            "coolant",
                                            "facility_water",
                                            "ambient",
                                            "room",
                                            "cdus",
                                            "rings",
                                            "racks",
                                            "workload",
                                            "scheduler",
                                            "electrical",
                                            "fabric",
                                            "events",
                                            "air_plant",
                                            "layout",
                                            "output",
                                            "networks"});
  if (!r.has("racktwin_scenario")) {
    r.fail("racktwin_scenario",
           "required key is missing; a scenario file starts with "
           "'racktwin_scenario: "
               + std::to_string(kScenarioFormatVersion) + "'");
  }
  (void)r.integer("racktwin_scenario", kScenarioFormatVersion, kScenarioFormatVersion);

  core::SiteSpec site;
  site.name = r.string("name", "a name for the scenario");
  (void)r.optionalString("description", "a description");
  // A scenario stored in a result file does not decide for itself (OutsidePaths::Refused): its
  // outside paths are then refused where they are named.
  detail::InputPathScope& paths = *detail::InputPathScope::current();
  if (r.booleanOr("allow_outside_paths", false) && paths.scenarioMayAllow()) paths.allowOutside();
  DataLibrary lib(resolveDataDir(r, data_dir));

  site.simulation = readSimulation(r, overrides);
  site.secondary_coolant = readCoolant(r);
  noteCoolant(site.secondary_coolant);

  FacilityOrigin facility_origin;
  site.facility = readFacilityWater(r, lib, facility_origin);
  site.ambient = readAmbient(r, site.facility, facility_origin, site.simulation.duration);

  constexpr std::string_view kDefaultRoom = "default";
  if (const auto room = r.optionalMap(
          "room", {"type", "supply_air_temperature", "crah_conductance", "crah_capacity",
                   "heat_capacity", "crah_fan_power_fraction", "recirculation"})) {
    const std::string type = room->has("type") ? room->typeName("type") : std::string(kDefaultRoom);
    site.room = lib.room(type, room->whereValue("type"), room->keyPath("type"));
    site.room = DataLibrary::readRoomValues(*room, site.room, false);
    room->finish();
  } else {
    site.room = lib.room(std::string(kDefaultRoom), r.where(), "room.type");
  }

  if (const auto plant = r.optionalMap(
          "air_plant", {"type", "chilled_water_supply_temperature", "chillers", "economiser"})) {
    site.air_plant = lib.airPlant(*plant, "type");
    site.air_plant.T_chw_supply = plant->quantityOr(
        "chilled_water_supply_temperature", Dimension::Temperature, site.air_plant.T_chw_supply,
        Check::Positive, Kind::FacilityWaterTemperature);
    site.air_plant.chillers = plant->integerOr("chillers", site.air_plant.chillers, 1, kMaxCount);
    site.air_plant.economiser = plant->booleanOr("economiser", site.air_plant.economiser);
    if (site.air_plant.economiser && !(site.air_plant.economiser_approach >= 0.0)) {
      plant->fail("economiser", "the plant type has no economiser approach");
    }
    if (!(site.ambient.T_wet_bulb > 0.0) && site.ambient.T_wet_bulb_series.empty()) {
      plant->fail("type",
                  "the air side's cooling tower needs the outdoor wet bulb: give "
                  "ambient.wet_bulb or a weather file with humidity");
    }
    plant->finish();
  }

  IdRegistry ids;
  site.cdus = readCdus(r, lib, ids, site.facility.modelled(), site);
  resolveFacilityLoops(site, facility_origin, lib);
  if (site.facility.loop.present && site.cdus.size() > 1 && !facility_origin.header_segment) {
    throw core::InputError(facility_origin.loop_where, "facility_water.loop.header_segment",
                           "required key is missing: with " + std::to_string(site.cdus.size())
                               + " CDUs the supply and return mains run between their taps; "
                                 "expected a pipe (length, inner_diameter, roughness, cells)");
  }
  std::vector<RackOrigin> rack_origins;
  site.racks =
      readRacks(r, lib, ids, site.cdus, site.secondary_coolant, site.facility, rack_origins);
  // Loops whose piping an EPANET file gives (NetworkLoader.cpp), then the ring mains.
  const detail::NetworkIds network_ids{
      [&](const std::string& id, std::string_view what, const MapReader& m, std::string_view key) {
        ids.add(id, what, m, key);
      },
      [&](const std::string& id, std::string_view wanted) {
        return unknownComponent(id, ids, wanted,
                                wanted == "CDU" ? idsOf(site.cdus) : idsOf(site.racks));
      }};
  site.rings = readRings(
      r, site.cdus, site.racks, rack_origins, site.secondary_coolant, ids,
      detail::readNetworks(r, site.cdus, site.racks, site.secondary_coolant, network_ids));
  detail::readLayout(r, site);  // rows and halls (LayoutOutputLoader.cpp)
  detail::readOutput(r, site);
  readWorkload(r, site, ids, lib.root());
  // The power tree above the racks, and the GB300 power smoothing (ElectricalLoader.cpp).
  readElectrical(r, lib.root(), site);
  // The scale-out network's switches, fed from the tree (FabricLoader.cpp).
  detail::readFabric(r, lib.root(), site);
  site.events = readEvents(r, site, ids);
  r.finish();
  return site;
}

}  // namespace

std::string defaultDataDir() {
  const char* env = std::getenv("RACKTWIN_DATA_DIR");
  if (env != nullptr && *env != '\0') return env;
  return std::string(RACKTWIN_SOURCE_DIR) + "/data";
}

core::SiteSpec loadScenario(const std::string& path, const SimulationOverrides& overrides,
                            OutsidePaths outside) {
  return loadScenarioFromString(detail::readFileBytes(path), path, "", overrides, outside);
}

namespace {
core::SiteSpec loadDocument(const std::string& text, const std::string& path_for_messages,
                            const std::string& data_dir, const SimulationOverrides& overrides,
                            OutsidePaths outside, const std::vector<ScenarioPatch>& patches) {
  detail::LoadSession session;
  detail::FileReadLog inputs;
  detail::InputPathScope paths(fs::path(path_for_messages).parent_path(),
                               outside == OutsidePaths::Allowed,
                               outside == OutsidePaths::ScenarioDecides);
  YamlDocument doc = detail::parseYaml(text, path_for_messages);
  // Patches and the template: block (ScenarioTemplate.cpp), before the document is read.
  const detail::TemplateOrigin origin = detail::prepareDocument(doc, patches);
  core::SiteSpec site =
      detail::readGenerated(origin, [&] { return readScenario(doc, data_dir, overrides); });
  site.input_warnings = std::move(session.warnings);
  site.input_files = std::move(inputs.files);
  site.scenario_path = path_for_messages;
  site.scenario_text = text;
  return site;
}
}  // namespace

core::SiteSpec loadScenarioFromString(const std::string& text, const std::string& path_for_messages,
                                      const std::string& data_dir,
                                      const SimulationOverrides& overrides, OutsidePaths outside) {
  return loadDocument(text, path_for_messages, data_dir, overrides, outside, {});
}

core::SiteSpec loadPatchedScenario(const std::string& text, const std::string& path_for_messages,
                                   const std::vector<ScenarioPatch>& patches,
                                   const std::string& data_dir,
                                   const SimulationOverrides& overrides, OutsidePaths outside) {
  return loadDocument(text, path_for_messages, data_dir, overrides, outside, patches);
}

}  // namespace racktwin::scenarios
