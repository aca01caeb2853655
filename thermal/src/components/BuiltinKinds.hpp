#pragma once
// The kinds the loop builder places itself (hoses, headers, manifolds, QDs, plates, a CDU's pump,
// exchanger and strainer), with adapters from the site's specs to their parameters. Kinds that
// scenarios attach by name (a rear-door coil, an air coil) are found through the registry instead.
#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/thermal/CoolantComponent.hpp"

namespace racktwin::thermal::components {

const CoolantComponentKind& pipeKind();
ComponentParameters pipeParameters(const core::PipeSpec& pipe);

const CoolantComponentKind& quickDisconnectKind();
ComponentParameters quickDisconnectParameters(const core::PowerLawDrop& drop);

const CoolantComponentKind& coldPlateKind();
ComponentParameters coldPlateParameters(const core::ColdPlateSpec& plate);

const CoolantComponentKind& plateHeatExchangerKind();
/// The secondary side of a CDU's plate heat exchanger.
ComponentParameters plateHeatExchangerParameters(const core::CduSpec& cdu);

const CoolantComponentKind& pumpKind();
ComponentParameters pumpParameters(const core::PumpSpec& pump);

const CoolantComponentKind& strainerKind();
ComponentParameters strainerParameters(const core::CduSpec& cdu);

}  // namespace racktwin::thermal::components
