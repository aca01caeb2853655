#include "VizTestData.hpp"

#include <hdf5.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "RunProgram.hpp"

namespace racktwin::test {

const std::string& clusterResult() {
  static const std::string path = [] {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(RACKTWIN_BINARY_DIR) / "test-scratch" / "viz-data";
    const fs::path result = dir / "cluster-60s.h5";
    // Reused only when written by this build's program: a result cached by an older build could
    // lack what the tests look for (or hold what they add themselves).
    std::error_code error;
    if (fs::exists(result, error)
        && fs::last_write_time(result, error) >= fs::last_write_time(RACKTWIN_CLI, error)
        && !error) {
      return result.string();
    }
    fs::create_directories(dir);
    // ctest runs test cases in parallel processes: write privately, then rename into place.
    const fs::path mine = dir / ("cluster-60s." + std::to_string(getpid()) + ".h5");
    const ProgramResult run = runProgram(
        std::string(RACKTWIN_CLI) + " run scenarios/cluster-64-racks.yaml --duration 60 -q -o '"
        + mine.string() + "'");
    if (run.exit_code != 0) throw std::runtime_error("cluster run failed: " + run.err);
    fs::rename(mine, result);
    return result.string();
  }();
  return path;
}

std::vector<std::string> readStrings(const std::string& path, const std::string& dataset) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) throw std::runtime_error("cannot open " + path);
  const hid_t data = H5Dopen2(file, dataset.c_str(), H5P_DEFAULT);
  const hid_t space = H5Dget_space(data);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space, &n, nullptr);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  std::vector<char*> raw(n, nullptr);
  H5Dread(data, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data());
  std::vector<std::string> out;
  for (char* s : raw)
    out.emplace_back(s != nullptr ? s : "");
  H5Dvlen_reclaim(type, space, H5P_DEFAULT, raw.data());
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(data);
  H5Fclose(file);
  return out;
}

namespace {

/// An edited file stands for one written before strings were checksummed: the reader refuses a
/// file whose strings no longer give its `text_checksum`, and accepts one without it.
void dropTextChecksum(hid_t file) {
  if (H5Aexists(file, "text_checksum") > 0) H5Adelete(file, "text_checksum");
}

}  // namespace

void setRootAttribute(const std::string& path, const std::string& name, const std::string& value) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) throw std::runtime_error("cannot open " + path);
  if (H5Aexists(file, name.c_str()) > 0) H5Adelete(file, name.c_str());
  dropTextChecksum(file);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attribute = H5Acreate2(file, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
  const char* text = value.c_str();
  H5Awrite(attribute, type, &text);
  H5Aclose(attribute);
  H5Sclose(space);
  H5Tclose(type);
  H5Fclose(file);
}

void removeDataset(const std::string& path, const std::string& dataset) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) throw std::runtime_error("cannot open " + path);
  const herr_t status = H5Ldelete(file, dataset.c_str(), H5P_DEFAULT);
  dropTextChecksum(file);
  H5Fclose(file);
  if (status < 0) throw std::runtime_error("cannot delete " + dataset + " in " + path);
}

void writeForeignHdf5(const std::string& path) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t n = 3;
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t data =
      H5Dcreate2(file, "/x", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  const double values[3] = {1.0, 2.0, 3.0};
  H5Dwrite(data, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
  H5Dclose(data);
  H5Sclose(space);
  H5Fclose(file);
}

}  // namespace racktwin::test
