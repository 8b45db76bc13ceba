#include "core/workspace_division.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>

#include "support/random_seed.h"
#include "support/random_tables.h"

namespace ucudnn {
namespace {

using testing::random_front;

// Exhaustive: the minimum summed time over all combinations within the limit.
double exhaustive(const std::vector<KernelCandidates>& kernels, std::uint64_t limit) {
  double best = std::numeric_limits<double>::infinity();
  std::function<void(std::size_t, double, std::uint64_t)> recurse = [&](std::size_t k, double t,
                                                                        std::uint64_t w) {
    if (w > limit) return;
    if (k == kernels.size()) {
      best = std::min(best, t);
      return;
    }
    for (const auto& c : kernels[k].front) recurse(k + 1, t + c.time_ms(), w + c.workspace_bytes());
  };
  recurse(0, 0, 0);
  return best;
}

TEST(WorkspaceDivision, EqualsExhaustiveSearch) {
  testing::SeededRandom random;
  int solved = 0, by_solver = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<KernelCandidates> kernels;
    const auto count = random.uniform(3, 6);
    for (int k = 0; k < count; ++k)
      kernels.push_back({std::string("k").append(std::to_string(k)),
                         random_front(random, static_cast<int>(random.uniform(1, 6)))});
    const auto limit = static_cast<std::uint64_t>(random.uniform(0, 50 * count));
    SCOPED_TRACE("trial " + std::to_string(trial) + " limit " + std::to_string(limit));
    const double expected = exhaustive(kernels, limit);
    auto plan = plan_workspace_division(kernels, limit, 1);
    if (std::isinf(expected)) {
      ASSERT_FALSE(plan);
      EXPECT_NE(plan.error().find("smallest feasible total"), std::string::npos) << plan.error();
      continue;
    }
    ASSERT_TRUE(plan) << plan.error();
    ++solved;
    if (plan->variables > 0) ++by_solver;
    EXPECT_EQ(plan->time_ms, expected);
    EXPECT_LE(plan->workspace_bytes, limit);
    ASSERT_EQ(plan->choice.size(), kernels.size());
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      ASSERT_LT(plan->choice[k], kernels[k].front.size());
      EXPECT_EQ(plan->offsets[k], total);
      total += kernels[k].front[plan->choice[k]].workspace_bytes();
    }
    EXPECT_EQ(total, plan->workspace_bytes);
  }
  EXPECT_GT(solved, 100);
  EXPECT_GT(by_solver, 50) << "too few instances reached the integer program";
}

// Workspaces of real sizes (up to 4 GiB, aligned as the shim aligns them) and limits exactly on
// a combination's total and one byte off it: where a solver's tolerances let a division one
// unit too large through (an error, before) or call a feasible limit infeasible.
TEST(WorkspaceDivision, ExactOnAndOneByteOffEveryBoundary) {
  constexpr std::uint64_t kAlignment = 256;  // the shim's: sizes up to 4 GiB are 2^24 units
  testing::SeededRandom random;
  int limits = 0, by_solver = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<KernelCandidates> kernels;
    const auto count = random.uniform(3, 5);
    for (int k = 0; k < count; ++k) {
      std::vector<Configuration> configurations;
      const auto size = random.uniform(2, 5);
      for (int i = 0; i < size; ++i)
        configurations.push_back(Configuration{
            {MicroConfiguration{"t", std::string("A").append(std::to_string(i)), 1,
                                static_cast<double>(random.uniform(1, 1000)) / 8,
                                static_cast<std::uint64_t>(
                                    random.uniform(0, 3) == 0 ? 0 : random.uniform(1, 1ll << 24)) *
                                    kAlignment}}});
      kernels.push_back(
          {std::string("k").append(std::to_string(k)), pareto_prune(std::move(configurations))});
    }
    // Every combination's total, and the limits on and beside a few of them.
    std::vector<std::uint64_t> totals;
    std::function<void(std::size_t, std::uint64_t)> collect = [&](std::size_t k, std::uint64_t w) {
      if (k == kernels.size()) return totals.push_back(w);
      for (const auto& c : kernels[k].front) collect(k + 1, w + c.workspace_bytes());
    };
    collect(0, 0);
    std::sort(totals.begin(), totals.end());
    for (int pick = 0; pick < 8; ++pick) {
      const std::uint64_t total = totals[random.uniform(0, totals.size() - 1)];
      for (const std::uint64_t limit : {total - 1, total, total + 1}) {
        if (total == 0 && limit == total - 1) continue;
        SCOPED_TRACE("trial " + std::to_string(trial) + " limit " + std::to_string(limit));
        ++limits;
        const double expected = exhaustive(kernels, limit);
        auto plan = plan_workspace_division(kernels, limit, kAlignment);
        if (std::isinf(expected)) {
          ASSERT_FALSE(plan);
          EXPECT_NE(plan.error().find("smallest feasible total is " + std::to_string(totals[0]) +
                                      " bytes"),
                    std::string::npos)
              << plan.error();
          continue;
        }
        ASSERT_TRUE(plan) << plan.error();
        if (plan->variables > 0) ++by_solver;
        EXPECT_LE(plan->workspace_bytes, limit);
        EXPECT_EQ(plan->time_ms, expected);
      }
    }
  }
  std::printf("%d limits checked, %d through the integer program\n", limits, by_solver);
  EXPECT_GT(by_solver, limits / 4);
}

// The shim divides inside the application's process: its standard output is the
// application's. GLPK prints scaling reports unless told not to.
TEST(WorkspaceDivision, SolvingPrintsNothing) {
  auto config = [](double t, std::uint64_t units) {
    return Configuration{{MicroConfiguration{"t", "A", 1, t, units * 256}}};
  };
  // Measured: GLPK's branch and bound declared the optimum (146.75) infeasible here unscaled.
  const std::vector<KernelCandidates> kernels = {
      {"a", {config(1.625, 0), config(0.75, 11675519)}},
      {"b", {config(98.25, 0), config(6.125, 13488598)}},
      {"c", {config(11.625, 0)}},
      {"d", {config(27.125, 502116), config(12.75, 2847010)}},
      {"e", {config(100.25, 9006970), config(23, 11769818)}}};
  ::testing::internal::CaptureStdout();
  auto plan = plan_workspace_division(kernels, 6130547968ull, 256);
  const std::string printed = ::testing::internal::GetCapturedStdout();
  ASSERT_TRUE(plan) << plan.error();
  EXPECT_GT(plan->variables, 0u) << "the integer program did not run";
  EXPECT_EQ(plan->time_ms, 146.75);
  EXPECT_EQ(printed, "");
}

TEST(WorkspaceDivision, IdenticalKernelsEqualExhaustiveSearch) {
  // Networks repeat layers: kernels drawn from a small pool of fronts, so that many share
  // one front and the solver counts choices per group instead of per kernel.
  testing::SeededRandom random;
  int grouped = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    std::vector<ParetoFront> pool;
    for (int p = 0, n = static_cast<int>(random.uniform(1, 2)); p < n; ++p)
      pool.push_back(random_front(random, static_cast<int>(random.uniform(2, 6))));
    std::vector<KernelCandidates> kernels;
    const auto count = random.uniform(3, 6);
    for (int k = 0; k < count; ++k)
      kernels.push_back({std::string("k").append(std::to_string(k)),
                         pool[static_cast<std::size_t>(
                             random.uniform(0, static_cast<std::int64_t>(pool.size()) - 1))]});
    const auto limit = static_cast<std::uint64_t>(random.uniform(0, 40 * count));
    SCOPED_TRACE("trial " + std::to_string(trial) + " limit " + std::to_string(limit));
    const double expected = exhaustive(kernels, limit);
    auto plan = plan_workspace_division(kernels, limit, 1);
    ASSERT_EQ(static_cast<bool>(plan), !std::isinf(expected));
    if (!plan) continue;
    if (plan->variables > 0) ++grouped;
    EXPECT_EQ(plan->time_ms, expected);
    EXPECT_LE(plan->workspace_bytes, limit);
    double total = 0;
    for (std::size_t k = 0; k < kernels.size(); ++k)
      total += kernels[k].front[plan->choice[k]].time_ms();
    EXPECT_EQ(total, plan->time_ms);
  }
  EXPECT_GT(grouped, 50);
}

TEST(WorkspaceDivision, InfeasibleLimitNamesTheSmallestTotal) {
  auto config = [](double t, std::uint64_t w) {
    return Configuration{{MicroConfiguration{"t", "A", 1, t, w}}};
  };
  // Neither kernel has a zero-workspace configuration: nothing may be assumed to fit in 0.
  std::vector<KernelCandidates> kernels = {{"conv1", {config(10, 300), config(5, 1000)}},
                                           {"conv2", {config(8, 700)}}};
  auto plan = plan_workspace_division(kernels, 999, 1);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().find("smallest feasible total is 1000 bytes"), std::string::npos)
      << plan.error();
  auto fits = plan_workspace_division(kernels, 1000, 1);
  ASSERT_TRUE(fits) << fits.error();
  EXPECT_EQ(fits->choice, (std::vector<std::size_t>{0, 0}));
  EXPECT_EQ(fits->time_ms, 18);
}

TEST(WorkspaceDivision, HugeWorkspacesNeverWrapAround) {
  auto config = [](double t, std::uint64_t w) {
    return Configuration{{MicroConfiguration{"t", "A", 1, t, w}}};
  };
  // One configuration near 2^64 under a 1000-byte limit: infeasible, not "0 bytes".
  std::vector<KernelCandidates> one = {{"huge", {config(1, UINT64_MAX - 10)}}};
  auto plan = plan_workspace_division(one, 1000, 256);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().find("infeasible"), std::string::npos) << plan.error();
  // Two kernels of 2^63 bytes each do not fit in 2^64 - 1.
  std::vector<KernelCandidates> two = {{"a", {config(1, 1ULL << 63)}},
                                       {"b", {config(1, 1ULL << 63)}}};
  EXPECT_FALSE(plan_workspace_division(two, UINT64_MAX, 1));
  // A huge fast configuration beside a small slow one: the small one is chosen.
  std::vector<KernelCandidates> mixed = {{"m", {config(10, 100), config(1, UINT64_MAX - 10)}}};
  auto chosen = plan_workspace_division(mixed, 1000, 256);
  ASSERT_TRUE(chosen) << chosen.error();
  EXPECT_EQ(chosen->choice[0], 0u);
  EXPECT_EQ(chosen->workspace_bytes, 100u) << "the last segment needs no padding";
}

TEST(WorkspaceDivision, KernelWithoutConfigurationIsAnError) {
  std::vector<KernelCandidates> kernels = {{"conv3 BackwardFilter", {}}};
  auto plan = plan_workspace_division(kernels, 1 << 20);
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().find("conv3 BackwardFilter"), std::string::npos);
}

TEST(WorkspaceDivision, AlignedSegmentsFitTheLimit) {
  auto config = [](double t, std::uint64_t w) {
    return Configuration{{MicroConfiguration{"t", "A", 1, t, w}}};
  };
  std::vector<KernelCandidates> kernels = {{"a", {config(10, 0), config(1, 100)}},
                                           {"b", {config(10, 0), config(2, 100)}}};
  // Unaligned the two fast ones would need 200 <= 300, but aligned to 256 they need 512.
  auto plan = plan_workspace_division(kernels, 300, 256);
  ASSERT_TRUE(plan) << plan.error();
  EXPECT_EQ(plan->time_ms, 11);
  EXPECT_LE(plan->workspace_bytes, 300u);
  EXPECT_EQ(plan->offsets[1] % 256, 0u);
}

// Exhaustive under the arena's rule: segments at multiples of `alignment`, the last unpadded,
// so a combination needs its aligned sizes summed less the largest padding among them.
// `whole_units` instead pads every segment and counts only whole units of the limit.
double exhaustive_aligned(const std::vector<KernelCandidates>& kernels, std::uint64_t limit,
                          std::uint64_t alignment, bool whole_units) {
  double best = std::numeric_limits<double>::infinity();
  std::function<void(std::size_t, double, std::uint64_t, std::uint64_t)> recurse =
      [&](std::size_t k, double t, std::uint64_t aligned, std::uint64_t padding) {
        if (k == kernels.size()) {
          if (whole_units ? aligned <= limit / alignment * alignment : aligned - padding <= limit)
            best = std::min(best, t);
          return;
        }
        for (const auto& c : kernels[k].front) {
          const std::uint64_t rounded =
              (c.workspace_bytes() + alignment - 1) / alignment * alignment;
          recurse(k + 1, t + c.time_ms(), aligned + rounded,
                  std::max(padding, rounded - c.workspace_bytes()));
        }
      };
  recurse(0, 0, 0, 0);
  return best;
}

// A limit that is not a multiple of the alignment: the segment laid out last reaches into the
// remainder. One kernel (a model on one stream is one segment) gets exactly the fastest
// configuration within the limit, as WR within it would; several never do worse than whole
// units, and the segments never overlap or leave the limit.
TEST(WorkspaceDivision, TheLastSegmentUsesTheLimitsRemainder) {
  constexpr std::uint64_t kAlignment = 16;
  testing::SeededRandom random;
  int beyond_whole_units = 0, single = 0, short_of_exact = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<KernelCandidates> kernels;
    const auto count = random.uniform(1, 4);
    for (int k = 0; k < count; ++k)
      kernels.push_back({std::string("k").append(std::to_string(k)),
                         random_front(random, static_cast<int>(random.uniform(1, 6)))});
    const auto limit = static_cast<std::uint64_t>(random.uniform(0, 60 * count));
    SCOPED_TRACE("trial " + std::to_string(trial) + " limit " + std::to_string(limit));
    const double exact = exhaustive_aligned(kernels, limit, kAlignment, false);
    const double whole = exhaustive_aligned(kernels, limit, kAlignment, true);
    auto plan = plan_workspace_division(kernels, limit, kAlignment);
    ASSERT_EQ(static_cast<bool>(plan), !std::isinf(exact)) << (plan ? "" : plan.error());
    if (!plan) continue;
    if (count == 1) {
      ++single;
      EXPECT_EQ(plan->time_ms, exact);
    }
    EXPECT_GE(plan->time_ms, exact);
    EXPECT_LE(plan->time_ms, whole);
    if (plan->time_ms < whole) ++beyond_whole_units;
    if (plan->time_ms > exact) ++short_of_exact;
    EXPECT_LE(plan->workspace_bytes, limit);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> segments;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      EXPECT_EQ(plan->offsets[k] % kAlignment, 0u);
      segments.emplace_back(plan->offsets[k],
                            plan->offsets[k] + kernels[k].front[plan->choice[k]].workspace_bytes());
      EXPECT_LE(segments.back().second, plan->workspace_bytes);
    }
    std::sort(segments.begin(), segments.end());
    for (std::size_t i = 1; i < segments.size(); ++i)
      EXPECT_LE(segments[i - 1].second, segments[i].first) << "segments overlap";
  }
  std::printf(
      "%d single kernels, %d plans faster than whole units allow, %d short of the exact "
      "optimum\n",
      single, beyond_whole_units, short_of_exact);
  EXPECT_GT(single, 300);
  EXPECT_GT(beyond_whole_units, 100);
}

TEST(WorkspaceDivision, ALimitOffTheAlignmentIsUsedToTheByte) {
  auto config = [](double t, std::uint64_t w) {
    return Configuration{{MicroConfiguration{"t", "A", 1, t, w}}};
  };
  // 1000 bytes hold the 1000-byte configuration; in whole 256-byte units only 768 were used.
  std::vector<KernelCandidates> one = {{"conv", {config(10, 0), config(5, 700), config(1, 1000)}}};
  auto plan = plan_workspace_division(one, 1000, 256);
  ASSERT_TRUE(plan) << plan.error();
  EXPECT_EQ(plan->choice[0], 2u);
  EXPECT_EQ(plan->workspace_bytes, 1000u);
  // Two kernels: the one with more padding goes last, so both fast ones fit 256 + 300 <= 600.
  std::vector<KernelCandidates> two = {{"a", {config(10, 0), config(1, 100)}},
                                       {"b", {config(10, 0), config(2, 300)}}};
  auto both = plan_workspace_division(two, 600, 256);
  ASSERT_TRUE(both) << both.error();
  EXPECT_EQ(both->time_ms, 3);
  EXPECT_EQ(both->offsets, (std::vector<std::uint64_t>{0, 256}));
  EXPECT_EQ(both->workspace_bytes, 556u);
  // The smallest feasible total is counted the same way.
  std::vector<KernelCandidates> heavy = {{"h", {config(1, 900)}}};
  auto infeasible = plan_workspace_division(heavy, 899, 256);
  ASSERT_FALSE(infeasible);
  EXPECT_NE(infeasible.error().find("smallest feasible total is 900 bytes"), std::string::npos)
      << infeasible.error();
  EXPECT_TRUE(plan_workspace_division(heavy, 900, 256));
}

}  // namespace
}  // namespace ucudnn
