// The host-time account's histogram: quantiles read back within a bucket's width of the exact
// ones, on fresh random durations spread over many powers of two.
#include "core/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "support/random_seed.h"

namespace ucudnn {
namespace {

TEST(LatencyHistogram, EveryDurationFallsInTheBucketThatHoldsIt) {
  testing::SeededRandom random;
  for (int i = 0; i < 100000; ++i) {
    // Log-uniform from 1 ns to about 2^45 ns (past the top bucket).
    const auto ns = static_cast<std::uint64_t>(
        std::exp2(std::uniform_real_distribution<double>(0, 45)(random.engine())));
    const int b = LatencyHistogram::bucket_of(ns);
    ASSERT_GE(b, 0);
    ASSERT_LT(b, LatencyHistogram::kBuckets);
    if (b == LatencyHistogram::kBuckets - 1) {
      EXPECT_GE(ns, LatencyHistogram::bucket_start(b)) << ns;
      continue;
    }
    EXPECT_GE(ns, LatencyHistogram::bucket_start(b)) << ns;
    EXPECT_LT(ns, LatencyHistogram::bucket_start(b) + LatencyHistogram::bucket_width(b)) << ns;
    // A bucket is at most 1/16 of the durations it holds wide.
    EXPECT_LE(LatencyHistogram::bucket_width(b) * 16, std::max<std::uint64_t>(16, ns)) << ns;
  }
  // Buckets tile the durations without gaps.
  for (int b = 1; b < LatencyHistogram::kBuckets; ++b)
    EXPECT_EQ(LatencyHistogram::bucket_start(b),
              LatencyHistogram::bucket_start(b - 1) + LatencyHistogram::bucket_width(b - 1))
        << b;
}

TEST(LatencyHistogram, QuantilesAreWithinThreePercentOfTheExactOnes) {
  testing::SeededRandom random;
  for (int round = 0; round < 20; ++round) {
    LatencyHistogram histogram;
    std::vector<std::uint64_t> values(static_cast<std::size_t>(random.uniform(1, 5000)));
    const double center = std::exp2(static_cast<double>(random.uniform(4, 30)));
    std::lognormal_distribution<double> spread(std::log(center), 0.8);
    for (auto& v : values) {
      v = static_cast<std::uint64_t>(spread(random.engine())) + 16;
      histogram.record(v);
    }
    std::sort(values.begin(), values.end());
    ASSERT_EQ(histogram.count(), values.size());
    for (double q : {0.0, 0.01, 0.5, 0.9, 0.99, 1.0}) {
      const auto rank = std::max<std::size_t>(
          1, static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size()))));
      const double exact = static_cast<double>(values[rank - 1]);
      EXPECT_NEAR(histogram.quantile(q), exact, exact / 32 + 1)
          << "q=" << q << " of " << values.size() << " values around " << center;
    }
  }
}

TEST(LatencyHistogram, AddingMergesCountsAndAnEmptyOneReadsZero) {
  LatencyHistogram a, b, merged;
  EXPECT_EQ(a.quantile(0.5), 0);
  for (int i = 0; i < 10; ++i) a.record(1000);
  for (int i = 0; i < 30; ++i) b.record(1'000'000);
  merged.add(a);
  merged.add(b);
  EXPECT_EQ(merged.count(), 40u);
  EXPECT_NEAR(merged.quantile(0.2), 1000, 1000.0 / 32);
  EXPECT_NEAR(merged.quantile(0.5), 1'000'000, 1'000'000.0 / 32);
}

}  // namespace
}  // namespace ucudnn
