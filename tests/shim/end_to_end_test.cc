// The example program (examples/conv_network.cc), which drives convolution layers the way a
// framework does and knows nothing of ucudnn, run on the cuDNN/CUDA test doubles: without
// the shim, under LD_PRELOAD, and as its UcudnnHandle_t variant. The doubles compute exactly
// and time by a fixed model (tests/fakecuda/cost_model.h), so this test predicts from the
// model what the planner must achieve and checks it to the last digit the program prints:
// same results as without ucudnn, micro-batched calls seen by the doubles, and the modeled
// time of the plans (WR and WD) beating the undivided choice by the predicted factor.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "core/micro_table.h"
#include "core/pareto_front.h"
#include "core/workspace_reuse.h"
#include "core/workspace_sharing.h"
#include "cost_model.h"
#include "example_kernels.h"
#include "example_program.h"
#include "model_benchmarker.h"
#include "network_layers.h"
#include "support/random_seed.h"
#include "support/subprocess.h"

namespace ucudnn {
namespace {

using testing::count_of;
using testing::Environment;
using testing::expect_ran_on_doubles;
using testing::expect_same_results;
using testing::micro_batched_calls;
using testing::ProgramRun;
constexpr std::int64_t kBatch = testing::kExampleBatch;
// The framework's per-layer workspace cap in the tight-limit runs: the fast algorithms fit
// only micro-batches of the layers under it.
constexpr std::uint64_t kTightLimit = 1536 * 1024;
constexpr std::uint64_t kTotalWorkspace = 4 << 20;

using fakecuda::ModelBenchmarker;

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

class EndToEnd : public ::testing::Test {
 protected:
  void SetUp() override { seed_ = std::to_string(random_.uniform(1, 1'000'000'000)); }

  ProgramRun run(const std::string& program, std::vector<std::string> args, Environment environment,
                 bool doubles = true) {
    return testing::run_example(program, args, std::move(environment), seed_, doubles);
  }
  ProgramRun baseline(std::vector<std::string> args = {}) { return run(UCUDNN_EXAMPLE, args, {}); }
  ProgramRun preloaded(std::vector<std::string> args, Environment environment) {
    environment["LD_PRELOAD"] = UCUDNN_PRELOAD;
    return run(UCUDNN_EXAMPLE, args, environment);
  }

  testing::SeededRandom random_;
  std::string seed_;
};

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

// With a database, the second run of the same program benchmarks nothing: every plan and
// measurement comes from the first run's file.
TEST_F(EndToEnd, SecondRunWithTheDatabaseBenchmarksNothing) {
  const std::string database = ::testing::TempDir() + "ucudnn-e2e-" + seed_ + ".db";
  const auto cap = std::to_string(kTightLimit);
  const Environment environment = {
      {"UCUDNN_WORKSPACE_LIMIT", cap}, {"UCUDNN_DATABASE", database}, {"UCUDNN_LOG_LEVEL", "info"}};
  const ProgramRun first = preloaded({"--workspace-limit", cap}, environment);
  const ProgramRun second = preloaded({"--workspace-limit", cap}, environment);
  std::remove(database.c_str());
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
}

int plan_rows(const std::string& database) {
  sqlite3* db = nullptr;
  int rows = -1;
  if (sqlite3_open_v2(database.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK)
    sqlite3_exec(
        db, "SELECT count(*) FROM plans",
        [](void* out, int, char** values, char**) {
          *static_cast<int*>(out) = std::atoi(values[0]);
          return 0;
        },
        &rows, nullptr);
  sqlite3_close(db);
  return rows;
}

// Find*Ex limits are whatever buffer the application passes (PyTorch: the free memory), so
// every run may bring new ones. A stored plan answers every limit from its workspace up to
// the next measured workspace, so however many runs, the rows stay within the number of
// those intervals the runs' limits fall in, and a limit seen before benchmarks nothing.
TEST_F(EndToEnd, FindExLimitsThatChangeEveryRunShareStoredPlans) {
  const std::string database = ::testing::TempDir() + "ucudnn-e2e-limits-" + seed_ + ".db";
  ModelBenchmarker model;
  std::vector<std::vector<std::uint64_t>> workspaces;  // per kernel, every measured one
  for (const auto& kernel : example_kernels(kBatch)) {
    const auto table =
        measure_micro_table(model, kernel, BatchSizePolicy::kPowerOfTwo, kNoWorkspaceLimit);
    workspaces.emplace_back();
    for (const auto& size : table.candidates)
      for (const auto& c : size) workspaces.back().push_back(c.workspace_bytes);
  }
  std::set<std::pair<std::size_t, std::uint64_t>> intervals;  // (kernel, end of interval)
  std::vector<std::uint64_t> limits;
  const int runs = 6;
  for (int r = 0; r < runs; ++r) {
    const auto limit =
        static_cast<std::uint64_t>(random_.uniform(kTightLimit / 4, 2 * kTightLimit));
    limits.push_back(limit);
    for (std::size_t k = 0; k < workspaces.size(); ++k) {
      std::uint64_t end = kNoWorkspaceLimit;
      for (auto w : workspaces[k])
        if (w > limit) end = std::min(end, w);
      intervals.insert({k, end});
    }
    const ProgramRun run =
        preloaded({"--select", "findex", "--workspace-limit", std::to_string(limit)},
                  {{"UCUDNN_DATABASE", database}});
    expect_ran_on_doubles(run);
  }
  const int rows = plan_rows(database);
  EXPECT_GE(rows, static_cast<int>(workspaces.size()));
  EXPECT_LE(rows, static_cast<int>(intervals.size()))
      << "limits " << ::testing::PrintToString(limits);
  const ProgramRun again =
      preloaded({"--select", "findex", "--workspace-limit", std::to_string(limits.front())},
                {{"UCUDNN_DATABASE", database}, {"UCUDNN_LOG_LEVEL", "info"}});
  expect_ran_on_doubles(again);
  EXPECT_EQ(count_of(again.process.err, "benchmarked"), 0) << again.process.err;
  EXPECT_EQ(plan_rows(database), rows);
  std::printf(
      "%d runs with Find*Ex limits from %llu to %llu bytes: %d plan rows for %zu kernels "
      "(bound %zu)\n",
      runs + 1, static_cast<unsigned long long>(kTightLimit / 4),
      static_cast<unsigned long long>(2 * kTightLimit), rows, workspaces.size(), intervals.size());
  for (const char* suffix : {"", ".lock", "-journal"}) std::remove((database + suffix).c_str());
}

// A shared database may be poisoned: a stored plan whose micro-batches cover twice the batch
// would write past the caller's tensors if it were trusted. The shim validates it, warns,
// re-plans, and the results stay right (the doubles check every pointer range).
TEST_F(EndToEnd, PoisonedStoredPlansAreDiscardedAndReplanned) {
  const std::string database = ::testing::TempDir() + "ucudnn-e2e-poison-" + seed_ + ".db";
  const auto cap = std::to_string(kTightLimit);
  const Environment environment = {{"UCUDNN_WORKSPACE_LIMIT", cap}, {"UCUDNN_DATABASE", database}};
  const ProgramRun without = baseline({"--workspace-limit", cap});
  const ProgramRun first = preloaded({"--workspace-limit", cap}, environment);
  expect_ran_on_doubles(first);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(database.c_str(), &db), SQLITE_OK);
    const char* poison =
        "UPDATE plans SET configurations = '[{\"micro\":["
        "{\"backend\":\"cudnn\",\"algorithm\":\"IMPLICIT_GEMM\",\"batch\":16,"
        "\"time_ms\":0.000001,\"workspace_bytes\":0},"
        "{\"backend\":\"cudnn\",\"algorithm\":\"IMPLICIT_GEMM\",\"batch\":16,"
        "\"time_ms\":0.000001,\"workspace_bytes\":0}]}]' WHERE mode = 'WR'";
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, poison, nullptr, nullptr, &error), SQLITE_OK)
        << (error ? error : "");
    sqlite3_free(error);
    EXPECT_GT(sqlite3_changes(db), 0);
    sqlite3_close(db);
  }
  const ProgramRun second = preloaded({"--workspace-limit", cap}, environment);
  std::remove(database.c_str());
  expect_ran_on_doubles(second);
  expect_same_results(without, second);
  EXPECT_GT(count_of(second.process.err, "discarding an invalid stored plan"), 0)
      << second.process.err;
  EXPECT_EQ(count_of(second.process.err, "fakecuda:"), 0) << "a call the doubles refused";
  EXPECT_EQ(second.iteration_ms, first.iteration_ms);
}

// UCUDNN_EXCLUDE_ALGORITHMS: an excluded algorithm never reaches cuDNN, neither to be
// benchmarked nor from a stored plan that uses it (discarded and planned again).
TEST_F(EndToEnd, ExcludedAlgorithmsNeverRunEvenFromStoredPlans) {
  const std::string database = ::testing::TempDir() + "ucudnn-e2e-exclude-" + seed_ + ".db";
  const auto cap = std::to_string(kTightLimit);
  // The legacy algorithms as candidates: their names are what is excluded.
  Environment environment = {{"UCUDNN_WORKSPACE_LIMIT", cap},
                             {"UCUDNN_DATABASE", database},
                             {"UCUDNN_CANDIDATES", "algorithms"}};
  const ProgramRun without = baseline({"--workspace-limit", cap});
  const ProgramRun first = preloaded({"--workspace-limit", cap}, environment);
  expect_ran_on_doubles(first);
  const std::vector<std::string> fast = {"algo=FFT", "algo=WINOGRAD"};
  int fast_calls = 0;
  for (const auto& name : fast) fast_calls += count_of(first.trace, name);
  ASSERT_GT(fast_calls, 0) << "the stored plans should use FFT or Winograd";

  environment["UCUDNN_EXCLUDE_ALGORITHMS"] = "cudnn:fft*, cudnn:WINOGRAD*";
  const ProgramRun second = preloaded({"--workspace-limit", cap}, environment);
  std::remove(database.c_str());
  expect_ran_on_doubles(second);
  expect_same_results(without, second);
  for (const auto& name : fast) EXPECT_EQ(count_of(second.trace, name), 0) << name;
  EXPECT_GT(count_of(second.process.err, "excluded by UCUDNN_EXCLUDE_ALGORITHMS"), 0)
      << second.process.err;
  EXPECT_GT(count_of(second.trace, "conv op="), 0);
}

// A database written when the legacy algorithms were the candidates: its plans still run where
// engines are off, and are planned again among the engine configurations where they are on.
TEST_F(EndToEnd, PlansStoredAmongLegacyAlgorithmsArePlannedAgainAmongEngines) {
  const std::string database = ::testing::TempDir() + "ucudnn-e2e-legacy-db-" + seed_ + ".db";
  const auto cap = std::to_string(kTightLimit);
  Environment environment = {{"UCUDNN_WORKSPACE_LIMIT", cap},
                             {"UCUDNN_DATABASE", database},
                             {"UCUDNN_CANDIDATES", "algorithms"},
                             {"UCUDNN_LOG_LEVEL", "info"}};
  const ProgramRun without = baseline({"--workspace-limit", cap});
  const ProgramRun legacy = preloaded({"--workspace-limit", cap}, environment);
  expect_ran_on_doubles(legacy);
  EXPECT_EQ(count_of(legacy.trace, "x_uid=30072"), 0) << "legacy calls only";
  const ProgramRun again = preloaded({"--workspace-limit", cap}, environment);
  EXPECT_EQ(count_of(again.process.err, "made among the legacy algorithms"), 0);
  EXPECT_EQ(count_of(again.trace, "x_uid=30072"), 0);
  environment.erase("UCUDNN_CANDIDATES");
  const ProgramRun engines = preloaded({"--workspace-limit", cap}, environment);
  const ProgramRun settled = preloaded({"--workspace-limit", cap}, environment);
  std::remove(database.c_str());
  expect_same_results(without, engines);
  EXPECT_GT(count_of(engines.process.err, "made among the legacy algorithms"), 0)
      << engines.process.err;
  EXPECT_GT(count_of(engines.trace, "x_uid=30072"), 0) << "ucudnn's plans run engines";
  EXPECT_EQ(count_of(settled.process.err, "made among the legacy algorithms"), 0)
      << "the plans planned again were stored";
  EXPECT_GT(count_of(settled.trace, "x_uid=30072"), 0);
}

// The engine configurations a plan ran (the double's trace of ucudnn's executions, whose graphs
// use their own x uid, cudnn/convolution_graph.h), by engine id.
std::set<std::string> ucudnn_engines(const std::string& trace) {
  std::set<std::string> engines;
  std::istringstream lines(trace);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("backend-execute") == std::string::npos ||
        line.find("x_uid=30072") == std::string::npos)
      continue;
    const auto at = line.find("engine=") + 7;
    engines.insert(line.substr(at, line.find(' ', at) - at));
  }
  return engines;
}

// Engine configurations are excluded by their names, wildcards included, as algorithms are:
// never measured, never planned, never run from a stored plan.
TEST_F(EndToEnd, ExcludedEngineConfigurationsNeverRunEvenFromStoredPlans) {
  const std::string database = ::testing::TempDir() + "ucudnn-e2e-exclude-engines-" + seed_ + ".db";
  const auto cap = std::to_string(kTightLimit);
  Environment environment = {{"UCUDNN_WORKSPACE_LIMIT", cap}, {"UCUDNN_DATABASE", database}};
  const ProgramRun without = baseline({"--workspace-limit", cap});
  const ProgramRun first = preloaded({"--workspace-limit", cap}, environment);
  expect_ran_on_doubles(first);
  const auto used = ucudnn_engines(first.trace);
  ASSERT_GE(used.size(), 2u) << "the plans should run several engine configurations";
  std::string excluded;
  for (const auto& id : used)
    if (id != "0") excluded += (excluded.empty() ? "cudnn:eng" : ", cudnn:eng") + id + "*";
  environment["UCUDNN_EXCLUDE_ALGORITHMS"] = excluded;
  const ProgramRun second = preloaded({"--workspace-limit", cap}, environment);
  std::remove(database.c_str());
  expect_ran_on_doubles(second);
  expect_same_results(without, second);
  for (const auto& id : ucudnn_engines(second.trace))
    EXPECT_TRUE(id == "0" || !used.contains(id)) << "excluded engine " << id << " ran";
  EXPECT_GT(count_of(second.process.err, "excluded by UCUDNN_EXCLUDE_ALGORITHMS"), 0)
      << second.process.err;
  EXPECT_GT(count_of(second.trace, "x_uid=30072"), 0) << "ucudnn's plans ran";
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
