#include "racktwin/core/ThreadPool.hpp"

#if defined(__linux__)
#include <sched.h>
#endif

#include <algorithm>
#include <chrono>
#include <thread>

#include "racktwin/core/Error.hpp"

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

/// Calls ready() until it returns true or kSpinTime has passed; returns its last answer. Every
/// kRoundsPerClockRead rounds it also yields the core: on a machine with more runnable threads
/// than cores the thread that would make ready() true may be waiting for this one's core.
template <class Ready>
bool spinUntil(Ready&& ready) {
  const auto until = std::chrono::steady_clock::now() + kSpinTime;
  for (;;) {
    for (int k = 0; k < kRoundsPerClockRead; ++k) {
      if (ready()) return true;
      relax();
    }
    std::this_thread::yield();
    if (std::chrono::steady_clock::now() >= until) return ready();
  }
}

constexpr std::uint64_t kTaskMask = 0xffffffffu;
}  // namespace

ThreadPool::ThreadPool(unsigned threads) : shares_(std::max(1u, threads)) {
  const unsigned n = std::max(1u, threads);
  workers_.reserve(n - 1);
  for (unsigned k = 1; k < n; ++k)
    workers_.emplace_back([this, k] { work(k); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  for (std::thread& t : workers_)
    t.join();
}

unsigned ThreadPool::defaultThreads() noexcept {
  // The processors this process may run on, not all the machine has: under taskset, a batch
  // scheduler's allocation (Slurm binds a job to its cores) or a container's cpuset, more
  // threads than those processors only take turns on them.
#if defined(__linux__)
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
    const int count = CPU_COUNT(&allowed);
    if (count > 0) return static_cast<unsigned>(count);
  }
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

void ThreadPool::runTasks(std::uint64_t generation, unsigned index) {
  // The pass's parameters, then the claims. A worker can get here late, after the caller has
  // finished this pass and begun publishing the next: then it may read the next pass's
  // parameters (or a mix). run() closes every share's claim word under the next pass's tag
  // before it stores any parameter, and the loads below acquire, so a worker that has read any
  // later parameter finds claim words of a later generation, and the tag check stops it before
  // it runs anything. A worker that has read only this pass's parameters claims only this pass's
  // tasks, and only while some are left (a claim is a read-modify-write on the latest value).
  const std::size_t tasks = tasks_.load(std::memory_order_acquire);
  const Call call = call_.load(std::memory_order_acquire);
  void* const context = context_.load(std::memory_order_acquire);
  const std::uint64_t tag = (generation & kTaskMask) << 32;
  const std::size_t threads = shares_.size();
  in_task_ = true;
  // Its own share first, then the others' in turn.
  for (std::size_t k = 0; k < threads; ++k) {
    const std::size_t owner = (index + k) % threads;
    const std::size_t end = shareBegin(tasks, owner + 1);
    std::atomic<std::uint64_t>& word = shares_[owner].claim;
    std::uint64_t claim = word.load(std::memory_order_acquire);
    while ((claim & ~kTaskMask) == tag && (claim & kTaskMask) < end) {
      if (!word.compare_exchange_weak(claim, claim + 1, std::memory_order_acq_rel,
                                      std::memory_order_acquire))
        continue;
      const std::size_t t = claim & kTaskMask;
      try {
        call(context, t);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex_);
        if (!error_ || t < error_task_) {
          error_ = std::current_exception();
          error_task_ = t;
        }
      }
      done_.fetch_add(1, std::memory_order_release);
      claim = word.load(std::memory_order_acquire);
    }
  }
  in_task_ = false;
}

void ThreadPool::work(unsigned index) {
  // Generation 0 is the state at construction: a worker that starts after the first pass was
  // published still finds it.
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
    runTasks(seen, index);
  }
}

void ThreadPool::run(std::size_t tasks, Call call, void* context) {
  RACKTWIN_ASSERT(tasks < kTaskMask, "a pass has fewer than 2^32 - 1 tasks (the claim's low half)");
  // Tasks are claimed one by one, tagged with the pass's generation; the caller waits only for
  // the tasks claimed (a worker that wakes late finds none left and is not waited for).
  const std::uint64_t generation = generation_.load(std::memory_order_relaxed) + 1;
  const std::uint64_t tag = (generation & kTaskMask) << 32;
  // Closed first: a worker still in an earlier pass's runTasks that reads any parameter stored
  // below also reads these claim words (or later ones), whose tag is not its pass's, and stops.
  // Without it such a worker could pair the earlier pass's tag with this pass's task count and
  // run a task of this pass that the pass then runs again.
  for (Share& share : shares_)
    share.claim.store(tag | kTaskMask, std::memory_order_relaxed);
  call_.store(call, std::memory_order_release);
  context_.store(context, std::memory_order_release);
  tasks_.store(tasks, std::memory_order_release);
  error_ = nullptr;
  done_.store(0, std::memory_order_relaxed);
  // Open: each share's first task is the next to claim.
  for (std::size_t k = 0; k < shares_.size(); ++k)
    shares_[k].claim.store(tag | shareBegin(tasks, k), std::memory_order_release);
  generation_.store(generation, std::memory_order_release);
  generation_.notify_all();
  runTasks(generation, 0);
  // What is left runs on a worker now: wait for it (a task is short; yield the core now and then
  // in case that worker waits for it).
  for (std::uint64_t k = 1; done_.load(std::memory_order_acquire) != tasks; ++k) {
    relax();
    if (k % kRoundsPerClockRead == 0) std::this_thread::yield();
  }
  if (error_) {
    std::exception_ptr error = error_;
    error_ = nullptr;
    std::rethrow_exception(error);
  }
}

}  // namespace racktwin::core
