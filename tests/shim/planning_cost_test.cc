// What a kernel's planning costs the host, on the example program (examples/conv_network) under
// the preload on the cuDNN/CUDA test doubles: a finalization that compiles is counted and named
// in the exit line, each execution plan a kernel runs is finalized once (the executor takes
// the plan measuring or a stored plan's check finalized: cudnn/finalized_plans.h), a kernel's
// planning is saved to the database in one transaction, and UCUDNN_BENCHMARK_LIMIT measures the
// heuristics' first configurations within the limit only.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "end_to_end_fixture.h"
#include "example_program.h"
#include "measuring_line.h"
#include "support/sqlite_count.h"
#include "support/sqlite_header.h"

namespace ucudnn {
namespace {

using testing::benchmarked_lines;
using testing::count_of;
using testing::expect_ran_on_doubles;
using testing::expect_same_results;
using testing::measuring_line;
using testing::plans_finalized_outside_measuring;
using testing::plans_that_run;
using testing::ProgramRun;
using testing::ungated_pairs;

// An engine cuDNN compiles at Finalize (its runtime-compiled engines: 100 ms and more each) is
// named in the exit line, so that a warm-up's plan building can be told apart on a GPU.
TEST_F(EndToEnd, FinalizationsThatCompileAreCountedAndTheSlowestIsNamed) {
  const auto cap = std::to_string(kTightLimit);
  const ProgramRun run = preloaded({"--workspace-limit", cap},
                                   {{"UCUDNN_WORKSPACE_LIMIT", cap},
                                    {"UCUDNN_DATABASE", database_path()},
                                    {"UCUDNN_LOG_LEVEL", "info"},
                                    {"FAKECUDA_ENGINE_NOTES", "Forward:0=runtime_compiled"},
                                    {"FAKECUDA_HOST_COST_US", "compile=300000"}});
  expect_ran_on_doubles(run);
  const auto line = measuring_line(run.process.err);
  ASSERT_TRUE(line) << "the measuring part reads as before: " << run.process.err;
  const auto at = run.process.err.find(" took over 50 ms");
  ASSERT_NE(at, std::string::npos) << run.process.err;
  int slow = 0, images = 0;
  double all_s = 0, slowest_s = 0;
  char slowest[128] = {};
  ASSERT_EQ(std::sscanf(run.process.err.c_str() + run.process.err.rfind("; ", at) + 2,
                        "%d %*s took over 50 ms, %lf s in all, the slowest %127s at %d "
                        "images (%lf s)",
                        &slow, &all_s, slowest, &images, &slowest_s),
            5)
      << run.process.err;
  // Each of engine 0's Forward plans, those measured and those built outside measuring (and
  // any other finalize a loaded machine stalled past 50 ms, never as long as a compile).
  EXPECT_GE(slow, 1);
  EXPECT_LE(slow, line->plans + count_of(run.process.err, "plan within") * 8);
  EXPECT_EQ(std::string(slowest), "cudnn:eng0") << "a Forward plan of the compiled engine";
  EXPECT_GE(images, 1);
  EXPECT_GE(slowest_s, 0.3 - 0.005);
  EXPECT_GE(all_s, slowest_s - 0.005);
  EXPECT_GE(line->plans_s, 0.3 - 0.01) << "measuring's share is in its building of plans";
}

// A Finalize costs cuDNN about a millisecond, a runtime-compiled engine's far more: a kernel's
// executor takes the plans measuring finalized (the first run) or that checked the stored plan
// (a later run) and finalizes none of them again. What either run finalizes outside both is
// the plans of the application's other scaling factors, made on first use, alike in both runs.
TEST_F(EndToEnd, EachPlanThatRunsIsFinalizedOnce) {
  const auto cap = std::to_string(kTightLimit);
  const testing::Environment environment = {{"UCUDNN_WORKSPACE_LIMIT", cap},
                                            {"UCUDNN_DATABASE", database_path()},
                                            {"UCUDNN_LOG_LEVEL", "info"}};
  const ProgramRun first = preloaded({"--workspace-limit", cap}, environment);
  const ProgramRun later = preloaded({"--workspace-limit", cap}, environment);
  expect_ran_on_doubles(first);
  expect_ran_on_doubles(later);
  expect_same_results(first, later);
  ASSERT_TRUE(measuring_line(first.process.err)) << first.process.err;
  ASSERT_FALSE(measuring_line(later.process.err)) << "all stored: " << later.process.err;
  const int run = plans_that_run(first.process.err);
  EXPECT_EQ(plans_that_run(later.process.err), run) << "the same plans, from the database";
  EXPECT_GE(run, 15) << "one plan at least for each of the example's 15 kernels";
  const auto first_outside = plans_finalized_outside_measuring(first.process.err);
  const auto later_outside = plans_finalized_outside_measuring(later.process.err);
  ASSERT_TRUE(first_outside) << first.process.err;
  ASSERT_TRUE(later_outside) << later.process.err;
  EXPECT_LT(*first_outside, run) << "the first run's executors finalized what measuring had";
  EXPECT_EQ(*later_outside, *first_outside + run)
      << "the later run finalized each plan that runs once, checking it";
}

// The most configurations a kernel of the database at `path` had measured at the example's full
// batch (16 images) within `limit`.
int most_measured_at_the_full_batch(const std::string& path, std::uint64_t limit) {
  return testing::sqlite_number(
      path,
      "SELECT max(n) FROM (SELECT count(*) AS n FROM measurements WHERE micro_batch = 16 AND "
      "status = 'supported' AND workspace_bytes <= " +
          std::to_string(limit) + " GROUP BY kernel_key)");
}

// UCUDNN_BENCHMARK_LIMIT: of what fits the limit at the full batch, the heuristics' first N are
// measured (PyTorch's cudnn.benchmark times the first 10): a first run measures less, and its
// plans compute the program's results.
TEST_F(EndToEnd, TheBenchmarkLimitMeasuresTheHeuristicsFirstWithinTheLimit) {
  const std::uint64_t limit = 64ull << 20;  // everything the doubles offer fits
  const auto cap = std::to_string(limit);
  const ProgramRun alone = baseline({"--workspace-limit", cap});
  const ProgramRun every =
      preloaded_like(alone, cap, "every.db", {{"UCUDNN_BENCHMARK_LIMIT", "0"}});
  const ProgramRun first =
      preloaded_like(alone, cap, "first.db", {{"UCUDNN_BENCHMARK_LIMIT", "1"}});
  const auto every_line = measuring_line(every.process.err);
  const auto first_line = measuring_line(first.process.err);
  ASSERT_TRUE(every_line) << every.process.err;
  ASSERT_TRUE(first_line) << first.process.err;
  EXPECT_LT(first_line->pairs, every_line->pairs);
  EXPECT_GT(most_measured_at_the_full_batch(folder_.file("every.db"), limit), 1);
  EXPECT_EQ(most_measured_at_the_full_batch(folder_.file("first.db"), limit), 1);
  EXPECT_NE(first.process.err.find("(UCUDNN_BENCHMARK_LIMIT=1; 0: every one)"), std::string::npos)
      << first.process.err;
  EXPECT_EQ(every.process.err.find("UCUDNN_BENCHMARK_LIMIT"), std::string::npos)
      << every.process.err;

  // Its plans name the limit: a later run measuring every one plans again, and stores plans that
  // a run under the limit then takes as they are.
  const std::string database = folder_.file("first.db");
  const auto plans = [&](const char* mode) {
    return testing::sqlite_number(
        database, std::string("SELECT count(*) FROM plans WHERE mode = '") + mode + "'");
  };
  EXPECT_GT(plans("WR+first1"), 0);
  const ProgramRun all_later =
      preloaded_like(alone, cap, "first.db", {{"UCUDNN_BENCHMARK_LIMIT", "0"}});
  ASSERT_TRUE(measuring_line(all_later.process.err)) << all_later.process.err;
  EXPECT_GT(most_measured_at_the_full_batch(database, limit), 1);
  EXPECT_EQ(plans("WR"), count_of(all_later.process.err, " plan within "));
  const ProgramRun first_later =
      preloaded_like(alone, cap, "first.db", {{"UCUDNN_BENCHMARK_LIMIT", "1"}});
  EXPECT_FALSE(measuring_line(first_later.process.err))
      << "the plans made among every one: " << first_later.process.err;
}

// A cuDNN before 9.2 cannot say a configuration's workspace from the heuristics: under
// UCUDNN_BENCHMARK_LIMIT its plan at the full batch says it, so a first run measures and plans
// what it does where cuDNN says it (read as needing none, every one took a place and those that
// fit after them were never measured).
TEST_F(EndToEnd, TheBenchmarkLimitPlansAlikeWhereCudnnCannotSayAWorkspace) {
  const auto cap = std::to_string(kTightLimit);
  const ProgramRun alone = baseline({"--workspace-limit", cap});
  const ProgramRun said =
      preloaded_like(alone, cap, "said.db",
                     {{"UCUDNN_BENCHMARK_LIMIT", "2"}, {"FAKECUDA_HEURISTICS_FASTEST_SPLIT", "1"}});
  const ProgramRun unsaid = preloaded_like(alone, cap, "unsaid.db",
                                           {{"UCUDNN_BENCHMARK_LIMIT", "2"},
                                            {"FAKECUDA_HEURISTICS_FASTEST_SPLIT", "1"},
                                            {"FAKECUDA_CONFIGURATION_WORKSPACE_UNANSWERED", "1"}});
  const auto plans = [&](const char* database) {
    return testing::sqlite_text(folder_.file(database),
                                "SELECT group_concat(subject || ' ' || mode || ' ' || "
                                "configurations, char(10)) FROM (SELECT * FROM plans ORDER BY "
                                "subject, mode)");
  };
  // Per kernel, the configurations measured at the full batch (16 images) within the limit.
  const auto measured = [&](const char* database) {
    return testing::sqlite_text(
        folder_.file(database),
        "SELECT group_concat(kernel_key || ': ' || n, char(10)) FROM (SELECT kernel_key, "
        "count(*) AS n FROM measurements WHERE micro_batch = 16 AND status = 'supported' AND "
        "workspace_bytes <= " +
            cap + " GROUP BY kernel_key ORDER BY kernel_key)");
  };
  EXPECT_EQ(count_of(measured("said.db"), ": 2"), 15) << "two for each of the example's kernels";
  EXPECT_EQ(measured("unsaid.db"), measured("said.db"));
  EXPECT_FALSE(plans("said.db").empty());
  EXPECT_EQ(plans("unsaid.db"), plans("said.db"));
  ASSERT_FALSE(said.iteration_ms.empty());
  ASSERT_FALSE(unsaid.iteration_ms.empty());
  EXPECT_EQ(unsaid.iteration_ms.back(), said.iteration_ms.back());
}

// A WD division's tables serve every share of the total a kernel may get: the small-workspace
// configurations a small share needs rank after the heuristics' first within the whole total,
// so a division measures every one, whatever UCUDNN_BENCHMARK_LIMIT.
TEST_F(EndToEnd, ADivisionMeasuresEveryConfigurationWhateverTheBenchmarkLimit) {
  const auto total = std::to_string(kTotalWorkspace);
  const ProgramRun run =
      preloaded({"--workspace-limit", total}, {{"UCUDNN_TOTAL_WORKSPACE_SIZE", total},
                                               {"UCUDNN_DATABASE", database_path()},
                                               {"UCUDNN_LOG_LEVEL", "info"},
                                               {"UCUDNN_BENCHMARK_LIMIT", "1"}});
  expect_ran_on_doubles(run);
  ASSERT_TRUE(measuring_line(run.process.err)) << run.process.err;
  EXPECT_GT(most_measured_at_the_full_batch(database_path(), kTotalWorkspace), 1);
  EXPECT_EQ(run.process.err.find("UCUDNN_BENCHMARK_LIMIT"), std::string::npos) << run.process.err;
}

// Each transaction on the database file is a synchronous commit (milliseconds): a kernel's
// planning saves its measurements and its plan in one, not one per measurement.
TEST_F(EndToEnd, AKernelsPlanningIsSavedInOneTransaction) {
  const auto cap = std::to_string(kTightLimit);
  const ProgramRun run =
      preloaded({"--workspace-limit", cap}, {{"UCUDNN_WORKSPACE_LIMIT", cap},
                                             {"UCUDNN_DATABASE", database_path()},
                                             {"UCUDNN_LOG_LEVEL", "info"}});
  expect_ran_on_doubles(run);
  const int kernels = count_of(run.process.err, " plan within ");
  const auto [measured_kernels, pairs] = benchmarked_lines(run.process.err);  // attempted
  ASSERT_EQ(kernels, 15) << run.process.err;
  // Each plan line names its kernel by its shapes: "Forward x=[..] w=[..] plan within ...".
  EXPECT_EQ(count_of(run.process.err, "] plan within "), kernels) << run.process.err;
  ASSERT_EQ(measured_kernels, kernels) << run.process.err;
  ASSERT_GT(pairs, 3 * kernels);
  const auto rows = [&](const char* sql) { return testing::sqlite_number(database_path(), sql); };
  // Every pair timed is saved, and those cuDNN refused; not those over the limit (never run).
  const auto line = measuring_line(run.process.err);
  ASSERT_TRUE(line) << run.process.err;
  // The kernels' lines count what the exit line counts as timed, and more that did not run.
  EXPECT_EQ(testing::timed_in_benchmarked_lines(run.process.err), line->pairs) << run.process.err;
  const int saved = rows("SELECT count(*) FROM measurements");
  EXPECT_GE(saved, line->pairs);
  EXPECT_LE(saved, pairs);
  EXPECT_EQ(rows("SELECT count(*) FROM plans"), kernels);
  // One for each kernel's planning, and a few to make the file (its schema).
  const std::uint32_t transactions = testing::sqlite_change_counter(database_path());
  EXPECT_GE(transactions, static_cast<std::uint32_t>(kernels));
  EXPECT_LE(transactions, static_cast<std::uint32_t>(kernels + 5))
      << "of " << pairs << " measurements and " << kernels << " plans";
}

// Where cuDNN's plan executions wait for their own stream (as CUDA's lazy loading may), the gate
// that keeps the host's issuing out of measurements (cudnn/stream_gate.h) times out; the
// device's benchmarkers share whether it is on, so that a job pays a few timeouts, not a few per
// kernel, and the exit line says how many.
TEST_F(EndToEnd, AGateThatKeepsTimingOutIsTurnedOffOnceForTheDevice) {
  const auto cap = std::to_string(kTightLimit);
  const ProgramRun run =
      preloaded({"--workspace-limit", cap}, {{"UCUDNN_WORKSPACE_LIMIT", cap},
                                             {"UCUDNN_DATABASE", database_path()},
                                             {"UCUDNN_LOG_LEVEL", "info"},
                                             {"FAKECUDA_EXECUTE_SYNCHRONIZES", "1"},
                                             {"FAKECUDA_HOST_COST_US", "execute=20,legacy=20"}});
  expect_ran_on_doubles(run);
  const auto line = measuring_line(run.process.err);
  ASSERT_TRUE(line) << run.process.err;
  EXPECT_GT(line->kernels, 3);
  const auto ungated_and_timeouts = ungated_pairs(run.process.err);
  ASSERT_TRUE(ungated_and_timeouts) << run.process.err;
  const auto [ungated, timeouts] = *ungated_and_timeouts;
  EXPECT_EQ(timeouts, 3) << "the device's three, not three per kernel";
  EXPECT_GT(ungated, line->kernels);
}

}  // namespace
}  // namespace ucudnn
