#include <catch2/catch.hpp>
#include <stdexcept>

#include "racktwin/core/ComponentId.hpp"

using racktwin::core::ComponentId;

TEST_CASE("Component ids are stable paths with validated segments", "[core]") {
  const ComponentId gpu("row1/rack01/tray03/gpu2");
  CHECK(gpu.leaf() == "gpu2");
  CHECK(gpu.parent().str() == "row1/rack01/tray03");
  CHECK(gpu.parent().child("gpu2") == gpu);
  CHECK(ComponentId("row1").parent().empty());
  for (const char* bad : {"", "row1//rack", "Row1/rack", "row1/rack 1", "/row1", "row1/"}) {
    CHECK_THROWS_AS(ComponentId(bad), std::invalid_argument);
  }
}
