#include "racktwin/cfd/ColdPlateSpec.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "racktwin/cfd/CaseWriter.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::cfd {

namespace {

std::string join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

using Fail = std::function<void(const std::string& key, const std::string& message)>;

std::string mm(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g mm", v * 1e3);
  return buffer;
}

// The checks shared by the reader (which knows lines) and validate() (which does not).
void check(const ColdPlateSpec& s, const Fail& fail) {
  auto positive = [&](double v, const char* key, const char* what) {
    if (!(v > 0.0) || !std::isfinite(v))
      fail(key, std::string("expected a positive ") + what + ", got " + std::to_string(v));
  };
  positive(s.base_thickness, "base.thickness", "length");
  positive(s.base_width, "base.width", "length");
  positive(s.conductivity, "base.conductivity_W_per_m_K", "conductivity in W/(m K)");
  positive(s.channel_width, "channels.width", "length");
  positive(s.channel_height, "channels.height", "length");
  positive(s.fin_thickness, "channels.fin_thickness", "length");
  positive(s.length, "channels.length", "length");
  positive(s.heater_length, "heater.length", "length");
  positive(s.heater_width, "heater.width", "length");
  positive(s.power, "heater.power", "power");
  if (!(s.plenum_length >= 0.0)) fail("plenums.length", "expected a length of 0 or more");
  if (s.channel_count < 1) fail("channels.count", "expected at least one channel");
  if (s.arrayWidth() > s.base_width * (1.0 + 1e-12)) {
    fail("channels.count", std::to_string(s.channel_count) + " channels of " + mm(s.channel_width)
                               + " with " + mm(s.fin_thickness) + " fins need " + mm(s.arrayWidth())
                               + " but base.width is " + mm(s.base_width)
                               + ": the channels are wider than the plate");
  }
  if (s.heater_width > s.arrayWidth() * (1.0 + 1e-12)) {
    fail("heater.width", "the heater (" + mm(s.heater_width) + ") is wider than the channel array ("
                             + mm(s.arrayWidth()) + "); expected a heater over the channels");
  }
  if (s.heater_length > s.length * (1.0 + 1e-12)) {
    fail("heater.length", "the heater (" + mm(s.heater_length) + ") is longer than the channels ("
                              + mm(s.length) + ")");
  }
  if (s.slice_channels < 1 || s.slice_channels > s.channel_count)
    fail("model.slice_channels", "expected 1 to channels.count channels in the modelled slice");
  if (s.slice_channels * s.pitch() > s.heater_width * (1.0 + 1e-9)) {
    fail("model.slice_channels", "the slice (" + mm(s.slice_channels * s.pitch())
                                     + ") must lie under the heater (" + mm(s.heater_width) + ")");
  }
  try {
    (void)s.fluid();
  } catch (const std::invalid_argument& e) {
    fail("coolant", e.what());
  }
}

class Reader {
 public:
  Reader(std::string file, const YAML::Node& root) : file_(std::move(file)), root_(root) {}

  [[noreturn]] void failAt(const YAML::Mark& mark, const std::string& key,
                           const std::string& message) const {
    core::SourceLocation where{file_, mark.line >= 0 ? mark.line + 1 : 0,
                               mark.column >= 0 ? mark.column + 1 : 0};
    throw core::InputError(where, key, message);
  }

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    auto it = marks_.find(key);
    failAt(it != marks_.end() ? it->second : root_.Mark(), key, message);
  }

  YAML::Node map(const YAML::Node& parent, const std::string& key, const std::string& path,
                 const std::set<std::string>& allowed, bool required) {
    const YAML::Node node = parent[key];
    const std::string full = path.empty() ? key : join(path, key);
    if (!node) {
      if (required) failAt(parent.Mark(), full, "missing; expected a map");
      return node;
    }
    if (!node.IsMap()) failAt(node.Mark(), full, "expected a map");
    checkKeys(node, full, allowed);
    return node;
  }

  void checkKeys(const YAML::Node& node, const std::string& path,
                 const std::set<std::string>& allowed) {
    for (const auto& entry : node) {
      const std::string k = entry.first.as<std::string>();
      const std::string full = path.empty() ? k : path + "." + k;
      if (!allowed.count(k)) {
        std::string list;
        for (const std::string& a : allowed)
          list += (list.empty() ? "" : ", ") + a;
        failAt(entry.first.Mark(), full, "unknown key (expected one of: " + list + ")");
      }
      marks_[full] = entry.second.Mark();
    }
  }

  // The scalar at `key`; nullopt when absent and not required. (A yaml-cpp node copied from a
  // missing key is invalid and must not be assigned to, so it is returned by value.)
  std::optional<YAML::Node> scalar(const YAML::Node& map, const std::string& key,
                                   const std::string& path, bool required) {
    const std::string full = join(path, key);
    const YAML::Node value = map[key];
    if (!value) {
      if (required) failAt(map.Mark(), full, "missing");
      return std::nullopt;
    }
    if (!value.IsScalar()) failAt(value.Mark(), full, "expected a single value");
    return value;
  }

  double quantity(const YAML::Node& map, const std::string& key, const std::string& path,
                  core::Dimension d, double fallback, bool required) {
    const std::optional<YAML::Node> found = scalar(map, key, path, required);
    if (!found) return fallback;
    const YAML::Node& v = *found;
    try {
      return core::parseQuantity(v.as<std::string>(), d);
    } catch (const std::invalid_argument& e) {
      failAt(v.Mark(), join(path, key), e.what());
    }
  }

  double number(const YAML::Node& map, const std::string& key, const std::string& path,
                double fallback, bool required) {
    const std::optional<YAML::Node> found = scalar(map, key, path, required);
    if (!found) return fallback;
    const YAML::Node& v = *found;
    const std::string text = v.as<std::string>();
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value))
      failAt(v.Mark(), join(path, key), "expected a plain number, got '" + text + "'");
    return value;
  }

  int integer(const YAML::Node& map, const std::string& key, const std::string& path, int fallback,
              bool required, int min, int max) {
    const std::optional<YAML::Node> found = scalar(map, key, path, required);
    if (!found) return fallback;
    const YAML::Node& v = *found;
    const std::string text = v.as<std::string>();
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || value < min || value > max) {
      failAt(v.Mark(), join(path, key),
             "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max)
                 + ", got '" + text + "'");
    }
    return static_cast<int>(value);
  }

  std::string string(const YAML::Node& map, const std::string& key, const std::string& path,
                     const std::string& fallback) {
    const std::optional<YAML::Node> found = scalar(map, key, path, false);
    if (!found) return fallback;
    const YAML::Node& v = *found;
    return v.as<std::string>();
  }

 private:
  std::string file_;
  YAML::Node root_;
  std::map<std::string, YAML::Mark> marks_;
};

}  // namespace

double ColdPlateSpec::coolantVolume() const {
  return channel_count * channel_width * channel_height * length
         + 2.0 * plenum_length * arrayWidth() * channel_height;
}

ColdPlateSpec parseColdPlateSpec(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw core::InputError(core::SourceLocation{file, e.mark.line + 1, e.mark.column + 1}, "",
                           "YAML syntax error: " + e.msg);
  }
  if (!root.IsMap())
    throw core::InputError(core::SourceLocation{file, 1, 1}, "", "expected a map of keys");
  Reader r(file, root);
  r.checkKeys(root, "",
              {"racktwin_data", "kind", "description", "base", "channels", "heater", "plenums",
               "coolant", "model"});
  ColdPlateSpec s;
  s.file = file;
  (void)r.integer(root, "racktwin_data", "", 0, true, 1, 1);
  {
    const YAML::Node kind = *r.scalar(root, "kind", "", true);
    if (kind.as<std::string>() != "cold_plate_cfd_spec")
      r.failAt(kind.Mark(), "kind", "expected 'cold_plate_cfd_spec'");
  }
  s.description = r.string(root, "description", "", "");

  const YAML::Node base = r.map(root, "base", "",
                                {"material", "thickness", "width", "conductivity_W_per_m_K",
                                 "density_kg_per_m3", "specific_heat_J_per_kg_K"},
                                true);
  s.material = r.string(base, "material", "base", s.material);
  s.base_thickness = r.quantity(base, "thickness", "base", core::Dimension::Length, 0, true);
  s.base_width = r.quantity(base, "width", "base", core::Dimension::Length, 0, true);
  s.conductivity = r.number(base, "conductivity_W_per_m_K", "base", 0, true);
  s.density = r.number(base, "density_kg_per_m3", "base", s.density, false);
  s.specific_heat = r.number(base, "specific_heat_J_per_kg_K", "base", s.specific_heat, false);

  const YAML::Node ch =
      r.map(root, "channels", "", {"count", "width", "height", "fin_thickness", "length"}, true);
  s.channel_count = r.integer(ch, "count", "channels", 0, true, -1000000, 100000);
  s.channel_width = r.quantity(ch, "width", "channels", core::Dimension::Length, 0, true);
  s.channel_height = r.quantity(ch, "height", "channels", core::Dimension::Length, 0, true);
  s.fin_thickness = r.quantity(ch, "fin_thickness", "channels", core::Dimension::Length, 0, true);
  s.length = r.quantity(ch, "length", "channels", core::Dimension::Length, 0, true);

  const YAML::Node heater = r.map(root, "heater", "", {"length", "width", "power"}, true);
  s.heater_length = r.quantity(heater, "length", "heater", core::Dimension::Length, 0, true);
  s.heater_width = r.quantity(heater, "width", "heater", core::Dimension::Length, 0, true);
  s.power = r.quantity(heater, "power", "heater", core::Dimension::Power, 0, true);

  if (const YAML::Node plenums = r.map(root, "plenums", "", {"length"}, false)) {
    s.plenum_length = r.quantity(plenums, "length", "plenums", core::Dimension::Length, 0, true);
  }
  const YAML::Node coolant = r.map(root, "coolant", "", {"fluid", "inlet_temperature"}, true);
  s.coolant = r.string(coolant, "fluid", "coolant", "water");
  s.T_inlet =
      r.quantity(coolant, "inlet_temperature", "coolant", core::Dimension::Temperature, 0, true);

  if (const YAML::Node model =
          r.map(root, "model", "",
                {"slice_channels", "cells_across_channel", "cells_across_fin", "cells_base",
                 "cells_height", "cells_along", "max_iterations", "residual_target"},
                false)) {
    s.slice_channels = r.integer(model, "slice_channels", "model", s.slice_channels, false, 1, 64);
    s.cells_across_channel =
        r.integer(model, "cells_across_channel", "model", s.cells_across_channel, false, 2, 200);
    s.cells_across_fin =
        r.integer(model, "cells_across_fin", "model", s.cells_across_fin, false, 1, 200);
    s.cells_base = r.integer(model, "cells_base", "model", s.cells_base, false, 1, 200);
    s.cells_height = r.integer(model, "cells_height", "model", s.cells_height, false, 2, 400);
    s.cells_along = r.integer(model, "cells_along", "model", s.cells_along, false, 4, 5000);
    s.max_iterations =
        r.integer(model, "max_iterations", "model", s.max_iterations, false, 10, 100000);
    s.residual_target = r.number(model, "residual_target", "model", s.residual_target, false);
    if (!(s.residual_target > 0.0 && s.residual_target < 1.0))
      r.fail("model.residual_target", "expected a number between 0 and 1");
  } else {
    s.slice_channels = std::min(s.slice_channels, std::max(1, s.channel_count));
  }
  check(s, [&r](const std::string& key, const std::string& message) { r.fail(key, message); });
  return s;
}

ColdPlateSpec readColdPlateSpec(const std::filesystem::path& file) {
  std::string text;
  try {
    text = readTextFile(file);
  } catch (const core::RuntimeError&) {
    throw core::InputError(core::SourceLocation{file.string(), 0, 0}, "",
                           "cannot read the cold-plate spec");
  }
  return parseColdPlateSpec(text, file.string());
}

void validate(const ColdPlateSpec& spec) {
  check(spec, [&spec](const std::string& key, const std::string& message) {
    throw core::InputError(core::SourceLocation{spec.file, 0, 0}, key, message);
  });
}

}  // namespace racktwin::cfd
