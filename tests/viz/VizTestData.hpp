#pragma once
// Shared data of the viz tests: a short run of the 64-rack cluster (made once per build tree by
// the racktwin program) and direct HDF5 reads of what the viz library derives.
#include <string>
#include <vector>

namespace racktwin::test {

/// A 60 s run of scenarios/cluster-64-racks.yaml (7 samples at 10 s), made on first use.
const std::string& clusterResult();
/// The variable-length strings of a 1-D dataset (entity ids), read with the HDF5 C API.
std::vector<std::string> readStrings(const std::string& path, const std::string& dataset);
/// Replaces a root string attribute of an HDF5 file (variable-length UTF-8, as the writer's).
void setRootAttribute(const std::string& path, const std::string& name, const std::string& value);
/// Deletes a dataset of an HDF5 file (a result written before the file stored it, or stripped).
void removeDataset(const std::string& path, const std::string& dataset);
/// Writes a small HDF5 file that is not a RackTwin result (one dataset /x).
void writeForeignHdf5(const std::string& path);

}  // namespace racktwin::test
