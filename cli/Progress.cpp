#include "Progress.hpp"

#include <unistd.h>

namespace racktwin::cli {

Progress::Progress(double total)
    : total_(total),
      enabled_(isatty(STDOUT_FILENO) != 0),
      start_(std::chrono::steady_clock::now()) {}

void Progress::update(double done) {
  if (!enabled_ || total_ <= 0.0) return;
  const int permille = static_cast<int>(1000.0 * done / total_);
  if (permille == last_permille_) return;
  last_permille_ = permille;
  constexpr int kWidth = 40;
  const int filled = permille * kWidth / 1000;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::printf("\r  [");
  for (int i = 0; i < kWidth; ++i)
    std::putchar(i < filled ? '#' : '.');
  std::printf("] %5.1f %%  t = %.0f / %.0f s  (%.1f s wall)", permille / 10.0, done, total_,
              elapsed);
  std::fflush(stdout);
}

void Progress::finish() {
  if (!enabled_) return;
  std::printf("\r%*s\r", 100, "");
  std::fflush(stdout);
}

}  // namespace racktwin::cli
