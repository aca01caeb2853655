// Quantities and the colour map.
#include <catch2/catch.hpp>

#include <cmath>

#include "SceneVtkImpl.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/viz/ColorMap.hpp"
#include "racktwin/viz/Quantity.hpp"
#include "racktwin/viz/Scene.hpp"

using namespace racktwin;

TEST_CASE("quantities parse by key and name their arrays with units", "[viz]") {
  for (const viz::Quantity q : viz::kAllQuantities) {
    const viz::QuantityInfo& info = viz::quantityInfo(q);
    CHECK(viz::parseQuantity(info.key) == q);
    // Array names carry the unit in characters VTK files and ParaView take: m3/s as m3_s, % as
    // percent.
    const std::string suffix = info.unit == "m3/s" ? "m3_s"
                               : info.unit == "%"  ? "percent"
                                                   : std::string(info.unit);
    CHECK(info.array_name.ends_with(suffix));
  }
  try {
    viz::parseQuantity("humidity");
    FAIL("expected InputError");
  } catch (const core::InputError& e) {
    CHECK(std::string(e.what()).find("humidity") != std::string::npos);
    CHECK(std::string(e.what()).find("coolant-flow") != std::string::npos);
  }
}

TEST_CASE("the colour map puts the range ends on the table ends", "[viz]") {
  const viz::ColorMap map(300.0, 350.0);
  CHECK(map.colour(350.0) == viz::ColorMap::topColour());
  CHECK(map.colour(400.0) == viz::ColorMap::topColour());  // clamped above
  CHECK(map.colour(300.0) == viz::ColorMap::bottomColour());
  CHECK(map.colour(-1.0) == viz::ColorMap::bottomColour());
  CHECK(map.colour(std::nan("")) == viz::ColorMap::nanColour());
  CHECK(map.index(325.0) == viz::ColorMap::kEntries / 2);
  // Monotone in value; the ends are blue (cool) and red (hot).
  std::size_t last = 0;
  for (double v = 300.0; v <= 350.0; v += 0.5) {
    CHECK(map.index(v) >= last);
    last = map.index(v);
  }
  CHECK(viz::ColorMap::bottomColour()[2] > viz::ColorMap::bottomColour()[0]);
  CHECK(viz::ColorMap::topColour()[0] > viz::ColorMap::topColour()[2]);
  CHECK(viz::ColorMap::nanColour() != viz::ColorMap::entry(viz::ColorMap::kEntries / 2));
  // A degenerate range still maps its one value to the middle.
  const viz::ColorMap flat(5.0, 5.0);
  CHECK(flat.min() < 5.0);
  CHECK(flat.max() > 5.0);
  CHECK(flat.index(5.0) == viz::ColorMap::kEntries / 2);
}

TEST_CASE("the scene's lookup table colours as the colour map does", "[viz]") {
  viz::Scene scene(viz::SiteGeometry::fromIds({"r/a", "r/b"}, {}));
  scene.setRange(300.0, 350.0);
  vtkLookupTable* lut = scene.vtk().lut;
  const viz::ColorMap& map = scene.colorMap();
  for (const double v : {290.0, 300.0, 300.1, 317.0, 325.0, 349.9, 350.0, 360.0, std::nan("")}) {
    const unsigned char* rgba = lut->MapValue(v);
    const viz::Rgb expected = map.colour(v);
    INFO("value " << v);
    CHECK(static_cast<int>(rgba[0]) == expected[0]);
    CHECK(static_cast<int>(rgba[1]) == expected[1]);
    CHECK(static_cast<int>(rgba[2]) == expected[2]);
  }
  const unsigned char* top = lut->MapValue(350.0);
  CHECK(top[0] == viz::ColorMap::topColour()[0]);
  CHECK(top[2] == viz::ColorMap::topColour()[2]);
}
