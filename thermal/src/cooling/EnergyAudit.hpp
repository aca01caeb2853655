#pragma once
// The energy audit's record: every check of every loop (CoolantLoop::audit) reports its residual
// here; the worst is kept for the summary, and one above kAuditTolerance of its scale ends the run
// with a message naming the loop, the component and the time.
#include <cstdint>
#include <string>
#include <string_view>

namespace racktwin::thermal::cooling {

struct EnergyAudit {
  enum class Check : std::uint8_t { ColdPlate, Exchanger, Loop };
  double worst = 0.0;  // largest relative residual so far
  double worst_time = 0.0;
  std::uint32_t worst_loop = 0, worst_component = 0;
  Check worst_check = Check::Loop;
  std::uint64_t checks = 0;

  /// Counts one check. The scale is the sum of the magnitudes of its terms; `roundoff` (J) bounds
  /// the round-off of its stored-heat differences, so the relative residual is taken against at
  /// least roundoff / tolerance. Throws core::RuntimeError when the check fails; `where` names
  /// the component for that message (called only then).
  template <class Where>
  void record(double residual, double scale, double roundoff, double t_end,
              std::uint32_t loop_index, std::string_view loop_name, Check check,
              std::uint32_t component, const Where& where) {
    const double relative = relativeResidual(residual, scale, roundoff);
    ++checks;
    if (!(relative <= worst)) {
      worst = relative;
      worst_time = t_end;
      worst_loop = loop_index;
      worst_check = check;
      worst_component = component;
    }
    if (!passes(relative)) fail(residual, scale, relative, t_end, loop_name, where());
  }

  /// Adds the checks of another record (one loop's, of a cycle the loops ran side by side): its
  /// worst replaces this one's only when larger, as if its checks had been recorded here after
  /// this one's, so merging the loops' records in loop order gives the serial result.
  void merge(const EnergyAudit& other) noexcept {
    checks += other.checks;
    if (!(other.worst <= worst)) {
      worst = other.worst;
      worst_time = other.worst_time;
      worst_loop = other.worst_loop;
      worst_check = other.worst_check;
      worst_component = other.worst_component;
    }
  }

  static double relativeResidual(double residual, double scale, double roundoff);
  static bool passes(double relative);  // false for NaN
  [[noreturn]] static void fail(double residual, double scale, double relative, double t_end,
                                std::string_view loop_name, const std::string& where);
};

}  // namespace racktwin::thermal::cooling
