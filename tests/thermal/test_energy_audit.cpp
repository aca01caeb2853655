// The energy audit (CoolingAudit.cpp) checks every sweep from enthalpy flows, m_flow cp dT across
// each cold plate and exchanger, against the chips' power and the change of stored heat. These
// tests run generated racks of 1 to 32 plates per tray, with CPUs and NVSwitch trays beside the
// GPUs and several CDUs, through the single-CDU and the general sweep: both must give the same
// temperatures to round-off and pass the audit. And the audit must fail when a sweep puts more
// heat into the coolant than the chips give up (the defect it exists for).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "CoolingRig.hpp"
#include "SmallSite.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/thermal/CoolingModel.hpp"

using namespace racktwin;

namespace {

/// `cdus` CDUs, each with one rack of three compute trays of `gpus` GPUs and `cpus` CPUs, and
/// `switch_trays` trays of two NVSwitches. Every CDU keeps the size it has for six plates per
/// tray, so denser trays share its flow: the flow per plate falls with the plate count, down to
/// where the plates' conductance is capped at their capacity rate.
core::SiteSpec denseSite(int gpus, int cpus, int switch_trays, int cdus) {
  const core::SiteSpec six = test::smallSite(3, 6);
  core::SiteSpec site = test::smallSite(3, gpus);
  site.cdus = six.cdus;
  core::RackTypeSpec& type = site.racks[0].type;
  type.cpus_per_tray = cpus;
  type.switch_trays = switch_trays;
  type.switches_per_tray = switch_trays > 0 ? 2 : 0;
  type.cpu.P_max = 300.0;
  type.nvswitch.P_max = 600.0;
  const core::CduSpec cdu = site.cdus[0];
  const core::RackSpec rack = site.racks[0];
  site.cdus.clear();
  site.racks.clear();
  for (int k = 1; k <= cdus; ++k) {
    core::CduSpec c = cdu;
    c.id = core::ComponentId("row" + std::to_string(k) + "/cdu1");
    site.cdus.push_back(c);
    core::RackSpec r = rack;
    r.id = core::ComponentId("row" + std::to_string(k) + "/rack01");
    r.cdu = c.id.str();
    site.racks.push_back(r);
  }
  return site;
}

/// A rig whose chips swing between two levels, each chip at its own power.
struct SwingRig : test::CoolingRig {
  using CoolingRig::CoolingRig;
  void swing(double dt) {
    const bool compute = std::fmod(t, 4.0) < 3.0;
    for (std::size_t g = 0; g < state.gpu_E_step.size(); ++g)
      state.gpu_E_step[g] = ((compute ? 1000.0 : 400.0) + 7.0 * static_cast<double>(g % 13)) * dt;
    for (double& E : state.cpu_E_step)
      E = (compute ? 250.0 : 120.0) * dt;
    for (double& E : state.switch_E_step)
      E = 500.0 * dt;
    for (double& E : state.rack_air_E_step)
      E = 300.0 * dt;
    model.advance(t, dt, state);
    t += dt;
  }
};

double relative(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(a), std::abs(b));
}

}  // namespace

TEST_CASE("Dense trays: the single-CDU and general sweeps agree and pass the audit",
          "[thermal][audit]") {
  // Plates per tray from 1 to 32, split between GPUs and CPUs; NVSwitch trays on some; two CDUs
  // on some.
  for (int plates = 1; plates <= 32; ++plates) {
    const int cpus = plates >= 3 ? plates % 3 : 0;
    const int gpus = plates - cpus;
    const int switch_trays = plates % 2;
    const int cdus = plates % 4 == 0 ? 2 : 1;
    INFO("plates per tray " << plates << " (" << gpus << " GPUs, " << cpus << " CPUs), "
                            << switch_trays << " switch trays, " << cdus << " CDUs");
    const core::SiteSpec site = denseSite(gpus, cpus, switch_trays, cdus);
    SwingRig fast(site, false);
    SwingRig general(site, true);
    double worst = 0.0;
    for (int s = 0; s < 90; ++s) {
      fast.swing(1.0);
      general.swing(1.0);
    }
    for (std::size_t g = 0; g < fast.state.gpu_T_junction.size(); ++g)
      worst =
          std::max(worst, relative(fast.state.gpu_T_junction[g], general.state.gpu_T_junction[g]));
    // The CPU and switch dies reach the GPUs through the coolant, and the stored heat sums them.
    for (std::size_t u = 0; u < site.cdus.size(); ++u) {
      worst = std::max(worst, relative(fast.model.cduReturnTemperature(u),
                                       general.model.cduReturnTemperature(u)));
    }
    worst = std::max(worst, relative(fast.model.storedEnergy(), general.model.storedEnergy()));
    CHECK(worst < 1e-12);
    // The heat the CDUs carry agrees too, against the heat put in.
    CHECK(std::abs(fast.model.heatRejected() - general.model.heatRejected())
              / fast.model.heatInput()
          < 1e-11);
    // Both ran the audit on every sweep and it held far inside its tolerance.
    for (const SwingRig* rig : {&fast, &general}) {
      CHECK(rig->summary("energy_audit_checks").value_or(0.0) > 0.0);
      CHECK(rig->summary("energy_audit_relative_error_max").value_or(1.0) < 1e-10);
    }
  }
}

TEST_CASE("The energy audit stops a run whose sweep creates heat in the plates",
          "[thermal][audit]") {
  const core::SiteSpec site = denseSite(4, 2, 1, 1);
  for (const double error : {1e-2, 1e-6}) {
    INFO("relative error of the plates' heat " << error);
    core::SiteSpec spec = site;
    const core::SiteLayout layout = core::SiteLayout::build(spec);
    thermal::CoolingModel model(spec, layout);
    model.injectPlateHeatErrorForValidation(error);
    core::SiteState state;
    state.resize(layout, spec.cdus[0].T_supply_set);
    model.initialize(state);
    for (double& E : state.gpu_E_step)
      E = 1000.0;
    bool stopped = false;
    std::string message;
    for (int s = 0; s < 5 && !stopped; ++s) {
      try {
        model.advance(static_cast<double>(s), 1.0, state);
      } catch (const core::RuntimeError& e) {
        stopped = true;
        message = e.what();
      }
    }
    REQUIRE(stopped);
    CHECK(message.find("energy audit failed at t = 1 s") != std::string::npos);
    CHECK(message.find("coolant loop of row1/cdu1") != std::string::npos);
    CHECK(message.find("the cold plate of ") != std::string::npos);
  }
  // Without the error the same run passes.
  test::CoolingRig rig(site);
  for (int s = 0; s < 5; ++s)
    rig.step(1000.0);
  CHECK(rig.summary("energy_audit_relative_error_max").value_or(1.0) < 1e-10);
}
