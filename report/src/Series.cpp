#include "Series.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace racktwin::report {

Line decimate(std::span<const double> x, std::span<const double> y, std::size_t max_points) {
  Line line;
  const std::size_t n = std::min(x.size(), y.size());
  if (n <= max_points || max_points < 4) {
    line.x.assign(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n));
    line.y.assign(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(n));
    return line;
  }
  const std::size_t buckets = max_points / 2;
  line.x.reserve(2 * buckets + 2);
  line.y.reserve(2 * buckets + 2);
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t first = b * n / buckets;
    const std::size_t last = (b + 1) * n / buckets;  // exclusive
    std::size_t lo = first;
    std::size_t hi = first;
    for (std::size_t i = first; i < last; ++i) {
      if (y[i] < y[lo]) lo = i;
      if (y[i] > y[hi]) hi = i;
    }
    const std::size_t a = std::min(lo, hi);
    const std::size_t c = std::max(lo, hi);
    line.x.push_back(x[a]);
    line.y.push_back(y[a]);
    if (c != a) {
      line.x.push_back(x[c]);
      line.y.push_back(y[c]);
    }
  }
  return line;
}

namespace {

template <class Reduce>
std::vector<double> perRow(const Matrix& m, double start, Reduce reduce) {
  std::vector<double> out(m.rows, start);
  for (std::size_t r = 0; r < m.rows; ++r) {
    double acc = start;
    for (std::size_t c = 0; c < m.columns; ++c)
      acc = reduce(acc, m.values[r * m.columns + c]);
    out[r] = acc;
  }
  return out;
}

}  // namespace

std::vector<double> rowSum(const Matrix& m) {
  return perRow(m, 0.0, [](double a, double v) { return a + v; });
}

std::vector<double> rowMax(const Matrix& m) {
  return perRow(m, -std::numeric_limits<double>::infinity(),
                [](double a, double v) { return std::max(a, v); });
}

std::vector<double> rowMin(const Matrix& m) {
  return perRow(m, std::numeric_limits<double>::infinity(),
                [](double a, double v) { return std::min(a, v); });
}

std::vector<double> rowQuantile(const Matrix& m, double q) {
  std::vector<double> out(m.rows, 0.0);
  std::vector<double> row(m.columns);
  for (std::size_t r = 0; r < m.rows; ++r) {
    std::copy_n(m.values.begin() + static_cast<std::ptrdiff_t>(r * m.columns), m.columns,
                row.begin());
    const double position = q * static_cast<double>(m.columns - 1);
    const auto below = static_cast<std::size_t>(std::floor(position));
    const std::size_t above = std::min(below + 1, m.columns - 1);
    std::nth_element(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(below), row.end());
    const double low = row[below];
    double high = low;
    if (above != below)
      high = *std::min_element(row.begin() + static_cast<std::ptrdiff_t>(below) + 1, row.end());
    out[r] = low + (high - low) * (position - static_cast<double>(below));
  }
  return out;
}

std::vector<double> columnMax(const Matrix& m, std::size_t first_row) {
  std::vector<double> out(m.columns, -std::numeric_limits<double>::infinity());
  for (std::size_t r = first_row; r < m.rows; ++r)
    for (std::size_t c = 0; c < m.columns; ++c)
      out[c] = std::max(out[c], m.values[r * m.columns + c]);
  return out;
}

std::vector<std::vector<double>> groupRowMax(const Matrix& m, std::span<const std::size_t> group_of,
                                             std::size_t groups) {
  std::vector<std::vector<double>> out(
      groups, std::vector<double>(m.rows, -std::numeric_limits<double>::infinity()));
  for (std::size_t r = 0; r < m.rows; ++r)
    for (std::size_t c = 0; c < m.columns; ++c) {
      double& slot = out[group_of[c]][r];
      slot = std::max(slot, m.values[r * m.columns + c]);
    }
  return out;
}

double integrateMeans(std::span<const double> time, std::span<const double> means) {
  double sum = 0.0;
  for (std::size_t k = 1; k < std::min(time.size(), means.size()); ++k)
    sum += means[k] * (time[k] - time[k - 1]);
  return sum;
}

std::string rackOf(const std::string& id) {
  const std::size_t first = id.find('/');
  if (first == std::string::npos) return id;
  const std::size_t second = id.find('/', first + 1);
  return second == std::string::npos ? id : id.substr(0, second);
}

}  // namespace racktwin::report
