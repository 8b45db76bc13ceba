#include "core/memoizing_benchmarker.h"

#include <gtest/gtest.h>

#include "core/micro_table.h"
#include "support/table_benchmarker.h"

namespace ucudnn {
namespace {

TEST(MemoizingBenchmarker, MeasuresEachMicroBatchProblemOnce) {
  testing::TableBenchmarker table({"A", "B"});
  for (int b = 1; b <= 8; ++b) {
    table.set("A", b, b * 2.0, 0);
    table.set("B", b, b * 1.0, b * 100);
  }
  MemoizingBenchmarker memo(table);
  const auto kernel = testing::kernel_with_batch(8);
  auto first = measure_micro_table(memo, kernel, BatchSizePolicy::kAll, kNoWorkspaceLimit);
  EXPECT_EQ(table.calls, 16);
  auto again = measure_micro_table(memo, kernel, BatchSizePolicy::kAll, 300);
  EXPECT_EQ(table.calls, 16) << "a second plan must not measure again";
  // A different mini-batch shares the micro-batch problems of sizes 1..4.
  measure_micro_table(memo, testing::kernel_with_batch(4), BatchSizePolicy::kAll,
                      kNoWorkspaceLimit);
  EXPECT_EQ(table.calls, 16);
  EXPECT_EQ(memo.measurements_taken(), 16u);
  ASSERT_EQ(again.candidates[2].size(), 2u);  // size 3: B needs 300, fits
  ASSERT_EQ(again.candidates[3].size(), 1u);  // size 4: B needs 400, does not
  EXPECT_EQ(again.candidates[3][0].algorithm, "A");
  EXPECT_EQ(again.candidates[3][0].backend, "table");
  EXPECT_DOUBLE_EQ(first.candidates[3][1].time_ms, 4.0);
}

TEST(MemoizingBenchmarker, RemembersUnsupported) {
  testing::TableBenchmarker table({"A"});
  MemoizingBenchmarker memo(table);
  const auto kernel = testing::kernel_with_batch(2);
  EXPECT_FALSE(memo.benchmark(kernel, "A", 1));
  EXPECT_FALSE(memo.benchmark(kernel, "A", 1));
  EXPECT_EQ(table.calls, 1);
}

}  // namespace
}  // namespace ucudnn
