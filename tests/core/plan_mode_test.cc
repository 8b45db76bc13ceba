// A stored plan's mode (core/plan_mode.h): what a lookup asks for, so that a plan made among
// other candidates than a job's never serves it; the database tools accept the modes ucudnn
// writes and refuse others.
#include "core/plan_mode.h"

#include <gtest/gtest.h>

namespace ucudnn {
namespace {

// WR plans made with knob variants among the candidates are stored under a mode of their own.
TEST(PlanMode, KnobVariantPlansHaveAModeOfTheirOwn) {
  EXPECT_EQ(plan_mode(kReuseMode, false, true), "WR+knobs");
  EXPECT_EQ(plan_mode(kReuseMode, true, true), "WR+knobs+deterministic");
  EXPECT_EQ(plan_mode(kReuseMode, true), "WR+deterministic");
  for (const char* mode : {"WR+knobs", "WR+knobs+deterministic"}) {
    EXPECT_TRUE(is_plan_mode(mode)) << mode;
    EXPECT_TRUE(is_per_kernel_mode(mode)) << mode;
  }
  for (const char* mode : {"WR+deterministic+knobs", "WR+knobs+knobs", "+knobs"})
    EXPECT_FALSE(is_plan_mode(mode)) << mode;
}

// WR plans made among the heuristics' first N configurations within the limit, where that left
// some out (UCUDNN_BENCHMARK_LIMIT), name N: a job measuring every one never takes them.
TEST(PlanMode, PlansMadeAmongTheHeuristicsFirstNameHowMany) {
  EXPECT_EQ(plan_mode(kReuseMode, false, false, 10), "WR+first10");
  EXPECT_EQ(plan_mode(kReuseMode, true, true, 3), "WR+first3+knobs+deterministic");
  EXPECT_EQ(plan_mode(kReuseMode, false, false, 0), "WR") << "every one";
  for (const char* mode : {"WR+first10", "WR+first1+deterministic", "WR+first25+knobs"}) {
    EXPECT_TRUE(is_plan_mode(mode)) << mode;
    EXPECT_TRUE(is_per_kernel_mode(mode)) << mode;
  }
  for (const char* mode : {"WR+first", "WR+first0", "WR+first07", "WR+firstten", "WR+first-1",
                           "WR+knobs+first10", "WR+first10+first10", "+first10"})
    EXPECT_FALSE(is_plan_mode(mode)) << mode;
}

}  // namespace
}  // namespace ucudnn
