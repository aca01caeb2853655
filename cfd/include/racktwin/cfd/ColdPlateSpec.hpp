#pragma once
// A parametric microchannel cold plate: a solid base under straight rectangular channels separated
// by fins, a heater footprint under the base, water in the channels. Read from a YAML spec whose
// sizes are quantities with units ("2 mm", "1000 W", "35 degC"), as in the scenario files.
#include <filesystem>
#include <string>

#include "racktwin/cfd/Water.hpp"

namespace racktwin::cfd {

struct ColdPlateSpec {
  std::string file;  // where it was read from ("" when built in code)
  std::string description;

  // Base (and fins, of the same material).
  std::string material = "copper";
  double base_thickness = 2.0e-3;  // m
  double base_width = 4.5e-3;      // m; the channel array must fit in it
  double conductivity = 390.0;     // W/(m K)
  double density = 8960.0;         // kg/m3 (steady runs do not use it; written for completeness)
  double specific_heat = 385.0;    // J/(kg K)

  // Channels: `channel_count` straight channels of width x height, `fin_thickness` apart.
  int channel_count = 3;
  double channel_width = 1.0e-3;
  double channel_height = 2.0e-3;
  double fin_thickness = 0.5e-3;
  double length = 20.0e-3;  // m, along the flow (the base has the same length)

  // Heater footprint, centred on the base, and its power.
  double heater_length = 20.0e-3;  // along the flow
  double heater_width = 4.5e-3;
  double power = 125.0;  // W

  // Inlet and outlet plenums: not meshed (each channel gets a uniform inlet velocity, the same in
  // every channel); their coolant volume is counted.
  double plenum_length = 0.0;  // m, each end, over the channel array's width and height

  std::string coolant = "water";
  double T_inlet = 300.0;  // K

  // The modelled slice and its mesh.
  int slice_channels = 3;
  int cells_across_channel = 6;
  int cells_across_fin = 2;
  int cells_base = 4;
  int cells_height = 8;
  int cells_along = 40;
  int max_iterations = 1500;
  double residual_target = 1.0e-6;  // initial residuals of p_rgh, U and h in the fluid

  double pitch() const { return channel_width + fin_thickness; }
  /// Width of the channel array (count x pitch: a half fin on either side).
  double arrayWidth() const { return channel_count * pitch(); }
  FluidProperties fluid() const { return fluidByName(coolant, T_inlet); }
  /// Coolant in the channels and both plenums, m3.
  double coolantVolume() const;
  /// Heater flux, W/m2.
  double heatFlux() const { return power / (heater_length * heater_width); }
};

/// Reads and checks a spec; every error is a core::InputError naming the file, line and key and
/// what is expected.
ColdPlateSpec readColdPlateSpec(const std::filesystem::path& file);
/// The same from text (`file` names it in messages).
ColdPlateSpec parseColdPlateSpec(const std::string& text, const std::string& file);

/// Checks a spec built in code; throws core::InputError (without a line) on the first problem.
void validate(const ColdPlateSpec& spec);

}  // namespace racktwin::cfd
