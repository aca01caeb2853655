#pragma once
// Export of a result as a ParaView time series: DIR/<name>.pvd listing, per exported sample, three
// VTK XML polydata files (parts "racks", "cdus", "pipes"): DIR/racks_NNNNNN.vtp, cdus_NNNNNN.vtp,
// pipes_NNNNNN.vtp. Racks and CDUs are boxes (6 quads each), pipes polylines. Cell data: one
// double array per Quantity named with its unit (QuantityInfo::array_name, NaN where it does not
// apply), "entity_index" (Int32, the SiteGeometry entity) and "entity_id" (string).
// The .pvd is written last (as .pvd.partial, then renamed), and an old one is removed first, so
// a failed export never leaves a .pvd naming files that are missing.
#include <cstddef>
#include <functional>
#include <string>

#include "racktwin/viz/ResultFrames.hpp"

namespace racktwin::viz {

struct ExportOptions {
  std::size_t every = 1;        // export samples 0, every, 2 every, ... and always the last
  std::string name = "result";  // the .pvd's stem
  /// Called after each exported sample with (done, total); may be empty.
  std::function<void(std::size_t, std::size_t)> progress;
};

struct ExportSummary {
  std::string pvd_path;
  std::size_t steps = 0;  // samples exported
  std::size_t files = 0;  // .vtp files written
};

/// Throws core::InputError for every == 0, core::RuntimeError when DIR cannot be created or a
/// file cannot be written.
ExportSummary exportVtkSeries(const ResultFrames& frames, const std::string& directory,
                              const ExportOptions& options = {});

}  // namespace racktwin::viz
