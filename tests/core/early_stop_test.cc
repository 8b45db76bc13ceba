// When a benchmarker stops measuring a candidate early (core/early_stop.h): only beside a
// faster candidate of the same shape that needs no more workspace.
#include "core/early_stop.h"

#include <gtest/gtest.h>

namespace ucudnn {
namespace {

const std::pair<std::string, std::int64_t> kShape{"conv1 Forward", 16};

TEST(EarlyStop, TheBoundIsTheFastestAtTheShapeThatNeedsNoMoreWorkspace) {
  EarlyStop stop;
  EXPECT_FALSE(stop.bound(kShape, 1000)) << "nothing measured: every run";
  stop.measured(kShape, 500, 2.0);
  stop.measured(kShape, 100, 5.0);
  stop.measured(kShape, 2000, 1.0);
  EXPECT_EQ(stop.bound(kShape, 1000), 2.0);
  EXPECT_EQ(stop.bound(kShape, 100), 5.0);
  EXPECT_EQ(stop.bound(kShape, 5000), 1.0);
  EXPECT_FALSE(stop.bound(kShape, 99)) << "a leaner candidate is a tight limit's choice";
  EXPECT_FALSE(stop.bound({"conv1 Forward", 8}, 5000)) << "another micro-batch";
  EXPECT_FALSE(stop.bound({"conv2 Forward", 16}, 5000)) << "another kernel";
}

TEST(EarlyStop, HopelessAtTheWarmUpRunSlowAtTheFirstTimedRun) {
  const EarlyStop stop;  // 3x; 10x and 20 ms more
  EXPECT_FALSE(stop.hopeless(21.0, 2.0)) << "over 10x, but within the margin of a first run";
  EXPECT_TRUE(stop.hopeless(22.5, 0.5));
  EXPECT_FALSE(stop.hopeless(250.0, 30.0)) << "20 ms more, but under 10x";
  EXPECT_TRUE(stop.hopeless(301.0, 30.0));
  EXPECT_FALSE(stop.slow(6.0, 2.0));
  EXPECT_TRUE(stop.slow(6.1, 2.0));
}

TEST(EarlyStop, ASlowFactorOfZeroNeverStops) {
  EarlyStop stop({0, 10, 20});
  stop.measured(kShape, 0, 1.0);
  EXPECT_FALSE(stop.bound(kShape, 1000));
}

}  // namespace
}  // namespace ucudnn
