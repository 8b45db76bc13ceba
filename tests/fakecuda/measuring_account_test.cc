// Where measuring's host time went (cudnn/measuring_account.h): the exit line's parts, and which
// part a plan's finalize counts in (measuring's, or outside measuring).
#include "cudnn/measuring_account.h"

#include <gtest/gtest.h>

namespace ucudnn::cudnn {
namespace {

TEST(MeasuringAccount, EachPartIsSaidWhereThereIsOne) {
  MeasuringAccount a;
  EXPECT_EQ(a.to_string(), "");
  a.outside_plans = 30;
  a.outside_plans_s = 0.004;
  EXPECT_EQ(a.to_string(), "outside measuring, 30 plans finalized in 0.00 s");
  a.slow_plans = 2;
  a.slow_plans_s = 0.25;
  a.slowest = "cudnn:eng3{k2=1} at 16 images";
  a.slowest_s = 0.2;
  EXPECT_EQ(
      a.to_string(),
      "outside measuring, 30 plans finalized in 0.00 s; 2 finalizations took over 50 ms, 0.25 s "
      "in all, the slowest cudnn:eng3{k2=1} at 16 images (0.20 s)");
  const auto last_part = [&] { return a.to_string().substr(a.to_string().rfind("; ")); };
  a.ungated = 3;
  a.gate_timeouts = 1;
  EXPECT_EQ(last_part(),
            "; 3 pairs timed without holding the stream, their times with the host's issuing in "
            "them (1 gate timed out)");
  a.compared_plans = 12;
  a.compared_s = 0.5;
  EXPECT_EQ(last_part(),
            "; comparing 12 of the application's graph plans with ucudnn's took 0.50 s");
  a.compared_ungated = 10;
  a.compared_gate_timeouts = 2;
  EXPECT_EQ(last_part(),
            "; comparing 12 of the application's graph plans with ucudnn's took 0.50 s (10 timed "
            "without holding the stream, 2 gates timed out)");
  a.kernels = 1;
  a.total_s = 1.5;
  a.phase_s[static_cast<int>(MeasuringPhase::kRuns)] = 1.0;
  a.phase_s[static_cast<int>(MeasuringPhase::kDatabaseWrites)] = 0.2;
  a.pairs = 4;
  a.plans = 5;
  a.heuristics_queries = 1;
  const std::string line = a.to_string();
  EXPECT_EQ(
      line.rfind("measuring 1 kernel took 1.50 s: running and timing 4 (candidate, "
                 "micro-batch) pairs 1.00 s (0 stopped early), building plans 0.00 s (5 "
                 "finalized), cuDNN's heuristics 0.00 s (1 query), allocating 0.00 s, "
                 "writing to the database 0.20 s, the rest 0.30 s; outside measuring, 30 plans "
                 "finalized in 0.00 s; 2 finalizations",
                 0),
      0u)
      << line;
}

TEST(MeasuringAccount, AFinalizeCountsInMeasuringWhereItMeasuresElseAsAPlanMadeToRun) {
  const EngineName quick = EngineName::of(1, {}), compiled = EngineName::of(7, {{2, 4}});
  const MeasuringAccount before = measuring_account();
  count_finalized_plan(1'000'000, quick, 8);
  count_finalized_plan(kSlowFinalizeNs + 10'000'000, compiled, 4);
  const MeasuringAccount running = measuring_account();
  EXPECT_EQ(running.outside_plans, before.outside_plans + 2);
  EXPECT_NEAR(running.outside_plans_s - before.outside_plans_s, 0.061, 1e-9);
  EXPECT_EQ(running.slow_plans, before.slow_plans + 1) << "1 ms is not slow";
  EXPECT_EQ(running.plans, before.plans);
  if (before.slowest_s < 0.06) {
    EXPECT_EQ(running.slowest, "cudnn:eng7{k2=4} at 4 images");
  }
  {
    const MeasuringTime measuring("a kernel of this test");
    count_finalized_plan(kSlowFinalizeNs + 20'000'000, compiled, 2);
    count_finalized_plan(2'000'000, quick, 2);
    count_measured_pair(false);
  }
  const MeasuringAccount measured = measuring_account();
  EXPECT_EQ(measured.plans, before.plans + 2);
  EXPECT_EQ(measured.outside_plans, running.outside_plans) << "measuring's own are not";
  EXPECT_EQ(measured.slow_plans, running.slow_plans + 1) << "both parts' slow ones are named";
  if (before.slowest_s < 0.07) {
    EXPECT_EQ(measured.slowest, "cudnn:eng7{k2=4} at 2 images");
  }
}

}  // namespace
}  // namespace ucudnn::cudnn
