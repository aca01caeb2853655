// Ownership of the coupling fields (specified behaviour, issue 19): a twin refuses two writers of
// one field, a field read that nobody writes and a model that declares nothing; the engine's
// watch catches a model that writes a field it did not declare.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "racktwin/core/CouplingFields.hpp"
#include "racktwin/core/Engine.hpp"
#include "racktwin/core/Error.hpp"

using namespace racktwin::core;

namespace {

struct Declared : Model {
  Declared(std::string name_, CouplingFields fields_) : label(std::move(name_)), fields(fields_) {}
  std::string_view name() const override { return label; }
  CouplingFields couplingFields() const override { return fields; }
  void initialize(SiteState&) override {}
  void advance(double, double, SiteState& state) override {
    // Writes the junctions, whatever it declared.
    for (double& T : state.gpu_T_junction)
      T += 1.0;
  }
  std::string label;
  CouplingFields fields;
};

std::string ownershipError(std::vector<Model*> models) {
  try {
    checkCouplingOwnership(models);
  } catch (const RuntimeError& error) {
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("Each coupling field has one writer, and every field read has one", "[core][coupling]") {
  using F = CouplingField;
  Declared thermal("thermal", CouplingFields::of({F::GpuJunction}, {F::GpuEnergyStep}));
  Declared power("power", CouplingFields::of({F::GpuEnergyStep}, {F::GpuPowerDemand}));
  Declared workload("workload", CouplingFields::of({F::GpuPowerDemand}, {F::GpuJunction}));
  CHECK(ownershipError({&workload, &power, &thermal}).empty());

  Declared second("second thermal", CouplingFields::of({F::GpuJunction}, {}));
  const std::string two = ownershipError({&workload, &power, &thermal, &second});
  CHECK(two.find("gpu_T_junction") != std::string::npos);
  CHECK(two.find("thermal and the second thermal") != std::string::npos);

  const std::string unread = ownershipError({&power, &thermal});  // nobody writes the demands
  CHECK(unread.find("power model reads coupling field gpu_P_demand") != std::string::npos);

  Declared silent("silent", CouplingFields{});
  CHECK(ownershipError({&workload, &power, &thermal, &silent}).find("silent model does not declare")
        != std::string::npos);
  CHECK(couplingFieldName(F::RackPowered) == "rack_powered");
  CHECK(couplingFieldName(F::GpuPowerDemand) == "gpu_P_demand");
}

TEST_CASE("The engine's watch reports a write a model did not declare", "[core][coupling]") {
  using F = CouplingField;
  SimulationSpec sim{2.0, 1.0, 1, 1.0, 0};
  SiteState state;
  state.gpu_T_junction.assign(4, 300.0);
  SECTION("declared: nothing reported") {
    Declared honest("honest", CouplingFields::of({F::GpuJunction}, {}));
    Engine engine(sim, state);
    engine.addSlowModel(honest);
    engine.watchCouplingWrites();
    engine.initialize();
    while (engine.step()) {
    }
    CHECK(engine.undeclaredWrites().empty());
  }
  SECTION("undeclared: every step's write reported, naming the model and the field") {
    Declared sly("sly", CouplingFields::of({F::GpuSpeed}, {}));
    Engine engine(sim, state);
    engine.addSlowModel(sly);
    engine.watchCouplingWrites();
    engine.initialize();
    while (engine.step()) {
    }
    REQUIRE(engine.undeclaredWrites().size() == 2);
    CHECK(engine.undeclaredWrites()[0]
          == "the sly model wrote gpu_T_junction without declaring it");
  }
}
