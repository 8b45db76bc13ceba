// A workspace limit the user sets (UCUDNN_WORKSPACE_LIMIT) under the graph API: an engine over
// it is no candidate, so the application is told the workspace of ucudnn's plan within the
// limit and allocates that, and cuDNN's engine never runs with it (the doubles refuse an engine
// whose workspace does not lie in a live allocation of its size). Under memory pressure, where
// the application alone moves on to the first engine whose workspace it can allocate, the
// heuristics' first engine then runs as micro-batches within the limit. examples/graph_conv.cc
// on the cuDNN/CUDA test doubles, with the product's default comparison of the application's
// plans (UCUDNN_GRAPH_PLANS=compare).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "graph_api_harness.h"

namespace ucudnn {
namespace {

using testing::count_of;

// The GPU time of the last iteration, as graph_conv prints it.
double last_iterations_ms(const ProgramRun& r) {
  const auto at = r.process.out.find("graph_conv: last iterations ");
  double ms = -1;
  if (at == std::string::npos ||
      std::sscanf(r.process.out.c_str() + at, "graph_conv: last iterations %lf ms", &ms) != 1)
    ADD_FAILURE() << "no GPU time printed:\n" << r.process.out;
  return ms;
}

// The double's lines `what` (executions of the application's own plans, not ucudnn's graphs;
// or requests for native CUDA graphs) whose engine needs more than `limit` of workspace.
int engines_over(const std::string& trace, std::uint64_t limit,
                 const std::string& what = "backend-execute") {
  int count = 0;
  for (const auto& line : testing::lines_in(trace)) {
    if (line.rfind(what, 0) != 0 || line.find("x_uid=30072") != std::string::npos) continue;
    const auto at = line.find(" workspace=");
    if (at == std::string::npos) {
      ADD_FAILURE() << "no workspace in " << line;
      continue;
    }
    count += std::stoull(line.substr(at + 11)) > limit;
  }
  return count;
}

Environment limited(std::uint64_t limit) {
  return {{"UCUDNN_WORKSPACE_LIMIT", std::to_string(limit)},
          {"UCUDNN_GRAPH_PLANS", "compare"},
          {"UCUDNN_LOG_LEVEL", "info"}};
}

TEST_F(GraphApi, AnEngineOverTheLimitIsToldThePlansWorkspaceAndNeverRuns) {
  const std::vector<std::string> args = {"--iterations", "2", "--filter-beta", "0.25"};
  const ProgramRun without = run(args, {}, false);
  const ProgramRun with = run(args, limited(kTightLimit), true);
  expect_same_results(without, with);
  ASSERT_EQ(without.workspaces.size(), 3u * kLayers);
  ASSERT_EQ(with.workspaces.size(), without.workspaces.size());
  const auto plans = predicted_plans(kTightLimit);
  int over = 0;
  for (std::size_t k = 0; k < plans.size(); ++k) {
    // Within the limit whatever runs: ucudnn's plan, or the application's engine that fits.
    EXPECT_LE(with.workspaces[k], static_cast<long long>(kTightLimit)) << "kernel " << k;
    if (without.workspaces[k] <= static_cast<long long>(kTightLimit)) continue;
    ++over;
    EXPECT_EQ(with.workspaces[k], static_cast<long long>(plans[k].workspace_bytes()))
        << "kernel " << k;
  }
  ASSERT_GE(over, 3) << "the limit should be below several engines' workspaces";
  EXPECT_EQ(count_of(with.process.err, "being over the limit"), over) << with.process.err;
  // The application's engines over the limit never ran, not even to be timed beside ucudnn's
  // plans (the others were, by the comparison).
  EXPECT_GE(engines_over(without.trace, kTightLimit), 2 * over);
  EXPECT_EQ(engines_over(with.trace, kTightLimit), 0) << with.trace;
  EXPECT_EQ(count_of(with.process.err, "warning"), 0) << with.process.err;
}

// UCUDNN_EXCLUDE_ALGORITHMS is the answer when an engine misbehaves: the application's plan of
// an excluded engine is no more cuDNN's to run than one over the limit. Wherever ucudnn has a
// plan for it, ucudnn's runs, whatever the comparison would say (before, the application's
// plan stayed where ucudnn's was no faster); only kernels the exclusion leaves no candidate
// pass through to it.
TEST_F(GraphApi, AnExcludedEngineOfTheApplicationNeverRunsWhereUcudnnHasAPlan) {
  const std::vector<std::string> args = {"--iterations", "2"};
  const ProgramRun without = run(args, {}, false);
  const Environment excluded = {{"UCUDNN_EXCLUDE_ALGORITHMS", "cudnn:eng1,cudnn:eng1{*}"},
                                {"UCUDNN_GRAPH_PLANS", "compare"},
                                {"UCUDNN_LOG_LEVEL", "info"}};
  const ProgramRun with = run(args, excluded, true);
  expect_same_results(without, with);
  const auto engine_one = [](const std::string& trace) {
    int count = 0;
    for (const auto& line : testing::lines_in(trace))
      count +=
          line.rfind("backend-execute", 0) == 0 && line.find(" engine=1 ") != std::string::npos;
    return count;
  };
  const int alone = engine_one(without.trace);
  ASSERT_GT(alone, 0) << "the application should choose engine 1 for some kernels";
  const int passed_through =
      count_of(with.process.err, "UCUDNN_EXCLUDE_ALGORITHMS excludes every candidate of it");
  const int taken_over = count_of(with.process.err, "being excluded by UCUDNN_EXCLUDE_ALGORITHMS");
  EXPECT_GT(taken_over, 0) << with.process.err;
  // Engine 1 runs only where the exclusion left a kernel nothing else: never beside a plan.
  EXPECT_LT(engine_one(with.trace), alone);
  if (passed_through == 0) {
    EXPECT_EQ(engine_one(with.trace), 0) << with.trace;
  }
}

TEST_F(GraphApi, UnderMemoryPressureTheHeuristicsFirstEngineRunsWithinTheLimit) {
  // Layers as long as real ones on the GPU, so that the comparison weighs GPU time, not host
  // noise; the application can allocate no more than the limit.
  const std::vector<std::string> args = {"--iterations", "2", "--workspace-memory",
                                         std::to_string(kTightLimit)};
  Environment slow = {{"FAKECUDA_GPU_SLOWDOWN", "100"}};
  const ProgramRun alone = run(args, slow, false);
  const ProgramRun unlimited = run({"--iterations", "2"}, slow, false);
  Environment with_ucudnn = limited(kTightLimit);
  with_ucudnn.insert(slow.begin(), slow.end());
  const ProgramRun with = run(args, with_ucudnn, true);
  expect_same_results(alone, with);
  // Alone, the application passes over the engines whose workspace it cannot have: some
  // kernels then run a slower engine than the heuristics' first.
  int passed_over = 0;
  for (std::size_t k = 0; k < alone.workspaces.size(); ++k) {
    EXPECT_LE(alone.workspaces[k], static_cast<long long>(kTightLimit));
    EXPECT_LE(with.workspaces[k], static_cast<long long>(kTightLimit));
    passed_over += unlimited.workspaces[k] > static_cast<long long>(kTightLimit);
  }
  ASSERT_GE(passed_over, 3);
  const double alone_ms = last_iterations_ms(alone), with_ms = last_iterations_ms(with);
  const double unlimited_ms = last_iterations_ms(unlimited);
  std::printf(
      "last iteration on the doubles' GPU: alone under pressure %.4f ms, with ucudnn "
      "%.4f ms (%.2fx), alone without pressure %.4f ms\n",
      alone_ms, with_ms, alone_ms / with_ms, unlimited_ms);
  // µ-cuDNN's gain under a limit, at least (issue 33's target).
  EXPECT_GT(alone_ms, 1.2 * with_ms);
  EXPECT_LT(alone_ms, unlimited_ms * 10) << "the pressure should slow the application, not stop it";
}

// A limit above what the application can allocate (UCUDNN_WORKSPACE_LIMIT set to more than is
// free): the application passes over a plan whose answer, ucudnn's workspace, it cannot have, and
// tries the graph's next engine. That one must answer its engine's own workspace, as alone, or
// the application finds no plan it can run (before: every plan of a kernel answered ucudnn's,
// "no engine configuration finalized"). Where ucudnn's answer fits, its plan runs.
TEST_F(GraphApi, ALimitAboveWhatTheApplicationCanAllocateLeavesItTheEnginesItRunsAlone) {
  constexpr std::uint64_t kAllocatable = 100'000;
  static_assert(kAllocatable < kTightLimit);
  const std::vector<std::string> args = {"--iterations", "2", "--workspace-memory",
                                         std::to_string(kAllocatable)};
  const ProgramRun alone = run(args, {}, false);
  for (const char* plans : {"compare", "ucudnn"}) {
    SCOPED_TRACE(plans);
    Environment environment = limited(kTightLimit);
    environment["UCUDNN_GRAPH_PLANS"] = plans;
    const ProgramRun with = run(args, environment, true);
    expect_same_results(alone, with);
    ASSERT_EQ(with.workspaces.size(), alone.workspaces.size());
    int ucudnns = 0;
    for (std::size_t k = 0; k < with.workspaces.size(); ++k) {
      EXPECT_LE(with.workspaces[k], static_cast<long long>(kAllocatable)) << "kernel " << k;
      ucudnns += with.workspaces[k] != alone.workspaces[k];
    }
    if (std::string(plans) == "ucudnn") {
      EXPECT_GT(ucudnns, 0) << "ucudnn's plans that fit what the application can allocate run";
    }
  }
}

// Under WD (UCUDNN_TOTAL_WORKSPACE_SIZE) a graph API application still allocates its engines'
// workspace for each plan (ucudnn's arena is apart from it). A division under a small total gave
// kernels slower algorithms in their segments while that workspace lay unused: 16 KiB made the
// example 1.7x slower than alone. A WR plan within the application's workspace now runs where
// it is faster than the kernel's place in the division.
TEST_F(GraphApi, ADivisionIsNoSlowerThanWhatTheApplicationsOwnWorkspaceAllows) {
  const std::vector<std::string> args = {"--iterations", "4"};
  const Environment slow = {{"FAKECUDA_GPU_SLOWDOWN", "100"}};
  const ProgramRun alone = run(args, slow, false);
  Environment divided = {{"UCUDNN_TOTAL_WORKSPACE_SIZE", "16KiB"}, {"UCUDNN_LOG_LEVEL", "info"}};
  divided.insert(slow.begin(), slow.end());
  const ProgramRun with = run(args, divided, true);
  expect_same_results(alone, with);
  EXPECT_GT(count_of(with.process.err, "workspace division of"), 0) << with.process.err;
  // The application is told its engines' workspace, as before.
  EXPECT_EQ(with.workspaces, alone.workspaces);
  const double alone_ms = last_iterations_ms(alone), with_ms = last_iterations_ms(with);
  std::printf(
      "last iteration on the doubles' GPU: alone %.4f ms, under a 16 KiB division %.4f ms\n",
      alone_ms, with_ms);
  EXPECT_LE(with_ms, alone_ms * 1.01);
}

// Without a limit set, under memory pressure (a device nearly full: the application alone
// passes over every engine whose workspace it cannot allocate), ucudnn must neither make it
// pass over more (each plan ucudnn runs needs no more workspace than the engine the
// application finalized: the default then costs no memory) nor slow it. With memory to spare
// (TheWorkspaceAnswerIsThePlansAndAtLeastTheEngines) ucudnn's plans may need more; a limit the
// user sets is what lets it use more under pressure (above).
TEST_F(GraphApi, UnderMemoryPressureWithoutALimitEachPlanNeedsNoMoreThanItsEngine) {
  const std::vector<std::string> args = {"--iterations", "2", "--workspace-memory",
                                         std::to_string(kTightLimit)};
  Environment slow = {{"FAKECUDA_GPU_SLOWDOWN", "100"},
                      {"FAKECUDA_MEMORY_BYTES", std::to_string(256u << 20)}};
  const ProgramRun alone = run(args, slow, false);
  Environment with_ucudnn = {{"UCUDNN_GRAPH_PLANS", "compare"}, {"UCUDNN_LOG_LEVEL", "info"}};
  with_ucudnn.insert(slow.begin(), slow.end());
  const ProgramRun with = run(args, with_ucudnn, true);
  expect_same_results(alone, with);
  ASSERT_EQ(with.workspaces.size(), alone.workspaces.size());
  for (std::size_t k = 0; k < alone.workspaces.size(); ++k)
    EXPECT_EQ(with.workspaces[k], alone.workspaces[k]) << "kernel " << k;
  // Every plan ucudnn made was within the workspace of the engine it was made for.
  EXPECT_GT(count_of(with.process.err, "plan within"), 0) << with.process.err;
  EXPECT_EQ(count_of(with.process.err, "over the limit"), 0) << with.process.err;
  const double alone_ms = last_iterations_ms(alone), with_ms = last_iterations_ms(with);
  std::printf(
      "last iteration on the doubles' GPU: alone under pressure %.4f ms, with ucudnn "
      "(no limit set) %.4f ms\n",
      alone_ms, with_ms);
  EXPECT_LE(with_ms, alone_ms);
}

TEST_F(GraphApi, ACappedPlansEngineIsNeverRecordedIntoANativeCudaGraph) {
  // cudnn-frontend's native CUDA graphs: cuDNN would record the engine with the application's
  // workspace, too small for it. The doubles have no native graphs, but trace what they are
  // asked; the example then executes the plan as usual.
  const std::vector<std::string> args = {"--iterations", "1", "--populate"};
  const ProgramRun without = run(args, {}, false);
  const ProgramRun with = run(args, limited(kTightLimit), true);
  expect_same_results(without, with);
  const int asked_over = engines_over(without.trace, kTightLimit, "backend-populate");
  ASSERT_GE(asked_over, 3) << without.trace;
  EXPECT_EQ(engines_over(with.trace, kTightLimit, "backend-populate"), 0) << with.trace;
  EXPECT_EQ(count_of(with.trace, "backend-populate"),
            count_of(without.trace, "backend-populate") - asked_over);
  // Refused, the plans were executed, the capped ones as ucudnn's.
  EXPECT_EQ(engines_over(with.trace, kTightLimit), 0) << with.trace;
  EXPECT_EQ(count_of(with.process.err, "cannot populate a CUDA graph natively"), 1)
      << with.process.err;
}

TEST_F(GraphApi, APackBuiltOnAnotherThreadRunsACappedPlanAsUcudnns) {
  // Each pack is built on a thread that then ends, executed on the main one and destroyed on a
  // third, as a framework that prepares its packs on a worker: its creator's records, handed
  // over as that thread ended, tell ucudnn the pointers, so the plans whose engines are over the
  // limit run as ucudnn's micro-batches (the execution failed with NOT_SUPPORTED before).
  const std::vector<std::string> args = {"--iterations", "2", "--filter-beta", "0.25",
                                         "--packs-elsewhere"};
  const ProgramRun without = run(args, {}, false);
  const ProgramRun with = run(args, limited(kTightLimit), true);
  ASSERT_EQ(with.process.status, 0) << with.process.err;
  expect_same_results(without, with);
  EXPECT_GE(count_of(with.process.err, "being over the limit"), 3) << with.process.err;
  EXPECT_GE(engines_over(without.trace, kTightLimit), 3);
  EXPECT_EQ(engines_over(with.trace, kTightLimit), 0) << with.trace;
  EXPECT_EQ(count_of(with.process.err, "warning"), 0) << with.process.err;
}

TEST_F(GraphApi, APackUcudnnCannotReadFailsACappedPlanInsteadOfOverrunningItsWorkspace) {
  // A pack with intermediates set: ucudnn cannot tell what cuDNN makes of them, so for a plan
  // whose answer was below its engine's workspace it can neither run its plan nor let the
  // engine run.
  const ProgramRun with = run({"--iterations", "1", "--pack-intermediates"}, limited(kTightLimit),
                              true, /*doubles=*/true, /*status=*/1);
  EXPECT_EQ(count_of(with.process.err, "set only the pack's tensors and workspace"), 1)
      << with.process.err;
  EXPECT_NE(with.process.err.find("CUDNN_STATUS_NOT_SUPPORTED"), std::string::npos)
      << with.process.err;
  // The double refuses an engine whose workspace is short, and says so: it was never asked.
  EXPECT_EQ(count_of(with.process.err, "does not lie inside one live cudaMalloc allocation"), 0)
      << with.process.err;
  // Without a limit the same program runs: cuDNN runs such packs itself.
  const ProgramRun unlimited =
      run({"--iterations", "1", "--pack-intermediates"}, {{"UCUDNN_GRAPH_PLANS", "compare"}}, true);
  EXPECT_EQ(unlimited.process.status, 0);
}

}  // namespace
}  // namespace ucudnn
