#include "racktwin/core/ThreadPool.hpp"

#include <algorithm>
#include <chrono>

namespace racktwin::core {

thread_local bool ThreadPool::in_task_ = false;

namespace {
inline void relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// A run starts a pass every fraction of a millisecond (the electrical model's in every sub-step,
// the cooling model's in every cycle), each of tens to hundreds of microseconds of work. A
// sleeping worker takes tens of microseconds or more to wake, by which time the caller has done
// a short pass alone; so a worker that has finished a pass looks for the next one for up to
// kSpinTime before it sleeps, and the caller waits for the workers the same way.
constexpr std::chrono::microseconds kSpinTime{2000};
constexpr int kRoundsPerClockRead = 256;

/// Calls ready() until it returns true or kSpinTime has passed; returns its last answer.
template <class Ready>
bool spinUntil(Ready&& ready) {
  const auto until = std::chrono::steady_clock::now() + kSpinTime;
  for (;;) {
    for (int k = 0; k < kRoundsPerClockRead; ++k) {
      if (ready()) return true;
      relax();
    }
    if (std::chrono::steady_clock::now() >= until) return ready();
  }
}
}  // namespace

ThreadPool::ThreadPool(unsigned threads) {
  const unsigned n = std::max(1u, threads);
  workers_.reserve(n - 1);
  for (unsigned k = 1; k < n; ++k)
    workers_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  for (std::thread& t : workers_)
    t.join();
}

unsigned ThreadPool::defaultThreads() noexcept {
  return std::max(1u, std::thread::hardware_concurrency());
}

void ThreadPool::runTasks() {
  in_task_ = true;
  for (;;) {
    const std::size_t t = next_.fetch_add(1, std::memory_order_relaxed);
    if (t >= tasks_) break;
    try {
      call_(context_, t);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex_);
      if (!error_ || t < error_task_) {
        error_ = std::current_exception();
        error_task_ = t;
      }
    }
  }
  in_task_ = false;
}

void ThreadPool::work() {
  // Generation 0 is the state at construction: a worker that starts after the first pass was
  // published must still take part in it (the caller waits for every worker).
  std::uint64_t seen = 0;
  for (;;) {
    std::uint64_t now = seen;
    spinUntil([&] {
      now = generation_.load(std::memory_order_acquire);
      return now != seen;
    });
    while (now == seen) {
      generation_.wait(seen, std::memory_order_acquire);
      now = generation_.load(std::memory_order_acquire);
    }
    seen = now;
    if (stop_.load(std::memory_order_relaxed)) return;
    runTasks();
    if (busy_.fetch_sub(1, std::memory_order_acq_rel) == 1) busy_.notify_one();
  }
}

void ThreadPool::run(std::size_t tasks, Call call, void* context) {
  call_ = call;
  context_ = context;
  tasks_ = tasks;
  error_ = nullptr;
  next_.store(0, std::memory_order_relaxed);
  busy_.store(static_cast<unsigned>(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  runTasks();
  // Wait for the workers: briefly spinning, as the tasks are short, then sleeping.
  unsigned left = 0;
  spinUntil([&] {
    left = busy_.load(std::memory_order_acquire);
    return left == 0;
  });
  while (left != 0) {
    busy_.wait(left, std::memory_order_acquire);
    left = busy_.load(std::memory_order_acquire);
  }
  if (error_) {
    std::exception_ptr error = error_;
    error_ = nullptr;
    std::rethrow_exception(error);
  }
}

}  // namespace racktwin::core
