// WD as frameworks run it, on the doubles with the shim preloaded and
// UCUDNN_TOTAL_WORKSPACE_SIZE set (CMake): a network A B B B C (a repeated shape, as in every
// ResNet stage) trained with forward on one handle and thread and backward on another (as
// PyTorch's autograd thread), on one stream, algorithms selected lazily right before each
// layer's first use or eagerly up front, batches that change, a tower that stops running,
// same-shape layers on two streams, and two towers on two unordered streams. Each checks what
// the doubles count: one arena per device, the division the planner itself finds optimal (on
// one stream: every kernel its fastest within the total, in one shared segment; two towers: a
// segment each, the repeated layer weighted three times), nothing allocated, freed or
// synchronized per iteration once learned, and no workspace shared by two streams without an
// event between.
#include <cudnn.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "division_training.h"
#include "support/printed_text.h"
#include "support/random_seed.h"

namespace {

using namespace ucudnn::testing;
using namespace ucudnn::testing::division;

class WorkspaceDivision : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::getenv("FAKECUDA_TRACE")) << "CTest sets FAKECUDA_TRACE";
    ASSERT_GT(total_workspace(), 0u) << "CTest sets UCUDNN_TOTAL_WORKSPACE_SIZE";
    Dl_info info{};
    ASSERT_TRUE(dladdr(reinterpret_cast<const void*>(&cudnnConvolutionForward), &info));
    ASSERT_NE(std::string(info.dli_fname).find("libucudnn_preload.so"), std::string::npos)
        << "run this test with LD_PRELOAD=libucudnn_preload.so (CTest does)";
  }
  SeededRandom random;
};

// Lazy selection on two handles (forward and backward threads) on one stream divides as eager
// selection on one: one arena, every kernel its fastest within the total in one shared
// segment, so that the iteration runs no slower once divided than while learning (before, a
// division among them made ResNet-50 1.41x slower).
TEST_F(WorkspaceDivision, OnOneStreamEveryKernelRunsItsFastestWithinTheTotalInOneSegment) {
  const Optimum optimum = planner_optimum(16);
  std::printf("planner: %.6f ms in %llu bytes\n", optimum.time_ms,
              static_cast<unsigned long long>(optimum.arena_bytes));
  ASSERT_LE(optimum.arena_bytes, total_workspace());

  // Lazy first: it learns. The division it stores is the one eager then finds in the (process's)
  // database at its first call.
  const Outcome lazy = train({2, false, true}, random.engine());
  const Outcome eager = train({1, false, false}, random.engine());
  print("eager, one handle:", eager);
  print("lazy, two handles:", lazy);
  for (const Outcome* outcome : {&eager, &lazy}) {
    // Learning takes two iterations; the third runs the division, as fast as the second.
    EXPECT_NEAR(outcome->iteration_ms.back(), optimum.time_ms, 1e-5 * optimum.time_ms + 2e-6);
    EXPECT_EQ(outcome->iteration_ms.back(), outcome->iteration_ms[2]);
    EXPECT_EQ(outcome->iteration_ms[1], outcome->iteration_ms[2]) << "divided no slower";
    EXPECT_EQ(outcome->held_bytes, optimum.arena_bytes) << "one arena, nothing else held";
    EXPECT_EQ(outcome->races, 0);
    expect_steady(*outcome, 3, outcome == &eager ? "eager" : "lazy");
  }
  EXPECT_EQ(lazy.iteration_ms.back(), eager.iteration_ms.back());
}

// An epoch's smaller last batch, evaluation batches: on one stream they share the one segment
// (sized for the largest need among them), so alternating 16 and 12 settles and, once learned,
// allocates and divides nothing more.
TEST_F(WorkspaceDivision, ChangingBatchesShareTheSegmentAndSettle) {
  const Optimum sixteen = planner_optimum(16), twelve = planner_optimum(12);
  const Outcome alternating = train({2, false, true, {16, 12}, 8}, random.engine());
  print("batch 16/12 alternating:", alternating);
  EXPECT_EQ(alternating.held_bytes, std::max(sixteen.arena_bytes, twelve.arena_bytes));
  EXPECT_NEAR(alternating.iteration_ms[6], sixteen.time_ms, 1e-5 * sixteen.time_ms + 2e-6)
      << "the batch-16 iterations run each kernel's fastest within the total";
  EXPECT_NEAR(alternating.iteration_ms[7], twelve.time_ms, 1e-5 * twelve.time_ms + 2e-6);
  EXPECT_EQ(alternating.iteration_ms[7], alternating.iteration_ms[5]);
  EXPECT_EQ(alternating.races, 0);
  expect_steady(alternating, 5, "alternating");
}

// Two towers of other shapes on two streams that never wait for each other, with a total
// below what their fastest configurations need together: each tower gets a segment of its
// own (the ILP divides the total, each tower's repeated layer weighted three times), so they
// run side by side. Through one shared buffer (as while learning, or on one stream) they
// would run one after the other. Never more than the total is held.
TEST_F(WorkspaceDivision, TwoTowersOnTwoStreamsEachGetASegmentAndRunSideBySide) {
  const std::vector<const std::vector<Shape>*> towers{&kNetwork, &kTower};
  const Optimum apart = planner_optimum(16, towers, {0, 1}),
                shared = planner_optimum(16, towers, {0, 0}),
                first = planner_optimum(16, {&kNetwork}, {0}),
                second = planner_optimum(16, {&kTower}, {0});
  std::printf(
      "planner: towers apart %.6f ms (%.6f and %.6f) in %llu bytes; through one buffer %.6f ms "
      "in %llu bytes; each alone needs %llu and %llu bytes\n",
      apart.time_ms, apart.group_ms[0], apart.group_ms[1],
      static_cast<unsigned long long>(apart.arena_bytes), shared.time_ms,
      static_cast<unsigned long long>(shared.arena_bytes),
      static_cast<unsigned long long>(first.arena_bytes),
      static_cast<unsigned long long>(second.arena_bytes));
  ASSERT_LT(total_workspace(), first.arena_bytes + second.arena_bytes)
      << "a total below what the towers' fastest configurations need together";
  ASSERT_LT(apart.time_ms, shared.time_ms);

  Scenario two_streams;
  two_streams.towers = two_streams.lazy = true;
  const Outcome side_by_side = train(two_streams, random.engine());
  Scenario one_stream = two_streams;
  one_stream.towers_on_one_stream = true;
  const Outcome serialized = train(one_stream, random.engine());
  print("two towers, two streams:", side_by_side);
  print("two towers, one stream:", serialized);
  EXPECT_NEAR(side_by_side.iteration_ms.back(), apart.time_ms, 1e-5 * apart.time_ms + 2e-6);
  EXPECT_NEAR(serialized.iteration_ms.back(), shared.time_ms, 1e-5 * shared.time_ms + 2e-6);
  EXPECT_LT(side_by_side.iteration_ms.back(), serialized.iteration_ms.back());
  EXPECT_EQ(side_by_side.held_bytes, apart.arena_bytes);
  EXPECT_LE(side_by_side.held_bytes, total_workspace());
  EXPECT_EQ(serialized.held_bytes, shared.arena_bytes);
  EXPECT_EQ(side_by_side.races, 0);
  expect_steady(side_by_side, 3, "two streams");
  expect_steady(serialized, 3, "one stream");
}

// Kernels that stop running age out: when the second tower stops (its model unloaded), the
// first tower, alone on its stream, is learned again and runs each kernel its fastest within
// the whole total, in an arena of that size (the two towers' one freed), steady again.
TEST_F(WorkspaceDivision, ATowerNoLongerRunAgesOut) {
  const Optimum both = planner_optimum(16, {&kNetwork, &kTower}, {0, 1}),
                alone = planner_optimum(16);
  std::printf(
      "planner: first tower %.6f ms beside the second in %llu bytes, %.6f ms alone in %llu "
      "bytes\n",
      both.group_ms[0], static_cast<unsigned long long>(both.arena_bytes), alone.time_ms,
      static_cast<unsigned long long>(alone.arena_bytes));
  ASSERT_NE(both.arena_bytes, alone.arena_bytes) << "a total where the second tower's share shows";
  ASSERT_GT(both.group_ms[0], alone.time_ms * (1 + 1e-4));
  Scenario scenario;
  scenario.towers = scenario.lazy = true;
  scenario.iterations = 9;
  scenario.second_tower_stops_at = 3;
  const Outcome outcome = train(scenario, random.engine());
  print("second tower stops at iteration 3:", outcome);
  EXPECT_NEAR(outcome.stream_ms[2][0], both.group_ms[0], 1e-5 * both.group_ms[0] + 2e-6);
  EXPECT_NEAR(outcome.stream_ms[2][1], both.group_ms[1], 1e-5 * both.group_ms[1] + 2e-6);
  EXPECT_NEAR(outcome.stream_ms.back()[0], alone.time_ms, 1e-5 * alone.time_ms + 2e-6);
  EXPECT_EQ(outcome.stream_ms.back()[0], outcome.stream_ms[7][0]);
  EXPECT_EQ(outcome.held_bytes, alone.arena_bytes) << "the old arena freed, the new one held";
  EXPECT_EQ(outcome.races, 0);
  expect_steady(outcome, 7, "second tower stopped");
}

// Where the device cannot hold the arena (here: room for the largest buffer learning needs,
// not for the two towers' segments together), division turns off with one warning, gives back
// what it holds and runs each call within the application's workspace: every call still runs,
// and nothing is allocated per iteration. The first run measures and stores the division that
// the second, on the fuller device, cannot allocate (from the first call, and once learned).
TEST_F(WorkspaceDivision, AnArenaTheDeviceCannotHoldTurnsDivisionOffWithOneWarning) {
  const std::vector<const std::vector<Shape>*> towers{&kNetwork, &kTower};
  const Optimum apart = planner_optimum(16, towers, {0, 1}),
                shared = planner_optimum(16, towers, {0, 0});
  ASSERT_LT(shared.arena_bytes, apart.arena_bytes) << "learning needs less than the arena";
  Scenario scenario;
  scenario.towers = scenario.lazy = true;
  const Outcome roomy = train(scenario, random.engine());
  ASSERT_EQ(roomy.held_bytes, apart.arena_bytes);
  scenario.leave_free = (shared.arena_bytes + apart.arena_bytes) / 2;
  ::testing::internal::CaptureStderr();
  const Outcome full = train(scenario, random.engine());
  const std::string err = ::testing::internal::GetCapturedStderr();
  print("two towers, device nearly full:", full);
  std::printf("%s", err.c_str());
  EXPECT_EQ(count_of(err, "workspace division"), 1) << err;
  EXPECT_EQ(count_of(err, "is off: cannot allocate the "), 1) << err;
  EXPECT_EQ(full.failed_allocations, 2) << "the arena, at the first call and once learned";
  EXPECT_EQ(full.held_bytes, 0u) << "given back";
  EXPECT_EQ(full.races, 0);
  expect_steady(full, 2, "division off");
}

// Layers of one shape on two streams run one kernel, so they share its segment: each use
// waits for the other stream's last one (an event, no host synchronization), or the doubles
// report a race.
TEST_F(WorkspaceDivision, OneSegmentUsedFromTwoStreamsIsOrdered) {
  Scenario scenario;
  scenario.handles = 2;
  scenario.two_streams = true;
  const Outcome outcome = train(scenario, random.engine());
  print("two streams, layers alternating:", outcome);
  EXPECT_EQ(outcome.races, 0);
  EXPECT_LE(outcome.held_bytes, total_workspace());
  expect_steady(outcome, 3, "two streams");
}

// A division made offline (`ucudnn bench --total-workspace`, same device, policy and total) is
// what the shim runs from the first call of a lazily selecting job: nothing measured, the
// planner's optimum from the first iteration on, in one arena. The job is this program again,
// in a process of its own with the tool's database (OfflineDivisionJob below).
TEST_F(WorkspaceDivision, AnOfflineDivisionRunsFromTheFirstIterationWithoutMeasuring) {
  const auto directory = std::filesystem::temp_directory_path() /
                         ("ucudnn-wd-offline-" + std::to_string(random.engine()()));
  std::filesystem::create_directories(directory);
  const auto network = directory / "network.json", database = directory / "plans.db";
  {
    std::ofstream file(network);
    file << R"({"format": "ucudnn-network/1", "name": "abbbc", "layers": [)";
    for (std::size_t l = 0; l < kNetwork.size(); ++l) {
      const Shape& s = kNetwork[l];
      file << (l ? "," : "") << R"({"name": "conv)" << l << R"(", "input": [)" << s.c << ", "
           << kSize << ", " << kSize << R"(], "output_channels": )" << s.k << R"(, "filter": )"
           << s.filter << R"(, "padding": )" << s.pad << "}";
    }
    file << "]}";
  }
  // The tool runs on the doubles too, without the shim and without writing into our trace.
  const auto bench_output = directory / "bench.txt", job_output = directory / "job.txt";
  const std::string bench = std::string("env -u LD_PRELOAD -u FAKECUDA_TRACE ") + UCUDNN_CLI +
                            " bench --backend cudnn --no-check-plans --repeats 1 --policy "
                            "powerOfTwo --batch 16 --network " +
                            network.string() + " --database " + database.string() +
                            " --total-workspace " + std::to_string(total_workspace()) + " > " +
                            bench_output.string() + " 2>&1";
  ASSERT_EQ(std::system(bench.c_str()), 0) << bench;
  const std::string job = "env UCUDNN_DATABASE=" + database.string() + " UCUDNN_WD_OFFLINE_JOB=1 " +
                          std::filesystem::read_symlink("/proc/self/exe").string() +
                          " --gtest_filter=WorkspaceDivision.OfflineDivisionJob > " +
                          job_output.string() + " 2>&1";
  const int status = std::system(job.c_str());
  std::ifstream read(job_output);
  const std::string output((std::istreambuf_iterator<char>(read)), {});
  std::printf("%s", output.c_str());
  EXPECT_EQ(status, 0) << job;
  EXPECT_NE(output.find("[  PASSED  ] 1 test"), std::string::npos);
  std::filesystem::remove_all(directory);
}

TEST_F(WorkspaceDivision, OfflineDivisionJob) {
  if (!std::getenv("UCUDNN_WD_OFFLINE_JOB"))
    GTEST_SKIP() << "the job AnOfflineDivisionRunsFromTheFirstIterationWithoutMeasuring runs";
  const Optimum optimum = planner_optimum(16);
  const Outcome offline = train({2, false, true}, random.engine());
  print("lazy, two handles, offline plan:", offline);
  for (std::size_t i = 0; i < offline.iteration_ms.size(); ++i) {
    SCOPED_TRACE("iteration " + std::to_string(i));
    EXPECT_NEAR(offline.iteration_ms[i], optimum.time_ms, 1e-5 * optimum.time_ms + 2e-6);
    // The application's convolutions and nothing else: no benchmark.
    EXPECT_EQ(offline.counts[i].convolutions, offline.counts.back().convolutions);
  }
  EXPECT_EQ(offline.held_bytes, optimum.arena_bytes);
  EXPECT_EQ(offline.races, 0);
  expect_steady(offline, 1, "offline plan");
}

}  // namespace
