#include "YamlReader.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace racktwin::scenarios::detail {
namespace {

std::string nodeKind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return core::quoteForMessage(node.Scalar());
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      break;
  }
  return "nothing";
}

std::string article(std::string_view noun) {
  const bool vowel =
      !noun.empty() && std::string_view("aeiou").find(noun.front()) != std::string_view::npos;
  return vowel ? "an " : "a ";
}

std::string describe(core::Dimension d) {
  if (d == core::Dimension::Dimensionless) return "a number or a percentage (0.95 or 95 %)";
  const std::string_view name = core::dimensionName(d);
  return article(name) + std::string(name) + " in " + std::string(core::acceptedUnits(d));
}

void checkValue(double v, Check check, const std::string& text, const MapReader* map,
                std::string_view key, const ListReader* list, std::size_t index) {
  const char* rule = nullptr;
  switch (check) {
    case Check::Any:
      break;
    case Check::Positive:
      if (!(v > 0.0)) rule = "must be > 0";
      break;
    case Check::NonNegative:
      if (!(v >= 0.0)) rule = "must be >= 0";
      break;
    case Check::Fraction:
      if (!(v >= 0.0 && v <= 1.0)) rule = "must be a fraction from 0 to 1 (0 % to 100 %)";
      break;
    case Check::PositiveFraction:
      if (!(v > 0.0 && v <= 1.0)) rule = "must be a fraction above 0 and at most 1 (100 %)";
      break;
  }
  if (rule == nullptr) return;
  const std::string message = std::string(rule) + ", got " + core::quoteForMessage(text);
  if (map != nullptr) map->fail(key, message);
  if (list != nullptr) list->failItem(index, message);
}

bool sameKey(const std::string& a, std::string_view b) {
  return std::string_view(a) == b;
}

}  // namespace

core::SourceLocation locate(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null() || mark.line < 0) return core::SourceLocation{file, 0, 0};
  return core::SourceLocation{file, mark.line + 1, mark.column + 1};
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names)
    text += (text.empty() ? "" : ", ") + n;
  return text;
}

namespace {

/// Levenshtein distance (insertions, deletions, substitutions), in two rows.
std::size_t editDistance(std::string_view a, std::string_view b, std::vector<std::size_t>& row) {
  row.resize(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({above + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closestNames(std::string_view wanted, const std::vector<std::string>& names) {
  constexpr std::size_t kListedWhole = 12, kClosest = 8;
  if (names.empty()) return "none";
  if (names.size() <= kListedWhole) return joined(names);
  std::vector<std::size_t> row;
  std::vector<std::pair<std::size_t, std::size_t>> ranked;  // (distance, position)
  ranked.reserve(names.size());
  for (std::size_t k = 0; k < names.size(); ++k)
    ranked.emplace_back(editDistance(wanted, names[k], row), k);
  std::partial_sort(ranked.begin(), ranked.begin() + kClosest, ranked.end());
  std::string text = std::to_string(names.size()) + " (the closest: ";
  for (std::size_t k = 0; k < kClosest; ++k)
    text += (k == 0 ? "" : ", ") + names[ranked[k].second];
  return text + ")";
}

std::string formatNumber(double value) {
  std::array<char, 32> buffer{};
  const int n = std::snprintf(buffer.data(), buffer.size(), "%.6g", value);
  if (n < 0) return "?";
  return std::string(buffer.data());
}

YamlDocument parseYaml(const std::string& text, const std::string& file) {
  try {
    return YamlDocument{file, YAML::Load(text)};
  } catch (const YAML::Exception& e) {
    // ParserException (and DeepRecursion, a ParserException) carry the position of the problem.
    throw core::InputError(locate(file, e.mark), "", "YAML syntax error: " + e.msg);
  }
}

namespace {
thread_local FileReadLog* t_file_read_log = nullptr;
}  // namespace

FileReadLog::FileReadLog() : previous_(t_file_read_log) {
  t_file_read_log = this;
}
FileReadLog::~FileReadLog() {
  t_file_read_log = previous_;
}

std::string readFileBytes(const std::string& path) {
  if (t_file_read_log != nullptr) t_file_read_log->files.push_back(path);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw core::InputError(core::SourceLocation{path, 0, 0}, "", "is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::InputError(core::SourceLocation{path, 0, 0}, "", "cannot open the file");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad())
    throw core::InputError(core::SourceLocation{path, 0, 0}, "", "cannot read the file");
  return bytes.str();
}

// ---------------------------------------------------------------------------------------------
// MapReader

namespace {
std::vector<std::string> keyList(std::initializer_list<std::string_view> allowed) {
  return std::vector<std::string>(allowed.begin(), allowed.end());
}
}  // namespace

MapReader::MapReader(std::string file, const YAML::Node& node, std::string path,
                     std::initializer_list<std::string_view> allowed, const YAML::Mark& where)
    : MapReader(std::move(file), node, std::move(path), keyList(allowed), where) {}

MapReader::MapReader(std::string file, const YAML::Node& node, std::string path,
                     std::vector<std::string> allowed, const YAML::Mark& where)
    : file_(std::move(file)), path_(std::move(path)), mark_(where), allowed_(std::move(allowed)) {
  // A nested map is reported at its key ("simulation:"), a list item or root at its first token.
  if (mark_.is_null()) mark_ = node.Mark();
  if (!node.IsMap()) {
    throw core::InputError(
        locate(file_, mark_), path_,
        "expected a map with the keys " + joined(allowed_) + ", got " + nodeKind(node));
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    // Copies: the iterator's operator-> returns a temporary pair.
    const YAML::Node k = it->first;
    const YAML::Node v = it->second;
    if (!k.IsScalar()) {
      throw core::InputError(locate(file_, k.Mark()), path_,
                             "a key must be a plain name; expected one of: " + joined(allowed_));
    }
    const std::string key = k.Scalar();
    const std::string full = keyPath(key);
    if (std::find(allowed_.begin(), allowed_.end(), key) == allowed_.end()) {
      throw core::InputError(locate(file_, k.Mark()), full,
                             "unknown key; expected one of: " + joined(allowed_));
    }
    for (const Entry& e : entries_) {
      if (e.key == key) {
        throw core::InputError(
            locate(file_, k.Mark()), full,
            "duplicate key; first given at line " + std::to_string(locate(file_, e.key_mark).line));
      }
    }
    entries_.push_back(Entry{key, k.Mark(), v});
  }
}

MapReader MapReader::root(const YamlDocument& doc,
                          std::initializer_list<std::string_view> allowed) {
  return MapReader(doc.file, doc.root, "", allowed, YAML::Mark::null_mark());
}
MapReader MapReader::root(const YamlDocument& doc, std::vector<std::string> allowed) {
  return MapReader(doc.file, doc.root, "", std::move(allowed), YAML::Mark::null_mark());
}

bool MapReader::has(std::string_view key) const {
  checkAllowed(key);
  return find(key) != nullptr;
}

std::string MapReader::keyPath(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

core::SourceLocation MapReader::where() const {
  return locate(file_, mark_);
}

core::SourceLocation MapReader::whereKey(std::string_view key) const {
  const Entry* e = find(key);
  return e != nullptr ? locate(file_, e->key_mark) : where();
}

core::SourceLocation MapReader::whereValue(std::string_view key) const {
  const Entry* e = find(key);
  if (e == nullptr) return where();
  // An empty value has no position of its own (yaml-cpp points at the next token).
  if (e->value.IsNull() || e->value.Mark().is_null()) return locate(file_, e->key_mark);
  return locate(file_, e->value.Mark());
}

void MapReader::fail(std::string_view key, const std::string& message) const {
  throw core::InputError(whereValue(key), keyPath(key), message);
}

void MapReader::restrictTo(std::initializer_list<std::string_view> allowed,
                           const std::string& why) const {
  std::vector<std::string> names;
  for (std::string_view a : allowed)
    names.emplace_back(a);
  for (const Entry& e : entries_) {
    if (std::find(names.begin(), names.end(), e.key) == names.end()) {
      throw core::InputError(locate(file_, e.key_mark), keyPath(e.key),
                             "not used " + why + "; expected one of: " + joined(names));
    }
  }
}

void MapReader::checkAllowed(std::string_view key) const {
  RACKTWIN_ASSERT(std::any_of(allowed_.begin(), allowed_.end(),
                              [key](const std::string& a) { return sameKey(a, key); }),
                  "a loader reads a key that its MapReader does not allow");
}

const MapReader::Entry* MapReader::find(std::string_view key) const {
  for (const Entry& e : entries_) {
    if (sameKey(e.key, key)) return &e;
  }
  return nullptr;
}

void MapReader::markUsed(std::string_view key) const {
  checkAllowed(key);
  if (std::none_of(used_.begin(), used_.end(),
                   [key](const std::string& u) { return sameKey(u, key); })) {
    used_.emplace_back(key);
  }
}

const MapReader::Entry& MapReader::require(std::string_view key, std::string_view expected) const {
  markUsed(key);
  const Entry* e = find(key);
  if (e == nullptr) {
    throw core::InputError(where(), keyPath(key),
                           "required key is missing; expected " + std::string(expected));
  }
  return *e;
}

void MapReader::checkPlausible(const Entry& e, double v, core::Dimension d, Kind kind) const {
  const std::string error = physicalViolation(v, d, kind, e.value.Scalar());
  if (!error.empty()) fail(e.key, error);
  const std::string warning = engineeringViolation(v, d, kind, e.value.Scalar());
  if (!warning.empty()) {
    const core::SourceLocation at = whereValue(e.key);
    addWarning(at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": key '"
                   + keyPath(e.key) + "'",
               warning);
  }
}

void MapReader::plausible(std::string_view key, double v, core::Dimension d, Kind kind) const {
  const Entry* e = find(key);
  if (e != nullptr && e->value.IsScalar()) checkPlausible(*e, v, d, kind);
}

double MapReader::convert(const Entry& e, core::Dimension d, Check check, Kind kind) const {
  if (!e.value.IsScalar()) fail(e.key, "expected " + describe(d) + ", got " + nodeKind(e.value));
  double v = 0.0;
  try {
    v = core::parseQuantity(e.value.Scalar(), d);
  } catch (const std::invalid_argument& ex) {
    fail(e.key, ex.what());
  }
  checkValue(v, check, e.value.Scalar(), this, e.key, nullptr, 0);
  checkPlausible(e, v, d, kind);
  return v;
}

double MapReader::quantity(std::string_view key, core::Dimension d, Check check, Kind kind) const {
  return convert(require(key, describe(d)), d, check, kind);
}

std::optional<double> MapReader::optionalQuantity(std::string_view key, core::Dimension d,
                                                  Check check, Kind kind) const {
  markUsed(key);
  const Entry* e = find(key);
  if (e == nullptr) return std::nullopt;
  return convert(*e, d, check, kind);
}

double MapReader::quantityOr(std::string_view key, core::Dimension d, double fallback, Check check,
                             Kind kind) const {
  return optionalQuantity(key, d, check, kind).value_or(fallback);
}

double MapReader::number(std::string_view key, Check check) const {
  const Entry& e = require(key, "a number");
  if (!e.value.IsScalar()) fail(key, "expected a number, got " + nodeKind(e.value));
  // A unit here would be silently wrong: the key name carries the unit.
  double v = 0.0;
  try {
    v = core::parseQuantity(e.value.Scalar(), core::Dimension::Dimensionless);
  } catch (const std::invalid_argument&) {
    fail(key, "expected a plain number (the key name gives the unit), got "
                  + core::quoteForMessage(e.value.Scalar()));
  }
  checkValue(v, check, e.value.Scalar(), this, key, nullptr, 0);
  checkPlausible(e, v, core::Dimension::Dimensionless, Kind::PlainNumber);
  return v;
}

int MapReader::integer(std::string_view key, int min, int max) const {
  const std::string expected =
      "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  const Entry& e = require(key, expected);
  if (!e.value.IsScalar()) fail(key, "expected " + expected + ", got " + nodeKind(e.value));
  const std::string& text = e.value.Scalar();
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    fail(key, "expected " + expected + ", got " + core::quoteForMessage(text));
  }
  if (v < min || v > max)
    fail(key, "must be from " + std::to_string(min) + " to " + std::to_string(max) + ", got "
                  + core::quoteForMessage(text));
  return static_cast<int>(v);
}

int MapReader::integerOr(std::string_view key, int fallback, int min, int max) const {
  markUsed(key);
  return find(key) == nullptr ? fallback : integer(key, min, max);
}

std::uint64_t MapReader::unsignedIntegerOr(std::string_view key, std::uint64_t fallback) const {
  markUsed(key);
  const Entry* e = find(key);
  if (e == nullptr) return fallback;
  const std::string expected = "an integer from 0 to 18446744073709551615";
  if (!e->value.IsScalar()) fail(key, "expected " + expected + ", got " + nodeKind(e->value));
  const std::string& text = e->value.Scalar();
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    fail(key, "expected " + expected + ", got " + core::quoteForMessage(text));
  }
  return v;
}

std::string MapReader::string(std::string_view key, std::string_view expected) const {
  const Entry& e = require(key, expected);
  if (!e.value.IsScalar() || e.value.Scalar().empty()) {
    fail(key, "expected " + std::string(expected) + ", got " + nodeKind(e.value));
  }
  return e.value.Scalar();
}

std::optional<std::string> MapReader::optionalString(std::string_view key,
                                                     std::string_view expected) const {
  markUsed(key);
  if (find(key) == nullptr) return std::nullopt;
  return string(key, expected);
}

bool MapReader::boolean(std::string_view key) const {
  const Entry& e = require(key, "true or false");
  if (e.value.IsScalar()) {
    if (e.value.Scalar() == "true") return true;
    if (e.value.Scalar() == "false") return false;
  }
  fail(key, "expected true or false, got " + nodeKind(e.value));
}

bool MapReader::booleanOr(std::string_view key, bool fallback) const {
  markUsed(key);
  return find(key) == nullptr ? fallback : boolean(key);
}

core::ComponentId MapReader::id(std::string_view key) const {
  const std::string text = string(key, "a component id such as 'row1/rack01'");
  try {
    return core::ComponentId(text);
  } catch (const std::invalid_argument& ex) {
    fail(key, ex.what());
  }
}

std::string MapReader::typeName(std::string_view key) const {
  const std::string text = string(key, "a type name");
  if (!core::ComponentId::isValidSegment(text)) {
    fail(key, "expected a type name of lower-case letters, digits, '_' or '-', got "
                  + core::quoteForMessage(text));
  }
  return text;
}

MapReader MapReader::map(std::string_view key,
                         std::initializer_list<std::string_view> allowed) const {
  return map(key, keyList(allowed));
}
MapReader MapReader::map(std::string_view key, std::vector<std::string> allowed) const {
  const Entry& e = require(key, "a map with the keys " + joined(allowed));
  return MapReader(file_, e.value, keyPath(key), std::move(allowed), e.key_mark);
}

std::optional<MapReader> MapReader::optionalMap(
    std::string_view key, std::initializer_list<std::string_view> allowed) const {
  markUsed(key);
  const Entry* e = find(key);
  if (e == nullptr) return std::nullopt;
  return MapReader(file_, e->value, keyPath(key), allowed, e->key_mark);
}

void MapReader::optionalRecord(std::string_view key, std::string_view what) const {
  markUsed(key);
  const Entry* e = find(key);
  if (e != nullptr && !e->value.IsMap()) {
    fail(key, "expected a map (" + std::string(what) + "), got " + nodeKind(e->value));
  }
}

ListReader MapReader::list(std::string_view key, std::string_view expected) const {
  const Entry& e = require(key, "a list of " + std::string(expected));
  if (!e.value.IsSequence()) {
    fail(key, "expected a list of " + std::string(expected) + ", got " + nodeKind(e.value));
  }
  return ListReader(file_, e.value, keyPath(key), e.key_mark);
}

std::optional<ListReader> MapReader::optionalList(std::string_view key,
                                                  std::string_view expected) const {
  markUsed(key);
  if (find(key) == nullptr) return std::nullopt;
  return list(key, expected);
}

bool MapReader::isScalar(std::string_view key) const {
  checkAllowed(key);
  const Entry* e = find(key);
  return e != nullptr && e->value.IsScalar();
}

void MapReader::finish() const {
  for (const Entry& e : entries_) {
    RACKTWIN_ASSERT(
        std::any_of(used_.begin(), used_.end(), [&e](const std::string& u) { return u == e.key; }),
        "a loader accepted a key but never read it");
  }
}

// ---------------------------------------------------------------------------------------------
// ListReader

ListReader::ListReader(std::string file, const YAML::Node& node, std::string path,
                       const YAML::Mark& fallback)
    : file_(std::move(file)), path_(std::move(path)), mark_(node.Mark()) {
  if (mark_.is_null()) mark_ = fallback;
  RACKTWIN_ASSERT(node.IsSequence(), "ListReader needs a sequence");
  for (auto it = node.begin(); it != node.end(); ++it)
    items_.push_back(*it);
}

std::string ListReader::itemPath(std::size_t i) const {
  return path_ + "[" + std::to_string(i) + "]";
}

core::SourceLocation ListReader::where() const {
  return locate(file_, mark_);
}

core::SourceLocation ListReader::whereItem(std::size_t i) const {
  RACKTWIN_ASSERT(i < items_.size(), "list index out of range");
  const YAML::Mark m = items_[i].Mark();
  return m.is_null() ? where() : locate(file_, m);
}

void ListReader::failItem(std::size_t i, const std::string& message) const {
  throw core::InputError(whereItem(i), itemPath(i), message);
}

MapReader ListReader::map(std::size_t i, std::initializer_list<std::string_view> allowed) const {
  return map(i, keyList(allowed));
}
MapReader ListReader::map(std::size_t i, std::vector<std::string> allowed) const {
  RACKTWIN_ASSERT(i < items_.size(), "list index out of range");
  const YAML::Mark m = items_[i].Mark().is_null() ? mark_ : items_[i].Mark();
  return MapReader(file_, items_[i], itemPath(i), std::move(allowed), m);
}

double ListReader::quantity(std::size_t i, core::Dimension d, Check check, Kind kind) const {
  RACKTWIN_ASSERT(i < items_.size(), "list index out of range");
  const YAML::Node& n = items_[i];
  if (!n.IsScalar()) failItem(i, "expected " + describe(d) + ", got " + nodeKind(n));
  double v = 0.0;
  try {
    v = core::parseQuantity(n.Scalar(), d);
  } catch (const std::invalid_argument& ex) {
    failItem(i, ex.what());
  }
  checkValue(v, check, n.Scalar(), nullptr, "", this, i);
  const std::string error = physicalViolation(v, d, kind, n.Scalar());
  if (!error.empty()) failItem(i, error);
  const std::string warning = engineeringViolation(v, d, kind, n.Scalar());
  if (!warning.empty()) {
    const core::SourceLocation at = whereItem(i);
    addWarning(at.file + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": key '"
                   + itemPath(i) + "'",
               warning);
  }
  return v;
}

std::string ListReader::string(std::size_t i, std::string_view expected) const {
  RACKTWIN_ASSERT(i < items_.size(), "list index out of range");
  const YAML::Node& n = items_[i];
  if (!n.IsScalar() || n.Scalar().empty()) {
    failItem(i, "expected " + std::string(expected) + ", got " + nodeKind(n));
  }
  return n.Scalar();
}

core::ComponentId ListReader::id(std::size_t i) const {
  const std::string text = string(i, "a component id such as 'row1/rack01'");
  try {
    return core::ComponentId(text);
  } catch (const std::invalid_argument& ex) {
    failItem(i, ex.what());
  }
}

}  // namespace racktwin::scenarios::detail
