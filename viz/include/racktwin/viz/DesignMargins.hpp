#pragma once
// The headroom overlay: how much of its tightest design limit each rack and CDU used, from the
// design limits a result holds (/limits, docs/capacity.md).
#include <span>
#include <string>
#include <vector>

#include "racktwin/viz/SiteGeometry.hpp"

namespace racktwin::viz {

/// One row of a result's /limits: the rated component and its worst margin as a fraction.
struct DesignLimitUse {
  std::string component;               // "row1/cdu1", "row1/rack03", "row1/rack03/feed_a"
  double worst_margin_fraction = 0.0;  // < 0: exceeded
  bool checked = true;                 // false when the limit's channel was not recorded
};

/// The rows of the result's /limits; empty when it has none (written by a build without design
/// limits). Throws core::InputError when the columns disagree in length.
std::vector<DesignLimitUse> readDesignLimitUse(const std::string& result_path);

/// Per entity of `geometry` (racks, CDUs, pipes): the share of the tightest design limit used, in
/// percent, 100 (1 - worst margin fraction): 100 % at the rating, above 100 % exceeded. A rack or
/// CDU takes its own limits and those of the components inside it ("row1/rack03/feed_a");
/// unchecked limits are left out; NaN where no limit applies (pipes, unrated components).
std::vector<double> designMarginUsed(const SiteGeometry& geometry,
                                     std::span<const DesignLimitUse> limits);

}  // namespace racktwin::viz
