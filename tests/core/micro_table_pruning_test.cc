// What the planner leaves unmeasured (micro_table.h, Pruning): on any table where time and
// workspace do not shrink as the batch grows, a WR plan measured with kFastest and a desirable
// set measured with kDominated are exactly those measured exhaustively, with fewer
// measurements.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/micro_table.h"
#include "core/pareto_front.h"
#include "core/workspace_reuse.h"
#include "support/random_seed.h"
#include "support/table_benchmarker.h"

namespace ucudnn {
namespace {

using testing::TableBenchmarker;

// Random candidates whose time and workspace grow with the micro-batch (launch cost plus a
// per-image cost, a fixed workspace plus a per-image one), some unsupported at some sizes.
TableBenchmarker monotone_table(testing::SeededRandom& random, std::int64_t batch, int candidates) {
  std::vector<std::string> names;
  for (int a = 0; a < candidates; ++a) names.push_back("C" + std::to_string(a));
  TableBenchmarker table(names);
  for (const auto& name : names) {
    const double launch = static_cast<double>(random.uniform(1, 20));
    const double per_image = static_cast<double>(random.uniform(1, 40));
    const auto fixed = static_cast<std::uint64_t>(random.uniform(0, 100));
    const auto per_image_bytes = static_cast<std::uint64_t>(random.uniform(0, 3) * 10);
    for (std::int64_t b = 1; b <= batch; ++b)
      if (!random.chance(0.1))
        table.set(name, b, launch + per_image * static_cast<double>(b),
                  fixed + per_image_bytes * static_cast<std::uint64_t>(b));
  }
  return table;
}

TEST(MicroTablePruning, PlansAndDesirableSetsAreTheExhaustiveOnes) {
  testing::SeededRandom random;
  const auto kernel_of = [](std::int64_t batch) { return testing::kernel_with_batch(batch); };
  int exhaustive_calls = 0, fastest_calls = 0, dominated_calls = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const std::int64_t batch = random.uniform(1, 40);
    const auto policy = random.chance(0.5) ? BatchSizePolicy::kAll : BatchSizePolicy::kPowerOfTwo;
    TableBenchmarker table = monotone_table(random, batch, static_cast<int>(random.uniform(1, 8)));
    const std::uint64_t limit =
        random.chance(0.2) ? kNoWorkspaceLimit : static_cast<std::uint64_t>(random.uniform(0, 600));
    SCOPED_TRACE("trial " + std::to_string(trial) + ": batch " + std::to_string(batch) +
                 ", limit " + std::to_string(limit));
    const KernelKey kernel = kernel_of(batch);

    table.calls = 0;
    const MicroTable all = measure_micro_table(table, kernel, policy, limit);
    exhaustive_calls += table.calls;
    EXPECT_EQ(all.pruned, 0u);
    table.calls = 0;
    const MicroTable fastest = measure_micro_table(table, kernel, policy, limit, Pruning::kFastest);
    fastest_calls += table.calls;
    table.calls = 0;
    const MicroTable dominated =
        measure_micro_table(table, kernel, policy, limit, Pruning::kDominated);
    dominated_calls += table.calls;

    const auto expected = plan_workspace_reuse(all);
    const auto actual = plan_workspace_reuse(fastest);
    ASSERT_EQ(expected.has_value(), actual.has_value());
    if (expected) {
      EXPECT_EQ(*actual, *expected);
      // The pruned table knows less of what is over the limit, so the range its plan claims to
      // answer may be wider: the plan must be the optimum at its widest limit too.
      const LimitRange range = limits_answered(fastest, *actual);
      EXPECT_EQ(range.from, limits_answered(all, *expected).from);
      const std::uint64_t widest =
          range.below == LimitRange::kUnbounded ? kNoWorkspaceLimit : range.below - 1;
      const auto there = plan_workspace_reuse(measure_micro_table(table, kernel, policy, widest));
      ASSERT_TRUE(there);
      EXPECT_DOUBLE_EQ(there->time_ms(), actual->time_ms()) << "within " << widest;
    }
    EXPECT_EQ(desirable_configurations(dominated), desirable_configurations(all));
    EXPECT_EQ(fastest.complete, all.complete);
  }
  EXPECT_LT(fastest_calls, exhaustive_calls) << "kFastest should skip measurements";
  EXPECT_LT(dominated_calls, exhaustive_calls) << "kDominated should skip measurements";
  EXPECT_LE(fastest_calls, dominated_calls) << "kFastest skips all kDominated does";
}

TEST(MicroTablePruning, ASlowCandidateIsSkippedWhereItCannotWin) {
  // A: 1 ms and 100 bytes per image; B: 3 ms per image, no workspace; C: 2.5 ms, 200 bytes.
  TableBenchmarker table({"A", "B", "C"});
  for (std::int64_t b = 1; b <= 8; ++b) {
    table.set("A", b, 1.0 * static_cast<double>(b), 100 * static_cast<std::uint64_t>(b));
    table.set("B", b, 3.0 * static_cast<double>(b), 0);
    table.set("C", b, 2.5 * static_cast<double>(b), 200 * static_cast<std::uint64_t>(b));
  }
  const KernelKey kernel = testing::kernel_with_batch(8);
  // Sizes 1, 2, 4, 8. Under no limit A at 2 (2 ms) is faster than B and C were at 1 (3 and 2.5
  // ms): both skipped; at 4 their bound is still what they took at 1, A's 4 ms is not faster,
  // and they are measured (12 and 10 ms); at 8 A's 8 ms is faster than that: skipped again.
  table.calls = 0;
  auto t = measure_micro_table(table, kernel, BatchSizePolicy::kPowerOfTwo, kNoWorkspaceLimit,
                               Pruning::kFastest);
  EXPECT_EQ(table.calls, 3 + 1 + 3 + 1);
  EXPECT_EQ(t.pruned, 4u);
  // For the Pareto front B (no workspace) is never dominated; C is where A is faster than its
  // bound with no more workspace (at 2 and 8).
  table.calls = 0;
  t = measure_micro_table(table, kernel, BatchSizePolicy::kPowerOfTwo, kNoWorkspaceLimit,
                          Pruning::kDominated);
  EXPECT_EQ(table.calls, 3 + 2 + 3 + 2);
  EXPECT_EQ(t.pruned, 2u);
  // Within 150 bytes A fits at size 1 only: nothing bounds B, which wins from size 2 on.
  table.calls = 0;
  t = measure_micro_table(table, kernel, BatchSizePolicy::kPowerOfTwo, 150, Pruning::kFastest);
  EXPECT_EQ(table.calls, 3 + 3 + 3 + 3);
  const auto plan = plan_workspace_reuse(t);
  ASSERT_TRUE(plan);
  EXPECT_DOUBLE_EQ(plan->time_ms(), 8.0) << plan->to_string();  // A at 1, eight times
}

}  // namespace
}  // namespace ucudnn
