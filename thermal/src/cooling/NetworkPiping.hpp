#pragma once
// The links of a loop's piping taken from an imported network (core::PipingNetworkSpec, an EPANET
// input file): each becomes a link of the `pipe` kind for its coolant volume and cells, with the
// network's own hydraulic law (EPANET's Darcy-Weisbach friction or Hazen-Williams, minor losses,
// check valves, statuses; EPANET's FCV, TCV and GPV), so `racktwin hydraulics` on the file
// and the loop solve the same equations.
#include "racktwin/core/PipingNetworkSpec.hpp"
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/thermal/Hydraulics.hpp"

namespace racktwin::thermal::cooling {

/// The link's law, as EPANET states it.
LinkLaw networkLinkLaw(const core::PipingNetworkSpec::Link& link);

/// The pipe whose volume and cells the link takes: a pipe's own; a valve's body as long as its
/// bore, in one cell (an estimate: a valve holds little coolant against its pipes).
core::PipeSpec networkLinkPipe(const core::PipingNetworkSpec::Link& link);

}  // namespace racktwin::thermal::cooling
