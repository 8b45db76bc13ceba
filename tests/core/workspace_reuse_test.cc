#include "core/workspace_reuse.h"

#include <gtest/gtest.h>

#include "support/random_tables.h"
#include "support/table_benchmarker.h"

namespace ucudnn {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

void expect_valid(const Configuration& c, const MicroTable& table) {
  EXPECT_EQ(c.batch(), table.batch);
  for (const auto& m : c.micro) {
    auto at = std::find(table.sizes.begin(), table.sizes.end(), m.batch);
    ASSERT_NE(at, table.sizes.end()) << "micro-batch " << m.batch << " is not an allowed size";
    const auto& row = table.candidates[at - table.sizes.begin()];
    EXPECT_NE(std::find(row.begin(), row.end(), m), row.end())
        << "micro-configuration not in the table";
  }
}

TEST(WorkspaceReuse, EqualsBruteForceOnRandomTables) {
  testing::SeededRandom random;
  for (int trial = 0; trial < 3000; ++trial) {
    const auto [full, description] =
        testing::random_case(random, 24, BatchSizePolicy::kUndivided, 5);
    const auto table = restrict_to_limit(full, random.uniform(0, 3 * full.batch + 4));
    SCOPED_TRACE("trial " + std::to_string(trial) + " " + description);
    const double expected = testing::brute_force_wr(table);
    auto plan = plan_workspace_reuse(table);
    if (std::isinf(expected)) {
      EXPECT_FALSE(plan) << plan->to_string();
      continue;
    }
    ASSERT_TRUE(plan) << plan.error();
    EXPECT_EQ(plan->time_ms(), expected);
    expect_valid(*plan, table);
  }
}

// The range a plan is stored with: WR gives a plan of the same time at every limit in it
// (so one stored row may answer them all), and nothing faster fits anywhere in the range.
TEST(WorkspaceReuse, APlanIsTheAnswerForEveryLimitOfItsRange) {
  testing::SeededRandom random;
  int ranges_checked = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const auto [full, description] =
        testing::random_case(random, 24, BatchSizePolicy::kUndivided, 5);
    const std::uint64_t asked = static_cast<std::uint64_t>(random.uniform(0, 3 * full.batch + 4));
    const auto table = restrict_to_limit(full, asked);
    SCOPED_TRACE("trial " + std::to_string(trial) + " " + description + " limit " +
                 std::to_string(asked));
    auto plan = plan_workspace_reuse(table);
    if (!plan) continue;
    const auto range = limits_answered(table, *plan);
    ASSERT_TRUE(range.contains(asked));
    EXPECT_EQ(range.from, plan->workspace_bytes());
    // Candidates chosen under the limit (knob variants): the range starts at that limit.
    const auto chosen_there = limits_answered(table, *plan, asked);
    EXPECT_EQ(chosen_there.from, asked);
    EXPECT_EQ(chosen_there.below, range.below);
    // Every limit from the start of the range to one past its end (capped for unbounded).
    const std::uint64_t last =
        range.below == LimitRange::kUnbounded ? asked + 3 * full.batch + 8 : range.below;
    for (std::uint64_t limit = range.from; limit <= last; ++limit) {
      auto again = plan_workspace_reuse(restrict_to_limit(full, limit));
      ASSERT_TRUE(again) << limit;
      if (range.contains(limit))
        EXPECT_EQ(again->time_ms(), plan->time_ms()) << "limit " << limit;
      else
        EXPECT_LT(again->time_ms(), plan->time_ms() + 1e-9) << "limit " << limit;
    }
    ++ranges_checked;
  }
  EXPECT_GT(ranges_checked, 1000);
}

TEST(WorkspaceReuse, ReproducesFigureFive) {
  // FFT is the most efficient per image but needs 1 MiB per image; the limit is 60 MiB.
  // IMPLICIT_GEMM needs no workspace but is slower per image with a smaller setup.
  testing::TableBenchmarker table({"IMPLICIT_GEMM", "FFT"});
  for (int b = 1; b <= 256; ++b) {
    table.set("IMPLICIT_GEMM", b, 1.0 + 1.3 * b, 0);
    table.set("FFT", b, 10.0 + 1.0 * b, b * kMiB);
  }
  auto micro =
      measure_micro_table(table, testing::kernel_with_batch(256), BatchSizePolicy::kAll, 60 * kMiB);
  auto plan = plan_workspace_reuse(micro);
  ASSERT_TRUE(plan) << plan.error();
  EXPECT_EQ(plan->to_string(), "table:FFT:60 x4 + table:IMPLICIT_GEMM:16");
  EXPECT_DOUBLE_EQ(plan->time_ms(), 4 * 70.0 + 1.0 + 1.3 * 16);
  EXPECT_EQ(plan->workspace_bytes(), 60 * kMiB);
}

TEST(WorkspaceReuse, UndividedWhenTheFastestFits) {
  testing::TableBenchmarker table({"A", "B"});
  for (int b = 1; b <= 64; ++b) {
    table.set("A", b, 5.0 + b, 0);
    table.set("B", b, 2.0 + 0.5 * b, b * kMiB);
  }
  auto micro = measure_micro_table(table, testing::kernel_with_batch(64),
                                   BatchSizePolicy::kPowerOfTwo, kNoWorkspaceLimit);
  auto plan = plan_workspace_reuse(micro);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->to_string(), "table:B:64");
}

TEST(WorkspaceReuse, NothingFitsIsAClearResult) {
  testing::TableBenchmarker table({"FFT"});
  for (int b = 1; b <= 8; ++b) table.set("FFT", b, 1.0, kMiB);
  auto micro =
      measure_micro_table(table, testing::kernel_with_batch(8), BatchSizePolicy::kAll, kMiB - 1);
  auto plan = plan_workspace_reuse(micro);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().find("within the workspace limit"), std::string::npos) << plan.error();
}

TEST(WorkspaceReuse, UndividedPolicyNeverSplits) {
  testing::TableBenchmarker table({"A"});
  for (int b = 1; b <= 16; ++b) table.set("A", b, b == 16 ? 1000.0 : 1.0, 0);
  auto micro =
      measure_micro_table(table, testing::kernel_with_batch(16), BatchSizePolicy::kUndivided, 0);
  auto plan = plan_workspace_reuse(micro);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->to_string(), "table:A:16");
}

TEST(WorkspaceReuse, TiesAreDeterministicAndPreferLargerMicroBatches) {
  testing::TableBenchmarker table({"B", "A"});
  for (int b = 1; b <= 12; ++b) {
    table.set("A", b, 2.0 * b, 0);
    table.set("B", b, 2.0 * b, 0);
  }
  auto micro = measure_micro_table(table, testing::kernel_with_batch(12), BatchSizePolicy::kAll, 0);
  auto plan = plan_workspace_reuse(micro);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->to_string(), "table:A:12");  // equal time and workspace: by name
}

}  // namespace
}  // namespace ucudnn
