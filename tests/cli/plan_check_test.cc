// The tool's plan check (`bench` after measuring): each plan run beside the best undivided
// candidate, named where it is slower or computes something else.
#include "plan_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "network_kernels.h"
#include "support/printed_text.h"
#include "support/table_benchmarker.h"

namespace ucudnn::cli {
namespace {

// Answers the plan check as told: a slow plan for one kernel, a wrong output for another.
class ScriptedWorker final : public Worker {
 public:
  std::string description() const override { return "scripted"; }
  std::optional<SideBySideRuns> run_side_by_side(const KernelKey& kernel, const Configuration&,
                                                 const Configuration&, int) override {
    const std::string key = kernel.to_string();
    ++runs;
    if (key == slow) return SideBySideRuns{13, 20, OutputComparison{0, 1e-5}};
    if (key == wrong) return SideBySideRuns{10, 20, OutputComparison{0.5, 1e-5}};
    if (key == failing) return std::nullopt;
    return SideBySideRuns{10.5, 20, OutputComparison{1e-7, 1e-5}};
  }
  std::string slow, wrong, failing;
  int runs = 0;

 private:
  Benchmarker& device_benchmarker() override { return table_; }
  testing::TableBenchmarker table_{{"A"}};
};

TEST(PlanCheck, NamesKernelsOffTheirPlanAndPlansThatComputeSomethingElse) {
  const auto kernels = network_kernels(*builtin_network("alexnet", 2));
  NetworkPlan plan;
  plan.distinct = distinct_kernels(kernels);
  for (std::size_t d = 0; d < plan.distinct.size(); ++d) {
    KernelPlan p;
    p.plan = Configuration{{{"cpu", "A", 1, 5, 0}, {"cpu", "A", 1, 5, 0}}};  // 10 ms planned
    p.undivided = MicroConfiguration{"cpu", "B", 2, 20, 0};
    plan.plans.push_back(p);
  }
  ScriptedWorker worker;
  worker.slow = kernels[0].key.to_string();
  worker.wrong = kernels[1].key.to_string();
  worker.failing = kernels[2].key.to_string();
  PlanCheckSummary summary;
  const std::string printed = testing::printed_text(
      [&](std::FILE* out) { summary = check_plans(out, worker, kernels, plan, 1); });

  EXPECT_EQ(worker.runs, 15);
  EXPECT_EQ(summary.checked, 14u);
  EXPECT_EQ(summary.could_not_run, 1u);
  EXPECT_EQ(summary.disagreeing, 1u);
  EXPECT_NEAR(summary.predicted_vs_measured, 0.05, 1e-12);  // 12 of 14 at 10.5 / 10
  EXPECT_DOUBLE_EQ(summary.plan_ms, 13 + 10 + 12 * 10.5);
  EXPECT_NE(printed.find("warning: measured more than 25% off the plan: conv1 Forward (1.30x)\n"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("error: the plan's output differs from its undivided baseline's beyond "
                         "the stated tolerance: conv1 BackwardData\n"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("conv1 BackwardFilter | could not run"), std::string::npos) << printed;
  EXPECT_NE(printed.find("predicted vs measured: median |measured/planned - 1| = 5.0% over 14"),
            std::string::npos)
      << printed;
  EXPECT_EQ(printed.find("every plan agrees"), std::string::npos);
}

// The labels' column is as wide as the longest label, so that every row's columns line up.
TEST(PlanCheck, ItsRowsLineUpWhateverTheLabelsLength) {
  const auto kernels = network_kernels(*builtin_network("resnet50", 2));
  NetworkPlan plan;
  plan.distinct = distinct_kernels(kernels);
  std::size_t longest = 0;
  for (const auto& d : plan.distinct) {
    longest = std::max(longest, kernels[d.first].label().size());
    KernelPlan p;
    p.plan = Configuration{{{"cpu", "A", 2, 10, 0}}};
    p.undivided = MicroConfiguration{"cpu", "B", 2, 20, 0};
    plan.plans.push_back(p);
  }
  ASSERT_GT(longest, 20u) << "a label longer than the narrowest column";
  ScriptedWorker worker;
  worker.failing = kernels[1].key.to_string();
  const std::string printed =
      testing::printed_text([&](std::FILE* out) { check_plans(out, worker, kernels, plan, 1); });
  const auto table = printed.find("layer operation");
  ASSERT_NE(table, std::string::npos) << printed;
  const std::size_t bar = printed.find(" | ", table) - table;
  int rows = 0;
  for (std::size_t line = table; line < printed.size();) {
    const std::size_t end = printed.find('\n', line);
    const std::string row = printed.substr(line, end - line);
    if (row.find(" | ") == std::string::npos) break;
    EXPECT_EQ(row.find(" | "), bar) << row;
    ++rows;
    line = end + 1;
  }
  EXPECT_EQ(rows, static_cast<int>(plan.distinct.size()) + 1) << printed;
}

}  // namespace
}  // namespace ucudnn::cli
