#pragma once
// A cold plate characterised over flow: one CFD run per flow, the fits, and the curve written in
// the cold_plate data format the scenarios load (with the raw points and provenance under `cfd`).
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "racktwin/cfd/ColdPlateCase.hpp"
#include "racktwin/cfd/CurveFit.hpp"

namespace racktwin::cfd {

struct ColdPlateCurve {
  std::vector<ColdPlatePoint> points;  // by increasing flow
  ResistanceFit resistance;            // flows in m3/s, reference 1 L/min
  PowerLawFit pressure_drop;           // dp in Pa against V in m3/s
  std::string created;                 // ISO 8601 UTC
  double wall_s = 0.0;
};

/// Called after each flow point (for progress output).
using PointCallback = std::function<void(std::size_t index, const ColdPlatePoint& point)>;

/// Runs every flow (m3/s per plate, sorted first) in `work_dir/<n>` and fits the curves. Throws on
/// the first failed run (CfdError, SolverDiverged, OpenFoamMissing).
ColdPlateCurve characterise(const ColdPlateSpec& spec, std::vector<double> flows,
                            const std::filesystem::path& work_dir, const ProcessRunner& runner,
                            const ColdPlateRunOptions& options, const PointCallback& progress = {});

/// The curve as a cold_plate data file (YAML text).
std::string formatCurve(const ColdPlateSpec& spec, const ColdPlateCurve& curve);

/// Writes the curve to `path` through `path`.partial and a rename, so a reader never sees half a
/// file; removes the partial file when writing fails.
void writeCurveFile(const std::filesystem::path& path, const std::string& text);

}  // namespace racktwin::cfd
