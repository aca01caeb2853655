// Links of an imported network as links of a coolant loop (NetworkPiping.hpp).
#include "cooling/NetworkPiping.hpp"

namespace racktwin::thermal::cooling {

using Link = core::PipingNetworkSpec::Link;

LinkLaw networkLinkLaw(const Link& link) {
  LinkLaw law;
  if (link.kind == Link::Kind::Pipe) {
    const core::PipeSpec pipe = networkLinkPipe(link);
    if (link.hazen_williams_C > 0.0) {
      law = LinkLaw::makeHazenWilliams(pipe, link.hazen_williams_C);
    } else {
      // EPANET's friction factor (Dunlop's cubic between Re 2000 and 4000), as the file's own
      // solve has it; the loop's other pipes interpolate linearly there.
      law = LinkLaw::makePipe(pipe);
      law.friction = LinkLaw::Friction::Epanet;
    }
    law.minor_loss = link.minor_loss;
    law.check_valve = link.check_valve;
    law.status = link.state == Link::State::Closed ? LinkStatus::Closed : LinkStatus::Open;
    return law;
  }
  ValveSpec valve;
  switch (link.valve) {
    case Link::Valve::FCV:
      valve.type = ValveType::FCV;
      break;
    case Link::Valve::TCV:
      valve.type = ValveType::TCV;
      break;
    case Link::Valve::GPV:
      valve.type = ValveType::GPV;
      break;
  }
  valve.diameter = link.diameter;
  valve.minor_loss = link.minor_loss;
  valve.setting = link.setting;
  valve.V_flow = link.curve_V_flow;
  valve.dp = link.curve_dp;
  law = LinkLaw::makeValve(valve);
  switch (link.state) {
    case Link::State::Open:
      law.status = LinkStatus::Open;
      break;
    case Link::State::Closed:
      law.status = LinkStatus::Closed;
      break;
    case Link::State::Active:
      law.status = LinkStatus::Active;
      break;
  }
  return law;
}

core::PipeSpec networkLinkPipe(const Link& link) {
  if (link.kind == Link::Kind::Pipe)
    return core::PipeSpec{link.length, link.diameter, link.roughness, link.cells};
  return core::PipeSpec{link.diameter, link.diameter, 0.0, 1};
}

}  // namespace racktwin::thermal::cooling
