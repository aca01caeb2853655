#pragma once
// The peak day of a run: the calendar day of the weather file (or of the run without one) with
// the highest facility energy, and its mean facility power. A facility engineer's "peak day" of a
// weather year is the day the plant and the grid connection are sized for.
//
// Days end where the weather file's own time is a whole number of days (00:00; for an EPW file,
// midnight of each day of its year); simulation time 0 is the file's time `weather_start`
// (AmbientSpec::file_time_at_start). Only whole days inside the run count: a run shorter than a
// day, or its partial first and last days, give no peak day. The facility energy at a day's end
// is read from the models' running totals (the figure of the summary's `facility_energy_J`) before
// and after the step that reaches it, interpolated linearly in time within that step when the day
// ends inside it (exact when the step divides the day).
#include "racktwin/core/SiteSpec.hpp"

namespace racktwin::core {
class StateArchive;
class Summary;
}  // namespace racktwin::core

namespace racktwin::scenarios::detail {

class PeakDay {
 public:
  static constexpr double kDay_s = 86400.0;

  explicit PeakDay(const core::AmbientSpec& ambient);

  /// Whether a step from t0 to t1 (s) reaches the end of a day: then call record().
  bool reachesDayEnd(double t1) const noexcept { return t1 >= next_end_ - kTimeTolerance; }
  /// The facility energy (J since the start) at the step's start t0 and end t1.
  void record(double t0, double E0, double t1, double E1);

  int completeDays() const noexcept { return complete_days_; }
  /// Adds peak_day_number, peak_day_facility_energy_J and peak_day_facility_power_mean_W (null
  /// without a whole day).
  void summarise(core::Summary& summary) const;
  void visitState(core::StateArchive& archive);

 private:
  static constexpr double kTimeTolerance = 1e-6;  // s: step times are multiples of the step

  double file_time_at_start_ = 0.0;  // s
  double period_ = 0.0;              // s, of a weather year (days wrap with it)
  bool calendar_year_ = false;
  double next_end_ = kDay_s;  // s of simulation time
  bool in_whole_day_ = false;
  double E_day_start_ = 0.0;  // J
  int complete_days_ = 0;
  double best_E_ = 0.0, best_start_ = 0.0;  // J, s of simulation time
};

}  // namespace racktwin::scenarios::detail
