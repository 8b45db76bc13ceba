// The example program (examples/conv_network.cc), which drives convolution layers the way a
// framework does and knows nothing of ucudnn, run on the cuDNN/CUDA test doubles: without
// the shim, under LD_PRELOAD, and as its UcudnnHandle_t variant. The doubles compute exactly
// and time by a fixed model (tests/fakecuda/cost_model.h), so this test predicts from the
// model what the planner must achieve and checks it to the last digit the program prints:
// same results as without ucudnn, micro-batched calls seen by the doubles, and the modeled
// time of the plans (WR and WD) beating the undivided choice by the predicted factor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "core/micro_table.h"
#include "core/pareto_front.h"
#include "core/workspace_reuse.h"
#include "core/workspace_sharing.h"
#include "cost_model.h"
#include "end_to_end_fixture.h"
#include "example_kernels.h"
#include "example_program.h"
#include "measuring_line.h"
#include "model_benchmarker.h"
#include "network_layers.h"
#include "support/random_seed.h"
#include "support/subprocess.h"

namespace ucudnn {
namespace {

using fakecuda::ModelBenchmarker;
using testing::benchmarked_lines;
using testing::count_of;
using testing::Environment;
using testing::expect_ran_on_doubles;
using testing::expect_same_results;
using testing::measuring_line;
using testing::micro_batched_calls;
using testing::ProgramRun;

struct Prediction {
  double undivided_ms = 0;  // the framework's own choice: fastest algorithm within the cap
  double reuse_ms = 0;      // WR plans within the cap
  double division_ms = 0;   // the WD plan in the total workspace
  double learning_ms = 0;   // WD's learning iterations: WR plans within the total
  double found_ms = 0;  // the iteration that repeats the first: learning, but its last run divided
  std::uint64_t arena_bytes = 0;  // the WD plan's segments, aligned and summed
  int reuse_calls = 0;            // micro-batches of the WR plans: calls per iteration
};

Prediction predict(std::uint64_t cap, std::uint64_t total) {
  ModelBenchmarker model;
  // The application without ucudnn picks among cuDNN's legacy algorithms.
  ModelBenchmarker legacy(ModelBenchmarker::Candidates::kAlgorithms);
  Prediction p;
  std::vector<SharingKernel> candidates;
  for (const auto& kernel : example_kernels(kBatch)) {
    const auto table =
        measure_micro_table(model, kernel, BatchSizePolicy::kPowerOfTwo, kNoWorkspaceLimit);
    const auto within_cap = restrict_to_limit(table, cap);
    const auto legacy_within_cap = restrict_to_limit(
        measure_micro_table(legacy, kernel, BatchSizePolicy::kPowerOfTwo, kNoWorkspaceLimit), cap);
    const auto* undivided = fastest(legacy_within_cap.candidates.back());
    auto reuse = plan_workspace_reuse(within_cap);
    // Under WD, Get/Find report no workspace: the application allocates none, and until the
    // division each kernel runs within the total, in ucudnn's scratch buffer.
    auto learning = plan_workspace_reuse(restrict_to_limit(table, total));
    if (!undivided || !reuse || !learning) {
      ADD_FAILURE() << "no plan for " << kernel.to_string();
      return p;
    }
    p.undivided_ms += undivided->time_ms;
    p.reuse_ms += reuse->time_ms();
    p.reuse_calls += static_cast<int>(reuse->micro.size());
    p.learning_ms += learning->time_ms();
    p.found_ms = p.learning_ms - learning->time_ms();  // the last kernel's time comes below
    // The example runs on one stream: its kernels share one segment of the arena.
    candidates.push_back(
        {kernel.to_string(), desirable_configurations(restrict_to_limit(table, total)), 1, 0});
  }
  auto division = plan_shared_division(candidates, 1, total);
  EXPECT_TRUE(division) << division.error();
  if (division) {
    p.division_ms = division->time_ms;
    p.arena_bytes = division->workspace_bytes;
    p.found_ms += candidates.back().front[division->choice.back()].time_ms();
  }
  return p;
}

// The program prints times with 6 decimals of a millisecond.
void expect_time(double measured, double predicted, const char* what) {
  EXPECT_NEAR(measured, predicted, 2e-6 + 1e-5 * predicted) << what;
}

TEST_F(EndToEnd, WorkspaceReuseUnderPreloadBeatsUndividedByTheModeledFactor) {
  const auto prediction = predict(kTightLimit, kTotalWorkspace);
  ASSERT_GT(prediction.undivided_ms / prediction.reuse_ms, 1.2)
      << "the tight limit should leave room for micro-batching to win";
  const auto cap = std::to_string(kTightLimit);
  const ProgramRun without = baseline({"--workspace-limit", cap});
  const ProgramRun with = preloaded({"--workspace-limit", cap}, {{"UCUDNN_WORKSPACE_LIMIT", cap}});
  expect_ran_on_doubles(without);
  expect_ran_on_doubles(with);
  expect_same_results(without, with);
  EXPECT_EQ(micro_batched_calls(without.trace), 0);
  EXPECT_GT(micro_batched_calls(with.trace), 0);
  ASSERT_EQ(without.iteration_ms.size(), 3u);
  ASSERT_EQ(with.iteration_ms.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    expect_time(without.iteration_ms[i], prediction.undivided_ms, "undivided");
    expect_time(with.iteration_ms[i], prediction.reuse_ms, "WR plan");
  }
  std::printf("WR: undivided %.6f ms, planned %.6f ms, speedup %.3fx (model predicts %.3fx)\n",
              without.iteration_ms.back(), with.iteration_ms.back(),
              without.iteration_ms.back() / with.iteration_ms.back(),
              prediction.undivided_ms / prediction.reuse_ms);
}

// FindEx: the limit is the workspace the application passes (no UCUDNN_WORKSPACE_LIMIT).
TEST_F(EndToEnd, FindExTakesTheLimitFromTheApplicationsWorkspace) {
  const auto prediction = predict(kTightLimit, kTotalWorkspace);
  const std::vector<std::string> args = {"--select", "findex", "--workspace-limit",
                                         std::to_string(kTightLimit)};
  const ProgramRun without = baseline(args);
  const ProgramRun with = preloaded(args, {});
  expect_ran_on_doubles(with);
  expect_same_results(without, with);
  EXPECT_GT(micro_batched_calls(with.trace), 0);
  ASSERT_EQ(with.iteration_ms.size(), 3u);
  expect_time(without.iteration_ms.back(), prediction.undivided_ms, "undivided");
  expect_time(with.iteration_ms.back(), prediction.reuse_ms, "WR plan");
}

// The workspace each kernel's selection asked for ("select conv1 Forward algo=8 memory=556
// workspace=556"), in the program's order.
std::vector<long long> selected_workspaces(const std::string& out) {
  std::vector<long long> bytes;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (const auto at = line.find(" workspace="); line.rfind("select ", 0) == 0 && at != line.npos)
      bytes.push_back(std::stoll(line.substr(at + 11)));
  return bytes;
}

// Without a limit set, on a device the program nearly fills: ucudnn's plans need no more
// workspace than cuDNN's own first choice, which the program would have allocated. They
// needed up to the 64 MiB default (conv3: 295,744 bytes where cuDNN's needed 832), and the
// program failed, out of memory, where it runs alone (a new-user trial; the graph API held its
// plans to the application's engines so already).
TEST_F(EndToEnd, UnderMemoryPressureWithoutALimitTheProgramRunsAsAlone) {
  const std::vector<std::string> args = {"--batch", "8", "--iterations", "2"};
  const testing::Environment pressure = {{"FAKECUDA_MEMORY_BYTES", "12000000"}};
  const ProgramRun alone = run(UCUDNN_EXAMPLE, args, pressure);
  ASSERT_EQ(alone.process.status, 0) << alone.process.err;
  testing::Environment with_ucudnn = pressure;
  with_ucudnn["UCUDNN_DATABASE"] = database_path();
  const ProgramRun with = preloaded(args, with_ucudnn);
  ASSERT_EQ(with.process.status, 0) << with.process.err;
  expect_same_results(alone, with);
  const auto mine = selected_workspaces(with.process.out);
  const auto theirs = selected_workspaces(alone.process.out);
  ASSERT_EQ(mine.size(), 15u) << with.process.out;
  ASSERT_EQ(mine.size(), theirs.size());
  for (std::size_t k = 0; k < mine.size(); ++k) EXPECT_LE(mine[k], theirs[k]) << "kernel " << k;
  ASSERT_FALSE(with.iteration_ms.empty());
  EXPECT_LE(with.iteration_ms.back(), alone.iteration_ms.back());
  // With memory to spare, ucudnn's plans may take more (up to the default limit).
  const ProgramRun roomy = preloaded(args, {{"UCUDNN_DATABASE", database_path()}});
  const auto roomy_bytes = selected_workspaces(roomy.process.out);
  ASSERT_EQ(roomy_bytes.size(), theirs.size()) << roomy.process.out;
  int more = 0;
  for (std::size_t k = 0; k < theirs.size(); ++k) more += roomy_bytes[k] > theirs[k];
  EXPECT_GT(more, 0) << roomy.process.out;
}

// What the shim logs once it has divided the example's workspace (its 15 kernels, on one stream,
// share one segment); the real-cuDNN test below looks for the same line.
constexpr const char* kExampleDivided = "workspace division of 15 kernels in 1 segment:";

TEST_F(EndToEnd, WorkspaceDivisionLearnsTheNetworkThenDividesOneArena) {
  const auto prediction = predict(kTightLimit, kTotalWorkspace);
  const auto cap = std::to_string(kTightLimit);
  const ProgramRun without = baseline({"--workspace-limit", cap});
  const ProgramRun with = preloaded(
      {"--workspace-limit", cap}, {{"UCUDNN_TOTAL_WORKSPACE_SIZE", std::to_string(kTotalWorkspace)},
                                   {"UCUDNN_LOG_LEVEL", "info"}});
  expect_ran_on_doubles(with);
  expect_same_results(without, with);
  EXPECT_EQ(count_of(with.process.err, kExampleDivided), 1) << with.process.err;
  ASSERT_EQ(with.iteration_ms.size(), 3u);
  // Iterations 0 and 1 learn the kernels (each within the total, never in the zero bytes the
  // application was told); the division is made at the last run of the second, which repeats
  // the first: on one stream every kernel keeps its fastest within the total, now in the one
  // segment they share, so the three iterations take the same time.
  expect_time(with.iteration_ms[0], prediction.learning_ms, "learning iteration");
  expect_time(with.iteration_ms[1], prediction.found_ms, "iteration found");
  expect_time(with.iteration_ms[2], prediction.division_ms, "divided iteration");
  EXPECT_EQ(with.iteration_ms[2], with.iteration_ms[0]) << "divided no slower than learning";
  EXPECT_LT(prediction.division_ms, prediction.undivided_ms);
  EXPECT_LE(prediction.arena_bytes, kTotalWorkspace);
  // The arena (benchmarks may ask for as much); that it is allocated once and nothing after
  // is shim.workspace_division's to check.
  EXPECT_GE(
      count_of(with.trace, "malloc bytes=" + std::to_string(prediction.arena_bytes) + " ok=1"), 1)
      << "the arena";
  std::printf("WD: undivided %.6f ms, divided %.6f ms in %llu bytes: %.3fx\n",
              without.iteration_ms.back(), with.iteration_ms.back(),
              static_cast<unsigned long long>(kTotalWorkspace),
              without.iteration_ms.back() / with.iteration_ms.back());
}

TEST_F(EndToEnd, UcudnnHandleVariantPlansLikeThePreload) {
  const auto prediction = predict(kTightLimit, kTotalWorkspace);
  const auto cap = std::to_string(kTightLimit);
  const ProgramRun without = baseline({"--workspace-limit", cap});
  const ProgramRun with =
      run(UCUDNN_EXAMPLE_UCUDNN, {"--workspace-limit", cap}, {{"UCUDNN_WORKSPACE_LIMIT", cap}});
  expect_ran_on_doubles(with);
  expect_same_results(without, with);
  EXPECT_GT(micro_batched_calls(with.trace), 0);
  ASSERT_EQ(with.iteration_ms.size(), 3u);
  expect_time(with.iteration_ms.back(), prediction.reuse_ms, "WR plan");
  EXPECT_EQ(with.process.err.find("runs under libucudnn_preload.so"), std::string::npos)
      << with.process.err;
  // Under the preload as well (ucudnn-run on a program linked with -lucudnn): said once, as the
  // README says not to (each front end plans on its own).
  const ProgramRun both = run(UCUDNN_EXAMPLE_UCUDNN, {"--workspace-limit", cap},
                              {{"UCUDNN_WORKSPACE_LIMIT", cap}, {"LD_PRELOAD", UCUDNN_PRELOAD}});
  expect_ran_on_doubles(both);
  expect_same_results(without, both);
  const std::string said =
      "ucudnn: warning: this program links libucudnn.so (UcudnnHandle_t) and "
      "runs under libucudnn_preload.so (LD_PRELOAD, ucudnn-run) as well";
  const auto at = both.process.err.find(said);
  EXPECT_NE(at, std::string::npos) << both.process.err;
  EXPECT_EQ(both.process.err.find(said, at + 1), std::string::npos) << "once";
}

TEST_F(EndToEnd, ThreadsWithTheirOwnHandlesGetIdenticalResults) {
  const auto cap = std::to_string(kTightLimit);
  const ProgramRun without = baseline({"--workspace-limit", cap});
  const ProgramRun with =
      preloaded({"--workspace-limit", cap, "--threads", "4"}, {{"UCUDNN_WORKSPACE_LIMIT", cap}});
  expect_ran_on_doubles(with);  // exit 3 would mean the threads' outputs differ
  expect_same_results(without, with);
}

TEST_F(EndToEnd, DisabledShimPassesEverythingThrough) {
  const auto cap = std::to_string(kTightLimit);
  const ProgramRun without = baseline({"--workspace-limit", cap});
  const ProgramRun with = preloaded({"--workspace-limit", cap},
                                    {{"UCUDNN_DISABLE", "1"}, {"UCUDNN_WORKSPACE_LIMIT", cap}});
  expect_ran_on_doubles(with);
  expect_same_results(without, with);
  EXPECT_EQ(micro_batched_calls(with.trace), 0);
  EXPECT_EQ(with.iteration_ms, without.iteration_ms);
}

TEST_F(EndToEnd, BadSettingsWarnOnceAndTheProgramRuns) {
  const ProgramRun without = baseline();
  const ProgramRun with =
      preloaded({}, {{"UCUDNN_WORKSPACE_LIMIT", "12apples"}, {"UCUDNN_BATCH_SIZE_POLICY", "half"}});
  expect_ran_on_doubles(with);
  expect_same_results(without, with);
  EXPECT_EQ(count_of(with.process.err, "UCUDNN_WORKSPACE_LIMIT"), 1) << with.process.err;
  EXPECT_EQ(count_of(with.process.err, "UCUDNN_BATCH_SIZE_POLICY"), 1) << with.process.err;
  EXPECT_NE(with.process.err.find("12apples"), std::string::npos);
}

// UCUDNN_BENCHMARK_IN=find, an empty database and a program that asks Get_v7 only: every kernel
// passes through, said once and naming the setting (it was one long warning per kernel, each
// naming the kernel twice and not the setting).
TEST_F(EndToEnd, OnlyFindMeasuresAndTheKernelsWithoutPlansPassThroughSaidOnce) {
  const ProgramRun without = baseline();
  const ProgramRun with = preloaded({}, {{"UCUDNN_BENCHMARK_IN", "find"}});
  expect_ran_on_doubles(with);
  expect_same_results(without, with);
  EXPECT_EQ(micro_batched_calls(with.trace), 0);
  EXPECT_EQ(count_of(with.process.err, "ucudnn: warning:"), 1) << with.process.err;
  EXPECT_EQ(count_of(with.process.err, "UCUDNN_BENCHMARK_IN=find"), 1) << with.process.err;
  EXPECT_EQ(count_of(with.process.err, "ucudnn-kernel/"), 1) << "the kernel named once";
}

// With a database, the second run of the same program benchmarks nothing: every plan and
// measurement comes from the first run's file.
// The exit line of where measuring spent the host's time (cudnn/measuring_account.h).
TEST_F(EndToEnd, SecondRunWithTheDatabaseBenchmarksNothing) {
  const std::string database = database_path();
  const auto cap = std::to_string(kTightLimit);
  const Environment environment = {
      {"UCUDNN_WORKSPACE_LIMIT", cap}, {"UCUDNN_DATABASE", database}, {"UCUDNN_LOG_LEVEL", "info"}};
  const ProgramRun first = preloaded({"--workspace-limit", cap}, environment);
  const ProgramRun second = preloaded({"--workspace-limit", cap}, environment);
  expect_ran_on_doubles(first);
  expect_ran_on_doubles(second);
  expect_same_results(first, second);
  EXPECT_GT(count_of(first.process.err, "benchmarked"), 0) << first.process.err;
  EXPECT_EQ(count_of(second.process.err, "benchmarked"), 0) << second.process.err;
  // Only the iterations' own calls reach the doubles: 3 iterations of the plans' micro-batches.
  const auto prediction = predict(kTightLimit, kTotalWorkspace);
  EXPECT_EQ(count_of(second.trace, "conv op="), 3 * prediction.reuse_calls)
      << "no benchmarking calls";
  EXPECT_GT(count_of(first.trace, "conv op="), 3 * prediction.reuse_calls);
  EXPECT_EQ(second.iteration_ms, first.iteration_ms);
  // The first run says where its measuring went; the second measured nothing and says nothing.
  const auto line = measuring_line(first.process.err);
  ASSERT_TRUE(line) << first.process.err;
  const auto [kernels, attempts] = benchmarked_lines(first.process.err);
  EXPECT_GT(line->kernels, 0);
  EXPECT_LE(line->kernels, kernels) << "a kernel counts where a candidate ran";
  EXPECT_GT(line->pairs, 0);
  EXPECT_LE(line->pairs, attempts) << "pairs timed, of those attempted";
  EXPECT_LE(line->stopped, line->pairs);
  EXPECT_GE(line->plans, line->pairs) << "each engine configuration timed was finalized";
  // cuDNN's heuristics (modes A, B and the fallback list) once per kernel, however often
  // planning asks for its candidates (each limit, the undivided baseline of this log).
  EXPECT_EQ(line->queries, line->kernels);
  EXPECT_EQ(count_of(first.trace, "heuristics"), 3 * line->kernels);
  EXPECT_EQ(count_of(second.trace, "heuristics"), 3 * line->kernels)
      << "from the database: the heuristics, once per kernel, for its candidates' names";
  // Each figure is printed to 0.01 s: the parts and the rest make the whole.
  EXPECT_NEAR(line->runs_s + line->plans_s + line->heuristics_s + line->allocating_s +
                  line->database_writes_s + line->rest_s,
              line->total_s, 0.04);
  EXPECT_FALSE(measuring_line(second.process.err)) << second.process.err;
}

// The same programs against the real cuDNN on a GPU (scripts/gpu-validate.sh). Different
// algorithms round differently (FFT, Winograd, TF32 tensor cores under the default math
// type), so results agree to a looser tolerance; a lost micro-batch or a wrong beta would be
// off by far more.
class RealCudnnEndToEnd : public EndToEnd {
 protected:
  void SetUp() override {
    EndToEnd::SetUp();
    const ProgramRun probe = run(UCUDNN_EXAMPLE, {"--iterations", "1"}, {}, false);
    if (probe.process.status != 0)
      GTEST_SKIP() << "no GPU with cuDNN here (the example without the doubles exits "
                   << probe.process.status << ")";
  }
  static void expect_close_results(const ProgramRun& expected, const ProgramRun& actual) {
    ASSERT_EQ(expected.dump_error, "");
    ASSERT_EQ(actual.dump_error, "");
    ASSERT_EQ(expected.tensors.size(), actual.tensors.size());
    for (std::size_t t = 0; t < expected.tensors.size(); ++t) {
      const auto& a = expected.tensors[t].values;
      const auto& b = actual.tensors[t].values;
      ASSERT_EQ(a.size(), b.size());
      EXPECT_LT(testing::relative_error(b, a), 5e-3) << expected.tensors[t].name;
    }
  }
};

TEST_F(RealCudnnEndToEnd, PreloadAndUcudnnHandleGiveTheSameResults) {
  const std::vector<std::string> args = {"--workspace-limit", "1048576"};
  const ProgramRun without = run(UCUDNN_EXAMPLE, args, {}, false);
  const ProgramRun preload = run(UCUDNN_EXAMPLE, args,
                                 {{"LD_PRELOAD", UCUDNN_PRELOAD},
                                  {"UCUDNN_WORKSPACE_LIMIT", "1MiB"},
                                  {"UCUDNN_LOG_LEVEL", "info"}},
                                 false);
  const ProgramRun handle =
      run(UCUDNN_EXAMPLE_UCUDNN, args,
          {{"UCUDNN_WORKSPACE_LIMIT", "1MiB"}, {"UCUDNN_LOG_LEVEL", "info"}}, false);
  const ProgramRun division = run(UCUDNN_EXAMPLE, args,
                                  {{"LD_PRELOAD", UCUDNN_PRELOAD},
                                   {"UCUDNN_TOTAL_WORKSPACE_SIZE", "4MiB"},
                                   {"UCUDNN_LOG_LEVEL", "info"}},
                                  false);
  // ucudnn planned every kernel, and divided the workspace: the results below are its.
  EXPECT_GE(count_of(preload.process.err, "plan within"), 15) << preload.process.err;
  EXPECT_GE(count_of(handle.process.err, "plan within"), 15) << handle.process.err;
  EXPECT_EQ(count_of(division.process.err, kExampleDivided), 1) << division.process.err;
  for (const ProgramRun* r : {&without, &preload, &handle, &division}) {
    EXPECT_EQ(r->process.status, 0) << r->process.out << r->process.err;
    ASSERT_FALSE(r->iteration_ms.empty());
  }
  expect_close_results(without, preload);
  expect_close_results(without, handle);
  expect_close_results(without, division);
  std::printf(
      "real cuDNN, last iteration: undivided %.3f ms, WR preload %.3f ms, UcudnnHandle_t %.3f "
      "ms, WD %.3f ms\n",
      without.iteration_ms.back(), preload.iteration_ms.back(), handle.iteration_ms.back(),
      division.iteration_ms.back());
}

}  // namespace
}  // namespace ucudnn
