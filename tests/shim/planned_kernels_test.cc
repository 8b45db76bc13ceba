// The account behind the line ucudnn logs at exit (shim/planned_kernels.h): planned time per
// iteration, each kernel weighted by its runs over the least-run kernel's.
#include "shim/planned_kernels.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>

namespace ucudnn::shim {
namespace {

using Runs = std::shared_ptr<std::atomic<std::uint64_t>>;

Runs runs(std::uint64_t n) {
  return std::make_shared<std::atomic<std::uint64_t>>(n);
}

TEST(PlannedKernels, AKernelThatRunsTwiceAnIterationCountsTwice) {
  PlannedKernels account;
  // A ResNet-like step: "block" repeats twice per iteration, "stem" once; 10 iterations.
  account.record("stem", 1.0, 2.0, 100, runs(10));
  account.record("block", 3.0, 4.0, 300, runs(20));
  account.record("never", 50.0, 60.0, 5000, runs(0));  // planned at Get, never run
  const auto s = account.summary();
  EXPECT_EQ(s.kernels, 3u);
  EXPECT_EQ(s.kernels_run, 2u);
  EXPECT_EQ(s.iterations, 10u);
  EXPECT_DOUBLE_EQ(s.plan_ms, 1.0 + 2 * 3.0);
  EXPECT_DOUBLE_EQ(s.undivided_ms, 2.0 + 2 * 4.0);
  EXPECT_EQ(s.largest_workspace, 300u) << "a plan that never ran used no workspace";
  const std::string line = PlannedKernels::line(0, s);
  EXPECT_NE(line.find("GPU 0: 3 kernels planned; planned convolution time 7 ms against 10 ms"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("(1.43x), per iteration (2 kernels ran, the least-run 10 times"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("the most workspace a planned call used: 300 B"), std::string::npos) << line;
}

TEST(PlannedKernels, RunsAreReadAtTheSummaryNotAtTheRecord) {
  PlannedKernels account;
  const Runs stem = runs(0), block = runs(0);
  account.record("stem", 1.0, 1.5, 0, stem);
  account.record("block", 2.0, 2.5, 0, block);
  for (int iteration = 0; iteration < 7; ++iteration) {
    stem->fetch_add(1);
    for (int repeat = 0; repeat < 3; ++repeat) block->fetch_add(1);
  }
  const auto s = account.summary();
  EXPECT_EQ(s.iterations, 7u);
  EXPECT_DOUBLE_EQ(s.plan_ms, 1.0 + 3 * 2.0);
}

TEST(PlannedKernels, WithoutRunsEachKernelCountsOnce) {
  PlannedKernels account;
  account.record("a", 1.0, 2.0, 10, runs(0));
  account.record("b", 3.0, std::nullopt, 20, nullptr);
  const auto s = account.summary();
  EXPECT_EQ(s.iterations, 0u);
  EXPECT_DOUBLE_EQ(s.plan_ms, 1.0);  // b has no undivided baseline: left out of both sums
  EXPECT_DOUBLE_EQ(s.undivided_ms, 2.0);
  EXPECT_EQ(s.without_undivided, 1u);
  EXPECT_EQ(s.largest_workspace, 20u);
  const std::string line = PlannedKernels::line(1, s);
  EXPECT_NE(line.find("each kernel once (no plan has run) (not counting the kernels where none "
                      "fits); the most workspace a planned call needs: 20 B"),
            std::string::npos)
      << line;
}

TEST(PlannedKernels, AKernelPlannedAgainCountsAtItsLastPlan) {
  PlannedKernels account;
  account.record("k", 5.0, 6.0, 10, runs(4));
  account.record("k", 2.0, 6.0, 30, runs(4));
  const auto s = account.summary();
  EXPECT_EQ(s.kernels, 1u);
  EXPECT_DOUBLE_EQ(s.plan_ms, 2.0);
  EXPECT_EQ(s.largest_workspace, 30u);
}

TEST(PlannedKernels, NothingPlannedOrHeldLogsNothing) {
  EXPECT_EQ(PlannedKernels::line(0, PlannedKernels().summary()), "");
}

}  // namespace
}  // namespace ucudnn::shim
