// The headroom overlay: each rack and CDU coloured by the share of its tightest design limit
// used, read from the result's /limits (docs/capacity.md).
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "RunProgram.hpp"
#include "VizTestData.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"
#include "racktwin/viz/DesignMargins.hpp"
#include "racktwin/viz/ResultFrames.hpp"
#include "racktwin/viz/SiteGeometry.hpp"

using namespace racktwin;

TEST_CASE("A rack or CDU shows the tightest of its own limits and of those inside it", "[viz]") {
  const viz::SiteGeometry geometry =
      viz::SiteGeometry::build(scenarios::loadScenario("scenarios/cluster-64-racks.yaml"));
  const int rack = geometry.findRack("row2/rack03");
  REQUIRE(rack >= 0);
  std::size_t cdu = geometry.entityCount();
  for (std::size_t c = 0; c < geometry.cduCount(); ++c)
    if (geometry.entityId(geometry.rackCount() + c) == "row4/cdu1") cdu = geometry.rackCount() + c;
  REQUIRE(cdu < geometry.entityCount());
  const std::vector<viz::DesignLimitUse> limits{
      {"row4/cdu1", 0.25, true},           // rated heat: 75 % used
      {"row2/rack03", 0.5, true},          // inlet temperature: 50 % used
      {"row2/rack03/feed_a", -0.1, true},  // its feed over its rating: 110 %
      {"row2/rack04", 0.0, false},         // not checked: no colour from it
      {"busway-a", 0.3, true},             // not a rack or CDU: no box to colour
  };
  const std::vector<double> used = viz::designMarginUsed(geometry, limits);
  REQUIRE(used.size() == geometry.entityCount());
  CHECK(used[static_cast<std::size_t>(rack)] == Approx(110.0).margin(1e-12));
  CHECK(used[cdu] == Approx(75.0).margin(1e-12));
  CHECK(std::isnan(used[static_cast<std::size_t>(geometry.findRack("row2/rack04"))]));
  CHECK(std::isnan(used[static_cast<std::size_t>(geometry.findRack("row1/rack01"))]));
  for (std::size_t e = geometry.rackCount() + geometry.cduCount(); e < used.size(); ++e)
    CHECK(std::isnan(used[e]));  // pipes
}

TEST_CASE("A replayed result with /limits colours its racks and CDUs by the margin used", "[viz]") {
  namespace fs = std::filesystem;
  const fs::path copy = fs::path(RACKTWIN_BINARY_DIR) / "test-scratch" / "viz-data"
                        / ("cluster-limits-" + std::to_string(::getpid()) + ".h5");
  fs::copy_file(test::clusterResult(), copy, fs::copy_options::overwrite_existing);
  // Two rows of /limits in docs/capacity.md's layout, added with h5py in place of the run's own
  // (the text checksum, which covers the writer's strings only, is removed as a file from another
  // writer would lack it).
  const std::string script =
      "import h5py\n"
      "f = h5py.File('" + copy.string() + "', 'a')\n"
      "del f.attrs['text_checksum']\n"
      "if 'limits' in f: del f['limits']\n"
      "t = h5py.string_dtype('utf-8')\n"
      "f.create_dataset('limits/component', data=['row3/cdu1', 'row1/rack02'], dtype=t)\n"
      "f.create_dataset('limits/worst_margin_fraction', data=[0.4, -0.05])\n"
      "f.create_dataset('limits/checked', data=[1.0, 1.0])\n"
      "f.close()\n";
  const fs::path script_file = copy.string() + ".py";
  {
    std::FILE* out = std::fopen(script_file.c_str(), "w");
    REQUIRE(out);
    std::fputs(script.c_str(), out);
    std::fclose(out);
  }
  const test::ProgramResult added =
      test::runProgram("/usr/bin/python3 '" + script_file.string() + "'");
  INFO(added.err);
  REQUIRE(added.exit_code == 0);
  const viz::ResultFrames frames(copy.string());
  const viz::SiteGeometry& geometry = frames.geometry();
  const viz::Frame last = frames.frame(frames.size() - 1);
  const auto rack = static_cast<std::size_t>(geometry.findRack("row1/rack02"));
  CHECK(last.value(viz::Quantity::DesignMarginUsed, rack) == Approx(105.0).margin(1e-12));
  std::size_t cdu = 0;
  for (std::size_t c = 0; c < geometry.cduCount(); ++c)
    if (geometry.entityId(geometry.rackCount() + c) == "row3/cdu1") cdu = geometry.rackCount() + c;
  CHECK(last.value(viz::Quantity::DesignMarginUsed, cdu) == Approx(60.0).margin(1e-12));
  CHECK(frames.range(viz::Quantity::DesignMarginUsed).second == Approx(105.0));
  // A result without /limits (a build without design limits) leaves the overlay empty.
  const fs::path bare = copy.string() + ".bare.h5";
  fs::copy_file(test::clusterResult(), bare, fs::copy_options::overwrite_existing);
  const test::ProgramResult removed = test::runProgram(
      "/usr/bin/python3 -c \"import h5py; f = h5py.File('" + bare.string()
      + "', 'a'); del f.attrs['text_checksum']; f.pop('limits', None); f.close()\"");
  INFO(removed.err);
  REQUIRE(removed.exit_code == 0);
  const viz::ResultFrames plain(bare.string());
  CHECK(std::isnan(plain.range(viz::Quantity::DesignMarginUsed).first));
  fs::remove(copy);
  fs::remove(bare);
  fs::remove(script_file);
}
