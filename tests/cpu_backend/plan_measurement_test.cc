// The CPU backend's measurements of plans: the benchmarker times micro-batches as a plan runs
// them, and run_side_by_side compares a plan's output with its baseline's.
#include <gtest/gtest.h>

#include "cpu_benchmarker.h"
#include "side_by_side.h"
#include "solver_registry.h"
#include "support/random_seed.h"
#include "thread_pool.h"

namespace ucudnn::cpu {
namespace {

const KernelKey kKernel{Operation::kForward, make_conv2d_problem({8, 4, 12, 12, 4, 3, 3, 1, 1})};

// One pass over the whole batch is slices = batch / micro-batch timed runs; passes repeat
// until at least `repeats` runs are timed.
TEST(CpuBenchmarker, TimesEverySliceOfTheBatchAsAPlanRunsThem) {
  ThreadPool pool(1);
  BenchmarkOptions every_run{1, 3, 60.0, {}};
  every_run.early_stop.slow_factor = 0;  // the same shapes are measured again below
  CpuBenchmarker device(pool, every_run);
  for (const char* solver : {"DIRECT", "LOWERING_BATCHED"}) {
    for (auto op : {Operation::kForward, Operation::kBackwardFilter}) {
      const KernelKey kernel{op, kKernel.problem};
      SCOPED_TRACE(std::string(solver) + " " + std::string(name_of(op)));
      EXPECT_EQ(device.benchmark(kernel, solver, 1)->repeats, 8) << "one pass of 8 slices";
      EXPECT_EQ(device.benchmark(kernel, solver, 2)->repeats, 4) << "one pass of 4 slices";
      EXPECT_EQ(device.benchmark(kernel, solver, 4)->repeats, 4) << "two passes of 2 slices";
      EXPECT_EQ(device.benchmark(kernel, solver, 8)->repeats, 3) << "three passes of 1";
      EXPECT_EQ(device.benchmark(kernel, solver, 3)->repeats, 4) << "two passes of 2 slices";
      const auto measured = device.benchmark(kernel, solver, 2);
      EXPECT_GT(measured->time_ms, 0);
      EXPECT_LE(measured->min_ms, measured->time_ms);
      EXPECT_GE(measured->max_ms, measured->time_ms);
    }
  }
  EXPECT_FALSE(device.benchmark(kKernel, "DIRECT", 9)) << "more than the batch";
  EXPECT_FALSE(device.benchmark(kKernel, "DIRECT", 0));
  EXPECT_FALSE(device.benchmark(kKernel, "NO_SUCH_SOLVER", 1));
}

// Beside a solver of the same shape that needs no more workspace, one stops at its first timed
// slice; one that needs less takes every run. The rule here stops whatever the times, so that
// what is checked is where the bound applies. The warm-up run is never where the CPU stops: it
// pays a fresh workspace's first touch.
TEST(CpuBenchmarker, ADominatedSolverStopsEarlyALeanerOneNever) {
  ThreadPool pool(1);
  BenchmarkOptions options{1, 3, 60.0, {}};
  options.early_stop = EarlyStopRule{1e-12, 0, -1e9};  // the warm-up's rule would stop anything
  CpuBenchmarker device(pool, options);
  std::vector<std::size_t> measured_bytes;
  int stopped = 0;
  for (const auto& solver : device.algorithms(kKernel)) {
    const auto m = device.benchmark(kKernel, solver, 2);
    if (!m) continue;
    bool dominated = false;
    for (const std::size_t bytes : measured_bytes) dominated |= bytes <= m->workspace_bytes;
    EXPECT_EQ(m->repeats, dominated ? 1 : 4) << solver << ", " << m->workspace_bytes << " B";
    stopped += dominated ? 1 : 0;
    measured_bytes.push_back(m->workspace_bytes);
  }
  EXPECT_GT(stopped, 0) << "the CPU offers solvers of equal or more workspace";
}

TEST(CpuSideBySide, ComparesThePlansOutputWithTheBaselines) {
  testing::SeededRandom random;
  ThreadPool pool(2);
  const Configuration direct{{{"cpu", "DIRECT", 8, 0, 0}}};
  const auto same = run_side_by_side(kKernel, direct, direct, 2, pool, random.engine());
  ASSERT_TRUE(same.outputs);
  EXPECT_EQ(same.outputs->difference, 0) << "one solver on the same inputs";
  EXPECT_DOUBLE_EQ(same.outputs->tolerance, 2 * find_solver("DIRECT")->tolerance(kKernel));
  EXPECT_GT(same.plan_ms, 0);
  EXPECT_GT(same.baseline_ms, 0);

  // F(4x4, 3x3) rounds differently: a difference, within both solvers' stated bounds.
  const Configuration winograd{
      {{"cpu", "WINOGRAD_F4X4_3X3", 4, 0, 0}, {"cpu", "WINOGRAD_F4X4_3X3", 4, 0, 0}}};
  const auto split = run_side_by_side(kKernel, winograd, direct, 2, pool, random.engine());
  ASSERT_TRUE(split.outputs);
  EXPECT_GT(split.outputs->difference, 0);
  EXPECT_TRUE(split.outputs->agrees())
      << split.outputs->difference << " > " << split.outputs->tolerance;
  EXPECT_DOUBLE_EQ(split.outputs->tolerance, find_solver("WINOGRAD_F4X4_3X3")->tolerance(kKernel) +
                                                 find_solver("DIRECT")->tolerance(kKernel));

  // BackwardFilter accumulates over micro-batches: the split must still match.
  const KernelKey filter{Operation::kBackwardFilter, kKernel.problem};
  const Configuration halves{{{"cpu", "DIRECT", 3, 0, 0}, {"cpu", "DIRECT", 5, 0, 0}}};
  const auto accumulated = run_side_by_side(filter, halves, direct, 1, pool, random.engine());
  EXPECT_TRUE(accumulated.outputs->agrees()) << accumulated.outputs->difference;
  EXPECT_THROW(run_side_by_side(filter, Configuration{{{"cpu", "DIRECT", 3, 0, 0}}}, direct, 1,
                                pool, random.engine()),
               std::invalid_argument)
      << "a plan that does not cover the batch";
}

}  // namespace
}  // namespace ucudnn::cpu
