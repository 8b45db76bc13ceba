// The CPU/GPU split of one kernel's batch on synthetic tables: where it wins, where it does not
// pay, where the copies decide, and that the scan is exact against brute force.
#include "core/hybrid_split.h"

#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "support/random_tables.h"

namespace ucudnn {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// A 4x4 image, 2 channels in and out, 3x3 filter: small numbers of bytes per sample.
KernelKey kernel_at(std::int64_t batch, Operation operation = Operation::kForward) {
  return {operation, make_conv2d_problem({batch, 2, 4, 4, 2, 3, 3, 1, 1})};
}

// Every size the policy allows, one algorithm taking `per_sample` ms a sample (+ `fixed`).
MicroTable linear_table(std::int64_t batch, const std::string& backend, double per_sample,
                        double fixed = 0, std::uint64_t workspace = 0,
                        BatchSizePolicy policy = BatchSizePolicy::kAll) {
  MicroTable table;
  table.batch = batch;
  table.sizes = micro_batch_sizes(policy, batch);
  for (auto size : table.sizes)
    table.candidates.push_back(
        {{backend, "A", size, fixed + per_sample * static_cast<double>(size), workspace}});
  return table;
}

constexpr std::uint64_t kUnlimited = kNoWorkspaceLimit;

TEST(HybridSplit, EqualSpeedsSplitTheBatchInHalves) {
  const auto kernel = kernel_at(8);
  const auto split =
      plan_hybrid_split(kernel, linear_table(8, "cudnn", 1), linear_table(8, "cpu", 1), HostLink{},
                        kUnlimited, HybridMode::kAuto);
  ASSERT_TRUE(split) << split.error();
  EXPECT_EQ(split->host_samples, 4);
  EXPECT_EQ(split->configuration.time_ms(), 4);
  EXPECT_EQ(split->device_only_ms, 8);
  EXPECT_EQ(split->configuration.batch(), 8);
  EXPECT_EQ(split->configuration.device_batch(), 4);
  ASSERT_TRUE(split->configuration.offload);
  EXPECT_EQ(split->configuration.offload->batch(), 4);
  EXPECT_EQ(split->configuration.offload->micro.front().backend, "cpu");
  EXPECT_EQ(split->throughput_rule_samples, 4);
  EXPECT_EQ(split->configuration.to_string(), "cudnn:A:4 | cpu:A:4");
}

TEST(HybridSplit, ASlowHostIsLeftOutUnderAutoAndGivenOneSampleUnderOn) {
  const auto kernel = kernel_at(8);
  const auto device = linear_table(8, "cudnn", 1), host = linear_table(8, "cpu", 100);
  const auto automatic =
      plan_hybrid_split(kernel, device, host, HostLink{}, kUnlimited, HybridMode::kAuto);
  ASSERT_TRUE(automatic) << automatic.error();
  EXPECT_EQ(automatic->host_samples, 0);
  EXPECT_FALSE(automatic->configuration.offload);
  EXPECT_EQ(automatic->configuration.time_ms(), 8);
  // 8 * 8 / (8 + 800) rounds to 0: the rule agrees.
  EXPECT_EQ(automatic->throughput_rule_samples, 0);

  const auto forced =
      plan_hybrid_split(kernel, device, host, HostLink{}, kUnlimited, HybridMode::kOn);
  ASSERT_TRUE(forced) << forced.error();
  EXPECT_EQ(forced->host_samples, 1);
  EXPECT_EQ(forced->configuration.time_ms(), 100);
  EXPECT_EQ(forced->configuration.device_batch(), 7);
}

TEST(HybridSplit, CopiesCanTakeTheGainAway) {
  const auto kernel = kernel_at(8);
  const auto device = linear_table(8, "cudnn", 1), host = linear_table(8, "cpu", 1);
  // One sample's traffic: x 2*4*4 floats in and y 2*4*4 out, plus the filter 2*2*3*3 in.
  const auto one = share_traffic(kernel, 1);
  EXPECT_EQ(one.to_host_bytes, (32 + 36) * 4u);
  EXPECT_EQ(one.to_device_bytes, 32 * 4u);
  EXPECT_EQ(one.device_bytes, 0u);
  // At a byte a millisecond the smallest share costs hundreds of milliseconds: no split.
  const auto slow =
      plan_hybrid_split(kernel, device, host, HostLink{1.0, 0}, kUnlimited, HybridMode::kAuto);
  ASSERT_TRUE(slow);
  EXPECT_EQ(slow->host_samples, 0);
  // A link where each sample's copies cost one millisecond (256 bytes a sample, the filter's
  // 144 bytes once): T(c) = max(8 - c, 2c + 0.5625), best at c = 2 (6 vs 4.5625 at c = 2;
  // c = 3 gives max(5, 6.56)). The throughput rule (equal speeds: 4) ignores the copies.
  const auto copies =
      plan_hybrid_split(kernel, device, host, HostLink{256.0, 0}, kUnlimited, HybridMode::kAuto);
  ASSERT_TRUE(copies);
  EXPECT_EQ(copies->host_samples, 2);
  EXPECT_DOUBLE_EQ(copies->configuration.time_ms(), 6);
  EXPECT_DOUBLE_EQ(copies->configuration.offload->copy_ms, 2 + 144.0 / 256);
  EXPECT_EQ(copies->throughput_rule_samples, 4);
  EXPECT_DOUBLE_EQ(copies->throughput_rule_ms, 4 + 4 * 256.0 / 256 + 144.0 / 256 + 0);
  // A latency per copy counts once per direction.
  EXPECT_DOUBLE_EQ((HostLink{256.0, 0.5}.copy_ms(256)), 1.5);
  EXPECT_EQ((HostLink{256.0, 0.5}.copy_ms(0)), 0);
}

TEST(HybridSplit, BackwardFilterSendsThePartialGradientThroughTheWorkspace) {
  const auto kernel = kernel_at(8, Operation::kBackwardFilter);
  const auto traffic = share_traffic(kernel, 3);
  EXPECT_EQ(traffic.to_host_bytes, 3 * (32 + 32) * 4u);
  EXPECT_EQ(traffic.to_device_bytes, 36 * 4u);
  EXPECT_EQ(traffic.device_bytes, 36 * 4u);
  const auto device = linear_table(8, "cudnn", 1, 0, 16), host = linear_table(8, "cpu", 1);
  const auto fits = plan_hybrid_split(kernel, device, host, HostLink{}, 1000, HybridMode::kAuto);
  ASSERT_TRUE(fits);
  EXPECT_EQ(fits->host_samples, 4);
  // The device's workspace holds the host's gradient on its way into dw.
  EXPECT_EQ(fits->configuration.workspace_bytes(), 36 * 4u);
  // Under a limit smaller than the gradient no split is possible.
  const auto tight = plan_hybrid_split(kernel, device, host, HostLink{}, 100, HybridMode::kAuto);
  ASSERT_TRUE(tight);
  EXPECT_EQ(tight->host_samples, 0);
  EXPECT_FALSE(plan_hybrid_split(kernel, device, host, HostLink{}, 100, HybridMode::kOn));
}

TEST(HybridSplit, TheHostCanTakeTheWholeBatch) {
  const auto kernel = kernel_at(4);
  // Nothing fits the device's limit: the host computes everything.
  MicroTable device = linear_table(4, "cudnn", 1);
  for (auto& row : device.candidates) row.clear();
  const auto split = plan_hybrid_split(kernel, device, linear_table(4, "cpu", 2), HostLink{},
                                       kUnlimited, HybridMode::kAuto);
  ASSERT_TRUE(split) << split.error();
  EXPECT_EQ(split->host_samples, 4);
  EXPECT_TRUE(split->configuration.micro.empty());
  EXPECT_EQ(split->configuration.time_ms(), 8);
  EXPECT_EQ(split->device_only_ms, kNever);
  EXPECT_EQ(split->configuration.to_string(), "| cpu:A:4");
}

TEST(HybridSplit, InterleavedSamplesAreNeverSplit) {
  auto kernel = kernel_at(4);
  // C outermost (CNHW): sample n's elements are spread over every channel's plane.
  auto& x = kernel.problem.x;
  x.strides = {16, 4 * 16, 4, 1};
  EXPECT_FALSE(splittable_between_devices(kernel));
  EXPECT_FALSE(plan_hybrid_split(kernel, linear_table(4, "cudnn", 1), linear_table(4, "cpu", 1),
                                 HostLink{}, kUnlimited, HybridMode::kAuto));
  EXPECT_TRUE(splittable_between_devices(kernel_at(4)));
}

// The best split by brute force: WR's optimum on each side at each split (checked against
// exhaustive search in workspace_reuse_test), every split tried.
double brute_force_split(const KernelKey& kernel, const MicroTable& device, const MicroTable& host,
                         const HostLink& link, std::uint64_t limit, std::int64_t first) {
  const auto batch = kernel.problem.batch();
  auto at = [](MicroTable table, std::int64_t b) {
    table.batch = b;
    return b == 0 ? 0.0 : testing::brute_force_wr(table);
  };
  double best = kNever;
  for (std::int64_t c = first; c <= batch; ++c) {
    const auto traffic = share_traffic(kernel, c);
    if (c > 0 && traffic.device_bytes > limit) continue;
    const double host_ms = c == 0 ? 0
                                  : at(host, c) + link.copy_ms(traffic.to_host_bytes) +
                                        link.copy_ms(traffic.to_device_bytes);
    best = std::min(best, std::max(at(device, batch - c), host_ms));
  }
  return best;
}

// A random split problem: the device's table within a random limit, the host's, a link, a mode
// and a limit on the device memory the host's results may hold.
struct RandomSplit {
  KernelKey kernel;
  std::int64_t batch;
  std::uint64_t limit;  // the device table's
  MicroTable device, host;
  HostLink link;
  HybridMode mode;
  std::uint64_t device_limit;
  std::string description;
};

// `max_policy` in enum order; `priced_links`: finite bandwidths too, else free copies with
// integer latencies (exact sums for point-by-point comparisons).
RandomSplit random_split(testing::SeededRandom& random, std::int64_t max_batch,
                         BatchSizePolicy max_policy, bool priced_links) {
  RandomSplit r;
  r.batch = random.uniform(1, max_batch);
  const auto operation = static_cast<Operation>(random.uniform(0, 2));
  r.kernel = kernel_at(r.batch, operation);
  const auto policy = static_cast<BatchSizePolicy>(random.uniform(0, static_cast<int>(max_policy)));
  r.limit = static_cast<std::uint64_t>(random.uniform(0, 3 * r.batch + 4));
  r.device = restrict_to_limit(testing::random_table(random, r.batch, policy, 3, 0.7), r.limit);
  r.host = testing::random_table(random, r.batch, policy, 2, 0.7);
  const bool priced = priced_links && !random.chance(0.3);
  r.link = {priced ? static_cast<double>(random.uniform(50, 800)) : kNever,
            static_cast<double>(random.uniform(0, 2))};
  r.mode = random.chance(0.5) ? HybridMode::kAuto : HybridMode::kOn;
  r.device_limit = static_cast<std::uint64_t>(random.uniform(0, 300));
  r.description = "batch " + std::to_string(r.batch) + " " + std::string(name_of(operation)) + " " +
                  std::string(name_of(policy));
  return r;
}

TEST(HybridSplit, EqualsBruteForceOnRandomTables) {
  testing::SeededRandom random;
  for (int trial = 0; trial < 400; ++trial) {
    const auto r = random_split(random, 14, BatchSizePolicy::kUndivided, true);
    const auto& [kernel, batch, limit, device, host, link, mode, device_limit, description] = r;
    SCOPED_TRACE("trial " + std::to_string(trial) + " " + description);
    const double expected = brute_force_split(kernel, device, host, link, device_limit,
                                              mode == HybridMode::kOn ? 1 : 0);
    const auto split = plan_hybrid_split(kernel, device, host, link, device_limit, mode);
    if (std::isinf(expected)) {
      EXPECT_FALSE(split) << split->configuration.to_string();
      continue;
    }
    ASSERT_TRUE(split) << split.error();
    const auto& c = split->configuration;
    EXPECT_DOUBLE_EQ(c.time_ms(), expected) << c.to_string();
    EXPECT_EQ(c.batch(), batch);
    EXPECT_EQ(c.offload ? c.offload->batch() : 0, split->host_samples);
    if (mode == HybridMode::kOn) {
      EXPECT_GE(split->host_samples, 1);
    }
    EXPECT_LE(c.workspace_bytes(), std::max(limit, c.offload ? c.offload->device_bytes : 0));
    if (c.offload) {
      EXPECT_LE(c.offload->device_bytes, device_limit);
    }
    // The rule's split is one the planner could have chosen: never better than the best.
    if (std::isfinite(split->throughput_rule_ms)) {
      EXPECT_GE(split->throughput_rule_ms, c.time_ms() * (1 - 1e-12));
    }
  }
}

// WD's desirable set with the host beside, against every (time, workspace) point reachable:
// the device alone (auto), and for each split every device configuration of the rest with the
// host's best, the split holding its results' way back and the device's smallest whole-batch
// configuration.
TEST(HybridSplit, DesirableSetEqualsBruteForceOnRandomTables) {
  testing::SeededRandom random;
  using Point = std::pair<double, std::uint64_t>;
  auto at = [](MicroTable table, std::int64_t b) {
    table.batch = b;
    return table;
  };
  for (int trial = 0; trial < 150; ++trial) {
    const auto r = random_split(random, 9, BatchSizePolicy::kPowerOfTwo, false);
    const auto& [kernel, batch, limit, device, host, link, mode, device_limit, description] = r;
    SCOPED_TRACE("trial " + std::to_string(trial) + " " + description);

    std::vector<Point> points;
    const auto alone = testing::all_points(device);
    if (!alone.empty()) {
      std::uint64_t reserve = kNoWorkspaceLimit;
      for (const auto& p : alone) reserve = std::min(reserve, p.second);
      if (mode == HybridMode::kAuto) points = alone;
      for (std::int64_t c = 1; c <= batch; ++c) {
        const auto traffic = share_traffic(kernel, c);
        const double host_ms = testing::brute_force_wr(at(host, c)) +
                               link.copy_ms(traffic.to_host_bytes) +
                               link.copy_ms(traffic.to_device_bytes);
        const auto held = std::max(traffic.device_bytes, reserve);
        if (std::isinf(host_ms) || held > device_limit) continue;
        if (c == batch)
          points.emplace_back(host_ms, held);
        else
          for (const auto& p : testing::all_points(at(device, batch - c)))
            points.emplace_back(std::max(p.first, host_ms), std::max(p.second, held));
      }
    }
    const auto expected = testing::front_of_points(points);
    const auto front =
        hybrid_desirable_configurations(kernel, device, host, link, device_limit, mode);
    ASSERT_EQ(front.size(), expected.size());
    for (std::size_t i = 0; i < front.size(); ++i) {
      EXPECT_DOUBLE_EQ(front[i].time_ms(), expected[i].first) << front[i].to_string();
      EXPECT_EQ(front[i].workspace_bytes(), expected[i].second) << front[i].to_string();
      EXPECT_EQ(front[i].batch(), batch);
      if (mode == HybridMode::kOn) {
        EXPECT_TRUE(front[i].offload) << front[i].to_string();
      }
    }
  }
}

TEST(Configuration, AnOffloadedShareRunsBesideTheDevice) {
  Configuration c{{{"cudnn", "FFT", 6, 3.0, 100}, {"cudnn", "GEMM", 2, 2.0, 50}},
                  OffloadedShare{{{"cpu", "DIRECT", 4, 4.5, 999}}, 1.0, 120}};
  EXPECT_EQ(c.time_ms(), 5.5);  // max(3 + 2, 4.5 + 1)
  EXPECT_EQ(c.device_time_ms(), 5);
  EXPECT_EQ(c.workspace_bytes(), 120u);  // the host's own workspace is not the device's
  EXPECT_EQ(c.batch(), 12);
  EXPECT_EQ(c.device_batch(), 8);
  EXPECT_EQ(c.to_string(), "cudnn:FFT:6 + cudnn:GEMM:2 | cpu:DIRECT:4");
  c.offload->copy_ms = 0;
  EXPECT_EQ(c.time_ms(), 5);
}

}  // namespace
}  // namespace ucudnn
