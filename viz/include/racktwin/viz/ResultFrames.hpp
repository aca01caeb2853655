#pragma once
// ResultFrames: the frames of a result file (core/Hdf5Result.hpp). Opening reads the datasets the
// quantities need once, reduces them per entity (hottest GPU per rack, flow-mixed tray outlets
// per rack, pipe values) and keeps only the reduced table: frame(i) is a copy, no file access.
//
// The geometry comes from the scenario stored in the file (/scenario/text, read as if at the
// root attribute scenario_path, so a relative data_dir resolves as in the run), else from the
// scenario file there (scenarios::loadResultScenario). When neither loads (moved data files, an
// older file) or it no longer matches the columns, the geometry falls back to
// SiteGeometry::fromIds over the file's rack and CDU ids; geometryFromScenario() says which.
// A result that keeps the GPUs and trays of some racks only is coloured from its per-rack
// aggregates (the hottest GPU, the mean tray outlet); notes() says so.
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/viz/Frame.hpp"
#include "racktwin/viz/SiteGeometry.hpp"

namespace racktwin::viz {

class ResultFrames {
 public:
  /// Throws core::InputError naming `path` when it is missing, not HDF5, or not a RackTwin
  /// result (no /time, no /rack/ids).
  explicit ResultFrames(const std::string& path);
  ~ResultFrames();
  ResultFrames(ResultFrames&&) noexcept;
  ResultFrames& operator=(ResultFrames&&) noexcept;

  const std::string& path() const noexcept;
  const SiteGeometry& geometry() const noexcept;
  bool geometryFromScenario() const noexcept;
  /// Why the scenario could not be used (empty when it was).
  const std::string& scenarioProblem() const noexcept;
  const std::string& siteName() const noexcept;
  /// What the frames show differently from a result with every GPU and tray (a reduced level of
  /// detail: core/OutputDetail.hpp): one sentence each; empty for a full result.
  const std::vector<std::string>& notes() const noexcept;

  std::size_t size() const noexcept;                  // samples
  const std::vector<double>& times() const noexcept;  // s, ascending
  /// The sample nearest to `time` (clamped to the first and last).
  std::size_t indexAt(double time) const noexcept;
  /// Fills `frame` (sized for geometry()) with sample i; allocates nothing.
  void frame(std::size_t i, Frame& frame) const;
  Frame frame(std::size_t i) const;
  /// Smallest and largest finite value of q over every sample; {NaN, NaN} when none.
  std::pair<double, double> range(Quantity q) const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace racktwin::viz
