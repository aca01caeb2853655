#pragma once
// An OpenFOAM dictionary built in C++ and printed as OpenFOAM text. Entries keep their insertion
// order (OpenFOAM reads some dictionaries, such as blockMesh's, in order); setting a key again
// replaces its value in place.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace racktwin::cfd {

/// Formats a number the way OpenFOAM reads it back exactly (up to 12 significant digits).
std::string foamNumber(double value);
/// "(x y z)".
std::string foamVector(double x, double y, double z);
/// "(a b c ...)" from already formatted items.
std::string foamList(const std::vector<std::string>& items);

class FoamDictionary {
 public:
  FoamDictionary() = default;
  FoamDictionary(const FoamDictionary& other);
  FoamDictionary& operator=(const FoamDictionary& other);
  FoamDictionary(FoamDictionary&&) noexcept = default;
  FoamDictionary& operator=(FoamDictionary&&) noexcept = default;
  ~FoamDictionary() = default;

  /// "key value;" with the value written verbatim (a word, a list, "uniform 300").
  FoamDictionary& set(std::string_view key, std::string_view value);
  FoamDictionary& set(std::string_view key, const char* value) {
    return set(key, std::string_view(value));
  }
  FoamDictionary& set(std::string_view key, double value);
  FoamDictionary& set(std::string_view key, int value);
  /// The sub-dictionary `key`, created empty when absent.
  FoamDictionary& sub(std::string_view key);
  /// Replaces (or adds) the sub-dictionary `key`.
  FoamDictionary& set(std::string_view key, const FoamDictionary& dictionary);
  /// A verbatim line (a directive or a bare list) printed in order with the entries.
  FoamDictionary& line(std::string_view text);

  bool has(std::string_view key) const;
  /// The value of a plain entry ("" when absent or a sub-dictionary).
  std::string value(std::string_view key) const;
  const FoamDictionary* findSub(std::string_view key) const;

  /// The entries as OpenFOAM text, each line indented by `indent` levels of four spaces.
  std::string text(int indent = 0) const;

 private:
  struct Entry {
    std::string key;  // empty for a verbatim line
    std::string value;
    std::unique_ptr<FoamDictionary> dictionary;
  };
  Entry* find(std::string_view key);
  const Entry* find(std::string_view key) const;
  std::vector<Entry> entries_;
};

/// A whole OpenFOAM file: the FoamFile header (format ascii, class, location, object) and the
/// dictionary.
std::string foamFile(std::string_view class_name, std::string_view location,
                     std::string_view object, const FoamDictionary& body);

}  // namespace racktwin::cfd
