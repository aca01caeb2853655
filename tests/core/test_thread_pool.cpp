// core::ThreadPool: every task runs once, whatever the threads; the exception of the lowest task
// is the one rethrown; a pass started inside a task runs on that thread.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "racktwin/core/ThreadPool.hpp"

#if defined(__linux__)
#include <sched.h>
#endif

using racktwin::core::ThreadPool;

TEST_CASE("Every task of a pass runs exactly once, for any number of threads", "[core][threads]") {
  for (const unsigned threads : {1u, 2u, 3u, 5u}) {
    ThreadPool pool(threads);
    REQUIRE(pool.size() == threads);
    for (const std::size_t tasks :
         {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}}) {
      std::vector<std::atomic<int>> runs(tasks);
      for (int pass = 0; pass < 20; ++pass)
        pool.forEach(tasks, [&](std::size_t t) { runs[t].fetch_add(1); });
      for (std::size_t t = 0; t < tasks; ++t)
        CHECK(runs[t].load() == 20);
    }
  }
}

// A worker that wakes late for a pass can find the caller already publishing the next one. It
// once read the next pass's task count with its own pass's claim tag and ran a task of the next
// pass that the pass then ran again: the cooling model audited a coolant loop twice for one sweep
// (an energy-audit failure with the loop's stored heat unchanged), and the caller, counting one
// task too many, waited for ever. Short passes of alternating sizes, more threads than cores: a
// few hundred thousand passes met it most times on a 2-core machine.
TEST_CASE("A worker late for a pass never runs a task of the next pass", "[core][threads]") {
  auto stress = std::async(std::launch::async, [] {
    long twice = 0, missed = 0;
    for (const unsigned threads : {3u, 4u, 3u, 5u, 3u}) {
      ThreadPool pool(threads);
      std::vector<std::atomic<int>> runs(8);
      for (long pass = 0; pass < 200000; ++pass) {
        const std::size_t tasks = pass % 2 == 0 ? 2 : 8;
        for (auto& r : runs)
          r.store(0, std::memory_order_relaxed);
        pool.forEach(tasks, [&](std::size_t t) { runs[t].fetch_add(1); });
        for (std::size_t t = 0; t < tasks; ++t) {
          const int n = runs[t].load();
          twice += n > 1 ? 1 : 0;
          missed += n < 1 ? 1 : 0;
        }
      }
    }
    return std::pair{twice, missed};
  });
  // A task run twice leaves the caller waiting for a count it has passed: a hang, reported here
  // rather than left to the test driver's timeout.
  if (stress.wait_for(std::chrono::minutes(3)) != std::future_status::ready) {
    std::fprintf(stderr, "the pool did not finish a pass in 3 minutes: a task ran twice\n");
    std::_Exit(1);
  }
  const auto [twice, missed] = stress.get();
  CHECK(twice == 0);
  CHECK(missed == 0);
}

// Each thread starts on its own share of a pass, so that successive passes over the same racks
// or loops find their data in the same core's caches. Task 0 waits until another task has run:
// the first thread other than the caller to take a task meets no task of the pass taken yet but
// task 0, so it starts on its own share. (Handed out in order from one counter, it took task 1.)
TEST_CASE("A worker starts a pass on the first task of its own share", "[core][threads]") {
  for (const unsigned threads : {2u, 3u, 4u}) {
    ThreadPool pool(threads);
    const std::size_t tasks = 12;
    const auto caller = std::this_thread::get_id();
    std::atomic<int> others_started{0};
    std::atomic<bool> gave_up{false};
    std::mutex firsts_mutex;
    std::vector<std::pair<std::thread::id, std::size_t>> firsts;  // thread, its first task
    pool.forEach(tasks, [&](std::size_t t) {
      {
        const std::lock_guard<std::mutex> lock(firsts_mutex);
        const auto id = std::this_thread::get_id();
        bool seen = false;
        for (const auto& f : firsts)
          seen = seen || f.first == id;
        if (!seen) firsts.emplace_back(id, t);
      }
      if (t != 0) {
        others_started.fetch_add(1);
        return;
      }
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (others_started.load() == 0 && !gave_up.load()) {
        if (std::chrono::steady_clock::now() > until) gave_up = true;
        std::this_thread::yield();
      }
    });
    REQUIRE_FALSE(gave_up.load());  // a worker ran a task within 20 s
    std::size_t first_worker_task = tasks;
    for (const auto& f : firsts) {
      if (f.first != caller) {
        first_worker_task = f.second;
        break;
      }
    }
    bool share_start = false;
    for (unsigned k = 1; k < threads; ++k)
      share_start = share_start || first_worker_task == tasks * k / threads;
    INFO("threads " << threads << ": the first worker began at task " << first_worker_task);
    CHECK(share_start);
  }
}

TEST_CASE("A pass returns only when every task has finished", "[core][threads]") {
  ThreadPool pool(3);
  std::vector<double> out(64, 0.0);
  for (int pass = 1; pass <= 50; ++pass) {
    pool.forEach(out.size(), [&](std::size_t t) {
      double x = 0.0;
      for (int k = 0; k < 2000; ++k)
        x += 1e-3;
      out[t] = pass + x * 0.0;
    });
    for (const double v : out)
      REQUIRE(v == pass);  // a task still running would leave the previous pass's value
  }
}

TEST_CASE("The exception of the lowest failing task is rethrown on the caller", "[core][threads]") {
  for (const unsigned threads : {1u, 2u, 4u}) {
    ThreadPool pool(threads);
    std::atomic<int> ran{0};
    try {
      pool.forEach(100, [&](std::size_t t) {
        ran.fetch_add(1);
        if (t == 37 || t == 80) throw std::runtime_error("task " + std::to_string(t));
      });
      FAIL("no exception");
    } catch (const std::runtime_error& error) {
      CHECK(std::string(error.what()) == "task 37");
    }
    // Serially the pass stops at the first failure; on threads the others may still run.
    CHECK(ran.load() >= 38);
    // The pool still works after a failed pass.
    std::atomic<int> after{0};
    pool.forEach(10, [&](std::size_t) { after.fetch_add(1); });
    CHECK(after.load() == 10);
  }
}

TEST_CASE("A pass started inside a task runs on that task's thread", "[core][threads]") {
  ThreadPool pool(2);
  std::vector<int> inner_on_same_thread(8, 0);
  pool.forEach(8, [&](std::size_t t) {
    const auto id = std::this_thread::get_id();
    bool same = true;
    pool.forEach(4, [&](std::size_t) { same = same && std::this_thread::get_id() == id; });
    inner_on_same_thread[t] = same ? 1 : 0;
  });
  for (const int same : inner_on_same_thread)
    CHECK(same == 1);
}

#if defined(__linux__)
// A run started under taskset or inside a batch job's allocation gets as many threads as the
// processors it may use, not as many as the machine has (extra threads only take turns).
TEST_CASE("The default thread count follows the processors the process may run on",
          "[core][threads]") {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  REQUIRE(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
  CHECK(ThreadPool::defaultThreads() == static_cast<unsigned>(CPU_COUNT(&allowed)));
  int first = 0;
  while (!CPU_ISSET(first, &allowed))
    ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
  const unsigned on_one = ThreadPool::defaultThreads();
  REQUIRE(sched_setaffinity(0, sizeof allowed, &allowed) == 0);  // as it was
  CHECK(on_one == 1u);
}
#endif
