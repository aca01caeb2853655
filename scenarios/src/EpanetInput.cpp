#include "racktwin/scenarios/EpanetInput.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numbers>
#include <span>
#include <unordered_map>

#include "racktwin/core/Error.hpp"

namespace racktwin::scenarios {
namespace {

using Index = core::FlowNetwork::Index;
using thermal::LinkLaw;
using thermal::LinkStatus;
using thermal::ValveType;

// EPANET's conversion factors (src/types.h): results match EPANET's to its own digits.
constexpr double kCubicFoot = 0.028316846592;  // m3 per ft3
constexpr double kFoot = 0.3048;
constexpr double kPsiPerFoot = 0.4333;
constexpr double kKpaPerPsi = 6.895;
constexpr double kViscosity = 1.1e-5;      // ft2/s, water at 20 C
constexpr double kGravity = 32.2 * kFoot;  // EPANET's g (its D-W and minor-loss constants)

struct Token {
  std::string_view text;
  int column = 0;
};

// A line's tokens live in one flat vector for the whole file (no allocation per line).
struct Line {
  int number = 0;
  std::span<const Token> tokens;
  std::uint32_t first = 0;  // index of the first token in the flat vector while splitting
};

// The key of an error message ("[PIPES] P12"), put together only when reading fails.
struct Key {
  std::string_view prefix;
  std::string_view id;
  Key(const char* text) : prefix(text) {}         // NOLINT: implicit, like a string
  Key(const std::string& text) : prefix(text) {}  // NOLINT
  Key(std::string_view section, std::string_view name) : prefix(section), id(name) {}
  std::string str() const {
    std::string out(prefix);
    out += id;
    return out;
  }
};

// Id maps looked up with the std::string_view of a token, without a temporary string.
struct IdHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view id) const noexcept {
    return std::hash<std::string_view>{}(id);
  }
};
template <typename T>
using IdMap = std::unordered_map<std::string, T, IdHash, std::equal_to<>>;

enum class Section : std::uint8_t {
  Title,
  Junctions,
  Reservoirs,
  Tanks,
  Pipes,
  Pumps,
  Valves,
  Demands,
  Status,
  Patterns,
  Curves,
  Controls,
  Options,
  Times,
  Rules,
  Emitters,
  Skipped,
  Count
};

struct SectionName {
  const char* name;
  Section section;
};
constexpr std::array kSections{
    SectionName{"TITLE", Section::Title},           SectionName{"JUNCTIONS", Section::Junctions},
    SectionName{"RESERVOIRS", Section::Reservoirs}, SectionName{"TANKS", Section::Tanks},
    SectionName{"PIPES", Section::Pipes},           SectionName{"PUMPS", Section::Pumps},
    SectionName{"VALVES", Section::Valves},         SectionName{"DEMANDS", Section::Demands},
    SectionName{"STATUS", Section::Status},         SectionName{"PATTERNS", Section::Patterns},
    SectionName{"CURVES", Section::Curves},         SectionName{"CONTROLS", Section::Controls},
    SectionName{"OPTIONS", Section::Options},       SectionName{"TIMES", Section::Times},
    SectionName{"RULES", Section::Rules},           SectionName{"EMITTERS", Section::Emitters},
    SectionName{"ENERGY", Section::Skipped},        SectionName{"QUALITY", Section::Skipped},
    SectionName{"REACTIONS", Section::Skipped},     SectionName{"SOURCES", Section::Skipped},
    SectionName{"MIXING", Section::Skipped},        SectionName{"REPORT", Section::Skipped},
    SectionName{"COORDINATES", Section::Skipped},   SectionName{"VERTICES", Section::Skipped},
    SectionName{"LABELS", Section::Skipped},        SectionName{"BACKDROP", Section::Skipped},
    SectionName{"TAGS", Section::Skipped},          SectionName{"LEAKAGE", Section::Skipped},
};

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// std::isspace in the C locale, inlined: it is called for every character of the file.
constexpr bool blank(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

bool is(const Token& token, const char* keyword) {
  const std::string_view k(keyword);
  if (token.text.size() < k.size()) return false;
  // EPANET matches keywords on their leading characters, case-insensitively.
  for (std::size_t i = 0; i < k.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(token.text[i])) != k[i]) return false;
  }
  return true;
}

class Reader {
 public:
  explicit Reader(const std::string& path) { model_.path = path; }

  EpanetModel read();
  EpanetModel parse(const std::string& text);

 private:
  [[noreturn]] void fail(const Line& line, std::size_t token, const Key& key,
                         const std::string& message) const {
    const int column = token < line.tokens.size() ? line.tokens[token].column : 0;
    throw core::InputError({model_.path, line.number, column}, key.str(), message);
  }
  double number(const Line& line, std::size_t token, const Key& key) const {
    if (token >= line.tokens.size()) fail(line, token, key, "missing value");
    const std::string_view text = line.tokens[token].text;
    double value = 0.0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
      fail(line, token, key, core::quoteForMessage(text) + " is not a number");
    }
    return value;
  }
  /// A count (TRIALS, CHECKFREQ, ...): truncated to a whole number as EPANET does, and refused
  /// outside [lo, kMaxCount], where converting it to int or adding two of them would overflow.
  int wholeCount(const Line& line, std::size_t token, const Key& key, int lo) const {
    constexpr int kMaxCount = 10'000'000;
    const double value = std::trunc(number(line, token, key));
    if (!(value >= lo && value <= kMaxCount)) {
      fail(
          line, token, key,
          "must be a whole number from " + std::to_string(lo) + " to " + std::to_string(kMaxCount));
    }
    return static_cast<int>(value);
  }
  void need(const Line& line, std::size_t count, const Key& key) const {
    if (line.tokens.size() < count) {
      fail(line, line.tokens.size(), key,
           "expected at least " + std::to_string(count) + " fields, found "
               + std::to_string(line.tokens.size()));
    }
  }
  Index node(const Line& line, std::size_t token, const Key& key) const {
    if (token >= line.tokens.size()) fail(line, token, key, "missing node id");
    const std::string_view id = line.tokens[token].text;
    const auto it = node_index_.find(id);
    if (it == node_index_.end())
      fail(line, token, key, "node '" + std::string(id) + "' is not defined");
    return it->second;
  }
  Index link(const Line& line, std::size_t token, const Key& key) const {
    if (token >= line.tokens.size()) fail(line, token, key, "missing link id");
    const std::string_view id = line.tokens[token].text;
    const auto it = link_index_.find(id);
    if (it == link_index_.end())
      fail(line, token, key, "link '" + std::string(id) + "' is not defined");
    return it->second;
  }
  int pattern(const Line& line, std::size_t token, const Key& key) const {
    if (token >= line.tokens.size()) fail(line, token, key, "missing pattern id");
    const std::string_view id = line.tokens[token].text;
    const auto it = pattern_index_.find(id);
    if (it == pattern_index_.end())
      fail(line, token, key, "pattern '" + std::string(id) + "' is not defined");
    return it->second;
  }
  double seconds(const Line& line, std::size_t token, const Key& key) const;

  void split(const std::string& text);
  void readOptions();
  void readTimes();
  void readPatterns();
  void readCurves();
  void readNodes();
  void readLinks();
  void readDemands();
  void readStatus();
  void readControls();
  Index addNode(const Line& line, EpanetNode node);
  Index addLink(const Line& line, Index a, Index b, EpanetLink link, LinkLaw law);
  void applyStatus(Index link, const Line& line, std::size_t token, const Key& key,
                   std::optional<LinkStatus>* status, std::optional<double>* setting) const;

  double flow(double file_value) const { return file_value / flow_factor_ * kCubicFoot; }
  double length(double file_value) const { return file_value * model_.units.length_m; }
  double dpOfHead(double head_m) const { return rho_g_ * head_m; }

  EpanetModel model_;
  std::array<std::vector<Line>, static_cast<std::size_t>(Section::Count)> lines_;
  std::vector<Token> tokens_;  // every line's tokens, in file order
  IdMap<Index> node_index_, link_index_;
  IdMap<int> pattern_index_;
  struct Curve {
    std::vector<double> x, y;
    int line = 0;
  };
  IdMap<Curve> curves_;
  double flow_factor_ = 448.831;  // file flow units per cfs
  bool hazen_williams_ = true;
  double rho_g_ = 0.0;
  std::string default_pattern_ = "1";
};

void Reader::split(const std::string& text) {
  Section section = Section::Skipped;
  bool in_section = false;
  int number = 0;
  std::size_t begin = 0;
  // Counting lines first lets every container be sized once.
  const auto line_count = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  tokens_.reserve(text.size() / 4 + 16);  // a token and its separator take 4 bytes or more
  while (begin <= text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    ++number;
    std::string_view raw(text.data() + begin, end - begin);
    begin = end + 1;
    const std::size_t comment = raw.find(';');
    if (comment != std::string_view::npos) raw = raw.substr(0, comment);
    Line line;
    line.number = number;
    line.first = static_cast<std::uint32_t>(tokens_.size());
    for (std::size_t i = 0; i < raw.size();) {
      while (i < raw.size() && blank(raw[i]))
        ++i;
      if (i >= raw.size()) break;
      std::size_t j = i;
      if (raw[i] == '"') {  // quoted ids may contain spaces
        j = raw.find('"', i + 1);
        if (j == std::string_view::npos) j = raw.size();
        tokens_.push_back({raw.substr(i + 1, j - i - 1), static_cast<int>(i + 1)});
        i = j + 1;
        continue;
      }
      while (j < raw.size() && !blank(raw[j]))
        ++j;
      tokens_.push_back({raw.substr(i, j - i), static_cast<int>(i + 1)});
      i = j;
    }
    if (tokens_.size() == line.first) continue;
    const Token& head = tokens_[line.first];
    if (head.text.front() == '[') {
      const std::string name = upper(head.text);
      if (name == "[END]") break;
      const auto it = std::find_if(kSections.begin(), kSections.end(), [&](const SectionName& s) {
        return name == std::string("[") + s.name + "]";
      });
      if (it == kSections.end()) {
        throw core::InputError({model_.path, number, head.column}, name, "unknown section keyword");
      }
      section = it->section;
      in_section = true;
      if (section == Section::Junctions || section == Section::Pipes) {
        lines_[static_cast<std::size_t>(section)].reserve(line_count / 2);
      }
      tokens_.resize(line.first);
      continue;
    }
    if (!in_section) {
      throw core::InputError({model_.path, number, head.column}, "section",
                             "data before the first [SECTION] keyword");
    }
    if (section == Section::Skipped) {  // coordinates, labels, ...: nothing is read from them
      tokens_.resize(line.first);
      continue;
    }
    line.tokens = std::span<const Token>(&head, tokens_.size() - line.first);  // count for now
    lines_[static_cast<std::size_t>(section)].push_back(line);
  }
  // The token vector no longer grows: point every line at its tokens.
  for (auto& lines : lines_) {
    for (Line& line : lines)
      line.tokens = std::span<const Token>(tokens_.data() + line.first, line.tokens.size());
  }
}

// EPANET's time format: hours as a decimal or hh:mm[:ss], optionally followed by a unit.
double Reader::seconds(const Line& line, std::size_t token, const Key& key) const {
  if (token >= line.tokens.size()) fail(line, token, key, "missing time");
  const std::string_view text = line.tokens[token].text;
  double value = 0.0;
  if (text.find(':') != std::string_view::npos) {
    double parts[3] = {0.0, 0.0, 0.0};
    int count = 0;
    std::size_t start = 0;
    while (start <= text.size() && count < 3) {
      std::size_t colon = text.find(':', start);
      if (colon == std::string_view::npos) colon = text.size();
      const std::string_view part = text.substr(start, colon - start);
      const auto [end, error] =
          std::from_chars(part.data(), part.data() + part.size(), parts[count]);
      if (error != std::errc() || end != part.data() + part.size()) {
        fail(line, token, key, core::quoteForMessage(text) + " is not a time");
      }
      ++count;
      start = colon + 1;
    }
    value = parts[0] * 3600.0 + parts[1] * 60.0 + parts[2];
  } else {
    value = number(line, token, key) * 3600.0;
  }
  if (token + 1 < line.tokens.size()) {
    const Token& unit = line.tokens[token + 1];
    if (is(unit, "SEC"))
      value /= 3600.0;
    else if (is(unit, "MIN"))
      value /= 60.0;
    else if (is(unit, "DAY"))
      value *= 24.0;
    else if (is(unit, "PM"))
      value = std::fmod(value, 12.0 * 3600.0) + 12.0 * 3600.0;
    else if (is(unit, "AM"))
      value = std::fmod(value, 12.0 * 3600.0);
  }
  if (value < 0.0) fail(line, token, key, "negative time");
  return value;
}

void Reader::readOptions() {
  std::string units = "GPM";
  std::string pressure;
  double viscosity = -1.0;
  const std::string section = "[OPTIONS]";
  for (const Line& line : lines_[static_cast<std::size_t>(Section::Options)]) {
    const Token& k = line.tokens[0];
    const std::string key = section + " " + upper(k.text);
    auto value = [&](std::size_t i) -> const Token& {
      if (i >= line.tokens.size()) fail(line, i, key, "missing value");
      return line.tokens[i];
    };
    if (is(k, "UNITS")) {
      units = upper(value(1).text);
    } else if (is(k, "HEADLOSS")) {
      const std::string h = upper(value(1).text);
      if (h == "H-W")
        hazen_williams_ = true;
      else if (h == "D-W")
        hazen_williams_ = false;
      else if (h == "C-M")
        fail(line, 1, key, "Chezy-Manning head loss is not supported");
      else
        fail(line, 1, key, "unknown head-loss formula '" + h + "' (H-W, D-W)");
    } else if (is(k, "PRESSURE") && line.tokens.size() == 2
               && !std::isdigit(static_cast<unsigned char>(line.tokens[1].text.front()))) {
      pressure = upper(value(1).text);
    } else if (is(k, "SPECIFIC")) {
      model_.specific_gravity = number(line, 2, key);
      if (!(model_.specific_gravity > 0.0)) fail(line, 2, key, "must be positive");
      model_.viscosity_given = true;
    } else if (is(k, "VISCOSITY")) {
      viscosity = number(line, 1, key);
      if (!(viscosity > 0.0)) fail(line, 1, key, "must be positive");
      model_.viscosity_given = true;
    } else if (is(k, "TRIALS")) {
      model_.trials = wholeCount(line, 1, key, 1);
    } else if (is(k, "ACCURACY")) {
      model_.accuracy = number(line, 1, key);
      if (!(model_.accuracy > 0.0)) fail(line, 1, key, "must be positive");
    } else if (is(k, "CHECKFREQ")) {
      model_.solver_options.check_frequency = wholeCount(line, 1, key, 0);
    } else if (is(k, "MAXCHECK")) {
      model_.solver_options.max_check = wholeCount(line, 1, key, 0);
    } else if (is(k, "DAMPLIMIT")) {
      model_.solver_options.damp_limit = number(line, 1, key);
    } else if (is(k, "UNBALANCED")) {
      if (is(value(1), "CONTINUE") && line.tokens.size() > 2) {
        model_.solver_options.extra_iterations = wholeCount(line, 2, key, 0);
      }
    } else if (is(k, "PATTERN")) {
      default_pattern_ = std::string(value(1).text);
    } else if (is(k, "DEMAND")) {
      if (is(value(1), "MULTIPLIER")) {
        model_.demand_multiplier = number(line, 2, key);
      } else if (is(value(1), "MODEL")) {
        if (!is(value(2), "DDA")) {
          fail(line, 2, key, "pressure-driven demand is not supported (only DDA)");
        }
      }
    } else if (is(k, "HEADERROR") || is(k, "FLOWCHANGE")) {
      if (number(line, 1, key) != 0.0) {
        model_.warnings.push_back(key + " is ignored: convergence uses ACCURACY only");
      }
    }
    // QUALITY, DIFFUSIVITY, TOLERANCE, EMITTER EXPONENT, MAP, HYDRAULICS and the pressure-driven
    // demand limits do not change a demand-driven hydraulic solve.
  }
  EpanetUnits& u = model_.units;
  static const std::array<std::pair<const char*, double>, 10> kFlows{{{"CFS", 1.0},
                                                                      {"GPM", 448.831},
                                                                      {"MGD", 0.64632},
                                                                      {"IMGD", 0.5382},
                                                                      {"AFD", 1.9837},
                                                                      {"LPS", 28.317},
                                                                      {"LPM", 1699.0},
                                                                      {"MLD", 2.4466},
                                                                      {"CMH", 101.94},
                                                                      {"CMD", 2446.6}}};
  const auto found =
      std::find_if(kFlows.begin(), kFlows.end(), [&](const auto& f) { return units == f.first; });
  if (found == kFlows.end()) {
    throw core::InputError({model_.path, 0, 0}, "[OPTIONS] UNITS",
                           "unknown flow units " + core::quoteForMessage(units));
  }
  u.flow = found->first;
  flow_factor_ = found->second;
  u.si = found - kFlows.begin() >= 5;
  u.flow_per_m3s = flow_factor_ / kCubicFoot;
  u.length_m = u.si ? 1.0 : kFoot;
  const double sg = model_.specific_gravity;
  if (!u.si) {
    u.pressure = "psi";
    u.pressure_per_head = kPsiPerFoot * sg;
  } else if (pressure == "KPA") {
    u.pressure = "kPa";
    u.pressure_per_head = kKpaPerPsi * kPsiPerFoot * sg / kFoot;
  } else {
    u.pressure = "m";
    u.pressure_per_head = sg;
  }
  // Kinematic viscosity: EPANET reads a multiplier of water's when above 1e-3, else the value.
  double nu = kViscosity * kFoot * kFoot;
  if (viscosity > 1e-3)
    nu *= viscosity;
  else if (viscosity > 0.0)
    nu = u.si ? viscosity : viscosity * kFoot * kFoot;
  model_.fluid.rho = 1000.0 * sg;
  model_.fluid.mu = nu * model_.fluid.rho;
  model_.fluid.g = kGravity;
  rho_g_ = model_.fluid.rho * model_.fluid.g;
}

void Reader::readTimes() {
  const std::string section = "[TIMES]";
  for (const Line& line : lines_[static_cast<std::size_t>(Section::Times)]) {
    const Token& k = line.tokens[0];
    const std::string key = section + " " + upper(k.text);
    if (is(k, "DURATION")) {
      model_.duration = seconds(line, 1, key);
    } else if (is(k, "PATTERN") && line.tokens.size() > 1) {
      if (is(line.tokens[1], "TIMESTEP")) {
        model_.pattern_step = seconds(line, 2, key + " TIMESTEP");
        if (!(model_.pattern_step > 0.0)) fail(line, 2, key, "must be positive");
      } else if (is(line.tokens[1], "START")) {
        model_.pattern_start = seconds(line, 2, key + " START");
      }
    } else if (is(k, "HYDRAULIC") && line.tokens.size() > 1 && is(line.tokens[1], "TIMESTEP")) {
      model_.hydraulic_step = seconds(line, 2, key + " TIMESTEP");
      if (!(model_.hydraulic_step > 0.0)) fail(line, 2, key, "must be positive");
    } else if (is(k, "START") && line.tokens.size() > 1 && is(line.tokens[1], "CLOCKTIME")) {
      model_.start_clocktime = seconds(line, 2, key + " CLOCKTIME");
    }
  }
}

void Reader::readPatterns() {
  for (const Line& line : lines_[static_cast<std::size_t>(Section::Patterns)]) {
    const std::string id(line.tokens[0].text);
    auto it = pattern_index_.find(id);
    if (it == pattern_index_.end()) {
      it = pattern_index_.emplace(id, static_cast<int>(model_.patterns.size())).first;
      model_.pattern_ids.push_back(id);
      model_.patterns.emplace_back();
    }
    std::vector<double>& factors = model_.patterns[static_cast<std::size_t>(it->second)];
    for (std::size_t i = 1; i < line.tokens.size(); ++i)
      factors.push_back(number(line, i, Key("[PATTERNS] ", id)));
  }
}

void Reader::readCurves() {
  for (const Line& line : lines_[static_cast<std::size_t>(Section::Curves)]) {
    const std::string id(line.tokens[0].text);
    const Key key("[CURVES] ", id);
    need(line, 3, key);
    Curve& curve = curves_[id];
    if (curve.line == 0) curve.line = line.number;
    curve.x.push_back(number(line, 1, key));
    curve.y.push_back(number(line, 2, key));
  }
}

Index Reader::addNode(const Line& line, EpanetNode node) {
  const std::string& id = node.id;
  const auto n = static_cast<Index>(model_.network.nodeCount());
  if (!node_index_.emplace(id, n).second) {
    fail(line, 0, "node " + id, "node '" + id + "' defined twice");
  }
  node.line = line.number;
  model_.network.addNode(id);
  model_.nodes.push_back(std::move(node));
  return n;
}

void Reader::readNodes() {
  const std::size_t node_count = lines_[static_cast<std::size_t>(Section::Junctions)].size()
                                 + lines_[static_cast<std::size_t>(Section::Reservoirs)].size()
                                 + lines_[static_cast<std::size_t>(Section::Tanks)].size();
  model_.nodes.reserve(node_count);
  node_index_.reserve(node_count);
  for (const Line& line : lines_[static_cast<std::size_t>(Section::Junctions)]) {
    const Key key("[JUNCTIONS] ", line.tokens[0].text);
    need(line, 2, key);
    EpanetNode node;
    node.id = std::string(line.tokens[0].text);
    node.elevation = length(number(line, 1, key));
    if (line.tokens.size() > 2) {
      EpanetNode::Demand demand;
      demand.line = line.number;
      demand.base = flow(number(line, 2, key));
      if (line.tokens.size() > 3) demand.pattern = pattern(line, 3, key);
      node.demands.push_back(demand);
    }
    addNode(line, std::move(node));
  }
  // Reservoirs and tanks in the order of the file, after the junctions (EPANET's order).
  std::vector<std::pair<const Line*, bool>> fixed;
  for (const Line& line : lines_[static_cast<std::size_t>(Section::Reservoirs)])
    fixed.emplace_back(&line, false);
  for (const Line& line : lines_[static_cast<std::size_t>(Section::Tanks)])
    fixed.emplace_back(&line, true);
  std::stable_sort(fixed.begin(), fixed.end(),
                   [](const auto& x, const auto& y) { return x.first->number < y.first->number; });
  for (const auto& [line_ptr, tank] : fixed) {
    const Line& line = *line_ptr;
    EpanetNode node;
    node.id = std::string(line.tokens[0].text);
    if (!tank) {
      const Key key("[RESERVOIRS] ", node.id);
      need(line, 2, key);
      node.kind = EpanetNode::Kind::Reservoir;
      node.elevation = length(number(line, 1, key));
      if (line.tokens.size() > 2) node.head_pattern = pattern(line, 2, key);
    } else {
      const Key key("[TANKS] ", node.id);
      need(line, 6, key);
      node.kind = EpanetNode::Kind::Tank;
      node.elevation = length(number(line, 1, key));
      node.level = length(number(line, 2, key));
      node.level_min = length(number(line, 3, key));
      node.level_max = length(number(line, 4, key));
      if (node.level < node.level_min || node.level > node.level_max) {
        fail(line, 2, key, "the initial level lies outside the minimum and maximum levels");
      }
      const double diameter = length(number(line, 5, key));
      if (!(diameter > 0.0)) fail(line, 5, key, "the tank diameter must be positive");
      node.area = 0.25 * std::numbers::pi * diameter * diameter;
      node.volume_curve = line.tokens.size() > 7 && line.tokens[7].text != "*";
    }
    addNode(line, std::move(node));
  }
  if (fixed.empty()) {
    throw core::InputError({model_.path, 0, 0}, "[RESERVOIRS]",
                           "the network has no reservoir or tank (a fixed head is needed)");
  }
}

Index Reader::addLink(const Line& line, Index a, Index b, EpanetLink link, LinkLaw law) {
  const std::string& id = link.id;
  if (link_index_.find(id) != link_index_.end()) {
    fail(line, 0, "link " + id, "link '" + id + "' defined twice");
  }
  if (a == b) fail(line, 2, "link " + id, "the link starts and ends at the same node");
  const Index l = model_.network.addLink(id, a, b);
  link_index_.emplace(id, l);
  link.line = line.number;
  model_.links.push_back(std::move(link));
  model_.laws.push_back(std::move(law));
  return l;
}

void Reader::readLinks() {
  struct Entry {
    const Line* line;
    Section section;
  };
  std::vector<Entry> entries;
  for (Section s : {Section::Pipes, Section::Pumps, Section::Valves}) {
    for (const Line& line : lines_[static_cast<std::size_t>(s)])
      entries.push_back({&line, s});
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& x, const Entry& y) { return x.line->number < y.line->number; });
  const double diameter_m = model_.units.si ? 1e-3 : kFoot / 12.0;  // mm or inches
  model_.links.reserve(entries.size());
  model_.laws.reserve(entries.size());
  link_index_.reserve(entries.size());
  for (const Entry& entry : entries) {
    const Line& line = *entry.line;
    EpanetLink link;
    link.id = std::string(line.tokens[0].text);
    if (entry.section == Section::Pipes) {
      const Key key("[PIPES] ", link.id);
      need(line, 6, key);
      const Index a = node(line, 1, key), b = node(line, 2, key);
      core::PipeSpec pipe;
      pipe.length = length(number(line, 3, key));
      pipe.diameter = number(line, 4, key) * diameter_m;
      const double roughness = number(line, 5, key);
      if (!(pipe.length > 0.0)) fail(line, 3, key, "the length must be positive");
      if (!(pipe.diameter > 0.0)) fail(line, 4, key, "the diameter must be positive");
      if (!(roughness > 0.0) && hazen_williams_) fail(line, 5, key, "roughness must be positive");
      LinkLaw law;
      if (hazen_williams_) {
        law = LinkLaw::makeHazenWilliams(pipe, roughness);
      } else {
        // D-W roughness in millifeet (US) or millimetres (SI).
        pipe.roughness = roughness * 1e-3 * model_.units.length_m;
        law = LinkLaw::makePipe(pipe);
        law.friction = LinkLaw::Friction::Epanet;
      }
      if (line.tokens.size() > 6) law.minor_loss = number(line, 6, key);
      if (line.tokens.size() > 7) {
        const Token& status = line.tokens[7];
        if (is(status, "CLOSED"))
          law.status = LinkStatus::Closed;
        else if (is(status, "CV"))
          law.check_valve = true;
        else if (!is(status, "OPEN"))
          fail(line, 7, key, "status must be OPEN, CLOSED or CV");
      }
      link.kind = EpanetLink::Kind::Pipe;
      addLink(line, a, b, std::move(link), std::move(law));
    } else if (entry.section == Section::Pumps) {
      const Key key("[PUMPS] ", link.id);
      need(line, 5, key);
      const Index a = node(line, 1, key), b = node(line, 2, key);
      std::optional<thermal::PumpCurve> curve;
      double speed = 1.0;
      for (std::size_t i = 3; i + 1 < line.tokens.size() + 1; i += 2) {
        if (i + 1 >= line.tokens.size()) fail(line, i, key, "keyword without a value");
        const Token& k = line.tokens[i];
        if (is(k, "HEAD")) {
          const std::string id(line.tokens[i + 1].text);
          const auto it = curves_.find(id);
          if (it == curves_.end()) fail(line, i + 1, key, "curve '" + id + "' is not defined");
          const Curve& c = it->second;
          std::vector<double> V, dp;
          for (std::size_t j = 0; j < c.x.size(); ++j) {
            V.push_back(flow(c.x[j]));
            dp.push_back(dpOfHead(length(c.y[j])));
          }
          // EPANET's pump curve forms (src/validate.c).
          if (V.size() == 1)
            curve = thermal::PumpCurve::fromOnePoint(V[0], dp[0]);
          else if (V.size() == 3 && c.x[0] == 0.0)
            curve = thermal::PumpCurve::fromThreePoints(dp[0], V[1], dp[1], V[2], dp[2]);
          else
            curve = thermal::PumpCurve::fromTable(V, dp);
          if (!curve) {
            fail(line, i + 1, key,
                 "curve '" + id + "' is not a valid pump curve (EPANET error 227)");
          }
        } else if (is(k, "SPEED")) {
          speed = number(line, i + 1, key);
          if (speed < 0.0) fail(line, i + 1, key, "the speed must not be negative");
        } else if (is(k, "PATTERN")) {
          link.speed_pattern = pattern(line, i + 1, key);
        } else if (is(k, "POWER")) {
          fail(line, i, key, "constant-power pumps are not supported: give a HEAD curve");
        } else {
          fail(line, i, key, "unknown pump keyword " + core::quoteForMessage(k.text));
        }
      }
      if (!curve) fail(line, 3, key, "the pump has no HEAD curve");
      LinkLaw law = LinkLaw::makePump(*curve, speed);
      if (speed == 0.0) law.status = LinkStatus::Closed;
      link.kind = EpanetLink::Kind::Pump;
      addLink(line, a, b, std::move(link), std::move(law));
    } else {
      const Key key("[VALVES] ", link.id);
      need(line, 6, key);
      const Index a = node(line, 1, key), b = node(line, 2, key);
      thermal::ValveSpec valve;
      valve.diameter = number(line, 3, key) * diameter_m;
      if (!(valve.diameter > 0.0)) fail(line, 3, key, "the diameter must be positive");
      const std::string type = upper(line.tokens[4].text);
      static const std::array<std::pair<const char*, ValveType>, 6> kTypes{
          {{"PRV", ValveType::PRV},
           {"PSV", ValveType::PSV},
           {"PBV", ValveType::PBV},
           {"FCV", ValveType::FCV},
           {"TCV", ValveType::TCV},
           {"GPV", ValveType::GPV}}};
      const auto t = std::find_if(kTypes.begin(), kTypes.end(),
                                  [&](const auto& x) { return type == x.first; });
      if (t == kTypes.end()) {
        fail(line, 4, key, "valve type '" + type + "' is not supported (PRV PSV PBV FCV TCV GPV)");
      }
      valve.type = t->second;
      if (line.tokens.size() > 6) valve.minor_loss = number(line, 6, key);
      const bool pressure_or_flow = valve.type == ValveType::PRV || valve.type == ValveType::PSV
                                    || valve.type == ValveType::FCV;
      if (pressure_or_flow
          && (model_.nodes[a].kind != EpanetNode::Kind::Junction
              || model_.nodes[b].kind != EpanetNode::Kind::Junction)) {
        fail(line, 1, key, "a " + type + " cannot be connected to a reservoir or tank");
      }
      LinkLaw law = LinkLaw::makeValve(valve);
      link.kind = EpanetLink::Kind::Valve;
      const Index l = addLink(line, a, b, std::move(link), std::move(law));
      if (valve.type == ValveType::GPV) {
        const std::string id(line.tokens[5].text);
        const auto it = curves_.find(id);
        if (it == curves_.end()) fail(line, 5, key, "curve '" + id + "' is not defined");
        thermal::ValveSpec& v = model_.laws[l].valve;
        for (std::size_t j = 0; j < it->second.x.size(); ++j) {
          if (j > 0 && !(it->second.x[j] > it->second.x[j - 1])) {
            fail(line, 5, key, "curve '" + id + "' must have increasing flows");
          }
          v.V_flow.push_back(flow(it->second.x[j]));
          v.dp.push_back(dpOfHead(length(it->second.y[j])));
        }
        if (v.V_flow.size() < 2) fail(line, 5, key, "a GPV curve needs at least two points");
      } else {
        std::optional<LinkStatus> status;
        std::optional<double> setting;
        applyStatus(l, line, 5, key, &status, &setting);
        model_.laws[l].valve.setting = *setting;
      }
    }
  }
}

// Reads OPEN, CLOSED or a setting for link l and converts a setting to SI.
void Reader::applyStatus(Index l, const Line& line, std::size_t token, const Key& key,
                         std::optional<LinkStatus>* status, std::optional<double>* setting) const {
  if (token >= line.tokens.size()) fail(line, token, key, "missing status or setting");
  const Token& t = line.tokens[token];
  if (is(t, "OPEN")) {
    *status = LinkStatus::Open;
    return;
  }
  if (is(t, "CLOSED")) {
    *status = LinkStatus::Closed;
    return;
  }
  const double value = number(line, token, key);
  const EpanetLink& link = model_.links[l];
  if (link.kind == EpanetLink::Kind::Pipe) fail(line, token, key, "a pipe takes OPEN or CLOSED");
  if (link.kind == EpanetLink::Kind::Pump) {
    if (value < 0.0) fail(line, token, key, "the speed must not be negative");
    *setting = value;
    return;
  }
  const LinkLaw& law = model_.laws[l];
  const double head_of_pressure = model_.units.length_m / model_.units.pressure_per_head;
  switch (law.valve.type) {
    case ValveType::PRV:
      *setting =
          dpOfHead(model_.nodes[model_.network.portB(l)].elevation + value * head_of_pressure);
      break;
    case ValveType::PSV:
      *setting =
          dpOfHead(model_.nodes[model_.network.portA(l)].elevation + value * head_of_pressure);
      break;
    case ValveType::PBV:
      *setting = dpOfHead(value * head_of_pressure);
      break;
    case ValveType::FCV:
      *setting = flow(value);
      break;
    case ValveType::TCV:
      *setting = value;
      break;
    case ValveType::GPV:
      fail(line, token, key, "a GPV takes OPEN or CLOSED");
  }
}

void Reader::readDemands() {
  std::vector<std::uint8_t> replaced(model_.nodes.size(), 0);
  for (const Line& line : lines_[static_cast<std::size_t>(Section::Demands)]) {
    const Key key("[DEMANDS] ", line.tokens[0].text);
    need(line, 2, key);
    const Index n = node(line, 0, key);
    EpanetNode& node = model_.nodes[n];
    if (node.kind != EpanetNode::Kind::Junction) fail(line, 0, key, "demands belong to junctions");
    // The first [DEMANDS] entry replaces the demand given in [JUNCTIONS] (EPANET 2.2).
    if (replaced[n] == 0) {
      node.demands.clear();
      replaced[n] = 1;
    }
    EpanetNode::Demand demand;
    demand.line = line.number;
    demand.base = flow(number(line, 1, key));
    if (line.tokens.size() > 2) demand.pattern = pattern(line, 2, key);
    node.demands.push_back(demand);
  }
  // Demands without a pattern follow the default pattern when it exists.
  const auto def = pattern_index_.find(default_pattern_);
  if (def == pattern_index_.end()) return;
  for (EpanetNode& node : model_.nodes) {
    for (EpanetNode::Demand& demand : node.demands) {
      if (demand.pattern < 0) demand.pattern = def->second;
    }
  }
}

void Reader::readStatus() {
  for (const Line& line : lines_[static_cast<std::size_t>(Section::Status)]) {
    const Key key("[STATUS] ", line.tokens[0].text);
    need(line, 2, key);
    const Index l = link(line, 0, key);
    std::optional<LinkStatus> status;
    std::optional<double> setting;
    applyStatus(l, line, 1, key, &status, &setting);
    LinkLaw& law = model_.laws[l];
    if (model_.links[l].kind == EpanetLink::Kind::Valve && law.valve.type == ValveType::GPV
        && status) {
      law.status = *status == LinkStatus::Closed ? LinkStatus::Closed : LinkStatus::Active;
      continue;
    }
    if (status) {
      law.status = *status;
      if (law.kind == LinkLaw::Kind::Pump && *status == LinkStatus::Open) law.pump.speed = 1.0;
    } else if (law.kind == LinkLaw::Kind::Pump) {
      law.pump.speed = *setting;
      law.status = *setting == 0.0 ? LinkStatus::Closed : LinkStatus::Open;
    } else {
      law.valve.setting = *setting;
      law.status = LinkStatus::Active;
    }
  }
}

void Reader::readControls() {
  for (const Line& line : lines_[static_cast<std::size_t>(Section::Controls)]) {
    const Key key("[CONTROLS]");
    need(line, 4, key);
    if (!is(line.tokens[0], "LINK")) fail(line, 0, key, "a control starts with LINK");
    EpanetControl control;
    control.line = line.number;
    control.link = link(line, 1, key);
    applyStatus(control.link, line, 2, key, &control.status, &control.setting);
    const Token& when = line.tokens[3];
    if (is(when, "AT")) {
      need(line, 6, key);
      if (is(line.tokens[4], "TIME")) {
        control.kind = EpanetControl::Kind::Timer;
      } else if (is(line.tokens[4], "CLOCKTIME")) {
        control.kind = EpanetControl::Kind::ClockTime;
      } else {
        fail(line, 4, key, "expected TIME or CLOCKTIME");
      }
      control.time = seconds(line, 5, key);
    } else if (is(when, "IF")) {
      need(line, 8, key);
      if (!is(line.tokens[4], "NODE")) fail(line, 4, key, "expected NODE");
      control.node = node(line, 5, key);
      if (is(line.tokens[6], "ABOVE"))
        control.kind = EpanetControl::Kind::Above;
      else if (is(line.tokens[6], "BELOW"))
        control.kind = EpanetControl::Kind::Below;
      else
        fail(line, 6, key, "expected ABOVE or BELOW");
      const double level = number(line, 7, key);
      const EpanetNode& n = model_.nodes[control.node];
      // A tank's level is a height; a junction's is a pressure (EPANET).
      control.grade = n.elevation
                      + (n.kind == EpanetNode::Kind::Junction
                             ? level * model_.units.length_m / model_.units.pressure_per_head
                             : length(level));
    } else {
      fail(line, 3, key, "expected AT or IF");
    }
    model_.controls.push_back(control);
  }
}

EpanetModel Reader::read() {
  std::error_code error;
  if (std::filesystem::is_directory(model_.path, error)) {
    throw core::InputError({model_.path, 0, 0}, "file", "is a directory, not an EPANET .inp file");
  }
  std::ifstream in(model_.path, std::ios::binary);
  if (!in) throw core::InputError({model_.path, 0, 0}, "file", "cannot open the file");
  in.seekg(0, std::ios::end);
  std::string text(static_cast<std::size_t>(std::max<std::streamoff>(in.tellg(), 0)), '\0');
  in.seekg(0, std::ios::beg);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  return parse(text);
}

EpanetModel Reader::parse(const std::string& text) {
  split(text);
  for (const Line& line : lines_[static_cast<std::size_t>(Section::Title)]) {
    if (!model_.title.empty()) break;
    model_.title = std::string(line.tokens.front().text.data(),
                               line.tokens.back().text.data() + line.tokens.back().text.size()
                                   - line.tokens.front().text.data());
  }
  if (!lines_[static_cast<std::size_t>(Section::Rules)].empty()) {
    model_.warnings.push_back("[RULES]: rule-based controls are ignored");
    model_.rules_line = lines_[static_cast<std::size_t>(Section::Rules)].front().number;
  }
  if (!lines_[static_cast<std::size_t>(Section::Emitters)].empty()) {
    model_.warnings.push_back("[EMITTERS]: emitters are ignored");
    model_.emitters_line = lines_[static_cast<std::size_t>(Section::Emitters)].front().number;
  }
  readOptions();
  readTimes();
  readPatterns();
  readCurves();
  readNodes();
  readLinks();
  readDemands();
  readStatus();
  readControls();
  // Tokens point into `text`: nothing below may keep them.
  for (auto& lines : lines_)
    lines.clear();
  return std::move(model_);
}

double patternFactor(const EpanetModel& model, int pattern, double time) {
  if (pattern < 0) return 1.0;
  const std::vector<double>& factors = model.patterns[static_cast<std::size_t>(pattern)];
  if (factors.empty()) return 1.0;
  const auto period =
      static_cast<long long>(std::floor((time + model.pattern_start) / model.pattern_step));
  return factors[static_cast<std::size_t>(period % static_cast<long long>(factors.size()))];
}

void applyControl(const EpanetControl& control, LinkLaw& law) {
  if (control.status) {
    if (law.kind == LinkLaw::Kind::Valve && law.valve.type == ValveType::GPV) {
      law.status = *control.status == LinkStatus::Closed ? LinkStatus::Closed : LinkStatus::Active;
      return;
    }
    law.status = *control.status;
    if (law.kind == LinkLaw::Kind::Pump && *control.status == LinkStatus::Open)
      law.pump.speed = 1.0;
    return;
  }
  if (law.kind == LinkLaw::Kind::Pump) {
    law.pump.speed = *control.setting;
    law.status = *control.setting == 0.0 ? LinkStatus::Closed : LinkStatus::Open;
  } else {
    law.valve.setting = *control.setting;
    law.status = LinkStatus::Active;
  }
}

bool sameAction(const EpanetControl& control, const LinkLaw& law) {
  if (control.status) return law.status == *control.status;
  if (law.kind == LinkLaw::Kind::Pump) return law.pump.speed == *control.setting;
  return law.status == LinkStatus::Active && law.valve.setting == *control.setting;
}

}  // namespace

std::optional<Index> EpanetModel::findNode(std::string_view id) const {
  for (Index n = 0; n < nodes.size(); ++n) {
    if (nodes[n].id == id) return n;
  }
  return std::nullopt;
}

EpanetModel readEpanetInput(const std::string& path) {
  return Reader(path).read();
}

EpanetModel parseEpanetInput(const std::string& text, const std::string& path) {
  return Reader(path).parse(text);
}

void holdTankHead(EpanetModel& model, std::string_view tank_id, double head) {
  const auto n = model.findNode(tank_id);
  RACKTWIN_ASSERT(n.has_value(), "tank id exists");
  EpanetNode& node = model.nodes[*n];
  RACKTWIN_ASSERT(node.kind == EpanetNode::Kind::Tank, "the node is a tank");
  node.level = head * model.units.length_m - node.elevation;
}

namespace {

/// `apply_controls`: timer, clock-time and tank-level controls act on the laws as they stand at
/// options.time (a steady solve). An extended-period run applies them itself, statefully.
/// `levels`: tank levels (m, per node) in place of the file's, for an extended-period run.
EpanetSolution solveWithLaws(const EpanetModel& model, std::vector<LinkLaw> laws,
                             const EpanetSolveOptions& options, bool apply_controls = true,
                             const std::vector<double>* levels = nullptr) {
  RACKTWIN_ASSERT(laws.size() == model.links.size(), "one law per link");
  const double t = options.time;
  const double rho_g = model.fluid.rho * model.fluid.g;
  for (Index l = 0; l < model.links.size(); ++l) {
    if (model.links[l].speed_pattern >= 0 && laws[l].status != LinkStatus::Closed) {
      laws[l].pump.speed = patternFactor(model, model.links[l].speed_pattern, t);
    }
  }

  // Timer and clock-time controls that have fired by t, in the order they fired.
  struct Fired {
    double time;
    std::size_t index;
  };
  std::vector<Fired> fired;
  for (std::size_t i = 0; i < model.controls.size() && apply_controls; ++i) {
    const EpanetControl& c = model.controls[i];
    if (c.kind == EpanetControl::Kind::Timer && c.time <= t) fired.push_back({c.time, i});
    if (c.kind == EpanetControl::Kind::ClockTime) {
      const double first =
          std::fmod(std::fmod(c.time - model.start_clocktime, 86400.0) + 86400.0, 86400.0);
      if (first <= t) fired.push_back({first + std::floor((t - first) / 86400.0) * 86400.0, i});
    }
  }
  std::stable_sort(fired.begin(), fired.end(),
                   [](const Fired& x, const Fired& y) { return x.time < y.time; });
  for (const Fired& f : fired)
    applyControl(model.controls[f.index], laws[model.controls[f.index].link]);

  std::vector<thermal::NodeCondition> conditions(model.nodes.size());
  for (Index n = 0; n < model.nodes.size(); ++n) {
    const EpanetNode& node = model.nodes[n];
    thermal::NodeCondition& c = conditions[n];
    c.p_disconnected = rho_g * node.elevation;
    switch (node.kind) {
      case EpanetNode::Kind::Junction:
        for (const EpanetNode::Demand& d : node.demands)
          c.demand += d.base * patternFactor(model, d.pattern, t) * model.demand_multiplier;
        break;
      case EpanetNode::Kind::Reservoir:
        c.fixed = true;
        c.p = rho_g * node.elevation * patternFactor(model, node.head_pattern, t);
        break;
      case EpanetNode::Kind::Tank:
        c.fixed = true;
        c.p = rho_g * (node.elevation + (levels != nullptr ? (*levels)[n] : node.level));
        break;
    }
  }
  // Level controls on tanks, with the tanks at their file levels.
  const double h_tol = model.solver_options.head_tolerance;
  for (const EpanetControl& c : model.controls) {
    if (!apply_controls) break;
    if (c.kind != EpanetControl::Kind::Above && c.kind != EpanetControl::Kind::Below) continue;
    const EpanetNode& node = model.nodes[c.node];
    if (node.kind == EpanetNode::Kind::Junction) continue;
    const double head = conditions[c.node].p / rho_g;
    if ((c.kind == EpanetControl::Kind::Below && head <= c.grade + h_tol)
        || (c.kind == EpanetControl::Kind::Above && head >= c.grade - h_tol)) {
      applyControl(c, laws[c.link]);
    }
  }

  thermal::HydraulicSolver solver(model.network, std::move(laws), std::move(conditions),
                                  model.solver_options);
  const double accuracy = options.accuracy > 0.0 ? options.accuracy : model.accuracy;
  const int trials = options.max_iterations > 0 ? options.max_iterations : model.trials;
  EpanetSolution solution;
  solution.status = solver.solve(model.fluid, accuracy, trials);
  // Junction-pressure controls act on the solution and call for another solve (EPANET's pswitch).
  for (int round = 0; round < 10 && solution.status.converged; ++round) {
    bool change = false;
    for (const EpanetControl& c : model.controls) {
      if (c.kind != EpanetControl::Kind::Above && c.kind != EpanetControl::Kind::Below) continue;
      if (model.nodes[c.node].kind != EpanetNode::Kind::Junction) continue;
      const double head = solver.p()[c.node] / rho_g;
      const bool holds = (c.kind == EpanetControl::Kind::Below && head <= c.grade + h_tol)
                         || (c.kind == EpanetControl::Kind::Above && head >= c.grade - h_tol);
      if (holds && !sameAction(c, solver.law(c.link))) {
        applyControl(c, solver.law(c.link));
        change = true;
      }
    }
    if (!change) break;
    const int before = solution.status.iterations;
    solution.status = solver.solve(model.fluid, accuracy, trials);
    solution.status.iterations += before;
  }

  const EpanetUnits& u = model.units;
  solution.largest_imbalance = solver.largestImbalance();
  solution.head.resize(model.nodes.size());
  solution.pressure.resize(model.nodes.size());
  solution.demand.resize(model.nodes.size());
  for (Index n = 0; n < model.nodes.size(); ++n) {
    const double head_m = solver.p()[n] / rho_g;
    solution.head[n] = head_m / u.length_m;
    solution.pressure[n] = (head_m - model.nodes[n].elevation) / u.length_m * u.pressure_per_head;
    solution.demand[n] = solver.node(n).demand * u.flow_per_m3s;
  }
  solution.flow.resize(model.links.size());
  solution.state.resize(model.links.size());
  for (Index l = 0; l < model.links.size(); ++l) {
    solution.flow[l] = solver.V_flow()[l] * u.flow_per_m3s;
    solution.state[l] = solver.linkState(l);
  }
  return solution;
}

}  // namespace

EpanetSolution solveEpanet(const EpanetModel& model, const EpanetSolveOptions& options) {
  return solveWithLaws(model, model.laws, options);
}

EpanetSolution solveEpanetOnce(EpanetModel& model, const EpanetSolveOptions& options) {
  std::vector<LinkLaw> laws = std::move(model.laws);
  model.laws.clear();
  return solveWithLaws(model, std::move(laws), options);
}

EpanetSolution simulateEpanet(const EpanetModel& model, const EpanetSolveOptions& options) {
  const double t_end = options.time;
  const double h_tol = model.solver_options.head_tolerance;
  const core::FlowNetwork& net = model.network;
  for (const EpanetNode& node : model.nodes) {
    if (node.kind == EpanetNode::Kind::Tank && node.volume_curve) {
      throw core::InputError({model.path, 0, 0}, "[TANKS] " + node.id,
                             "a tank with a volume curve is not supported in an extended-period "
                             "run; give it a diameter only");
    }
  }
  // Tank levels move; the laws carry statuses from step to step.
  std::vector<double> level(model.nodes.size(), 0.0);
  for (Index n = 0; n < model.nodes.size(); ++n)
    level[n] = model.nodes[n].level;
  std::vector<LinkLaw> laws = model.laws;
  // Timer and clock-time controls in firing order up to t_end.
  struct Timed {
    double time;
    std::size_t index;
  };
  std::vector<Timed> timed;
  for (std::size_t i = 0; i < model.controls.size(); ++i) {
    const EpanetControl& c = model.controls[i];
    if (c.kind == EpanetControl::Kind::Timer && c.time <= t_end) timed.push_back({c.time, i});
    if (c.kind == EpanetControl::Kind::ClockTime) {
      double first =
          std::fmod(std::fmod(c.time - model.start_clocktime, 86400.0) + 86400.0, 86400.0);
      for (; first <= t_end; first += 86400.0)
        timed.push_back({first, i});
    }
  }
  std::stable_sort(timed.begin(), timed.end(),
                   [](const Timed& x, const Timed& y) { return x.time < y.time; });
  std::size_t next_timed = 0;

  double t = 0.0;
  EpanetSolveOptions at = options;
  for (int step = 0;; ++step) {
    // Controls that act at t: timers that have come, tank levels at their current grade.
    for (; next_timed < timed.size() && timed[next_timed].time <= t + 1e-9; ++next_timed) {
      const EpanetControl& c = model.controls[timed[next_timed].index];
      applyControl(c, laws[c.link]);
    }
    for (const EpanetControl& c : model.controls) {
      if (c.kind != EpanetControl::Kind::Above && c.kind != EpanetControl::Kind::Below) continue;
      const EpanetNode& node = model.nodes[c.node];
      if (node.kind != EpanetNode::Kind::Tank) continue;
      const double head = node.elevation + level[c.node];
      if ((c.kind == EpanetControl::Kind::Below && head <= c.grade + h_tol)
          || (c.kind == EpanetControl::Kind::Above && head >= c.grade - h_tol)) {
        applyControl(c, laws[c.link]);
      }
    }
    at.time = t;
    EpanetSolution solution = solveWithLaws(model, laws, at, false, &level);
    if (!solution.status.converged) {
      throw core::RuntimeError(model.path + ": the solve at t = " + std::to_string(t)
                               + " s did not converge: " + solution.status.message);
    }
    if (t >= t_end - 1e-9) return solution;

    // Net inflow of every tank (m3/s) from the solution's flows.
    std::vector<double> inflow(model.nodes.size(), 0.0);
    for (Index l = 0; l < model.links.size(); ++l) {
      const double V = solution.flow[l] / model.units.flow_per_m3s;
      inflow[net.portB(l)] += V;
      inflow[net.portA(l)] -= V;
    }
    // The step: to the next hydraulic time, pattern boundary or timer control, or until a tank
    // reaches a limit or the grade of a level control (EPANET's tanktimestep, controltimestep).
    double next =
        std::min(t_end, (std::floor(t / model.hydraulic_step + 1e-9) + 1.0) * model.hydraulic_step);
    const double p0 = model.pattern_start;
    if (t >= p0) {
      next = std::min(
          next, p0 + (std::floor((t - p0) / model.pattern_step + 1e-9) + 1.0) * model.pattern_step);
    } else {
      next = std::min(next, p0);
    }
    if (next_timed < timed.size()) next = std::min(next, timed[next_timed].time);
    auto limitTo = [&](Index n, double rate, double level_target) {
      // Time for the level to reach level_target at `rate` (m/s), if it moves toward it.
      const double dh = level_target - level[n];
      if (rate != 0.0 && dh / rate > 1e-9) next = std::min(next, t + dh / rate);
    };
    for (Index n = 0; n < model.nodes.size(); ++n) {
      const EpanetNode& node = model.nodes[n];
      if (node.kind != EpanetNode::Kind::Tank) continue;
      const double rate = inflow[n] / node.area;
      limitTo(n, rate, rate > 0.0 ? node.level_max : node.level_min);
      for (const EpanetControl& c : model.controls) {
        if (c.node != n
            || (c.kind != EpanetControl::Kind::Above && c.kind != EpanetControl::Kind::Below)) {
          continue;
        }
        limitTo(n, rate, c.grade - node.elevation);
      }
    }
    const double dt = next - t;
    RACKTWIN_ASSERT(dt > 0.0, "an extended-period step moves time forward");
    for (Index n = 0; n < model.nodes.size(); ++n) {
      const EpanetNode& node = model.nodes[n];
      if (node.kind != EpanetNode::Kind::Tank) continue;
      level[n] += inflow[n] * dt / node.area;
      const double slack = 1e-9 * std::max(1.0, node.level_max);
      if (level[n] > node.level_max + slack || level[n] < node.level_min - slack) {
        throw core::RuntimeError(model.path + ": tank " + node.id
                                 + " leaves its levels at t = " + std::to_string(next)
                                 + " s; closing a full or empty tank's links is not modelled");
      }
      level[n] = std::clamp(level[n], node.level_min, node.level_max);
    }
    t = next;
    if (step > 1000000) throw core::RuntimeError(model.path + ": too many extended-period steps");
  }
}

}  // namespace racktwin::scenarios
