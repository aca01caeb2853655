#pragma once
// Stable, path-like component ids ("row1/rack01/tray03/gpu2"), used alike in scenarios, the result
// file and the GUI. Segments are lower-case letters, digits, '_' and '-'.
#include <string>
#include <string_view>

namespace racktwin::core {

class ComponentId {
 public:
  ComponentId() = default;
  /// Throws std::invalid_argument when a segment is empty or holds other characters.
  explicit ComponentId(std::string_view path);

  static bool isValidSegment(std::string_view segment) noexcept;

  ComponentId child(std::string_view segment) const;
  ComponentId parent() const;
  std::string_view leaf() const noexcept;
  const std::string& str() const noexcept { return path_; }
  bool empty() const noexcept { return path_.empty(); }

  friend bool operator==(const ComponentId&, const ComponentId&) = default;
  friend auto operator<=>(const ComponentId&, const ComponentId&) = default;

 private:
  std::string path_;
};

}  // namespace racktwin::core
