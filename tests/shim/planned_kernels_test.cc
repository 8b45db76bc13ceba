// The account behind the line ucudnn logs at exit (shim/planned_kernels.h): planned time per
// iteration, each kernel weighted by the calls its plans served over the iteration's count.
#include "shim/planned_kernels.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

namespace ucudnn::shim {
namespace {

using Runs = std::shared_ptr<cudnn::PlanExecutor::RunCount>;

Runs runs(std::uint64_t n) {
  auto count = std::make_shared<cudnn::PlanExecutor::RunCount>();
  count->value = n;
  return count;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PlannedKernels, AKernelThatRunsTwiceAnIterationCountsTwice) {
  PlannedKernels account;
  // A ResNet-like step: "block" repeats twice per iteration, "stem" once; 10 iterations.
  account.record("stem", 1.0, 2.0, 100, runs(10));
  account.record("block", 3.0, 4.0, 300, runs(20));
  account.record("never", 50.0, 60.0, 5000, runs(0));  // its calls ran cuDNN's engine
  const auto s = account.summary({});
  EXPECT_EQ(s.kernels, 3u);
  EXPECT_EQ(s.kernels_run, 2u);
  EXPECT_EQ(s.iterations, 10u);
  EXPECT_DOUBLE_EQ(s.plan_ms, 1.0 + 2 * 3.0);
  EXPECT_DOUBLE_EQ(s.undivided_ms, 2.0 + 2 * 4.0);
  EXPECT_EQ(s.largest_workspace, 300u) << "a plan that served no call used no workspace";
  const std::string line = PlannedKernels::line(0, s);
  EXPECT_TRUE(contains(line,
                       "GPU 0: 3 kernels planned; planned convolution time 7 ms against "
                       "10 ms for the best undivided candidates within the limit (1.43x), "
                       "per iteration, over the 2 kernels whose calls ran ucudnn's plans "
                       "(the least-run kernel ran 10 times, taken as once per iteration); the "
                       "most "
                       "workspace a planned call used: 300 B"))
      << line;
}

TEST(PlannedKernels, ACpuGpuSplitCountsLikeAnyPlanAndIsNamed) {
  PlannedKernels account;
  account.record("conv1", 2.0, 3.0, 100, runs(4), /*split_with_host=*/true);
  account.record("conv2", 1.0, 1.0, 100, runs(4));
  // A kernel re-planned on the GPU alone (a new limit) is no longer a split.
  const Runs conv3 = runs(4);
  account.record("conv3", 1.0, 1.0, 100, conv3, true);
  account.record("conv3", 1.0, 1.0, 100, conv3);
  const auto s = account.summary({});
  EXPECT_EQ(s.split_with_host, 1u);
  EXPECT_DOUBLE_EQ(s.plan_ms, 2.0 + 1.0 + 1.0);
  const std::string line = PlannedKernels::line(0, s);
  EXPECT_TRUE(contains(line,
                       "GPU 0: 3 kernels planned (1 split with the CPU); planned "
                       "convolution time 4 ms against 5 ms"))
      << line;
}

TEST(PlannedKernels, RunsAreReadAtTheSummaryNotAtTheRecord) {
  PlannedKernels account;
  const Runs stem = runs(0), block = runs(0);
  account.record("stem", 1.0, 1.5, 0, stem);
  account.record("block", 2.0, 2.5, 0, block);
  for (int iteration = 0; iteration < 7; ++iteration) {
    stem->value.fetch_add(1);
    for (int repeat = 0; repeat < 3; ++repeat) block->value.fetch_add(1);
  }
  const auto s = account.summary({});
  EXPECT_EQ(s.iterations, 7u);
  EXPECT_DOUBLE_EQ(s.plan_ms, 1.0 + 3 * 2.0);
}

// An epoch's last, smaller batch is a kernel of its own that runs once an epoch: it does not
// set the iteration's count, and weighs by its few runs.
TEST(PlannedKernels, AKernelRunOnceAnEpochDoesNotSetTheIteration) {
  PlannedKernels account;
  for (const char* kernel : {"stem", "a", "b", "c"}) account.record(kernel, 1.0, 2.0, 0, runs(500));
  account.record("block", 1.0, 2.0, 0, runs(1000));
  account.record("stem at the last batch", 0.5, 1.0, 0, runs(5));
  const auto s = account.summary({});
  EXPECT_EQ(s.iterations, 500u);
  EXPECT_DOUBLE_EQ(s.plan_ms, 4 * 1.0 + 2 * 1.0 + 0.5 * 5 / 500);
  EXPECT_DOUBLE_EQ(s.undivided_ms, 2 * s.plan_ms);
}

TEST(PlannedKernels, WithoutRunsEachKernelCountsOnce) {
  PlannedKernels account;
  account.record("a", 1.0, 2.0, 10, runs(0));
  account.record("b", 3.0, std::nullopt, 20, nullptr);
  const auto s = account.summary({});
  EXPECT_EQ(s.iterations, 0u);
  EXPECT_DOUBLE_EQ(s.plan_ms, 1.0);  // b has no undivided baseline: left out of both sums
  EXPECT_DOUBLE_EQ(s.undivided_ms, 2.0);
  EXPECT_EQ(s.without_undivided, 1u);
  EXPECT_EQ(s.largest_workspace, 20u);
  const std::string line = PlannedKernels::line(1, s);
  EXPECT_TRUE(contains(
      line,
      "each kernel once (no call has run one of these plans: cuDNN's own engines ran every "
      "call, or none came) (not counting the kernels "
      "where none fits); the most workspace a planned call needs: 20 B"))
      << line;
}

TEST(PlannedKernels, WhereNoKernelHasABaselineTheLineSaysSoRatherThanZeroAgainstZero) {
  PlannedKernels account;
  account.record("a", 1.0, std::nullopt, 10, runs(3));
  const std::string line = PlannedKernels::line(0, account.summary({}));
  EXPECT_FALSE(contains(line, "0 ms against 0 ms")) << line;
  EXPECT_TRUE(contains(line, "none of the 1 counted")) << line;
}

TEST(PlannedKernels, AKernelPlannedAgainCountsAtItsLastPlanWithTheRunsOfEach) {
  PlannedKernels account;
  account.record("k", 5.0, 6.0, 10, runs(4));
  account.record("k", 2.0, 6.0, 30, runs(4));
  account.record("other", 1.0, 1.0, 0, runs(8));
  const auto s = account.summary({});
  EXPECT_EQ(s.kernels, 2u);
  EXPECT_EQ(s.iterations, 8u);
  EXPECT_DOUBLE_EQ(s.plan_ms, 2.0 + 1.0) << "k ran 8 times, at its last plan's time";
  EXPECT_EQ(s.largest_workspace, 30u);
}

// The workspace of each plan that served calls, not of the last plan made: a larger plan that
// ran, then a smaller one made (another limit) that did not.
TEST(PlannedKernels, TheWorkspaceUsedIsOfThePlansThatRan) {
  PlannedKernels account;
  Runs large = runs(6);
  account.record("k", 5.0, 6.0, 4096, large);
  account.record("k", 2.0, 6.0, 64, runs(0));
  EXPECT_EQ(account.summary({}).largest_workspace, 4096u);
  large.reset();  // its executor gone: its workspace still counts
  account.record("k", 2.0, 6.0, 64, runs(0));
  EXPECT_EQ(account.summary({}).largest_workspace, 4096u);
}

// PyTorch plans a kernel once per handle (one per thread); a handle destroyed takes its
// executors along, and their runs stay counted.
TEST(PlannedKernels, RunsOfEveryHandlesPlanCountEvenOnceItsExecutorIsGone) {
  PlannedKernels account;
  Runs first_handle = runs(0), second_handle = runs(0), stem = runs(0);
  account.record("stem", 1.0, 1.0, 0, stem);
  account.record("block", 2.0, 3.0, 0, first_handle);
  account.record("block", 2.0, 3.0, 0, second_handle);
  account.record("block", 2.0, 3.0, 0, second_handle);  // the same plan reported again
  stem->value.fetch_add(5);
  first_handle->value.fetch_add(5);
  second_handle->value.fetch_add(5);
  first_handle.reset();                           // its handle destroyed
  account.record("block", 2.0, 3.0, 0, runs(0));  // a third handle: folds the first away
  const auto s = account.summary({});
  EXPECT_EQ(s.iterations, 5u);
  EXPECT_DOUBLE_EQ(s.plan_ms, 1.0 + 2 * 2.0);
  EXPECT_DOUBLE_EQ(s.undivided_ms, 1.0 + 2 * 3.0);
}

// Under WD each kernel's baseline is within its segment, not within one limit: the line says so
// beside what the division held.
TEST(PlannedKernels, UnderADivisionTheBaselineIsWithinEachKernelsWorkspace) {
  PlannedKernels account;
  account.record("a", 1.0, 1.5, 100, runs(4));
  account.record("b", 2.0, 2.0, 200, runs(4), true);
  account.held(300, 1024);
  const std::string line = PlannedKernels::line(0, account.summary({}));
  EXPECT_TRUE(contains(line,
                       "GPU 0: 2 kernels planned (1 split with the CPU); planned convolution time "
                       "3 ms against 3.5 ms for the best undivided candidates within the "
                       "workspace each kernel was given (1.17x), per iteration"))
      << line;
  EXPECT_TRUE(contains(line, "; the most workspace division held at once: 300 B of 1 KiB")) << line;
}

// A warm run measures nothing: the line says where its plans came from, so that a run that
// measured when it should not have (a changed fingerprint, a database not found) shows.
TEST(PlannedKernels, TheLineSaysWhichPlansWereMeasuredInThisRun) {
  PlannedKernels account;
  account.record("a", 1.0, 1.5, 100, runs(4));
  account.record("b", 2.0, 2.0, 200, runs(4));
  account.record("c", 2.0, 2.0, 200, runs(4));
  const auto ends_with = [](const std::string& line, const std::string& end) {
    return line.size() >= end.size() &&
           line.compare(line.size() - end.size(), end.size(), end) == 0;
  };
  const auto line_of = [&](const std::set<std::string>& measured) {
    return PlannedKernels::line(0, account.summary(measured));
  };
  EXPECT_TRUE(
      ends_with(line_of({}), "; all planned from the database's measurements, measuring nothing"))
      << line_of({});
  EXPECT_TRUE(ends_with(line_of({"a", "b", "c"}), "; all measured in this run"));
  // "z" was measured, then planned elsewhere (another device's account): not one of these.
  const std::string mixed = line_of({"b", "z"});
  EXPECT_TRUE(
      ends_with(mixed, "; 1 measured in this run, 2 planned from the database's measurements"))
      << mixed;
  EXPECT_EQ(account.summary({"b", "z"}).measured_in_this_run, 1u);
  PlannedKernels one;
  one.record("a", 1.0, 1.5, 100, runs(4));
  EXPECT_TRUE(contains(PlannedKernels::line(0, one.summary({"a"})),
                       "GPU 0: 1 kernel planned; planned convolution time"));
}

TEST(PlannedKernels, NothingPlannedOrHeldLogsNothing) {
  EXPECT_EQ(PlannedKernels::line(0, PlannedKernels().summary({})), "");
}

}  // namespace
}  // namespace ucudnn::shim
