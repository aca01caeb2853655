// Output in the user's units: `racktwin run --units us` prints the summary in US customary units
// and `racktwin export-csv` writes a result's records as CSV in SI or US units. The result file
// and the summary JSON stay SI. The printed and exported numbers are checked against the SI
// values of the same run, converted here with the units' definitions (NIST SP 811 Appendix B).
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "RunProgram.hpp"
#include "racktwin/core/Hdf5Result.hpp"

using racktwin::test::readFile;
using racktwin::test::runProgram;

namespace {

const std::string kCli = RACKTWIN_CLI;
constexpr double kGpm_m3s = 231.0 * 0.0254 * 0.0254 * 0.0254 / 60.0;  // 1 US gal/min
constexpr double kPsi_Pa = 0.45359237 * 9.80665 / (0.0254 * 0.0254);

/// The number printed after `label` on its line of the summary table, and the unit after it.
std::pair<double, std::string> printed(const std::string& out, const std::string& label) {
  const std::size_t at = out.find(label);
  REQUIRE(at != std::string::npos);
  const std::string line = out.substr(at, out.find('\n', at) - at);
  // The value is the last number on the line before its unit.
  std::vector<std::string> words;
  std::istringstream all(line);
  for (std::string w; all >> w;)
    words.push_back(w);
  REQUIRE(words.size() >= 2);
  try {
    return {std::stod(words[words.size() - 2]), words.back()};
  } catch (const std::exception&) {
    return {std::stod(words.back()), ""};
  }
}

std::vector<std::string> splitCsv(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(field);
  return fields;
}

}  // namespace

TEST_CASE("The summary printed with --units us is in US customary units and the files stay SI",
          "[integration][units]") {
  const std::string dir = racktwin::test::scratchDirectory("units-" + std::to_string(getpid()));
  const auto run = runProgram(kCli + " run scenarios/nvl72-rack.yaml --duration 600 --units us -o "
                              + dir + "/r.h5 --summary-json " + dir + "/s.json");
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const auto s = nlohmann::json::parse(readFile(dir + "/s.json"));
  // The JSON is SI whatever is printed.
  const double T_K = s.at("max_gpu_temperature_K").get<double>();
  const auto [T, T_unit] = printed(run.out, "Max GPU junction temperature");
  CHECK(T_unit == "degF");
  CHECK(T == Approx((T_K - 273.15) * 1.8 + 32.0).epsilon(1e-5));  // printed to 6 digits
  const auto [V, V_unit] = printed(run.out, "Secondary pump flow (design, all CDUs)");
  CHECK(V_unit == "gpm");
  CHECK(V == Approx(s.at("pump_V_flow_m3_per_s").get<double>() / kGpm_m3s).epsilon(1e-5));
  const auto [dp, dp_unit] = printed(run.out, "Manifold dp, least favoured rack (design)");
  CHECK(dp_unit == "psi");
  CHECK(dp == Approx(s.at("rack_dp_available_min_Pa").get<double>() / kPsi_Pa).epsilon(1e-5));
  // Heat in ton-hours (12,000 Btu/h for an hour), electrical energy in kWh as US utilities bill.
  const auto [Q, Q_unit] = printed(run.out, "Heat into coolant and room air");
  CHECK(Q_unit == "ton-h");
  CHECK(Q == Approx(s.at("heat_input_J").get<double>() / (12000.0 * 1055.05585262)).epsilon(1e-5));
  const auto [E, E_unit] = printed(run.out, "IT energy (power shelf AC input)");
  CHECK(E_unit == "kWh");
  CHECK(E == Approx(s.at("it_energy_J").get<double>() / 3.6e6).epsilon(1e-5));
  // The result file's temperatures are still in kelvin.
  CHECK(runProgram("h5dump -a /gpu/T_junction/units " + dir + "/r.h5").out.find("\"K\"")
        != std::string::npos);
}

TEST_CASE("export-csv writes the records in SI or US units, equal to the HDF5 datasets",
          "[integration][units]") {
  const std::string dir = racktwin::test::scratchDirectory("csv-" + std::to_string(getpid()));
  const std::string result = dir + "/r.h5";
  REQUIRE(runProgram(kCli
                     + " run scenarios/nvl72-rack.yaml --duration 120 --record-interval 10 -q -o "
                     + result)
              .exit_code
          == 0);
  const std::vector<double> time = racktwin::core::readResultDataset(result, "/time");
  const std::vector<double> T_supply = racktwin::core::readResultDataset(result, "/cdu/T_supply");
  const std::vector<double> P_it = racktwin::core::readResultDataset(result, "/site/P_it");
  REQUIRE(time.size() == 13);

  for (const std::string system : {"si", "us"}) {
    INFO("units " << system);
    const std::string csv = dir + "/r-" + system + ".csv";
    const auto exported = runProgram(kCli + " export-csv " + result + " -o " + csv
                                     + " --group cdu --units " + system);
    INFO(exported.err);
    REQUIRE(exported.exit_code == 0);
    std::istringstream in(readFile(csv));
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = splitCsv(line);
    std::size_t col_T = 0, col_P = 0;
    const std::string T_name =
        system == "si" ? "cdu/T_supply[row1/cdu1] (K)" : "cdu/T_supply[row1/cdu1] (degF)";
    const std::string P_name = system == "si" ? "site/P_it (W)" : "site/P_it (kW)";
    for (std::size_t k = 0; k < header.size(); ++k) {
      if (header[k] == T_name) col_T = k;
      if (header[k] == P_name) col_P = k;
    }
    INFO(line);
    REQUIRE(header.at(0) == "time (s)");
    REQUIRE(col_T > 0);
    REQUIRE(col_P > 0);
    std::size_t rows = 0;
    while (std::getline(in, line)) {
      const std::vector<std::string> f = splitCsv(line);
      REQUIRE(f.size() == header.size());
      CHECK(std::stod(f[0]) == time[rows]);
      const double T = std::stod(f[col_T]), P = std::stod(f[col_P]);
      if (system == "si") {
        CHECK(T == Approx(T_supply[rows]).epsilon(1e-9));
        CHECK(P == Approx(P_it[rows]).epsilon(1e-9));
      } else {
        CHECK(T == Approx((T_supply[rows] - 273.15) * 1.8 + 32.0).epsilon(1e-9));
        CHECK(P == Approx(P_it[rows] / 1e3).epsilon(1e-9));
      }
      ++rows;
    }
    CHECK(rows == time.size());
  }
  // A group the file does not have is refused, and nothing is written.
  const auto bad =
      runProgram(kCli + " export-csv " + result + " -o " + dir + "/x.csv --group pumps");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--group") != std::string::npos);
  // ... naming the groups it has: the CDUs' per-entity records are among them.
  CHECK(bad.err.find("it has them in: ") != std::string::npos);
  CHECK(bad.err.find("cdu") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir + "/x.csv"));
  // The result itself is never an output.
  CHECK(runProgram(kCli + " export-csv " + result + " -o " + result).exit_code == 2);
}
