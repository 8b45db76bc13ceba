#include "core/pareto_front.h"

#include <gtest/gtest.h>

#include "core/workspace_reuse.h"
#include "support/random_tables.h"

namespace ucudnn {
namespace {

using Point = std::pair<double, std::uint64_t>;

std::vector<Point> points_of(const ParetoFront& front) {
  std::vector<Point> points;
  for (const auto& c : front) points.emplace_back(c.time_ms(), c.workspace_bytes());
  return points;
}

std::vector<Point> brute_force_front(const MicroTable& table) {
  return testing::front_of_points(testing::all_points(table));
}

void expect_well_formed(const ParetoFront& front, const MicroTable& table) {
  for (std::size_t i = 0; i < front.size(); ++i) {
    EXPECT_EQ(front[i].batch(), table.batch);
    if (i > 0) {
      EXPECT_LT(front[i - 1].workspace_bytes(), front[i].workspace_bytes());
      EXPECT_GT(front[i - 1].time_ms(), front[i].time_ms());
    }
  }
  for (const auto& a : front)
    for (const auto& b : front)
      if (&a != &b) {
        EXPECT_FALSE(b.time_ms() <= a.time_ms() && b.workspace_bytes() <= a.workspace_bytes())
            << b.to_string() << " dominates " << a.to_string();
      }
}

TEST(ParetoFront, EqualsBruteForceOnSmallInstances) {
  testing::SeededRandom random;
  for (int trial = 0; trial < 1500; ++trial) {
    const auto [table, description] =
        testing::random_case(random, 9, BatchSizePolicy::kUndivided, 3);
    SCOPED_TRACE("trial " + std::to_string(trial) + " " + description);
    const auto front = desirable_configurations(table);
    EXPECT_EQ(points_of(front), brute_force_front(table));
    expect_well_formed(front, table);
  }
}

TEST(ParetoFront, ContainsTheWorkspaceReuseOptimumAtEveryLimit) {
  testing::SeededRandom random;
  for (int trial = 0; trial < 300; ++trial) {
    const auto [table, description] =
        testing::random_case(random, 64, BatchSizePolicy::kPowerOfTwo, 6);
    SCOPED_TRACE("trial " + std::to_string(trial) + " " + description);
    const auto batch = table.batch;
    const auto front = desirable_configurations(table);
    expect_well_formed(front, table);
    for (std::uint64_t limit = 0; limit <= 3 * static_cast<std::uint64_t>(batch) + 4; ++limit) {
      auto wr = plan_workspace_reuse(restrict_to_limit(table, limit));
      const Configuration* best = nullptr;
      for (const auto& c : front)
        if (c.workspace_bytes() <= limit) best = &c;  // the front is sorted by workspace
      ASSERT_EQ(static_cast<bool>(wr), best != nullptr) << "limit " << limit;
      if (best) {
        EXPECT_EQ(wr->time_ms(), best->time_ms()) << "limit " << limit;
      }
    }
  }
}

TEST(ParetoFront, PruneKeepsOnlyNonDominated) {
  auto config = [](double t, std::uint64_t w) {
    return Configuration{{MicroConfiguration{"t", "A", 1, t, w}}};
  };
  auto front = pareto_prune({config(5, 10), config(4, 20), config(6, 5), config(4, 25),
                             config(7, 10), config(5, 10), config(3, 30)});
  EXPECT_EQ(points_of(front), (std::vector<Point>{{6, 5}, {5, 10}, {4, 20}, {3, 30}}));
}

TEST(ParetoFront, EmptyWhenNothingCoversTheBatch) {
  MicroTable table;
  table.batch = 4;
  table.sizes = {4};
  table.candidates = {{}};
  EXPECT_TRUE(desirable_configurations(table).empty());
}

// One run of the dynamic program answers every sub-batch as separate runs would.
TEST(ParetoFront, FrontsByBatchEqualEachBatchsOwnFront) {
  testing::SeededRandom random;
  for (int trial = 0; trial < 300; ++trial) {
    const auto [table, description] =
        testing::random_case(random, 20, BatchSizePolicy::kUndivided, 4);
    SCOPED_TRACE("trial " + std::to_string(trial) + " " + description);
    const auto fronts = desirable_configurations_by_batch(table);
    ASSERT_EQ(fronts.size(), static_cast<std::size_t>(table.batch) + 1);
    EXPECT_EQ(fronts[0], ParetoFront{Configuration{}});
    for (std::int64_t b = 1; b <= table.batch; ++b) {
      MicroTable at = table;
      at.batch = b;
      EXPECT_EQ(fronts[static_cast<std::size_t>(b)], desirable_configurations(at)) << "batch " << b;
    }
  }
}

}  // namespace
}  // namespace ucudnn
