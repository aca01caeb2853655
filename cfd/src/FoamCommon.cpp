#include "FoamCommon.hpp"

#include <cstdlib>

#include "racktwin/cfd/CaseWriter.hpp"
#include "racktwin/cfd/CfdError.hpp"

namespace racktwin::cfd::detail {

namespace fs = std::filesystem;

std::string namedDictionaryList(const std::vector<std::pair<std::string, FoamDictionary>>& items,
                                int indent) {
  const std::string pad(static_cast<std::size_t>(indent) * 4, ' ');
  std::string out = "\n" + pad + "(\n";
  for (const auto& [name, dictionary] : items) {
    out += pad + "    " + name + "\n" + pad + "    {\n" + dictionary.text(indent + 2) + pad
           + "    }\n";
  }
  return out + pad + ")";
}

FoamDictionary bc(const std::string& type, const std::string& value) {
  FoamDictionary d;
  d.set("type", type);
  if (!value.empty()) d.set("value", value);
  return d;
}

FoamDictionary field(const std::string& dimensions, const std::string& internal,
                     const std::vector<std::pair<std::string, FoamDictionary>>& patches) {
  FoamDictionary d;
  d.set("dimensions", dimensions).set("internalField", internal);
  FoamDictionary& boundary = d.sub("boundaryField");
  for (const auto& [name, condition] : patches)
    boundary.set(name, condition);
  return d;
}

FoamDictionary steadyControlDict(const std::string& application, int max_iterations) {
  FoamDictionary d;
  d.set("application", application.c_str())
      .set("startFrom", "startTime")
      .set("startTime", 0)
      .set("stopAt", "endTime")
      .set("endTime", max_iterations)
      .set("deltaT", 1)
      .set("writeControl", "timeStep")
      .set("writeInterval", max_iterations)
      .set("purgeWrite", 0)
      .set("writeFormat", "ascii")
      .set("writePrecision", 12)
      .set("writeCompression", "off")
      .set("timeFormat", "general")
      .set("timePrecision", 8)
      .set("runTimeModifiable", "false");
  return d;
}

FoamDictionary emptySchemes() {
  FoamDictionary d;
  d.sub("ddtSchemes").set("default", "steadyState");
  d.sub("gradSchemes").set("default", "Gauss linear");
  d.sub("divSchemes").set("default", "none");
  d.sub("laplacianSchemes").set("default", "Gauss linear corrected");
  d.sub("interpolationSchemes").set("default", "linear");
  d.sub("snGradSchemes").set("default", "corrected");
  return d;
}

FoamDictionary emptySolution() {
  FoamDictionary d;
  d.sub("solvers");
  d.sub("SIMPLE").set("nNonOrthogonalCorrectors", 0);
  return d;
}

std::string latestTime(const fs::path& case_dir) {
  std::string best;
  double best_t = -1.0;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(case_dir, ec)) {
    if (!e.is_directory()) continue;
    const std::string name = e.path().filename().string();
    char* end = nullptr;
    const double t = std::strtod(name.c_str(), &end);
    if (name.empty() || end != name.c_str() + name.size()) continue;
    if (t > best_t) {
      best_t = t;
      best = name;
    }
  }
  return best;
}

void copyTree(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to, ec);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
  if (ec) {
    throw core::RuntimeError("cannot copy " + from.string() + " to " + to.string() + ": "
                             + ec.message());
  }
}

long meshCells(const fs::path& case_dir, const std::string& region) {
  fs::path owner = case_dir / "constant";
  if (!region.empty()) owner /= region;
  owner /= "polyMesh/owner";
  const std::string text = readTextFile(owner);
  const std::size_t at = text.find("nCells:");
  if (at == std::string::npos) throw CfdError(owner.string() + ": no nCells in its note");
  return std::strtol(text.c_str() + at + 7, nullptr, 10);
}

}  // namespace racktwin::cfd::detail
