#include "ScenarioTemplate.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace racktwin::scenarios::detail {
namespace {

constexpr int kMaxTemplateCount = 100000;
const char* const kPatchFile = "<patch>";

/// The numbers a name pattern may use: {hall}, {row} (in its hall), {rack} (in its row), {n} (in
/// the hall), {cdu} (in its row), {cdu_n} (in the hall); "{rack:02}" pads with zeros to two
/// digits.
struct PatternValues {
  int hall = 0, row = 0, rack = 0, n = 0, cdu = 0, cdu_n = 0;
};

std::string expand(const std::string& pattern, const PatternValues& v, const MapReader& where,
                   std::string_view key, const std::vector<std::string_view>& allowed) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '{') {
      out += pattern[i];
      continue;
    }
    const std::size_t close = pattern.find('}', i);
    if (close == std::string::npos) where.fail(key, "a '{' without its '}' in the name pattern");
    std::string field = pattern.substr(i + 1, close - i - 1);
    int width = 0;
    bool zeros = false;
    if (const std::size_t colon = field.find(':'); colon != std::string::npos) {
      const std::string spec = field.substr(colon + 1);
      field.resize(colon);
      zeros = !spec.empty() && spec[0] == '0';
      if (spec.empty() || spec.size() > 2
          || !std::all_of(spec.begin(), spec.end(), [](char c) { return std::isdigit(c) != 0; })) {
        where.fail(key, "'{" + field + ":" + spec + "}': the width after ':' is one or two digits, "
                        "such as {rack:02}");
      }
      width = std::stoi(spec);
    }
    if (std::find(allowed.begin(), allowed.end(), field) == allowed.end()) {
      std::string names;
      for (const std::string_view a : allowed)
        names += (names.empty() ? "{" : ", {") + std::string(a) + "}";
      where.fail(key, "unknown field {" + field + "} in the name pattern; expected " + names);
    }
    const int value = field == "hall"   ? v.hall
                      : field == "row"  ? v.row
                      : field == "rack" ? v.rack
                      : field == "n"    ? v.n
                      : field == "cdu"  ? v.cdu
                                        : v.cdu_n;
    char text[32];
    std::snprintf(text, sizeof text, zeros ? "%0*d" : "%*d", width, value);
    out += text;
    i = close;
  }
  return out;
}

/// A new node made in the document's node memory, held by `owner` (a sequence inside the
/// document). yaml-cpp merges two nodes' memories when one is given the other: a node made apart
/// and then given a node of the document copies the document's whole node set into its own, once
/// per generated entry, which is quadratic in time and memory (minutes and gigabytes for a
/// 4,000-rack template). Made in the document's memory, the merges find one memory and do nothing.
YAML::Node newNode(YAML::Node& owner, YAML::NodeType::value type) {
  YAML::Node node(type);
  owner.push_back(node);
  return node;
}

/// A generated list entry: `id` (and `cdu`) composed, every other key of the template's map
/// shared with it (so its values keep their place in the file).
YAML::Node generated(YAML::Node& owner, const YAML::Node& shape, const std::string& id,
                     const std::vector<std::pair<std::string, std::string>>& composed) {
  YAML::Node item = newNode(owner, YAML::NodeType::Map);
  item["id"] = id;
  for (const auto& [key, value] : composed)
    item[key] = value;
  for (auto it = shape.begin(); it != shape.end(); ++it) {
    const std::string key = it->first.Scalar();
    if (key == "id") continue;
    item[key] = it->second;
  }
  return item;
}

std::string idOf(const YAML::Node& item) {
  if (!item.IsMap()) return {};
  const YAML::Node id = item["id"];
  return id && id.IsScalar() ? id.Scalar() : std::string();
}

/// Generated entries, then the explicit ones: an explicit entry with a generated id takes that
/// entry's place, the others follow in their order.
YAML::Node merged(YAML::Node& owner, const std::vector<YAML::Node>& made,
                  const YAML::Node& explicit_list) {
  std::vector<YAML::Node> out = made;
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < out.size(); ++i)
    at.emplace(idOf(out[i]), i);
  if (explicit_list && explicit_list.IsSequence()) {
    for (const YAML::Node& item : explicit_list) {
      const auto found = at.find(idOf(item));
      if (found != at.end() && !found->first.empty()) {
        out[found->second] = item;
      } else {
        out.push_back(item);
      }
    }
  }
  YAML::Node list = newNode(owner, YAML::NodeType::Sequence);
  for (const YAML::Node& item : out)
    list.push_back(item);
  return list;
}

/// Whether an explicit rack_feeds entry's `racks` value (all, prefix/*, an id, a list) names `id`.
bool feedEntryNames(const YAML::Node& entry, const std::string& id) {
  if (!entry.IsMap() || !entry["racks"]) return false;
  const YAML::Node racks = entry["racks"];
  const auto matches = [&id](const std::string& pattern) {
    if (pattern == "all") return true;
    if (pattern.size() >= 2 && pattern.compare(pattern.size() - 2, 2, "/*") == 0)
      return id.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
    return pattern == id;
  };
  if (racks.IsScalar()) return matches(racks.Scalar());
  if (racks.IsSequence()) {
    for (const YAML::Node& r : racks)
      if (r.IsScalar() && matches(r.Scalar())) return true;
  }
  return false;
}

/// The mark of a root key, for messages.
YAML::Mark keyMark(const YAML::Node& root, const std::string& key) {
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) return it->first.Mark();
  }
  return YAML::Mark::null_mark();
}

/// A template's rack or cdu map: a map with an id pattern (the other keys are the loader's).
std::string shapeId(const MapReader& t, const YAML::Node& shape, std::string_view key,
                    const char* example) {
  if (!shape.IsMap()) t.fail(key, "expected a map: the keys of one entry, with an id pattern");
  if (!shape["id"] || !shape["id"].IsScalar() || shape["id"].Scalar().empty())
    t.fail(key, std::string("needs an id pattern such as ") + example);
  return shape["id"].Scalar();
}

/// The row a generated rack stands in (docs/scenario-format.md, layout): its id's prefix.
std::string rowOfRack(const std::string& id) {
  const std::size_t slash = id.rfind('/');
  return slash == std::string::npos ? std::string() : id.substr(0, slash);
}

/// With several halls and no `layout.halls`: one hall per template hall, of its rows.
void addLayoutHalls(YamlDocument& doc, const MapReader& t,
                    const std::vector<std::pair<std::string, std::vector<std::string>>>& halls) {
  YAML::Node layout = doc.root["layout"];
  if (layout && layout.IsMap() && layout["halls"]) return;  // the file places its halls itself
  if (layout && !layout.IsMap() && !layout.IsNull())
    return;  // the loader reports a layout that is not a map
  YAML::Node list(YAML::NodeType::Sequence);
  for (const auto& [id, rows] : halls) {
    if (rows.empty()) {
      t.fail("rack",
             "with halls the racks' ids need a row prefix (such as "
             "\"hall{hall}/row{row:02}/rack{rack:02}\"): layout.halls lists each hall's rows");
    }
    YAML::Node hall(YAML::NodeType::Map);
    hall["id"] = id;
    YAML::Node row_list(YAML::NodeType::Sequence);
    for (const std::string& row : rows)
      row_list.push_back(row);
    hall["rows"] = row_list;
    list.push_back(hall);
  }
  if (!layout || layout.IsNull()) doc.root["layout"] = YAML::Node(YAML::NodeType::Map);
  doc.root["layout"]["halls"] = list;
}

/// `facility_loop`: one `facility_water.loops` entry per hall, serving the hall's CDUs.
void addFacilityLoops(YamlDocument& doc, YAML::Node& owner, const MapReader& t,
                      const YAML::Node& shape, const std::string& pattern,
                      const std::vector<std::vector<std::string>>& cdus) {
  if (shape["cdus"]) t.fail("facility_loop", "a generated loop's cdus are its hall's: remove cdus");
  YAML::Node water = doc.root["facility_water"];
  if (!water || !water.IsMap()) {
    t.fail("facility_loop",
           "the generated loops go into facility_water.loops: the scenario needs facility_water "
           "(supply_temperature)");
  }
  if (water["loop"]) {
    t.fail("facility_loop",
           "the template makes one facility loop per hall (facility_water.loops); remove "
           "facility_water.loop");
  }
  std::vector<YAML::Node> loops;
  std::set<std::string> ids;
  for (std::size_t h = 0; h < cdus.size(); ++h) {
    PatternValues v;
    v.hall = static_cast<int>(h + 1);
    const std::string id = expand(pattern, v, t, "facility_loop", {"hall"});
    if (!ids.insert(id).second)
      t.fail("facility_loop", "the pattern gives the loop id '" + id + "' twice; use {hall}");
    YAML::Node loop = generated(owner, shape, id, {});
    YAML::Node list(YAML::NodeType::Sequence);
    for (const std::string& cdu : cdus[h])
      list.push_back(cdu);
    loop["cdus"] = list;
    loops.push_back(loop);
  }
  doc.root["facility_water"]["loops"] = merged(owner, loops, water["loops"]);
}

void expandTemplate(YamlDocument& doc) {
  const YAML::Node node = doc.root["template"];
  const MapReader t(doc.file, node, "template",
                    {"halls", "hall", "rows", "racks_per_row", "racks_per_cdu", "rack", "cdu",
                     "feeds", "facility_loop"},
                    keyMark(doc.root, "template"));
  const int halls = t.integerOr("halls", 1, 1, kMaxTemplateCount);
  const int rows = t.integer("rows", 1, kMaxTemplateCount);
  const int per_row = t.integer("racks_per_row", 1, kMaxTemplateCount);
  const int per_cdu = t.integerOr("racks_per_cdu", per_row, 1, kMaxTemplateCount);
  if (static_cast<long long>(rows) * per_row > kMaxTemplateCount) {
    t.fail("rows", "rows x racks_per_row is "
                       + std::to_string(static_cast<long long>(rows) * per_row) + " racks; at most "
                       + std::to_string(kMaxTemplateCount));
  }
  const long long total = static_cast<long long>(halls) * rows * per_row;
  if (total > kMaxTemplateCount) {
    t.fail("halls", "halls x rows x racks_per_row is " + std::to_string(total) + " racks; at most "
                        + std::to_string(kMaxTemplateCount));
  }
  const std::string hall_pattern =
      t.has("hall") ? t.string("hall", "a hall id pattern such as hall{hall}") : "hall{hall}";
  // Which keys a rack or a CDU accepts is the loader's business (racks[], cdus[]): it reads the
  // generated entries; the template checks its own keys.
  if (!t.has("rack")) t.fail("rack", "required key is missing: the racks' id pattern and type");
  t.optionalRecord("rack", "the keys of every generated rack");
  const YAML::Node rack_shape = node["rack"];
  const std::string rack_pattern = shapeId(t, rack_shape, "rack", "row{row}/rack{rack:02}");
  if (rack_shape["cdu"]) t.fail("rack", "a generated rack's cdu is the template's: remove cdu");
  std::string cdu_pattern;
  if (t.has("cdu")) {
    t.optionalRecord("cdu", "the keys of every generated CDU");
    cdu_pattern = shapeId(t, node["cdu"], "cdu", "row{row}/cdu{cdu}");
  } else if (t.has("racks_per_cdu")) {
    t.fail("racks_per_cdu", "only with a template cdu (the CDUs it generates)");
  }
  std::string loop_pattern;
  if (t.has("facility_loop")) {
    t.optionalRecord("facility_loop", "the keys of every generated facility loop");
    loop_pattern = shapeId(t, node["facility_loop"], "facility_loop", "hall{hall}");
    if (cdu_pattern.empty())
      t.fail("facility_loop", "only with a template cdu (a hall's loop serves its CDUs)");
  }
  const int cdus_per_row = (per_row + per_cdu - 1) / per_cdu;

  // Holds the generated nodes in the document's memory (see newNode); removed with the block.
  YAML::Node owner = doc.root["template"]["racktwin-generated-entries"];
  std::vector<YAML::Node> cdus, racks, feeds;
  std::vector<std::pair<std::string, std::vector<std::string>>> hall_rows;  // id, its rows
  std::vector<std::vector<std::string>> hall_cdus;
  std::set<std::string> ids;
  const auto unique = [&](const std::string& id, std::string_view key) {
    if (!ids.insert(id).second) {
      t.fail(key, "the pattern gives the id '" + id
                      + "' twice; use {hall}, {row}, {rack}, {n} or {cdu}");
    }
  };
  const std::vector<std::string_view> cdu_fields{"hall", "row", "cdu", "cdu_n"};
  const std::vector<std::string_view> rack_fields{"hall", "row", "rack", "n", "cdu", "cdu_n"};
  for (int hall = 1; hall <= halls; ++hall) {
    PatternValues hv;
    hv.hall = hall;
    auto& [hall_id, row_ids] = hall_rows.emplace_back(expand(hall_pattern, hv, t, "hall", {"hall"}),
                                                      std::vector<std::string>{});
    for (std::size_t k = 0; k + 1 < hall_rows.size(); ++k) {
      if (hall_rows[k].first == hall_id)
        t.fail("hall", "the pattern gives the hall id '" + hall_id + "' twice; use {hall}");
    }
    std::vector<std::string>& this_hall_cdus = hall_cdus.emplace_back();
    for (int r = 1; r <= rows; ++r) {
      std::vector<std::string> row_cdus;
      for (int c = 1; c <= cdus_per_row && !cdu_pattern.empty(); ++c) {
        PatternValues v = hv;
        v.row = r;
        v.cdu = c;
        v.cdu_n = (r - 1) * cdus_per_row + c;
        const std::string id = expand(cdu_pattern, v, t, "cdu", cdu_fields);
        unique(id, "cdu");
        row_cdus.push_back(id);
        this_hall_cdus.push_back(id);
        cdus.push_back(generated(owner, node["cdu"], id, {}));
      }
      for (int k = 1; k <= per_row; ++k) {
        PatternValues v = hv;
        v.row = r;
        v.rack = k;
        v.n = (r - 1) * per_row + k;
        v.cdu = (k - 1) / per_cdu + 1;
        v.cdu_n = (r - 1) * cdus_per_row + v.cdu;
        const std::string id = expand(rack_pattern, v, t, "rack", rack_fields);
        unique(id, "rack");
        const std::string row = rowOfRack(id);
        if (!row.empty() && std::find(row_ids.begin(), row_ids.end(), row) == row_ids.end())
          row_ids.push_back(row);
        std::vector<std::pair<std::string, std::string>> composed;
        if (!row_cdus.empty())
          composed.emplace_back("cdu", row_cdus[static_cast<std::size_t>(v.cdu - 1)]);
        racks.push_back(generated(owner, rack_shape, id, composed));
        if (t.has("feeds")) {
          const MapReader f = t.map("feeds", {"a", "b", "alternate"});
          const std::string a =
              expand(f.string("a", "an element id pattern"), v, f, "a", rack_fields);
          const std::optional<std::string> b_pattern =
              f.optionalString("b", "an element id pattern");
          const bool swap = f.booleanOr("alternate", false) && k % 2 == 0;
          YAML::Node entry = newNode(owner, YAML::NodeType::Map);
          YAML::Node one = newNode(owner, YAML::NodeType::Sequence);
          one.push_back(id);
          entry["racks"] = one;
          if (b_pattern) {
            const std::string b = expand(*b_pattern, v, f, "b", rack_fields);
            entry["a"] = swap ? b : a;
            entry["b"] = swap ? a : b;
          } else {
            entry["a"] = a;
          }
          feeds.push_back(entry);
          f.finish();
        }
      }
    }
  }
  if (halls > 1) addLayoutHalls(doc, t, hall_rows);
  if (!loop_pattern.empty())
    addFacilityLoops(doc, owner, t, node["facility_loop"], loop_pattern, hall_cdus);
  // Explicit entries override or add (they keep their own place in the file).
  if (!cdus.empty()) doc.root["cdus"] = merged(owner, cdus, doc.root["cdus"]);
  doc.root["racks"] = merged(owner, racks, doc.root["racks"]);
  if (!feeds.empty()) {
    YAML::Node electrical = doc.root["electrical"];
    if (!electrical || !electrical.IsMap() || !electrical["rack_feeds"]
        || !electrical["rack_feeds"].IsMap()) {
      t.fail("feeds",
             "the generated feeds go into electrical.rack_feeds.racks: the scenario needs an "
             "electrical section with rack_feeds (whips a and b, split, busbar)");
    }
    YAML::Node rack_feeds = electrical["rack_feeds"];
    const YAML::Node given = rack_feeds["racks"];
    YAML::Node list = newNode(owner, YAML::NodeType::Sequence);
    for (const YAML::Node& entry : feeds) {
      const std::string id = entry["racks"][0].Scalar();
      bool named = false;
      if (given && given.IsSequence()) {
        for (const YAML::Node& g : given)
          named = named || feedEntryNames(g, id);
      }
      if (!named) list.push_back(entry);
    }
    if (given && given.IsSequence()) {
      for (const YAML::Node& g : given)
        list.push_back(g);
    }
    rack_feeds["racks"] = list;
  }
  t.finish();
  doc.root.remove("template");
}

/// One step of a key path.
struct PathStep {
  enum class Kind { Key, Index, All, Id, Append };
  Kind kind = Kind::Key;
  std::string name;  // Key: the key; Id: the id
  std::size_t index = 0;
};

[[noreturn]] void patchError(const core::SourceLocation& where, const std::string& key,
                             const std::string& message) {
  throw core::InputError(where, key, message);
}

std::vector<PathStep> parsePath(const std::string& key, const core::SourceLocation& where) {
  std::vector<PathStep> steps;
  std::size_t i = 0;
  const auto bad = [&](const std::string& why) {
    patchError(where, key,
               "not a key path (" + why
                   + "); expected names joined by '.', with [N], [*], [id=ID] or [+] for list "
                     "items, e.g. cdus[*].type");
  };
  while (i < key.size()) {
    if (key[i] == '[') {
      const std::size_t close = key.find(']', i);
      if (close == std::string::npos) bad("a '[' without its ']'");
      const std::string inside = key.substr(i + 1, close - i - 1);
      PathStep s;
      if (inside == "*") {
        s.kind = PathStep::Kind::All;
      } else if (inside == "+") {
        s.kind = PathStep::Kind::Append;
      } else if (inside.rfind("id=", 0) == 0 && inside.size() > 3) {
        s.kind = PathStep::Kind::Id;
        s.name = inside.substr(3);
      } else if (!inside.empty() && inside.size() < 10
                 && std::all_of(inside.begin(), inside.end(),
                                [](char c) { return std::isdigit(c) != 0; })) {
        s.kind = PathStep::Kind::Index;
        s.index = static_cast<std::size_t>(std::stoul(inside));
      } else {
        bad("'[" + inside + "]'");
      }
      steps.push_back(s);
      i = close + 1;
      if (i < key.size() && key[i] == '.') ++i;
      continue;
    }
    const std::size_t end = key.find_first_of(".[", i);
    const std::string name = key.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (name.empty()) bad("an empty name");
    PathStep s;
    s.name = name;
    steps.push_back(s);
    if (end == std::string::npos) break;
    i = key[end] == '.' ? end + 1 : end;
  }
  if (steps.empty()) bad("empty");
  for (std::size_t k = 0; k + 1 < steps.size(); ++k) {
    if (steps[k].kind == PathStep::Kind::Append) bad("[+] only at the end");
  }
  return steps;
}

void applySteps(YAML::Node node, const std::vector<PathStep>& steps, std::size_t at,
                const YAML::Node& value, const ScenarioPatch& patch,
                const core::SourceLocation& where) {
  const PathStep& step = steps[at];
  const bool last = at + 1 == steps.size();
  const std::string here = patch.key;
  switch (step.kind) {
    case PathStep::Kind::Key: {
      if (node.IsNull()) node = YAML::Node(YAML::NodeType::Map);
      if (!node.IsMap())
        patchError(where, here, "'" + step.name + "' is looked up in something that is not a map");
      if (last) {
        // A fresh entry: a generated CDU or rack shares its other values with the template.
        node.remove(step.name);
        node[step.name] = YAML::Clone(value);
        return;
      }
      YAML::Node child = node[step.name];
      // A copy of what lies below, so a shared (template) node changes for this entry only.
      YAML::Node copy = child.IsDefined() ? YAML::Clone(child) : YAML::Node();
      node.remove(step.name);
      node[step.name] = copy;
      applySteps(node[step.name], steps, at + 1, value, patch, where);
      return;
    }
    case PathStep::Kind::Append:
      if (node.IsNull()) node = YAML::Node(YAML::NodeType::Sequence);
      if (!node.IsSequence()) patchError(where, here, "[+] appends to a list; this is not one");
      node.push_back(YAML::Clone(value));
      return;
    case PathStep::Kind::Index:
    case PathStep::Kind::All:
    case PathStep::Kind::Id: {
      if (!node.IsSequence())
        patchError(where, here, "a list item of something that is not a list");
      std::vector<std::size_t> items;
      for (std::size_t k = 0; k < node.size(); ++k) {
        if (step.kind == PathStep::Kind::All
            || (step.kind == PathStep::Kind::Index && k == step.index)
            || (step.kind == PathStep::Kind::Id && idOf(node[k]) == step.name)) {
          items.push_back(k);
        }
      }
      if (items.empty()) {
        patchError(where, here,
                   step.kind == PathStep::Kind::Index
                       ? "no item [" + std::to_string(step.index) + "]: the list has "
                             + std::to_string(node.size())
                   : step.kind == PathStep::Kind::Id ? "no item with id '" + step.name + "'"
                                                     : "the list is empty");
      }
      for (const std::size_t k : items) {
        if (last) {
          node[k] = YAML::Clone(value);
        } else {
          // Items of a generated list are fresh maps: their own keys are theirs to change.
          applySteps(node[k], steps, at + 1, value, patch, where);
        }
      }
      return;
    }
  }
}

}  // namespace

void applyPatch(YAML::Node root, const ScenarioPatch& patch, const core::SourceLocation& where) {
  const std::vector<PathStep> steps = parsePath(patch.key, where);
  YAML::Node value;
  try {
    value = YAML::Load(patch.value);
  } catch (const YAML::Exception& e) {
    patchError(where, patch.key, "the value is not YAML: " + std::string(e.msg));
  }
  applySteps(root, steps, 0, value, patch, where);
}

TemplateOrigin prepareDocument(YamlDocument& doc, const std::vector<ScenarioPatch>& patches) {
  const core::SourceLocation patch_where{kPatchFile, 0, 0};
  const auto isTemplate = [](const ScenarioPatch& p) { return p.key.rfind("template.", 0) == 0; };
  for (const ScenarioPatch& p : patches) {
    if (isTemplate(p)) {
      if (!doc.root["template"]) {
        patchError(patch_where, p.key, "the scenario has no template: block to change");
      }
      applyPatch(doc.root, p, patch_where);
    }
  }
  TemplateOrigin origin;
  if (doc.root.IsMap() && doc.root["template"]) {
    origin.where = locate(doc.file, keyMark(doc.root, "template"));
    expandTemplate(doc);
  }
  for (const ScenarioPatch& p : patches) {
    if (!isTemplate(p)) applyPatch(doc.root, p, patch_where);
  }
  return origin;
}

core::SiteSpec readGenerated(const TemplateOrigin& origin,
                             const std::function<core::SiteSpec()>& read) {
  if (!origin.where) return read();
  try {
    return read();
  } catch (const core::InputError& e) {
    if (e.where().line != 0 || e.where().file != origin.where->file) throw;
    throw core::InputError(*origin.where, e.key(),
                           e.message() + " (in an entry the template: block generates)");
  }
}

}  // namespace racktwin::scenarios::detail

namespace racktwin::scenarios {

std::string describePatches(const std::vector<ScenarioPatch>& patches) {
  std::string out;
  for (const ScenarioPatch& p : patches)
    out += p.key + ": " + p.value + "\n";
  return out;
}

}  // namespace racktwin::scenarios
