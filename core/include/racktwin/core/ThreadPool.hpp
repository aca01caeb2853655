#pragma once
// A fixed team of threads for the data-parallel passes of one run: the coolant loops' sweeps and
// audits, the chips' junctions, the racks' electrical sums. Results do not depend on the number
// of threads because the callers keep three rules:
//  - the work is cut into tasks whose boundaries the caller fixes (a coolant loop, a block of a
//    fixed number of GPUs or racks), never into one task per thread;
//  - a task writes only what it owns (its loop's cells and dies, its block's GPUs, its own slot
//    of a per-task array), which the owner of the data declares (docs/ARCHITECTURE.md,
//    "Partitions");
//  - sums over tasks are formed by the caller after the pass, in task order.
// Which thread runs which task is therefore free, and one thread runs the same code with the
// same tasks as many. Each thread first takes the tasks of its own share of the pass (thread k
// of T: tasks [n k / T, n (k + 1) / T)), then helps with the others' (uneven tasks balance).
// The tasks of successive passes follow the site's order (loops, chip blocks and rack blocks
// row by row), so a thread mostly meets again the data it wrote in the pass before, in its own
// core's caches, instead of taking every cache line from the other core.
//
// An exception thrown by a task is kept; after the pass the exception of the lowest task index
// is rethrown on the caller's thread (the one a serial pass would have met first). A pass
// started from inside a task runs serially on that thread.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace racktwin::core {

class ThreadPool {
 public:
  /// `threads` >= 1 threads in all, the caller's included (threads - 1 workers are started).
  explicit ThreadPool(unsigned threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const noexcept { return static_cast<unsigned>(workers_.size()) + 1; }

  /// Calls body(task) for every task in [0, tasks) and returns when all have run.
  template <class Body>
  void forEach(std::size_t tasks, Body&& body) {
    if (tasks == 0) return;
    if (workers_.empty() || tasks == 1 || in_task_) {
      for (std::size_t t = 0; t < tasks; ++t)
        body(t);
      return;
    }
    using B = std::remove_reference_t<Body>;
    run(
        tasks, [](void* context, std::size_t task) { (*static_cast<B*>(context))(task); },
        const_cast<void*>(static_cast<const void*>(&body)));
  }

  /// The number of threads a run uses when none is asked for: the processors the calling thread
  /// may run on (its CPU affinity: taskset, a batch job's cores, a container's cpuset), else the
  /// machine's hardware threads.
  static unsigned defaultThreads() noexcept;

 private:
  using Call = void (*)(void* context, std::size_t task);
  void run(std::size_t tasks, Call call, void* context);
  /// The first task of share k of a pass of `tasks` (share k ends where k + 1 begins).
  std::size_t shareBegin(std::size_t tasks, std::size_t k) const noexcept {
    return tasks * k / shares_.size();
  }
  void work(unsigned index);
  void runTasks(std::uint64_t generation, unsigned index);

  // The claim word of one thread's share of a pass, on a cache line of its own: the pass's
  // generation (high 32 bits) and the share's next task (low 32 bits).
  struct alignas(64) Share {
    std::atomic<std::uint64_t> claim{0};
  };

  std::vector<std::thread> workers_;
  // The current pass, published by generation_ (release) and read after it (acquire).
  std::atomic<Call> call_{nullptr};
  std::atomic<void*> context_{nullptr};
  std::atomic<std::size_t> tasks_{0};
  std::vector<Share> shares_;         // one per thread, the caller's first
  std::atomic<std::size_t> done_{0};  // tasks of the pass finished
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
  std::mutex error_mutex_;
  std::exception_ptr error_;
  std::size_t error_task_ = 0;
  static thread_local bool in_task_;
};

/// body(task) for every task in [0, tasks): on `pool`, or on the caller when it is null.
template <class Body>
void forEachTask(ThreadPool* pool, std::size_t tasks, Body&& body) {
  if (pool != nullptr) {
    pool->forEach(tasks, body);
  } else {
    for (std::size_t t = 0; t < tasks; ++t)
      body(t);
  }
}

/// body(i) for every item in [0, items), in tasks of `per_task` consecutive items (a fixed size,
/// so what a task computes does not depend on the number of threads).
template <class Body>
void forEachItem(ThreadPool* pool, std::size_t items, std::size_t per_task, Body&& body) {
  forEachTask(pool, (items + per_task - 1) / per_task, [&](std::size_t task) {
    const std::size_t end = std::min(items, (task + 1) * per_task);
    for (std::size_t i = task * per_task; i < end; ++i)
      body(i);
  });
}

}  // namespace racktwin::core
