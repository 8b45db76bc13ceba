#include "thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ucudnn::cpu {
namespace {

TEST(ThreadPool, CoversEveryIndexOnce) {
  ThreadPool pool(3);
  for (std::size_t count : {1u, 2u, 3u, 7u, 1000u}) {
    std::vector<std::atomic<int>> seen(count);
    pool.parallel_for(count, [&](std::size_t b, std::size_t e, unsigned) {
      for (auto i = b; i < e; ++i) ++seen[i];
    });
    for (std::size_t i = 0; i < count; ++i)
      EXPECT_EQ(seen[i].load(), 1) << "count " << count << " index " << i;
  }
}

TEST(ThreadPool, ExceptionsWaitForEveryRangeAndRethrow) {
  ThreadPool pool(2);
  for (unsigned thrower : {0u, 1u}) {
    std::atomic<int> finished{0};
    EXPECT_THROW(pool.parallel_for(2,
                                   [&](std::size_t, std::size_t, unsigned thread) {
                                     if (thread == thrower) throw std::runtime_error("boom");
                                     std::this_thread::sleep_for(std::chrono::milliseconds(20));
                                     ++finished;
                                   }),
                 std::runtime_error);
    EXPECT_EQ(finished.load(), 1) << "returned before the other range finished (thrower " << thrower
                                  << ")";
  }
  std::atomic<int> after{0};
  pool.parallel_for(
      100, [&](std::size_t b, std::size_t e, unsigned) { after += static_cast<int>(e - b); });
  EXPECT_EQ(after.load(), 100) << "the pool must stay usable after an exception";
}

TEST(ThreadPool, ConcurrentCallersAreSerialized) {
  ThreadPool pool(2);
  std::atomic<long> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      for (int round = 0; round < 50; ++round)
        pool.parallel_for(
            64, [&](std::size_t b, std::size_t e, unsigned) { total += static_cast<long>(e - b); });
    });
  for (auto& t : callers) t.join();
  EXPECT_EQ(total.load(), 4L * 50 * 64);
}

}  // namespace
}  // namespace ucudnn::cpu
