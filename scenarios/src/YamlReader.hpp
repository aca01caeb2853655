#pragma once
// Typed, located reads from yaml-cpp nodes for the scenario and data-file loaders. Every error is a
// core::InputError naming the file, the 1-based line and column, and the key path
// ("simulation.step", "cdus[0].pump_speed") so that a user can find the place at once.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "Plausibility.hpp"
#include "racktwin/core/ComponentId.hpp"
#include "racktwin/core/Error.hpp"
#include "racktwin/core/Units.hpp"

namespace racktwin::scenarios::detail {

/// A parsed YAML document and the file name used in messages.
struct YamlDocument {
  std::string file;
  YAML::Node root;
};

/// Parses YAML text; a syntax error becomes an InputError at its line and column.
YamlDocument parseYaml(const std::string& text, const std::string& file);

/// Reads a whole file; throws InputError (no line) when it cannot be read.
std::string readFileBytes(const std::string& path);

/// While alive, collects the path of every file readFileBytes reads on this thread: the inputs of
/// a scenario (data files, weather, traces), which a run must never overwrite.
class FileReadLog {
 public:
  FileReadLog();
  FileReadLog(const FileReadLog&) = delete;
  FileReadLog& operator=(const FileReadLog&) = delete;
  ~FileReadLog();
  std::vector<std::string> files;

 private:
  FileReadLog* previous_;
};

/// 1-based location of a yaml-cpp mark (0-based); a null mark gives line 0.
core::SourceLocation locate(const std::string& file, const YAML::Mark& mark);

/// Constraint checked on a quantity after conversion to SI.
enum class Check {
  Any,
  Positive,          // > 0
  NonNegative,       // >= 0
  Fraction,          // 0 ..= 1
  PositiveFraction,  // 0 < x <= 1
};

/// Formats a value for messages (6 significant digits).
std::string formatNumber(double value);
/// Names separated by ", " for messages that list what is accepted.
std::string joined(const std::vector<std::string>& names);
/// The ids a message about an unknown `wanted` lists: all of them when there are at most 12;
/// else their count and the 8 closest to `wanted` by edit distance, ties in their order here
/// ("353 (the closest: hall1/mv-feeder, ...)"): a site defines thousands, and a list of them
/// all hides the answer.
std::string closestNames(std::string_view wanted, const std::vector<std::string>& names);

class ListReader;

/// Reads one YAML map. The constructor rejects keys outside `allowed` (and duplicates) before any
/// value is read, so a misspelt key is reported as unknown rather than as a missing key.
class MapReader {
 public:
  /// `path` names the map in messages ("" for a document root). `where` locates the map in
  /// messages: the key of a nested map; a null mark means the node's own position.
  MapReader(std::string file, const YAML::Node& node, std::string path,
            std::initializer_list<std::string_view> allowed, const YAML::Mark& where);
  /// The same with keys known only at run time (a component kind's schema).
  MapReader(std::string file, const YAML::Node& node, std::string path,
            std::vector<std::string> allowed, const YAML::Mark& where);

  /// The root map of a document.
  static MapReader root(const YamlDocument& doc, std::initializer_list<std::string_view> allowed);
  static MapReader root(const YamlDocument& doc, std::vector<std::string> allowed);

  const std::string& file() const noexcept { return file_; }
  const std::string& path() const noexcept { return path_; }
  bool has(std::string_view key) const;
  /// "path.key", or "key" at the root.
  std::string keyPath(std::string_view key) const;

  core::SourceLocation where() const;
  core::SourceLocation whereKey(std::string_view key) const;
  /// The value's location; the key's when the value is empty; the map's when the key is absent.
  core::SourceLocation whereValue(std::string_view key) const;

  /// Throws InputError at the value of `key` (or at the map when `key` is absent).
  [[noreturn]] void fail(std::string_view key, const std::string& message) const;

  /// Narrows the accepted keys after a value (such as an event's action) decided which apply;
  /// `why` explains the narrowing in the message.
  void restrictTo(std::initializer_list<std::string_view> allowed, const std::string& why) const;

  // Quantities: "<number> <unit>" converted to SI.
  // Each is also checked against the plausible ranges of its kind (Plausibility.hpp): outside
  // the physical range an InputError, outside the engineering range a warning in the session.
  double quantity(std::string_view key, core::Dimension d, Check check = Check::Any,
                  Kind kind = Kind::Default) const;
  std::optional<double> optionalQuantity(std::string_view key, core::Dimension d,
                                         Check check = Check::Any, Kind kind = Kind::Default) const;
  double quantityOr(std::string_view key, core::Dimension d, double fallback,
                    Check check = Check::Any, Kind kind = Kind::Default) const;

  /// Checks a value read earlier (with Kind::Default) against the ranges of `kind`: for call
  /// sites whose own, more specific checks should speak first.
  void plausible(std::string_view key, double v, core::Dimension d, Kind kind) const;

  /// A plain number written with its unit in the key name (for units that have no Dimension).
  double number(std::string_view key, Check check = Check::Any) const;

  int integer(std::string_view key, int min, int max) const;
  int integerOr(std::string_view key, int fallback, int min, int max) const;
  std::uint64_t unsignedIntegerOr(std::string_view key, std::uint64_t fallback) const;

  /// A non-empty scalar; `expected` says what it should be ("a name").
  std::string string(std::string_view key, std::string_view expected) const;
  std::optional<std::string> optionalString(std::string_view key, std::string_view expected) const;
  bool boolean(std::string_view key) const;
  bool booleanOr(std::string_view key, bool fallback) const;

  /// A component id ("row1/rack01").
  core::ComponentId id(std::string_view key) const;
  /// A data type name: one id segment, so it cannot leave the data directory.
  std::string typeName(std::string_view key) const;

  MapReader map(std::string_view key, std::initializer_list<std::string_view> allowed) const;
  MapReader map(std::string_view key, std::vector<std::string> allowed) const;
  std::optional<MapReader> optionalMap(std::string_view key,
                                       std::initializer_list<std::string_view> allowed) const;
  /// Checks that an optional key holds a map and leaves its content unread: records a tool keeps
  /// beside the data (provenance) that the model does not use.
  void optionalRecord(std::string_view key, std::string_view what) const;
  ListReader list(std::string_view key, std::string_view expected) const;
  std::optional<ListReader> optionalList(std::string_view key, std::string_view expected) const;
  /// True when the key is present and its value is a scalar (for "racks: all" or a list).
  bool isScalar(std::string_view key) const;

  /// Asserts that every key present was read: a loader that forgets a key is a programmer error.
  void finish() const;

 private:
  struct Entry {
    std::string key;
    YAML::Mark key_mark;
    YAML::Node value;
  };
  const Entry* find(std::string_view key) const;
  const Entry& require(std::string_view key, std::string_view expected) const;
  void markUsed(std::string_view key) const;
  double convert(const Entry& e, core::Dimension d, Check check, Kind kind) const;
  void checkPlausible(const Entry& e, double v, core::Dimension d, Kind kind) const;
  void checkAllowed(std::string_view key) const;

  std::string file_;
  std::string path_;
  YAML::Mark mark_;
  std::vector<Entry> entries_;
  std::vector<std::string> allowed_;
  mutable std::vector<std::string> used_;
};

/// Reads one YAML sequence.
class ListReader {
 public:
  ListReader(std::string file, const YAML::Node& node, std::string path,
             const YAML::Mark& fallback);

  std::size_t size() const noexcept { return items_.size(); }
  std::string itemPath(std::size_t i) const;
  core::SourceLocation where() const;
  core::SourceLocation whereItem(std::size_t i) const;
  [[noreturn]] void failItem(std::size_t i, const std::string& message) const;

  MapReader map(std::size_t i, std::initializer_list<std::string_view> allowed) const;
  MapReader map(std::size_t i, std::vector<std::string> allowed) const;
  double quantity(std::size_t i, core::Dimension d, Check check = Check::Any,
                  Kind kind = Kind::Default) const;
  std::string string(std::size_t i, std::string_view expected) const;
  core::ComponentId id(std::size_t i) const;

 private:
  std::string file_;
  std::string path_;
  YAML::Mark mark_;
  std::vector<YAML::Node> items_;
};

}  // namespace racktwin::scenarios::detail
