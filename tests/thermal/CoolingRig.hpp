#pragma once
// A cooling model on a hand-built site, stepped with the same heat on every GPU: the harness of
// the thermal tests (faults, rings, facility loop).
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "racktwin/core/SiteSpec.hpp"
#include "racktwin/core/SiteState.hpp"
#include "racktwin/core/Summary.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

namespace racktwin::test {

struct CoolingRig {
  /// `general_sweep_only`: every loop takes the general heat sweep (CoolingModel).
  explicit CoolingRig(core::SiteSpec spec, bool general_sweep_only = false)
      : site(std::move(spec)), layout(core::SiteLayout::build(site)), model(site, layout) {
    model.useGeneralSweepOnly(general_sweep_only);
    state.resize(layout, site.cdus[0].T_supply_set);
    model.initialize(state);
    stored_initial = model.storedEnergy();
  }
  /// One macro step of dt with every GPU at P watts and `air` watts of air load per rack.
  void step(double P, double dt = 1.0, double air = 0.0) {
    for (double& E : state.gpu_E_step)
      E = P * dt;
    for (double& E : state.rack_air_E_step)
      E = air * dt;
    model.advance(t, dt, state);
    t += dt;
  }
  bool event(core::EventKind kind, const std::string& target = "", double value = 0.0) {
    core::EventSpec e;
    e.kind = kind;
    e.target = target;
    e.value = value;
    e.time = t;
    return model.applyEvent(e, state);
  }
  std::optional<double> summary(const std::string& key) const {
    core::Summary s;
    model.summarise(s);
    return s.value(key);
  }
  /// |heat in - heat rejected - change of stored heat| / heat in, since initialize.
  double balance() const {
    return std::abs(model.heatInput() - model.heatRejected()
                    - (model.storedEnergy() - stored_initial))
           / model.heatInput();
  }

  core::SiteSpec site;
  core::SiteLayout layout;
  core::SiteState state;
  thermal::CoolingModel model;
  double t = 0.0;
  double stored_initial = 0.0;
};

}  // namespace racktwin::test
