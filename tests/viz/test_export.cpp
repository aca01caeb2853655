// The ParaView series read back with VTK's own XML reader, against the HDF5 datasets.
#include <vtkCellData.h>
#include <vtkDoubleArray.h>
#include <vtkIntArray.h>
#include <vtkNew.h>
#include <vtkPolyData.h>
#include <vtkStringArray.h>
#include <vtkXMLPolyDataReader.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>

#include "RunProgram.hpp"
#include "VizTestData.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Hdf5Result.hpp"
#include "racktwin/viz/VtkExport.hpp"

using namespace racktwin;
namespace fs = std::filesystem;

namespace {

struct PvdEntry {
  double time;
  int part;
  std::string file;
};

/// The DataSet entries of a .pvd collection.
std::vector<PvdEntry> parsePvd(const std::string& path) {
  const std::string text = test::readFile(path);
  const std::regex entry(
      R"re(<DataSet timestep="([^"]+)" group="[^"]*" part="(\d+)" name="[^"]*" file="([^"]+)"/>)re");
  std::vector<PvdEntry> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), entry);
       it != std::sregex_iterator(); ++it) {
    out.push_back({std::stod((*it)[1]), std::stoi((*it)[2]), (*it)[3]});
  }
  return out;
}

}  // namespace

TEST_CASE("export-vtk writes a .pvd series whose arrays equal the result's datasets", "[viz]") {
  const std::string& result = test::clusterResult();
  const std::string dir = test::scratchDirectory("viz-export");
  const auto run = test::runProgram(std::string(RACKTWIN_CLI) + " export-vtk '" + result + "' '"
                                    + dir + "' --every 3 --name cluster");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const std::vector<PvdEntry> entries = parsePvd(dir + "/cluster.pvd");
  // Samples 0, 3, 6 of 7, three parts each.
  REQUIRE(entries.size() == 9);
  const auto time = core::readResultDataset(result, "/time");
  std::vector<unsigned long long> shape;
  const auto rack_P = core::readResultDataset(result, "/rack/P_ac", &shape);
  const auto gpu_T = core::readResultDataset(result, "/gpu/T_junction");
  const auto cdu_V = core::readResultDataset(result, "/cdu/V_flow");
  const std::size_t R = shape[1];
  const auto rack_ids = test::readStrings(result, "/rack/ids");
  const auto gpu_ids = test::readStrings(result, "/gpu/ids");
  const std::size_t G = gpu_ids.size();

  for (std::size_t k = 0; k < entries.size(); ++k) {
    const PvdEntry& e = entries[k];
    const std::size_t sample = (k / 3) * 3;
    CHECK(e.time == time[sample]);
    CHECK(e.part == static_cast<int>(k % 3));
    REQUIRE(fs::exists(dir + "/" + e.file));
    vtkNew<vtkXMLPolyDataReader> reader;
    reader->SetFileName((dir + "/" + e.file).c_str());
    reader->Update();
    vtkPolyData* data = reader->GetOutput();
    vtkCellData* cells = data->GetCellData();
    for (const char* name : {"gpu_T_junction_max_K", "rack_P_ac_W", "coolant_T_K",
                             "coolant_V_flow_m3_s", "entity_index", "entity_id"}) {
      INFO(e.file << " " << name);
      CHECK(cells->GetAbstractArray(name) != nullptr);
    }
    auto* power = vtkDoubleArray::SafeDownCast(cells->GetArray("rack_P_ac_W"));
    auto* hottest = vtkDoubleArray::SafeDownCast(cells->GetArray("gpu_T_junction_max_K"));
    auto* flow = vtkDoubleArray::SafeDownCast(cells->GetArray("coolant_V_flow_m3_s"));
    auto* ids = vtkStringArray::SafeDownCast(cells->GetAbstractArray("entity_id"));
    REQUIRE(power != nullptr);
    REQUIRE(hottest != nullptr);
    REQUIRE(ids != nullptr);
    if (e.part == 0) {  // racks: 6 faces each, rack r's faces at 6r .. 6r+5
      REQUIRE(data->GetNumberOfCells() == static_cast<vtkIdType>(6 * R));
      for (std::size_t r = 0; r < R; ++r) {
        const auto c = static_cast<vtkIdType>(6 * r + 5);
        CHECK(ids->GetValue(c) == rack_ids[r]);
        CHECK(power->GetValue(c) == rack_P[sample * R + r]);
        double expected = -1.0;
        for (std::size_t j = 0; j < G; ++j) {
          if (gpu_ids[j].starts_with(rack_ids[r] + "/")) {
            expected = std::max(expected, gpu_T[sample * G + j]);
          }
        }
        CHECK(hottest->GetValue(c) == expected);
      }
    } else if (e.part == 1) {  // CDUs: no rack power, their pump flow
      REQUIRE(data->GetNumberOfCells() == 8 * 6);
      CHECK(std::isnan(power->GetValue(0)));
      CHECK(flow->GetValue(6 * 7) == cdu_V[sample * 8 + 7]);
    } else {  // pipes: one polyline each
      CHECK(data->GetNumberOfLines() == data->GetNumberOfCells());
      CHECK(data->GetNumberOfCells() == 8 * 32 + 8 * 4);
    }
  }
}

TEST_CASE("a failed export leaves no .pvd naming missing files", "[viz]") {
  const std::string dir = test::scratchDirectory("viz-export-fail");
  const viz::ResultFrames frames(test::clusterResult());
  viz::ExportOptions options;
  options.name = "run";
  viz::exportVtkSeries(frames, dir, options);  // a complete series first
  REQUIRE(fs::exists(dir + "/run.pvd"));
  // The next export fails part-way (after two samples): the old .pvd is gone, no new one.
  options.progress = [](std::size_t done, std::size_t) {
    if (done == 2) throw core::RuntimeError("disk full (simulated)");
  };
  CHECK_THROWS_AS(viz::exportVtkSeries(frames, dir, options), core::RuntimeError);
  CHECK_FALSE(fs::exists(dir + "/run.pvd"));
  CHECK_FALSE(fs::exists(dir + "/run.pvd.partial"));
  options.progress = nullptr;
  options.every = 0;
  CHECK_THROWS_AS(viz::exportVtkSeries(frames, dir, options), core::InputError);
}
