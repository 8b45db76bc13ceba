// Plans the shim stored in a database, run again by later processes of the example program
// (examples/conv_network) on the cuDNN/CUDA test doubles: Find*Ex limits that change every run
// share stored plans; a poisoned plan is discarded and planned again; an excluded algorithm or
// engine configuration never runs, not even from a stored plan; and a database written among
// the legacy algorithms is planned again among cuDNN's engine configurations.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <set>
#include <sstream>
#include <string>

#include "core/micro_table.h"
#include "core/workspace_reuse.h"
#include "end_to_end_fixture.h"
#include "example_kernels.h"
#include "measuring_line.h"
#include "model_benchmarker.h"
#include "support/sqlite_count.h"

namespace ucudnn {
namespace {

using fakecuda::ModelBenchmarker;
using testing::count_of;
using testing::Environment;
using testing::expect_ran_on_doubles;
using testing::expect_same_results;
using testing::micro_batched_calls;
using testing::ProgramRun;

int plan_rows(const std::string& database) {
  return testing::sqlite_number(database, "SELECT count(*) FROM plans");
}

// A stored plan is the best by the measurements it was made from; where those were replaced
// (measured again, or by newer ones from `ucudnn db merge` or import), it is planned again from
// the stored ones, measuring nothing, and stored: the next run takes it as it is. A plan made
// among every candidate is planned again among every one, though the run measures only the
// heuristics' first (UCUDNN_BENCHMARK_LIMIT): else it would be found wanting at every run.
TEST_F(EndToEnd, APlanMadeFromMeasurementsSinceReplacedIsPlannedAgain) {
  const std::string database = database_path();
  Environment environment = {
      {"UCUDNN_DATABASE", database}, {"UCUDNN_LOG_LEVEL", "info"}, {"UCUDNN_BENCHMARK_LIMIT", "0"}};
  const ProgramRun first = preloaded({}, environment);
  expect_ran_on_doubles(first);
  const ProgramRun second = preloaded({}, environment);
  EXPECT_EQ(count_of(second.process.err, "since replaced"), 0) << second.process.err;
  EXPECT_EQ(count_of(second.process.err, "benchmarked "), 0);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(database.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "UPDATE measurements SET time_ms = time_ms * 2, min_ms = min_ms * 2, "
                         "max_ms = max_ms * 2, measured_at = measured_at + 1",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  environment["UCUDNN_BENCHMARK_LIMIT"] = "1";
  const ProgramRun replanned = preloaded({}, environment);
  expect_same_results(first, replanned);
  EXPECT_EQ(count_of(replanned.process.err, "was made from measurements since replaced"),
            static_cast<int>(example_kernels(kBatch).size()))
      << replanned.process.err;
  EXPECT_EQ(count_of(replanned.process.err, "benchmarked "), 0) << "nothing measured again";
  EXPECT_EQ(testing::sqlite_number(database, "SELECT count(*) FROM plans WHERE mode <> 'WR'"), 0);
  const ProgramRun settled = preloaded({}, environment);
  EXPECT_EQ(count_of(settled.process.err, "since replaced"), 0) << settled.process.err;
  EXPECT_EQ(count_of(settled.process.err, "benchmarked "), 0) << settled.process.err;
}

// A warm run costs no warm-up, and its exit line says so: where each kernel's plan came from.
TEST_F(EndToEnd, TheExitLineSaysWhetherThePlansWereMeasuredOrTakenFromTheDatabase) {
  const Environment environment = {{"UCUDNN_DATABASE", database_path()},
                                   {"UCUDNN_LOG_LEVEL", "info"}};
  const ProgramRun cold = preloaded({}, environment);
  expect_ran_on_doubles(cold);
  EXPECT_EQ(count_of(cold.process.err, "kernels planned; "), 1) << cold.process.err;
  EXPECT_EQ(count_of(cold.process.err, "; all measured in this run"), 1) << cold.process.err;
  ASSERT_TRUE(testing::measuring_line(cold.process.err)) << "the parser reads the cold line";
  const ProgramRun warm = preloaded({}, environment);
  expect_same_results(cold, warm);
  EXPECT_EQ(count_of(warm.process.err,
                     "; all planned from the database's measurements, measuring nothing"),
            1)
      << warm.process.err;
  EXPECT_FALSE(testing::measuring_line(warm.process.err)) << "no kernel measured";
}

// Find*Ex limits are whatever buffer the application passes (PyTorch: the free memory), so
// every run may bring new ones. A stored plan answers every limit from its workspace up to
// the next measured workspace, so however many runs, the rows stay within the number of
// those intervals the runs' limits fall in, and a limit seen before benchmarks nothing.
TEST_F(EndToEnd, FindExLimitsThatChangeEveryRunShareStoredPlans) {
  const std::string database = database_path();
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
}

// A shared database may be poisoned: a stored plan whose micro-batches cover twice the batch
// would write past the caller's tensors if it were trusted. The shim validates it, warns,
// re-plans, and the results stay right (the doubles check every pointer range).
TEST_F(EndToEnd, PoisonedStoredPlansAreDiscardedAndReplanned) {
  const std::string database = database_path();
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
  const std::string database = database_path();
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
  environment["UCUDNN_LOG_LEVEL"] = "info";
  const ProgramRun second = preloaded({"--workspace-limit", cap}, environment);
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
  const std::string database = database_path();
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
  // A run that may not measure (UCUDNN_BENCHMARK_IN=find, and the program asks Get_v7 only)
  // keeps the stored plans as they are rather than discarding them for plans it cannot make.
  Environment find_only = environment;
  find_only["UCUDNN_BENCHMARK_IN"] = "find";
  const ProgramRun kept = preloaded({"--workspace-limit", cap}, find_only);
  expect_same_results(without, kept);
  EXPECT_EQ(count_of(kept.process.err, "made among the legacy algorithms"), 0) << kept.process.err;
  EXPECT_EQ(count_of(kept.process.err, "no plan for"), 0) << kept.process.err;
  EXPECT_GT(micro_batched_calls(again.trace), 0);
  EXPECT_EQ(micro_batched_calls(kept.trace), micro_batched_calls(again.trace));
  const ProgramRun engines = preloaded({"--workspace-limit", cap}, environment);
  const ProgramRun settled = preloaded({"--workspace-limit", cap}, environment);
  expect_same_results(without, engines);
  EXPECT_GT(count_of(engines.process.err, "made among the legacy algorithms"), 0)
      << engines.process.err;
  EXPECT_GT(count_of(engines.trace, "x_uid=30072"), 0) << "ucudnn's plans run engines";
  EXPECT_EQ(count_of(settled.process.err, "made among the legacy algorithms"), 0)
      << "the plans planned again were stored";
  EXPECT_GT(count_of(settled.trace, "x_uid=30072"), 0);
  // And back: asked for the legacy algorithms, a run plans among them again (it used to run the
  // stored engine plans, as if UCUDNN_CANDIDATES were not set).
  environment["UCUDNN_CANDIDATES"] = "algorithms";
  const ProgramRun back = preloaded({"--workspace-limit", cap}, environment);
  expect_same_results(without, back);
  EXPECT_GT(count_of(back.process.err, "made among cuDNN's engine configurations"), 0)
      << back.process.err;
  EXPECT_EQ(count_of(back.trace, "x_uid=30072"), 0) << "legacy calls only";
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
// never measured, never planned, never run from a stored plan. The plans made without them serve
// the excluding process only: a run without the exclusion gets the best plans again (it used to
// find the excluding run's, stored over them, and ran slower without a word).
TEST_F(EndToEnd, ExcludedEngineConfigurationsNeverRunEvenFromStoredPlans) {
  const std::string database = database_path();
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
  environment["UCUDNN_LOG_LEVEL"] = "info";
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("run under the exclusion " + std::to_string(run + 1));
    const ProgramRun second = preloaded({"--workspace-limit", cap}, environment);
    expect_ran_on_doubles(second);
    expect_same_results(without, second);
    for (const auto& id : ucudnn_engines(second.trace))
      EXPECT_TRUE(id == "0" || !used.contains(id)) << "excluded engine " << id << " ran";
    EXPECT_GT(count_of(second.process.err,
                       "excluded by UCUDNN_EXCLUDE_ALGORITHMS: planning without it for this "
                       "process"),
              0)
        << second.process.err;
    EXPECT_EQ(count_of(second.process.err, "discarding an invalid stored plan"), 0)
        << "the user's exclusion is no fault of the plan: " << second.process.err;
    EXPECT_GT(count_of(second.trace, "x_uid=30072"), 0) << "ucudnn's plans ran";
  }
  environment.erase("UCUDNN_EXCLUDE_ALGORITHMS");
  const ProgramRun after = preloaded({"--workspace-limit", cap}, environment);
  expect_same_results(without, after);
  EXPECT_EQ(after.iteration_ms, first.iteration_ms) << "the best plans again, no slower";
  EXPECT_EQ(count_of(after.process.err, "benchmarked "), 0) << "nothing measured again";
}

// As tried by a new user: the default limit, one engine excluded for two runs, then none. The
// runs under the exclusion are slower; the one after it is as fast as the first (it used to run
// the excluding runs' plans, stored over the best, 11% slower without a word).
TEST_F(EndToEnd, AfterAnExclusionIsLiftedTheBestPlansRunAgain) {
  Environment environment = {{"UCUDNN_DATABASE", database_path()}};
  const ProgramRun first = preloaded({}, environment);
  expect_ran_on_doubles(first);
  ASSERT_FALSE(first.iteration_ms.empty());
  environment["UCUDNN_EXCLUDE_ALGORITHMS"] = "cudnn:eng1*";
  for (int run = 0; run < 2; ++run) {
    const ProgramRun excluded = preloaded({}, environment);
    ASSERT_FALSE(excluded.iteration_ms.empty()) << excluded.process.err;
    EXPECT_GT(excluded.iteration_ms.back(), first.iteration_ms.back())
        << "the exclusion should cost something here";
  }
  environment.erase("UCUDNN_EXCLUDE_ALGORITHMS");
  const ProgramRun after = preloaded({}, environment);
  EXPECT_EQ(after.iteration_ms, first.iteration_ms) << after.process.err;
}

// An exclusion that leaves kernels no candidate is named as the cause, once (it used to be
// "no algorithm fits ... the workspace limit", once per kernel), under WR and WD (where nothing
// was said at all); an entry that matched no candidate is named at exit.
TEST_F(EndToEnd, AnExclusionOfEveryCandidateIsNamedOnceAndAMistypedEntryAtExit) {
  const ProgramRun without = baseline({});
  for (const char* total : {"", "64MiB"}) {
    SCOPED_TRACE(std::string("UCUDNN_TOTAL_WORKSPACE_SIZE=") + total);
    Environment environment = {{"UCUDNN_DATABASE", database_path()},
                               {"UCUDNN_EXCLUDE_ALGORITHMS", "cudnn:*, cudnn:nosuch"},
                               {"UCUDNN_TOTAL_WORKSPACE_SIZE", total}};
    const ProgramRun excluded = preloaded({}, environment);
    expect_ran_on_doubles(excluded);
    expect_same_results(without, excluded);
    EXPECT_EQ(micro_batched_calls(excluded.trace), 0);
    EXPECT_EQ(count_of(excluded.process.err,
                       "UCUDNN_EXCLUDE_ALGORITHMS excludes every candidate of it "
                       "(cudnn:*,cudnn:nosuch); passing the call through"),
              1)
        << excluded.process.err;
    EXPECT_EQ(count_of(excluded.process.err, "fits"), 0) << excluded.process.err;
    EXPECT_EQ(count_of(excluded.process.err,
                       "UCUDNN_EXCLUDE_ALGORITHMS: 'cudnn:nosuch' matched none of the "
                       "candidates of the kernels planned in this process"),
              1)
        << excluded.process.err;
    environment["UCUDNN_LOG_LEVEL"] = "info";
    const ProgramRun named = preloaded({}, environment);
    EXPECT_EQ(count_of(named.process.err, "excludes every candidate of it"),
              static_cast<int>(example_kernels(kBatch).size()))
        << "each kernel at info: " << named.process.err;
  }
  // An entry that excludes something is not said to be idle.
  const ProgramRun some = preloaded(
      {}, {{"UCUDNN_DATABASE", database_path()}, {"UCUDNN_EXCLUDE_ALGORITHMS", "cudnn:eng1*"}});
  EXPECT_EQ(count_of(some.process.err, "matched none"), 0) << some.process.err;
  EXPECT_EQ(count_of(some.process.err, "no plan for"), 0) << some.process.err;
}

// With a warm database every kernel runs from its stored plan and nothing is measured: a
// mistyped entry was never named, since only the candidates of kernels measured were counted.
// Those run from stored plans count now, with the candidates the database has measurements of:
// an entry matching one of them is not idle, though no plan uses it; nor is one that may name an
// engine never measured.
TEST_F(EndToEnd, AMistypedExclusionIsNamedThoughEveryKernelRunsFromAStoredPlan) {
  for (const char* total : {"", "64MiB"}) {
    SCOPED_TRACE(std::string("UCUDNN_TOTAL_WORKSPACE_SIZE=") + total);
    const std::string database = database_path();
    Environment environment = {{"UCUDNN_DATABASE", database},
                               {"UCUDNN_TOTAL_WORKSPACE_SIZE", total}};
    expect_ran_on_doubles(preloaded({}, environment));
    const std::string unused = testing::sqlite_text(
        database,
        "SELECT algorithm FROM measurements WHERE backend = 'cudnn' AND status = 'supported' AND "
        "instr((SELECT group_concat(configurations, ' ') FROM plans), "
        "'\"' || algorithm || '\"') = 0 ORDER BY algorithm");
    ASSERT_FALSE(unused.empty()) << "a candidate measured that no stored plan uses";
    // An engine the database never measured (UCUDNN_BENCHMARK_LIMIT leaves most out) may still
    // be a candidate: an entry that can name one is not called a slip.
    environment["UCUDNN_EXCLUDE_ALGORITHMS"] = "cudnn:nosuch,cudnn:" + unused + ",cudnn:eng99*";
    const ProgramRun warm = preloaded({}, environment);
    expect_ran_on_doubles(warm);
    EXPECT_EQ(count_of(warm.process.err, "UCUDNN_EXCLUDE_ALGORITHMS: 'cudnn:nosuch' matched none"),
              1)
        << warm.process.err;
    EXPECT_EQ(count_of(warm.process.err, "matched none"), 1)
        << unused << " is a candidate the database knows: " << warm.process.err;
  }
}

}  // namespace
}  // namespace ucudnn
