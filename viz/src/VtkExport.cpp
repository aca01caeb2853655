#include "racktwin/viz/VtkExport.hpp"

#include <vtkPolyData.h>
#include <vtkXMLPolyDataWriter.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ScenePolyData.hpp"
#include "racktwin/core/Error.hpp"

namespace racktwin::viz {
namespace fs = std::filesystem;
namespace {

struct PartSource {
  const char* name;
  vtkSmartPointer<vtkPolyData> data;
};

void writePolyData(vtkPolyData* data, const fs::path& path) {
  vtkNew<vtkXMLPolyDataWriter> writer;
  writer->SetFileName(path.string().c_str());
  writer->SetInputData(data);
  writer->SetDataModeToAppended();
  writer->SetCompressorTypeToZLib();
  if (writer->Write() != 1 || writer->GetErrorCode() != 0) {
    throw core::RuntimeError("cannot write '" + path.string() + "'");
  }
}

std::string fileName(const char* part, std::size_t sample) {
  char text[64];
  std::snprintf(text, sizeof text, "%s_%06zu.vtp", part, sample);
  return text;
}

}  // namespace

ExportSummary exportVtkSeries(const ResultFrames& frames, const std::string& directory,
                              const ExportOptions& options) {
  if (options.every == 0) {
    throw core::InputError({}, "every", "must be a positive number of samples");
  }
  if (options.name.empty() || options.name.find('/') != std::string::npos) {
    throw core::InputError({}, "name", "expected a file stem without '/'");
  }
  const fs::path dir(directory);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    throw core::RuntimeError("cannot create directory '" + directory + "'"
                             + (ec ? ": " + ec.message() : std::string()));
  }
  ExportSummary summary;
  const fs::path pvd = dir / (options.name + ".pvd");
  summary.pvd_path = pvd.string();
  // An old series first goes, so a failure below leaves no .pvd naming half-written files.
  fs::remove(pvd, ec);

  std::vector<std::size_t> samples;
  for (std::size_t i = 0; i < frames.size(); i += options.every)
    samples.push_back(i);
  if (!samples.empty() && samples.back() + 1 != frames.size()) samples.push_back(frames.size() - 1);

  const SiteGeometry& geometry = frames.geometry();
  PartSource parts[] = {{"racks", makeBoxes(geometry, false)},
                        {"cdus", makeBoxes(geometry, true)},
                        {"pipes", makePipeLines(geometry)}};
  Frame frame(geometry);
  std::ostringstream collection;
  collection.precision(17);
  for (std::size_t k = 0; k < samples.size(); ++k) {
    frames.frame(samples[k], frame);
    for (const PartSource& part : parts) {
      addQuantityArrays(*part.data, geometry, frame);
      const std::string name = fileName(part.name, samples[k]);
      writePolyData(part.data, dir / name);
      ++summary.files;
      collection << "    <DataSet timestep=\"" << frame.time << "\" group=\"\" part=\""
                 << (&part - parts) << "\" name=\"" << part.name << "\" file=\"" << name
                 << "\"/>\n";
    }
    ++summary.steps;
    if (options.progress) options.progress(k + 1, samples.size());
  }

  const fs::path partial = dir / (options.name + ".pvd.partial");
  {
    std::ofstream out(partial, std::ios::trunc);
    out << "<?xml version=\"1.0\"?>\n"
           "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
           "  <Collection>\n"
        << collection.str() << "  </Collection>\n</VTKFile>\n";
    out.flush();
    if (!out) {
      out.close();
      fs::remove(partial, ec);
      throw core::RuntimeError("cannot write '" + pvd.string() + "'");
    }
  }
  fs::rename(partial, pvd, ec);
  if (ec) {
    fs::remove(partial, ec);
    throw core::RuntimeError("cannot write '" + pvd.string() + "'");
  }
  return summary;
}

}  // namespace racktwin::viz
