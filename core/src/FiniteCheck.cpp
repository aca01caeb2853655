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
  double probe = 0.0;
  for (const double v : row)
    probe += v * 0.0;
  if (probe == 0.0 && std::isfinite(time)) return;
  for (std::size_t k = 0; k < row.size(); ++k) {
    if (!std::isfinite(row[k])) fail(time, k, row[k]);
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
