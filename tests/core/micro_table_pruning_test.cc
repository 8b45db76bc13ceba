// What the planner leaves unmeasured (micro_table.h, Pruning): on any table where time and
// workspace do not shrink as the batch grows, nor time per image as it shrinks, a WR plan measured
// with kFastest and a desirable set measured with kDominated are exactly those measured
// exhaustively, with fewer measurements.
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
// per-image cost, a fixed workspace plus a per-image one: a smaller batch takes no less time per
// image), some unsupported at some sizes.
TableBenchmarker monotone_table(testing::SeededRandom& random, std::int64_t batch, int candidates) {
  std::vector<std::string> names;
  for (int a = 0; a < candidates; ++a) names.emplace_back(1, static_cast<char>('A' + a));
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
  EXPECT_LT(fastest_calls, dominated_calls) << "kFastest's bounds from the largest size";
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
  // Sizes 1, 2, 4, 8. kFastest measures all three at 8 first (8, 24 and 20 ms): the best plan so
  // far is A's 8 ms, and no image costs less than A's 1 ms. Below 8, B's and C's entries would
  // cost at least 3 and 2.5 ms per image (less the 5% allowance for noise), more than that plan
  // with the rest at 1 ms: skipped. A's own could tie it: measured.
  table.calls = 0;
  auto t = measure_micro_table(table, kernel, BatchSizePolicy::kPowerOfTwo, kNoWorkspaceLimit,
                               Pruning::kFastest);
  EXPECT_EQ(table.calls, 3 + 1 + 1 + 1);
  EXPECT_EQ(t.pruned, 6u);
  // For the Pareto front B (no workspace) is never dominated; C is where A is faster than its
  // bound with no more workspace (at 2 and 8).
  table.calls = 0;
  t = measure_micro_table(table, kernel, BatchSizePolicy::kPowerOfTwo, kNoWorkspaceLimit,
                          Pruning::kDominated);
  EXPECT_EQ(table.calls, 3 + 2 + 3 + 2);
  EXPECT_EQ(t.pruned, 2u);
  // Within 150 bytes A fits at size 1 only, B everywhere: the best plan so far is B's 24 ms, and
  // A's 1 ms per image at 8 (over the limit there) bounds every image. So every entry could be
  // in a better plan and is measured, but for B and C at 1, where A fits and is faster.
  table.calls = 0;
  t = measure_micro_table(table, kernel, BatchSizePolicy::kPowerOfTwo, 150, Pruning::kFastest);
  EXPECT_EQ(table.calls, 3 + 1 + 3 + 3);
  const auto plan = plan_workspace_reuse(t);
  ASSERT_TRUE(plan);
  EXPECT_DOUBLE_EQ(plan->time_ms(), 8.0) << plan->to_string();  // A at 1, eight times
}

TEST(MicroTablePruning, WhereEveryCandidateFitsUndividedOnlyTheBestIsMeasuredBelowIt) {
  // Five candidates, 0.5 ms per launch and 1 to 5 ms per image, no workspace: what PyTorch's own
  // autotuning measures (each at the full batch), then only the best below it, since a
  // division of the others costs more per image than the best undivided.
  const std::vector<std::string> names{"A", "B", "C", "D", "E"};
  TableBenchmarker table(names);
  for (std::size_t a = 0; a < names.size(); ++a)
    for (std::int64_t b = 1; b <= 64; ++b)
      table.set(names[a], b, 0.5 + static_cast<double>(a + 1) * static_cast<double>(b), 0);
  const KernelKey kernel = testing::kernel_with_batch(64);
  const auto t = measure_micro_table(table, kernel, BatchSizePolicy::kPowerOfTwo, kNoWorkspaceLimit,
                                     Pruning::kFastest);
  // All five at 64, then A at 32, 16 and 8; below 8 even A's launch cost makes a division
  // slower than A undivided, whatever the other images cost.
  EXPECT_EQ(table.calls, 5 + 3);
  EXPECT_EQ(t.pruned, 4u * 6u + 3u);
  const auto plan = plan_workspace_reuse(t);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->to_string(),
            plan_workspace_reuse(
                measure_micro_table(table, kernel, BatchSizePolicy::kPowerOfTwo, kNoWorkspaceLimit))
                ->to_string());
  ASSERT_EQ(plan->micro.size(), 1u);
  EXPECT_EQ(plan->micro[0].algorithm, "A");
}

TEST(MicroTablePruning, ACandidateRefusedAtTheFullBatchIsMeasuredWhereItRuns) {
  // F runs from 4 images down only, at 0.25 ms per image; S everywhere, at 1 ms per image.
  // Nothing bounds F below 8 until it is measured: the plan is F, twice.
  TableBenchmarker table({"S", "F"});
  for (std::int64_t b = 1; b <= 8; ++b) {
    table.set("S", b, 1.0 * static_cast<double>(b), 0);
    if (b <= 4) table.set("F", b, 0.25 * static_cast<double>(b), 0);
  }
  const KernelKey kernel = testing::kernel_with_batch(8);
  const auto t = measure_micro_table(table, kernel, BatchSizePolicy::kPowerOfTwo, kNoWorkspaceLimit,
                                     Pruning::kFastest);
  // S and F at 8, F refused there: F at 4, 2 and 1 at once. S is skipped at 4, where F is
  // faster than S's bound, and at 2 and 1, where with every other image at F's 0.25 ms it
  // could not beat F twice.
  EXPECT_EQ(table.calls, 2 + 3);
  const auto plan = plan_workspace_reuse(t);
  ASSERT_TRUE(plan);
  EXPECT_DOUBLE_EQ(plan->time_ms(), 2.0) << plan->to_string();
}

}  // namespace
}  // namespace ucudnn
