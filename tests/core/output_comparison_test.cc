#include "core/output_comparison.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace ucudnn {
namespace {

TEST(OutputComparison, NormwiseRelativeDifference) {
  const std::vector<double> b = {3, 4};  // norm 5
  EXPECT_DOUBLE_EQ(normwise_difference(b, b), 0);
  EXPECT_DOUBLE_EQ(normwise_difference(std::vector<double>{3, 4.5}, b), 0.1);
  EXPECT_DOUBLE_EQ(normwise_difference(std::vector<double>{0, 0}, std::vector<double>{0, 0}), 0);
  EXPECT_TRUE(std::isinf(normwise_difference(std::vector<double>{1}, std::vector<double>{0})));
}

TEST(OutputComparison, NaNOrAShorterOutputNeverAgrees) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> b = {1, 2, 3};
  EXPECT_TRUE(std::isinf(normwise_difference(std::vector<double>{1, nan, 3}, b)));
  EXPECT_TRUE(std::isinf(normwise_difference(b, std::vector<double>{1, nan, 3})));
  EXPECT_TRUE(std::isinf(normwise_difference(std::vector<double>{1, 2}, b)));
  EXPECT_FALSE(
      (OutputComparison{normwise_difference(std::vector<double>{1, nan, 3}, b), 1e-5}.agrees()));
  EXPECT_TRUE((OutputComparison{1e-6, 1e-5}.agrees()));
}

}  // namespace
}  // namespace ucudnn
