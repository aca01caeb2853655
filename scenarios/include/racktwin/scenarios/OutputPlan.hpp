#pragma once
// The result's level of detail for a site (core::OutputSpec resolved against its racks, rows and
// halls): what a DetailSink needs, and the command-line overrides of `racktwin run`.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/core/OutputDetail.hpp"
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::scenarios {

/// The plan of site.output: which racks keep per-GPU (CPU, NVSwitch, tray) columns, the
/// aggregate levels, the hottest GPUs (the `auto` values resolved by the site's GPU count).
core::DetailPlan detailPlanOf(const core::SiteSpec& site);

/// The HDF5 writer's options of site.output (compression, shuffle, entities per chunk): a run's
/// file and a sweep case's full result are written alike.
core::Hdf5SinkOptions sinkOptionsOf(const core::SiteSpec& site);

/// Whether every GPU keeps its own columns under site.output (per_gpu all, or auto on a site of
/// at most OutputSpec::kAutoPerGpuLimit GPUs).
bool everyGpuRecorded(const core::SiteSpec& site);

/// The mode a word of `per_gpu` names: auto, all (Every), none (Aggregated); nullopt for others.
std::optional<core::OutputSpec::PerGpu> perGpuMode(std::string_view word);
/// True for the aggregate levels rack, row and hall.
bool isAggregateLevel(std::string_view level);

/// An empty string when `id` names a rack, row or hall of the site; else why not.
std::string unknownSelection(const core::SiteSpec& site, const core::FloorPlanSpec& floor,
                             const std::string& id);

/// `racktwin run` options that replace the scenario's `output` keys; each is checked like the
/// key and an error names the option at "<command line>".
struct OutputOverrides {
  std::optional<std::string> per_gpu;       // --per-gpu auto|all|none|ID,ID,...
  std::optional<std::string> hottest_gpus;  // --hottest-gpus N|auto
  std::optional<std::string> aggregates;    // --aggregates auto|none|rack,row,hall
  std::optional<std::string> compression;   // --compression 0-9
};
void applyOutputOverrides(core::SiteSpec& site, const OutputOverrides& overrides);

}  // namespace racktwin::scenarios
