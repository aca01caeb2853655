#pragma once
// ColorMap: values to colours over a range [min, max], the same table the scene's lookup table
// and legend use (256 entries, a perceptually ordered blue-to-red ramp). Values below min take
// the bottom colour, above max the top one, NaN the grey nanColour().
#include <array>
#include <cstddef>
#include <cstdint>

namespace racktwin::viz {

using Rgb = std::array<std::uint8_t, 3>;

class ColorMap {
 public:
  static constexpr std::size_t kEntries = 256;

  ColorMap() = default;
  ColorMap(double min, double max) { setRange(min, max); }

  /// A range with max <= min (or not finite) widens to [min - 0.5, min + 0.5] around its middle
  /// so one value still maps to the middle colour.
  void setRange(double min, double max) noexcept;
  double min() const noexcept { return min_; }
  double max() const noexcept { return max_; }

  /// Entry index of `value`: 0 at or below min, kEntries - 1 at or above max.
  std::size_t index(double value) const noexcept;
  Rgb colour(double value) const noexcept;
  /// Colour of table entry i (0 .. kEntries - 1).
  static Rgb entry(std::size_t i) noexcept;
  static Rgb bottomColour() noexcept { return entry(0); }
  static Rgb topColour() noexcept { return entry(kEntries - 1); }
  static Rgb nanColour() noexcept { return {128, 128, 128}; }

 private:
  double min_ = 0.0;
  double max_ = 1.0;
};

}  // namespace racktwin::viz
