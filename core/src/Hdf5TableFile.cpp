// Files of tables (sweep files): written whole to <path>.partial, renamed when complete.
#include <hdf5.h>

#include <filesystem>
#include <string>
#include <system_error>

#include "Hdf5Handle.hpp"
#include "Hdf5Tables.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/ResultTable.hpp"

namespace racktwin::core {

void writeTableFile(const std::string& path, const TableFile& content) {
  using namespace hdf5;
  silenceErrorPrinting();
  const ErrorSilencer silence;
  const std::string partial = path + ".partial";
  const auto fail = [&](const std::string& what) {
    std::string message = "HDF5 file '" + path + "': " + what + " failed";
    const std::string detail = lastErrorDetail();
    if (!detail.empty()) message += " (" + detail + ")";
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw RuntimeError(message);
  };
  for (const std::string& p : {path, partial}) {
    std::error_code error;
    const auto type = std::filesystem::symlink_status(p, error).type();
    if (type != std::filesystem::file_type::not_found
        && type != std::filesystem::file_type::regular) {
      throw RuntimeError("HDF5 file '" + p
                         + "' exists and is not a regular file; it is left as it is");
    }
  }
  {
    const PropertyList fcpl(H5Pcreate(H5P_FILE_CREATE));
    const PropertyList fapl(H5Pcreate(H5P_FILE_ACCESS));
    if (!fcpl.valid() || !fapl.valid() || H5Pset_obj_track_times(fcpl.get(), false) < 0
        || H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0) {
      fail("creating property lists");
    }
    File file(H5Fcreate(partial.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()));
    if (!file.valid()) fail("creating " + partial);
    const Datatype strings = makeUtf8StringType();
    if (!strings.valid()) fail("creating the UTF-8 string type");
    TextChecksum checksum;
    try {
      TableWriter writer(file.get(), strings.get(), checksum, path);
      for (const auto& [name, value] : content.text_attributes)
        writer.stringAttribute("/", name.c_str(), value);
      for (const auto& [name, value] : content.number_attributes)
        writer.numberAttribute(name.c_str(), value);
      for (const auto& [group, text] : content.texts)
        writer.writeText(group, "text", text);
      for (const ResultTable& table : content.tables)
        writer.write(table);
    } catch (const RuntimeError&) {
      std::error_code ignored;
      (void)file.close();
      std::filesystem::remove(partial, ignored);
      throw;
    }
    const std::uint64_t sum = checksum.value();
    const Dataspace space(H5Screate(H5S_SCALAR));
    const Attribute attribute(H5Acreate2(file.get(), "text_checksum", H5T_STD_U64LE, space.get(),
                                         H5P_DEFAULT, H5P_DEFAULT));
    if (!attribute.valid() || H5Awrite(attribute.get(), H5T_NATIVE_UINT64, &sum) < 0)
      fail("writing the text checksum");
    if (H5Fflush(file.get(), H5F_SCOPE_LOCAL) < 0) fail("flushing");
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) fail("renaming " + partial + " (" + error.message() + ")");
}

}  // namespace racktwin::core
