#include "racktwin/core/FiniteCheck.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "racktwin/core/Error.hpp"

namespace racktwin::core {

void FiniteCheckSink::open(const RunMetadata& /*metadata*/,
                           const std::vector<ChannelInfo>& channels) {
  channels_ = channels;
}

void FiniteCheckSink::append(double time, std::span<const double> row) {
  // v * 0 is 0 for a finite v and NaN for NaN or an infinity, so one sum tells whether the row
  // is finite: a pass without branches that vectorises. The column is searched only on failure.
  // Eight independent sums, so the adds do not wait on each other (a row of a large site holds
  // a million values); any NaN or infinity still reaches one of them.
  double lane[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  const double* v = row.data();
  const std::size_t n = row.size();
  std::size_t k = 0;
  for (; k + 8 <= n; k += 8) {
    for (std::size_t j = 0; j < 8; ++j)
      lane[j] += v[k + j] * 0.0;
  }
  for (; k < n; ++k)
    lane[0] += v[k] * 0.0;
  const double probe =
      ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
  if (probe == 0.0 && std::isfinite(time)) return;
  for (std::size_t column = 0; column < n; ++column) {
    if (!std::isfinite(v[column])) fail(time, column, v[column]);
  }
  fail(time, row.size(), time);  // the time itself
}

void FiniteCheckSink::fail(double time, std::size_t column, double value) const {
  char t[32];
  std::snprintf(t, sizeof t, "%.6g", time);
  std::string what = std::string("non-finite result at t = ") + t + " s: ";
  std::size_t first = 0;
  for (const ChannelInfo& channel : channels_) {
    const std::size_t width = channel.width();
    if (column < first + width) {
      what += channel.group + "/" + channel.name;
      if (!channel.entity_ids.empty()) what += " of " + channel.entity_ids[column - first];
      what += " (" + channel.description + ") is " + (std::isnan(value) ? "NaN" : "infinite");
      throw RuntimeError(what + "; the run stops rather than record it");
    }
    first += width;
  }
  throw RuntimeError(what + "the simulated time is not finite");
}

}  // namespace racktwin::core
