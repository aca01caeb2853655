// core::ThreadPool: every task runs once, whatever the threads; the exception of the lowest task
// is the one rethrown; a pass started inside a task runs on that thread.
#include <atomic>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "racktwin/core/ThreadPool.hpp"

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
