#pragma once
// A one-line progress bar on a terminal; silent when stdout is not a terminal.
#include <chrono>
#include <cstdio>

namespace racktwin::cli {

class Progress {
 public:
  explicit Progress(double total);
  void update(double done);
  void finish();

 private:
  double total_;
  bool enabled_;
  int last_permille_ = -1;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace racktwin::cli
