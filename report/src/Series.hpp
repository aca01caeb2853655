#pragma once
// Reductions of recorded series for the report's figures. Pure functions over plain vectors.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "ResultData.hpp"

namespace racktwin::report {

/// Points of a line for a figure: at most about `max_points`, keeping each bucket's lowest and
/// highest value in time order, so no peak or dip of the record is lost (peaks decide designs).
struct Line {
  std::vector<double> x;
  std::vector<double> y;
};
Line decimate(std::span<const double> x, std::span<const double> y, std::size_t max_points = 2400);

/// Per row, the sum, maximum or minimum over the columns.
std::vector<double> rowSum(const Matrix& m);
std::vector<double> rowMax(const Matrix& m);
std::vector<double> rowMin(const Matrix& m);
/// Per row, the q-quantile (0..1) over the columns (linear between order statistics).
std::vector<double> rowQuantile(const Matrix& m, double q);
/// Per column, the maximum over the rows from `first_row` on.
std::vector<double> columnMax(const Matrix& m, std::size_t first_row = 0);
/// Per row, the maximum over the columns of each group; `group_of[c]` is column c's group.
std::vector<std::vector<double>> groupRowMax(const Matrix& m, std::span<const std::size_t> group_of,
                                             std::size_t groups);

/// The energy of a mean-aggregated series: sum of record_k * (t_k - t_(k-1)) over k >= 1.
double integrateMeans(std::span<const double> time, std::span<const double> means);

/// `id` up to its second '/' ("row1/rack01/tray03/gpu2" -> "row1/rack01"), the rack of a chip.
std::string rackOf(const std::string& id);

}  // namespace racktwin::report
