#include "PeakDay.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "racktwin/core/StateArchive.hpp"
#include "racktwin/core/Summary.hpp"

namespace racktwin::scenarios::detail {

PeakDay::PeakDay(const core::AmbientSpec& ambient)
    : file_time_at_start_(ambient.file_time_at_start),
      period_(ambient.period),
      calendar_year_(ambient.calendar_year) {
  // The first day end after simulation time 0; a run that starts at midnight starts a whole day.
  const double into_day = file_time_at_start_ - kDay_s * std::floor(file_time_at_start_ / kDay_s);
  in_whole_day_ = into_day < kTimeTolerance || kDay_s - into_day < kTimeTolerance;
  next_end_ = in_whole_day_ ? kDay_s : kDay_s - into_day;
}

void PeakDay::record(double t0, double E0, double t1, double E1) {
  while (t1 >= next_end_ - kTimeTolerance) {
    const double w = t1 > t0 ? std::min(1.0, (next_end_ - t0) / (t1 - t0)) : 1.0;
    const double E_end = E0 + w * (E1 - E0);
    if (in_whole_day_) {
      const double E = E_end - E_day_start_;
      if (complete_days_ == 0 || E > best_E_) {
        best_E_ = E;
        best_start_ = next_end_ - kDay_s;
      }
      ++complete_days_;
    }
    in_whole_day_ = true;
    E_day_start_ = E_end;
    next_end_ += kDay_s;
  }
}

void PeakDay::summarise(core::Summary& summary) const {
  const bool any = complete_days_ > 0;
  std::optional<double> number;
  if (any) {
    // Days counted from the file's time 0 (day 1), within the year when the weather repeats.
    double file_time = file_time_at_start_ + best_start_;
    if (period_ > 0.0) file_time -= period_ * std::floor(file_time / period_);
    number = std::round(file_time / kDay_s) + 1.0;
  }
  summary.add({"peak_day_number", number,
               calendar_year_ ? "Peak day (highest facility energy), day of the year"
                              : "Peak day (highest facility energy), day of the weather file",
               "", 1.0, 0.0});
  summary.add({"peak_day_facility_energy_J", any ? std::optional<double>(best_E_) : std::nullopt,
               "Peak day facility energy", "kWh", 1.0 / 3.6e6, 0.0});
  summary.add({"peak_day_facility_power_mean_W",
               any ? std::optional<double>(best_E_ / kDay_s) : std::nullopt,
               "Peak day mean facility power", "kW", 1e-3, 0.0});
}

void PeakDay::visitState(core::StateArchive& a) {
  a(next_end_, in_whole_day_, E_day_start_, complete_days_, best_E_, best_start_);
  a.section("peak day");
}

}  // namespace racktwin::scenarios::detail
