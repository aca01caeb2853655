// The postProcessing/ reader: columns found by header name, newest output chosen, clear errors.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <thread>

#include "CfdTestUtil.hpp"
#include "racktwin/cfd/CaseWriter.hpp"
#include "racktwin/cfd/CfdError.hpp"
#include "racktwin/cfd/PostProcessing.hpp"

using namespace racktwin::cfd;

namespace {

// The layout of a v1912 surfaceFieldValue file (openfoam.md section 4).
const char* kSurfaceFieldValue =
    "# Region type : patch heater\n"
    "# Faces       : 120\n"
    "# Area        : 9.000000e-05\n"
    "# Scale factor: 1.000000e+00\n"
    "# Time        \tmax(T)\n"
    "1\t3.001e+02\n"
    "2\t3.502e+02\n"
    "82\t4.192989033998e+02\n";

}  // namespace

TEST_CASE("a .dat table is read by the names in its last header line", "[cfd][postprocessing]") {
  const DatTable t = parseDatTable(kSurfaceFieldValue, "T_heater");
  CHECK(t.columns().size() == 2);
  CHECK(t.rowCount() == 3);
  CHECK(t.last("max(T)") == Approx(419.2989033998).epsilon(1e-15));
  CHECK(t.value(0, "Time") == 1.0);
}

TEST_CASE("columns are found by name whatever their position", "[cfd][postprocessing]") {
  // fieldMinMax in parallel inserts a processor column and vector locations.
  const char* serial =
      "# Time\tfield\tmin\tlocation(min)\tmax\tlocation(max)\n"
      "10\tT\t300\t(0 0 0)\t350.5\t(0.1 0 0)\n";
  const char* parallel =
      "# Time\tfield\tmin\tprocessor\tlocation(min)\tmax\tprocessor\tlocation(max)\n"
      "10\tT\t300\t0\t(0 0 0)\t350.5\t1\t(0.1 0 0)\n";
  CHECK(parseDatTable(serial, "serial").last("max") == 350.5);
  CHECK(parseDatTable(parallel, "parallel").last("max") == 350.5);
  // solverInfo: the same field at a different place after a change of the fields listed.
  const char* info =
      "# Solver information\n# Time\tU_solver\tUx_initial\tUx_final\tUx_iters\t"
      "p_solver\tp_initial\tp_final\tp_iters\tp_converged\n"
      "127\tsmoothSolver\t3e-08\t1e-09\t2\tGAMG\t9.5e-07\t8e-09\t3\tfalse\n";
  CHECK(parseDatTable(info, "info").last("p_initial") == 9.5e-7);
  CHECK(parseDatTable(info, "info").last("Ux_initial") == 3e-8);
}

TEST_CASE("a missing column or a bad cell is a clear error", "[cfd][postprocessing]") {
  const DatTable t = parseDatTable(kSurfaceFieldValue, "T_heater.dat");
  try {
    (void)t.last("min(T)");
    FAIL("no error");
  } catch (const CfdError& e) {
    const std::string what = e.what();
    CHECK(what.find("T_heater.dat") != std::string::npos);
    CHECK(what.find("min(T)") != std::string::npos);
    CHECK(what.find("max(T)") != std::string::npos);  // the columns it has
  }
  const DatTable bad = parseDatTable("# Time\tsum(phi)\n5\tnan\n", "m.dat");
  CHECK_THROWS_AS(bad.last("sum(phi)"), CfdError);
  CHECK_THROWS_AS(parseDatTable("1\t2\n", "headless"), CfdError);
  CHECK_THROWS_AS(parseDatTable("# Time\tx\n", "empty").last("x"), CfdError);
}

TEST_CASE("the newest output of a function object is found", "[cfd][postprocessing]") {
  const auto dir = racktwin::test::cfdScratch("postprocessing");
  const auto fo = dir / "postProcessing" / "fluid" / "T_inlet";
  writeTextFile(fo / "0" / "surfaceFieldValue.dat", "# Time\tweightedAverage(T)\n1\t300\n");
  // A restart at time 50 writes a new start-time directory; a rerun beside an old file writes
  // surfaceFieldValue_0.dat (openfoam.md pitfall 2).
  writeTextFile(fo / "50" / "surfaceFieldValue.dat", "# Time\tweightedAverage(T)\n51\t301\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  writeTextFile(fo / "50" / "surfaceFieldValue_0.dat", "# Time\tweightedAverage(T)\n60\t302\n");
  const auto found = findDatFile(dir, "fluid", "T_inlet", "surfaceFieldValue");
  CHECK(found.filename() == "surfaceFieldValue_0.dat");
  CHECK(readDatTable(found).last("weightedAverage(T)") == 302.0);
  CHECK_THROWS_AS(findDatFile(dir, "solid", "T_inlet", "surfaceFieldValue"), CfdError);
}

TEST_CASE("raw samples are read with their header names", "[cfd][postprocessing]") {
  const auto dir = racktwin::test::cfdScratch("raw");
  writeTextFile(dir / "T_bottom.raw",
                "# T  POINT_DATA 2\n#  x  y  z  T\n0.1 0 0 1.5\n0.2 0 0 2.5\n");
  const RawTable t = readRawTable(dir / "T_bottom.raw");
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[1][t.column("T", "T_bottom.raw")] == 2.5);
  CHECK(t.rows[0][t.column("x", "T_bottom.raw")] == 0.1);
}
