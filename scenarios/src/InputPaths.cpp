#include "InputPaths.hpp"

#include <system_error>

#include "YamlReader.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/scenarios/ScenarioLoader.hpp"

namespace racktwin::scenarios::detail {
namespace fs = std::filesystem;
namespace {

thread_local InputPathScope* t_scope = nullptr;

fs::path resolved(const fs::path& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) p = fs::absolute(path, ec).lexically_normal();
  return p;
}

}  // namespace

InputPathScope::InputPathScope(fs::path scenario_folder, bool allow_outside,
                               bool scenario_may_allow)
    : folder_(std::move(scenario_folder)),
      allow_outside_(allow_outside),
      scenario_may_allow_(scenario_may_allow),
      previous_(t_scope) {
  t_scope = this;
}

InputPathScope::~InputPathScope() {
  t_scope = previous_;
}

InputPathScope* InputPathScope::current() noexcept {
  return t_scope;
}

bool isInside(const fs::path& path, const fs::path& folder) {
  const fs::path p = resolved(path), f = resolved(folder.empty() ? fs::path(".") : folder);
  auto pi = p.begin();
  for (auto fi = f.begin(); fi != f.end(); ++fi, ++pi) {
    if (fi->empty()) continue;  // a trailing separator
    if (pi == p.end() || *pi != *fi) return false;
  }
  return true;
}

fs::path resolveInputPath(const MapReader& m, std::string_view key, const std::string& raw,
                          std::string_view what) {
  const InputPathScope* scope = InputPathScope::current();
  const fs::path folder = scope != nullptr ? scope->scenarioFolder() : fs::path();
  fs::path path(raw);
  if (path.is_relative()) path = folder / path;
  path = path.lexically_normal();
  if (scope == nullptr || scope->allowsOutside()) return path;
  if (isInside(path, folder) || isInside(path, defaultDataDir())) return path;
  m.fail(key, "the " + std::string(what) + " " + core::quoteForMessage(raw)
                  + " lies outside the scenario's folder ("
                  + (folder.empty() ? std::string(".") : folder.string())
                  + ") and the data library; a scenario reads files elsewhere (an absolute path, "
                    "or '..' leaving its folder) only with 'allow_outside_paths: true' at its top "
                    "or racktwin's --allow-outside-paths");
}

}  // namespace racktwin::scenarios::detail
