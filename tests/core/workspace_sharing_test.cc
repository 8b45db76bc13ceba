#include "core/workspace_sharing.h"

#include "core/sharing_groups.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "support/random_seed.h"
#include "support/random_tables.h"

namespace ucudnn {
namespace {

using testing::random_front;

// Exhaustive: every combination of configurations; a group's segment is its largest member's
// workspace, and the segments together stay within the limit.
double exhaustive(const std::vector<SharingKernel>& kernels, std::size_t groups,
                  std::uint64_t limit) {
  double best = std::numeric_limits<double>::infinity();
  std::vector<std::uint64_t> segment(groups, 0);
  std::function<void(std::size_t, double)> recurse = [&](std::size_t k, double time) {
    if (k == kernels.size()) {
      std::uint64_t sum = 0;
      for (auto bytes : segment) sum += bytes;
      if (sum <= limit) best = std::min(best, time);
      return;
    }
    for (const auto& c : kernels[k].front) {
      const auto before = segment[kernels[k].group];
      segment[kernels[k].group] = std::max(before, c.workspace_bytes());
      recurse(k + 1, time + kernels[k].weight * c.time_ms());
      segment[kernels[k].group] = before;
    }
  };
  recurse(0, 0);
  return best;
}

TEST(WorkspaceSharing, EqualsExhaustiveSearchOverEveryCombination) {
  testing::SeededRandom random;
  int solved = 0, shared = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const auto groups = static_cast<std::size_t>(random.uniform(1, 3));
    std::vector<SharingKernel> kernels;
    const auto count = random.uniform(1, 5);
    for (int k = 0; k < count; ++k)
      kernels.push_back({std::string("k").append(std::to_string(k)),
                         random_front(random, static_cast<int>(random.uniform(1, 4))),
                         static_cast<double>(random.uniform(1, 3)),
                         static_cast<std::size_t>(random.uniform(0, groups - 1))});
    const auto limit = static_cast<std::uint64_t>(random.uniform(0, 50 * groups));
    SCOPED_TRACE("trial " + std::to_string(trial) + " limit " + std::to_string(limit));
    const double expected = exhaustive(kernels, groups, limit);
    auto plan = plan_shared_division(kernels, groups, limit, 1);
    if (std::isinf(expected)) {
      EXPECT_FALSE(plan);
      continue;
    }
    ASSERT_TRUE(plan) << plan.error();
    ++solved;
    EXPECT_NEAR(plan->time_ms, expected, 1e-9 * expected);
    // The plan's own account holds: each kernel within its group's segment, segments apart.
    double time = 0;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const auto& c = kernels[k].front[plan->choice[k]];
      EXPECT_LE(c.workspace_bytes(), plan->segment_bytes[kernels[k].group]);
      time += kernels[k].weight * c.time_ms();
    }
    EXPECT_NEAR(time, plan->time_ms, 1e-9 * time);
    std::map<std::uint64_t, std::uint64_t> spans;
    for (std::size_t g = 0; g < groups; ++g)
      if (plan->segment_bytes[g] > 0) spans[plan->offsets[g]] = plan->segment_bytes[g];
    std::uint64_t end = 0;
    for (const auto& [offset, bytes] : spans) {
      EXPECT_GE(offset, end) << "segments overlap";
      end = offset + bytes;
    }
    EXPECT_LE(end, plan->workspace_bytes);
    EXPECT_LE(plan->workspace_bytes, limit);
    shared += kernels.size() > groups;
  }
  std::printf("%d of 1500 instances feasible, %d with kernels sharing\n", solved, shared);
  EXPECT_GT(solved, 500);
}

// One group (one stream): every kernel runs its fastest configuration within the total, in one
// segment as large as the largest of those.
TEST(WorkspaceSharing, OneGroupIsEachKernelsFastestWithinTheTotal) {
  testing::SeededRandom random;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<SharingKernel> kernels;
    for (int k = 0; k < 20; ++k)
      kernels.push_back(
          {std::string("k").append(std::to_string(k)), random_front(random, 6), 1.0 + k % 3, 0});
    const std::uint64_t limit = 40;
    auto plan = plan_shared_division(kernels, 1, limit, 1);
    double time = 0;
    std::uint64_t largest = 0;
    bool feasible = true;
    for (const auto& k : kernels) {
      const auto i = fastest_within(k.front, limit);
      if (i == k.front.size()) {
        feasible = false;
        break;
      }
      time += k.weight * k.front[i].time_ms();
      largest = std::max(largest, k.front[i].workspace_bytes());
    }
    ASSERT_EQ(static_cast<bool>(plan), feasible);
    if (!feasible) continue;
    EXPECT_DOUBLE_EQ(plan->time_ms, time);
    EXPECT_EQ(plan->workspace_bytes, largest);
    EXPECT_EQ(plan->variables, 0u) << "nothing to trade off";
  }
}

TEST(WorkspaceSharing, StoredMembersSharingALabelShareASegment) {
  auto c = [](std::uint64_t bytes) {
    return Configuration{{MicroConfiguration{"t", "a", 1, 1, bytes}}};
  };
  const auto layout = shared_segment_layout({c(100), c(300), c(200), c(10)}, {0, 1, 0, 3}, 256);
  EXPECT_EQ(layout.offset, (std::vector<std::uint64_t>{0, 256, 0, 768}));
  EXPECT_EQ(layout.bytes, (std::vector<std::uint64_t>{200, 300, 200, 10}));
  EXPECT_EQ(layout.arena_bytes, 778u) << "the last segment needs no padding";
}

// One stream: one group. Two streams tied by a kernel run on both: one group. A third stream
// alone: its own. Kernels in an application's buffers: a group per buffer, whatever the
// stream. A kernel never run joins the largest group of streams.
TEST(SharingGroups, StreamsTiedByAKernelShareApplicationBuffersDoNot) {
  const auto groups = sharing_groups({{{1}, {}},
                                      {{2}, {}},
                                      {{3}, {}},
                                      {{1, 2}, {}},
                                      {{2}, {}},
                                      {{}, {}},
                                      {{3}, std::string("layer 7")},
                                      {{1}, std::string("layer 7")},
                                      {{1}, std::string("layer 8")}});
  EXPECT_EQ(groups.count, 4u);
  EXPECT_EQ(groups.group_of, (std::vector<std::size_t>{0, 0, 1, 0, 0, 0, 2, 2, 3}));
  EXPECT_EQ(groups.streams[0], (std::vector<std::uintptr_t>{1, 2}));
  EXPECT_EQ(groups.streams[1], (std::vector<std::uintptr_t>{3}));
  EXPECT_TRUE(groups.streams[2].empty());
  const auto why = sharing_reasons(
      groups, [](std::uintptr_t s) { return std::string("stream ").append(std::to_string(s)); });
  EXPECT_EQ(why[0],
            "on stream 1 and stream 2 (tied into one segment: some kernel runs on more than one "
            "of them, as layers of the same shape do, ordered between them by events); they may "
            "overlap the 1 kernel on stream 3");
  EXPECT_EQ(why[1], "on stream 3; they may overlap the 5 kernels on stream 1 and stream 2");
  EXPECT_EQ(why[2], "in layer 7, which the application keeps for it");
  EXPECT_EQ(sharing_reasons(sharing_groups({{{1}, {}}}), [](std::uintptr_t) { return "s"; })[0],
            "on s, where every kernel runs: nothing can overlap them");
  const auto alone = sharing_groups({{{}, {}}, {{}, {}}});
  EXPECT_EQ(alone.count, 1u);
  EXPECT_EQ(alone.group_of, (std::vector<std::size_t>{0, 0}));
  // Kernels only asked about when divided (UcudnnHandle_t::optimize() before any run) have no
  // stream to name: it said "on , where every kernel runs".
  EXPECT_EQ(sharing_reasons(alone, [](std::uintptr_t) { return "s"; })[0],
            "not run yet (only asked about), taken to run one after another: nothing can "
            "overlap them");
}

}  // namespace
}  // namespace ucudnn
